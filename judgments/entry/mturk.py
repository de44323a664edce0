"""MTurk's ExternalQuestion entry point: every published HIT's ExternalURL is
``/work/mturk/<hit id>/`` (``PUBLIC_BASE_URL`` in front), which MTurk shows in an iframe on its
worker site with ``assignmentId``, ``hitId``, ``workerId`` and ``turkSubmitTo`` appended.

- Preview (``assignmentId`` missing or ``ASSIGNMENT_ID_NOT_AVAILABLE``, before the worker
  accepts): the HIT's first unit, read-only, with every input disabled; nothing is written.
- Accept: the worker and the assignment are created (or resumed), then the worker goes to the
  ordinary task page, authorised by its signed assignment token alone (no cookie reaches us
  inside MTurk's frame). Answers are stored as the worker goes, by the task page's endpoints.
- Done: the completion page posts ``assignmentId`` to ``turkSubmitTo`` +
  ``/mturk/externalSubmit`` (:func:`mturk_done_context`), which is how MTurk learns the
  assignment was submitted.

MTurk's parameters come from the worker's browser, so they are checked: the HIT must have
been published on MTurk (an ``MTurkHit`` row; any other HIT is not found, so nobody can
create workers and assignments on work MTurk never offered, past its redundancy and
qualification requirements), the ids must look like MTurk's, ``hitId`` must be the HIT we
published there, and ``turkSubmitTo`` must be the host of the MTurk site the HIT is on (the
sandbox's for a sandbox HIT, production's otherwise; any further host in
``settings.MTURK_SUBMIT_HOSTS``, such as a test's stand-in, is accepted for both): otherwise
a forged link could make our page post a worker's assignment id to any site.

None of this proves that MTurk made the accept: the ids can be made up. So the accept takes one
of the HIT's ``MaxAssignments`` places, counted here (a HIT whose places are all held refuses
with 409 and a page that says so), and the judgments of an assignment count in the scores only
once MTurk has reported it, at the sync (``judgments.models.held_back_from_scores``). Since
made-up accepts could then hold every place of the published HITs for the campaign's working
time, shutting out the workers MTurk really assigned, an accept that takes a place counts
against the client's start limit (``settings.START_RATE``, :mod:`judgments.entry.throttle`),
as a direct start does; reloads do not. MTurk's API cannot confirm an accept before the
worker submits (it lists submitted assignments only), so the limit is the defence: a client
with many addresses can still hold places, up to the limit per address.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from babel.lists import format_list
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import pgettext, pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaigns.models import CampaignStatus, Hit
from campaigns.platforms.models import MTurkHit
from judgments import actions
from judgments.actions import (
    CLOSED_CAMPAIGN_REASONS,
    HandOutKind,
    MTurkAcceptRefused,
    NoWorkReason,
)
from judgments.entry import throttle
from judgments.entry.framing import allow_mturk_framing
from judgments.entry.pages import INVALID_LINK, invalid_link_page, message_page, task_url
from judgments.entry.presenters import first_unit
from judgments.entry.words import campaign_title, campaign_words, sentences
from judgments.i18n import babel_locale
from judgments.kinds import task_page
from judgments.models import Assignment, Platform

# Accepts that take one of the HIT's places (a new assignment, or an expired one started
# again): they count against the start limit.
PLACE_TAKING_HAND_OUTS = (HandOutKind.NEW, HandOutKind.REACTIVATED)
# MTurk sends this as assignmentId while the worker previews a HIT they have not accepted.
PREVIEW_ASSIGNMENT_ID = "ASSIGNMENT_ID_NOT_AVAILABLE"
# MTurk's worker, assignment and HIT ids: capital letters and digits (case matters).
MTURK_ID = re.compile(r"[A-Z0-9]{1,64}")
EXTERNAL_SUBMIT_PATH = "/mturk/externalSubmit"

ACCEPT_TO_START = pgettext_lazy("entry page", "Accept the HIT to start.")
RETURN_THE_HIT = pgettext_lazy("entry page", "Please return this HIT on MTurk.")
OPEN_FROM_MTURK = pgettext_lazy("entry page", "Open the HIT again from MTurk's website.")
# Refusals that will not change for this worker (410 Gone); a paused campaign may reopen.
LASTING_REFUSALS = {
    NoWorkReason.FINISHED,
    NoWorkReason.EXCLUDED,
    NoWorkReason.UNTRUSTED,
    NoWorkReason.NOT_QUALIFIED,
}


# The externalSubmit host of each MTurk site, by MTurkHit.sandbox.
SANDBOX_SUBMIT_HOST = "https://workersandbox.mturk.com"
PRODUCTION_SUBMIT_HOST = "https://www.mturk.com"
SUBMIT_HOST_OF_SITE = {True: SANDBOX_SUBMIT_HOST, False: PRODUCTION_SUBMIT_HOST}


def submit_host(turk_submit_to: str) -> str | None:
    """``turk_submit_to`` without one trailing slash, if it is exactly one of
    ``settings.MTURK_SUBMIT_HOSTS``; else None."""
    host = turk_submit_to[:-1] if turk_submit_to.endswith("/") else turk_submit_to
    allowed = {
        entry[:-1] if entry.endswith("/") else entry for entry in settings.MTURK_SUBMIT_HOSTS
    }
    return host if host and host in allowed else None


def submit_host_problem(turk_submit_to: str, published: MTurkHit) -> str | None:
    """Why ``turk_submit_to`` cannot receive ``published``'s assignments, one sentence in the
    active language; None when it can: an allowed host (:func:`submit_host`) that, if it is one
    of MTurk's own two, is the one of the site the HIT is on. Parameter names and addresses
    stay as they are in every language."""
    host = submit_host(turk_submit_to)
    if host is None:
        # Translators: {parameter} is the link's parameter turkSubmitTo and {addresses} the
        # addresses it may hold ("https://www.mturk.com or https://workersandbox.mturk.com"),
        # both as they are.
        return pgettext(
            "entry page",
            "The link's {parameter} is not one of MTurk's addresses ({addresses}), so this page "
            "could not send your work back to MTurk.",
        ).format(
            parameter="turkSubmitTo",
            addresses=format_list(
                list(settings.MTURK_SUBMIT_HOSTS), style="or", locale=babel_locale()
            ),
        )
    expected = SUBMIT_HOST_OF_SITE[published.sandbox]
    if host in SUBMIT_HOST_OF_SITE.values() and host != expected:
        if published.sandbox:
            # Translators: {parameter} is the link's parameter turkSubmitTo, {host} the address
            # it holds and {expected} the right one, all as they are.
            wrong_site = pgettext(
                "entry page",
                "This HIT is on MTurk's sandbox, but the link's {parameter} is {host}, the "
                "address of MTurk's production site, so this page would send your work to the "
                "wrong site instead of {expected}.",
            )
        else:
            # Translators: as above, the other way round.
            wrong_site = pgettext(
                "entry page",
                "This HIT is on MTurk's production site, but the link's {parameter} is {host}, "
                "the address of MTurk's sandbox, so this page would send your work to the wrong "
                "site instead of {expected}.",
            )
        return wrong_site.format(parameter="turkSubmitTo", host=host, expected=expected)
    return None


def _published(hit: Hit) -> MTurkHit | None:
    try:
        return hit.mturk
    except ObjectDoesNotExist:
        return None


def _id_problem(params: QueryDict, name: str, missing: str, malformed: str) -> str | None:
    """``missing`` or ``malformed`` (messages with a {parameter}) when MTurk's id ``name`` is
    missing or not in MTurk's form; None when it is fine."""
    value = params.get(name, "")
    if not value:
        return missing.format(parameter=name)
    if not MTURK_ID.fullmatch(value):
        return malformed.format(parameter=name)
    return None


def accept_problems(params: QueryDict, published: MTurkHit) -> list[str]:
    """What is wrong with the parameters of an accepted ``published`` HIT, one sentence each
    in the active language (none: all fine). MTurk's parameter names and addresses stay as
    they are in every language."""
    worker = (
        # Translators: {parameter} is the name of the link's parameter (workerId,
        # assignmentId, hitId), as it is.
        pgettext("entry page", "The link has no {parameter}, MTurk's id of your worker account."),
        pgettext(
            "entry page",
            "The {parameter} in the link is not MTurk's id of your worker account (capital "
            "letters and digits).",
        ),
    )
    assignment = (
        pgettext("entry page", "The link has no {parameter}, MTurk's id of your assignment."),
        pgettext(
            "entry page",
            "The {parameter} in the link is not MTurk's id of your assignment (capital letters "
            "and digits).",
        ),
    )
    hit = (
        pgettext("entry page", "The link has no {parameter}, MTurk's id of the HIT."),
        pgettext(
            "entry page",
            "The {parameter} in the link is not MTurk's id of the HIT (capital letters and "
            "digits).",
        ),
    )
    return [
        problem
        for problem in (
            _id_problem(params, "workerId", *worker),
            _id_problem(params, "assignmentId", *assignment),
            _id_problem(params, "hitId", *hit),
            submit_host_problem(params.get("turkSubmitTo", ""), published),
        )
        if problem
    ]


@allow_mturk_framing
@never_cache
@require_GET
def mturk_task(request: HttpRequest, hit_id: int) -> HttpResponse:
    """MTurk's frame: the preview before the worker accepts the HIT, then the hand-over to
    the task page (see the module docstring)."""
    hit = (
        Hit.objects.select_related("campaign", "mturk")
        .exclude(campaign__status=CampaignStatus.DRAFT)
        .filter(pk=hit_id)
        .first()
    )
    # A HIT never published on MTurk has no MTurk page: nobody may preview or accept it here.
    published = None if hit is None else _published(hit)
    if published is None:
        return message_page(request, INVALID_LINK, status=404)
    params = request.GET
    given_hit_id = params.get("hitId", "")
    if given_hit_id and given_hit_id != published.mturk_hit_id:
        return invalid_link_page(request, hit.campaign)

    assignment_id = params.get("assignmentId", "")
    if assignment_id in ("", PREVIEW_ASSIGNMENT_ID):
        return _preview(request, hit)

    with campaign_words(hit.campaign):
        problems = accept_problems(params, published)
        message = str(sentences(*problems, OPEN_FROM_MTURK)) if problems else ""
    if problems:
        return message_page(request, message, campaign=hit.campaign, status=400)
    # An accept that takes a place counts against the client's start limit, as a direct
    # start does (judgments.entry.throttle): made-up ids could otherwise fill every place of
    # every published HIT for the campaign's working time. Opening one's own assignment
    # again (MTurk's frame reloaded) is never limited; an accept that took no place gives its
    # start back.
    reopened = Assignment.objects.filter(
        platform_assignment_id=assignment_id,
        hit=hit,
        worker__platform=Platform.MTURK,
        worker__external_id=params["workerId"],
    ).exists()
    ticket = throttle.StartTicket() if reopened else throttle.take_start(request)
    if isinstance(ticket, throttle.StartRefused):
        return ticket.response(request, hit.campaign)
    # accept_problems refused a missing hitId and the check above any other: it is the
    # published HIT's id, which is what the assignment stores.
    try:
        hand_out = actions.accept_mturk_assignment(
            hit,
            worker_external_id=params["workerId"],
            assignment_id=assignment_id,
            hit_id=published.mturk_hit_id,
            turk_submit_to=submit_host(params["turkSubmitTo"]),
        )
    except MTurkAcceptRefused as refused:
        ticket.give_back()
        if refused.status == 404:
            return invalid_link_page(request, hit.campaign)
        return message_page(request, refused.message, campaign=hit.campaign, status=refused.status)
    if hand_out.kind not in PLACE_TAKING_HAND_OUTS:
        ticket.give_back()  # a reload of a live or finished assignment, or no task at all
    if hand_out.assignment is None:
        reason = hand_out.reason
        status = 410 if reason in LASTING_REFUSALS else 200
        message = sentences(reason.label, RETURN_THE_HIT)
        return message_page(request, message, campaign=hit.campaign, status=status)
    return redirect(task_url(hand_out.assignment))


# --- The preview ----------------------------------------------------------------------------


def _preview(request: HttpRequest, hit: Hit) -> HttpResponse:
    """The HIT before it is accepted: title, instructions and the first unit read-only (the
    sample its kind's page makes of it, in the page's preview template). No worker,
    assignment or membership is written: MTurk shows previews to anyone. A task no kind has a
    page for shows its title and instructions only."""
    campaign = hit.campaign
    page = task_page(hit.task)
    labels = {} if page is None else page.labels(campaign)
    sample = None
    first = None if page is None else first_unit(hit)
    if first is not None:
        sample = page.preview_sample(*first, campaign, labels)
    with campaign_words(campaign) as language:
        if campaign.accepts_work:
            notice = str(ACCEPT_TO_START)
        else:
            closed = CLOSED_CAMPAIGN_REASONS[campaign.status].label
            notice = str(sentences(closed, pgettext("entry page", "Do not accept this HIT now.")))
        title = campaign_title(campaign)
    context = {
        "campaign": campaign,
        "title": title,
        "notice": notice,
        "notice_code": language,
        "labels": labels,
        "sample": sample,
        "sample_template": None if sample is None else page.preview_template,
        "preview_class": "" if sample is None else page.preview_class,
    }
    return render(request, "judgments/mturk_preview.html", context)


# --- The completion page --------------------------------------------------------------------


def mturk_done_context(assignment: Assignment) -> dict[str, str] | None:
    """Where the completion page posts an MTurk assignment: ``{"action": turkSubmitTo +
    /mturk/externalSubmit, "assignment_id": MTurk's assignmentId}``; None for assignments that
    did not come from MTurk, or whose turkSubmitTo is no longer an allowed MTurk host."""
    if not assignment.turk_submit_to or not assignment.platform_assignment_id:
        return None
    if assignment.worker.platform != Platform.MTURK:
        return None
    host = submit_host(assignment.turk_submit_to)
    if host is None:
        return None
    return {
        "action": host + EXTERNAL_SUBMIT_PATH,
        "assignment_id": assignment.platform_assignment_id,
    }


def mturk_resume_url(assignment: Assignment) -> str | None:
    """The MTurk entry URL that resumes an MTurk assignment (started again if it expired
    here), with the parameters MTurk gave it; None for other assignments. An MTurk worker's
    "get a task" link must lead here: the direct hand-out would give them work MTurk does not
    know about, and never pay for."""
    if not assignment.platform_assignment_id or not assignment.turk_submit_to:
        return None
    if assignment.worker.platform != Platform.MTURK:
        return None
    params = {
        "assignmentId": assignment.platform_assignment_id,
        "hitId": assignment.platform_hit_id,
        "workerId": assignment.worker.external_id,
        "turkSubmitTo": assignment.turk_submit_to,
    }
    return reverse("judgments:mturk-task", args=[assignment.hit_id]) + "?" + urlencode(params)
