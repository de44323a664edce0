"""The shared hand-out: resume, reactivate, or the lowest-numbered HIT with room; else a reason."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import CampaignStatus
from judgments.actions import (
    HandOutKind,
    NoWorkReason,
    exclude_worker,
    expire_abandoned_assignments,
    next_assignment_for,
    set_excluded,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)


@pytest.fixture
def campaign():
    return CampaignFactory(redundancy=2, assignment_duration_seconds=600)


@pytest.fixture
def hits(campaign):
    # Created out of order: the hand-out goes by number, not by id.
    third = HitFactory(campaign=campaign, number=3)
    first = HitFactory(campaign=campaign, number=1)
    second = HitFactory(campaign=campaign, number=2)
    return [first, second, third]


def test_a_new_worker_gets_the_lowest_numbered_hit_with_a_deadline(campaign, hits):
    worker = WorkerFactory()

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assignment = hand_out.assignment
    assert (hand_out.kind, hand_out.reason) == (HandOutKind.NEW, None)
    assert (assignment.hit, assignment.worker, assignment.campaign) == (hits[0], worker, campaign)
    assert assignment.status == AssignmentStatus.STARTED
    assert assignment.expires_at == NOW + timedelta(seconds=600)
    membership = CampaignWorker.objects.get()
    assert (membership.campaign, membership.worker, membership.excluded) == (
        campaign,
        worker,
        False,
    )


def test_a_worker_with_a_started_assignment_resumes_it(campaign, hits):
    worker = WorkerFactory()
    first = next_assignment_for(worker, campaign, now=NOW).assignment

    again = next_assignment_for(worker, campaign, now=NOW + timedelta(seconds=30))

    assert (again.assignment.pk, again.kind) == (first.pk, HandOutKind.RESUMED)
    assert again.assignment.expires_at == first.expires_at  # the deadline does not move
    assert Assignment.objects.count() == 1
    assert CampaignWorker.objects.count() == 1


def test_after_submitting_a_worker_gets_the_next_hit(campaign, hits):
    worker = WorkerFactory()
    first = next_assignment_for(worker, campaign, now=NOW).assignment
    Assignment.objects.filter(pk=first.pk).update(status=AssignmentStatus.SUBMITTED)

    second = next_assignment_for(worker, campaign, now=NOW)

    assert (second.assignment.hit, second.kind) == (hits[1], HandOutKind.NEW)
    assert Assignment.objects.filter(worker=worker).count() == 2


@pytest.mark.parametrize(
    "status", [AssignmentStatus.STARTED, AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED]
)
def test_live_assignments_fill_a_hit_up_to_the_redundancy(campaign, hits, status):
    AssignmentFactory.create_batch(2, hit=hits[0], status=status)

    hand_out = next_assignment_for(WorkerFactory(), campaign, now=NOW)

    assert hand_out.assignment.hit == hits[1]


@pytest.mark.parametrize(
    "status", [AssignmentStatus.REJECTED, AssignmentStatus.EXPIRED, AssignmentStatus.RETURNED]
)
def test_dead_assignments_leave_room_on_the_hit(campaign, hits, status):
    AssignmentFactory(hit=hits[0], status=AssignmentStatus.SUBMITTED)
    AssignmentFactory(hit=hits[0], status=status)

    hand_out = next_assignment_for(WorkerFactory(), campaign, now=NOW)

    assert hand_out.assignment.hit == hits[0]


def test_redundancy_two_and_three_hits_serve_six_workers_then_nobody(campaign, hits):
    workers = WorkerFactory.create_batch(7)
    handed = [next_assignment_for(worker, campaign, now=NOW) for worker in workers]

    assert [h.assignment.hit.number for h in handed[:6]] == [1, 1, 2, 2, 3, 3]
    assert (handed[6].assignment, handed[6].reason) == (None, NoWorkReason.ALL_TAKEN)
    assert Assignment.objects.count() == 6


def test_a_worker_never_gets_the_same_hit_twice(campaign, hits):
    worker = WorkerFactory()
    for hit in hits:
        AssignmentFactory(hit=hit, worker=worker, status=AssignmentStatus.SUBMITTED)

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.ALL_DONE)
    assert NoWorkReason.ALL_DONE.label == "You have done every task available to you, thank you!"
    assert Assignment.objects.count() == 3


@pytest.mark.parametrize("status", [AssignmentStatus.REJECTED, AssignmentStatus.RETURNED])
def test_a_rejected_or_returned_hit_is_not_handed_to_the_same_worker_again(campaign, hits, status):
    worker = WorkerFactory()
    AssignmentFactory(hit=hits[0], worker=worker, status=status)

    assert next_assignment_for(worker, campaign, now=NOW).assignment.hit == hits[1]


@pytest.mark.parametrize(
    ("status", "reason", "message"),
    [
        (CampaignStatus.DRAFT, NoWorkReason.NOT_OPEN, "This campaign has not opened yet."),
        (CampaignStatus.PAUSED, NoWorkReason.PAUSED, "This campaign is paused."),
        (CampaignStatus.FINISHED, NoWorkReason.FINISHED, "This campaign has finished."),
    ],
)
def test_a_campaign_that_is_not_active_hands_out_nothing(campaign, hits, status, reason, message):
    campaign.status = status
    campaign.save()
    worker = WorkerFactory()
    AssignmentFactory(hit=hits[0], worker=worker)  # even a started one is not resumed

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.assignment, hand_out.reason) == (None, reason)
    assert hand_out.reason.label.startswith(message)
    assert Assignment.objects.count() == 1


def test_an_excluded_worker_gets_nothing_even_to_resume(campaign, hits):
    worker = WorkerFactory()
    started = next_assignment_for(worker, campaign, now=NOW).assignment
    membership = exclude_worker(campaign, worker, "Clicked at random")

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.EXCLUDED)
    assert (membership.excluded, membership.excluded_reason) == (True, "Clicked at random")
    assert membership.excluded_at is not None
    assert Assignment.objects.get() == started  # nothing new
    # Excluded in this campaign only.
    other = CampaignFactory()
    HitFactory(campaign=other, number=1)
    assert next_assignment_for(worker, other, now=NOW).assignment is not None


def test_a_readmitted_worker_gets_work_again(campaign, hits):
    worker = WorkerFactory()
    exclude_worker(campaign, worker, "by mistake")

    assert set_excluded(CampaignWorker.objects.all(), False) == 1

    membership = CampaignWorker.objects.get()
    assert (membership.excluded, membership.excluded_reason, membership.excluded_at) == (
        False,
        "",
        None,
    )
    assert next_assignment_for(worker, campaign, now=NOW).assignment.hit == hits[0]


def test_an_expired_assignment_returns_its_hit_to_the_pool(campaign, hits):
    campaign.redundancy = 1
    campaign.save()
    stale = AssignmentFactory(hit=hits[0], expires_at=NOW - timedelta(seconds=1))
    fresh = AssignmentFactory(hit=hits[1], expires_at=NOW + timedelta(seconds=1))

    hand_out = next_assignment_for(WorkerFactory(), campaign, now=NOW)

    assert hand_out.assignment.hit == hits[0]
    stale.refresh_from_db()
    fresh.refresh_from_db()
    assert (stale.status, fresh.status) == (AssignmentStatus.EXPIRED, AssignmentStatus.STARTED)


def test_the_hand_out_expires_only_its_own_campaigns_assignments(campaign, hits):
    elsewhere = AssignmentFactory(expires_at=NOW - timedelta(hours=1))

    next_assignment_for(WorkerFactory(), campaign, now=NOW)

    elsewhere.refresh_from_db()
    assert elsewhere.status == AssignmentStatus.STARTED
    assert expire_abandoned_assignments(NOW) == 1  # the global sweep still gets it


def test_a_worker_who_comes_back_after_expiry_continues_the_same_hit(campaign, hits):
    """The reactivation rule: same row, new deadline, earlier judgments kept; preferred to a
    lower-numbered HIT the worker never had."""
    worker = WorkerFactory()
    slot = HitSlotFactory(hit=hits[1], position=1)
    HitSlotFactory(hit=hits[1], position=2)
    old = AssignmentFactory(
        hit=hits[1], worker=worker, expires_at=NOW - timedelta(minutes=1), current_served_at=NOW
    )
    JudgmentFactory(assignment=old, slot=slot, score=71.0)

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assignment = hand_out.assignment
    assert (assignment.pk, hand_out.kind) == (old.pk, HandOutKind.REACTIVATED)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.STARTED
    assert assignment.expires_at == NOW + timedelta(seconds=600)
    assert (assignment.last_activity_at, assignment.current_served_at) == (NOW, None)
    assert list(Judgment.objects.filter(assignment=old).values_list("score", flat=True)) == [71.0]
    assert Assignment.objects.count() == 1


def test_an_expired_hit_that_filled_up_meanwhile_stays_closed_to_its_worker(campaign, hits):
    worker = WorkerFactory()
    AssignmentFactory(hit=hits[0], worker=worker, status=AssignmentStatus.EXPIRED, expires_at=NOW)
    AssignmentFactory.create_batch(2, hit=hits[0], status=AssignmentStatus.SUBMITTED)

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.kind, hand_out.assignment.hit) == (HandOutKind.NEW, hits[1])


def test_no_hits_at_all_is_its_own_reason():
    hand_out = next_assignment_for(WorkerFactory(), CampaignFactory(), now=NOW)
    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.NO_TASKS)


def test_a_requester_excludes_workers_in_the_admin_and_the_hand_out_respects_it(
    admin_client, campaign, hits
):
    worker = WorkerFactory()
    next_assignment_for(worker, campaign, now=NOW)  # creates the membership row
    membership = CampaignWorker.objects.get()
    changelist = reverse("admin:judgments_campaignworker_changelist")
    assert worker.external_id in admin_client.get(changelist).content.decode()

    response = admin_client.post(
        changelist, {"action": "exclude_selected", "_selected_action": [membership.pk]}
    )

    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.excluded, membership.excluded_reason) == (
        True,
        "Excluded by admin in the admin.",
    )
    assert next_assignment_for(worker, campaign, now=NOW).reason == NoWorkReason.EXCLUDED

    # Unticking "excluded" in the change form re-admits and clears the time.
    change = reverse("admin:judgments_campaignworker_change", args=[membership.pk])
    response = admin_client.post(
        change,
        {"campaign": campaign.pk, "worker": worker.pk, "excluded_reason": "", "_save": "Save"},
    )
    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.excluded, membership.excluded_at) == (False, None)
    assert next_assignment_for(worker, campaign, now=NOW).assignment is not None
