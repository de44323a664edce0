"""Post-editing's statistics, registered with ``analytics.kinds.registry``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Q, QuerySet
from django.http import HttpRequest

from analytics.api.queries.tables import SegmentTable, StoredSignificance
from analytics.kinds import AnalyticsKind, ResultsPanel, registry
from analytics.kinds.post_editing.actions import (
    PostEditingConfig,
    post_editing_config_for,
    recompute_post_editing,
    stale_post_editing_campaigns,
)
from analytics.kinds.post_editing.loading import LoadedPostEditing, load_post_editing
from analytics.kinds.post_editing.panel import post_editing_results_context
from analytics.models import PostEditingResult, flag_variant_key
from analytics.progress import ProgressRule
from analytics.stats._lazy import lazy_module
from campaigns.models import Campaign, HitTask, System, TaskKind
from judgments.models import Worker

if TYPE_CHECKING:
    from rest_framework import serializers

# Imported on the first API call: a Celery worker never serves the API (docs/task-kinds.md).
api = lazy_module("analytics.kinds.post_editing.api")

__all__ = ["PostEditing"]


@registry.register
class PostEditing(AnalyticsKind):
    """TER of every edit computed once and stored; verification by majority; segment and
    system HTER (corpus-level and mean, bootstrap intervals, paired Wilcoxon clusters), 000's
    subsampling table, 003's combinations and document ranking, worker profiles (METHODS.md
    section 3)."""

    kind = TaskKind.POST_EDITING
    result_model = PostEditingResult
    result_relation = "post_editing_result"
    variant_param = "include_flagged"
    panel_anchor = "post-editing-results"
    label = "post-editing"

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> PostEditingConfig:
        return post_editing_config_for(campaign, include_flagged=include_all)

    def load(self, campaign_id: int) -> LoadedPostEditing:
        campaign = Campaign.objects.select_related("post_editing_settings").get(pk=campaign_id)
        config = post_editing_config_for(campaign)
        return load_post_editing(campaign_id, config.signature, config.gold_editor)

    def recompute(self, campaign: Campaign) -> PostEditingResult | None:
        return recompute_post_editing(campaign)

    def stale_campaigns(self) -> QuerySet[Campaign]:
        return stale_post_editing_campaigns()

    def variant_key(self, include_all: bool) -> str:
        return flag_variant_key(include_all)

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        return ResultsPanel(
            template="analytics/kinds/post_editing/results_panel.html",
            style_template="analytics/kinds/post_editing/results_panel_style.html",
            context=post_editing_results_context(campaign, self.include_all(request.GET)),
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
        """Progress of the edit HITs only (verification HITs are a second pass): an output
        slot edited counts (the panel, the checklist and the dashboard count alike)."""
        return ProgressRule(tasks=(HitTask.POST_EDIT,), judged=Q(slot__output__isnull=False))

    def significance(
        self, campaign: Campaign, *, include_all: bool, method: str | None
    ) -> StoredSignificance:
        return api.post_editing_significance(campaign, include_flagged=include_all)

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        return api.post_editing_segment_scores(campaign, include_flagged=include_all)

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        return api.annotate_workers(workers, campaign)

    def worker_fields(self) -> dict[str, serializers.Field]:
        return api.worker_fields()

    def api_urls(self) -> list[Any]:
        from analytics.kinds.post_editing.edits import urlpatterns

        return urlpatterns

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        return api.post_editing_system_table(campaign, options, fmt)
