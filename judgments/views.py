"""Worker-facing pages. Nothing here may reveal a slot's role, a system name or a gold answer.

The flow for a direct visitor:
  /work/<campaign_id>/          the campaign's entry page, with a Start button (POST, CSRF)
  /work/<campaign_id>/start     creates a pseudonymous worker, redirects to their link
  /work/w/<worker token>/       hands out the worker's next assignment, redirects to its page
  /work/a/<assignment token>/   the task page (or the completion page once submitted)
  /work/a/<token>/item          JSON: the current item (DA) or page of ranking sets, and progress
  /work/a/<token>/submit        JSON POST: one answer (one DA item, or one ranking set)
A campaign that requires the qualification test hands it out first (a ranking HIT like the
others); once its last set is submitted the task page sends the worker on through their link
to their first task, or to the polite refusal.
The task page and its endpoints are authorised by the assignment token alone: no session and
no CSRF cookie (they must work inside MTurk's iframe, where cookies are not sent). Views stay
thin: the hand-out, the state and the submission are judgments.actions functions.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import AssessmentMode, Campaign, CampaignStatus, HitTask
from judgments import actions, tokens
from judgments.actions import FINISHED_ASSIGNMENT_STATUSES, SubmissionError, TaskState
from judgments.entry import background, mturk, prolific
from judgments.entry.framing import allow_mturk_framing
from judgments.entry.pages import (
    INVALID_LINK,
    campaign_title,
    message_page,
    see_other,
    task_url,
    worker_url,
)
from judgments.entry.presenters import present_assess_item, present_rank_set
from judgments.models import Assignment, Worker

# --- Labels of the direct-assessment page ---------------------------------------------------
# The Likert statements of 001 (2014 section 2), the scale's two anchors and the page's few
# words, in the languages campaigns are run in most. "{language}" is the target language's
# name, from Django's LANG_INFO, translated by Django's own catalog into the label language
# (German "Englisch", Chinese "英语"); "lowercase" languages write it in lower case
# ("inglés"). Czech names are adverbs in Django's catalog ("anglicky"), so its sentence is
# built around one. Fallbacks: a campaign's instructions language that is not here is looked
# up by its base ("de-AT" -> "de"), then English labels are used; a target language Django
# does not know is shown by its code.
ASSESS_LABELS: dict[str, dict[str, Any]] = {
    "en": {
        "prompt": "Read the text below and rate how much you agree that:",
        "fluency": "The text is fluent {language}.",
        "adequacy": "The black text adequately expresses the meaning of the gray text.",
        "low": "strongly disagree",
        "high": "strongly agree",
        "hint": "Move the slider to give your answer",
        "next": "Next",
        "progress": "{n} of {total}",
        "lowercase": False,
    },
    "de": {
        "prompt": "Lesen Sie den Text unten und geben Sie an, wie sehr Sie zustimmen:",
        "fluency": "Der Text ist flüssiges {language}.",
        "adequacy": "Der schwarze Text gibt die Bedeutung des grauen Textes angemessen wieder.",
        "low": "stimme überhaupt nicht zu",
        "high": "stimme voll und ganz zu",
        "hint": "Bewegen Sie den Schieberegler, um zu antworten",
        "next": "Weiter",
        "progress": "{n} von {total}",
        "lowercase": False,
    },
    "es": {
        "prompt": "Lea el texto de abajo e indique en qué medida está de acuerdo:",
        "fluency": "El texto está escrito en {language} fluido.",
        "adequacy": "El texto negro expresa adecuadamente el significado del texto gris.",
        "low": "totalmente en desacuerdo",
        "high": "totalmente de acuerdo",
        "hint": "Mueva la barra deslizante para responder",
        "next": "Siguiente",
        "progress": "{n} de {total}",
        "lowercase": True,
    },
    "fr": {
        "prompt": "Lisez le texte ci-dessous et indiquez dans quelle mesure vous êtes d'accord :",
        "fluency": "Le texte est écrit dans un {language} courant.",
        "adequacy": "Le texte noir exprime correctement le sens du texte gris.",
        "low": "pas du tout d'accord",
        "high": "tout à fait d'accord",
        "hint": "Déplacez le curseur pour répondre",
        "next": "Suivant",
        "progress": "{n} sur {total}",
        "lowercase": True,
    },
    "cs": {
        "prompt": "Přečtěte si text níže a ohodnoťte, nakolik souhlasíte s tvrzením:",
        "fluency": "Text je napsán plynule {language}.",
        "adequacy": "Černý text vhodně vyjadřuje význam šedého textu.",
        "low": "rozhodně nesouhlasím",
        "high": "rozhodně souhlasím",
        "hint": "Odpovězte posunutím posuvníku",
        "next": "Další",
        "progress": "{n} z {total}",
        "lowercase": True,
    },
    "zh": {
        "prompt": "请阅读下面的文字，并评价您在多大程度上同意：",
        "fluency": "这段文字是流利的{language}。",
        "adequacy": "黑色文字充分表达了灰色文字的意思。",
        "low": "非常不同意",
        "high": "非常同意",
        "hint": "请移动滑块给出您的回答",
        "next": "下一个",
        "progress": "{n} / {total}",
        "lowercase": False,
    },
    "ru": {
        "prompt": "Прочитайте текст ниже и оцените, насколько вы согласны:",
        "fluency": "Язык текста — беглый {language}.",
        "adequacy": "Чёрный текст адекватно передаёт смысл серого текста.",
        "low": "совершенно не согласен",
        "high": "полностью согласен",
        "hint": "Передвиньте ползунок, чтобы ответить",
        "next": "Далее",
        "progress": "{n} из {total}",
        "lowercase": True,
    },
}
# Language codes Django's LANG_INFO and catalogs know under another name.
DJANGO_LANGUAGE_CODES = {"zh": "zh-hans"}


def labels_language(code: str) -> str:
    """The ASSESS_LABELS key for a campaign's instructions language (blank: English)."""
    code = (code or "en").lower()
    for candidate in (code, code.split("-")[0]):
        if candidate in ASSESS_LABELS:
            return candidate
    return "en"


def language_name(code: str, in_language: str) -> str:
    """The name of language ``code`` written in ``in_language`` (a labels language)."""
    code = code.lower()
    try:
        info = translation.get_language_info(DJANGO_LANGUAGE_CODES.get(code, code))
    except KeyError:
        return code
    with translation.override(DJANGO_LANGUAGE_CODES.get(in_language, in_language)):
        name = gettext(info["name"])
    return name.lower() if ASSESS_LABELS[in_language]["lowercase"] else name


def assess_labels(campaign: Campaign) -> dict[str, str]:
    """Everything the direct-assessment page says, in the campaign's instructions language."""
    lang = labels_language(campaign.instructions_language)
    labels = dict(ASSESS_LABELS[lang], code=lang)
    if campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY:
        labels["statement"] = labels["adequacy"]
    else:
        language = language_name(campaign.target_language, lang)
        labels["statement"] = labels["fluency"].format(language=language)
    return labels


# --- Labels of the ranking page -------------------------------------------------------------
# 002 section 3.4: rank "each whole sentence translation from Best to Worst relative to the
# other choices (ties are allowed)", grades 1 (best) to N. English only for now; another
# language adds its dict here (looked up like ASSESS_LABELS, falling back to English).
# "{n}" is the set's number of outputs.
RANK_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "prompt": "Rank the translations of each sentence from best (1) to worst ({n}), "
        "compared with each other. Ties are allowed: give two translations the same rank when "
        "they are equally good.",
        "keys": "Keyboard: Tab or the up and down arrow keys move between translations; a "
        "number key gives the translation in focus its rank.",
        "source": "Source",
        "reference": "Reference",
        "output": "Translation {letter}",
        "rank_of": "Rank of translation {letter}",
        "set": "Set {n} of {total}",
        "progress_one": "Set {first} of {total}",
        "progress_many": "Sets {first}–{last} of {total}",
        "page": "page {page} of {pages}",
        "saved": "Saved",
        "missing": "Still to rank: {list}",
        "missing_set": "Set {n}: {outputs}",
        "missing_one": "translation {letters}",
        "missing_some": "translations {letters}",
        "missing_all": "all translations",
        "stopped": "Rank every translation before you continue.",
        "next": "Next",
        "submit": "Submit",
        "qualification": "This is a short qualification test. Rank the translations as you "
        "would in the real tasks; when you finish, you will see straight away whether you can "
        "go on to them.",
    },
}


def rank_labels(campaign: Campaign) -> dict[str, str]:
    """Everything the ranking page says, in the campaign's instructions language if we have
    it (else English), with the prompt for the campaign's set size."""
    code = (campaign.instructions_language or "en").lower()
    lang = next((c for c in (code, code.split("-")[0]) if c in RANK_LABELS), "en")
    labels = dict(RANK_LABELS[lang], code=lang)
    labels["prompt"] = labels["prompt"].format(n=campaign.ranking_settings.outputs_per_set)
    return labels


# --- What the endpoints send --------------------------------------------------------------


def _assess_item(state: TaskState) -> dict[str, Any]:
    """The current direct-assessment item (see presenters.present_assess_item)."""
    return present_assess_item(state.shown[0], state.assignment.campaign)


def _rank_page(state: TaskState) -> dict[str, Any]:
    """The ranking sets on the worker's page now (see presenters.present_rank_set), with the
    page's number and the HIT's number of pages."""
    campaign = state.assignment.campaign
    sets = [present_rank_set(unit, campaign) for unit in state.shown]
    return {"page": state.page, "pages": state.pages, "sets": sets}


# One page presenter per HIT task (the "next" of the JSON endpoints), each built on the task's
# unit presenter in judgments.entry.presenters (which MTurk's preview uses too), and its page
# template; later task kinds add theirs, and an answer spec in judgments.actions.TASK_SPECS.
ITEM_PRESENTERS = {HitTask.ASSESS: _assess_item, HitTask.RANK: _rank_page}
TASK_TEMPLATES = {HitTask.ASSESS: "judgments/assess.html", HitTask.RANK: "judgments/rank.html"}


def _state_json(state: TaskState, **extra: Any) -> JsonResponse:
    assignment = state.assignment
    item = None
    if not state.finished:
        presenter = ITEM_PRESENTERS.get(assignment.hit.task)
        if presenter is None:
            return _error_json("This kind of task cannot be shown yet.", 501)
        item = presenter(state)
    body = {
        "ok": True,
        "next": item,
        "done": state.finished,
        "progress": {"done": state.done, "total": state.total},
        **extra,
    }
    return JsonResponse(body, json_dumps_params={"ensure_ascii": False})


def _error_json(message: str, status: int, field: str | None = None) -> JsonResponse:
    return JsonResponse(
        {"ok": False, "error": message, "field": field},
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )


# --- Entry and hand-out ---------------------------------------------------------------------

SESSION_WORKERS = "judgments.direct_workers"


def campaign_entry(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Where a worker arrives for a campaign: its title, instructions and whether it is open."""
    campaign = get_object_or_404(
        Campaign.objects.exclude(status=CampaignStatus.DRAFT), pk=campaign_id
    )
    return render(
        request,
        "judgments/entry.html",
        {
            "campaign": campaign,
            "title": campaign_title(campaign),
            # The qualification test is not one of the tasks a worker is paid for.
            "hit_count": campaign.hits.filter(is_qualification=False).count(),
        },
    )


@require_POST
def campaign_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The entry page's Start button: a pseudonymous worker and a redirect to their link.

    The entry page is for direct visitors, who have a session; it remembers the worker this
    browser started as in each campaign, so pressing Start again (or coming back) continues as
    the same worker instead of splitting one person into many. The worker's link itself is
    the identity: the task pages never read the session.
    """
    campaign = get_object_or_404(
        Campaign.objects.exclude(status=CampaignStatus.DRAFT), pk=campaign_id
    )
    if not campaign.accepts_work:
        return see_other(reverse("judgments:campaign-entry", args=[campaign.pk]))
    started = request.session.get(SESSION_WORKERS, {})
    worker = Worker.objects.filter(pk=started.get(str(campaign.pk))).first()
    if worker is None:
        worker = actions.create_pseudonymous_worker()
        request.session[SESSION_WORKERS] = {**started, str(campaign.pk): worker.pk}
    return see_other(worker_url(worker.pk, campaign.pk))


@never_cache
@require_GET
def worker_link(request: HttpRequest, token: str) -> HttpResponse:
    """A worker's own link: hand out their next assignment and send them to its page.

    A GET with a side effect, since it is a link people click; the hand-out resumes a started
    assignment, so opening the link twice (or a link preview fetching it) hands out nothing
    new while one is open.
    """
    try:
        link = tokens.read_worker_token(token)
    except tokens.BadToken:
        return message_page(request, INVALID_LINK, title="Invalid link", status=404)
    worker = Worker.objects.filter(pk=link.worker_id).first()
    campaign = Campaign.objects.filter(pk=link.campaign_id).first()
    if worker is None or campaign is None:
        return message_page(request, INVALID_LINK, title="Invalid link", status=404)
    hand_out = actions.next_assignment_for(worker, campaign)
    if hand_out.assignment is None:
        return message_page(request, hand_out.reason.label, title=campaign_title(campaign))
    return redirect(task_url(hand_out.assignment))


# --- The task page and its endpoints --------------------------------------------------------


def _read_task_token(token: str) -> tokens.AssignmentLink | None:
    try:
        return tokens.read_assignment_token(token)
    except tokens.BadToken:
        return None


@allow_mturk_framing
@never_cache
@require_GET
def task_page(request: HttpRequest, token: str) -> HttpResponse:
    """The HTML shell of the task (no item in it; the page fetches items), or the completion
    page once the assignment is submitted, or a page saying why the task cannot go on."""
    link = _read_task_token(token)
    if link is None:
        return message_page(request, INVALID_LINK, title="Invalid link", status=404)
    try:
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
    except SubmissionError:
        return message_page(request, INVALID_LINK, title="Invalid link", status=404)
    campaign = assignment.campaign
    title = campaign_title(campaign)
    # An MTurk worker restarts through MTurk's entry URL (the same MTurk assignment), never
    # through the direct-link hand-out, which would give them work MTurk never pays for.
    restart = (
        mturk.mturk_resume_url(assignment) or worker_url(assignment.worker_id, campaign.pk),
        "Get a task",
    )
    if assignment.status in FINISHED_ASSIGNMENT_STATUSES:
        # Prolific participants leave for Prolific's completion page (with the code their
        # work earned); an MTurk task posts back to MTurk from the completion page.
        prolific_done = prolific.prolific_done_response(request, assignment)
        if prolific_done is not None:
            return prolific_done
        mturk_done = mturk.mturk_done_context(assignment)
        if assignment.hit.is_qualification and mturk_done is None:
            # The test is scored: on to the worker's first task, or the polite refusal.
            return redirect(restart[0])
        more = campaign.accepts_work and mturk_done is None
        context = {
            "title": title,
            "link": (restart[0], "Do another task") if more else None,
            "mturk": mturk_done,
        }
        return render(request, "judgments/done.html", context)
    try:
        actions.check_open(assignment)
    except SubmissionError as error:
        return message_page(request, error.message, title=title, status=410, link=restart)
    if background.background_needed(assignment):
        return redirect(reverse("judgments:task-background", args=[token]))
    template = TASK_TEMPLATES.get(assignment.hit.task)
    if template is None:
        return message_page(
            request, "This kind of task cannot be shown yet.", title=title, status=501
        )
    task = assignment.hit.task
    context = {
        "campaign": campaign,
        "title": title,
        "labels": rank_labels(campaign) if task == HitTask.RANK else assess_labels(campaign),
        "show_gray": task == HitTask.ASSESS
        and campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY,
        "qualification": assignment.hit.is_qualification,
        "page_url": request.path,
        "item_url": reverse("judgments:task-item", args=[token]),
        "submit_url": reverse("judgments:task-submit", args=[token]),
        "restart_url": restart[0],
    }
    return render(request, template, context)


@never_cache
@require_GET
def task_item(request: HttpRequest, token: str) -> JsonResponse:
    """JSON: {"ok", "next": the current item or null, "done", "progress": {"done", "total"}}."""
    link = _read_task_token(token)
    if link is None:
        return _error_json(INVALID_LINK, 404)
    try:
        state = actions.current_task_state(link.assignment_id, link.worker_id)
    except SubmissionError as error:
        return _error_json(error.message, error.status, error.field)
    return _state_json(state)


class RepeatedKey(ValueError):
    """A JSON object names a key twice (json.loads would silently keep the last value)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise RepeatedKey(key)
        result[key] = value
    return result


@csrf_exempt  # authorised by the signed token in the URL; MTurk's iframe sends no cookies
@never_cache
@require_POST
def task_submit(request: HttpRequest, token: str) -> JsonResponse:
    """JSON POST of one answer (one DA item, or one ranking set: see
    judgments.actions.record_judgment). Success: the same body as the item endpoint, with the
    next item or page; an identical retry also gets "already_recorded": true. Errors: {"ok": false,
    "error", "field"} with 400 (bad input, out of order), 404 (bad link), 409 (an answered
    item answered differently, or a finished task) or 410 (expired or returned)."""
    link = _read_task_token(token)
    if link is None:
        return _error_json(INVALID_LINK, 404)
    try:
        payload = json.loads(request.body, object_pairs_hook=_object_without_repeats)
    except RepeatedKey as error:
        return _error_json(
            f'The answer names "{error.key[:40]}" more than once; send each field and each '
            "position once.",
            400,
        )
    except ValueError:
        task = (
            Assignment.objects.filter(pk=link.assignment_id, worker_id=link.worker_id)
            .values_list("hit__task", flat=True)
            .first()
        )
        example = actions.TASK_SPECS.get(task, actions.TASK_SPECS[HitTask.ASSESS]).example
        return _error_json(f"The answer could not be read: send JSON such as {example}.", 400)
    try:
        result = actions.record_judgment(link.assignment_id, link.worker_id, payload)
    except SubmissionError as error:
        return _error_json(error.message, error.status, error.field)
    extra = {} if result.created else {"already_recorded": True}
    return _state_json(result.state, **extra)
