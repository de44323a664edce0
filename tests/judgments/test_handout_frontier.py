"""The hand-out's frontier (judgments.actions.frontier, issue 16): the hand-out looks for a HIT
the worker never held from the campaign's frontier on, and every write that frees a place
below it is seen by the database triggers of migration judgments 0008, so the hand-out hands
out exactly what it handed out before the frontier existed."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from campaigns.models import Hit
from campaigns.platforms.models import MTurkHit
from judgments.actions import HandOutKind, NoWorkReason, handout, next_assignment_for
from judgments.actions.frontier import hand_out_start
from judgments.actions.membership import expire_abandoned_assignments
from judgments.entry.availability import WorkAvailability, work_for
from judgments.models import Assignment, AssignmentStatus, HandOutFrontier, HitReopened
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)


def campaign_with_hits(n=5, redundancy=1, **fields):
    campaign = CampaignFactory(redundancy=redundancy, assignment_duration_seconds=600, **fields)
    hits = {number: HitFactory(campaign=campaign, number=number) for number in range(1, n + 1)}
    return campaign, hits


def hand_out(campaign, worker=None):
    """A new worker's hand-out: the HIT number given, or the reason for none."""
    given = next_assignment_for(worker or WorkerFactory(), campaign, now=NOW)
    return given.assignment.hit.number if given.assignment else given.reason


def frontier(campaign):
    return HandOutFrontier.objects.get(campaign=campaign).number


def fill(campaign, count):
    """``count`` new workers' hand-outs; their assignments."""
    return [
        next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment for _ in range(count)
    ]


def test_the_frontier_follows_the_full_hits():
    campaign, _ = campaign_with_hits(5)
    assert [hand_out(campaign) for _ in range(3)] == [1, 2, 3]
    assert frontier(campaign) == 4
    fill(campaign, 2)
    assert frontier(campaign) == 6  # one past the last HIT: every HIT is full
    assert hand_out(campaign) == NoWorkReason.ALL_TAKEN
    assert frontier(campaign) == 6
    assert not HitReopened.objects.filter(campaign=campaign).exists()


def test_a_worker_own_hit_and_a_hit_they_held_are_skipped():
    campaign, hits = campaign_with_hits(3, redundancy=2)
    worker = WorkerFactory()
    AssignmentFactory(hit=hits[1], worker=worker, status=AssignmentStatus.SUBMITTED)
    assert hand_out(campaign, worker) == 2
    assert frontier(campaign) == 1  # HIT 1 has a place for others


@pytest.mark.parametrize(
    "free",
    [
        pytest.param(
            lambda a: a.__class__.objects.filter(pk=a.pk).update(status="returned"), id="returned"
        ),
        pytest.param(
            lambda a: a.__class__.objects.filter(pk=a.pk).update(status="rejected"), id="rejected"
        ),
        pytest.param(lambda a: a.delete(), id="deleted"),
    ],
)
def test_a_place_freed_below_the_frontier_is_handed_out_next(free):
    campaign, _ = campaign_with_hits(5)
    assignments = fill(campaign, 3)
    assert frontier(campaign) == 4
    free(assignments[1])  # HIT 2's place
    assert hand_out(campaign) == 2
    assert hand_out(campaign) == 4
    assert frontier(campaign) == 5


def test_an_assignment_saved_returned_frees_its_place():
    campaign, _ = campaign_with_hits(3)
    assignments = fill(campaign, 2)
    assignments[0].status = AssignmentStatus.RETURNED
    assignments[0].save()
    assert hand_out(campaign) == 1


def test_an_expired_assignment_frees_its_place():
    campaign, _ = campaign_with_hits(3)
    assignments = fill(campaign, 2)
    Assignment.objects.filter(pk=assignments[0].pk).update(expires_at=NOW - timedelta(seconds=1))
    # The hand-out expires it under the campaign's lock, then finds HIT 1 below the frontier.
    assert hand_out(campaign) == 1
    assignments[0].refresh_from_db()
    assert assignments[0].status == AssignmentStatus.EXPIRED


def test_an_expiry_by_the_sweep_frees_its_place():
    campaign, _ = campaign_with_hits(3)
    assignments = fill(campaign, 2)
    Assignment.objects.filter(pk=assignments[1].pk).update(expires_at=NOW - timedelta(seconds=1))
    assert expire_abandoned_assignments(NOW) == 1
    assert hand_out(campaign) == 2


def test_the_worker_gets_their_own_expired_hit_below_the_frontier_first():
    campaign, _ = campaign_with_hits(4)
    worker = WorkerFactory()
    mine = next_assignment_for(worker, campaign, now=NOW).assignment
    fill(campaign, 2)
    Assignment.objects.filter(pk=mine.pk).update(expires_at=NOW - timedelta(seconds=1))
    given = next_assignment_for(worker, campaign, now=NOW)
    assert (given.kind, given.assignment.hit.number) == (HandOutKind.REACTIVATED, 1)
    assert hand_out(campaign) == 4


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"places": 2}, id="places"),
        pytest.param({"is_qualification": False}, id="qualification-flag"),
    ],
)
def test_a_hit_changed_below_the_frontier_is_handed_out(change):
    campaign, hits = campaign_with_hits(4)
    if "is_qualification" in change:
        Hit.objects.filter(pk=hits[2].pk).update(is_qualification=True)
        assert [hand_out(campaign) for _ in range(2)] == [1, 3]
    else:
        fill(campaign, 3)
    assert frontier(campaign) == 4
    for field, value in change.items():
        setattr(hits[2], field, value)
    hits[2].save()
    assert hand_out(campaign) == 2


def test_a_hit_added_below_the_frontier_is_handed_out():
    campaign = CampaignFactory(redundancy=1)
    for number in (5, 6):
        HitFactory(campaign=campaign, number=number)
    assert [hand_out(campaign) for _ in range(2)] == [5, 6]
    assert frontier(campaign) == 7
    Hit.objects.bulk_create([Hit(campaign=campaign, task="assess", number=n) for n in (3, 2, 4)])
    assert [hand_out(campaign) for _ in range(4)] == [2, 3, 4, NoWorkReason.ALL_TAKEN]


def test_more_redundancy_reopens_every_hit():
    campaign, _ = campaign_with_hits(3)
    fill(campaign, 3)
    assert frontier(campaign) == 4
    campaign.redundancy = 2
    campaign.save()
    assert [hand_out(campaign) for _ in range(3)] == [1, 2, 3]


def test_a_hit_taken_off_mturk_is_handed_out():
    campaign, hits = campaign_with_hits(3)
    published = MTurkHit.objects.create(
        hit=hits[1], mturk_hit_id="3MFRONTIER", hit_type_id="3T", sandbox=True, max_assignments=1
    )
    assert [hand_out(campaign) for _ in range(2)] == [2, 3]
    assert frontier(campaign) == 4  # HIT 1 is MTurk's: not the hand-out's to fill
    published.delete()
    assert hand_out(campaign) == 1


def test_writes_that_free_no_place_leave_no_row():
    campaign, hits = campaign_with_hits(2, redundancy=2)
    HitReopened.objects.all().delete()
    assignment = fill(campaign, 1)[0]
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.save()  # live to live
    Assignment.objects.filter(pk=assignment.pk).update(status=AssignmentStatus.APPROVED)
    hits[1].save()  # nothing changed
    campaign.save()
    campaign.redundancy = 1
    campaign.save()  # fewer places: nothing reopens
    assert not HitReopened.objects.exists()


def test_a_row_written_after_the_start_was_read_stays_for_the_next_hand_out():
    campaign, _ = campaign_with_hits(3)
    fill(campaign, 3)
    HitReopened.objects.create(campaign=campaign, number=2)
    assert hand_out_start(campaign.pk) == 2
    assert not HitReopened.objects.filter(campaign=campaign).exists()
    # Written after the DELETE read the rows (a transaction that committed meanwhile).
    HitReopened.objects.create(campaign=campaign, number=1)
    assert hand_out_start(campaign.pk) == 1


def test_a_build_writes_one_row_per_statement_on_postgresql():
    campaign = CampaignFactory()
    Hit.objects.bulk_create([Hit(campaign=campaign, task="assess", number=n) for n in (7, 3, 9)])
    numbers = sorted(HitReopened.objects.filter(campaign=campaign).values_list("number", flat=True))
    # PostgreSQL's statement trigger writes the lowest number once; SQLite's row triggers, each.
    assert numbers == ([3] if connection.vendor == "postgresql" else [3, 7, 9])


def test_random_hand_outs_match_the_scan_without_a_frontier(monkeypatch):
    """Two identical campaigns take the same random hand-outs, frees and changes: one hand-out
    looks from the frontier on, the other from HIT 0 (as before the frontier)."""
    rng = random.Random(16)
    pair = []
    for _ in range(2):
        campaign = CampaignFactory(redundancy=2, assignment_duration_seconds=600)
        hits = [HitFactory(campaign=campaign, number=n) for n in range(1, 13)]
        pair.append((campaign, hits))
    oracle_id = pair[1][0].pk
    start = handout.hand_out_start
    monkeypatch.setattr(
        handout,
        "hand_out_start",
        lambda campaign_id: 0 if campaign_id == oracle_id else start(campaign_id),
    )
    workers = [WorkerFactory() for _ in range(30)]
    seen = [[], []]
    for step in range(160):
        action = rng.random()
        worker = rng.choice(workers)
        places = rng.choice([None, 1, 2, 3])
        hit_index = rng.randrange(12)
        pick = rng.random()
        for side, (campaign, hits) in enumerate(pair):
            live = list(
                Assignment.objects.filter(
                    campaign=campaign, status=AssignmentStatus.STARTED
                ).order_by("hit__number", "worker_id")
            )
            if action < 0.6 or not live:
                given = next_assignment_for(worker, campaign, now=NOW)
                got = given.assignment.hit.number if given.assignment else given.reason
                seen[side].append((step, got, given.kind))
                if given.assignment:  # the worker finishes it at once, or not
                    status = AssignmentStatus.SUBMITTED if pick < 0.5 else None
                    if status:
                        Assignment.objects.filter(pk=given.assignment.pk).update(status=status)
            elif action < 0.75:
                chosen = live[int(pick * len(live))]
                Assignment.objects.filter(pk=chosen.pk).update(status=AssignmentStatus.RETURNED)
            elif action < 0.9:
                chosen = live[int(pick * len(live))]
                Assignment.objects.filter(pk=chosen.pk).update(
                    expires_at=NOW - timedelta(seconds=1)
                )
            else:
                Hit.objects.filter(pk=hits[hit_index].pk).update(places=places)
    assert seen[0] == seen[1]
    assert len({got for _, got, _ in seen[0] if isinstance(got, int)}) == 12


# --- The completion page's read-only twin (judgments.entry.availability.work_for) ----------


def test_availability_sees_a_releasable_holder_below_the_frontier():
    campaign, _ = campaign_with_hits(3)
    assignments = fill(campaign, 3)
    assert frontier(campaign) == 4
    late = WorkerFactory()
    assert work_for(late, campaign, now=NOW) == WorkAvailability(
        False, held=3, frees_at=min(a.expires_at for a in assignments)
    )
    # Past its deadline but not expired yet (no hand-out or sweep ran): its place counts as
    # free, as the hand-out's expiry would make it, though HIT 1 is below the frontier.
    Assignment.objects.filter(pk=assignments[0].pk).update(expires_at=NOW - timedelta(seconds=1))
    assert work_for(late, campaign, now=NOW).available
    assert not HitReopened.objects.filter(campaign=campaign).exists()
    assert hand_out(campaign, late) == 1


def test_availability_sees_a_reopened_hit_before_any_hand_out():
    campaign, _ = campaign_with_hits(3)
    assignments = fill(campaign, 3)
    late = WorkerFactory()
    assert not work_for(late, campaign, now=NOW).available
    Assignment.objects.filter(pk=assignments[1].pk).update(status=AssignmentStatus.RETURNED)
    assert work_for(late, campaign, now=NOW).available  # the row is read, not consumed
    assert HitReopened.objects.filter(campaign=campaign).count() == 1
    assert hand_out(campaign, late) == 2
