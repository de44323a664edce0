"""Judgments still needed (issue 17 item 4): which pairs of systems the campaign's own
significance test does not separate yet, and how many more judgments would, at what cost.

The test is the kind's own, on the same rows and with the same settings as the stored
results: the kind's loader and configuration are called and the statistics' functions run on
what they return (``analytics.kinds.direct_assessment`` and ``analytics.kinds.ranking``). The
sample-size arithmetic is :mod:`analytics.stats.power` (its docstring gives the formulas,
their sources and their assumptions); the pricing is :func:`plan_assignments` here, pure.

* **Direct assessment**: the one-sided Wilcoxon rank-sum test on segment-mean z-scores (or
  per-judgment z, the campaign's "significance unit"), reliable workers (or every worker, as
  the campaign counts them). A pair (better, worse by Ave z) is separated when p < 0.05. Not
  separated: Noether's formula on the observed P(better > worse) gives the observations each
  system needs for power 0.8; a segment mean needs the system's current judgments per segment.
  A HIT of ``items_per_hit`` items gives each of the m systems (output and repeat share of the
  built HITs) x items / m judgments; only the share of judgments that count today (reliable
  workers' outputs over all scored outputs) counts in the future too. So the assignments are
  ceil(max over the two systems of judgments needed / (per-system judgments per assignment x
  counted share)). When the segments a system needs exceed the campaign's segments, more
  judgments of the same segments only sharpen the segment means: the page says to import
  segments.
* **Ranking**: the bootstrap of the campaign's ranking score (Expected Wins when it ranks by
  TrueSkill, which has no bootstrap), resampling ranking sets. Separated when the bootstrap
  p < 0.05. Not separated: k = ((z_0.95 + z_0.8) se / d)^2 times today's ranking sets, with d
  the score difference and se its bootstrap standard deviation; a ranking set brings its
  current judgments per set; a HIT holds ``sets_per_hit`` x ``outputs_per_set`` judgments,
  of which the non-gold share counts, times the counted (trusted) share.

Cost: the assignments times the reward plus the platform's fee (MTurk's when the campaign's
HITs were published there, priced as on the production marketplace with the campaign's
redundancy as the HIT's assignments; Prolific's when the campaign names a Prolific study;
none for direct links), ``analytics.reports.cost``.

The estimate is computed once per stored result and cached (keyed by its ``computed_at``, as
the API's segment table): it loads every judgment and, for ranking, bootstraps like the
recompute does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal

import numpy as np
from django.db.models import Count

from analytics.kinds import statistics_of
from analytics.reports.cost import DIRECT, MTURK, PROLIFIC, per_assignment_cost
from analytics.stats.power import (
    DEFAULT_POWER,
    normal_sample_factor,
    rank_sum_size,
    units_needed,
)
from campaigns.models import Campaign, HitSlot, MTurkHit, Segment, SlotRole, TaskKind
from evalsite.cachesafe import cache_get, cache_set

__all__ = [
    "PairEstimate",
    "StillNeeded",
    "assignments_for",
    "still_needed",
]

ALPHA = 0.05
CACHE_SECONDS = 24 * 60 * 60
CACHE_VERSION = 1


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


def _platform(campaign: Campaign) -> str:
    if MTurkHit.objects.filter(hit__campaign=campaign).exists():
        return MTURK
    return PROLIFIC if campaign.prolific_study_id else DIRECT


def _price(campaign: Campaign) -> Decimal:
    # Priced as on production MTurk (a sandbox campaign is rehearsing the real one), with
    # the campaign's redundancy as the HIT's number of assignments.
    return per_assignment_cost(
        campaign.reward,
        _platform(campaign),
        max_assignments=campaign.redundancy,
        masters=campaign.mturk_masters,
    )


def _output_share(campaign: Campaign) -> float | None:
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


# --- Direct assessment -----------------------------------------------------------------------


def _direct_assessment(campaign: Campaign, base: StillNeeded) -> StillNeeded:
    from analytics.kinds.direct_assessment.actions import da_config_for
    from analytics.kinds.direct_assessment.api import DA_TESTS
    from analytics.kinds.direct_assessment.loading import load_da_judgments, subset
    from analytics.stats.direct_assessment import (
        standardize,
        system_samples,
        system_scores,
        worker_reliability,
    )
    from analytics.stats.direct_assessment.scores import OUTPUT_ROLES
    from analytics.stats.significance import pairwise_rank_sum
    from campaigns.models import System

    config = da_config_for(campaign)
    loaded = load_da_judgments(campaign.pk)
    scored = subset(loaded.judgments, loaded.scored)
    z = standardize(scored, exclude_references=config.exclude_references_from_z, ddof=config.ddof)
    if config.include_unreliable:
        included = np.ones(scored.n_workers, dtype=bool)
    else:
        included = worker_reliability(
            scored,
            test=config.reliability_test,
            alpha=config.alpha,
            min_pairs=config.min_pairs,
            assumption_a_test=config.assumption_a_test,
        ).reliable
    systems = system_scores(scored, z, include_workers=included, averaging=config.averaging)
    samples = system_samples(
        scored, z.z, systems.system, include_workers=included, unit=config.significance_unit
    )
    p = pairwise_rank_sum(samples)
    alpha = config.significance_alpha
    names = dict(System.objects.filter(campaign=campaign).values_list("id", "name"))
    n_segments = Segment.objects.filter(campaign=campaign).count()
    m = len(systems)
    outputs = np.isin(scored.role, OUTPUT_ROLES) & (scored.system >= 0)
    counted_rows = outputs & scored.worker_mask_to_rows(included)
    counted_share = (
        float(np.count_nonzero(counted_rows) / np.count_nonzero(outputs)) if outputs.any() else 0
    )
    items = campaign.da_settings.items_per_hit
    share = _output_share(campaign)
    per_system = items * share / m if share and m else None
    price = _price(campaign)
    by_segments = config.significance_unit == "segments"
    unit = "segment means" if by_segments else "judgments"
    pairs: list[PairEstimate] = []
    separated = 0
    for i in range(m):
        for j in range(i + 1, m):
            p_ij = float(p[i, j])
            if p_ij < alpha:
                separated += 1
                continue
            size = rank_sum_size(samples[i], samples[j], alpha=alpha, power=DEFAULT_POWER)
            per_unit = [
                float(systems.n[k] / systems.n_segments[k]) if by_segments else 1.0 for k in (i, j)
            ]
            more: list[float] | None = None
            if size.per_system is not None:
                more = [size.more_x * per_unit[0], size.more_y * per_unit[1]]
            assignments = None
            if more is not None and per_system is not None:
                assignments = assignments_for(max(more), per_system * counted_share)
            exceeds = bool(by_segments and size.per_system and size.per_system > n_segments)
            note = ""
            if size.per_system is None:
                note = (
                    "The systems score alike so far (the better one wins half the "
                    "comparisons or fewer): no number of judgments is expected to separate "
                    "them."
                )
            elif exceeds:
                note = (
                    f"Each system needs {size.per_system} segments judged; the campaign has "
                    f"{n_segments}. Import more segments (more judgments of the same "
                    "segments only sharpen their means)."
                )
            pairs.append(
                PairEstimate(
                    better=names.get(int(systems.system[i]), ""),
                    worse=names.get(int(systems.system[j]), ""),
                    better_id=int(systems.system[i]),
                    worse_id=int(systems.system[j]),
                    p_value=None if math.isnan(p_ij) else p_ij,
                    effect=None if math.isnan(size.p_superiority) else size.p_superiority,
                    units_now=min(size.n_x, size.n_y),
                    units_needed=size.per_system,
                    more_judgments=None if assignments is None else assignments * items,
                    more_assignments=assignments,
                    cost=None if assignments is None else price * assignments,
                    exceeds_segments=exceeds,
                    note=note,
                )
            )
    return replace(
        base,
        available=True,
        test=DA_TESTS[config.significance_unit],
        alpha=alpha,
        method="Noether's sample size for the one-sided rank-sum test (power 0.8), from the "
        "observed P(better > worse)",
        unit=unit,
        cost_per_assignment=price,
        judgments_per_assignment=per_system,
        judgments_per_assignment_means="judgments of each system per assignment (the built "
        "HITs' share of system outputs and repeats, spread evenly over the systems)",
        n_systems=m,
        n_separated=separated,
        pairs=pairs,
    )


# --- Ranking ---------------------------------------------------------------------------------


def _ranking(campaign: Campaign, base: StillNeeded) -> StillNeeded:
    from analytics.kinds.ranking.actions import (
        analyse_loaded_ranking,
        load_prior_trust,
        load_references,
        ranking_config_for,
    )
    from analytics.kinds.ranking.loading import load_ranking_judgments
    from analytics.models import RankingMethod
    from analytics.stats.power import replicate_difference
    from campaigns.models import System

    loaded = load_ranking_judgments(campaign.pk)
    if loaded.n_read == 0:
        return replace(base, reason="No ranking has been stored yet.")
    config = ranking_config_for(campaign)
    analysis = analyse_loaded_ranking(
        loaded, config, load_prior_trust(campaign.pk), load_references(campaign)
    )
    variant = analysis.variants[False]
    settings = campaign.ranking_settings
    method = settings.rank_by if settings.rank_by in variant.bootstrapped else None
    method = method or RankingMethod.EXPECTED_WINS
    boot = variant.bootstrapped[method]
    alpha = boot.alpha
    pairs_data = variant.report.scored_pairs
    unit_ids = pairs_data.set_index if boot.unit == "set" else pairs_data.ballot
    n_units = int(np.unique(unit_ids).size)
    # Judgments (ranked outputs) per unit now, and per assignment by the settings.
    rows_in = int(np.count_nonzero(variant.rows))
    per_unit = rows_in / n_units if n_units else 0.0
    per_assignment = settings.sets_per_hit * settings.outputs_per_set
    counted = (1.0 - float(settings.gold_rate)) * (
        rows_in / int(np.count_nonzero(loaded.scored)) if loaded.scored.any() else 0.0
    )
    names = dict(System.objects.filter(campaign=campaign).values_list("id", "name"))
    price = _price(campaign)
    score = np.where(np.isnan(boot.score), -np.inf, boot.score)
    order = np.argsort(-score, kind="stable")
    pairs: list[PairEstimate] = []
    separated = 0
    for a in range(order.size):
        for b in range(a + 1, order.size):
            i, j = int(order[a]), int(order[b])
            p_ij = float(boot.p_greater[i, j])
            if p_ij < alpha:
                separated += 1
                continue
            difference = float(boot.score[i] - boot.score[j])
            _, se = replicate_difference(boot.samples, i, j)
            factor = normal_sample_factor(difference, se, alpha=alpha, power=DEFAULT_POWER)
            needed = units_needed(n_units, factor)
            more_units = None if needed is None else needed - n_units
            assignments = None
            if more_units is not None:
                assignments = assignments_for(more_units * per_unit, per_assignment * counted)
            note = ""
            if needed is None:
                note = (
                    "The systems score alike so far: no number of judgments is expected to "
                    "separate them."
                )
            pairs.append(
                PairEstimate(
                    better=names.get(int(boot.systems[i]), ""),
                    worse=names.get(int(boot.systems[j]), ""),
                    better_id=int(boot.systems[i]),
                    worse_id=int(boot.systems[j]),
                    p_value=p_ij,
                    effect=difference if math.isfinite(difference) else None,
                    units_now=n_units,
                    units_needed=needed,
                    more_judgments=None if assignments is None else assignments * per_assignment,
                    more_assignments=assignments,
                    cost=None if assignments is None else price * assignments,
                    note=note,
                )
            )
    return replace(
        base,
        available=True,
        test=f"one-sided bootstrap of {RankingMethod(method).label} ({boot.n_samples} "
        f"resamples of ranking {'sets' if boot.unit == 'set' else 'ballots'})",
        method="normal approximation of the bootstrap p-value: the data multiple "
        "((z_0.95 + z_0.8) se / d)^2 (power 0.8)",
        unit="ranking sets" if boot.unit == "set" else "ballots",
        alpha=alpha,
        cost_per_assignment=price,
        judgments_per_assignment=float(per_assignment),
        judgments_per_assignment_means="ranked outputs per assignment (sets per HIT x outputs "
        "per set, gold sets included)",
        n_systems=int(order.size),
        n_separated=separated,
        pairs=pairs,
    )


ESTIMATORS: dict[str, Callable[[Campaign, StillNeeded], StillNeeded]] = {
    TaskKind.DIRECT_ASSESSMENT: _direct_assessment,
    TaskKind.RANKING: _ranking,
}


def _cache_key(campaign: Campaign, computed_at: datetime) -> str:
    return ":".join(
        [
            f"analytics:reports:still-needed:v{CACHE_VERSION}",
            str(campaign.pk),
            campaign.created_at.isoformat(),
            computed_at.isoformat(),
            # The price follows the campaign's payment settings, which a recompute ignores.
            str(campaign.reward),
            str(campaign.redundancy),
            str(campaign.mturk_masters),
            campaign.prolific_study_id,
        ]
    )


def still_needed(campaign: Campaign) -> StillNeeded:
    """The estimate for ``campaign`` (module docstring): computed from the data once per
    stored result, then read from the cache."""
    statistics = statistics_of(campaign)
    base = StillNeeded(
        campaign_id=campaign.pk,
        campaign_name=campaign.name,
        kind=campaign.kind,
        computed_at=None,
        available=False,
    )
    estimator = ESTIMATORS.get(campaign.kind)
    if statistics is None or estimator is None:
        label = campaign.get_kind_display()
        return replace(
            base,
            reason=f"{label} campaigns have no estimate of judgments still needed: only "
            "direct assessment (rank-sum test) and ranking (bootstrap) have one.",
        )
    computed_at = statistics.stored_computed_at(campaign)
    if computed_at is None:
        return replace(
            base,
            reason="The campaign's statistics have not been computed yet: it has no scored "
            "judgment, or the first computation is still queued.",
        )
    key = _cache_key(campaign, computed_at)
    cached = cache_get(key)
    if cached is not None:
        return cached
    result = estimator(campaign, replace(base, computed_at=computed_at))
    cache_set(key, result, CACHE_SECONDS)
    return result
