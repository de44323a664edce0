"""Post-editing's results panel on a campaign's admin page: what it shows, read from the stored
results in a fixed number of queries (never computed on a page view).

:func:`post_editing_results_context` is the template's context (``r``) of
``analytics/kinds/post_editing/results_panel.html``: progress and freshness (and, after a
change of the TER settings, that the results are being recomputed), the system table (corpus
and mean HTER with intervals, rank range, cluster, edits, verified share), the verification
outcomes, the worst and best segments, 000's subsampling table, 003's combinations when gold
edits exist, and the worker profiles with the did-nothing and copied-the-reference flags and
the exclude / re-admit form.
"""

from __future__ import annotations

from typing import Any

from analytics.kinds.post_editing.loading import judged
from analytics.kinds.post_editing.scoring import ter_signature_for
from analytics.models import (
    PostEditingResult,
    PostEditingSystemScore,
    PostEditingWorkerStat,
    PostEditScore,
    flag_variant_key,
)
from analytics.panels import Progress, number, workers_url
from analytics.progress import kind_progress
from campaigns.models import Campaign, Segment, System
from judgments.models import CampaignWorker, Judgment

__all__ = ["COMBINATION_LABELS", "post_editing_results_context"]

COMBINATION_LABELS = {
    "minimum": "Minimum of the editors' edit rates",
    "median": "Median",
    "mean": "Mean",
    "weighted": "Weighted mean (worker weights from the gold edits)",
    "ter": "TER of the MT output against the reference (baseline)",
}


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"{low:.3f} to {high:.3f}"


def _system_row(score: PostEditingSystemScore) -> dict[str, Any]:
    return {
        "rank_range": score.rank_range,
        "system": score.system.name,
        "corpus": f"{score.corpus:.3f}",
        "corpus_interval": _interval(score.corpus_ci_low, score.corpus_ci_high),
        "mean": f"{score.mean:.3f}",
        "mean_interval": _interval(score.mean_ci_low, score.mean_ci_high),
        "cluster": score.cluster,
        "n_outputs": score.n_outputs,
        "n_from_reference": score.n_from_reference,
        "n_edits": score.n_edits,
        "n_passed": score.n_passed,
        "verified_share": _percent(score.verified_share),
    }


def _worker_row(stat: PostEditingWorkerStat, excluded_now: set[int]) -> dict[str, Any]:
    flags = [
        label
        for flagged, label in (
            (stat.did_nothing, "did nothing"),
            (stat.copied_reference, "copied the reference"),
        )
        if flagged
    ]
    return {
        "id": stat.worker_id,
        "worker": stat.worker.external_id,
        "platform": stat.worker.get_platform_display(),
        # Direct links: the requester's note on whom the link was for, so that the
        # worker to exclude can be found (the pseudonymous id says nothing).
        "label": stat.worker.label,
        "n_edits": stat.n_edits,
        "n_votes": stat.n_votes,
        "to_mt": number(stat.mean_ter_to_mt, ".3f"),
        "to_reference": number(stat.mean_ter_to_reference, ".3f"),
        "unchanged": _percent(stat.share_unchanged),
        "copied": _percent(stat.share_copied),
        "did_nothing": stat.did_nothing,
        "copied_reference": stat.copied_reference,
        "flags": ", ".join(flags),
        "outcomes": f"{stat.n_passed} / {stat.n_failed} / {stat.n_unverified}",
        "weight": number(stat.weight, ".2f"),
        "gold": stat.gold,
        "excluded": stat.worker_id in excluded_now,
        "excluded_pending": (stat.worker_id in excluded_now) != stat.excluded,
        "in_scores": stat.in_scores,
        "n_rejected": stat.n_rejected_judgments,
    }


def _segment_rows(rows: list[dict], segments: dict, names: dict) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        document, segment = segments.get(row["segment"], ("", ""))
        out.append(
            {
                "system": names.get(row["system"], ""),
                "document": document,
                "segment": segment,
                "hter": number(row["hter"], ".3f"),
                "edits": row["edits"],
                "ref_length": number(row["ref_length"], "g"),
                "n_edits": row["n_edits"],
                "n_passed": row["n_passed"],
                "from_reference": row["from_reference"],
            }
        )
    return out


def _subsampling(table: dict | None, names: dict) -> dict[str, Any] | None:
    if not table:
        return None
    return {
        "editors": table["editors"],
        "exact": all(table["exact"]),
        "n_subsets": table["n_subsets"],
        "rows": [
            {
                "system": names.get(system, ""),
                "corpus": [number(v, ".3f") for v in table["corpus"][i]],
                "mean": [number(v, ".3f") for v in table["mean"][i]],
            }
            for i, system in enumerate(table["systems"])
        ],
    }


def _combinations(stored: dict | None) -> dict[str, Any] | None:
    if not stored:
        return None
    return {
        "n_outputs": stored["n_outputs"],
        "n_documents": stored["n_documents"],
        "gold_mean": number(stored["gold_mean"], ".3f"),
        # In the order of COMBINATION_LABELS (a JSON object's keys come back in any order).
        "rows": [
            {
                "method": name,
                "label": label,
                "mean": number(stored["methods"][name]["mean"], ".3f"),
                "rho": number(stored["methods"][name]["rho"], "+.3f"),
                "p_value": number(stored["methods"][name]["p_value"], ".3g"),
            }
            for name, label in COMBINATION_LABELS.items()
            if name in stored["methods"]
        ],
    }


def post_editing_results_context(campaign: Campaign, include_flagged: bool) -> dict[str, Any]:
    """What the post-editing panel shows (twelve queries whatever the campaign's size, the
    settings row included)."""
    result = PostEditingResult.objects.filter(campaign=campaign).first()
    signature = ter_signature_for(campaign)
    # The kind's rule (PostEditing.progress_rule), as the checklist and the dashboard count.
    progress = kind_progress(campaign)
    n_now = Judgment.objects.filter(judged(), campaign=campaign).count()
    n_scored_now = PostEditScore.objects.filter(campaign=campaign, signature=signature).count()
    excluded_now = set(
        CampaignWorker.objects.filter(campaign=campaign, excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    stats = PostEditingWorkerStat.objects.filter(campaign=campaign).select_related("worker")
    workers = sorted(
        (_worker_row(stat, excluded_now) for stat in stats),
        key=lambda row: (not (row["did_nothing"] or row["copied_reference"]), row["worker"]),
    )
    scores = list(
        PostEditingSystemScore.objects.filter(campaign=campaign, include_flagged=include_flagged)
        .select_related("system")
        .order_by("position")
    )
    names = dict(System.objects.filter(campaign=campaign).values_list("id", "name"))
    variant = result.variant(include_flagged) if result else {}
    extremes = variant.get("segments") or {}
    segment_ids = {row["segment"] for rows in extremes.values() for row in rows}
    segments = {
        pk: (document, external_id)
        for pk, document, external_id in Segment.objects.filter(pk__in=segment_ids).values_list(
            "pk", "document__external_id", "external_id"
        )
    }
    signature_changed = result is not None and result.ter_signature != signature
    return {
        "campaign": campaign,
        "result": result,
        "variant_key": flag_variant_key(include_flagged),
        "include_flagged": include_flagged,
        "progress": Progress.of(progress),
        "n_judgments_now": n_now,
        "signature": signature,
        "signature_changed": signature_changed,
        "n_edits_now": n_scored_now if signature_changed else None,
        "pending": result is None
        or result.n_judgments != n_now
        or signature_changed
        or any(row["excluded_pending"] for row in workers),
        "systems": [_system_row(score) for score in scores],
        "verification": variant.get("verification"),
        "worst": _segment_rows(extremes.get("worst", []), segments, names),
        "best": _segment_rows(extremes.get("best", []), segments, names),
        "subsampling": _subsampling(variant.get("subsampling"), names),
        "combinations": _combinations(variant.get("combinations")),
        "n_workers_included": variant.get("n_workers_included"),
        "n_edits_included": variant.get("n_edits"),
        "bootstrap": result.details.get("bootstrap", {}) if result else {},
        "workers": workers,
        "n_flagged": sum(1 for row in workers if row["did_nothing"] or row["copied_reference"]),
        "workers_url": workers_url(campaign),
    }
