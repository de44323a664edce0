"""The vocabulary of the ranking builder: roles, schemes, limits and the plan dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

# Slot roles, spelled as campaigns.models.SlotRole (this module may not import Django).
ROLE_SYSTEM = "system"
ROLE_GOLD = "gold"
ROLE_TRAINING = "training"

# Gold schemes, spelled as campaigns.models.GoldScheme.
BEST_ONLY = "best_only"
BEST_WORST = "best_worst"
GOLD_SCHEMES = (BEST_ONLY, BEST_WORST)

# Campaign.outputs_per_set's validators: 2..10 (5 in 000/WMT08, 4 in 002).
MIN_OUTPUTS_PER_SET = 2
MAX_OUTPUTS_PER_SET = 10

# The best+worst margin of 002 ("1 or 2" / "3 or 4" of 4).
_BEST_WORST_MARGIN = 2


@dataclass(frozen=True)
class RankingOutput:
    """One system's translation of one segment, as the builder needs it."""

    output_id: int
    system_id: int
    segment_id: int
    text: str


@dataclass(frozen=True)
class SlotPlan:
    """One slot of a ranking HIT plan.

    ``output_id`` / ``system_id`` are the output shown and its system; both ``None`` in a
    gold slot that shows a gold translation which is no output. ``expected_rank_min`` /
    ``expected_rank_max`` give the ranks a correct answer lies in (1 = best), for the gold
    slot and for the known-worst output of a best+worst gold set; ``None`` elsewhere.
    """

    position: int  # 1-based over the HIT
    set_index: int  # 0-based set within the HIT (HitSlot.group)
    role: str
    segment_id: int
    output_id: int | None
    system_id: int | None
    shown_text: str
    expected_rank_min: int | None = None
    expected_rank_max: int | None = None


@dataclass(frozen=True)
class RankingCounts:
    """How many HITs and sets :func:`build_ranking_hits` makes."""

    hits: int
    sets: int  # hits * sets_per_hit
    gold_sets: int
    coverage_sets: int
    extra_sets: int  # regular sets beyond coverage, completing the last HIT
