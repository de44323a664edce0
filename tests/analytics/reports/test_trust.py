"""The report's "judgments by trusted and untrusted workers" per kind: a worker the requester
excluded is untrusted in every kind's report. A walkthrough excluded a random clicker from a
ranking campaign and the report still counted them "undecided", as if in the evaluation."""

import pytest

from analytics.models import RankingWorkerStat, TrustStatus
from analytics.reports.kinds.ranking import load_trust
from campaigns.models import TaskKind
from judgments.actions.membership import set_excluded
from judgments.models import CampaignWorker
from tests.factories import CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db


def stat(campaign, worker, status):
    return RankingWorkerStat.objects.create(
        campaign=campaign,
        worker=worker,
        n_judgments=12,
        n_ballots=3,
        gold_seen=0,
        gold_correct=0,
        status=status,
        in_scores=True,
    )


def test_an_excluded_or_untrusted_worker_is_untrusted_whatever_the_gold_check_says():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    kept, excluded, marked, trusted = (WorkerFactory() for _ in range(4))
    stat(campaign, kept, TrustStatus.UNDECIDED)
    stat(campaign, excluded, TrustStatus.UNDECIDED)
    stat(campaign, marked, TrustStatus.UNDECIDED)
    stat(campaign, trusted, TrustStatus.TRUSTED)
    membership = CampaignWorker.objects.create(campaign=campaign, worker=excluded)
    set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, reason="random clicking")
    CampaignWorker.objects.create(campaign=campaign, worker=marked, untrusted=True)
    assert load_trust(campaign) == {
        kept.pk: "undecided",
        excluded.pk: "untrusted",
        marked.pk: "untrusted",
        trusted.pk: "trusted",
    }
