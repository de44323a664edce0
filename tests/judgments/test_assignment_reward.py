"""Each assignment keeps the reward it was taken at (campaigns.pay): every path that creates
an assignment stores what the worker was offered then, and a later change of the campaign's
reward reaches only assignments taken after it."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from campaigns.models import HitTask, MTurkHit, TaskKind
from judgments.actions import HandOutKind, accept_mturk_assignment, next_assignment_for
from judgments.models import Assignment, AssignmentStatus, CampaignWorker
from tests.factories import CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)
SUBMIT_TO = "https://workersandbox.mturk.com"


def set_reward(campaign, amount: str) -> None:
    campaign.reward = Decimal(amount)
    campaign.save(update_fields=["reward"])


def test_a_change_of_reward_reaches_only_assignments_taken_after_it():
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=2)
    HitFactory(campaign=campaign, number=1)
    first = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment
    set_reward(campaign, "1.00")
    second = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment

    assert first.reward == Decimal("0.50")
    stored = dict(Assignment.objects.values_list("pk", "reward"))
    assert stored == {first.pk: Decimal("0.50"), second.pk: Decimal("1.00")}


def test_the_hand_written_pick_stores_the_hits_own_reward():
    # Direct assessment has no HIT rules of its own: judgments.actions.hot_sql picks the HIT.
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=1)
    HitFactory(campaign=campaign, number=1, reward=Decimal("0.20"))
    HitFactory(campaign=campaign, number=2)

    own = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment
    campaigns = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment

    assert (own.hit.number, own.reward) == (1, Decimal("0.20"))
    assert (campaigns.hit.number, campaigns.reward) == (2, Decimal("0.50"))
    assert str(Assignment.objects.get(pk=own.pk).reward) == "0.20"


def test_a_kind_with_its_own_rules_stores_the_verification_reward():
    # Post-editing chooses through the ORM (verification HITs first): the HIT's reward rides
    # along with its id.
    campaign = CampaignFactory(
        kind=TaskKind.POST_EDITING, reward=Decimal("0.40"), verification_reward=Decimal("0.05")
    )
    HitFactory(campaign=campaign, number=1, task=HitTask.POST_EDIT)
    HitFactory(
        campaign=campaign, number=2, task=HitTask.VERIFY_EDIT, places=3, reward=Decimal("0.05")
    )

    verify = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment

    assert (verify.hit.task, verify.reward) == (HitTask.VERIFY_EDIT, Decimal("0.05"))


def test_the_qualification_test_stores_the_reward_offered():
    campaign = CampaignFactory(reward=Decimal("0.30"), qualification_required=True)
    HitFactory(campaign=campaign, number=1, is_qualification=True)
    HitFactory(campaign=campaign, number=2)

    test = next_assignment_for(WorkerFactory(), campaign, now=NOW).assignment

    assert (test.hit.is_qualification, test.reward) == (True, Decimal("0.30"))


def test_an_assignment_started_again_keeps_the_reward_it_was_taken_at():
    campaign = CampaignFactory(reward=Decimal("0.50"), assignment_duration_seconds=600)
    HitFactory(campaign=campaign, number=1)
    worker = WorkerFactory()
    taken = next_assignment_for(worker, campaign, now=NOW).assignment
    Assignment.objects.filter(pk=taken.pk).update(status=AssignmentStatus.EXPIRED)
    set_reward(campaign, "0.70")

    again = next_assignment_for(worker, campaign, now=NOW + timedelta(hours=1))

    assert (again.kind, again.assignment.pk) == (HandOutKind.REACTIVATED, taken.pk)
    assert Assignment.objects.get(pk=taken.pk).reward == Decimal("0.50")


def _published(campaign, reward):
    hit = HitFactory(campaign=campaign, number=1)
    MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id="3PUBLISHED",
        hit_type_id="3TYPE",
        sandbox=True,
        max_assignments=3,
        reward=reward,
    )
    return hit


def test_an_mturk_accept_stores_the_reward_the_hit_was_published_with():
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=3)
    hit = _published(campaign, Decimal("0.50"))
    set_reward(campaign, "1.00")  # MTurk still pays $0.50 for this HIT

    hand_out = accept_mturk_assignment(
        hit, "A1WORKER", "3ASSIGNMENT1", "3PUBLISHED", SUBMIT_TO, now=NOW
    )

    assert hand_out.kind == HandOutKind.NEW
    assert Assignment.objects.get().reward == Decimal("0.50")


def test_an_mturk_hit_without_a_recorded_reward_pays_the_campaigns():
    campaign = CampaignFactory(reward=Decimal("0.45"), redundancy=3)
    hit = _published(campaign, None)

    accept_mturk_assignment(hit, "A1WORKER", "3ASSIGNMENT1", "3PUBLISHED", SUBMIT_TO, now=NOW)

    assert Assignment.objects.get().reward == Decimal("0.45")
    assert CampaignWorker.objects.count() == 1
