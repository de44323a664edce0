"""What "judgments still needed" answers (:class:`StillNeeded`, one :class:`PairEstimate`
per pair not separated yet) and how extra assignments are priced; shared by the kinds'
estimators (``analytics.reports.kinds``) and the entry point
(``analytics.reports.still_needed``, whose docstring gives the method)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Count

from analytics.reports.cost import DIRECT, MTURK, PROLIFIC, per_assignment_cost
from analytics.stats.power import DEFAULT_POWER
from campaigns.models import Campaign, HitSlot, MTurkHit, SlotRole

__all__ = [
    "ALPHA",
    "PairEstimate",
    "StillNeeded",
    "assignment_price",
    "assignments_for",
    "campaign_platform",
    "output_share",
]

ALPHA = 0.05


@dataclass(frozen=True)
class PairEstimate:
    better: str
    worse: str
    better_id: int
    worse_id: int
    p_value: float | None
    effect: float | None
    units_now: int
    units_needed: int | None
    more_judgments: int | None
    more_assignments: int | None
    cost: Decimal | None
    exceeds_segments: bool = False
    note: str = ""


@dataclass(frozen=True)
class StillNeeded:
    campaign_id: int
    campaign_name: str
    kind: str
    computed_at: datetime | None
    available: bool
    reason: str = ""
    test: str = ""
    method: str = ""
    method_id: str = ""  # the method's value (``?method=``), one of ``methods``
    methods: tuple[str, ...] = ()
    unit: str = ""
    alpha: float = ALPHA
    power: float = DEFAULT_POWER
    cost_per_assignment: Decimal | None = None
    judgments_per_assignment: float | None = None
    judgments_per_assignment_means: str = ""
    n_systems: int = 0
    n_separated: int = 0
    pairs: list[PairEstimate] = field(default_factory=list)


# --- Pricing (pure) --------------------------------------------------------------------------


def assignments_for(judgments_needed: float, yield_per_assignment: float) -> int | None:
    """ceil(judgments needed / what one assignment yields of them); None if it yields none."""
    if not yield_per_assignment > 0:
        return None
    return max(0, math.ceil(judgments_needed / yield_per_assignment - 1e-9))


def campaign_platform(campaign: Campaign) -> str:
    if MTurkHit.objects.filter(hit__campaign=campaign).exists():
        return MTURK
    return PROLIFIC if campaign.prolific_study_id else DIRECT


def assignment_price(campaign: Campaign) -> Decimal:
    # Priced as on production MTurk (a sandbox campaign is rehearsing the real one), with
    # the campaign's redundancy as the HIT's number of assignments.
    return per_assignment_cost(
        campaign.reward,
        campaign_platform(campaign),
        max_assignments=campaign.redundancy,
        masters=campaign.mturk_masters,
    )


def output_share(campaign: Campaign) -> float | None:
    """The share of the regular HITs' slots that are system outputs or repeats (one query)."""
    counts = dict(
        HitSlot.objects.filter(hit__campaign=campaign, hit__is_qualification=False)
        .order_by()
        .values_list("role")
        .annotate(n=Count("pk"))
    )
    total = sum(counts.values())
    if not total:
        return None
    return (counts.get(SlotRole.SYSTEM, 0) + counts.get(SlotRole.REPEAT, 0)) / total
