"""A campaign's content in the admin: its systems, documents, segments and their outputs, gold
answers and HITs with their slots. Each list shows the rows of the campaigns shared with the
user only (:mod:`campaigns.admin.access`); the campaigns themselves are
:mod:`campaigns.admin.campaign`'s."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect, RelatedFieldWidgetWrapper
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, JsonResponse, QueryDict
from django.urls import path, reverse

from analytics.access import changeable_by_grant
from campaigns.admin.access import CampaignRowsAdminMixin
from campaigns.models import Campaign, Document, GoldAnswer, Hit, HitSlot, Output, Segment, System
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


# --- Gold answers, chosen by name within their campaign (not typed as numeric ids) -------------

# Rows per page of a gold answer's segment and output searches.
GOLD_SEARCH_PAGE = 20
# How much of a segment's source or an output's text a choice shows.
GOLD_TEXT_START = 60


def _text_start(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= GOLD_TEXT_START else text[: GOLD_TEXT_START - 1] + "\u2026"


def segment_label(segment: Segment) -> str:
    """A segment as the requester's file names it, with the start of its source."""
    return (
        f"doc {segment.document.external_id}, seg {segment.external_id}: "
        f"{_text_start(segment.source)}"
    )


def output_label(output: Output) -> str:
    """An output by its system's name, with the start of its text."""
    return f"{output.system.name}: {_text_start(output.text)}"


class SegmentChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Segment) -> str:
        return segment_label(obj)


class OutputChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Output) -> str:
        return output_label(obj)


class GoldAnswerForm(forms.ModelForm):
    class Meta:
        model = GoldAnswer
        fields = ("segment", "best_output", "gold_text", "worst_output")

    def _post_clean(self) -> None:
        # A segment or output that is not among the campaign's choices is already an error;
        # the model's checks (GoldAnswer.clean) would read it as missing and add a wrong one
        # ("give either the best output or a gold translation").
        if any(self.has_error(name) for name in ("segment", "best_output", "worst_output")):
            return
        super()._post_clean()


class CampaignRowsAutocomplete(AutocompleteSelect):
    """Django admin's autocomplete widget (select2, the admin's own static files) asking a
    search of one campaign's rows (``url``) instead of the admin's generic one, which lists
    every campaign's (as the collaborators' user search does, campaigns.admin.access)."""

    def __init__(self, field: Any, admin_site: Any, url: str, **kwargs: Any) -> None:
        super().__init__(field, admin_site, **kwargs)
        self.url = url

    def get_url(self) -> str:
        return self.url


@admin.register(GoldAnswer)
class GoldAnswerAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """A ranking campaign's known answers per segment (002 section 4): the best output or a
    gold translation, and the known-worst output (best+worst).

    The segment and the outputs are chosen by name within the campaign: the segment by its
    document and segment ids or its source, the outputs by their system's name or text, each
    search asking this admin's own views (:meth:`search_segments`, :meth:`search_outputs`),
    which list the rows of the campaign only, and of the chosen segment only for the outputs
    (static/js/gold-answer-form.js adds it to the search). The campaign is the answer's; on
    the add page the one the gold answers list is filtered to (the campaign page's checklist
    links it so), or ``?campaign=<id>``. The model's own checks hold the outputs to their
    segment and keep the best and the worst apart. A file of gold answers is imported from
    the list's "Import gold answers" (campaigns/kinds/ranking/gold_import.py)."""

    campaign_path = "segment__campaign"
    form = GoldAnswerForm
    list_display = ("segment_shown", "best_shown", "gold_text", "worst_shown")
    list_filter = ("segment__campaign",)
    list_select_related = (
        "segment__document",
        "best_output__system",
        "worst_output__system",
    )
    search_fields = ("gold_text", "segment__source")

    @admin.display(description="Segment", ordering="segment")
    def segment_shown(self, answer: GoldAnswer) -> str:
        return segment_label(answer.segment)

    @admin.display(description="Best output", ordering="best_output__system__name")
    def best_shown(self, answer: GoldAnswer) -> str:
        return output_label(answer.best_output) if answer.best_output_id else "-"

    @admin.display(description="Worst output", ordering="worst_output__system__name")
    def worst_shown(self, answer: GoldAnswer) -> str:
        return output_label(answer.worst_output) if answer.worst_output_id else "-"

    @property
    def media(self):
        return super().media + forms.Media(js=["js/gold-answer-form.js"])

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("segments/", view(self.search_segments), name="campaigns_goldanswer_segments"),
            path("outputs/", view(self.search_outputs), name="campaigns_goldanswer_outputs"),
            *super().get_urls(),
        ]

    # The campaign of the form ------------------------------------------------------------

    def form_campaign(self, request: HttpRequest, obj: GoldAnswer | None) -> Campaign | None:
        """The campaign whose rows the form offers: the answer's, else the one named by
        ``?campaign=`` or by the list's campaign filter, if the user may change it."""
        if obj is not None and obj.segment_id is not None:
            return obj.segment.campaign
        wanted = request.GET.get("campaign")
        if wanted is None:
            filters = QueryDict(request.GET.get("_changelist_filters", ""))
            wanted = filters.get("segment__campaign__id__exact")
        if not wanted or not str(wanted).isdigit():
            return None
        return changeable_by_grant(request.user).filter(pk=int(wanted)).first()

    def get_form(self, request: HttpRequest, obj: GoldAnswer | None = None, **kwargs: Any):
        # Read by formfield_for_foreignkey while the form class is made (per request: the
        # admin instance is shared by every request).
        request._gold_answer_campaign = self.form_campaign(request, obj)
        request._gold_answer_segment = obj.segment_id if obj is not None else None
        return super().get_form(request, obj, **kwargs)

    def _search_url(self, name: str, campaign: Campaign | None, segment: int | None) -> str:
        url = reverse(f"{self.admin_site.name}:campaigns_goldanswer_{name}")
        query = QueryDict(mutable=True)
        if campaign is not None:
            query["campaign"] = str(campaign.pk)
        if segment is not None:
            query["segment"] = str(segment)
        return f"{url}?{query.urlencode()}" if query else url

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs: Any):
        campaign = getattr(request, "_gold_answer_campaign", None)
        campaigns = (
            Campaign.objects.filter(pk=campaign.pk)
            if campaign is not None
            else changeable_by_grant(request.user)
        )
        if db_field.name == "segment":
            kwargs["queryset"] = Segment.objects.filter(campaign__in=campaigns).select_related(
                "document"
            )
            kwargs["form_class"] = SegmentChoiceField
            kwargs["widget"] = CampaignRowsAutocomplete(
                db_field, self.admin_site, self._search_url("segments", campaign, None)
            )
        elif db_field.name in ("best_output", "worst_output"):
            kwargs["queryset"] = Output.objects.filter(
                segment__campaign__in=campaigns
            ).select_related("system")
            kwargs["form_class"] = OutputChoiceField
            segment = getattr(request, "_gold_answer_segment", None)
            kwargs["widget"] = CampaignRowsAutocomplete(
                db_field,
                self.admin_site,
                self._search_url("outputs", campaign, segment),
                attrs={"data-gold-output": "true"},
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def formfield_for_dbfield(self, db_field, request: HttpRequest, **kwargs: Any):
        formfield = super().formfield_for_dbfield(db_field, request, **kwargs)
        # No "add another segment / output" pop-ups: they open other campaigns' lists.
        if formfield is not None and isinstance(formfield.widget, RelatedFieldWidgetWrapper):
            formfield.widget = formfield.widget.widget
        return formfield

    # The searches ------------------------------------------------------------------------

    def _search_campaigns(self, request: HttpRequest) -> QuerySet[Campaign]:
        """The campaigns a search may list: those the user may change, or the one asked for
        (404 when it is not among them, as for a campaign that does not exist)."""
        if not (self.has_add_permission(request) or self.has_change_permission(request)):
            raise PermissionDenied
        campaigns = changeable_by_grant(request.user)
        wanted = request.GET.get("campaign")
        if wanted:
            if not wanted.isdigit() or not campaigns.filter(pk=int(wanted)).exists():
                raise Http404("No such campaign, or you may not change it.")
            campaigns = Campaign.objects.filter(pk=int(wanted))
        return campaigns

    @staticmethod
    def _page(request: HttpRequest, rows: QuerySet, label) -> JsonResponse:
        """The admin autocomplete's answer: ``{"results": [{"id", "text"}], "pagination":
        {"more"}}``."""
        try:
            page = max(1, int(request.GET.get("page", "1")))
        except ValueError:
            page = 1
        start = (page - 1) * GOLD_SEARCH_PAGE
        found = list(rows[start : start + GOLD_SEARCH_PAGE + 1])
        return JsonResponse(
            {
                "results": [
                    {"id": str(row.pk), "text": label(row)} for row in found[:GOLD_SEARCH_PAGE]
                ],
                "pagination": {"more": len(found) > GOLD_SEARCH_PAGE},
            }
        )

    def search_segments(self, request: HttpRequest) -> JsonResponse:
        """The campaign's segments whose document id or segment id is a word of ``term``, or
        whose source holds it; every word must match."""
        rows = Segment.objects.filter(campaign__in=self._search_campaigns(request))
        for word in request.GET.get("term", "").split():
            rows = rows.filter(
                Q(document__external_id__iexact=word)
                | Q(external_id__iexact=word)
                | Q(source__icontains=word)
            )
        rows = rows.select_related("document").order_by(
            "campaign_id", "document__position", "position"
        )
        return self._page(request, rows, segment_label)

    def search_outputs(self, request: HttpRequest) -> JsonResponse:
        """The outputs of ``segment`` (of the campaign) whose system's name or text holds every
        word of ``term``; without a segment, the campaign's, each named with its segment."""
        rows = Output.objects.filter(segment__campaign__in=self._search_campaigns(request))
        segment = request.GET.get("segment", "")
        if segment:
            if not segment.isdigit():
                raise Http404("No such segment.")
            rows = rows.filter(segment_id=int(segment))
        for word in request.GET.get("term", "").split():
            rows = rows.filter(Q(system__name__icontains=word) | Q(text__icontains=word))
        rows = rows.select_related("system", "segment__document").order_by(
            "segment__campaign_id",
            "segment__document__position",
            "segment__position",
            "system__name",
        )

        def label(output: Output) -> str:
            if segment:
                return output_label(output)
            where = f"doc {output.segment.document.external_id}, seg {output.segment.external_id}"
            return f"{where} \u00b7 {output_label(output)}"

        return self._page(request, rows, label)

    # The list: its import ----------------------------------------------------------------

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):
        extra_context = dict(extra_context or {})
        wanted = request.GET.get("segment__campaign__id__exact", "")
        campaign = (
            changeable_by_grant(request.user).filter(pk=int(wanted)).first()
            if wanted.isdigit()
            else None
        )
        if campaign is not None and self.has_add_permission(request):
            extra_context["gold_import_url"] = reverse(
                f"{self.admin_site.name}:campaigns_campaign_gold_import", args=[campaign.pk]
            )
        return super().changelist_view(request, extra_context)


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
