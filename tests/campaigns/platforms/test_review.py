"""The review workflow's Django glue (``campaigns.platforms.review``) and its Celery tasks,
against botocore's Stubber on a real boto3 client: the sync applying every reconcile action,
approve, reject, bonuses (never paid twice), blocks and e-mails, with the exact parameters of
every MTurk call and what is stored when MTurk refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import boto3
import pytest
from botocore.stub import ANY, Stubber
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import CampaignStatus
from campaigns.platforms import clients, review
from campaigns.platforms.models import MTurkHit, PlatformEvent
from campaigns.tasks import review as review_tasks
from judgments.models import Assignment, AssignmentStatus, Bonus, BonusStatus, Platform, Worker
from judgments.signals import exclusions_changed
from tests.campaigns.platforms.test_mturk import request_error
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db

HIT_1 = "3HIT00000000000000000000000001"
HIT_2 = "3HIT00000000000000000000000002"
WORKER_1 = "A1WORKER0000001"
WORKER_2 = "A2WORKER0000002"
ACCEPTED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
SUBMITTED = ACCEPTED + timedelta(minutes=7)
DECIDED = ACCEPTED + timedelta(days=1)
ALL_STATUSES = ["Submitted", "Approved", "Rejected"]


# --- Fixtures and builders (shared with the admin and command tests) ---------------------------


@pytest.fixture
def mturk_stub(monkeypatch):
    """A real boto3 MTurk client behind a Stubber, returned by ``clients.mturk_client``; the
    environments asked for are in ``stub.environments``."""
    client = boto3.client(
        "mturk", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    environments: list[bool] = []

    def build(sandbox: bool):
        environments.append(sandbox)
        return client

    monkeypatch.setattr(clients, "mturk_client", build)
    with Stubber(client) as stubber:
        stubber.environments = environments
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def announced():
    """The campaigns announced by ``exclusions_changed`` (their scores recompute)."""
    calls: list[list[int]] = []

    def receiver(sender, campaign_ids, **kwargs):
        calls.append(campaign_ids)

    exclusions_changed.connect(receiver, dispatch_uid="test-review-announced")
    yield calls
    exclusions_changed.disconnect(dispatch_uid="test-review-announced")


def published_hit(campaign, mturk_hit_id=HIT_1, *, sandbox=True, **fields):
    hit = HitFactory(campaign=campaign)
    MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id=mturk_hit_id,
        hit_type_id="3TYPE0000000000000000000000001",
        sandbox=sandbox,
        max_assignments=3,
        **fields,
    )
    return hit


def mturk_worker(external_id=WORKER_1):
    return Worker.objects.get_or_create(platform=Platform.MTURK, external_id=external_id)[0]


def mturk_assignment(hit, assignment_id, status=AssignmentStatus.SUBMITTED, worker=None, **fields):
    fields.setdefault("submitted_at", SUBMITTED if status != AssignmentStatus.STARTED else None)
    return AssignmentFactory(
        hit=hit,
        worker=worker or mturk_worker(f"AW{assignment_id}"),
        status=status,
        platform_assignment_id=assignment_id,
        platform_hit_id=hit.mturk.mturk_hit_id,
        **fields,
    )


def remote_item(assignment_id, status, worker=WORKER_1, hit_id=HIT_1, **times):
    item = {
        "AssignmentId": assignment_id,
        "WorkerId": worker,
        "HITId": hit_id,
        "AssignmentStatus": status,
        "AcceptTime": ACCEPTED,
        "SubmitTime": SUBMITTED,
        "Answer": "<QuestionFormAnswers/>",
    }
    item.update(times)
    return item


def list_response(stub, items, hit_id=HIT_1, next_token=None, sent_token=None):
    params = {"HITId": hit_id, "AssignmentStatuses": ALL_STATUSES, "MaxResults": 100}
    if sent_token:
        params["NextToken"] = sent_token
    response = {"Assignments": items, "NumResults": len(items)}
    if next_token:
        response["NextToken"] = next_token
    stub.add_response("list_assignments_for_hit", response, params)


INVALID_STATE = "This operation can be called with a status of: Submitted (1700000000000)"
INVALID_STATE_CODE = "AWS.MechanicalTurk.InvalidAssignmentState"
INVALID_STATE_HELP = (
    "The assignment or HIT is not in the state this action needs on MTurk (for an assignment: "
    "already approved or rejected, or not yet submitted): synchronise the campaign with MTurk "
    "and look at its current status."
)


def sent_to_mturk(stub, operation):
    """The exact parameters of every ``operation`` call (e.g. ``SendBonus``) as the client
    sent them: for values the test cannot know before the call, such as a new row's id in a
    request token (stubbed with ``ANY``, then compared here in full)."""
    sent: list[dict] = []
    stub.client.meta.events.register(
        f"provide-client-params.mturk.{operation}",
        lambda params, **kwargs: sent.append(dict(params)),
    )
    return sent


def events(campaign):
    return list(
        PlatformEvent.objects.filter(campaign=campaign)
        .order_by("pk")
        .values_list("kind", "operation", "code", "message", "what_to_do")
    )


# --- Sync ------------------------------------------------------------------------------------


@pytest.fixture
def disagreeing(db):
    """One HIT whose assignments exercise every reconcile action: 3A01 mark submitted, 3A02
    mark approved, 3A03 mark rejected, 3A04 send the approval, 3A05 send the rejection, 3A06
    conflict, 3A07 unknown here, 3A08 not on MTurk, 3A09 not on MTurk yet (within the grace
    period), 3A10 in agreement."""
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    now = timezone.now()
    approved, rejected = AssignmentStatus.APPROVED, AssignmentStatus.REJECTED
    rows = {
        "3A01": mturk_assignment(hit, "3A01", AssignmentStatus.STARTED),
        "3A02": mturk_assignment(hit, "3A02"),
        "3A03": mturk_assignment(hit, "3A03"),
        "3A04": mturk_assignment(hit, "3A04", approved, review_feedback="Thank you."),
        "3A05": mturk_assignment(hit, "3A05", rejected, review_feedback="Random clicking."),
        "3A06": mturk_assignment(hit, "3A06", rejected),
        "3A08": mturk_assignment(hit, "3A08", submitted_at=now - timedelta(hours=1)),
        "3A09": mturk_assignment(hit, "3A09", submitted_at=now - timedelta(minutes=2)),
        "3A10": mturk_assignment(hit, "3A10"),
    }
    items = [
        remote_item("3A01", "Submitted"),
        remote_item("3A02", "Approved", ApprovalTime=DECIDED),
        remote_item("3A03", "Rejected", RejectionTime=DECIDED),
        remote_item("3A04", "Submitted"),
        remote_item("3A05", "Submitted"),
        remote_item("3A06", "Approved", ApprovalTime=DECIDED),
        remote_item("3A07", "Submitted", worker=WORKER_2),
        remote_item("3A10", "Submitted"),
    ]
    return campaign, hit, rows, items


def test_sync_applies_every_action_across_two_pages(
    mturk_stub, disagreeing, announced, django_capture_on_commit_callbacks
):
    campaign, hit, rows, items = disagreeing
    list_response(mturk_stub, items[:5], next_token="page-2")
    list_response(mturk_stub, items[5:], sent_token="page-2")
    mturk_stub.add_response(
        "approve_assignment", {}, {"AssignmentId": "3A04", "RequesterFeedback": "Thank you."}
    )
    mturk_stub.add_response(
        "reject_assignment", {}, {"AssignmentId": "3A05", "RequesterFeedback": "Random clicking."}
    )
    with django_capture_on_commit_callbacks(execute=True):
        report = review.sync_campaign(campaign.pk)

    assert mturk_stub.environments == [True]
    assert report.summary() == (
        "1 HIT(s) synced; 1 marked submitted, 1 marked approved, 1 marked rejected; "
        "2 review(s) sent to MTurk; 3 need a person; 0 error(s)."
    )
    assert report.sent == ["3A04", "3A05"]
    got = {
        row.platform_assignment_id: (
            row.status,
            row.platform_status,
            row.submitted_at,
            row.reviewed_at,
        )
        for row in Assignment.objects.filter(campaign=campaign)
    }
    assert got["3A01"] == ("submitted", "Submitted", SUBMITTED, None)
    assert got["3A02"] == ("approved", "Approved", SUBMITTED, DECIDED)
    assert got["3A03"] == ("rejected", "Rejected", SUBMITTED, DECIDED)
    assert got["3A04"][:2] == ("approved", "Approved")
    assert got["3A05"][:2] == ("rejected", "Rejected")
    assert got["3A06"][:2] == ("rejected", "Approved")  # a person decides
    assert got["3A08"][:2] == ("submitted", "")
    assert got["3A10"][:2] == ("submitted", "Submitted")
    assert (
        Assignment.objects.filter(campaign=campaign, platform_synced_at__isnull=True).count() == 0
    )
    assert MTurkHit.objects.get(hit=hit).last_synced_at is not None
    assert announced == [[campaign.pk]]

    a06, a08 = rows["3A06"], rows["3A08"]
    assert events(campaign) == [
        (
            "conflict",
            "sync",
            "conflict",
            f"Assignment {a06.pk} (MTurk 3A06, worker AW3A06) is rejected here and Approved on "
            "MTurk.",
            "MTurk approved and paid it (usually auto-approval before our rejection reached "
            "MTurk); a paid assignment cannot be rejected. Keep our rejection for the scores or "
            "mark it approved.",
        ),
        (
            "conflict",
            "sync",
            "unknown_remote",
            f"MTurk assignment 3A07 by worker {WORKER_2} on HIT {HIT_1} is Submitted on MTurk, "
            "and evalsite has no assignment with this id.",
            "MTurk has this submission but evalsite has no assignment with this id: the worker "
            "may have submitted without going through our task page.",
        ),
        (
            "conflict",
            "sync",
            "not_on_mturk",
            f"Assignment {a08.pk} (MTurk 3A08, worker AW3A08) is submitted here and not "
            "submitted on MTurk.",
            "Submitted here but MTurk has no submission: the worker's browser never posted to "
            "MTurk, so MTurk will not pay them unless they submit there (or you pay a bonus).",
        ),
    ]


def test_sync_twice_changes_nothing_the_second_time(mturk_stub, disagreeing):
    campaign, hit, rows, items = disagreeing
    list_response(mturk_stub, items)
    mturk_stub.add_response(
        "approve_assignment", {}, {"AssignmentId": "3A04", "RequesterFeedback": "Thank you."}
    )
    mturk_stub.add_response(
        "reject_assignment", {}, {"AssignmentId": "3A05", "RequesterFeedback": "Random clicking."}
    )
    review.sync_campaign(campaign.pk)
    fields = ("status", "submitted_at", "reviewed_at", "platform_status", "review_feedback")
    before = list(Assignment.objects.filter(campaign=campaign).order_by("pk").values_list(*fields))
    stored = events(campaign)

    # MTurk now reports the reviews it received; nothing else moved.
    items[3] = remote_item("3A04", "Approved", ApprovalTime=DECIDED)
    items[4] = remote_item("3A05", "Rejected", RejectionTime=DECIDED)
    list_response(mturk_stub, items)
    report = review.sync_campaign(campaign.pk)

    assert report.changed == 0
    assert report.summary() == (
        "1 HIT(s) synced; no assignment changed; 0 review(s) sent to MTurk; 3 need a person; "
        "0 error(s)."
    )
    after = list(Assignment.objects.filter(campaign=campaign).order_by("pk").values_list(*fields))
    assert after == before
    assert events(campaign) == stored  # the conflicts are not stored a second time


def assignment_updates(captured) -> list[tuple[str, str]]:
    """Each UPDATE of the assignment table as (first column set, WHERE clause)."""
    found = []
    for query in captured.captured_queries:
        sql = query["sql"]
        if sql.startswith('UPDATE "judgments_assignment"'):
            assignments, where = sql.split(" SET ", 1)[1].rsplit(" WHERE ", 1)
            found.append((assignments.split(" = ", 1)[0], where))
    return found


def test_a_sync_writes_only_the_rows_that_changed(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    changing = mturk_assignment(hit, "3E01")
    steady = mturk_assignment(hit, "3E02", platform_status="Submitted")
    items = [
        remote_item("3E01", "Approved", ApprovalTime=DECIDED),
        remote_item("3E02", "Submitted"),
    ]
    list_response(mturk_stub, items)
    with CaptureQueriesContext(connection) as first:
        review.sync_campaign(campaign.pk)
    # One row changed: written field by field; the other only gets its sync time.
    assert assignment_updates(first) == [
        ('"status"', f'"judgments_assignment"."id" IN ({changing.pk})'),
        ('"platform_synced_at"', f'"judgments_assignment"."id" IN ({steady.pk})'),
    ]
    locks = [q["sql"] for q in first.captured_queries if " FOR UPDATE" in q["sql"]]
    if connection.features.has_select_for_update_of:
        # The worker is joined for labels, but only the assignment rows are locked.
        assert len(locks) == 1
        assert locks[0].endswith('FOR UPDATE OF "judgments_assignment"')
        assert 'INNER JOIN "judgments_worker"' in locks[0]

    list_response(mturk_stub, items)
    before = timezone.now()
    with CaptureQueriesContext(connection) as second:
        report = review.sync_campaign(campaign.pk)
    assert report.changed == 0
    assert assignment_updates(second) == [
        ('"platform_synced_at"', f'"judgments_assignment"."id" IN ({changing.pk}, {steady.pk})')
    ]
    synced = Assignment.objects.filter(campaign=campaign).values_list(
        "platform_synced_at", flat=True
    )
    assert all(moment >= before for moment in synced)
    changing.refresh_from_db()
    assert (changing.status, changing.platform_status, changing.reviewed_at) == (
        "approved",
        "Approved",
        DECIDED,
    )


HIT_IDS = [f"3HIT{n:026d}" for n in range(11, 18)]
DECIDED_AT = {"Approved": "ApprovalTime", "Rejected": "RejectionTime"}


def test_sync_reads_only_the_hits_that_can_still_change(mturk_stub):
    """Settled HITs (sync module docstring) get no ListAssignmentsForHIT call: the Stubber
    expects calls for the others only, in order, and fails on any other."""
    campaign = CampaignFactory(assignment_duration_seconds=3600, auto_approval_delay_seconds=259200)
    now = timezone.now()
    long_ago = now - timedelta(days=10)  # settled 4 days, 1 hour and 1 day's margin later
    approved = {"status": AssignmentStatus.APPROVED, "platform_status": "Approved"}
    rejected = {"status": AssignmentStatus.REJECTED, "platform_status": "Rejected"}

    full = published_hit(campaign, HIT_IDS[0])
    mturk_assignment(full, "3F01", **approved)
    mturk_assignment(full, "3F02", **approved)
    mturk_assignment(full, "3F03", **rejected)
    mturk_assignment(full, "3F04", AssignmentStatus.RETURNED)  # took no place on MTurk

    in_conflict = published_hit(campaign, HIT_IDS[1])
    mturk_assignment(in_conflict, "3F11", **approved)
    mturk_assignment(in_conflict, "3F12", **approved)
    mturk_assignment(in_conflict, "3F13", AssignmentStatus.REJECTED, platform_status="Approved")

    partly = published_hit(campaign, HIT_IDS[2])
    mturk_assignment(partly, "3F21", **approved)
    mturk_assignment(partly, "3F22", **rejected)

    over_and_read = published_hit(
        campaign, HIT_IDS[3], expires_at=long_ago, last_synced_at=now - timedelta(days=1)
    )
    over_not_read_since = published_hit(
        campaign, HIT_IDS[4], expires_at=long_ago, last_synced_at=now - timedelta(days=7)
    )
    recently_over = published_hit(
        campaign, HIT_IDS[5], expires_at=now - timedelta(days=2), last_synced_at=now
    )
    no_expiry = published_hit(campaign, HIT_IDS[6], last_synced_at=now)

    assert review.settled_hit_ids(campaign.pk) == {full.pk, over_and_read.pk}

    def answer(*hit_ids: str) -> None:
        """MTurk's answers for exactly these HITs, in order (what MTurk still lists)."""
        listed = {
            HIT_IDS[1]: [("3F11", "Approved"), ("3F12", "Approved"), ("3F13", "Approved")],
            HIT_IDS[2]: [("3F21", "Approved"), ("3F22", "Rejected")],
        }
        for hit_id in hit_ids:
            items = [
                remote_item(assignment_id, status, hit_id=hit_id, **{DECIDED_AT[status]: DECIDED})
                for assignment_id, status in listed.get(hit_id, [])
            ]
            list_response(mturk_stub, items, hit_id=hit_id)

    answer(*HIT_IDS[1:3], *HIT_IDS[4:])
    report = review.sync_campaign(campaign.pk)
    assert report.summary() == (
        "5 HIT(s) synced (2 settled HIT(s) not read again); no assignment changed; 0 review(s) "
        "sent to MTurk; 1 need a person; 0 error(s)."
    )
    assert MTurkHit.objects.get(hit=full).last_synced_at is None
    assert MTurkHit.objects.get(hit=over_and_read).last_synced_at == now - timedelta(days=1)

    # The HIT long over has now been read after it settled: the next sync skips it too.
    settled = {full.pk, over_and_read.pk, over_not_read_since.pk}
    assert review.settled_hit_ids(campaign.pk) == settled
    answer(*HIT_IDS[1:3], *HIT_IDS[5:])
    report = review.sync_campaign(campaign.pk)
    assert (report.hits_synced, report.hits_settled) == (4, 3)
    assert {recently_over.pk, no_expiry.pk}.isdisjoint(review.settled_hit_ids(campaign.pk))


def test_sync_keeps_going_when_one_hit_fails_and_stores_the_error_once(mturk_stub):
    campaign = CampaignFactory()
    first = published_hit(campaign, HIT_1)
    second = published_hit(campaign, HIT_2)
    mturk_assignment(first, "3B01")
    later = mturk_assignment(second, "3B02")
    for _ in range(2):
        request_error(
            mturk_stub,
            "list_assignments_for_hit",
            f"Hit {HIT_1} does not exist. (1700000000000)",
            "AWS.MechanicalTurk.HITDoesNotExist",
            {"HITId": HIT_1, "AssignmentStatuses": ALL_STATUSES, "MaxResults": 100},
        )
        list_response(
            mturk_stub,
            [remote_item("3B02", "Approved", hit_id=HIT_2, ApprovalTime=DECIDED)],
            hit_id=HIT_2,
        )
        report = review.sync_campaign(campaign.pk)

    later.refresh_from_db()
    assert (later.status, later.reviewed_at) == ("approved", DECIDED)
    assert report.hits_synced == 1
    help_text = (
        "MTurk does not know this HIT id in this environment: check that the campaign uses the "
        "environment (sandbox or production) the HIT was published in."
    )
    assert [str(failure) for failure in report.failed] == [
        f"HIT {HIT_1}: Hit {HIT_1} does not exist. (1700000000000) "
        f"(AWS.MechanicalTurk.HITDoesNotExist) What to do: {help_text}"
    ]
    assert events(campaign) == [
        (
            "error",
            "sync",
            "AWS.MechanicalTurk.HITDoesNotExist",
            f"HIT {HIT_1}: Hit {HIT_1} does not exist. (1700000000000)",
            help_text,
        )
    ]
    assert MTurkHit.objects.get(hit=first).last_synced_at is None
    assert MTurkHit.objects.get(hit=second).last_synced_at is not None


def test_sync_reports_a_review_mturk_refused_and_keeps_its_status(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    row = mturk_assignment(hit, "3C01", AssignmentStatus.APPROVED, review_feedback="Good work.")
    list_response(mturk_stub, [remote_item("3C01", "Submitted")])
    request_error(
        mturk_stub,
        "approve_assignment",
        INVALID_STATE,
        INVALID_STATE_CODE,
        {"AssignmentId": "3C01", "RequesterFeedback": "Good work."},
    )
    report = review.sync_campaign(campaign.pk)

    row.refresh_from_db()
    assert (row.status, row.platform_status) == ("approved", "Submitted")
    assert report.sent == []
    label = f"assignment {row.pk} (worker AW3C01, MTurk 3C01)"
    assert events(campaign) == [
        ("error", "approve", INVALID_STATE_CODE, f"{label}: {INVALID_STATE}", INVALID_STATE_HELP)
    ]


def test_sync_uses_the_environment_each_hit_was_published_in(mturk_stub):
    campaign = CampaignFactory(mturk_sandbox=True)
    published_hit(campaign, sandbox=False)
    list_response(mturk_stub, [])
    review.sync_campaign(campaign.pk)
    assert mturk_stub.environments == [False]


def test_sync_of_a_campaign_without_mturk_hits_calls_nothing(mturk_stub):
    report = review.sync_campaign(CampaignFactory().pk)
    assert (report.hits_synced, report.changed, mturk_stub.environments) == (0, 0, [])


# --- Approve and reject ----------------------------------------------------------------------


def test_approve_calls_mturk_first_and_stores_only_what_it_confirmed(
    mturk_stub, announced, django_capture_on_commit_callbacks
):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    confirmed = mturk_assignment(hit, "3D01")
    refused = mturk_assignment(hit, "3D02")
    direct = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    started = mturk_assignment(hit, "3D03", AssignmentStatus.STARTED)
    mturk_stub.add_response(
        "approve_assignment", {}, {"AssignmentId": "3D01", "RequesterFeedback": "Thanks!"}
    )
    request_error(
        mturk_stub,
        "approve_assignment",
        INVALID_STATE,
        INVALID_STATE_CODE,
        {"AssignmentId": "3D02", "RequesterFeedback": "Thanks!"},
    )
    with django_capture_on_commit_callbacks(execute=True):
        result = review.approve_assignments(
            Assignment.objects.filter(campaign=campaign), " Thanks! "
        )

    assert result.done == [
        f"assignment {confirmed.pk} (worker AW3D01, MTurk 3D01)",
        f"assignment {direct.pk} (worker {direct.worker.external_id})",
    ]
    assert [str(f) for f in result.failed] == [
        f"assignment {refused.pk} (worker AW3D02, MTurk 3D02): {INVALID_STATE} "
        f"({INVALID_STATE_CODE}) What to do: {INVALID_STATE_HELP}"
    ]
    assert result.skipped == [
        (
            f"assignment {started.pk} (worker AW3D03, MTurk 3D03)",
            "Not submitted (started): review it once the worker has submitted.",
        )
    ]
    rows = {
        a.pk: (a.status, a.platform_status, a.review_feedback, a.reviewed_at is not None)
        for a in Assignment.objects.filter(campaign=campaign)
    }
    assert rows[confirmed.pk] == ("approved", "Approved", "Thanks!", True)
    assert rows[refused.pk] == ("submitted", "", "", False)
    assert rows[direct.pk] == ("approved", "", "Thanks!", True)
    assert rows[started.pk] == ("started", "", "", False)
    assert events(campaign) == [
        (
            "error",
            "approve",
            INVALID_STATE_CODE,
            f"assignment {refused.pk} (worker AW3D02, MTurk 3D02): {INVALID_STATE}",
            INVALID_STATE_HELP,
        )
    ]
    assert announced == [[campaign.pk]]


@pytest.mark.parametrize("on_mturk", ["Rejected", "Approved"])
def test_approving_a_rejection(mturk_stub, on_mturk):
    """Rejected on MTurk: the approval overrides it. Approved there already (auto-approval
    before our rejection arrived): our row is aligned, MTurk is not called."""
    row = mturk_assignment(
        published_hit(CampaignFactory()),
        "3E01",
        AssignmentStatus.REJECTED,
        platform_status=on_mturk,
    )
    if on_mturk == "Rejected":
        mturk_stub.add_response(
            "approve_assignment", {}, {"AssignmentId": "3E01", "OverrideRejection": True}
        )
    result = review.approve_assignments([row])
    row.refresh_from_db()
    assert (len(result.done), row.status, row.platform_status) == (1, "approved", "Approved")


def test_reject_sends_the_feedback_and_refuses_paid_work(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    submitted = mturk_assignment(hit, "3F01")
    paid = mturk_assignment(hit, "3F02", AssignmentStatus.APPROVED, platform_status="Approved")
    mturk_stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": "3F01", "RequesterFeedback": "Failed 9 of 10 control items."},
    )
    result = review.reject_assignments(
        Assignment.objects.filter(campaign=campaign).order_by("pk"),
        "Failed 9 of 10 control items.",
    )
    submitted.refresh_from_db()
    paid.refresh_from_db()
    assert (submitted.status, submitted.review_feedback, submitted.platform_status) == (
        "rejected",
        "Failed 9 of 10 control items.",
        "Rejected",
    )
    assert paid.status == "approved"
    assert result.skipped == [
        (
            f"assignment {paid.pk} (worker AW3F02, MTurk 3F02)",
            "Approved on MTurk, which paid the worker: a paid assignment cannot be rejected. To "
            "leave the worker's judgments out of the scores, exclude them in the campaign's "
            "results panel.",
        )
    ]


@pytest.mark.parametrize(
    ("feedback", "message"),
    [
        ("  ", "A rejection needs feedback"),
        ("é" * 1025, "The feedback has 1025 characters; MTurk allows 1024."),
    ],
)
def test_reject_checks_the_feedback_before_any_call(mturk_stub, feedback, message):
    row = mturk_assignment(published_hit(CampaignFactory()), "3G01")
    with pytest.raises(ValueError, match=message):
        review.reject_assignments([row], feedback)
    row.refresh_from_db()
    assert row.status == "submitted"


def test_rejecting_a_direct_link_assignment_changes_its_status_only(mturk_stub):
    row = AssignmentFactory(status=AssignmentStatus.APPROVED)
    result = review.reject_assignments([row], "Random clicking.")
    row.refresh_from_db()
    assert (len(result.done), row.status, row.review_feedback) == (
        1,
        "rejected",
        "Random clicking.",
    )
    assert mturk_stub.environments == []


# --- Bonuses ---------------------------------------------------------------------------------


def bonus_params(row, bonus=None, amount="0.50", reason="Excellent agreement with the experts."):
    return {
        "WorkerId": row.worker.external_id,
        "BonusAmount": amount,
        "AssignmentId": row.platform_assignment_id,
        "Reason": reason,
        "UniqueRequestToken": ANY if bonus is None else f"evalsite-bonus-{bonus.pk}",
    }


def test_bonus_is_written_before_the_call_and_marked_sent_when_mturk_confirms(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H01", AssignmentStatus.APPROVED)
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row))
    result = review.send_bonuses(
        [row], "0.5", " Excellent agreement with the experts. ", "alice (admin)"
    )
    bonus = Bonus.objects.get()
    assert sent == [bonus_params(row, bonus)]
    assert (bonus.amount, bonus.status, bonus.created_by, bonus.last_error) == (
        Decimal("0.50"),
        BonusStatus.SENT,
        "alice (admin)",
        "",
    )
    assert bonus.sent_at is not None
    assert result.done == [f"assignment {row.pk} (worker AW3H01, MTurk 3H01)"]


def test_a_failed_bonus_is_retried_with_the_same_token_and_never_paid_twice(mturk_stub):
    campaign = CampaignFactory()
    row = mturk_assignment(published_hit(campaign), "3H02", AssignmentStatus.APPROVED)
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_client_error(
        "send_bonus",
        service_error_code="ThrottlingException",
        service_message="Rate exceeded",
        expected_params=bonus_params(row),
    )
    first = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    bonus = Bonus.objects.get()
    params = bonus_params(row, bonus)
    assert sent == [params]
    throttled = (
        "MTurk is throttling this account: wait a minute and retry. Retrying is safe: HIT "
        "creation and bonuses carry a unique request token, so nothing is done twice."
    )
    label = f"assignment {row.pk} (worker AW3H02, MTurk 3H02)"
    assert [str(f) for f in first.failed] == [
        f"{label}: Rate exceeded (ThrottlingException) What to do: {throttled}"
    ]
    assert (bonus.status, bonus.sent_at, bonus.last_error) == (
        BonusStatus.PENDING,
        None,
        f"{label}: Rate exceeded (ThrottlingException) What to do: {throttled}",
    )
    assert events(campaign) == [
        ("error", "bonus", "ThrottlingException", f"{label}: Rate exceeded", throttled)
    ]

    # The first call had in fact gone through: MTurk recognises the token and pays nothing.
    request_error(
        mturk_stub,
        "send_bonus",
        f'The idempotency token "evalsite-bonus-{bonus.pk}" has already been processed.',
        expected_params=params,
    )
    second = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    assert sent == [params, params]  # the same token again
    assert second.done == [f"{label} (MTurk had already paid it: confirmed, not paid again)"]
    assert Bonus.objects.count() == 1
    bonus.refresh_from_db()
    assert (bonus.status, bonus.last_error) == (BonusStatus.SENT, "")


def test_a_second_identical_bonus_is_refused_unless_forced(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H03", AssignmentStatus.APPROVED)
    paid = Bonus.objects.create(
        assignment=row,
        worker=row.worker,
        amount=Decimal("0.50"),
        reason="Excellent agreement with the experts.",
        status=BonusStatus.SENT,
        sent_at=datetime(2025, 3, 2, 9, 30, tzinfo=UTC),
    )
    refused = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    assert refused.skipped == [
        (
            f"assignment {row.pk} (worker AW3H03, MTurk 3H03)",
            "A bonus of $0.50 with this reason was already paid on 2025-03-02 09:30: tick "
            "'pay again' (--force) to pay another.",
        )
    ]
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row))
    forced = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.", force=True)
    assert len(forced.done) == 1
    second = Bonus.objects.exclude(pk=paid.pk).get()
    assert second.status == BonusStatus.SENT
    assert sent == [bonus_params(row, second)]  # a new payment: a new token


def test_an_old_unconfirmed_bonus_is_not_retried_without_force(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H04", AssignmentStatus.APPROVED)
    pending = Bonus.objects.create(
        assignment=row, worker=row.worker, amount=Decimal("1.00"), reason="Thanks."
    )
    Bonus.objects.filter(pk=pending.pk).update(created_at=timezone.now() - timedelta(days=2))
    result = review.send_bonuses([row], "1.00", "Thanks.")
    assert result.skipped[0][1].startswith("A payment of this bonus was attempted on ")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row, pending, "1.00", "Thanks."))
    forced = review.send_bonuses([row], "1.00", "Thanks.", force=True)
    assert len(forced.done) == 1
    pending.refresh_from_db()
    assert pending.status == BonusStatus.SENT


def test_bonuses_are_mturk_only_and_need_valid_input(mturk_stub):
    direct = AssignmentFactory(status=AssignmentStatus.APPROVED)
    result = review.send_bonuses([direct], "0.50", "Thanks.")
    assert result.skipped == [
        (
            f"assignment {direct.pk} (worker {direct.worker.external_id})",
            "Bonuses are paid through MTurk only: pay a Prolific worker's bonus on Prolific and "
            "a direct-link worker outside evalsite.",
        )
    ]
    with pytest.raises(ValueError, match="whole cents"):
        review.send_bonuses([direct], "0.005", "Thanks.")
    with pytest.raises(ValueError, match="needs a reason"):
        review.send_bonuses([direct], "0.50", " ")
    assert Bonus.objects.count() == 0


# --- Block and notify ------------------------------------------------------------------------


def test_block_in_the_environment_the_worker_worked_in(mturk_stub):
    campaign = CampaignFactory(mturk_sandbox=True)
    hit = published_hit(campaign, sandbox=False)
    worker = mturk_worker(WORKER_1)
    mturk_assignment(hit, "3J01", worker=worker)
    direct = WorkerFactory()
    mturk_stub.add_response(
        "create_worker_block", {}, {"WorkerId": WORKER_1, "Reason": "Random clicking."}
    )
    result = review.block_workers(
        Worker.objects.filter(pk__in=[worker.pk, direct.pk]), "Random clicking."
    )
    worker.refresh_from_db()
    assert mturk_stub.environments == [False]
    assert (worker.blocked_reason, worker.blocked_at is not None) == ("Random clicking.", True)
    assert result.done == [f"worker {WORKER_1}"]
    assert result.skipped == [
        (
            f"worker {direct.external_id}",
            "Blocking is an MTurk feature: to give this worker no further work, exclude them "
            "from the campaign (Campaign workers).",
        )
    ]


def test_a_refused_block_leaves_the_worker_unblocked(mturk_stub):
    campaign = CampaignFactory()
    worker = mturk_worker(WORKER_1)
    mturk_assignment(published_hit(campaign), "3J02", worker=worker)
    mturk_stub.add_client_error(
        "create_worker_block",
        service_error_code="UnrecognizedClientException",
        service_message="The security token included in the request is invalid.",
        http_status_code=400,
        expected_params={"WorkerId": WORKER_1, "Reason": "Random clicking."},
    )
    result = review.block_workers([worker], "Random clicking.")
    worker.refresh_from_db()
    assert (worker.blocked_at, worker.blocked_reason) == (None, "")
    assert result.failed[0].item == f"worker {WORKER_1} (sandbox)"
    assert result.failed[0].what_to_do.startswith("Check the AWS credentials evalsite runs with")
    assert events(campaign)[0][:4] == (
        "error",
        "block",
        "UnrecognizedClientException",
        f"worker {WORKER_1} (sandbox): The security token included in the request is invalid.",
    )


def test_notify_reports_the_workers_mturk_could_not_reach(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    first, second = mturk_worker(WORKER_1), mturk_worker(WORKER_2)
    mturk_assignment(hit, "3K01", worker=first)
    mturk_assignment(hit, "3K02", worker=second)
    mturk_stub.add_response(
        "notify_workers",
        {
            "NotifyWorkersFailureStatuses": [
                {
                    "NotifyWorkersFailureCode": "HardFailure",
                    "NotifyWorkersFailureMessage": "No previous work for this requester.",
                    "WorkerId": WORKER_2,
                }
            ]
        },
        {
            "Subject": "New HITs",
            "MessageText": "We published more.",
            "WorkerIds": [WORKER_1, WORKER_2],
        },
    )
    result = review.notify_workers([first, second], "New HITs", "We published more.")
    assert result.done == [f"worker {WORKER_1} (sandbox)"]
    hard = (
        "MTurk e-mails a worker only after you approved or rejected their work, and never one "
        "who opted out: reach them another way."
    )
    assert [str(f) for f in result.failed] == [
        f"worker {WORKER_2} (sandbox): No previous work for this requester. (HardFailure) "
        f"What to do: {hard}"
    ]
    assert events(campaign) == [
        (
            "error",
            "notify",
            "HardFailure",
            f"MTurk could not e-mail: {WORKER_2} (HardFailure: No previous work for this "
            "requester.)",
            hard,
        )
    ]


def test_notify_failing_altogether_reports_every_worker(mturk_stub):
    campaign = CampaignFactory()
    worker = mturk_worker(WORKER_1)
    mturk_assignment(published_hit(campaign), "3K03", worker=worker)
    mturk_stub.add_client_error(
        "notify_workers",
        service_error_code="ServiceFault",
        service_message="Service unavailable",
        http_status_code=500,
        expected_params={"Subject": "s", "MessageText": "m", "WorkerIds": [WORKER_1]},
    )
    result = review.notify_workers([worker], "s", "m")
    assert [(f.item, f.code) for f in result.failed] == [
        (f"worker {WORKER_1} (sandbox)", "ServiceFault")
    ]
    assert events(campaign)[0][:4] == (
        "error",
        "notify",
        "ServiceFault",
        "1 worker(s) not e-mailed: Service unavailable",
    )
    with pytest.raises(ValueError, match="subject must be 1 to 200"):
        review.notify_workers([worker], "x" * 201, "m")


# --- Celery ----------------------------------------------------------------------------------


def test_the_beat_task_enqueues_the_campaigns_worth_syncing(monkeypatch):
    now = timezone.now()
    active = CampaignFactory(status=CampaignStatus.ACTIVE)
    published_hit(active, "3HITACTIVE")
    paused = CampaignFactory(status=CampaignStatus.PAUSED)
    published_hit(paused, "3HITPAUSED")
    CampaignFactory(status=CampaignStatus.ACTIVE)  # nothing on MTurk
    draft = CampaignFactory(status=CampaignStatus.DRAFT)
    published_hit(draft, "3HITDRAFT")
    recent = CampaignFactory(status=CampaignStatus.FINISHED)
    published_hit(recent, "3HITRECENT", expires_at=now - timedelta(days=10))
    old = CampaignFactory(status=CampaignStatus.FINISHED)
    published_hit(old, "3HITOLD", expires_at=now - timedelta(days=40))
    MTurkHit.objects.filter(mturk_hit_id="3HITOLD").update(published_at=now - timedelta(days=50))
    edited = CampaignFactory(status=CampaignStatus.FINISHED)
    published_hit(edited, "3HITEDITED", expires_at=now - timedelta(days=40))
    type(old).objects.filter(pk__in=[old.pk, recent.pk]).update(updated_at=now - timedelta(days=45))

    queued: list[int] = []
    monkeypatch.setattr(review_tasks.sync_mturk_campaign, "delay", queued.append)
    assert review_tasks.sync_mturk_campaigns() == 4
    assert queued == [active.pk, paused.pk, recent.pk, edited.pk]


def test_the_campaign_task_syncs_and_returns_the_changes(mturk_stub):
    campaign = CampaignFactory()
    row = mturk_assignment(published_hit(campaign), "3L01")
    list_response(mturk_stub, [remote_item("3L01", "Approved", ApprovalTime=DECIDED)])
    assert review_tasks.sync_mturk_campaign.delay(campaign.pk).get() == 1
    row.refresh_from_db()
    assert row.status == "approved"
    assert review_tasks.sync_mturk_campaign.delay(campaign.pk + 1000).get() is None


def test_the_beat_entry_names_the_task():
    from django.conf import settings

    assert settings.CELERY_BEAT_SCHEDULE["sync-mturk-assignments"]["task"] == (
        review_tasks.sync_mturk_campaigns.name
    )
