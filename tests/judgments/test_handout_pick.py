"""The hand-out's hand-written pick (issue 16: judgments.actions.hot_sql.pick_regular_hit, used
for kinds with no HIT rules of their own) chooses exactly what the ORM query chooses: run the
same hand-outs on two identical campaigns, one through each, and compare with the expected
order (own expired HIT first, then by number; full, MTurk-published, qualification and
once-held HITs skipped; a HIT's own places before the redundancy)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.platforms.models import MTurkHit
from judgments.actions import HandOutKind, NoWorkReason, handout, next_assignment_for
from judgments.models import AssignmentStatus
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)


def build():
    campaign = CampaignFactory(redundancy=2, assignment_duration_seconds=600)
    hits = {n: HitFactory(campaign=campaign, number=n) for n in (6, 1, 2, 3, 4, 5)}
    hits[2].places = 1
    hits[2].save()
    HitFactory(campaign=campaign, number=7, is_qualification=True)
    MTurkHit.objects.create(
        hit=hits[3],
        mturk_hit_id=f"3M{campaign.pk}",
        hit_type_id="3T",
        sandbox=True,
        max_assignments=2,
    )
    for status in (AssignmentStatus.SUBMITTED, AssignmentStatus.STARTED):
        AssignmentFactory(hit=hits[1], status=status, expires_at=NOW + timedelta(hours=1))
    # Not live: a returned and an expired assignment leave HIT 4's places free.
    for status in (AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED):
        AssignmentFactory(hit=hits[4], status=status, expires_at=NOW - timedelta(hours=1))
    regular = WorkerFactory()
    AssignmentFactory(
        hit=hits[5],
        worker=regular,
        status=AssignmentStatus.EXPIRED,
        expires_at=NOW - timedelta(minutes=1),
    )
    # Never handed to them again, and one of HIT 6's two places taken.
    AssignmentFactory(
        hit=hits[6],
        worker=regular,
        status=AssignmentStatus.SUBMITTED,
        expires_at=NOW + timedelta(hours=1),
    )
    return campaign, regular


def hand_outs(campaign, regular):
    """The regular worker (twice: the second resumes), then five new workers."""
    workers = [regular, regular, *(WorkerFactory() for _ in range(5))]
    seen = []
    for worker in workers:
        hand_out = next_assignment_for(worker, campaign, now=NOW)
        number = hand_out.assignment.hit.number if hand_out.assignment else None
        seen.append((number, hand_out.kind, hand_out.reason))
    return seen


EXPECTED = [
    (5, HandOutKind.REACTIVATED, None),  # the worker's own expired HIT first
    (5, HandOutKind.RESUMED, None),
    (2, HandOutKind.NEW, None),  # HIT 1 is full, HIT 2 has one place (its own)
    (4, HandOutKind.NEW, None),  # HIT 3 is MTurk's; HIT 4's returned and expired free it
    (4, HandOutKind.NEW, None),
    (5, HandOutKind.NEW, None),  # the reactivated assignment holds one of its two places
    (6, HandOutKind.NEW, None),  # the worker's submitted assignment holds the other place
]


def test_the_hand_written_pick_matches_the_orm_query(monkeypatch):
    fast = hand_outs(*build())
    monkeypatch.setattr(handout, "_kind_has_no_hit_rules", lambda kind: False)
    slow = hand_outs(*build())
    assert fast == slow == EXPECTED


def test_no_room_gives_the_same_reason_both_ways(monkeypatch):
    def full():
        campaign = CampaignFactory(redundancy=1)
        AssignmentFactory(hit=HitFactory(campaign=campaign, number=1))
        return next_assignment_for(WorkerFactory(), campaign, now=NOW).reason

    assert full() == NoWorkReason.ALL_TAKEN
    monkeypatch.setattr(handout, "_kind_has_no_hit_rules", lambda kind: False)
    assert full() == NoWorkReason.ALL_TAKEN
