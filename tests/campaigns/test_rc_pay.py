"""Reading comprehension's stages each pay their own (issue 14 item 1): every stage's HIT
carries its stage's reward (none: the campaign's), the API's cost adds each paid assignment's
own reward, and MTurk publishing leaves such HITs out (one batch, one reward)."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.kinds.reading_comprehension.stages import advance
from campaigns.models import Hit, HitTask
from campaigns.platforms.publishing import plan
from judgments.models import Assignment, AssignmentStatus
from tests.campaigns.test_rc_stages import small_campaign, through_selection
from tests.factories import WorkerFactory

pytestmark = pytest.mark.django_db


def rewards_by_task(campaign):
    return {
        task: sorted({str(r) for r in rewards})
        for task, rewards in _grouped(Hit.objects.filter(campaign=campaign)).items()
    }


def _grouped(hits):
    grouped = {}
    for task, reward in hits.values_list("task", "reward"):
        grouped.setdefault(task, []).append(reward)
    return grouped


def test_each_stage_hit_carries_its_stage_reward():
    campaign = small_campaign(author_reward=Decimal("0.50"), answer_reward=Decimal("0.20"))
    through_selection(campaign)  # authoring and selection done: the answering HITs exist

    assert rewards_by_task(campaign) == {
        HitTask.RC_AUTHOR: ["0.50"],
        HitTask.RC_SELECT: ["None"],  # no select_reward: the campaign's
        HitTask.RC_ANSWER: ["0.20"],
    }
    assert campaign.rc_settings.reward_of(HitTask.RC_GRADE) is None


def test_the_cost_adds_each_assignment_own_reward():
    campaign = small_campaign(author_reward=Decimal("0.50"), answer_reward=Decimal("0.20"))
    campaign.reward = Decimal("0.10")
    campaign.save(update_fields=["reward"])
    through_selection(campaign)  # one authoring (0.50) and one selection (0.10) assignment
    answering = Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).first()
    Assignment.objects.create(
        campaign=campaign,
        hit=answering,
        worker=WorkerFactory(),
        status=AssignmentStatus.SUBMITTED,
        reward=answering.reward,  # as the hand-out stores it
        submitted_at=timezone.now(),
        expires_at=timezone.now(),
    )
    advance(campaign)

    client = APIClient()
    client.force_authenticate(
        get_user_model().objects.create_superuser("boss", "boss@example.org", "pw")
    )
    cost = client.get(f"/api/campaigns/{campaign.pk}/").json()["cost"]
    # 0.50 + 0.10 + 0.20, awaiting review: committed, not paid yet (direct links: no fee).
    assert (cost["committed_assignments"], cost["rewards"]) == (3, "0.80")
    assert (cost["paid"], cost["committed"]) == ("0.00", "0.80")


def test_mturk_publishing_leaves_out_hits_with_their_own_pay():
    campaign = small_campaign(author_reward=Decimal("0.50"))
    result = plan(campaign)
    assert result.regular_hits == []
    assert any("take their own number of workers or pay" in note for note in result.notes)
