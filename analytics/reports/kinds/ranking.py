"""Ranking's part of the report and of judgments still needed (the registry is
``analytics.reports.kinds``; the method is ``analytics.reports.still_needed``'s docstring).

Trust: the stored gold trust (002 section 4.1; ``RankingWorkerStat.status``).

Still needed: the bootstrap of the campaign's ranking score as the recompute runs it (same
rows, seed and resamples), and for each pair it does not separate the data multiple of
``analytics.stats.power.normal_sample_factor``.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from analytics.models import RankingWorkerStat
from analytics.reports.estimates import (
    PairEstimate,
    StillNeeded,
    assignment_price,
    assignments_for,
)
from analytics.reports.summary import UNTRUSTED
from analytics.reports.trust import TrustRule, excluded_or_untrusted
from analytics.stats.power import DEFAULT_POWER, normal_sample_factor, units_needed
from campaigns.models import Campaign, TaskKind

KIND = TaskKind.RANKING


def load_trust(campaign: Campaign) -> dict[int, str]:
    """The gold check's status of each worker; a worker the requester excluded (or marked
    untrusted) is untrusted, as in the other kinds' reports (they are out of the scores)."""
    trust = dict(
        RankingWorkerStat.objects.filter(campaign=campaign)
        .order_by()
        .values_list("worker_id", "status")
    )
    for worker in excluded_or_untrusted(campaign):
        trust[worker] = UNTRUSTED
    return trust


TRUST = TrustRule(
    load_trust,
    "Trusted: gold units judged right often enough (at least the campaign's minimum of "
    "gold units and share right, 002 section 4.1); undecided: too few gold units yet; "
    "untrusted: too many wrong, or excluded by the requester.",
)


# One method: the bootstrap's own normal approximation (the rank-sum simulation does not apply
# to a bootstrap of a ranking score).
METHODS = (("bootstrap", "Normal approximation of the bootstrap p-value"),)


def estimate(campaign: Campaign, base: StillNeeded, method: str = "bootstrap") -> StillNeeded:
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
    price = assignment_price(campaign)
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
        judgments_per_assignment_means="ranked outputs (sets per HIT x outputs per set, gold "
        "sets included)",
        n_systems=int(order.size),
        n_separated=separated,
        pairs=pairs,
    )
