"""A campaign's content in the admin: its systems, documents, segments and their outputs, gold
answers and HITs with their slots. Each list shows the rows of the campaigns shared with the
user only (:mod:`campaigns.admin.access`); the campaigns themselves are
:mod:`campaigns.admin.campaign`'s."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from campaigns.admin.access import CampaignRowsAdminMixin
from campaigns.models import Document, GoldAnswer, Hit, HitSlot, Output, Segment, System
from evalsite.subquery_counts import related_count


@admin.register(System)
class SystemAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    list_display = ("name", "campaign", "is_reference", "n_outputs")
    list_filter = ("campaign", "is_reference")
    search_fields = ("name",)
    list_select_related = ("campaign",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[System]:
        return super().get_queryset(request).annotate(outputs_count=related_count(Output, "system"))

    @admin.display(description="Outputs", ordering="outputs_count")
    def n_outputs(self, system: System) -> int:
        return system.outputs_count


@admin.register(Document)
class DocumentAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    list_display = ("external_id", "campaign", "position", "n_segments")
    list_filter = ("campaign",)
    search_fields = ("external_id",)
    list_select_related = ("campaign",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        segments_count = related_count(Segment, "document")
        return super().get_queryset(request).annotate(segments_count=segments_count)

    @admin.display(description="Segments", ordering="segments_count")
    def n_segments(self, document: Document) -> int:
        return document.segments_count


class OutputInline(admin.TabularInline):
    model = Output
    extra = 0
    fields = ("system", "text")
    raw_id_fields = ("system",)


@admin.register(GoldAnswer)
class GoldAnswerAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """A ranking campaign's known answers per segment (002 section 4): the best output or a
    gold translation, and the known-worst output (best+worst)."""

    campaign_path = "segment__campaign"
    list_display = ("segment", "best_output", "gold_text", "worst_output")
    list_filter = ("segment__campaign",)
    list_select_related = ("segment", "best_output", "worst_output")
    raw_id_fields = ("segment", "best_output", "worst_output")
    search_fields = ("gold_text", "segment__source")


@admin.register(Segment)
class SegmentAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    list_display = ("external_id", "document", "position", "source")
    list_filter = ("campaign",)
    search_fields = ("source", "external_id")
    list_select_related = ("document",)
    raw_id_fields = ("campaign", "document")
    inlines = [OutputInline]
    show_full_result_count = False


@admin.register(Output)
class OutputAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    campaign_path = "segment__campaign"
    list_display = ("id", "system", "segment", "text")
    list_filter = ("system__campaign", "system")
    search_fields = ("text",)
    list_select_related = ("system", "segment")
    raw_id_fields = ("system", "segment")
    show_full_result_count = False


class HitSlotInline(admin.TabularInline):
    model = HitSlot
    fk_name = "hit"
    extra = 0
    fields = (
        "position",
        "group",
        "role",
        "output",
        "shown_text",
        "controls",
        "expected_rank_min",
        "expected_rank_max",
    )
    raw_id_fields = ("output", "controls", "segment", "about_judgment")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        # Slots are built by the HIT builders, never typed in by hand.
        return False


@admin.register(Hit)
class HitAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    list_display = ("__str__", "campaign", "task", "number", "n_slots", "created_at")
    list_filter = ("campaign", "task")
    list_select_related = ("campaign",)
    readonly_fields = ("created_at",)
    inlines = [HitSlotInline]
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Hit]:
        return super().get_queryset(request).annotate(slots_count=related_count(HitSlot, "hit"))

    @admin.display(description="Slots", ordering="slots_count")
    def n_slots(self, hit: Hit) -> int:
        return hit.slots_count
