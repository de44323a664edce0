"""Post-editing's dashboard: mean and corpus HTER with their intervals, segment HTER
distributions."""

from __future__ import annotations

from typing import Any

from analytics.api.queries import segment_scores
from analytics.dashboards.kinds.base import (
    DISTRIBUTIONS_TITLE,
    SCORES_TITLE,
    DashboardKind,
    rank_text,
    registry,
)
from analytics.dashboards.options import PlotOptions
from analytics.models import PostEditingSystemScore
from analytics.plots import ForestPanel, ForestRow, ForestSeries, box_figure, forest_figure
from campaigns.models import Campaign, TaskKind


@registry.register
class PostEditingDashboard(DashboardKind):
    kind = TaskKind.POST_EDITING.value
    label = "post-editing"
    variant_label = "Include flagged editors"

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        scores = list(
            PostEditingSystemScore.objects.filter(
                campaign=campaign, include_flagged=options.include_all
            )
            .order_by("position")
            .values_list(
                "system__name",
                "mean",
                "mean_ci_low",
                "mean_ci_high",
                "corpus",
                "corpus_ci_low",
                "corpus_ci_high",
                "n_outputs",
                "cluster",
                "rank_best",
                "rank_worst",
            )
        )
        rows = [ForestRow(s[0], rank_text(s[9], s[10]), s[7], s[8]) for s in scores]
        mean = ForestSeries(
            "", [s[1] for s in scores], [s[2] for s in scores], [s[3] for s in scores]
        )
        corpus = ForestSeries(
            "", [s[4] for s in scores], [s[5] for s in scores], [s[6] for s in scores]
        )
        return forest_figure(
            rows,
            [
                ForestPanel("Mean segment HTER", [mean], lower_is_better=True),
                ForestPanel(
                    "Corpus HTER (edits / reference words)", [corpus], lower_is_better=True
                ),
            ],
            title=self.title(SCORES_TITLE, campaign),
            note="HTER against the best verified post-edit, "
            + (
                "every editor, flagged ones included"
                if options.include_all
                else "editors flagged for doing nothing or copying the reference left out"
            )
            + "; bars: 95% bootstrap interval over segments; "
            "rank ranges and clusters from paired Wilcoxon tests.",
            n_label="segments",
        )

    def distributions_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        order = list(
            PostEditingSystemScore.objects.filter(
                campaign=campaign, include_flagged=options.include_all
            )
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        table = segment_scores(campaign, include_all=options.include_all) if order else None
        values = [table.columns["hter"][table.system == pk] for pk, _ in order]
        return box_figure(
            [name for _, name in order],
            values,
            xlabel="Segment HTER (edits per reference word)",
            title=self.title(DISTRIBUTIONS_TITLE, campaign),
            note="One value per scored segment of the system ("
            + ("every editor" if options.include_all else "flagged editors left out")
            + ").",
            n_label="segments",
            lower_is_better=True,
        )
