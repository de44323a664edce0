"""Crowd translation in the admin: the "Choose translations" page
(``<campaign id>/translations/``), where the requester reads every sentence's translations with
their flags and chooses the one kept for the test set (or gives the choice back to the
automatic selection), and on the campaign's page the chosen translations, read-only, after a
link to that page.

The page is the kind's ``admin_urls`` and the inline its ``admin_inlines``
(campaigns/admin/kinds.py adds every kind's URLs and inlines to the campaign admin's). The
flags come from the analytics (``analytics.kinds.translation.translation_flags``), read from
the stored results; saving a choice schedules a recompute, which brings the kept test set, the
scores and the correction HITs up to date. ``<campaign id>/translations/ranking/`` (POST, from
that page) makes the ranking campaign over the translations
(``analytics.kinds.translation.ranking``).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from campaigns.kinds.translation.models import (
    SelectionMethod,
    TranslationChoice,
    ranking_campaign_of,
)
from campaigns.kinds.translation.stages import DONE_STATUSES
from campaigns.models import Campaign, Document, HitSlot, HitTask, Segment

__all__ = ["TranslationChoiceInline", "choose_url", "choose_urls"]

# The radio value that gives a sentence back to the automatic selection.
AUTOMATIC = "auto"


def choose_url(campaign: Campaign) -> str:
    return reverse("admin:campaigns_campaign_translation_choose", args=[campaign.pk])


class TranslationChoiceInline(admin.TabularInline):
    """The requester's choices, read-only: they are made on the Choose translations page."""

    model = TranslationChoice
    fk_name = "campaign"
    extra = 0
    can_delete = False
    template = "admin/campaigns/campaign/translation_choices_inline.html"
    verbose_name = "chosen translation"
    verbose_name_plural = "Crowd translation: translations you chose to keep"
    fields = ("document", "sentence", "translation", "translator", "chosen_by", "chosen_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest):
        return (
            super()
            .get_queryset(request)
            .select_related("segment__document", "judgment__worker", "chosen_by")
            .order_by("segment__document__position", "segment__position")
        )

    @admin.display(description="Document")
    def document(self, choice: TranslationChoice) -> str:
        return choice.segment.document.external_id

    @admin.display(description="Sentence")
    def sentence(self, choice: TranslationChoice) -> str:
        return choice.segment.external_id

    @admin.display(description="Translation kept")
    def translation(self, choice: TranslationChoice) -> str:
        return choice.judgment.text

    @admin.display(description="Translator")
    def translator(self, choice: TranslationChoice) -> str:
        return translator_label(choice.judgment.worker)


def translator_label(worker) -> str:
    if worker.label:
        return f"{worker.external_id} ({worker.label})"
    return worker.external_id


def choose_urls(model_admin) -> list:
    view = model_admin.admin_site.admin_view

    def choose(request: HttpRequest, campaign_id: int) -> HttpResponse:
        return choose_view(request, campaign_id, model_admin)

    def create_ranking(request: HttpRequest, campaign_id: int) -> HttpResponse:
        return create_ranking_view(request, campaign_id, model_admin)

    return [
        path(
            "<int:campaign_id>/translations/",
            view(choose),
            name="campaigns_campaign_translation_choose",
        ),
        path(
            "<int:campaign_id>/translations/ranking/",
            view(create_ranking),
            name="campaigns_campaign_translation_ranking",
        ),
    ]


def create_ranking_view(request: HttpRequest, campaign_id: int, model_admin) -> HttpResponse:
    """POST: make the ranking campaign over the translations
    (``analytics.kinds.translation.ranking``) and go to its page; a refusal is a message on
    the Choose translations page."""
    campaign = _campaign_or_404(request, campaign_id, model_admin)
    if request.method != "POST":
        return HttpResponseRedirect(choose_url(campaign))
    if not model_admin.has_change_permission(request, campaign):
        raise PermissionDenied
    # Imported here: the campaigns app must not load the analytics when the admin loads.
    from analytics.actions import schedule_recompute
    from analytics.kinds.translation.ranking import RankingCampaignError, create_ranking_campaign

    try:
        ranking = create_ranking_campaign(campaign)
    except RankingCampaignError as refused:
        messages.error(request, str(refused))
        return HttpResponseRedirect(choose_url(campaign))
    transaction.on_commit(lambda: schedule_recompute(campaign.pk))
    messages.success(
        request,
        f'Made the ranking campaign "{ranking.name}" over the translations; this campaign now '
        "keeps the best ranked translation of each sentence. Build the ranking campaign's HITs "
        "and activate it.",
    )
    return HttpResponseRedirect(reverse("admin:campaigns_campaign_change", args=[ranking.pk]))


def _campaign_or_404(request: HttpRequest, campaign_id: int, model_admin) -> Campaign:
    # get_object reads the admin's queryset: a campaign not shared with the user is "not
    # found", as on its change page.
    campaign = model_admin.get_object(request, str(campaign_id))
    if campaign is None or not hasattr(campaign, "translation_settings"):
        raise Http404("No translation campaign with this id is shared with you.")
    if not model_admin.has_view_permission(request, campaign):
        raise PermissionDenied
    return campaign


def _analytics(
    campaign: Campaign,
) -> tuple[dict[int, list[str]], dict[int, tuple[int, str]] | None]:
    """The flags of every translation (judgment id -> words) and the automatic kept
    translation of every sentence (segment id -> (judgment id, why); None when the analytics
    do not say), from the stored results of the translation analytics."""
    # Imported here: the campaigns app must not load the analytics when the admin loads.
    from analytics.kinds import translation as analytics

    flags = analytics.translation_flags(campaign)
    kept_of = getattr(analytics, "kept_translations", None)
    return flags, (kept_of(campaign) if kept_of is not None else None)


def choose_view(request: HttpRequest, campaign_id: int, model_admin) -> HttpResponse:
    """GET: one document's sentences (``?page=`` its number), each with its translations;
    POST: the radios of that document (``choice-<segment id>`` = a judgment id or "auto")."""
    from judgments.models import CampaignWorker, Judgment

    campaign = _campaign_or_404(request, campaign_id, model_admin)
    documents = Document.objects.filter(campaign=campaign, segments__isnull=False).distinct()
    paginator = Paginator(documents.order_by("position", "pk"), 1)
    page = paginator.get_page(request.GET.get("page"))
    document = page.object_list[0] if paginator.count else None
    segments = (
        list(Segment.objects.filter(document=document).order_by("position"))
        if document is not None
        else []
    )
    translations = list(
        Judgment.objects.filter(
            campaign=campaign, slot__hit__task=HitTask.TRANSLATE, slot__segment__in=segments
        )
        .exclude(text="")
        .select_related("worker", "assignment", "slot")
        .order_by("slot__segment__position", "pk")
    )
    by_segment: dict[int, list[Any]] = {}
    for judgment in translations:
        by_segment.setdefault(judgment.slot.segment_id, []).append(judgment)
    choices = {
        c.segment_id: c
        for c in TranslationChoice.objects.filter(segment__in=segments).select_related("chosen_by")
    }

    if request.method == "POST":
        if not model_admin.has_change_permission(request, campaign):
            raise PermissionDenied
        changed = _save_choices(request, campaign, segments, by_segment, choices)
        if changed:
            from analytics.actions import schedule_recompute

            transaction.on_commit(lambda: schedule_recompute(campaign.pk))
            messages.success(
                request,
                f"Saved {changed} choice(s). The kept test set and the scores are brought up "
                "to date in the background.",
            )
        else:
            messages.info(request, "Nothing changed.")
        return HttpResponseRedirect(f"{request.path}?page={page.number}")

    flags, automatic = _analytics(campaign)
    ranking_campaign = ranking_campaign_of(campaign)
    excluded = set(
        CampaignWorker.objects.filter(campaign=campaign, excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    corrected = dict(
        HitSlot.objects.filter(
            hit__campaign=campaign, hit__task=HitTask.POST_EDIT, segment__in=segments
        ).values_list("segment_id", "about_judgment_id")
    )
    settings = campaign.translation_settings
    rows = []
    for segment in segments:
        choice = choices.get(segment.pk)
        auto = automatic.get(segment.pk) if automatic is not None else None
        if choice is not None:
            who = choice.chosen_by.get_username() if choice.chosen_by else "a deleted user"
            kept_id = choice.judgment_id
            why = f"chosen by {who} on {choice.chosen_at:%Y-%m-%d %H:%M}"
        elif auto is not None:
            kept_id, why = auto[0], f"automatic: {auto[1]}"
        elif automatic is None:
            kept_id = None
            why = "the automatic choice: see the kept test set in the campaign's results"
        else:
            kept_id = None
            why = (
                "none yet: you choose every sentence's translation"
                if settings.selection_method == SelectionMethod.REQUESTER
                else "none yet (no eligible translation, or the results are not computed yet)"
            )
        rows.append(
            {
                "segment": segment,
                "kept_why": why,
                "chosen": choice is not None,
                "translations": [
                    {
                        "judgment": judgment,
                        "translator": translator_label(judgment.worker),
                        "excluded": judgment.worker_id in excluded,
                        "flags": flags.get(judgment.pk, []),
                        "kept": judgment.pk == kept_id,
                        "checked": choice is not None and judgment.pk == choice.judgment_id,
                        "sent_for_correction": corrected.get(segment.pk) == judgment.pk,
                        # Only what is not plainly done: started, rejected, ...
                        "status": ""
                        if judgment.assignment.status in DONE_STATUSES
                        else judgment.assignment.get_status_display(),
                    }
                    for judgment in by_segment.get(segment.pk, [])
                ],
            }
        )
    opts = Campaign._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Choose translations of {campaign}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "original": campaign,
        "campaign": campaign,
        "document": document,
        "page": page,
        "rows": rows,
        "automatic_value": AUTOMATIC,
        "selection_method": settings.get_selection_method_display(),
        "can_change": model_admin.has_change_permission(request, campaign),
        "has_view_permission": True,
        "ranking_campaign": ranking_campaign,
        "ranking_campaign_url": reverse(
            "admin:campaigns_campaign_change", args=[ranking_campaign.pk]
        )
        if ranking_campaign is not None
        else None,
        "create_ranking_url": reverse(
            "admin:campaigns_campaign_translation_ranking", args=[campaign.pk]
        ),
    }
    return TemplateResponse(request, "admin/campaigns/campaign/translation_choose.html", context)


def _save_choices(
    request: HttpRequest,
    campaign: Campaign,
    segments: list[Segment],
    by_segment: dict[int, list[Any]],
    choices: dict[int, TranslationChoice],
) -> int:
    """Apply the posted radios of one document; return how many sentences changed. A value
    that is not a translation of its sentence is refused with a message."""
    changed = 0
    with transaction.atomic():
        for segment in segments:
            value = request.POST.get(f"choice-{segment.pk}")
            if value is None:
                continue
            current = choices.get(segment.pk)
            if value == AUTOMATIC:
                if current is not None:
                    current.delete()
                    changed += 1
                continue
            candidates = {j.pk: j for j in by_segment.get(segment.pk, [])}
            judgment = candidates.get(int(value)) if value.isdigit() else None
            if judgment is None:
                messages.error(
                    request,
                    f"Sentence {segment.external_id}: that is not one of its translations; "
                    "its choice is unchanged.",
                )
                continue
            if current is not None and current.judgment_id == judgment.pk:
                continue
            TranslationChoice.objects.update_or_create(
                segment=segment,
                defaults={"campaign": campaign, "judgment": judgment, "chosen_by": request.user},
            )
            changed += 1
    return changed
