"""Direct links, the Prolific study URL and approvals, and the background export: the functions
in campaigns.links and their admin pages and actions."""

import csv
import io
import math
import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from analytics.models import AccessLevel, CampaignAccess
from campaigns import links
from campaigns.models import CampaignStatus
from judgments import tokens
from judgments.actions import exclude_worker
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    CountrySource,
    Platform,
    Worker,
)
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

BASE = "https://eval.example.org"
SUBMITTED_AT = datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)


@pytest.fixture(autouse=True)
def public_base_url(settings):
    settings.PUBLIC_BASE_URL = BASE + "/"  # a trailing slash is not doubled


@pytest.fixture
def campaign():
    campaign = CampaignFactory(name="news-de-en", title="Rate some English", redundancy=1)
    for number in (1, 2, 3):
        hit = HitFactory(campaign=campaign, number=number)
        HitSlotFactory(hit=hit, position=1)
    return campaign


@pytest.fixture
def admin_client(client):
    user = User.objects.create(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    return client


def read_csv(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"))))


def path_of(url: str) -> str:
    assert url.startswith(BASE + "/")
    return url[len(BASE) :]


# --- Direct links: the functions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "labels", "planned"),
    [
        (3, [], ["", "", ""]),
        (None, ["Ana", "Ben"], ["Ana", "Ben"]),
        (3, ["Ana"], ["Ana", "", ""]),
        (2, ["Ana", "Ben"], ["Ana", "Ben"]),
        (10_000, [], [""] * 10_000),
    ],
)
def test_the_links_planned(count, labels, planned):
    assert links.planned_labels(count, labels) == planned


@pytest.mark.parametrize(
    ("count", "labels", "field", "message"),
    [
        (
            None,
            [],
            None,
            "Give the number of links to make, or the labels (one per line) of the people they "
            "are for.",
        ),
        (0, [], "count", "Make from 1 to 10,000 links at a time (asked for 0)."),
        (10_001, [], "count", "Make from 1 to 10,000 links at a time (asked for 10,001)."),
        (
            1,
            ["Ana", "Ben"],
            "count",
            "You gave 2 labels but asked for 1 links. Leave the number empty to make one link "
            "per label, or raise it.",
        ),
        (
            None,
            ["x"] * 10_001,
            "labels",
            "Make at most 10,000 links at a time; the labels list 10,001 people. Split the list.",
        ),
    ],
)
def test_impossible_link_requests_say_what_to_change(count, labels, field, message):
    with pytest.raises(links.LinkRequestError) as error:
        links.planned_labels(count, labels)
    assert (error.value.field, error.value.message) == (field, message)


def test_labels_are_one_per_line_trimmed_without_blank_lines():
    text = "  Ana Lima \r\n\n\tBen  Okafor\n   \nana@example.org"
    assert links.parse_labels(text) == ["Ana Lima", "Ben Okafor", "ana@example.org"]


def test_a_label_longer_than_the_column_is_refused_with_its_line():
    with pytest.raises(links.LinkRequestError) as error:
        links.parse_labels("Ana\n\n" + "x" * 201)
    assert error.value.message == (
        "Line 3 has 201 characters; a label has at most 200. Shorten it (a name or an e-mail "
        "address is enough)."
    )


def test_links_are_new_pseudonymous_workers_with_signed_tokens(campaign):
    rows = links.create_direct_links(campaign, ["Ana", "", "Ben"])

    workers = list(Worker.objects.order_by("pk"))
    assert [(w.platform, w.label) for w in workers] == [
        (Platform.DIRECT, "Ana"),
        (Platform.DIRECT, ""),
        (Platform.DIRECT, "Ben"),
    ]
    assert all(re.fullmatch(r"anon-[0-9a-f]{16}", w.external_id) for w in workers)
    assert rows == [
        links.WorkerLinkRow(
            w.pk,
            w.label,
            f"{BASE}/work/w/{tokens.worker_token(w.pk, campaign.pk)}/",
        )
        for w in workers
    ]
    assert CampaignWorker.objects.count() == 0  # they join at their first task


def test_every_link_leads_its_own_worker_to_their_own_task(campaign):
    rows = links.create_direct_links(campaign, ["Ana", "Ben"])
    client = Client()
    for row in rows:
        response = client.get(path_of(row.link))
        assignment = Assignment.objects.get(worker_id=row.worker_id)
        token = tokens.assignment_token(assignment.pk, row.worker_id)
        assert response["Location"] == reverse("judgments:task", args=[token])
        assert client.get(response["Location"]).status_code == 200
    assert sorted(Assignment.objects.values_list("hit__number", flat=True)) == [1, 2]


def test_links_are_made_with_a_few_bulk_inserts(campaign):
    # Batches of 500 (fewer where the database allows fewer parameters per statement), inside
    # one savepoint: a dozen statements for 1,200 workers, not 1,200.
    fields = [field for field in Worker._meta.concrete_fields if not field.primary_key]
    per_insert = min(links.CREATE_BATCH, connection.ops.bulk_batch_size(fields, [None] * 500))
    expected_inserts = sum(math.ceil(size / per_insert) for size in (500, 500, 200))
    with CaptureQueriesContext(connection) as queries:
        rows = links.create_direct_links(campaign, [""] * 1200)
    statements = [query["sql"].split()[0] for query in queries.captured_queries]
    assert statements == ["SAVEPOINT", *["INSERT"] * expected_inserts, "RELEASE"]
    assert len(rows) == Worker.objects.count() == 1200
    assert len({row.link for row in rows}) == 1200


def test_progress_is_reported_per_insert(campaign):
    reported: list[int] = []
    links.create_direct_links(campaign, [""] * 1200, on_progress=reported.append)
    assert reported == [500, 500, 200]


def test_a_finished_campaign_gets_no_links(campaign):
    campaign.status = CampaignStatus.FINISHED
    campaign.save()
    with pytest.raises(links.LinkRequestError) as error:
        links.create_direct_links(campaign, ["Ana"])
    assert error.value.message == (
        'Campaign "news-de-en" has finished, so its links would only say so. Activate it again '
        "first if you want more work done."
    )
    assert Worker.objects.count() == 0


def test_the_open_link_is_the_entry_page(campaign):
    assert links.open_link_url(campaign) == f"{BASE}/work/{campaign.pk}/"


def test_spreadsheet_formulas_are_defused():
    out = io.StringIO()
    links.write_csv(out, ["a", "b", "c"], [["=1+1", "-2", 3], ["@SUM(A1)", "plain", -4]])
    assert out.getvalue() == "a,b,c\r\n'=1+1,'-2,3\r\n'@SUM(A1),plain,-4\r\n"


# --- Direct links: the admin page ------------------------------------------------------------


def links_url(campaign):
    return reverse("admin:campaigns_campaign_links", args=[campaign.pk])


def test_the_action_opens_the_links_page_for_one_campaign(admin_client, campaign):
    response = admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "create_worker_links", "_selected_action": [campaign.pk]},
    )
    assert (response.status_code, response["Location"]) == (302, links_url(campaign))


def test_the_action_wants_exactly_one_campaign(admin_client, campaign):
    other = CampaignFactory()
    response = admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "create_worker_links", "_selected_action": [campaign.pk, other.pk]},
        follow=True,
    )
    assert [str(m) for m in response.context["messages"]] == [
        "Select exactly one campaign for this action: it works on one campaign at a time."
    ]


def test_the_links_page_has_the_form_and_the_open_link(admin_client, campaign):
    response = admin_client.get(links_url(campaign))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Create direct worker links for news-de-en" in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="count"' in html and 'name="labels"' in html
    assert f'value="{BASE}/work/{campaign.pk}/"' in html
    assert 'type="password"' not in html


def test_posting_the_form_downloads_the_links(admin_client, campaign):
    response = admin_client.post(links_url(campaign), {"count": "3", "labels": "Ana\n\nBen\n"})

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert (
        response["Content-Disposition"]
        == f'attachment; filename="links-campaign-{campaign.pk}.csv"'
    )
    workers = list(Worker.objects.order_by("pk"))
    assert read_csv(response.content) == [
        ["worker_id", "label", "link"],
        *[
            [str(w.pk), w.label, f"{BASE}/work/w/{tokens.worker_token(w.pk, campaign.pk)}/"]
            for w in workers
        ],
    ]
    assert [w.label for w in workers] == ["Ana", "Ben", ""]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"count": "", "labels": ""}, "Give the number of links to make, or the labels"),
        ({"count": "0"}, "Make from 1 to 10,000 links at a time."),
        ({"count": "10001"}, "Make from 1 to 10,000 links at a time."),
        ({"count": "many"}, "Give a whole number of links, such as 25."),
        ({"count": "1", "labels": "Ana\nBen"}, "You gave 2 labels but asked for 1 links."),
    ],
)
def test_a_bad_request_shows_the_form_again_and_creates_nobody(
    admin_client, campaign, data, message
):
    response = admin_client.post(links_url(campaign), data)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert message in response.content.decode()
    assert Worker.objects.count() == 0


def test_a_finished_campaign_shows_why_and_creates_nobody(admin_client, campaign):
    campaign.status = CampaignStatus.FINISHED
    campaign.save()
    response = admin_client.post(links_url(campaign), {"count": "2"})
    html = response.content.decode()
    assert "The campaign has finished: its links only say so." in html
    assert "has finished, so its links would only say so." in html
    assert Worker.objects.count() == 0


def test_the_links_form_needs_the_csrf_token(campaign):
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create(username="root", is_staff=True, is_superuser=True))
    assert client.post(links_url(campaign), {"count": "2"}).status_code == 403
    assert Worker.objects.count() == 0


def test_staff_without_the_change_permission_cannot_make_links(client, campaign):
    viewer = User.objects.create(username="analyst", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(viewer)
    # Not shared with them: not found, as if it did not exist (analytics.access).
    assert client.get(links_url(campaign)).status_code == 404
    CampaignAccess.objects.create(campaign=campaign, user=viewer, level=AccessLevel.READ)
    assert client.get(links_url(campaign)).status_code == 403
    assert client.post(links_url(campaign), {"count": "2"}).status_code == 403
    assert Worker.objects.count() == 0


# --- Prolific ---------------------------------------------------------------------------------


def test_the_study_url_has_prolifics_placeholders(campaign):
    assert links.prolific_study_url(campaign) == (
        f"{BASE}/work/prolific/{campaign.pk}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )


def test_the_study_url_works_once_prolific_fills_it_in(campaign):
    url = links.prolific_study_url(campaign)
    for placeholder, value in [
        ("{{%PROLIFIC_PID%}}", "5f1d2c3b4a5968778695a4b3"),
        ("{{%STUDY_ID%}}", "60aa11bb22cc33dd44ee55ff"),
        ("{{%SESSION_ID%}}", "61bb22cc33dd44ee55ff6677"),
    ]:
        url = url.replace(placeholder, value)
    response = Client().get(path_of(url))
    assignment = Assignment.objects.get()
    assert assignment.worker.external_id == "5f1d2c3b4a5968778695a4b3"
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    assert response["Location"] == reverse("judgments:task", args=[token])


def prolific_worker(pid: str) -> Worker:
    return WorkerFactory(platform=Platform.PROLIFIC, external_id=pid)


@pytest.fixture
def submissions(campaign):
    """Participants in every state the export knows."""
    hits = {hit.number: hit for hit in campaign.hits.all()}
    test = HitFactory(campaign=campaign, number=9, is_qualification=True)

    def held(pid, hit, status, session="", study="60aa", **extra):
        worker = Worker.objects.filter(external_id=pid).first() or prolific_worker(pid)
        CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
        submitted = SUBMITTED_AT if status in ("submitted", "approved", "rejected") else None
        return AssignmentFactory(
            hit=hit,
            worker=worker,
            status=status,
            submitted_at=submitted,
            platform_assignment_id=session,
            platform_hit_id=study if session or study else "",
            **extra,
        )

    held("a1", hits[1], AssignmentStatus.SUBMITTED, "s1")
    held("b2", hits[2], AssignmentStatus.SUBMITTED, "s2")
    exclude_worker(campaign, Worker.objects.get(external_id="b2"), "same score everywhere")
    held("c3", hits[3], AssignmentStatus.STARTED, "s3")
    held("d4", hits[1], AssignmentStatus.EXPIRED, "s4")
    # Passed the test in session s5, then did HIT 2 (no session of its own) in the same session.
    held("e5", test, AssignmentStatus.SUBMITTED, "s5")
    held("e5", hits[2], AssignmentStatus.SUBMITTED, "", study="")
    CampaignWorker.objects.filter(worker__external_id="e5").update(qualification_passed=True)
    # Failed the test in session s6.
    held("f6", test, AssignmentStatus.SUBMITTED, "s6")
    CampaignWorker.objects.filter(worker__external_id="f6").update(
        qualification_passed=False, qualification_score=0.25
    )
    # Passed the test in s7 and has not started a HIT yet.
    held("g7", test, AssignmentStatus.SUBMITTED, "s7")
    CampaignWorker.objects.filter(worker__external_id="g7").update(qualification_passed=True)
    # Not a Prolific worker: never in the export.
    AssignmentFactory(hit=hits[3], status=AssignmentStatus.SUBMITTED)
    return campaign


EXPECTED_APPROVALS = [
    ["participant_id", "study_id", "session_id", "status", "submitted_at", "decision", "reason"],
    ["a1", "60aa", "s1", "submitted", "2025-03-04T05:06:07+00:00", "approve", ""],
    [
        "b2",
        "60aa",
        "s2",
        "submitted",
        "2025-03-04T05:06:07+00:00",
        "reject",
        "Excluded by the requester (same score everywhere)",
    ],
    ["c3", "60aa", "s3", "started", "", "wait", "Still working on the task."],
    ["d4", "60aa", "s4", "expired", "", "none", "Did not finish the task in time (expired)."],
    ["e5", "60aa", "s5", "submitted", "2025-03-04T05:06:07+00:00", "approve", ""],
    [
        "f6",
        "60aa",
        "s6",
        "submitted",
        "2025-03-04T05:06:07+00:00",
        "reject",
        "Failed the qualification test (score 25%)",
    ],
    [
        "g7",
        "60aa",
        "s7",
        "submitted",
        "2025-03-04T05:06:07+00:00",
        "wait",
        "Passed the qualification test; no task started after it yet.",
    ],
]


def test_the_approvals_list_every_prolific_submission_with_a_decision(
    submissions, django_assert_num_queries
):
    with django_assert_num_queries(3):
        approvals = links.prolific_approvals(submissions)
    assert [list(a.as_row()) for a in approvals] == EXPECTED_APPROVALS[1:]
    assert links.participant_ids_to_approve(approvals) == ["a1", "e5"]
    assert links.decision_counts(approvals) == {"approve": 2, "reject": 2, "wait": 2, "none": 1}


@pytest.mark.parametrize(
    ("status", "failure", "decision"),
    [
        (AssignmentStatus.SUBMITTED, None, ("approve", "")),
        (AssignmentStatus.APPROVED, None, ("approve", "")),
        (
            AssignmentStatus.SUBMITTED,
            "Excluded by the requester",
            ("reject", "Excluded by the requester"),
        ),
        (AssignmentStatus.REJECTED, "Untrusted", ("reject", "Untrusted")),
        (AssignmentStatus.STARTED, "Untrusted", ("wait", "Still working on the task.")),
        (AssignmentStatus.EXPIRED, None, ("none", "Did not finish the task in time (expired).")),
        (AssignmentStatus.RETURNED, None, ("none", "Returned the task without finishing it.")),
    ],
)
def test_the_decision_on_one_submission(status, failure, decision):
    assert links.approval_decision(status, failure) == decision


def test_the_prolific_action_opens_the_prolific_page(admin_client, campaign):
    response = admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "prolific_study", "_selected_action": [campaign.pk]},
    )
    assert response["Location"] == reverse("admin:campaigns_campaign_prolific", args=[campaign.pk])


def test_the_prolific_page_shows_the_url_codes_and_approvals(admin_client, submissions):
    submissions.prolific_completion_code = "C1A2B3C4"
    submissions.save()
    response = admin_client.get(reverse("admin:campaigns_campaign_prolific", args=[submissions.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    study_url = links.prolific_study_url(submissions)
    assert f'value="{escape(study_url)}"' in html
    assert (
        "are sent to <code>https://app.prolific.com/submissions/complete?cc=C1A2B3C4</code>" in html
    )
    assert "get no code and are asked to return their submission on Prolific." in html
    assert "7 submissions:\n      2 to approve, 2 to reject,\n      2 still working, 1 left" in html
    assert (
        '<textarea id="prolific-ids" class="prolific-ids" rows="10" readonly>a1\ne5</textarea>'
        in html
    )


def test_the_prolific_page_warns_when_no_completion_code_is_set(admin_client, campaign):
    html = admin_client.get(
        reverse("admin:campaigns_campaign_prolific", args=[campaign.pk])
    ).content.decode()
    assert "No completion code is set" in html
    assert 'id="prolific-ids"' not in html


def test_the_approvals_download(admin_client, submissions):
    response = admin_client.get(
        reverse("admin:campaigns_campaign_prolific_approvals", args=[submissions.pk])
    )
    assert response["Content-Disposition"] == (
        f'attachment; filename="prolific-approvals-campaign-{submissions.pk}.csv"'
    )
    assert read_csv(response.content) == EXPECTED_APPROVALS


def test_the_ids_to_approve_download(admin_client, submissions):
    response = admin_client.get(
        reverse("admin:campaigns_campaign_prolific_ids", args=[submissions.pk])
    )
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content == b"a1\ne5\n"


def test_prolific_pages_need_a_login(client, campaign):
    for name in (
        "admin:campaigns_campaign_prolific",
        "admin:campaigns_campaign_prolific_approvals",
        "admin:campaigns_campaign_prolific_ids",
        "admin:campaigns_campaign_links",
    ):
        response = client.get(reverse(name, args=[campaign.pk]))
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


# --- Worker background export -----------------------------------------------------------------


def test_the_background_export_has_one_row_per_worker_of_the_campaigns(admin_client, campaign):
    answered = WorkerFactory(
        platform=Platform.MTURK,
        external_id="A1B2C3",
        native_language='=HYPERLINK("http://evil")',
        country="MX",
        country_source=CountrySource.FORM,
    )
    CampaignWorker.objects.create(
        campaign=campaign,
        worker=answered,
        years_source_language=15,
        years_target_language=32,
        background_at=SUBMITTED_AT,
    )
    from_locale = WorkerFactory(
        external_id="anon-1", label="Ana", country="US", country_source=CountrySource.MTURK_LOCALE
    )
    CampaignWorker.objects.create(campaign=campaign, worker=from_locale)
    elsewhere = CampaignFactory(name="other")
    CampaignWorker.objects.create(campaign=elsewhere, worker=WorkerFactory())

    response = admin_client.post(
        reverse("admin:campaigns_campaign_changelist"),
        {"action": "export_worker_background", "_selected_action": [campaign.pk]},
    )

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="background-campaign-{campaign.pk}.csv"'
    )
    content = b"".join(response.streaming_content)
    assert read_csv(content) == [
        list(links.BACKGROUND_COLUMNS),
        [
            "news-de-en",
            str(answered.pk),
            "mturk",
            "A1B2C3",
            "",
            '\'=HYPERLINK("http://evil")',
            "MX",
            "Mexico",
            "form",
            "15",
            "32",
            "2025-03-04T05:06:07+00:00",
        ],
        [
            "news-de-en",
            str(from_locale.pk),
            "direct",
            "anon-1",
            "Ana",
            "",
            "US",
            "United States of America",
            "mturk_locale",
            "",
            "",
            "",
        ],
    ]


def test_the_background_export_is_one_query_whatever_the_number_of_workers(
    campaign, django_assert_num_queries
):
    for _ in range(30):
        CampaignWorker.objects.create(
            campaign=campaign, worker=WorkerFactory(), background_at=timezone.now()
        )
    with django_assert_num_queries(1):
        rows = list(links.background_rows([campaign]))
    assert len(rows) == 30
