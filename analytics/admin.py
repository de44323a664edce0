"""Stored statistics in the admin, read-only: they are computed, never typed in.

The requester's view of a campaign's results is the panel on the campaign's own page
(campaigns/admin/campaign.py); these lists are for looking across campaigns (e.g. one worker's
reliability or trust everywhere) and for checking what is stored. A ranking campaign's
reference ranking and oracle are edited on the campaign's page (an inline there).
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from analytics.models import (
    CampaignResult,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    SystemScore,
    WorkerStat,
)
from campaigns.admin.access import CampaignRowsAdminMixin


class ReadOnlyAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Stored results of the campaigns shared with the user only (campaigns.admin.access)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(CampaignResult)
class CampaignResultAdmin(ReadOnlyAdmin):
    list_display = (
        "campaign",
        "computed_at",
        "n_judgments",
        "n_scored_judgments",
        "n_workers",
        "reliability_test",
        "reliability_alpha",
        "compute_seconds",
    )
    list_select_related = ("campaign",)
    exclude = ("details",)


@admin.register(WorkerStat)
class WorkerStatAdmin(ReadOnlyAdmin):
    list_display = (
        "worker",
        "campaign",
        "n_judgments",
        "p_value",
        "test",
        "n_pairs",
        "mean_seconds",
        "reliable",
        "excluded",
        "recommendation",
    )
    list_filter = ("reliable", "excluded", "recommendation", "test", "campaign")
    search_fields = ("worker__external_id",)
    list_select_related = ("worker", "campaign")
    show_full_result_count = False


@admin.register(SystemScore)
class SystemScoreAdmin(ReadOnlyAdmin):
    list_display = (
        "system",
        "campaign",
        "include_unreliable",
        "position",
        "mean_z",
        "mean_score",
        "n",
        "cluster",
        "rank_range",
    )
    list_filter = ("include_unreliable", "campaign")
    list_select_related = ("system", "campaign")
    ordering = ("campaign", "include_unreliable", "position")


@admin.register(RankingResult)
class RankingResultAdmin(ReadOnlyAdmin):
    list_display = (
        "campaign",
        "computed_at",
        "n_judgments",
        "n_scored_judgments",
        "n_workers",
        "n_trusted",
        "n_untrusted",
        "n_undecided",
        "gold_scheme",
        "auto_paused_at",
        "compute_seconds",
    )
    list_select_related = ("campaign",)
    exclude = ("details",)


@admin.register(RankingWorkerStat)
class RankingWorkerStatAdmin(ReadOnlyAdmin):
    list_display = (
        "worker",
        "campaign",
        "n_ballots",
        "gold_seen",
        "gold_correct",
        "accuracy",
        "status",
        "flagged",
        "excluded",
        "in_scores",
    )
    list_filter = ("status", "flagged", "excluded", "campaign")
    search_fields = ("worker__external_id",)
    list_select_related = ("worker", "campaign")
    show_full_result_count = False


@admin.register(RankingScore)
class RankingScoreAdmin(ReadOnlyAdmin):
    list_display = (
        "system",
        "campaign",
        "method",
        "include_untrusted",
        "position",
        "score",
        "ci_low",
        "ci_high",
        "sigma",
        "n",
        "cluster",
        "rank_range",
    )
    list_filter = ("method", "include_untrusted", "campaign")
    list_select_related = ("system", "campaign")
    ordering = ("campaign", "include_untrusted", "method", "position")
