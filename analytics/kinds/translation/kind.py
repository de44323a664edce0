"""Crowd translation's statistics, registered with ``analytics.kinds.registry``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.http import HttpRequest

from analytics.api.queries.tables import SegmentTable, StoredSignificance
from analytics.kinds import AnalyticsKind, ResultsPanel, registry
from analytics.kinds.translation.actions import (
    TranslationConfig,
    recompute_translation,
    stale_translation_campaigns,
    translation_config_for,
)
from analytics.kinds.translation.loading import LoadedTranslation, load_translation
from analytics.kinds.translation.panel import translation_results_context
from analytics.models import TranslationResult
from analytics.stats._lazy import lazy_module
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

if TYPE_CHECKING:
    from rest_framework import serializers

# Imported on the first API call: a Celery worker never serves the API (docs/task-kinds.md).
api = lazy_module("analytics.kinds.translation.api")

__all__ = ["Translation"]


@registry.register
class Translation(AnalyticsKind):
    """Flags against pasted MT (Detect-MT majority, similarity to imported MT outputs) and
    the 30% exclusion (000), the kept translation per sentence and its correction (004), BLEU
    and chrF of every translator and of the kept test set against professional references,
    and 004's percentage of baseline of the imported systems on both test sets (METHODS.md
    section 6)."""

    kind = TaskKind.TRANSLATION
    result_model = TranslationResult
    result_relation = "translation_result"
    # Exports of the test set: only the final kept sentences (no variant of the scores).
    variant_param = "final_only"
    panel_anchor = "translation-results"
    label = "translation"

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> TranslationConfig:
        return translation_config_for(campaign)

    def load(self, campaign_id: int) -> LoadedTranslation:
        return load_translation(campaign_id)

    def recompute(self, campaign: Campaign) -> TranslationResult | None:
        return recompute_translation(campaign)

    def stale_campaigns(self) -> QuerySet[Campaign]:
        return stale_translation_campaigns()

    def variant_key(self, include_all: bool) -> str:
        return "final" if include_all else "all"

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        try:
            baseline = int(request.GET.get("baseline", ""))
        except ValueError:
            baseline = None
        return ResultsPanel(
            template="analytics/kinds/translation/results_panel.html",
            style_template="analytics/kinds/translation/results_panel_style.html",
            context=translation_results_context(campaign, baseline=baseline),
        )

    def query_fields(self, endpoint: str) -> dict[str, serializers.Field]:
        return api.query_fields(endpoint)

    def system_queryset(
        self, systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
    ) -> tuple[QuerySet[System], Any]:
        return api.system_queryset(systems, campaign, params)

    def system_fields(self) -> dict[str, serializers.Field]:
        return api.system_fields()

    def significance(
        self, campaign: Campaign, *, include_all: bool, method: str | None
    ) -> StoredSignificance:
        return api.translation_significance(campaign, include_all=include_all)

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        return api.translation_segment_scores(campaign)

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        return api.annotate_workers(workers, campaign)

    def worker_fields(self) -> dict[str, serializers.Field]:
        return api.worker_fields()

    def api_urls(self) -> list[Any]:
        from analytics.kinds.translation.routes import urlpatterns

        return urlpatterns

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        return api.translation_system_table(campaign, options, fmt)
