"""The worker background form (000 section 5.1), asked once per campaign before the first HIT.

000 asked its translators "how long they had spoken the source language, how long they had
spoken English, what their native language was, and where they lived" (its Table 1). A
campaign with ``ask_background`` asks the same of every worker before their first task:
native language (free text: "English-Spanish bilingual" is an honest answer), country of
residence (ISO 3166), and whole years speaking the campaign's source and target languages.

The native language and country describe the person and are stored on the Worker; the years
depend on the campaign's language pair and are stored on the worker's CampaignWorker, whose
``background_at`` says the form was answered. MTurk workers may arrive with a country already
known from the campaign's locale requirement (``Worker.country_source == mturk_locale``),
which the form pre-selects. Until the form is answered, the task page sends the worker to it
and the task's item and submit endpoints refuse work (409): ``background_needed`` lives with
the task state (``judgments.actions.state``), which both the endpoints and this form use.

The form sits behind the assignment's signed token like the task page (no session, no CSRF
cookie: it is shown inside MTurk's iframe, where cookies are not sent).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import pgettext, pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from django_countries import countries

from campaigns.models import Campaign
from judgments import actions, tokens
from judgments.actions import SubmissionError
from judgments.actions.platform import single_locale_country
from judgments.actions.state import background_needed
from judgments.entry.framing import allow_mturk_framing
from judgments.entry.pages import INVALID_LINK, message_page, see_other
from judgments.entry.words import (
    background_page_words,
    campaign_title,
    campaign_words,
)
from judgments.i18n import language_name
from judgments.models import Assignment, CampaignWorker, CountrySource, Platform, Worker

MAX_YEARS = 120


def _years_field(language: str) -> forms.IntegerField:
    """The years speaking ``language`` (its name in the active language)."""
    return forms.IntegerField(
        label=pgettext("entry page", "For how many years have you spoken {language}?").format(
            language=language
        ),
        help_text=pgettext("entry page", "Whole years; 0 if you do not speak it."),
        min_value=0,
        max_value=MAX_YEARS,
        error_messages={
            "required": pgettext(
                "entry page",
                "Give the number of years you have spoken {language} (0 if you do not speak it).",
            ).format(language=language),
            "invalid": pgettext("entry page", "Give a whole number of years, such as 5."),
            "min_value": pgettext("entry page", "The number of years cannot be negative."),
            "max_value": pgettext("entry page", "Give at most {limit} years.").format(
                limit=MAX_YEARS
            ),
        },
    )


class BackgroundForm(forms.Form):
    """The questions of 000 section 5.1, with the campaign's languages named in words. Its
    words are in the active language when it is made (the campaign's: :func:`background_form`)."""

    native_language = forms.CharField(
        label=pgettext_lazy("entry page", "What is your native language?"),
        max_length=100,
        help_text=pgettext_lazy("entry page", "If you grew up with more than one, name them all."),
        error_messages={
            "required": pgettext_lazy(
                "entry page", "Tell us your native language, for example English or Spanish."
            ),
            "max_length": pgettext_lazy("entry page", "Keep the answer under 100 characters."),
        },
    )
    country = forms.ChoiceField(
        label=pgettext_lazy("entry page", "In which country do you live?"),
        error_messages={
            "required": pgettext_lazy("entry page", "Choose the country you live in."),
            "invalid_choice": pgettext_lazy("entry page", "Choose a country from the list."),
        },
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # django_countries names the countries in the active language.
        self.fields["country"].choices = [
            ("", pgettext("entry page", "Choose a country")),
            *countries,
        ]
        self.fields["years_source_language"] = _years_field(language_name(campaign.source_language))
        self.fields["years_target_language"] = _years_field(language_name(campaign.target_language))


def _initial(worker: Worker, campaign: Campaign) -> dict[str, str]:
    country = worker.country
    if not country and worker.platform == Platform.MTURK:
        country = single_locale_country(campaign.mturk_locales) or ""
    return {"native_language": worker.native_language, "country": country}


def _save(assignment: Assignment, data: dict[str, Any]) -> None:
    """The answers on the worker and their membership, in one transaction; a form answered
    meanwhile (another tab) is kept as it was."""
    with transaction.atomic():
        membership, _ = CampaignWorker.objects.select_for_update().get_or_create(
            campaign_id=assignment.campaign_id, worker_id=assignment.worker_id
        )
        if membership.background_at is not None:
            return
        Worker.objects.filter(pk=assignment.worker_id).update(
            native_language=data["native_language"],
            country=data["country"],
            country_source=CountrySource.FORM,
        )
        membership.years_source_language = data["years_source_language"]
        membership.years_target_language = data["years_target_language"]
        membership.background_at = timezone.now()
        membership.save(
            update_fields=["years_source_language", "years_target_language", "background_at"]
        )


@csrf_exempt  # authorised by the signed token in the URL; MTurk's iframe sends no cookies
@allow_mturk_framing
@never_cache
@require_http_methods(["GET", "POST"])
def background_form(request: HttpRequest, token: str) -> HttpResponse:
    """GET: the form. POST: the answers; invalid ones get the form again (400) with a message
    per field and nothing saved, valid ones are saved and the worker goes on to the task
    (303). A form that is not needed (not asked, already answered, or the task is no longer
    open) sends the worker to the task page, which says what comes next; nothing is saved."""
    try:
        link = tokens.read_assignment_token(token)
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
    except (tokens.BadToken, SubmissionError):
        return message_page(request, INVALID_LINK, status=404)
    task = reverse("judgments:task", args=[token])
    leave = see_other if request.method == "POST" else redirect
    try:
        actions.check_open(assignment)
    except SubmissionError:
        return leave(task)
    if not background_needed(assignment):
        return leave(task)

    campaign = assignment.campaign
    worker = assignment.worker
    with campaign_words(campaign) as language:
        if request.method == "POST":
            form = BackgroundForm(request.POST, campaign=campaign)
            if form.is_valid():
                _save(assignment, form.cleaned_data)
                return see_other(task)
            status = 400
        else:
            form = BackgroundForm(campaign=campaign, initial=_initial(worker, campaign))
            status = 200
        context = {
            "title": campaign_title(campaign),
            "form": form,
            "action": request.path,
            "words": background_page_words(),
            "code": language,
        }
        return render(request, "judgments/background.html", context, status=status)
