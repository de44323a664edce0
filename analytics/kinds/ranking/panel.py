"""Ranking's results panel on a campaign's admin page: what it shows, read from the stored
results in a fixed number of queries (never computed on a page view).

:func:`ranking_results_context` is the template's context (``r``) of
``analytics/kinds/ranking/results_panel.html``: the status reason of an automatic pause
first; then progress, freshness, one table per scoring method (trusted workers, or everyone
with ``?include_untrusted=1``), agreement, and the trust table with its form.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from analytics.actions.common import AUTO_PAUSE_PREFIX
from analytics.models import (
    RankingMethod,
    RankingReference,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    TrustStatus,
)
from analytics.panels import Progress, number, workers_url
from analytics.progress import kind_progress
from campaigns.models import Campaign, CampaignStatus
from judgments.models import CampaignWorker, Judgment

__all__ = ["ranking_results_context"]

# Per method: the score's column label, its number format, and what the score means.
METHOD_DISPLAY = {
    RankingMethod.WIN_RATIO_GEQ: (
        "Win ratio",
        ".3f",
        "Share of its pairwise comparisons a system wins, ties counted as wins (000, WMT08).",
    ),
    RankingMethod.WIN_RATIO_GT: (
        "Win ratio",
        ".3f",
        "Share of its pairwise comparisons a system wins, ties not counted as wins (002).",
    ),
    RankingMethod.WIN_RATIO_WMT12: (
        "Win ratio",
        ".3f",
        "Wins / (wins + losses): ties left out of the comparisons (WMT12's official '> others').",
    ),
    RankingMethod.EXPECTED_WINS: (
        "Expected wins",
        ".3f",
        "Mean over the other systems of the share of decisive comparisons won (WMT13).",
    ),
    RankingMethod.BRADLEY_TERRY: (
        "θ",
        "+.3f",
        "Bradley-Terry log-strength, centred (ties as half a win each way).",
    ),
    RankingMethod.TRUESKILL: (
        "μ",
        "+.3f",
        "TrueSkill skill with WMT14's settings; σ is its uncertainty; ranked by μ.",
    ),
}
TRUST_ORDER = {TrustStatus.UNTRUSTED: 0, TrustStatus.UNDECIDED: 1, TrustStatus.TRUSTED: 2}
AGREEMENT_ROWS = (
    ("intra", "Intra-annotator (a worker's repeated sets)", "n"),
    ("inter", "Inter-annotator (pairs of workers on the same pair)", "n"),
    ("fleiss", "Fleiss' kappa (pairs judged by two or more workers)", "n_items"),
    ("oracle", "Against the oracle's declared orders", "n"),
)


def chosen_method(campaign: Campaign) -> str:
    """The score the campaign ranks its systems by (``RankingSettings.rank_by``; Expected
    Wins, its default, for a campaign whose kind just changed and has no settings yet)."""
    settings = getattr(campaign, "ranking_settings", None)
    return RankingMethod.EXPECTED_WINS if settings is None else settings.rank_by


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _ranking_score_row(score: RankingScore, spec: str) -> dict[str, Any]:
    if score.method == RankingMethod.TRUESKILL:
        interval = f"σ {number(score.sigma, '.3f')}"
    elif score.ci_low is None or score.ci_high is None:
        interval = "–"
    else:
        interval = f"{score.ci_low:{spec}} to {score.ci_high:{spec}}"
    return {
        "rank_range": score.rank_range,
        "system": score.system.name,
        "score": number(score.score, spec),
        "interval": interval,
        "cluster": "–" if score.cluster is None else score.cluster,
        "n": score.n,
        "wins": score.wins,
        "ties": score.ties,
        "losses": score.losses,
    }


def _method_tables(scores: list[RankingScore], variant: dict, rank_by: str) -> list[dict[str, Any]]:
    """One table per method, in their declared order; the campaign's chosen score (it ranks
    the systems) is marked."""
    by_method: dict[str, list[RankingScore]] = {}
    for score in scores:
        by_method.setdefault(score.method, []).append(score)
    tables = []
    for method in RankingMethod:
        label, spec, note = METHOD_DISPLAY[method]
        rho = variant.get("spearman", {}).get(method.value)
        tables.append(
            {
                "method": method.value,
                "title": method.label,
                "chosen": method == rank_by,
                "label": label,
                "note": note,
                "interval_label": "σ" if method == RankingMethod.TRUESKILL else "95% interval",
                "bootstrapped": method
                in (RankingMethod.EXPECTED_WINS, RankingMethod.BRADLEY_TERRY),
                "rows": [_ranking_score_row(score, spec) for score in by_method.get(method, [])],
                "spearman": None
                if rho is None
                else {
                    "rho": number(rho["rho"], "+.3f"),
                    "p_value": number(rho["p_value"], ".3g"),
                    "n_systems": rho["n_systems"],
                },
            }
        )
    return tables


def _reference_note(campaign: Campaign, result: RankingResult | None) -> str:
    """What the panel says about the reference system the settings name (empty: none)."""
    # A campaign whose kind just changed may have no ranking settings yet.
    settings = getattr(campaign, "ranking_settings", None)
    name = settings.reference_system if settings is not None else ""
    if not name:
        return ""
    if not settings.exclude_reference:
        return f"Reference system: {name}, scored like the systems (not left out)."
    stored = (result.details.get("reference_system") or {}) if result else {}
    if result is not None and stored.get("name") == name and not stored.get("excluded"):
        return f"Reference system: {name}; no system of that name has rankings yet."
    return (
        f"Reference system: {name}, left out of the table and of every other system's "
        "comparisons (as WMT's tables do)."
    )


def _agreement_rows(variant: dict) -> list[dict[str, Any]]:
    agreement = variant.get("agreement", {})
    rows = []
    for key, label, count in AGREEMENT_ROWS:
        figures = agreement.get(key)
        if figures is None:
            continue
        compared = figures.get(count, 0)
        rows.append(
            {
                "key": key,
                "label": label,
                "n": compared,
                "agreement": _percent(figures.get("pr_a")),
                # P(E) comes from every judgment's labels, so it exists without a single pair
                # compared; beside no agreement and no kappa it only reads as a finding.
                "chance": _percent(figures.get("pr_e")) if compared else "–",
                "kappa": number(figures.get("kappa"), ".3f"),
            }
        )
    return rows


def _trust_row(stat: RankingWorkerStat, excluded_now: set[int], untrusted_now: set[int]):
    overridden = stat.trust_override_gold_seen is not None and stat.status == TrustStatus.UNTRUSTED
    return {
        "id": stat.worker_id,
        "worker": stat.worker.external_id,
        "platform": stat.worker.get_platform_display(),
        # Direct links: the requester's note on whom the link was for, so that the
        # worker to exclude can be found (the pseudonymous id says nothing).
        "label": stat.worker.label,
        "n_ballots": stat.n_ballots,
        "gold_seen": stat.gold_seen,
        "gold_correct": stat.gold_correct,
        "accuracy": _percent(stat.accuracy),
        "status": stat.status,
        "status_label": "untrusted, trusted again by hand" if overridden else stat.status,
        "blocked": stat.worker_id in untrusted_now,
        "blocked_pending": (stat.worker_id in untrusted_now) != stat.flagged,
        "excluded": stat.worker_id in excluded_now,
        "excluded_pending": (stat.worker_id in excluded_now) != stat.excluded,
        "in_scores": stat.in_scores,
        "n_rejected": stat.n_rejected_judgments,
    }


def ranking_results_context(campaign: Campaign, include_untrusted: bool) -> dict[str, Any]:
    """What the ranking panel shows (nine queries whatever the campaign's size)."""
    result = RankingResult.objects.filter(campaign=campaign).first()
    ranked = Judgment.objects.filter(campaign=campaign, rank__isnull=False)
    n_ranked = ranked.count()
    excluded_now, untrusted_now = set(), set()
    for worker_id, excluded, untrusted in CampaignWorker.objects.filter(
        Q(excluded=True) | Q(untrusted=True), campaign=campaign
    ).values_list("worker_id", "excluded", "untrusted"):
        if excluded:
            excluded_now.add(worker_id)
        if untrusted:
            untrusted_now.add(worker_id)
    workers = sorted(
        (
            _trust_row(stat, excluded_now, untrusted_now)
            for stat in RankingWorkerStat.objects.filter(campaign=campaign).select_related("worker")
        ),
        key=lambda row: (TRUST_ORDER.get(row["status"], 3), row["worker"], row["id"]),
    )
    scores = list(
        RankingScore.objects.filter(campaign=campaign, include_untrusted=include_untrusted)
        .select_related("system")
        .order_by("method", "position")
    )
    reference = RankingReference.objects.filter(campaign=campaign).first()
    variant = result.variant(include_untrusted) if result else {}
    auto_paused = campaign.status == CampaignStatus.PAUSED and campaign.status_reason.startswith(
        AUTO_PAUSE_PREFIX
    )
    return {
        "campaign": campaign,
        "result": result,
        "auto_paused": auto_paused,
        # The kind's rule (Ranking.progress_rule: ranked sets), as the checklist and the
        # dashboard count.
        "progress": Progress.of(kind_progress(campaign)),
        "n_judgments_now": n_ranked,
        "pending": result is None
        or result.n_judgments != n_ranked
        or any(row["blocked_pending"] or row["excluded_pending"] for row in workers)
        or (reference is not None and reference.updated_at > result.computed_at),
        "include_untrusted": include_untrusted,
        "workers": workers,
        "counts": {
            status: sum(1 for row in workers if row["status"] == status) for status in TrustStatus
        },
        "methods": _method_tables(scores, variant, chosen_method(campaign)) if scores else [],
        "reference_system": _reference_note(campaign, result),
        "agreement": _agreement_rows(variant),
        "n_comparisons": variant.get("n_comparisons"),
        "n_workers_included": variant.get("n_workers_included"),
        "reference": reference,
        "bootstrap": result.details.get("bootstrap", {}) if result else {},
        "reference_problems": result.details.get("references", {}).get("problems", [])
        if result
        else [],
        "workers_url": workers_url(campaign),
    }
