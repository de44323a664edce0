"""Translation's dashboard: each imported system's corpus BLEU and chrF per test set (no
distributions: systems are scored on whole test sets)."""

from __future__ import annotations

from typing import Any

from analytics.dashboards.kinds.base import SCORES_TITLE, DashboardKind, registry
from analytics.dashboards.options import PlotOptions
from analytics.models import TranslationSystemScore, TranslationTestSet
from analytics.plots import ForestPanel, ForestRow, ForestSeries, forest_figure
from campaigns.models import Campaign, TaskKind


@registry.register
class TranslationDashboard(DashboardKind):
    kind = TaskKind.TRANSLATION.value
    label = "translation"
    # Systems are scored on whole test sets (corpus BLEU and chrF): nothing per segment.
    has_distributions = False

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        # Corpus scores of imported systems: no variant, no method (no switch on the page).
        scores = list(
            TranslationSystemScore.objects.filter(campaign=campaign)
            .order_by("position", "test_set")
            .values_list("system_id", "system__name", "test_set", "bleu", "chrf", "n_segments")
        )
        systems = list(dict.fromkeys((pk, name) for pk, name, *_ in scores))
        at = {pk: i for i, (pk, _) in enumerate(systems)}
        sets = [t for t in TranslationTestSet if any(s[2] == t.value for s in scores)]
        bleu = {t.value: [None] * len(systems) for t in sets}
        chrf = {t.value: [None] * len(systems) for t in sets}
        segments = [0] * len(systems)
        for pk, _, test_set, b, c, n in scores:
            bleu[test_set][at[pk]] = b
            chrf[test_set][at[pk]] = c
            segments[at[pk]] = max(segments[at[pk]], n)
        rows = [ForestRow(name, n=segments[i]) for i, (_, name) in enumerate(systems)]
        return forest_figure(
            rows,
            [
                ForestPanel("BLEU", [ForestSeries(t.label, bleu[t.value]) for t in sets]),
                ForestPanel("chrF", [ForestSeries(t.label, chrf[t.value]) for t in sets]),
            ],
            title=self.title(SCORES_TITLE, campaign),
            note="Corpus BLEU and chrF (sacrebleu) of each imported system on each test set; "
            "no interval is stored for these.",
            n_label="segments",
        )
