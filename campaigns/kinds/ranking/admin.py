"""Ranking's own admin parts: the campaign page's inline of the requester's reference ranking
and oracle (``analytics.models.RankingReference``, validated against the campaign's system
names), and the page importing a file of gold answers (``<campaign id>/gold-answers/import/``,
linked from the campaign's gold answers and its checklist; the kind's ``admin_urls``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from analytics.models import RankingReference
from campaigns.models import Campaign, GoldAnswer, TaskKind


class RankingReferenceInline(admin.StackedInline):
    model = RankingReference
    extra = 1
    max_num = 1
    can_delete = True
    # One row, headed once (Django's stacked inline headed it again "…: #1").
    template = "admin/campaigns/kind_settings_inline.html"
    verbose_name = "reference ranking and oracle (for Spearman's rho and oracle agreement)"
    verbose_name_plural = "Reference ranking and oracle (for Spearman's rho and oracle agreement)"
    fields = ("reference_ranking", "oracle")


# --- Importing gold answers (doc_id, seg_id, best_system, worst_system) -------------------------


class GoldImportForm(forms.Form):
    file = forms.FileField(
        help_text="TSV or CSV with a header row: doc_id, seg_id, best_system and optionally "
        "worst_system; one gold segment per row."
    )
    format = forms.ChoiceField(
        choices=[
            ("", "From the file name (.tsv, .csv)"),
            ("tsv", "TSV (tab-separated, header row)"),
            ("csv", "CSV (comma-separated, header row)"),
        ],
        required=False,
    )
    replace = forms.BooleanField(
        required=False,
        label="Replace the campaign's gold answers",
        help_text="Delete the gold answers the campaign has and keep the file's only. Without "
        "this, a segment that already has a gold answer is a problem.",
    )


def gold_import_urls(model_admin: Any) -> list:
    def view(request: HttpRequest, campaign_id: int) -> HttpResponse:
        return gold_import_view(request, campaign_id, model_admin)

    return [
        path(
            "<int:campaign_id>/gold-answers/import/",
            model_admin.admin_site.admin_view(view),
            name="campaigns_campaign_gold_import",
        )
    ]


def gold_import_view(request: HttpRequest, campaign_id: int, model_admin: Any) -> HttpResponse:
    """GET: the upload form; POST: check and import (campaigns/kinds/ranking/gold_import.py),
    back to the campaign's gold answers on success, every problem listed on failure."""
    from campaigns.admin.access import campaign_page_object
    from campaigns.importers.problems import ImportFailed
    from campaigns.kinds.ranking.gold_import import import_gold_answers

    campaign = campaign_page_object(model_admin, request, campaign_id, change=True)
    if campaign.kind != TaskKind.RANKING:
        raise Http404("Gold answers are for ranking campaigns.")
    gold_admin = model_admin.admin_site._registry[GoldAnswer]
    if not gold_admin.has_add_permission(request):
        raise PermissionDenied
    site = model_admin.admin_site.name
    answers_url = (
        reverse(f"{site}:campaigns_goldanswer_changelist")
        + f"?segment__campaign__id__exact={campaign.pk}"
    )
    failure = None
    if request.method == "POST":
        form = GoldImportForm(request.POST, request.FILES)
        if form.is_valid():
            replace = form.cleaned_data["replace"]
            if replace and not gold_admin.has_delete_permission(request):
                raise PermissionDenied
            try:
                summary = import_gold_answers(
                    campaign,
                    form.cleaned_data["file"],
                    fmt=form.cleaned_data["format"] or None,
                    replace=replace,
                )
            except ImportFailed as error:
                failure = error
            else:
                (messages.warning if summary.hits_built else messages.success)(
                    request, summary.message
                )
                return HttpResponseRedirect(answers_url)
    else:
        form = GoldImportForm()
    opts = Campaign._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Import gold answers into {campaign}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "original": campaign,
        "campaign": campaign,
        "answers_url": answers_url,
        "scheme": campaign.ranking_settings.get_gold_scheme_display(),
        "upload": form,
        "problems": failure.problems if failure else [],
        "problem_count": failure.total if failure else 0,
        "omitted": failure.omitted if failure else 0,
        "has_view_permission": True,
    }
    return TemplateResponse(request, "admin/campaigns/campaign/gold_import.html", context)
