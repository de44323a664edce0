"""Each worker's trust in a campaign, as the campaign's kind decides it, for the report's
"judgments by trusted and untrusted workers" (002 Tables A.1 and A.3). One query.

A small registry keyed by the task kind (like ``analytics.kinds``), so that the report never
asks which kind a campaign is:

* ranking: the stored gold trust (002 section 4.1: at least 4 gold units, at least 70% right;
  ``RankingWorkerStat.status``), trusted, untrusted or undecided (too few gold units);
* direct assessment: the stored reliability test (001): reliable is trusted; too few control
  pairs to test ("wait") is undecided; otherwise untrusted;
* every other kind: untrusted when the requester or the analytics excluded the worker or
  marked them untrusted (``CampaignWorker``), otherwise undecided (no check of the kind's own
  says more).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analytics.models import RankingWorkerStat, Recommendation, WorkerStat
from analytics.reports.summary import TRUSTED, UNDECIDED, UNTRUSTED
from campaigns.models import Campaign, TaskKind
from judgments.models import CampaignWorker

__all__ = ["TrustRule", "trust_rule", "trust_statuses"]


@dataclass(frozen=True)
class TrustRule:
    """How a kind decides trust: the loader (worker id -> status) and what "trusted" means
    there, in the words the report shows."""

    load: Callable[[Campaign], dict[int, str]]
    meaning: str


def _ranking(campaign: Campaign) -> dict[int, str]:
    return dict(
        RankingWorkerStat.objects.filter(campaign=campaign)
        .order_by()
        .values_list("worker_id", "status")
    )


def _direct_assessment(campaign: Campaign) -> dict[int, str]:
    out: dict[int, str] = {}
    rows = (
        WorkerStat.objects.filter(campaign=campaign)
        .order_by()
        .values_list("worker_id", "reliable", "recommendation")
    )
    for worker, reliable, recommendation in rows:
        if reliable:
            out[worker] = TRUSTED
        elif recommendation == Recommendation.WAIT:
            out[worker] = UNDECIDED
        else:
            out[worker] = UNTRUSTED
    return out


def _memberships(campaign: Campaign) -> dict[int, str]:
    rows = (
        CampaignWorker.objects.filter(campaign=campaign)
        .order_by()
        .values_list("worker_id", "untrusted", "excluded")
    )
    return {
        worker: UNTRUSTED if untrusted or excluded else UNDECIDED
        for worker, untrusted, excluded in rows
    }


_RULES: dict[str, TrustRule] = {
    TaskKind.RANKING: TrustRule(
        _ranking,
        "Trusted: gold units judged right often enough (at least the campaign's minimum of "
        "gold units and share right, 002 section 4.1); undecided: too few gold units yet.",
    ),
    TaskKind.DIRECT_ASSESSMENT: TrustRule(
        _direct_assessment,
        "Trusted: passed the reliability test (bad references scored significantly lower, "
        "001); undecided: too few control pairs to test yet.",
    ),
}
_DEFAULT = TrustRule(
    _memberships,
    "Untrusted: excluded or marked untrusted in the campaign; undecided: everyone else "
    "(this kind has no trust check of its own).",
)


def trust_rule(campaign: Campaign) -> TrustRule:
    return _RULES.get(campaign.kind, _DEFAULT)


def trust_statuses(campaign: Campaign) -> dict[int, str]:
    """Worker id -> "trusted", "untrusted" or "undecided" (one query)."""
    return trust_rule(campaign).load(campaign)
