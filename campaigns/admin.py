"""The requester's side of evalsite: campaigns and their content, in the Django admin."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.urls import path, reverse
from django.utils.html import format_html

from campaigns.models import (
    Campaign,
    CampaignStatus,
    Document,
    Hit,
    HitSlot,
    Output,
    Segment,
    System,
)


def _count_of(model, field: str = "campaign") -> Coalesce:
    """A correlated COUNT subquery: one query for the whole changelist, not one per row."""
    counted = (
        model.objects.filter(**{field: OuterRef("pk")})
        .order_by()
        .values(field)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted), 0)


class SystemInline(admin.TabularInline):
    model = System
    extra = 0
    fields = ("name", "is_reference")
    show_change_link = True


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "kind",
        "assessment_mode",
        "language_pair",
        "status",
        "n_systems",
        "n_segments",
        "n_hits",
        "created_at",
    )
    list_filter = ("kind", "status", "source_language", "target_language")
    search_fields = ("name", "title")
    readonly_fields = ("created_at", "updated_at", "content_counts", "worker_entry_link")
    inlines = [SystemInline]
    actions = ["activate", "pause", "finish"]
    fieldsets = (
        (None, {"fields": ("name", "kind", "status", "status_reason", "owner")}),
        ("Content", {"fields": ("content_counts", "worker_entry_link")}),
        (
            "Languages and instructions",
            {
                "fields": (
                    ("source_language", "target_language"),
                    "instructions",
                    "instructions_language",
                )
            },
        ),
        (
            "HIT layout",
            {
                "fields": (
                    "redundancy",
                    "assessment_mode",
                    "items_per_hit",
                    ("outputs_per_set", "sets_per_hit"),
                    "segments_per_hit",
                    "hit_seed",
                )
            },
        ),
        (
            "Quality control",
            {
                "fields": (
                    "degradation",
                    ("reliability_test", "reliability_alpha"),
                    ("gold_rate", "gold_scheme"),
                    ("trust_min_gold", "trust_min_accuracy"),
                    ("takedown_untrusted_share", "takedown_min_workers"),
                    ("qualification_required", "qualification_pass_mark"),
                )
            },
        ),
        (
            "Payment and publishing",
            {
                "fields": (
                    "reward",
                    "title",
                    "description",
                    "keywords",
                    "assignment_duration_seconds",
                )
            },
        ),
        ("History", {"fields": ("created_at", "updated_at")}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Campaign]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                systems_count=_count_of(System),
                segments_count=_count_of(Segment),
                hits_count=_count_of(Hit),
            )
        )

    def get_urls(self):
        return [
            path(
                "<int:campaign_id>/import/",
                self.admin_site.admin_view(self.import_segments),
                name="campaigns_campaign_import",
            ),
            *super().get_urls(),
        ]

    def import_segments(self, request: HttpRequest, campaign_id: int):
        from campaigns import admin_import  # the upload form pulls in every importer

        return admin_import.import_segments_view(request, campaign_id, self)

    @admin.display(description="Languages")
    def language_pair(self, campaign: Campaign) -> str:
        return f"{campaign.source_language}→{campaign.target_language}"

    @admin.display(description="Systems", ordering="systems_count")
    def n_systems(self, campaign: Campaign) -> int:
        return campaign.systems_count

    @admin.display(description="Segments", ordering="segments_count")
    def n_segments(self, campaign: Campaign) -> int:
        return campaign.segments_count

    @admin.display(description="HITs", ordering="hits_count")
    def n_hits(self, campaign: Campaign) -> int:
        return campaign.hits_count

    @admin.display(description="What it holds")
    def content_counts(self, campaign: Campaign) -> str:
        if not campaign.pk:
            return "Save the campaign, then import its segments."
        counts = {
            "documents": campaign.documents.count(),
            "segments": campaign.segments.count(),
            "systems": campaign.systems.count(),
            "outputs": Output.objects.filter(segment__campaign=campaign).count(),
            "HITs": campaign.hits.count(),
            "assignments": campaign.assignments.count(),
            "judgments": campaign.judgments.count(),
        }
        import_url = reverse("admin:campaigns_campaign_import", args=[campaign.pk])
        return format_html(
            '<span class="content-counts">{}</span> · <a href="{}">Import segments</a>',
            ", ".join(f"{n} {label}" for label, n in counts.items()),
            import_url,
        )

    @admin.display(description="Worker entry page")
    def worker_entry_link(self, campaign: Campaign) -> str:
        if not campaign.pk:
            return "-"
        url = reverse("judgments:campaign-entry", args=[campaign.pk])
        return format_html('<a href="{}">{}</a>', url, url)

    def _set_status(self, request: HttpRequest, queryset: QuerySet[Campaign], status: str) -> None:
        updated = queryset.update(status=status, status_reason="")
        self.message_user(
            request,
            f"{updated} campaign(s) now {CampaignStatus(status).label.lower()}.",
            messages.SUCCESS,
        )

    @admin.action(description="Activate: hand out HITs")
    def activate(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.ACTIVE)

    @admin.action(description="Pause: stop handing out HITs")
    def pause(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.PAUSED)

    @admin.action(description="Finish")
    def finish(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.FINISHED)


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign", "is_reference", "n_outputs")
    list_filter = ("campaign", "is_reference")
    search_fields = ("name",)
    list_select_related = ("campaign",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[System]:
        return super().get_queryset(request).annotate(outputs_count=_count_of(Output, "system"))

    @admin.display(description="Outputs", ordering="outputs_count")
    def n_outputs(self, system: System) -> int:
        return system.outputs_count


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "campaign", "position", "n_segments")
    list_filter = ("campaign",)
    search_fields = ("external_id",)
    list_select_related = ("campaign",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        return super().get_queryset(request).annotate(segments_count=_count_of(Segment, "document"))

    @admin.display(description="Segments", ordering="segments_count")
    def n_segments(self, document: Document) -> int:
        return document.segments_count


class OutputInline(admin.TabularInline):
    model = Output
    extra = 0
    fields = ("system", "text")
    raw_id_fields = ("system",)


@admin.register(Segment)
class SegmentAdmin(admin.ModelAdmin):
    list_display = ("external_id", "document", "position", "source")
    list_filter = ("campaign",)
    search_fields = ("source", "external_id")
    list_select_related = ("document",)
    raw_id_fields = ("campaign", "document")
    inlines = [OutputInline]
    show_full_result_count = False


@admin.register(Output)
class OutputAdmin(admin.ModelAdmin):
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
    fields = ("position", "group", "role", "output", "shown_text", "controls", "expected_rank")
    raw_id_fields = ("output", "controls", "segment", "about_judgment")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        # Slots are built by the HIT builders, never typed in by hand.
        return False


@admin.register(Hit)
class HitAdmin(admin.ModelAdmin):
    list_display = ("__str__", "campaign", "task", "number", "n_slots", "created_at")
    list_filter = ("campaign", "task")
    list_select_related = ("campaign",)
    readonly_fields = ("created_at",)
    inlines = [HitSlotInline]
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Hit]:
        return super().get_queryset(request).annotate(slots_count=_count_of(HitSlot, "hit"))

    @admin.display(description="Slots", ordering="slots_count")
    def n_slots(self, hit: Hit) -> int:
        return hit.slots_count
