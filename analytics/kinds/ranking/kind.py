"""Ranking's statistics, registered with ``analytics.kinds.registry``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet
from django.http import HttpRequest

from analytics.api.queries.tables import SegmentTable, StoredSignificance
from analytics.kinds import MEMBERSHIP_ACTIONS, AnalyticsKind, ResultsPanel, registry
from analytics.kinds.ranking.actions import (
    ranking_config_for,
    recompute_ranking,
    stale_ranking_campaigns,
)
from analytics.kinds.ranking.loading import LoadedRanking, load_ranking_judgments
from analytics.kinds.ranking.panel import ranking_results_context
from analytics.models import RankingResult, trust_variant_key
from analytics.progress import SETS, ProgressRule
from analytics.stats._lazy import lazy_module
from analytics.stats.ranking import RankingConfig
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

if TYPE_CHECKING:
    from rest_framework import serializers

# Imported on the first API call: a Celery worker never serves the API (docs/task-kinds.md).
api = lazy_module("analytics.kinds.ranking.api")

__all__ = ["Ranking"]


@registry.register
class Ranking(AnalyticsKind):
    """Gold-unit trust per worker (with the untrusted cut-off and auto-takedown), scores by
    every method (win ratios, Expected Wins, Bradley-Terry, TrueSkill) over trusted (or all)
    workers, agreement and Spearman's rho against a reference ranking."""

    kind = TaskKind.RANKING
    result_model = RankingResult
    result_relation = "ranking_result"
    variant_param = "include_untrusted"
    panel_anchor = "ranking-results"
    # Also mark workers untrusted, or trust them again (analytics.actions.set_workers_trusted).
    worker_actions = ("untrust", "trust", *MEMBERSHIP_ACTIONS)
    label = "ranking"

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> RankingConfig:
        return ranking_config_for(campaign, include_untrusted=include_all)

    def load(self, campaign_id: int) -> LoadedRanking:
        return load_ranking_judgments(campaign_id)

    def recompute(self, campaign: Campaign) -> RankingResult | None:
        return recompute_ranking(campaign)

    def stale_campaigns(self) -> QuerySet[Campaign]:
        return stale_ranking_campaigns()

    def variant_key(self, include_all: bool) -> str:
        return trust_variant_key(include_all)

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        return ResultsPanel(
            template="analytics/kinds/ranking/results_panel.html",
            style_template="analytics/kinds/ranking/results_panel_style.html",
            context=ranking_results_context(campaign, self.include_all(request.GET)),
        )

    def query_fields(self, endpoint: str) -> dict[str, serializers.Field]:
        return api.query_fields(endpoint)

    def campaign_fields(self) -> dict[str, tuple[serializers.Field, Any]]:
        return api.campaign_fields()

    def system_queryset(
        self, systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
    ) -> tuple[QuerySet[System], Any]:
        return api.system_queryset(systems, campaign, params)

    def system_fields(self) -> dict[str, serializers.Field]:
        return api.system_fields()

    def progress_rule(self) -> ProgressRule:
        """Progress in ranking sets: a set counts once it is ranked (the panel, the checklist
        and the dashboard count alike)."""
        return ProgressRule(unit=SETS, judged=Q(rank__isnull=False))

    def significance(
        self, campaign: Campaign, *, include_all: bool, method: str | None
    ) -> StoredSignificance:
        return api.ranking_significance(campaign, include_untrusted=include_all, method=method)

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        return api.ranking_segment_scores(campaign, include_untrusted=include_all)

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        return api.annotate_workers(workers, campaign)

    def worker_fields(self) -> dict[str, serializers.Field]:
        return api.worker_fields()

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        return api.ranking_system_table(campaign, options, fmt)
