"""Direct assessment's results panel on a campaign's admin page: what it shows, read from the
stored results in a fixed number of queries (never computed on a page view).

:func:`da_results_context` is the template's context (``r``) of
``analytics/kinds/direct_assessment/results_panel.html``: progress, the stored results' age,
the system table (reliable workers, or everyone with ``?include_unreliable=1``), the
significance marks and the worker table with its exclusion form.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q

from analytics.models import CampaignResult, SystemScore, WorkerStat
from analytics.panels import Progress, number, workers_url
from analytics.progress import campaign_progress
from campaigns.models import Campaign
from judgments.models import CampaignWorker, Judgment

__all__ = ["SIGNIFICANCE_UNIT_WORDS", "da_results_context", "scoring_text"]

SIGNIFICANCE_UNIT_WORDS = {
    "segments": "segment-mean z-scores",
    "judgments": "per-judgment z-scores",
}


def scoring_text(variant: dict[str, Any]) -> str:
    """How the stored table was scored and ranked, in words (from the stored variant)."""
    # Results stored before issue 12 carry no "averaging": they were flat means (the sweep
    # recomputes them, since their CampaignResult.score_averaging is "judgments").
    averaging = variant.get("averaging", "judgments")
    how = (
        "Ave z and Ave raw: the mean of each segment's judgments, then of the segment means "
        "(WMT's official scores)"
        if averaging == "segments"
        else "Mean z and mean raw score over all judgments (the 2014 paper's flat mean)"
    )
    return (
        f"{how}; rank ranges: 1 + the systems that significantly beat the system to n - the "
        "systems it significantly beats (WMT)."
    )


def _worker_row(stat: WorkerStat, excluded_now: set[int]) -> dict[str, Any]:
    excluded = stat.worker_id in excluded_now
    return {
        "id": stat.worker_id,
        "worker": stat.worker.external_id,
        "platform": stat.worker.get_platform_display(),
        # Direct links: the requester's note on whom the link was for, so that the
        # worker to exclude can be found (the pseudonymous id says nothing).
        "label": stat.worker.label,
        "n_judgments": stat.n_judgments,
        "p_value": number(stat.p_value, ".3g"),
        "test": stat.test,
        "n_pairs": stat.n_pairs,
        "mean_seconds": number(stat.mean_seconds, ".1f"),
        "reliable": stat.reliable,
        "reason": stat.reason,
        # The requester's current decision; the scores may still reflect the previous one.
        "excluded": excluded,
        "excluded_pending": excluded != stat.excluded,
        "n_rejected": stat.n_rejected_judgments,
        "recommendation": stat.recommendation,
        "recommendation_label": stat.get_recommendation_display(),
        "recommendation_reason": stat.recommendation_reason,
    }


def _system_row(score: SystemScore) -> dict[str, Any]:
    return {
        "system": score.system.name,
        "mean_score": number(score.mean_score, ".2f"),
        "mean_z": number(score.mean_z, "+.3f"),
        "n": score.n,
        "n_segments": score.n_segments,
        "cluster": score.cluster,
        "rank_range": score.rank_range,
    }


def _significance_matrix(result: CampaignResult, include_unreliable: bool, names: dict) -> dict:
    """The marks of the pairwise tests (row system beats column system), best first."""
    variant = result.variant(include_unreliable)
    systems = [names.get(pk, str(pk)) for pk in variant.get("systems", [])]
    marks = variant.get("marks", [])
    return {"systems": systems, "rows": list(zip(systems, marks, strict=True))}


def da_results_context(campaign: Campaign, include_unreliable: bool) -> dict[str, Any]:
    """What the results panel shows (seven queries whatever the campaign's size)."""
    result = CampaignResult.objects.filter(campaign=campaign).first()
    counts = Judgment.objects.filter(campaign=campaign).aggregate(
        scored=Count("pk", filter=Q(score__isnull=False)),
    )
    excluded_now = set(
        CampaignWorker.objects.filter(campaign=campaign, excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    workers = [
        _worker_row(stat, excluded_now)
        for stat in WorkerStat.objects.filter(campaign=campaign)
        .select_related("worker")
        .order_by("reliable", "worker__external_id", "worker_id")
    ]
    scores = list(
        SystemScore.objects.filter(campaign=campaign, include_unreliable=include_unreliable)
        .select_related("system")
        .order_by("position")
    )
    names = {score.system_id: score.system.name for score in scores}
    return {
        "result": result,
        "progress": Progress.of(campaign_progress(campaign)),
        "n_judgments_now": counts["scored"],
        "pending": result is None
        or result.n_judgments != counts["scored"]
        or any(row["excluded_pending"] for row in workers),
        "assumption_a": None
        if result is None or result.assumption_a_share is None
        else f"{result.assumption_a_share:.0%}",
        "include_unreliable": include_unreliable,
        "workers": workers,
        "n_reliable": sum(1 for row in workers if row["reliable"]),
        "systems": [_system_row(score) for score in scores],
        "significance": _significance_matrix(result, include_unreliable, names) if result else None,
        "scoring": scoring_text(result.variant(include_unreliable) if result else {}),
        "significance_unit": SIGNIFICANCE_UNIT_WORDS.get(
            (result.variant(include_unreliable) if result else {}).get(
                "significance_unit", "judgments"
            ),
            "z-scores",
        ),
        "workers_url": workers_url(campaign),
    }
