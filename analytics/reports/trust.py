"""Each worker's trust in a campaign, as the campaign's kind decides it, for the report's
"judgments by trusted and untrusted workers" (002 Tables A.1 and A.3). One query.

The kinds' rules are in ``analytics.reports.kinds`` (a registry keyed by the task kind, like
``analytics.kinds``), so that the report never asks which kind a campaign is:

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

from analytics.reports.summary import UNDECIDED, UNTRUSTED
from campaigns.models import Campaign
from judgments.models import CampaignWorker

__all__ = ["DEFAULT_TRUST", "TrustRule"]


@dataclass(frozen=True)
class TrustRule:
    """How a kind decides trust: the loader (worker id -> status) and what "trusted" means
    there, in the words the report shows."""

    load: Callable[[Campaign], dict[int, str]]
    meaning: str


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


def excluded_or_untrusted(campaign: Campaign) -> set[int]:
    """The workers the requester excluded, or marked untrusted, in ``campaign``: untrusted in
    every kind's report, whatever the kind's own trust check says (one query)."""
    return {worker for worker, status in _memberships(campaign).items() if status == UNTRUSTED}


DEFAULT_TRUST = TrustRule(
    _memberships,
    "Untrusted: excluded or marked untrusted in the campaign; undecided: everyone else "
    "(this kind has no trust check of its own).",
)
