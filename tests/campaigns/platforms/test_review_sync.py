"""The MTurk sync (``campaigns.platforms.review.sync_campaign``) and its Celery tasks, against
botocore's Stubber: every reconcile action applied, idempotence, only changed rows written,
settled HITs not read again, errors stored once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import CampaignStatus
from campaigns.platforms import review
from campaigns.platforms.models import MTurkHit
from campaigns.tasks import review as review_tasks
from judgments.models import Assignment, AssignmentStatus
from tests.campaigns.platforms.mturk.support import request_error
from tests.campaigns.platforms.review_support import (
    ALL_STATUSES,
    DECIDED,
    HIT_1,
    HIT_2,
    INVALID_STATE,
    INVALID_STATE_CODE,
    INVALID_STATE_HELP,
    SUBMITTED,
    WORKER_2,
    events,
    list_response,
    mturk_assignment,
    published_hit,
    remote_item,
)
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


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
