"""Direct assessment's dashboard: Ave z with bootstrap intervals over segments, segment z
distributions, and (``extra_plots``) worker reliability against speed."""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.api.queries import segment_scores
from analytics.dashboards.intervals import bootstrap_mean_intervals
from analytics.dashboards.kinds.base import (
    DISTRIBUTIONS_TITLE,
    SCORES_TITLE,
    DashboardKind,
    rank_text,
    registry,
)
from analytics.dashboards.options import PlotOptions
from analytics.models import SystemScore
from analytics.plots import ForestPanel, ForestRow, ForestSeries, box_figure, forest_figure
from campaigns.models import Campaign, TaskKind


@registry.register
class DirectAssessmentDashboard(DashboardKind):
    kind = TaskKind.DIRECT_ASSESSMENT.value
    label = "direct assessment"
    extra_plots = ("worker-reliability",)
    variant_label = "Include unreliable workers"

    def _who(self, campaign: Campaign, options: PlotOptions) -> str:
        everyone = campaign.da_settings.workers_counted == "everyone"
        return "every worker" if everyone or options.include_all else "reliable workers only"

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        scores = list(
            SystemScore.objects.filter(campaign=campaign, include_unreliable=options.include_all)
            .order_by("position")
            .values_list(
                "system_id", "system__name", "mean_z", "n", "cluster", "rank_best", "rank_worst"
            )
        )
        low = high = np.zeros(0)
        if scores:
            # The segment means the stored Ave z averages (cached per stored result).
            table = segment_scores(campaign, include_all=options.include_all)
            flat = campaign.da_settings.score_averaging == "judgments"
            low, high = bootstrap_mean_intervals(
                table.system,
                table.columns.get("mean_z", np.zeros(len(table))),
                table.n if flat else None,
                systems=[row[0] for row in scores],
            )
        rows = [
            ForestRow(name, rank_text(best, worst), n, cluster)
            for _, name, _, n, cluster, best, worst in scores
        ]
        series = ForestSeries(
            "Ave z",
            [row[2] for row in scores],
            [None if np.isnan(v) else float(v) for v in low],
            [None if np.isnan(v) else float(v) for v in high],
        )
        averaging = (
            "judgments" if campaign.da_settings.score_averaging == "judgments" else "segment means"
        )
        return forest_figure(
            rows,
            [ForestPanel("Ave z (mean standardised score)", [series], zero_line=0.0)],
            title=self.title(SCORES_TITLE, campaign),
            note=f"Ave z over {averaging}, {self._who(campaign, options)}; bars: 95% bootstrap "
            "interval over segments (1,000 resamples); rank ranges and clusters (dashed lines) "
            "from one-sided Wilcoxon rank-sum tests, WMT's rule.",
            n_label="judgments",
        )

    def distributions_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        order = list(
            SystemScore.objects.filter(campaign=campaign, include_unreliable=options.include_all)
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        table = segment_scores(campaign, include_all=options.include_all) if order else None
        values = []
        for pk, _ in order:
            keep = table.system == pk
            values.append(table.columns["mean_z"][keep])
        return box_figure(
            [name for _, name in order],
            values,
            xlabel="Segment mean z (standardised score)",
            title=self.title(DISTRIBUTIONS_TITLE, campaign),
            note=f"One value per judged segment of the system ({self._who(campaign, options)}); "
            "n = segments.",
            n_label="segments",
        )
