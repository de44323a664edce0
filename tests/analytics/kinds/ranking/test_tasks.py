"""Ranking campaigns on the live path: the Celery task, coalescing and the periodic sweep."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from analytics import actions, tasks
from analytics.kinds.direct_assessment import actions as da_actions
from analytics.kinds.ranking import actions as ranking_actions
from analytics.models import RankingReference, RankingResult
from campaigns.models import Campaign, RankingSettings
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.analytics.test_tasks import announce

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh():
    built = build_ranking_campaign()
    actions.recompute_campaign(built.campaign)
    assert stale_ids() == []
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def stale_ids():
    return list(actions.stale_campaigns().values_list("pk", flat=True))


def test_the_task_recomputes_a_ranking_campaign_and_returns_its_judgments():
    built = build_ranking_campaign()
    assert tasks.recompute_campaign_results(built.campaign.pk) == 75
    assert RankingResult.objects.get(campaign=built.campaign).n_judgments == 75
    actions.clear_recompute_flag(built.campaign.pk)


def test_a_burst_of_ranking_submissions_enqueues_one_recompute(broker):
    built = build_ranking_campaign()
    for i in range(30):
        announce(built.campaign.pk, [i])
    broker.assert_called_once_with(args=[built.campaign.pk], countdown=5.0)
    actions.clear_recompute_flag(built.campaign.pk)


def test_rankings_without_results_are_stale():
    built = build_ranking_campaign()
    assert stale_ids() == [built.campaign.pk]
    assert list(ranking_actions.stale_ranking_campaigns().values_list("pk", flat=True)) == [
        built.campaign.pk
    ]
    assert list(da_actions.stale_da_campaigns()) == []


def test_the_sweep_recomputes_a_ranking_campaign_whose_message_was_lost(fresh):
    Judgment.objects.filter(worker_id=fresh.workers["careful"], slot__hit__number=2).delete()
    assert stale_ids() == [fresh.campaign.pk]
    assert tasks.recompute_stale_campaigns() == 1
    assert RankingResult.objects.get(campaign=fresh.campaign).n_judgments == 66
    assert stale_ids() == []


def test_a_newer_ranking_makes_the_results_stale(fresh):
    Judgment.objects.filter(worker_id=fresh.workers["careful"]).update(
        submitted_at=timezone.now() + timedelta(seconds=5)
    )
    assert stale_ids() == [fresh.campaign.pk]


def test_a_rejection_since_the_results_makes_them_stale(fresh):
    Assignment.objects.filter(pk=fresh.assignments[("ties", 1)].pk).update(
        status=AssignmentStatus.REJECTED
    )
    assert stale_ids() == [fresh.campaign.pk]
    actions.recompute_campaign(fresh.campaign)
    assert stale_ids() == []


def test_a_trust_or_exclusion_change_made_elsewhere_makes_them_stale(fresh):
    CampaignWorker.objects.filter(worker_id=fresh.workers["reversed"]).update(untrusted=False)
    assert stale_ids() == [fresh.campaign.pk]
    actions.recompute_campaign(fresh.campaign)
    assert stale_ids() == []
    CampaignWorker.objects.create(
        campaign=fresh.campaign, worker_id=fresh.workers["ties"], excluded=True
    )
    assert stale_ids() == [fresh.campaign.pk]


def test_new_gold_settings_make_the_results_stale(fresh):
    RankingSettings.objects.filter(pk=fresh.campaign.pk).update(trust_min_accuracy=Decimal("0.500"))
    assert stale_ids() == [fresh.campaign.pk]
    actions.recompute_campaign(Campaign.objects.get(pk=fresh.campaign.pk))
    assert stale_ids() == []
    RankingSettings.objects.filter(pk=fresh.campaign.pk).update(gold_scheme="best_worst")
    assert stale_ids() == [fresh.campaign.pk]


def test_references_edited_since_make_the_results_stale(fresh):
    RankingReference.objects.create(campaign=fresh.campaign, reference_ranking="A\nB\nC")
    assert stale_ids() == [fresh.campaign.pk]
    actions.recompute_campaign(fresh.campaign)
    assert stale_ids() == []
