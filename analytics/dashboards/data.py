"""The plots every kind has, read with one query per table: progress over time and workers
per country; and the worker-reliability and agreement-against-voters plots of the kinds
that have them (direct assessment, ranking)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
from django.db.models import Count, Exists, Max, OuterRef, Q
from django.db.models.functions import TruncHour
from django_countries import countries

from analytics.dashboards.options import DEFAULT, PlotOptions
from analytics.dashboards.voters import agreement_by_voters
from analytics.kinds.ranking.actions import load_references
from analytics.kinds.ranking.loading import load_ranking_judgments
from analytics.models import CampaignResult, RankingWorkerStat, Recommendation, WorkerStat
from analytics.plots import countries_figure, progress_figure, reliability_figure, voters_figure
from analytics.progress import SETS, kind_progress, progress_rule
from analytics.stats.ranking.weights import peer_weights
from campaigns.models import Campaign, ReliabilityTest
from judgments.models import LIVE_ASSIGNMENT_STATUSES, Judgment, Worker

__all__ = [
    "agreement_voters_figure",
    "countries_data",
    "progress_data",
    "progress_plot",
    "reliability_plot",
    "workers_per_country_plot",
]


def progress_data(campaign: Campaign) -> tuple[list[Any], list[int]]:
    """The campaign's progress units (analytics.progress.progress_rule: judgments, or ranked
    sets for ranking) per hour (UTC), counted on the judgments the progress counts: regular
    HITs (of the rule's tasks), assignments holding a place. One grouped query; a ranking set
    is in at the hour of its last judgment (its rows, one per set and assignment, are
    binned here: a grouped query cannot group by an aggregate)."""
    rule = progress_rule(campaign)
    judgments = Judgment.objects.filter(
        campaign=campaign,
        assignment__hit__is_qualification=False,
        assignment__status__in=LIVE_ASSIGNMENT_STATUSES,
    )
    if rule.tasks is not None:
        judgments = judgments.filter(assignment__hit__task__in=rule.tasks)
    if rule.judged is not None:
        judgments = judgments.filter(rule.judged)
    if rule.unit == SETS:
        done = np.array(
            [
                at.replace(tzinfo=None)
                for at in judgments.order_by()
                .values_list("assignment_id", "slot__group")
                .annotate(at=Max("submitted_at"))
                .values_list("at", flat=True)
            ],
            dtype="datetime64[h]",
        )
        hours, counts = np.unique(done, return_counts=True)
        return [hour.astype(datetime) for hour in hours], [int(n) for n in counts]
    # Sorted here, not by the database: PostgreSQL cannot tell how few hours a million
    # judgments fall into, and for an ORDER BY it sorted every row (on disk) instead of
    # hashing them into their hours: 0.87 -> 0.60 s at a million judgments.
    rows = sorted(
        judgments.annotate(hour=TruncHour("submitted_at", tzinfo=UTC))
        .order_by()
        .values_list("hour")
        .annotate(n=Count("id"))
    )
    return [hour for hour, _ in rows], [n for _, n in rows]


def progress_plot(campaign: Campaign) -> Any:
    """Received against planned, both counted by the campaign's one progress rule (the
    results panel's and the checklist's numbers: analytics.progress.kind_progress)."""
    hours, counts = progress_data(campaign)
    progress = None if campaign.imported_from else kind_progress(campaign)
    return progress_figure(
        hours,
        counts,
        # A campaign of imported judgments has no plan: its HITs are the files' annotators.
        planned=(progress.units_needed or None) if progress else None,
        counted=progress.units_in if progress else None,
        unit=progress.unit_name if progress else "judgments",
        campaign=campaign.name,
    )


def countries_data(campaign: Campaign) -> tuple[list[str], list[int], int]:
    """Workers with a judgment in the campaign, per country (names in English) and how many
    have no country: one grouped query over workers (an EXISTS on the judgments' index)."""
    judged = Judgment.objects.filter(campaign=campaign, worker=OuterRef("pk"))
    rows = list(
        Worker.objects.filter(Exists(judged))
        .order_by()
        .values_list("country")
        .annotate(n=Count("id"))
    )
    unknown = sum(n for code, n in rows if not code)
    known = [(countries.name(code) or code, n) for code, n in rows if code]
    return [name for name, _ in known], [n for _, n in known], unknown


def workers_per_country_plot(campaign: Campaign) -> Any:
    names, counts, unknown = countries_data(campaign)
    return countries_figure(names, counts, unknown=unknown, campaign=campaign.name)


# How the recommendations are named in the legend, in its order (Recommendation's labels are
# sentences for the admin's table).
RECOMMENDATION_NAMES = {
    Recommendation.APPROVE.value: "Approve (reliable)",
    Recommendation.PAY.value: "Pay, leave out of scores",
    Recommendation.REJECT.value: "Consider rejecting",
    Recommendation.WAIT.value: "Wait (too few pairs)",
}


def reliability_plot(campaign: Campaign) -> Any:
    """001 2013 Figure 4 from the stored worker table (two queries)."""
    rows = list(
        WorkerStat.objects.filter(campaign=campaign)
        .order_by("worker_id")
        .values_list("mean_seconds", "p_value", "recommendation")
    )
    result = (
        CampaignResult.objects.filter(campaign=campaign)
        .values_list("reliability_test", "reliability_alpha", "min_seconds_per_item")
        .first()
    )
    # The settings the stored recommendations were computed with; before any, the campaign's.
    test, alpha, floor = result or (None, None, None)
    if test is None or alpha is None or floor is None:
        settings = campaign.da_settings
        test = test or settings.reliability_test
        alpha = settings.reliability_alpha if alpha is None else alpha
        floor = settings.min_seconds_per_item if floor is None else floor
    alpha, floor = float(alpha), float(floor)
    return reliability_figure(
        [seconds for seconds, _, _ in rows],
        [p for _, p, _ in rows],
        [RECOMMENDATION_NAMES.get(r, r) for _, _, r in rows],
        alpha=alpha,
        test=_test_label(test),
        group_order=tuple(RECOMMENDATION_NAMES.values()),
        campaign=campaign.name,
        speed_floor=floor,
    )


def _test_label(test: str) -> str:
    try:
        return str(ReliabilityTest(test).label)
    except ValueError:
        return test


def agreement_voters_figure(campaign: Campaign, options: PlotOptions = DEFAULT) -> Any:
    """000 Figure 1 from the campaign's ranking judgments (the ranking loader's five queries,
    the trust table's and the references'): the workers the scores count (trusted ones, or
    every worker but the excluded with ``options.include_all``), their scored ballots on
    system outputs, combined unweighted and weighted by agreement with the other workers
    (000's "weighted by non-experts").

    000's Figure 1 also draws the experts' agreement with each other as a line. The app
    stores no expert judgments: every ranking is a worker's (trusted, untrusted or gold-unit
    answers), and no field marks a worker as an expert, so that line cannot be drawn; the
    reference is the requester's oracle or a held-out worker instead."""
    loaded = load_ranking_judgments(campaign.pk)
    left_out = RankingWorkerStat.objects.filter(campaign=campaign).filter(
        Q(excluded=True) if options.include_all else Q(in_scores=False)
    )
    out_of_scores = np.array(sorted(left_out.values_list("worker_id", flat=True)), dtype=np.int64)
    j = loaded.judgments
    keep = loaded.scored & (j.system >= 0) & ~np.isin(j.worker, out_of_scores)
    j = j.select(keep)
    oracle = load_references(campaign).oracle
    title_campaign = f"{campaign.name} (ranking{', every worker' if options.include_all else ''})"
    if len(j) == 0:
        return voters_figure([], {}, against="", campaign=title_campaign)
    weightings = {
        "Unweighted (one vote each)": None,
        "Weighted by agreement with the other workers": peer_weights(j).weight,
    }
    curves = agreement_by_voters(j, weightings, oracle=oracle)
    if curves.against == "oracle":
        against = "the oracle"
        note = (
            f"Schulze-combined rankings of k workers per ranking set against the requester's "
            f"oracle, over the {curves.n_sets:,} sets with enough ballots; mean of "
            f"{curves.seeds} random choices of the k workers."
        )
    else:
        against = "a held-out worker"
        note = (
            "Schulze-combined rankings of k workers per ranking set against one more worker of "
            f"the same set, left out at random; over the {curves.n_sets:,} sets with at least "
            f"k + 1 ballots, mean of {curves.seeds} random choices. Declare an oracle on the "
            "campaign's page to compare with known system orders instead (002)."
        )
    return voters_figure(
        curves.voters,
        curves.curves,
        against=against,
        note=note,
        empty_message="Needs ranking sets ranked by at least two workers (trusted, scored "
        "ballots); none yet.",
        campaign=title_campaign,
    )
