"""Direct assessment's part of the report and of judgments still needed (the registry is
``analytics.reports.kinds``; the method is ``analytics.reports.still_needed``'s docstring).

Trust: the stored reliability test (001): reliable is trusted; too few control pairs to
test ("wait") is undecided; otherwise untrusted.

Still needed: the one-sided Wilcoxon rank-sum test on segment-mean (or per-judgment) z of the
workers the campaign counts, re-run on the data as the recompute reads it; for each pair it
does not separate, Noether's sample size (``analytics.stats.power.rank_sum_size``, the
default) or, with the method "simulation", the seeded resampling simulation of the same test
(``analytics.stats.power.simulated_rank_sum_sizing``: SIMULATION_REPLICATES replicates per
size, SIMULATION_SEED, sizes up to SIMULATION_MAX_N per system). The simulation's cost is
bounded: at most SIMULATED_PAIRS pairs are simulated (the closest first: smallest
Noether's n), the others keep Noether's estimate and say so.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from analytics.models import Recommendation, WorkerStat
from analytics.reports.estimates import (
    PairEstimate,
    StillNeeded,
    assignment_price,
    assignments_for,
    output_share,
)
from analytics.reports.summary import TRUSTED, UNDECIDED, UNTRUSTED
from analytics.reports.trust import TrustRule
from analytics.stats.power import (
    DEFAULT_POWER,
    SIMULATION_MAX_N,
    SIMULATION_REPLICATES,
    SIMULATION_SEED,
    rank_sum_size,
    simulated_rank_sum_sizing,
)
from campaigns.models import Campaign, Segment, TaskKind

KIND = TaskKind.DIRECT_ASSESSMENT


def load_trust(campaign: Campaign) -> dict[int, str]:
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


TRUST = TrustRule(
    load_trust,
    "Trusted: passed the reliability test (bad references scored significantly lower, "
    "001); undecided: too few control pairs to test yet.",
)


NOETHER = "noether"
SIMULATION = "simulation"
METHODS = (
    (NOETHER, "Noether's sample size formula"),
    (SIMULATION, "Resampling simulation of the rank-sum test"),
)
SIMULATED_PAIRS = 20

NOETHER_TEXT = (
    "Noether's sample size for the one-sided rank-sum test (power 0.8), from the observed "
    "P(better > worse)"
)
SIMULATION_TEXT = (
    f"resampling simulation of the one-sided rank-sum test (power 0.8): for each size n, "
    f"{SIMULATION_REPLICATES:,} simulated campaigns draw n observations per system with "
    f"replacement from today's, seed {SIMULATION_SEED}; the smallest n at which 80% of them "
    f"find the better system significantly better, up to {SIMULATION_MAX_N:,} per system; at "
    f"most {SIMULATED_PAIRS} pairs are simulated, the others keep Noether's estimate"
)


def estimate(campaign: Campaign, base: StillNeeded, method: str = NOETHER) -> StillNeeded:
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
    share = output_share(campaign)
    per_system = items * share / m if share and m else None
    price = assignment_price(campaign)
    by_segments = config.significance_unit == "segments"
    unit = "segment means" if by_segments else "judgments"
    pairs: list[PairEstimate] = []
    separated = 0
    open_pairs = []
    for i in range(m):
        for j in range(i + 1, m):
            if float(p[i, j]) < alpha:
                separated += 1
            else:
                noether = rank_sum_size(samples[i], samples[j], alpha=alpha, power=DEFAULT_POWER)
                open_pairs.append((i, j, noether))
    simulated: set[tuple[int, int]] = set()
    if method == SIMULATION:
        # The closest pairs first (the smallest finite Noether's n): the ones more judgments
        # can separate soonest; pairs with no finite n are not simulated (nothing would be).
        finite = sorted(
            (size.per_system, i, j) for i, j, size in open_pairs if size.per_system is not None
        )
        simulated = {(i, j) for _, i, j in finite[:SIMULATED_PAIRS]}
    for i, j, noether in open_pairs:
        p_ij = float(p[i, j])
        if (i, j) in simulated:
            size = simulated_rank_sum_sizing(
                samples[i], samples[j], alpha=alpha, power=DEFAULT_POWER
            )
        else:
            size = noether
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
        if size.per_system is None and noether.per_system is not None:
            note = (
                f"The simulation did not reach power 0.8 with up to {SIMULATION_MAX_N:,} "
                f"{unit} per system (Noether's formula says {noether.per_system:,})."
            )
        elif size.per_system is None:
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
        if method == SIMULATION and (i, j) not in simulated and size.per_system is not None:
            note = (
                f"{note} " if note else ""
            ) + f"Noether's estimate: only the {SIMULATED_PAIRS} closest pairs are simulated."
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
        method=SIMULATION_TEXT if method == SIMULATION else NOETHER_TEXT,
        unit=unit,
        cost_per_assignment=price,
        judgments_per_assignment=per_system,
        judgments_per_assignment_means="judgments of each system per assignment (the built "
        "HITs' share of system outputs and repeats, spread evenly over the systems)",
        n_systems=m,
        n_separated=separated,
        pairs=pairs,
    )
