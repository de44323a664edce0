"""What each task kind plots: its system scores (the forest plot), its score distributions
and its own plots, read from the stored results with one query per table.

A registry keyed by the campaign's kind, as ``analytics.kinds`` is: the dashboards' shared
code (``analytics.dashboards.catalogue``) asks ``DASHBOARD_KINDS.get(campaign.kind)`` and
never compares the kind with a particular one. Figures are drawn by the pure functions of
``analytics.plots``; this module only reads rows into their arguments.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from django.db.models import Count

from analytics.api.queries import segment_scores
from analytics.dashboards.intervals import bootstrap_mean_intervals
from analytics.models import (
    REFERENCE_LABEL,
    PostEditingSystemScore,
    RankingMethod,
    RankingScore,
    RankingWorkerStat,
    ReadingComprehensionBreakdown,
    ReadingComprehensionSystemScore,
    SystemScore,
    TranslationSystemScore,
    TranslationTestSet,
)
from analytics.plots import (
    ForestPanel,
    ForestRow,
    ForestSeries,
    box_figure,
    forest_figure,
    rank_share_figure,
)
from campaigns.models import Campaign, SlotRole, TaskKind
from judgments.models import Judgment, held_back_from_scores

__all__ = ["DASHBOARD_KINDS", "DashboardKind"]

SCORES_TITLE = "System scores"
DISTRIBUTIONS_TITLE = "Score distributions per system"


def _rank(best: int, worst: int) -> str:
    return str(best) if best == worst else f"{best}–{worst}"


class DashboardKind:
    """A kind's plots. Override what applies; ``extra_plots`` names plots of the catalogue
    only this kind has."""

    kind: ClassVar[str]
    label: ClassVar[str]
    has_distributions: ClassVar[bool] = True
    extra_plots: ClassVar[tuple[str, ...]] = ()

    def scores_figure(self, campaign: Campaign) -> Any:
        raise NotImplementedError

    def distributions_figure(self, campaign: Campaign) -> Any:
        raise NotImplementedError

    def title(self, what: str, campaign: Campaign) -> str:
        return f"{what}: {campaign.name} ({self.label})"


class DirectAssessmentDashboard(DashboardKind):
    kind = TaskKind.DIRECT_ASSESSMENT.value
    label = "direct assessment"
    extra_plots = ("worker-reliability",)

    def _who(self, campaign: Campaign) -> str:
        everyone = campaign.da_settings.workers_counted == "everyone"
        return "every worker" if everyone else "reliable workers only"

    def scores_figure(self, campaign: Campaign) -> Any:
        scores = list(
            SystemScore.objects.filter(campaign=campaign, include_unreliable=False)
            .order_by("position")
            .values_list(
                "system_id", "system__name", "mean_z", "n", "cluster", "rank_best", "rank_worst"
            )
        )
        low = high = np.zeros(0)
        if scores:
            # The segment means the stored Ave z averages (cached per stored result).
            table = segment_scores(campaign, include_all=False)
            flat = campaign.da_settings.score_averaging == "judgments"
            low, high = bootstrap_mean_intervals(
                table.system,
                table.columns.get("mean_z", np.zeros(len(table))),
                table.n if flat else None,
                systems=[row[0] for row in scores],
            )
        rows = [
            ForestRow(name, _rank(best, worst), n, cluster)
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
            note=f"Ave z over {averaging}, {self._who(campaign)}; bars: 95% bootstrap "
            "interval over segments (1,000 resamples); rank ranges and clusters (dashed lines) "
            "from one-sided Wilcoxon rank-sum tests, WMT's rule.",
            n_label="judgments",
        )

    def distributions_figure(self, campaign: Campaign) -> Any:
        order = list(
            SystemScore.objects.filter(campaign=campaign, include_unreliable=False)
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        table = segment_scores(campaign, include_all=False) if order else None
        values = []
        for pk, _ in order:
            keep = table.system == pk
            values.append(table.columns["mean_z"][keep])
        return box_figure(
            [name for _, name in order],
            values,
            xlabel="Segment mean z (standardised score)",
            title=self.title(DISTRIBUTIONS_TITLE, campaign),
            note=f"One value per judged segment of the system ({self._who(campaign)}); "
            "n = segments.",
            n_label="segments",
        )


class RankingDashboard(DashboardKind):
    kind = TaskKind.RANKING.value
    label = "ranking"
    extra_plots = ("agreement-voters",)

    def scores_figure(self, campaign: Campaign) -> Any:
        method = campaign.ranking_settings.rank_by
        scores = list(
            RankingScore.objects.filter(campaign=campaign, include_untrusted=False, method=method)
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
            rows.append(ForestRow(name, _rank(best, worst), n, cluster))
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
        return forest_figure(
            rows,
            [ForestPanel(RankingMethod(method).label, [ForestSeries("", estimate, low, high)])],
            title=self.title(SCORES_TITLE, campaign),
            note=f"The campaign's ranking score, trusted workers only; bars: {interval}; rank "
            "ranges from the bootstrap (WMT13), clusters separated by dashed lines.",
            n_label="comparisons",
        )

    def distributions_figure(self, campaign: Campaign) -> Any:
        method = campaign.ranking_settings.rank_by
        order = list(
            RankingScore.objects.filter(campaign=campaign, include_untrusted=False, method=method)
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        # The ranks the trusted workers' scored ballots gave each system's outputs (one
        # grouped query): qualification tests, gold slots, held-back assignments and workers
        # out of the scores left out, as the scores leave them.
        left_out = RankingWorkerStat.objects.filter(campaign=campaign, in_scores=False)
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
            note="Share of each system's ranked outputs given each rank (trusted workers' "
            f"scored ballots); systems in the order of {RankingMethod(method).label}.",
        )


class PostEditingDashboard(DashboardKind):
    kind = TaskKind.POST_EDITING.value
    label = "post-editing"

    def scores_figure(self, campaign: Campaign) -> Any:
        scores = list(
            PostEditingSystemScore.objects.filter(campaign=campaign, include_flagged=False)
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
        rows = [ForestRow(s[0], _rank(s[9], s[10]), s[7], s[8]) for s in scores]
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
            note="HTER against the best verified post-edit, editors flagged for doing nothing "
            "or copying the reference left out; bars: 95% bootstrap interval over segments; "
            "rank ranges and clusters from paired Wilcoxon tests.",
            n_label="segments",
        )

    def distributions_figure(self, campaign: Campaign) -> Any:
        order = list(
            PostEditingSystemScore.objects.filter(campaign=campaign, include_flagged=False)
            .order_by("position")
            .values_list("system_id", "system__name")
        )
        table = segment_scores(campaign, include_all=False) if order else None
        values = [table.columns["hter"][table.system == pk] for pk, _ in order]
        return box_figure(
            [name for _, name in order],
            values,
            xlabel="Segment HTER (edits per reference word)",
            title=self.title(DISTRIBUTIONS_TITLE, campaign),
            note="One value per scored segment of the system (flagged editors left out).",
            n_label="segments",
            lower_is_better=True,
        )


class ReadingComprehensionDashboard(DashboardKind):
    kind = TaskKind.READING_COMPREHENSION.value
    label = "reading comprehension"

    def _scores(self, campaign: Campaign) -> list[tuple]:
        return list(
            ReadingComprehensionSystemScore.objects.filter(campaign=campaign, without_suspect=False)
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

    def scores_figure(self, campaign: Campaign) -> Any:
        scores = self._scores(campaign)

        def percent(value: float | None) -> float | None:
            return None if value is None else 100 * value

        rows = [ForestRow(s[1] or REFERENCE_LABEL, _rank(s[7], s[8]), s[5], s[6]) for s in scores]
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
            note="Share of graded answers judged correct (000 Table 3), every question; the "
            "human translation is the control. Bars: 95% bootstrap interval over articles.",
            n_label="answers",
        )

    def distributions_figure(self, campaign: Campaign) -> Any:
        scores = self._scores(campaign)
        rows = list(
            ReadingComprehensionBreakdown.objects.filter(
                campaign=campaign, question__isnull=True, without_suspect=False, n_answers__gt=0
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


class TranslationDashboard(DashboardKind):
    kind = TaskKind.TRANSLATION.value
    label = "translation"
    # Systems are scored on whole test sets (corpus BLEU and chrF): nothing per segment.
    has_distributions = False

    def scores_figure(self, campaign: Campaign) -> Any:
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


DASHBOARD_KINDS: dict[str, DashboardKind] = {
    implementation.kind: implementation
    for implementation in (
        DirectAssessmentDashboard(),
        RankingDashboard(),
        PostEditingDashboard(),
        ReadingComprehensionDashboard(),
        TranslationDashboard(),
    )
}
