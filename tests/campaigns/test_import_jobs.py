"""Import jobs (issue 11 item 6), run through the Celery task with Celery eager: a job goes
from queued to done with the importer's summary, or to failed with every problem and nothing
written; its uploads are gone either way; progress is written to its row; a job whose worker
stopped sending its heartbeat is marked failed when looked at."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from campaigns.import_jobs import actions, progress
from campaigns.importers import WmtFiles
from campaigns.importers.judgments import ImportOptions
from campaigns.models import Campaign, ImportJob, ImportJobStatus, Output, Segment, TaskKind
from campaigns.tasks import run_import_job
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

GOOD_TSV = (
    "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
    "d1\t1\tEins\tOne\tA\tone-A\n"
    "d1\t1\tEins\tOne\tB\tone-B\n"
    "d1\t2\tZwei\tTwo\tA\ttwo-A\n"
    "d1\t2\tZwei\tTwo\tB\ttwo-B\n"
)


@pytest.fixture(autouse=True)
def upload_root(settings, tmp_path):
    settings.IMPORT_UPLOAD_ROOT = tmp_path / "uploads"
    settings.IMPORT_INLINE_MAX_BYTES = 10
    return settings.IMPORT_UPLOAD_ROOT


@pytest.fixture
def owner():
    return get_user_model().objects.create(username="req", is_staff=True, is_superuser=True)


@pytest.fixture
def campaign(owner):
    return CampaignFactory(name="news", kind=TaskKind.RANKING, owner=owner)


def upload(text: str, name: str = "demo.tsv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def test_a_segment_job_goes_from_queued_to_done_with_the_summary(
    owner, campaign, upload_root, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as queued:
        job = actions.create_segment_job(owner, campaign, "tsv", upload(GOOD_TSV))
    job.refresh_from_db()
    assert job.status == ImportJobStatus.QUEUED
    assert job.files == [{"role": "file", "name": "demo.tsv", "path": f"{job.pk}/0/demo.tsv"}]
    kept = upload_root / str(job.pk) / "0" / "demo.tsv"
    assert kept.read_text() == GOOD_TSV
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    assert job.size == len(GOOD_TSV)
    assert len(queued) == 1 and Segment.objects.count() == 0

    queued[0]()  # the commit: Celery eager runs the task here
    job.refresh_from_db()
    assert job.status == ImportJobStatus.DONE
    assert job.result == {
        "files": ["demo.tsv"],
        "documents": 1,
        "segments": 2,
        "systems": 2,
        "outputs": 4,
        "systems_used": 2,
        "ignored": {},
        "notes": [],
        "dry_run": False,
        "hits_note": "",
        "stored_segments": 0,
        "stored_outputs": 0,
        "message": "Imported 1 new document, 2 segments and 4 outputs of 2 systems (2 new) "
        "from demo.tsv.",
    }
    assert (job.phase, job.done, job.total, job.percent) == ("writing", 6, 6, 100)
    assert job.problems == [] and job.problem_total == 0
    assert job.started_at <= job.finished_at
    assert Output.objects.filter(segment__campaign=campaign).count() == 4
    assert not (upload_root / str(job.pk)).exists()


def test_a_bad_file_fails_the_job_with_every_problem_and_writes_nothing(
    owner, campaign, upload_root, django_capture_on_commit_callbacks
):
    bad = GOOD_TSV + "d1\t3\tDrei\t\tA\tthree-A\n"
    with django_capture_on_commit_callbacks(execute=True):
        job = actions.create_segment_job(owner, campaign, "tsv", upload(bad, "bad.tsv"))
    job.refresh_from_db()
    assert job.status == ImportJobStatus.FAILED
    assert job.problems == [
        {
            "file": "bad.tsv",
            "line": 6,
            "field": "reference",
            "message": "empty reference; a ranking campaign needs a reference for every segment",
        },
        {
            "file": "bad.tsv",
            "line": 6,
            "field": "system",
            "message": 'missing output: system "B" has no output for doc d1 seg 3',
        },
    ]
    assert job.problem_total == 2
    assert job.message == "2 problems found; nothing was imported."
    assert job.result is None
    assert Segment.objects.count() == 0 and campaign.systems.count() == 0
    assert not (upload_root / str(job.pk)).exists()


def test_a_wmt_job_keeps_every_file_under_its_own_name(
    owner, campaign, upload_root, django_capture_on_commit_callbacks
):
    files = WmtFiles(
        source=upload("Eins\nZwei\n", "test.de"),
        references=[upload("One\nTwo\n", "test.en")],
        systems={"A": upload("one-A\ntwo-A\n", "A.en"), "B": upload("one-B\n", "B.en")},
    )
    with django_capture_on_commit_callbacks(execute=True):
        job = actions.create_segment_job(owner, campaign, "wmt", files)
    job.refresh_from_db()
    assert [(entry["role"], entry["name"], entry.get("system")) for entry in job.files] == [
        ("source", "test.de", None),
        ("reference", "test.en", None),
        ("system", "A.en", "A"),
        ("system", "B.en", "B"),
    ]
    assert job.status == ImportJobStatus.FAILED
    assert [(p["file"], p["message"]) for p in job.problems] == [
        (
            "B.en",
            "1 line, but the source test.de has 2; the system file needs exactly one line "
            "per source line",
        ),
    ]


def test_a_judgment_job_imports_as_the_owner_may(owner, django_capture_on_commit_callbacks):
    options = ImportOptions("wmt-da", name="WMT21 cs-en", owner=owner)
    with django_capture_on_commit_callbacks(execute=True):
        job = actions.create_judgment_job(
            [upload(WMT_DA_RAW, "ad-csen.tsv")], options, dry_run=False
        )
    job.refresh_from_db()
    campaign = Campaign.objects.get()
    assert job.status == ImportJobStatus.DONE
    assert job.options["name"] == "WMT21 cs-en" and job.options["dry_run"] is False
    assert job.campaign == campaign and campaign.owner == owner
    assert job.result["counts"]["judgments"] == 44
    assert job.result["message"] == (
        "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 segments) from "
        'ad-csen.tsv into new campaign "WMT21 cs-en" (direct assessment, raw 0-100 scores).'
    )
    assert Judgment.objects.count() == 44


def test_a_judgment_job_of_a_user_who_may_not_create_fails_and_writes_nothing(
    django_capture_on_commit_callbacks,
):
    nobody = get_user_model().objects.create(username="nobody", is_staff=True)
    options = ImportOptions("wmt-da", name="WMT21", owner=nobody)
    with django_capture_on_commit_callbacks(execute=True):
        job = actions.create_judgment_job(
            [upload(WMT_DA_RAW, "ad-csen.tsv")], options, dry_run=False
        )
    job.refresh_from_db()
    assert job.status == ImportJobStatus.FAILED
    assert job.problems == [
        {
            "file": None,
            "line": None,
            "field": "name",
            "message": 'no campaign you may import into is named "WMT21", and creating a '
            "campaign needs the permission to add campaigns (campaigns.add_campaign)",
        }
    ]
    assert Campaign.objects.count() == 0 and Judgment.objects.count() == 0


def test_a_bad_judgment_file_lists_its_problems(owner, django_capture_on_commit_callbacks):
    text = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "abc"))
    options = ImportOptions("wmt-da", name="x", owner=owner)
    with django_capture_on_commit_callbacks(execute=True):
        job = actions.create_judgment_job([upload(text, "ad-csen.tsv")], options, dry_run=False)
    job.refresh_from_db()
    assert (job.status, job.problem_total) == (ImportJobStatus.FAILED, 1)
    assert job.problems == [
        {
            "file": "ad-csen.tsv",
            "line": 2,
            "field": "score",
            "message": '"abc" is not a number; every judgment needs one',
        }
    ]
    assert Campaign.objects.count() == 0


def test_progress_is_written_to_the_row_at_most_every_interval(
    owner, campaign, settings, monkeypatch, django_capture_on_commit_callbacks
):
    settings.IMPORT_JOB_PROGRESS_SECONDS = 0  # every report, so that each one can be seen
    seen = []
    write = progress.JobProgress.write

    def recording_write(self):
        write(self)
        row = ImportJob.objects.values_list("status", "phase", "done", "total").get(pk=self.job_id)
        seen.append(row)

    monkeypatch.setattr(progress.JobProgress, "write", recording_write)
    monkeypatch.setattr("campaigns.importers.writer.BATCH_SIZE", 1, raising=False)
    with django_capture_on_commit_callbacks(execute=True):
        actions.create_segment_job(owner, campaign, "tsv", upload(GOOD_TSV))
    assert seen[0] == ("checking", "reading", 5, 5)
    assert seen[-1] == ("writing", "writing", 6, 6)
    assert ("writing", "writing", 0, 6) in seen


def test_progress_reports_are_coalesced(owner, campaign, settings):
    settings.IMPORT_JOB_PROGRESS_SECONDS = 3600
    job = ImportJob.objects.create(
        kind="segments", format="tsv", owner=owner, status=ImportJobStatus.CHECKING
    )
    recorder = progress.JobProgress(job.pk, background=False)
    for line in range(1, 10_001):
        recorder.report(progress.READING, line, 10_000)
    assert recorder.writes == 1  # the first report only; the rest within the hour
    job.refresh_from_db()
    assert (job.phase, job.done, job.total) == ("reading", 1, 10_000)
    recorder.write()
    job.refresh_from_db()
    assert (job.done, job.total) == (10_000, 10_000)


def test_a_job_whose_worker_stopped_is_marked_failed_when_looked_at(
    owner, campaign, upload_root, settings
):
    settings.IMPORT_JOB_STALE_SECONDS = 120
    job = actions.create_segment_job(owner, campaign, "tsv", upload(GOOD_TSV))
    beat = timezone.now() - timedelta(seconds=121)
    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJobStatus.WRITING, phase="writing", started_at=beat, heartbeat_at=beat
    )
    job.refresh_from_db()
    assert job.is_stale()
    job = actions.fail_if_stale(job)
    assert job.status == ImportJobStatus.FAILED
    assert job.problems == [
        {
            "file": None,
            "line": None,
            "field": None,
            "message": "the import stopped: the worker running it gave no sign of life for 120 "
            "seconds while writing (it was stopped, restarted or ran out of memory); nothing "
            "was written (the write is one transaction); upload the files again",
        }
    ]
    assert not (upload_root / str(job.pk)).exists()
    # Still running within the limit: left alone.
    fresh = actions.create_segment_job(owner, campaign, "tsv", upload(GOOD_TSV))
    ImportJob.objects.filter(pk=fresh.pk).update(
        status=ImportJobStatus.CHECKING, heartbeat_at=timezone.now() - timedelta(seconds=100)
    )
    fresh.refresh_from_db()
    assert actions.fail_if_stale(fresh).status == ImportJobStatus.CHECKING


def test_the_task_does_nothing_for_a_gone_or_already_started_job(owner, campaign, caplog):
    assert run_import_job.apply(args=[987654]).get() is None
    assert "Import job 987654 is gone; nothing to import" in caplog.text
    job = ImportJob.objects.create(
        kind="segments",
        format="tsv",
        owner=owner,
        campaign=campaign,
        status=ImportJobStatus.WRITING,
    )
    # A message delivered again (acks_late after a lost worker): the job is not run twice.
    assert run_import_job.apply(args=[job.pk]).get() is None
    assert f"Import job {job.pk} is not waiting to run; nothing to do" in caplog.text
    job.refresh_from_db()
    assert job.status == ImportJobStatus.WRITING
