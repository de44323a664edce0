"""manage.py worker_links and manage.py prolific: the admin pages' command-line twins."""

import csv
import io
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command

from campaigns.models import CampaignStatus
from judgments import tokens
from judgments.models import AssignmentStatus, CampaignWorker, Platform, Worker
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db

BASE = "https://eval.example.org"


@pytest.fixture(autouse=True)
def public_base_url(settings):
    settings.PUBLIC_BASE_URL = BASE


@pytest.fixture
def campaign():
    return CampaignFactory(name="news-de-en")


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def expected_links(campaign) -> list[list[str]]:
    return [
        ["worker_id", "label", "link"],
        *[
            [str(w.pk), w.label, f"{BASE}/work/w/{tokens.worker_token(w.pk, campaign.pk)}/"]
            for w in Worker.objects.order_by("pk")
        ],
    ]


# --- worker_links ---------------------------------------------------------------------------


def test_count_writes_the_links_to_standard_output(campaign):
    out, err = run("worker_links", "news-de-en", "--count", "3")

    workers = list(Worker.objects.order_by("pk"))
    assert [(w.platform, w.label) for w in workers] == [(Platform.DIRECT, "")] * 3
    assert list(csv.reader(io.StringIO(out))) == expected_links(campaign)
    assert err == (
        f'Created 3 link(s) to campaign "news-de-en" (workers {workers[0].pk} to '
        f"{workers[-1].pk}); written to standard output.\n"
    )


def test_labels_from_a_file_and_output_to_a_file(campaign, tmp_path):
    labels = tmp_path / "people.txt"
    labels.write_text("\ufeffAna Lima\n\nBen Okafor\n", encoding="utf-8")
    output = tmp_path / "links.csv"

    out, err = run(
        "worker_links", str(campaign.pk), "--labels", str(labels), "--count", "3", "-o", str(output)
    )

    assert out == ""
    assert [w.label for w in Worker.objects.order_by("pk")] == ["Ana Lima", "Ben Okafor", ""]
    with output.open(encoding="utf-8", newline="") as handle:
        assert list(csv.reader(handle)) == expected_links(campaign)
    assert err.endswith(f"written to {output}.\n")


def test_labels_from_standard_input(campaign, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("Ana\nBen\n"))
    out, _ = run("worker_links", "news-de-en", "--labels", "-")
    assert [w.label for w in Worker.objects.order_by("pk")] == ["Ana", "Ben"]
    assert list(csv.reader(io.StringIO(out))) == expected_links(campaign)


def test_a_draft_campaign_gets_links_and_a_warning(campaign):
    campaign.status = CampaignStatus.DRAFT
    campaign.save()
    _, err = run("worker_links", "news-de-en", "--count", "1")
    assert err.splitlines()[-1] == (
        "The campaign is a draft: the links open once you activate it (action "
        '"Activate: hand out HITs"). Until then they say the campaign has not opened.'
    )
    assert Worker.objects.count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("nosuch", "--count", "1"),
            'No campaign named or numbered "nosuch".',
        ),
        (
            ("news-de-en",),
            "Give the number of links to make, or the labels (one per line) of the people "
            "they are for. Nothing was created.",
        ),
        (
            ("news-de-en", "--count", "10001"),
            "Make from 1 to 10,000 links at a time (asked for 10,001). Nothing was created.",
        ),
        (
            ("news-de-en", "--count", "0"),
            "Make from 1 to 10,000 links at a time (asked for 0). Nothing was created.",
        ),
    ],
)
def test_impossible_requests_stop_with_a_message_and_create_nobody(campaign, args, message):
    with pytest.raises(CommandError) as error:
        run("worker_links", *args)
    assert str(error.value) == message
    assert Worker.objects.count() == 0


def test_more_labels_than_links_creates_nobody(campaign, tmp_path):
    labels = tmp_path / "people.txt"
    labels.write_text("Ana\nBen\n", encoding="utf-8")
    with pytest.raises(CommandError) as error:
        run("worker_links", "news-de-en", "--labels", str(labels), "--count", "1")
    assert str(error.value) == (
        "You gave 2 labels but asked for 1 links. Leave the number empty to make one link per "
        "label, or raise it. Nothing was created."
    )
    assert Worker.objects.count() == 0


def test_an_unreadable_labels_file_creates_nobody(campaign, tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(CommandError) as error:
        run("worker_links", "news-de-en", "--labels", str(missing))
    assert str(error.value).startswith(f"Cannot read the labels file {missing}: ")
    assert str(error.value).endswith(
        "Give a UTF-8 text file with one label per line. Nothing was created."
    )
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("Jürgen\n".encode("latin-1"))
    with pytest.raises(CommandError):
        run("worker_links", "news-de-en", "--labels", str(latin1))
    assert Worker.objects.count() == 0


def test_an_unwritable_output_creates_nobody(campaign, tmp_path):
    target = tmp_path / "no-such-dir" / "links.csv"
    with pytest.raises(CommandError) as error:
        run("worker_links", "news-de-en", "--count", "2", "-o", str(target))
    assert str(error.value).startswith(f"Cannot write {target}: ")
    assert str(error.value).endswith("Choose a writable path. Nothing was created.")
    assert Worker.objects.count() == 0


def test_prolific_export_to_an_unwritable_path_says_so(campaign, tmp_path):
    target = tmp_path / "no-such-dir" / "approvals.csv"
    with pytest.raises(CommandError) as error:
        run("prolific", "export", "news-de-en", "-o", str(target))
    assert str(error.value) == (
        f"Cannot write {target}: [Errno 2] No such file or directory: '{target}'. Choose a "
        "writable path."
    )


def test_a_finished_campaign_gets_no_links(campaign):
    campaign.status = CampaignStatus.FINISHED
    campaign.save()
    with pytest.raises(CommandError) as error:
        run("worker_links", "news-de-en", "--count", "2")
    assert str(error.value) == (
        'Campaign "news-de-en" has finished, so its links would only say so. Activate it again '
        "first if you want more work done. Nothing was created."
    )
    assert Worker.objects.count() == 0


# --- prolific ---------------------------------------------------------------------------------


def test_study_url_prints_the_url_and_warns_without_a_completion_code(campaign):
    out, err = run("prolific", "study-url", "news-de-en")
    assert out == (
        f"{BASE}/work/prolific/{campaign.pk}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}\n"
    )
    assert err == (
        "The campaign has no Prolific completion code: participants who finish are asked to "
        "message you on Prolific. Set prolific_completion_code to the code in the study's "
        "settings.\n"
    )
    campaign.prolific_completion_code = "C1A2B3C4"
    campaign.save()
    assert run("prolific", "study-url", str(campaign.pk))[1] == ""


@pytest.fixture
def prolific_work(campaign):
    submitted = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2)]
    for pid, hit, session in (("p1", hits[0], "s1"), ("p2", hits[1], "s2")):
        worker = WorkerFactory(platform=Platform.PROLIFIC, external_id=pid)
        CampaignWorker.objects.create(campaign=campaign, worker=worker, excluded=pid == "p2")
        AssignmentFactory(
            hit=hit,
            worker=worker,
            status=AssignmentStatus.SUBMITTED,
            submitted_at=submitted,
            platform_assignment_id=session,
            platform_hit_id="st",
        )
    return campaign


def test_export_writes_the_approvals_csv(prolific_work, tmp_path):
    output = tmp_path / "approvals.csv"
    out, err = run("prolific", "export", "news-de-en", "-o", str(output))
    assert out == ""
    assert output.read_bytes().decode("utf-8") == (
        "participant_id,study_id,session_id,status,submitted_at,decision,reason\r\n"
        "p1,st,s1,submitted,2025-03-04T05:06:07+00:00,approve,\r\n"
        "p2,st,s2,submitted,2025-03-04T05:06:07+00:00,reject,Excluded by the requester\r\n"
    )
    assert err == (
        'Campaign "news-de-en": 2 Prolific submission(s): 1 to approve, 1 to reject, 0 still '
        "working, 0 left unfinished.\n"
    )


def test_export_ids_only_lists_the_participants_to_approve(prolific_work):
    out, _ = run("prolific", "export", "news-de-en", "--ids-only")
    assert out == "p1\n"


def test_export_ids_only_with_nobody_to_approve_writes_nothing(campaign):
    out, err = run("prolific", "export", "news-de-en", "--ids-only")
    assert out == ""
    assert err.startswith('Campaign "news-de-en": 0 Prolific submission(s)')


def test_prolific_needs_a_known_campaign_and_a_subcommand(campaign):
    with pytest.raises(CommandError) as error:
        run("prolific", "export", "nosuch")
    assert str(error.value) == 'No campaign named or numbered "nosuch".'
    with pytest.raises(CommandError):
        run("prolific")
