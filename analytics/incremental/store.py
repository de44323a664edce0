"""Storing an incremental recompute's results: what changed only.

A full recompute (``analytics.kinds.direct_assessment.actions.store_results``) deletes the
campaign's worker rows and inserts them all again; at 500 workers that is most of a store's
0.15-0.2 s of CPU, and an incremental run changes a few workers' rows (those who judged since,
and those whose recommendation moved with the reliable workers' median speed). Here the stored
worker rows are read (one query, inside the transaction, after the result row is locked), and
only the rows that differ are replaced (deleted and inserted: nothing refers to a
``WorkerStat``'s id) and those of workers no longer present deleted. What ends up stored is what
``store_results`` stores (tests/analytics/test_incremental.py compares every field), plus the
``as_of`` stamp in ``details``, written in the same statement.
"""

from __future__ import annotations

import logging
from datetime import datetime

import numpy as np
from django.db import IntegrityError, transaction

from analytics.actions.common import json_safe
from analytics.kinds.direct_assessment.actions import (
    CampaignAnalysis,
    _variant_details,
    store_scores_and_result,
)
from analytics.kinds.direct_assessment.loading import LoadSummary
from analytics.models import CampaignResult, WorkerStat, variant_key
from campaigns.models import Campaign

__all__ = ["store_changes"]

logger = logging.getLogger(__name__)

# WorkerStat's stored fields besides campaign and worker, in the order of _worker_values.
_FIELDS = (
    "n_judgments",
    "test",
    "p_value",
    "reliable",
    "reason",
    "n_pairs",
    "n_bad_ref_pairs",
    "n_repeat_pairs",
    "mean_seconds",
    "assumption_a_p",
    "assumption_a_holds",
    "excluded",
    "n_rejected_judgments",
    "recommendation",
    "recommendation_reason",
)


def _worker_values(summary: LoadSummary, analysis: CampaignAnalysis) -> dict[int, tuple]:
    """Per worker id, the values ``store_results`` stores (``_FIELDS`` order)."""
    excluded = np.isin(analysis.workers.workers, summary.excluded_workers)
    return {
        qc.worker: (
            qc.n_judgments,
            qc.test,
            qc.p_value,
            qc.reliable,
            qc.reason[:200],
            qc.n_pairs,
            qc.n_bad_ref_pairs,
            qc.n_repeat_pairs,
            qc.mean_seconds,
            qc.assumption_a_p,
            qc.assumption_a_holds,
            bool(excluded[i]),
            int(analysis.n_rejected_by_worker[i]),
            analysis.recommendations[i],
            analysis.reasons[i][:200],
        )
        for i, qc in enumerate(analysis.workers.records())
    }


def _result_fields(
    campaign: Campaign,
    summary: LoadSummary,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    compute_seconds: float,
    as_of: dict,
) -> dict:
    """The CampaignResult's fields as ``store_results`` sets them, with the stamp."""
    da = campaign.da_settings
    details = {
        variant_key(include): _variant_details(report)
        for include, report in analysis.reports.items()
    }
    details["as_of"] = as_of
    return {
        "computed_at": computed_at,
        "n_judgments": summary.n_read,
        "n_scored_judgments": summary.n_scored,
        "n_rejected_judgments": summary.n_rejected_read,
        "n_workers": int(analysis.workers.workers.shape[0]),
        "n_unmatched_controls": summary.n_unmatched_controls,
        "reliability_test": analysis.config.reliability_test,
        "reliability_alpha": da.reliability_alpha,
        "score_averaging": da.score_averaging,
        "significance_unit": da.significance_unit,
        "workers_counted": da.workers_counted,
        "min_score_sd": da.min_score_sd,
        "min_seconds_per_item": da.min_seconds_per_item,
        "assumption_a_share": json_safe(analysis.workers.assumption_a_share),
        "compute_seconds": compute_seconds,
        "details": details,
    }


def store_changes(
    campaign: Campaign,
    summary: LoadSummary,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    *,
    compute_seconds: float,
    as_of: dict,
) -> tuple[CampaignResult, int]:
    """Store the results, replacing only the worker rows that differ; returns the result and
    how many worker rows were written. Like ``store_results``: the result row is locked first
    and a store whose data was read before the stored result's is dropped; two first-ever
    stores racing on the unique row: the loser retries once."""
    for attempt in (1, 2):
        try:
            return _store(campaign, summary, analysis, computed_at, compute_seconds, as_of)
        except IntegrityError:
            if attempt == 2 or not CampaignResult.objects.filter(campaign=campaign).exists():
                raise
    raise AssertionError("unreachable")


def _store(
    campaign: Campaign,
    summary: LoadSummary,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    compute_seconds: float,
    as_of: dict,
) -> tuple[CampaignResult, int]:
    fields = _result_fields(campaign, summary, analysis, computed_at, compute_seconds, as_of)
    wanted = _worker_values(summary, analysis)
    with transaction.atomic():
        result = CampaignResult.objects.select_for_update().filter(campaign=campaign).first()
        if result is not None and result.computed_at > computed_at:
            logger.info("Campaign %s already has newer results; not storing", campaign.pk)
            return result, 0
        stored = {
            row[1]: (row[0], row[2:])
            for row in WorkerStat.objects.filter(campaign=campaign)
            .order_by()
            .values_list("id", "worker_id", *_FIELDS)
        }
        stale = [pk for worker, (pk, values) in stored.items() if wanted.get(worker) != values]
        fresh = [
            WorkerStat(
                campaign=campaign, worker_id=worker, **dict(zip(_FIELDS, values, strict=True))
            )
            for worker, values in wanted.items()
            if worker not in stored or stored[worker][1] != values
        ]
        if stale:
            WorkerStat.objects.filter(pk__in=stale).delete()
        if fresh:
            WorkerStat.objects.bulk_create(fresh, batch_size=1000)
        result = store_scores_and_result(campaign, analysis, result, fields)
    return result, len(fresh)
