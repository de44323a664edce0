"""Storing a post-editing campaign's results: the system HTER of both variants, the worker
profiles and the result row with the details that do not fit a row, in one transaction
(:func:`store_post_editing_results`, run by
``analytics.kinds.post_editing.actions.recompute_post_editing``)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import IntegrityError, transaction

from analytics.actions.common import json_safe
from analytics.models import (
    PostEditingResult,
    PostEditingSystemScore,
    PostEditingWorkerStat,
    flag_variant_key,
)
from campaigns.models import Campaign

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from analytics.kinds.post_editing.actions import PostEditingAnalysis, Variant
    from analytics.kinds.post_editing.loading import LoadedPostEditing

__all__ = ["store_post_editing_results", "system_positions"]

logger = logging.getLogger(__name__)


def _float(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def system_positions(mean: NDArray[np.float64], corpus: NDArray[np.float64]) -> NDArray[np.int64]:
    """Position of each system, 1 = lowest mean HTER (then lowest corpus HTER; NaN last; ties
    in id order, the order of the arrays)."""
    key_mean = np.where(np.isnan(mean), np.inf, mean)
    key_corpus = np.where(np.isnan(corpus), np.inf, corpus)
    order = np.lexsort((np.arange(mean.shape[0]), key_corpus, key_mean))
    positions = np.empty(order.shape[0], dtype=np.int64)
    positions[order] = np.arange(1, order.shape[0] + 1)
    return positions


def _system_rows(campaign: Campaign, variant: Variant, include: bool):
    s = variant.systems
    if s is None:
        return []
    position = system_positions(s.mean, s.corpus)
    # Outputs scored against the reference, per system (the table's systems are sorted ids).
    seg = variant.segments
    from_reference = np.bincount(
        np.searchsorted(s.systems, seg.system[seg.chosen < 0]), minlength=s.systems.shape[0]
    )
    counts = variant.per_system
    return [
        PostEditingSystemScore(
            campaign=campaign,
            system_id=int(s.systems[i]),
            include_flagged=include,
            position=int(position[i]),
            n_outputs=int(s.n_segments[i]),
            n_from_reference=int(from_reference[i]),
            n_edits=int(counts["n_edits"][i]),
            n_passed=int(counts["n_passed"][i]),
            n_verified=int(counts["n_verified"][i]),
            edits=int(s.edits[i]),
            ref_length=float(s.ref_length[i]),
            corpus=float(s.corpus[i]),
            corpus_ci_low=_float(s.corpus_ci_low[i]),
            corpus_ci_high=_float(s.corpus_ci_high[i]),
            mean=float(s.mean[i]),
            mean_ci_low=_float(s.mean_ci_low[i]),
            mean_ci_high=_float(s.mean_ci_high[i]),
            cluster=int(s.clusters[i]),
            rank_best=int(s.rank_best[i]),
            rank_worst=int(s.rank_worst[i]),
        )
        for i in range(s.systems.shape[0])
    ]


def _worker_rows(campaign: Campaign, analysis: PostEditingAnalysis) -> list:
    w = analysis.worker
    optional = ("n_gold_segments", "gold_distance", "weight")

    def value(name: str, i: int) -> Any:
        if name not in w:
            return 0 if name == "n_gold_segments" else None
        return int(w[name][i]) if name == "n_gold_segments" else _float(w[name][i])

    return [
        PostEditingWorkerStat(
            campaign=campaign,
            worker_id=int(worker),
            n_edits=int(w["n_edits"][i]),
            n_votes=int(w["n_votes"][i]),
            mean_ter_to_mt=_float(w["mean_ter_to_mt"][i]),
            mean_ter_to_reference=_float(w["mean_ter_to_reference"][i]),
            share_unchanged=_float(w["share_unchanged"][i]),
            share_copied=_float(w["share_copied"][i]),
            did_nothing=bool(w["did_nothing"][i]),
            copied_reference=bool(w["copied_reference"][i]),
            n_passed=int(w["n_passed"][i]),
            n_failed=int(w["n_failed"][i]),
            n_unverified=int(w["n_unverified"][i]),
            gold=bool(w["gold"][i]),
            excluded=bool(w["excluded"][i]),
            n_rejected_judgments=int(w["n_rejected"][i]),
            in_scores=bool(w["in_scores"][i]),
            **{name: value(name, i) for name in optional},
        )
        for i, worker in enumerate(analysis.workers.tolist())
    ]


def _subsampling(variant: Variant) -> dict[str, Any] | None:
    t = variant.subsampling
    if t is None:
        return None
    return {
        "systems": t.systems,
        "editors": t.editors,
        "corpus": t.corpus,
        "mean": t.mean,
        "n_subsets": t.n_subsets,
        "exact": t.exact,
    }


def _variant_details(loaded: LoadedPostEditing, analysis, variant: Variant) -> dict[str, Any]:
    s = variant.systems
    rows = variant.rows
    passed, failed, unverified = analysis.outcome_counts(rows)
    return json_safe(
        {
            "n_edits": int(np.count_nonzero(rows)),
            "n_workers_included": int(np.unique(loaded.edit_worker[rows]).shape[0]),
            "n_outputs": len(variant.segments),
            "verification": {"passed": passed, "failed": failed, "unverified": unverified},
            "systems": [] if s is None else s.systems,
            "p_better": [] if s is None else s.p_better,
            "segments": variant.extremes,
            "subsampling": _subsampling(variant),
            "combinations": variant.combinations,
        }
    )


def _details(loaded: LoadedPostEditing, analysis: PostEditingAnalysis) -> dict[str, Any]:
    config = analysis.config
    details = {
        flag_variant_key(include): _variant_details(loaded, analysis, variant)
        for include, variant in analysis.variants.items()
    }
    details["bootstrap"] = {
        "samples": config.n_samples,
        "level": config.level,
        "alpha": config.alpha,
        "seed": config.seed,
        "unit": "segments",
        "test": "wilcoxon",
        "order_by": "mean",
    }
    details["flagged_workers"] = analysis.flagged_workers.tolist()
    details["n_unscored_edits"] = int(np.count_nonzero(~loaded.scored))
    return details


def store_post_editing_results(
    campaign: Campaign,
    loaded: LoadedPostEditing | None,
    analysis: PostEditingAnalysis | None,
    computed_at: datetime,
    *,
    compute_seconds: float = 0.0,
) -> tuple[PostEditingResult | None, bool]:
    """Replace the campaign's stored results in one transaction; ``(result, stored)``. With
    ``analysis`` None (nothing to compute) the stored results are removed.

    As the other kinds: the result row is locked first, a store of data read before the
    stored result's is dropped (``stored`` False, the newer result returned), and two
    first-ever stores racing on the unique row retry once.
    """
    for attempt in (1, 2):
        try:
            return _store(campaign, loaded, analysis, computed_at, compute_seconds)
        except IntegrityError:
            if attempt == 2 or not PostEditingResult.objects.filter(campaign=campaign).exists():
                raise
    raise AssertionError("unreachable")


def _store(campaign, loaded, analysis, computed_at, compute_seconds):
    with transaction.atomic():
        result = PostEditingResult.objects.select_for_update().filter(campaign=campaign).first()
        if result is not None and result.computed_at > computed_at:
            logger.info("Campaign %s already has newer post-editing results", campaign.pk)
            return result, False
        PostEditingWorkerStat.objects.filter(campaign=campaign).delete()
        PostEditingSystemScore.objects.filter(campaign=campaign).delete()
        if analysis is None:
            PostEditingResult.objects.filter(campaign=campaign).delete()
            return None, True
        config = analysis.config
        crowd = loaded.crowd
        default = analysis.variants[False]
        passed, failed, unverified = analysis.outcome_counts(crowd)
        n_votes_counted = int(np.count_nonzero(loaded.counted_votes))
        fields = {
            "computed_at": computed_at,
            "n_judgments": loaded.n_read,
            "n_scored_judgments": int(np.count_nonzero(default.rows)) + n_votes_counted,
            "n_rejected_judgments": loaded.n_rejected_read,
            "n_workers": int(analysis.workers.shape[0]),
            "n_edits": loaded.n_edits,
            "n_votes": loaded.n_votes,
            "n_gold_edits": int(np.count_nonzero(loaded.gold)),
            "n_outputs": len(default.segments),
            "n_passed": passed,
            "n_failed": failed,
            "n_unverified": unverified,
            "ter_signature": config.signature,
            "ter_case_sensitive": config.ter_case_sensitive,
            "ter_normalized": config.ter_normalized,
            "gold_editor": config.gold_editor,
            "compute_seconds": compute_seconds,
            "details": _details(loaded, analysis),
        }
        PostEditingWorkerStat.objects.bulk_create(_worker_rows(campaign, analysis), batch_size=1000)
        PostEditingSystemScore.objects.bulk_create(
            [
                row
                for include, variant in analysis.variants.items()
                for row in _system_rows(campaign, variant, include)
            ],
            batch_size=1000,
        )
        if result is None:
            result = PostEditingResult.objects.create(campaign=campaign, **fields)
        else:
            for name, value in fields.items():
                setattr(result, name, value)
            result.save()
    return result, True
