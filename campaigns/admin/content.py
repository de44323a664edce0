"""A campaign's content in the admin: its systems, documents, segments and their outputs, gold
answers and HITs with their slots. Each list shows the rows of the campaigns shared with the
user only (:mod:`campaigns.admin.access`); the campaigns themselves are
:mod:`campaigns.admin.campaign`'s."""

from __future__ import annotations

from contextlib import contextmanager

from django.contrib import admin
from django.db.models import Q, QuerySet
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


# A built HIT's slot keeps the text it shows (HitSlot.shown_text) and refers to its segment
# and output: workers judged them as they were, and the exports and statistics read them. So
# once a segment or output is in a built HIT its content cannot change here (an edit saved
# "successfully" reached no worker and made the admin show a text nobody judged).
IN_BUILT_HITS = (
    "This {what} is shown in HITs already built: workers judge it as it was built, and the "
    "judgments, exports and scores refer to it, so it can no longer be changed. To evaluate "
    "a corrected text, import it into a new campaign."
)


def slots_showing(model: type, rows) -> QuerySet[HitSlot]:
    """The built HITs' slots that show ``rows`` (outputs, or segments directly or through
    their outputs): a row, or a queryset of them."""
    rows = rows if isinstance(rows, QuerySet) else [rows]
    if model is Output:
        return HitSlot.objects.filter(output__in=rows)
    return HitSlot.objects.filter(Q(segment__in=rows) | Q(output__segment__in=rows))


_DELETING_UNWORKED_CAMPAIGN = "_evalsite_deleting_unworked_campaign"


@contextmanager
def allow_deleting_built_rows(request: HttpRequest):
    """While a campaign nobody worked on is deleted (campaigns/admin/deletion.py), the rows its
    built HITs show may go with it: the guard below keeps workers' judged texts, and there are
    none."""
    setattr(request, _DELETING_UNWORKED_CAMPAIGN, True)
    try:
        yield
    finally:
        delattr(request, _DELETING_UNWORKED_CAMPAIGN)


def in_built_hits(request: HttpRequest, obj) -> bool:
    """Whether built HITs show ``obj`` (an Output or a Segment; False for none or an unsaved
    one), asked once per request and row (a change page asks for every field and inline)."""
    if obj is None or obj.pk is None or getattr(request, _DELETING_UNWORKED_CAMPAIGN, False):
        return False
    cache = request.__dict__.setdefault("_evalsite_in_built_hits", {})
    key = (type(obj).__name__, obj.pk)
    if key not in cache:
        cache[key] = slots_showing(type(obj), obj).exists()
    return cache[key]


class OutputInline(admin.TabularInline):
    model = Output
    extra = 0
    fields = ("system", "text")
    raw_id_fields = ("system",)

    def get_readonly_fields(self, request: HttpRequest, obj: Segment | None = None):
        return self.fields if in_built_hits(request, obj) else ()

    def has_add_permission(self, request: HttpRequest, obj: Segment | None = None) -> bool:
        return not in_built_hits(request, obj) and super().has_add_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Segment | None = None) -> bool:
        return not in_built_hits(request, obj) and super().has_delete_permission(request, obj)


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


class FrozenInBuiltHitsMixin:
    """The change page of a row that built HITs show: every field read-only, saying why
    (:data:`IN_BUILT_HITS`)."""

    frozen_what = "row"

    def get_readonly_fields(self, request: HttpRequest, obj=None):
        if in_built_hits(request, obj):
            return [field.name for field in self.model._meta.fields if field.editable]
        return super().get_readonly_fields(request, obj)

    def get_fieldsets(self, request: HttpRequest, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if not in_built_hits(request, obj):
            return fieldsets
        (name, options), *rest = fieldsets
        note = IN_BUILT_HITS.format(what=self.frozen_what)
        return [(name, {**options, "description": note}), *rest]

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Deleting it would delete the judgments of it (the slots cascade). Django's "delete
        # selected" asks this of every selected row too, and refuses the whole selection.
        return not in_built_hits(request, obj) and super().has_delete_permission(request, obj)


@admin.register(Segment)
class SegmentAdmin(FrozenInBuiltHitsMixin, CampaignRowsAdminMixin, admin.ModelAdmin):
    list_display = ("external_id", "document", "position", "source")
    list_filter = ("campaign",)
    search_fields = ("source", "external_id")
    list_select_related = ("document",)
    raw_id_fields = ("campaign", "document")
    inlines = [OutputInline]
    show_full_result_count = False
    frozen_what = "segment"


@admin.register(Output)
class OutputAdmin(FrozenInBuiltHitsMixin, CampaignRowsAdminMixin, admin.ModelAdmin):
    campaign_path = "segment__campaign"
    list_display = ("id", "system", "segment", "text")
    list_filter = ("system__campaign", "system")
    search_fields = ("text",)
    list_select_related = ("system", "segment")
    raw_id_fields = ("system", "segment")
    show_full_result_count = False
    frozen_what = "output"


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
