"""Direct assessment's statistics, registered with ``analytics.kinds.registry``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.http import HttpRequest

from analytics.api.queries.tables import SegmentTable, StoredSignificance
from analytics.kinds import AnalyticsKind, ResultsPanel, registry
from analytics.kinds.direct_assessment.actions import (
    da_config_for,
    recompute_direct_assessment,
    stale_da_campaigns,
)
from analytics.kinds.direct_assessment.loading import LoadedCampaign, load_da_judgments
from analytics.kinds.direct_assessment.panel import da_results_context
from analytics.models import CampaignResult, variant_key
from analytics.stats._lazy import lazy_module
from analytics.stats.direct_assessment import DAConfig
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

if TYPE_CHECKING:
    from rest_framework import serializers

# Imported on the first API call: a Celery worker never serves the API (docs/task-kinds.md).
api = lazy_module("analytics.kinds.direct_assessment.api")

__all__ = ["DirectAssessment"]


@registry.register
class DirectAssessment(AnalyticsKind):
    """Reliability per worker (bad references and repeats), recommendations, standardised
    system scores over reliable (or all) workers with significance clusters (METHODS.md
    section 2)."""

    kind = TaskKind.DIRECT_ASSESSMENT
    result_model = CampaignResult
    result_relation = "da_result"
    variant_param = "include_unreliable"
    incremental = True
    panel_anchor = "da-results"
    label = "direct-assessment"

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> DAConfig:
        return da_config_for(campaign, include_unreliable=include_all)

    def load(self, campaign_id: int) -> LoadedCampaign:
        return load_da_judgments(campaign_id)

    def recompute(self, campaign: Campaign) -> CampaignResult:
        return recompute_direct_assessment(campaign)

    def stale_campaigns(self) -> QuerySet[Campaign]:
        return stale_da_campaigns()

    def variant_key(self, include_all: bool) -> str:
        return variant_key(include_all)

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        return ResultsPanel(
            template="analytics/kinds/direct_assessment/results_panel.html",
            style_template="analytics/kinds/direct_assessment/results_panel_style.html",
            context=da_results_context(campaign, self.include_all(request.GET)),
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
        return api.da_significance(campaign, include_unreliable=include_all)

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        return api.da_segment_scores(campaign, include_unreliable=include_all)

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        return api.annotate_workers(workers, campaign)

    def worker_fields(self) -> dict[str, serializers.Field]:
        return api.worker_fields()

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        return api.da_system_table(campaign, options, fmt)
