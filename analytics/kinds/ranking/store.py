"""Storing a ranking campaign's results: the scores by every method, the trust table and the
result row with the details that do not fit a row, in one transaction
(:func:`store_ranking_results`, run by ``analytics.kinds.ranking.actions.recompute_ranking``).
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import IntegrityError, transaction

from analytics.actions.common import json_safe
from analytics.kinds.ranking.loading import LoadedRanking
from analytics.models import (
    RankingMethod,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    trust_variant_key,
)
from analytics.stats.ranking import SystemScores
from campaigns.models import Campaign

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from analytics.kinds.ranking.actions import RankingAnalysis, References, Variant

__all__ = ["store_ranking_results"]

logger = logging.getLogger(__name__)


def _int(value: float) -> int:
    return int(round(float(value)))


def _float(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _positions(score: NDArray[np.float64]) -> NDArray[np.int64]:
    """Position of each system (1 = best; NaN last; ties in id order)."""
    order = np.argsort(-np.where(np.isnan(score), -np.inf, score), kind="stable")
    positions = np.empty(order.shape[0], dtype=np.int64)
    positions[order] = np.arange(1, order.shape[0] + 1)
    return positions


def _score_rows(campaign: Campaign, variant: Variant, include: bool) -> list[RankingScore]:
    def row(method: str, s: SystemScores, i: int, position, **values) -> RankingScore:
        return RankingScore(
            campaign=campaign,
            system_id=int(s.systems[i]),
            method=method,
            include_untrusted=include,
            position=int(position[i]),
            n=_int(s.comparisons[i]),
            wins=_int(s.wins[i]),
            ties=_int(s.ties[i]),
            losses=_int(s.losses[i]),
            **values,
        )

    rows: list[RankingScore] = []
    for method, result in variant.bootstrapped.items():
        s = result.scores
        position = _positions(s.score)
        rows.extend(
            row(
                method,
                s,
                i,
                position,
                score=_float(s.score[i]),
                ci_low=_float(result.ci_low[i]),
                ci_high=_float(result.ci_high[i]),
                cluster=int(result.clusters[i]),
                rank_best=int(result.rank_low[i]),
                rank_worst=int(result.rank_high[i]),
            )
            for i in range(s.systems.shape[0])
        )
    ts = variant.report.trueskill
    if ts is not None:
        # TrueSkill's results hold no counts: the pairwise ones are the win ratios'.
        counts = variant.report.win_ratio_better_or_equal
        position, rank = _positions(ts.mu), ts.rank
        rows.extend(
            row(
                RankingMethod.TRUESKILL,
                counts,
                i,
                position,
                score=_float(ts.mu[i]),
                sigma=_float(ts.sigma[i]),
                rank_best=int(rank[i]),
                rank_worst=int(rank[i]),
            )
            for i in range(ts.systems.shape[0])
        )
    return rows


def _worker_rows(campaign: Campaign, analysis: RankingAnalysis) -> list[RankingWorkerStat]:
    t = analysis.trust
    return [
        RankingWorkerStat(
            campaign=campaign,
            worker_id=int(t.workers[i]),
            n_judgments=int(analysis.n_judgments[i]),
            n_ballots=int(analysis.n_ballots[i]),
            gold_seen=int(t.gold_seen[i]),
            gold_correct=int(t.gold_correct[i]),
            accuracy=_float(t.accuracy[i]),
            status=str(t.status[i]),
            flagged=bool(analysis.flagged[i]),
            trust_override_gold_seen=None
            if analysis.override[i] < 0
            else int(analysis.override[i]),
            excluded=bool(analysis.excluded[i]),
            n_rejected_judgments=int(analysis.n_rejected[i]),
            in_scores=bool(analysis.in_scores[i]),
        )
        for i in range(t.workers.shape[0])
    ]


def _variant_details(variant: Variant) -> dict[str, Any]:
    report = variant.report
    rows = variant.rows
    return json_safe(
        {
            "n_judgments": int(np.count_nonzero(rows)),
            "n_workers_included": variant.n_workers_included,
            "n_comparisons": report.n_comparisons,
            "systems": report.systems,
            "agreement": {
                "intra": asdict(report.intra_included),
                "inter": asdict(report.inter_included.pairwise),
                "fleiss": asdict(report.inter_included.fleiss),
                "oracle": None if report.oracle is None else asdict(report.oracle),
            },
            "spearman": {method: asdict(rho) for method, rho in variant.spearman.items()},
            "p_greater": {method: b.p_greater for method, b in variant.bootstrapped.items()},
        }
    )


def _details(
    analysis: RankingAnalysis, references: References | None, reference_name: str = ""
) -> dict[str, Any]:
    config = analysis.config
    ts = analysis.variants[False].report.trueskill
    details = {
        trust_variant_key(include): _variant_details(variant)
        for include, variant in analysis.variants.items()
    }
    details["bootstrap"] = {
        "samples": config.bootstrap_samples,
        "level": config.level,
        "alpha": config.significance_alpha,
        "unit": config.bootstrap_unit,
        "seed": config.seed,
        "cluster_method": config.cluster_method,
    }
    details["trueskill"] = None if ts is None else json_safe(asdict(ts.settings))
    details["takedown"] = {
        "threshold": config.takedown_threshold,
        "min_workers": config.takedown_min_workers,
        "untrusted": analysis.n_untrusted,
        "decided": analysis.n_decided,
        "reason": analysis.takedown,
    }
    details["newly_untrusted"] = analysis.newly_untrusted.tolist()
    # The system the settings name as the reference and the ids left out of the scores (the
    # reference's, when it is left out), so the panel can say why it is not in the table.
    details["reference_system"] = {
        "name": reference_name,
        "excluded": list(config.exclude_systems),
    }
    # No references given: as References() (nothing read, no problems).
    details["references"] = {
        "reference_ranking": references is not None and references.reference_systems is not None,
        "oracle": references is not None and references.oracle is not None,
        "problems": [] if references is None else references.problems,
    }
    return details


def store_ranking_results(
    campaign: Campaign,
    loaded: LoadedRanking,
    analysis: RankingAnalysis,
    computed_at: datetime,
    *,
    references: References | None = None,
    compute_seconds: float = 0.0,
) -> tuple[RankingResult, bool]:
    """Replace the campaign's stored ranking results in one transaction; ``(result, stored)``.

    As for direct assessment: the result row is locked first, a store of data read before
    the stored result's is dropped (``stored`` False, the newer result returned), and two
    first-ever stores racing on the unique row retry once.
    """
    for attempt in (1, 2):
        try:
            return _store(campaign, loaded, analysis, computed_at, references, compute_seconds)
        except IntegrityError:
            if attempt == 2 or not RankingResult.objects.filter(campaign=campaign).exists():
                raise
    raise AssertionError("unreachable")


def _store(
    campaign: Campaign,
    loaded: LoadedRanking,
    analysis: RankingAnalysis,
    computed_at: datetime,
    references: References | None,
    compute_seconds: float,
) -> tuple[RankingResult, bool]:
    j = loaded.judgments
    trust = analysis.trust
    fields = {
        "computed_at": computed_at,
        "n_judgments": loaded.n_read,
        "n_scored_judgments": int(np.count_nonzero(analysis.variants[False].rows)),
        "n_rejected_judgments": loaded.n_rejected_read,
        "n_qualification_judgments": loaded.n_qualification,
        "n_workers": j.n_workers,
        "n_ballots": j.n_ballots,
        "n_sets": int(j.sets.shape[0]),
        "n_gold_units": int(trust.gold_seen.sum()),
        "n_trusted": int(np.count_nonzero(trust.trusted)),
        "n_untrusted": int(np.count_nonzero(trust.untrusted)),
        "n_undecided": int(np.count_nonzero(trust.undecided)),
        "gold_scheme": analysis.config.gold_scheme,
        "trust_min_gold": campaign.ranking_settings.trust_min_gold,
        "trust_min_accuracy": campaign.ranking_settings.trust_min_accuracy,
        "takedown_reason": analysis.takedown or "",
        "compute_seconds": compute_seconds,
        "details": _details(analysis, references, campaign.ranking_settings.reference_system),
    }
    with transaction.atomic():
        result = RankingResult.objects.select_for_update().filter(campaign=campaign).first()
        if result is not None and result.computed_at > computed_at:
            logger.info("Campaign %s already has newer ranking results; not storing", campaign.pk)
            return result, False
        RankingWorkerStat.objects.filter(campaign=campaign).delete()
        RankingScore.objects.filter(campaign=campaign).delete()
        RankingWorkerStat.objects.bulk_create(_worker_rows(campaign, analysis), batch_size=1000)
        RankingScore.objects.bulk_create(
            [
                row
                for include, variant in analysis.variants.items()
                for row in _score_rows(campaign, variant, include)
            ],
            batch_size=1000,
        )
        if result is None:
            result = RankingResult.objects.create(campaign=campaign, **fields)
        else:
            for name, value in fields.items():
                setattr(result, name, value)
            result.save()
    return result, True
