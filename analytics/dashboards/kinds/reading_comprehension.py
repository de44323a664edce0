"""Reading comprehension's dashboard: share of questions answered correctly with its interval (the
human translation as the control), per-article shares."""

from __future__ import annotations

from typing import Any

from analytics.dashboards.kinds.base import (
    DISTRIBUTIONS_TITLE,
    SCORES_TITLE,
    DashboardKind,
    rank_text,
    registry,
)
from analytics.dashboards.options import PlotOptions
from analytics.models import (
    REFERENCE_LABEL,
    ReadingComprehensionBreakdown,
    ReadingComprehensionSystemScore,
)
from analytics.plots import ForestPanel, ForestRow, ForestSeries, box_figure, forest_figure
from campaigns.models import Campaign, TaskKind


@registry.register
class ReadingComprehensionDashboard(DashboardKind):
    kind = TaskKind.READING_COMPREHENSION.value
    label = "reading comprehension"
    variant_label = "Leave out suspect questions"

    def _scores(self, campaign: Campaign, options: PlotOptions) -> list[tuple]:
        return list(
            ReadingComprehensionSystemScore.objects.filter(
                campaign=campaign, without_suspect=options.include_all
            )
            .order_by("position")
            .values_list(
                "system_id",
                "system__name",
                "share",
                "share_ci_low",
                "share_ci_high",
                "n_answers",
                "cluster",
                "rank_best",
                "rank_worst",
            )
        )

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        scores = self._scores(campaign, options)

        def percent(value: float | None) -> float | None:
            return None if value is None else 100 * value

        rows = [
            ForestRow(s[1] or REFERENCE_LABEL, rank_text(s[7], s[8]), s[5], s[6]) for s in scores
        ]
        series = ForestSeries(
            "",
            [percent(s[2]) for s in scores],
            [percent(s[3]) for s in scores],
            [percent(s[4]) for s in scores],
        )
        return forest_figure(
            rows,
            [ForestPanel("Questions answered correctly (%)", [series], limits=(0, 100))],
            title=self.title(SCORES_TITLE, campaign),
            note="Share of graded answers judged correct (000 Table 3), "
            + ("suspect questions left out" if options.include_all else "every question")
            + "; the "
            "human translation is the control. Bars: 95% bootstrap interval over articles.",
            n_label="answers",
        )

    def distributions_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        scores = self._scores(campaign, options)
        rows = list(
            ReadingComprehensionBreakdown.objects.filter(
                campaign=campaign,
                question__isnull=True,
                without_suspect=options.include_all,
                n_answers__gt=0,
            )
            .order_by()
            .values_list("system_id", "correct", "n_answers")
        )
        by_system: dict[int | None, list[float]] = {}
        for system, correct, n in rows:
            by_system.setdefault(system, []).append(100 * correct / n)
        return box_figure(
            [s[1] or REFERENCE_LABEL for s in scores],
            [by_system.get(s[0], []) for s in scores],
            xlabel="Questions answered correctly per article (%)",
            title=self.title(DISTRIBUTIONS_TITLE, campaign),
            note="One value per article the system's translation was read in.",
            n_label="articles",
            limits=(0, 100),
        )
