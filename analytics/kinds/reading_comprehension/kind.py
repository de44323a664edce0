"""Reading comprehension's statistics, registered with ``analytics.kinds.registry``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.http import HttpRequest

from analytics.api.queries.tables import SegmentTable, StoredSignificance
from analytics.kinds import AnalyticsKind, ResultsPanel, registry
from analytics.kinds.reading_comprehension.actions import (
    RCConfig,
    rc_config_for,
    recompute_reading_comprehension,
    stale_reading_comprehension_campaigns,
)
from analytics.kinds.reading_comprehension.loading import (
    LoadedReadingComprehension,
    load_reading_comprehension,
)
from analytics.kinds.reading_comprehension.panel import rc_results_context
from analytics.models import ReadingComprehensionResult, suspect_variant_key
from analytics.stats._lazy import lazy_module
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

if TYPE_CHECKING:
    from rest_framework import serializers

# Imported on the first API call: a Celery worker never serves the API (docs/task-kinds.md).
api = lazy_module("analytics.kinds.reading_comprehension.api")

__all__ = ["ReadingComprehension"]


@registry.register
class ReadingComprehension(AnalyticsKind):
    """The share of questions answered correctly per system (000 Table 3) with bootstrap
    intervals over articles, stratified permutation tests and WMT clusters, the human
    translation as the control; per-article and per-question tables, question difficulty,
    graders' Fleiss kappa (METHODS.md section 4). Its recompute also moves the articles
    through their four stages."""

    kind = TaskKind.READING_COMPREHENSION
    result_model = ReadingComprehensionResult
    result_relation = "rc_result"
    # The other variant leaves out the suspect questions (the default counts every one, as
    # 000 did); there is no worker-quality variant: graders are checked by their agreement.
    variant_param = "without_suspect"
    panel_anchor = "reading-comprehension-results"
    label = "reading-comprehension"

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> RCConfig:
        return rc_config_for(campaign, without_suspect=include_all)

    def load(self, campaign_id: int) -> LoadedReadingComprehension:
        return load_reading_comprehension(campaign_id)

    def recompute(self, campaign: Campaign) -> ReadingComprehensionResult | None:
        return recompute_reading_comprehension(campaign)

    def stale_campaigns(self) -> QuerySet[Campaign]:
        return stale_reading_comprehension_campaigns()

    def variant_key(self, include_all: bool) -> str:
        return suspect_variant_key(include_all)

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        return ResultsPanel(
            template="analytics/kinds/reading_comprehension/results_panel.html",
            style_template="analytics/kinds/reading_comprehension/results_panel_style.html",
            context=rc_results_context(campaign, self.include_all(request.GET)),
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

    def significance(
        self, campaign: Campaign, *, include_all: bool, method: str | None
    ) -> StoredSignificance:
        return api.rc_significance(campaign, without_suspect=include_all)

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        return api.rc_segment_scores(campaign)

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        return api.annotate_workers(workers, campaign)

    def worker_fields(self) -> dict[str, serializers.Field]:
        return api.worker_fields()

    def api_urls(self) -> list[Any]:
        from analytics.kinds.reading_comprehension.routes import urlpatterns

        return urlpatterns

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        return api.rc_system_table(campaign, options, fmt)
