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
import time
from contextlib import nullcontext
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.http import http_date
from django.utils.translation import pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from campaigns.models import Campaign, CampaignStatus
from judgments import actions, tokens
from judgments.actions import FINISHED_ASSIGNMENT_STATUSES, SubmissionError, TaskState
from judgments.actions.handout import CLOSED_CAMPAIGN_REASONS, NoWorkReason, open_assignment
from judgments.actions.state import task_state_of
from judgments.entry import background, mturk, prolific, throttle
from judgments.entry.availability import next_task_note, work_for
from judgments.entry.framing import allow_mturk_framing
from judgments.entry.overview import entry_overview
from judgments.entry.pages import (
    INVALID_LINK,
    campaign_title,
    message_page,
    see_other,
    task_url,
    worker_url,
)
from judgments.entry.words import (
    campaign_words,
    consent_words,
    done_page_words,
    entry_page_words,
)
from judgments.kinds import task_page as page_of_task
from judgments.kinds import task_spec, worker_language
from judgments.models import Assignment, Worker

# What Django's never_cache writes on a response without caching headers of its own.
NEVER_CACHE_CONTROL = "max-age=0, no-cache, no-store, must-revalidate, private"


def never_cache_json(view):
    """``never_cache`` for the task page's JSON endpoints, which a worker calls once per
    answer: the same two headers written at once, where Django's parses and rebuilds
    Cache-Control twice (about 50 us of a 2 ms submission, issue 16). A response that has
    either header already gets Django's own."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.has_header("Cache-Control") or response.has_header("Expires"):
            add_never_cache_headers(response)
        else:
            response.headers["Expires"] = http_date(time.time())
            response.headers["Cache-Control"] = NEVER_CACHE_CONTROL
        return response

    return wrapper


# --- What the endpoints send --------------------------------------------------------------
# Each HIT task's page (judgments.kinds.task_page) presents the "next" of the JSON endpoints
# and names its template; a task no kind has a page for cannot be shown (501).


def _state_json(state: TaskState, **extra: Any) -> JsonResponse:
    assignment = state.assignment
    item = None
    if not state.finished:
        page = page_of_task(assignment.hit.task)
        if page is None:
            return _error_json(pgettext("task page", "This kind of task cannot be shown yet."), 501)
        item = page.present(state)
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


def json_method(method: str):
    """``require_GET``/``require_POST`` for the task page's JSON endpoints: another method gets
    405 (with ``Allow``) and the same JSON error body as every other refusal of these
    endpoints, instead of Django's empty HTML 405."""

    def decorator(view):
        @wraps(view)
        def inner(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method != method:
                response = _error_json(
                    pgettext("task page", "Send this request with {method}.").format(method=method),
                    405,
                )
                response["Allow"] = method
                return response
            return view(request, *args, **kwargs)

        return inner

    return decorator


# --- Entry and hand-out ---------------------------------------------------------------------

SESSION_WORKERS = "judgments.direct_workers"


def campaign_entry(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Where a worker arrives for a campaign: its title, instructions and whether it is open."""
    campaign = get_object_or_404(
        Campaign.objects.exclude(status=CampaignStatus.DRAFT), pk=campaign_id
    )
    # What the task is, how long it takes, the pay, open tasks, the consent line.
    overview = entry_overview(campaign)
    progress = overview.progress
    with campaign_words(campaign) as language:
        context = {
            "campaign": campaign,
            "title": campaign_title(campaign),
            "overview": overview,
            "closed": ""
            if campaign.accepts_work
            else CLOSED_CAMPAIGN_REASONS[campaign.status].label,
            "words": entry_page_words(
                duration=overview.duration,
                hits=progress.hits,
                places=progress.places,
                places_open=progress.places_open,
            ),
            # The default line is the page's own words; a requester's is theirs.
            "consent": consent_words(overview.consent, language, campaign.instructions_language),
            "code": language,
        }
        return render(request, "judgments/entry.html", context)


@require_POST
def campaign_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The entry page's Start button: a pseudonymous worker and a redirect to their link.

    The entry page is for direct visitors, who have a session; it remembers the worker this
    browser started as in each campaign, so pressing Start again (or coming back) continues as
    the same worker instead of splitting one person into many. The worker's link itself is
    the identity: the task pages never read the session. New workers are limited per client
    (``settings.START_RATE``, :mod:`judgments.entry.throttle`): over it, 429 and nothing is
    written.
    """
    campaign = get_object_or_404(
        Campaign.objects.exclude(status=CampaignStatus.DRAFT), pk=campaign_id
    )
    if not campaign.accepts_work:
        return see_other(reverse("judgments:campaign-entry", args=[campaign.pk]))
    started = request.session.get(SESSION_WORKERS, {})
    worker = Worker.objects.filter(pk=started.get(str(campaign.pk))).first()
    if worker is None:
        # A new worker is a new task taken from the pool: limited per client (429 over it).
        ticket = throttle.take_start(request)
        if isinstance(ticket, throttle.StartRefused):
            return ticket.response(request, campaign)
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
        return message_page(request, INVALID_LINK, status=404)
    worker = Worker.objects.filter(pk=link.worker_id).first()
    campaign = Campaign.objects.filter(pk=link.campaign_id).first()
    if worker is None or campaign is None:
        return message_page(request, INVALID_LINK, status=404)
    hand_out = actions.next_assignment_for(worker, campaign)
    if hand_out.assignment is None:
        message = hand_out.reason.label
        if hand_out.reason == NoWorkReason.ALL_TAKEN:  # say when work may free up (issue 17)
            with campaign_words(campaign):
                message = next_task_note(work_for(worker, campaign))
        return message_page(request, message, campaign=campaign)
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
        return message_page(request, INVALID_LINK, status=404)
    try:
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
    except SubmissionError:
        return message_page(request, INVALID_LINK, status=404)
    open_assignment(assignment)  # the first opening gives the task its full working time
    # The page's words and messages are in the language of the task's page.
    with worker_language(assignment) as language:
        return _task_page(request, token, assignment, language)


def _task_page(
    request: HttpRequest, token: str, assignment: Assignment, language: str
) -> HttpResponse:
    campaign = assignment.campaign
    title = campaign_title(campaign)
    # An MTurk worker restarts through MTurk's entry URL (the same MTurk assignment), never
    # through the direct-link hand-out, which would give them work MTurk never pays for.
    restart = (
        mturk.mturk_resume_url(assignment) or worker_url(assignment.worker_id, campaign.pk),
        pgettext("task page", "Get a task"),
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
        # "Do another task" only when one is there for this worker; else when work may
        # free up (issue 17: the button led to "no tasks left").
        more = campaign.accepts_work and mturk_done is None
        available = work_for(assignment.worker, campaign) if more else None
        context = {
            "title": title,
            "link": (restart[0], pgettext("task page", "Do another task"))
            if available and available.available
            else None,
            "no_next_task": next_task_note(available)
            if available and not available.available
            else "",
            "mturk": mturk_done,
            "words": done_page_words(),
            "code": language,
        }
        return render(request, "judgments/done.html", context)
    try:
        actions.check_open(assignment)
    except SubmissionError as error:
        return message_page(request, error.message, campaign=campaign, status=410, link=restart)
    if background.background_needed(assignment):
        return redirect(reverse("judgments:task-background", args=[token]))
    page = page_of_task(assignment.hit.task)
    if page is None:
        return message_page(
            request,
            pgettext("task page", "This kind of task cannot be shown yet."),
            campaign=campaign,
            status=501,
        )
    context = {
        **page.template_context(campaign),
        "campaign": campaign,
        "title": title,
        "labels": page.labels(campaign),
        "qualification": assignment.hit.is_qualification,
        "page_url": request.path,
        "item_url": reverse("judgments:task-item", args=[token]),
        "submit_url": reverse("judgments:task-submit", args=[token]),
        "restart_url": restart[0],
    }
    return render(request, page.template, context)


@never_cache_json
@json_method("GET")
def task_item(request: HttpRequest, token: str) -> JsonResponse:
    """JSON: {"ok", "next": the current item or null, "done", "progress": {"done", "total"}}."""
    link = _read_task_token(token)
    if link is None:
        return _error_json(INVALID_LINK, 404)
    try:
        # One load of the assignment (its HIT and campaign with it) for the whole request.
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
        # A task's first item request writes twice (opening it, stamping when its page was
        # served): one transaction, so one commit. On PostgreSQL each commit waits for the
        # WAL flush (4 ms on this machine's disk, more than the request's own work: issue 16,
        # bench/page_speed.py); later requests write nothing and take no transaction.
        writes = assignment.current_served_at is None
        with transaction.atomic() if writes else nullcontext():
            # The item endpoint opens the task too (a page loaded before the deadline was
            # short).
            open_assignment(assignment)
            state = task_state_of(assignment)
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
@never_cache_json
@json_method("POST")
def task_submit(request: HttpRequest, token: str) -> JsonResponse:
    """JSON POST of one answer (one DA item, or one ranking set: see
    judgments.actions.record_judgment). Success: the same body as the item endpoint, with the
    next item or page; an identical retry also gets "already_recorded": true. Errors: {"ok": false,
    "error", "field"} with 400 (bad input, out of order), 404 (bad link), 405 (not a POST),
    409 (an answered item answered differently, or a finished task), 410 (expired or
    returned) or 413 (a body past ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    link = _read_task_token(token)
    if link is None:
        return _error_json(INVALID_LINK, 404)
    try:
        body = request.body
    except RequestDataTooBig:
        return _refused_in_worker_language(link, _too_large, 413)
    try:
        payload = json.loads(body, object_pairs_hook=_object_without_repeats)
    except RepeatedKey as error:
        return _error_json(
            pgettext(
                "task page",
                'The answer names "{key}" more than once; send each field and each position once.',
            ).format(key=error.key[:40]),
            400,
        )
    except (ValueError, RecursionError):  # not JSON, or nested too deeply to decode ([[[[...)
        return _refused_in_worker_language(link, _unreadable, 400)
    try:
        result = actions.record_judgment(link.assignment_id, link.worker_id, payload)
    except SubmissionError as error:
        return _error_json(error.message, error.status, error.field)
    extra = {} if result.created else {"already_recorded": True}
    return _state_json(result.state, **extra)


def _refused_in_worker_language(
    link: tokens.AssignmentLink, message_of, status: int
) -> JsonResponse:
    """A refusal of a body that could not be read, in the language of the worker's page
    (``message_of(task)`` makes the message; an unknown assignment is a bad link, as on
    submit)."""
    try:
        assignment = actions.get_assignment(link.assignment_id, link.worker_id)
    except SubmissionError as error:
        return _error_json(error.message, error.status, error.field)
    with worker_language(assignment):
        return _error_json(message_of(assignment.hit.task), status)


def _unreadable(task: str) -> str:
    """For a body that is not JSON: what to send for the task's kind (a task no kind has a page
    for takes no answers)."""
    spec = task_spec(task)
    if spec is None:
        return pgettext("task answer", "This kind of task cannot take answers here.")
    return pgettext(
        "task page", "The answer could not be read: send JSON such as {example}."
    ).format(example=spec.example)


def _too_large(task: str) -> str:
    """For a body past ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django refuses to read it)."""
    megabytes = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 2**20
    return pgettext("task page", "The answer is too large: send at most {size} MB.").format(
        size=f"{megabytes:g}"
    )
