"""Ranking's dashboard: the campaign's ranking score with its interval and rank range, the share of
each rank per system, and (``extra_plots``) agreement against the number of voters."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db.models import Count, Q

from analytics.dashboards.kinds.base import SCORES_TITLE, DashboardKind, rank_text, registry
from analytics.dashboards.options import PlotOptions
from analytics.models import RankingMethod, RankingScore, RankingWorkerStat
from analytics.plots import ForestPanel, ForestRow, ForestSeries, forest_figure, rank_share_figure
from campaigns.models import Campaign, SlotRole, TaskKind
from judgments.models import Judgment, held_back_from_scores


@registry.register
class RankingDashboard(DashboardKind):
    kind = TaskKind.RANKING.value
    label = "ranking"
    extra_plots = ("agreement-voters",)
    variant_label = "Include untrusted workers"
    methods = tuple(RankingMethod.choices)

    def default_method(self, campaign: Campaign) -> str:
        return campaign.ranking_settings.rank_by

    def _method(self, campaign: Campaign, options: PlotOptions) -> str:
        return options.method or self.default_method(campaign)

    def _who(self, options: PlotOptions) -> str:
        return "every worker" if options.include_all else "trusted workers only"

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        method = self._method(campaign, options)
        scores = list(
            RankingScore.objects.filter(
                campaign=campaign, include_untrusted=options.include_all, method=method
            )
            .order_by("position")
            .values_list(
                "system__name",
                "score",
                "ci_low",
                "ci_high",
                "sigma",
                "n",
                "cluster",
                "rank_best",
                "rank_worst",
            )
        )
        rows, estimate, low, high = [], [], [], []
        for name, score, ci_low, ci_high, sigma, n, cluster, best, worst in scores:
            rows.append(ForestRow(name, rank_text(best, worst), n, cluster))
            estimate.append(score)
            if ci_low is None and sigma is not None and score is not None:
                ci_low, ci_high = score - 2 * sigma, score + 2 * sigma
            low.append(ci_low)
            high.append(ci_high)
        interval = (
            "mu ± 2 sigma (TrueSkill's uncertainty)"
            if method == RankingMethod.TRUESKILL
            else "95% bootstrap interval over ranking sets"
        )
        whose = "The campaign's" if method == self.default_method(campaign) else "The chosen"
        return forest_figure(
            rows,
            [ForestPanel(RankingMethod(method).label, [ForestSeries("", estimate, low, high)])],
            title=self.title(SCORES_TITLE, campaign),
            note=f"{whose} "
            f"ranking score, {self._who(options)}; bars: {interval}; rank ranges from the "
            "bootstrap (WMT13), clusters separated by dashed lines.",
            n_label="comparisons",
        )

    def distributions_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        method = self._method(campaign, options)
        order = list(
            RankingScore.objects.filter(
                campaign=campaign, include_untrusted=options.include_all, method=method
            )
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        # The ranks the counted workers' scored ballots gave each system's outputs (one
        # grouped query): qualification tests, gold slots, held-back assignments and workers
        # out of the scores left out, as the scores leave them (every worker's variant still
        # leaves out the excluded ones).
        left_out = RankingWorkerStat.objects.filter(campaign=campaign).filter(
            Q(excluded=True) if options.include_all else Q(in_scores=False)
        )
        counts = list(
            Judgment.objects.filter(
                campaign=campaign,
                rank__isnull=False,
                slot__role=SlotRole.SYSTEM,
                slot__hit__is_qualification=False,
            )
            .exclude(held_back_from_scores("assignment__"))
            .exclude(worker_id__in=left_out.values("worker_id"))
            .order_by()
            .values_list("slot__output__system_id", "rank")
            .annotate(n=Count("id"))
        )
        n_ranks = max((rank for _, rank, _ in counts), default=0)
        at = {pk: i for i, (pk, _) in enumerate(order)}
        table = np.zeros((len(order), n_ranks), dtype=np.int64)
        for system, rank, n in counts:
            if system in at:
                table[at[system], rank - 1] += n
        return rank_share_figure(
            [name for _, name in order],
            table,
            title=self.title("Ranks given per system", campaign),
            note="Share of each system's ranked outputs given each rank (scored ballots, "
            f"{self._who(options)}); systems in the order of {RankingMethod(method).label}.",
        )
