"""Prolific's study URL and completion redirect.

A Prolific study points at ``/work/prolific/<campaign id>/`` with Prolific's placeholders
``PROLIFIC_PID``, ``STUDY_ID`` and ``SESSION_ID`` (``campaigns.links.prolific_study_url``).
The participant id is the worker's identity (``Worker(platform=prolific, external_id=PID)``);
the session id is stored on the assignment the session received (its
``platform_assignment_id``, with the study id in ``platform_hit_id``), so that opening the
study URL again in the same session leads back to the same task, a session id can never
open somebody else's task or one of another study, and a started task that holds a session
is opened by that session only: a participant id alone (which is no secret: it travels in
every study URL) does not open another person's task, whatever session id comes with it. A
visit without a session id is refused (400): every study URL carries one. A task whose time
ran out is released: the hand-out may start it again for a later session, which it then
belongs to.

One Prolific submission is one HIT (after the qualification test, when the campaign requires
it): when the HIT is finished the task page sends the participant to Prolific's completion
URL with the campaign's completion code, or with the "failed" code (or no code) when the
worker failed quality control (:func:`quality_control_failures`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import pgettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaigns.models import Campaign, CampaignStatus
from judgments import tokens
from judgments.actions import (
    CLOSED_CAMPAIGN_REASONS,
    FINISHED_ASSIGNMENT_STATUSES,
    HandOut,
    HandOutKind,
    next_assignment_for,
)
from judgments.entry import throttle
from judgments.entry.pages import INVALID_LINK, invalid_link_page, message_page, task_url
from judgments.kinds import failure_reason, kind_of
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Platform, Worker

logger = logging.getLogger(__name__)

# Prolific ids (participants, studies, sessions) are 24 hexadecimal digits (MongoDB object
# ids). The participant id must have that form; the study and session ids are only required to
# be short and alphanumeric, so that a change of format on Prolific's side does not lock
# participants out, while nothing but letters and digits is ever stored or put in a URL.
PARTICIPANT_ID = re.compile(r"^[0-9a-fA-F]{24}$")
STUDY_OR_SESSION_ID = re.compile(r"^[A-Za-z0-9]{1,64}$")

NOT_FROM_PROLIFIC = pgettext_lazy(
    "entry page",
    "This address is for Prolific participants. Open the study from your Prolific account, "
    "so that your Prolific ID comes with it.",
)
PLACEHOLDERS_LEFT = pgettext_lazy(
    "entry page",
    "This link still holds Prolific's placeholders instead of your Prolific ID. Open the "
    "study from your Prolific account: Prolific fills them in.",
)
BAD_PARAMETER = pgettext_lazy(
    "entry page",
    "This link's {name} is not one Prolific would send. Open the study again from your "
    "Prolific account, without changing the link.",
)
MISSING_PARAMETER = pgettext_lazy(
    "entry page",
    "This link has no {name}, which every Prolific study link carries. Open the study again "
    "from your Prolific account, without changing the link.",
)
# Translators: the participant id's name in "This link's {name} is not one Prolific would
# send"; {parameter} is the link's parameter, PROLIFIC_PID, as it is.
PARTICIPANT_ID_NAME = pgettext_lazy("entry page", "Prolific ID ({parameter})")
WRONG_STUDY = pgettext_lazy(
    "entry page",
    "This link belongs to another Prolific study than the one this task is for. Open the "
    "study again from your Prolific account, without changing the link.",
)
RETURN_THE_STUDY = pgettext_lazy(
    "entry page",
    "Thank you for taking part. Your answers are saved, but they did not meet the "
    "requirements of this study, so there is no completion code for you. Please return your "
    'submission on Prolific (in the study, choose "Return submission").',
)
OPEN_IN_ANOTHER_SESSION = pgettext_lazy(
    "entry page",
    "Your task in this study is open in another Prolific session. Go on with it from that "
    "session in your Prolific account. If you returned that session, open the study again once "
    "the task's time has run out: an unfinished task is then released.",
)
NO_CODE_SET_UP = pgettext_lazy(
    "entry page",
    "Thank you! Your answers are saved. This study's completion code has not been set up "
    "yet, so please go back to Prolific and send the researcher a message there: they will "
    "record your submission.",
)


@dataclass(frozen=True)
class ProlificParameters:
    participant_id: str
    study_id: str
    session_id: str


def read_parameters(query: QueryDict) -> ProlificParameters | Promise:
    """The three Prolific parameters of a study URL, checked; or the message for the
    participant saying what is wrong with the link."""
    participant = query.get("PROLIFIC_PID", "").strip()
    if not participant:
        return NOT_FROM_PROLIFIC
    if "{{%" in participant or "%}}" in participant:
        return PLACEHOLDERS_LEFT
    if not PARTICIPANT_ID.match(participant):
        name = format_lazy(PARTICIPANT_ID_NAME, parameter="PROLIFIC_PID")
        return format_lazy(BAD_PARAMETER, name=name)
    values = {}
    for name in ("STUDY_ID", "SESSION_ID"):
        value = query.get(name, "").strip()
        if value and not STUDY_OR_SESSION_ID.match(value):
            return format_lazy(BAD_PARAMETER, name=name)
        values[name] = value
    for name in ("STUDY_ID", "SESSION_ID"):
        if not values[name]:
            # Every study URL (campaigns.links.prolific_study_url) carries both, and Prolific
            # fills them in: a visit without one did not come from a study. The session id is
            # what keeps a participant's task theirs (the participant id is no secret), so a
            # visit without one is refused whether or not the campaign names its study.
            return format_lazy(MISSING_PARAMETER, name=name)
    # Prolific writes its ids in lower case; one spelling keeps one person one worker.
    return ProlificParameters(
        participant_id=participant.lower(),
        study_id=values["STUDY_ID"],
        session_id=values["SESSION_ID"],
    )


def _attach_session(
    assignment: Assignment, parameters: ProlificParameters, *, restarted: bool
) -> None:
    """Store the session and study ids on the handed-out assignment.

    A started task keeps the session it was handed out in, so an assignment that already
    has one is left as it was; one the hand-out started again (``restarted``: it had expired,
    with the session it was handed out in) moves to this visit's session, so that this
    session, not the lapsed one, opens it from now on.

    One conditional UPDATE, so two tabs of one session cannot both write; a session id that
    another assignment took meanwhile (the unique constraint) leaves this one as it was.
    """
    fields = {
        "platform_hit_id": parameters.study_id,
        "platform_assignment_id": parameters.session_id,
    }
    rows = Assignment.objects.filter(pk=assignment.pk)
    if not restarted:
        rows = rows.filter(platform_assignment_id="")
    try:
        with transaction.atomic():
            rows.update(**fields)
    except IntegrityError:
        logger.warning(
            "Prolific session %s is already stored on another assignment; assignment %d keeps "
            "its own",
            parameters.session_id,
            assignment.pk,
        )


@never_cache
@require_GET
def prolific_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Where a Prolific study sends its participants: their task, or why there is none.

    A session id already stored on an assignment leads back to that assignment (if it is this
    participant's, in this campaign and study: else the link is refused and nothing is
    written). Any other visit gets the participant's next assignment from the shared hand-out,
    which resumes a started one, unless that started one already holds a session: it was
    handed out in another session, so the visit is refused (404) and nothing is written.
    """
    campaign = Campaign.objects.exclude(status=CampaignStatus.DRAFT).filter(pk=campaign_id).first()
    if campaign is None:
        return message_page(request, INVALID_LINK, status=404)
    parameters = read_parameters(request.GET)
    if not isinstance(parameters, ProlificParameters):
        return message_page(request, parameters, campaign=campaign, status=400)
    refused = _refused_for_study(campaign, parameters)
    if refused:
        return message_page(request, refused, campaign=campaign, status=403)

    earlier = (
        Assignment.objects.filter(platform_assignment_id=parameters.session_id)
        .values(
            "pk",
            "campaign_id",
            "worker_id",
            "platform_hit_id",
            "worker__platform",
            "worker__external_id",
        )
        .first()
    )
    if earlier is not None:
        # A session belongs to one participant in one study: the stored study id must match
        # too (Prolific's ids are compared without regard to case, as the study check does).
        own = (
            earlier["campaign_id"] == campaign.pk
            and earlier["worker__platform"] == Platform.PROLIFIC
            and earlier["worker__external_id"] == parameters.participant_id
            and earlier["platform_hit_id"].lower() == parameters.study_id.lower()
        )
        if not own:
            logger.warning(
                "Prolific participant %s presented session %s of study %s, which belongs to "
                "assignment %d of another worker, campaign or study",
                parameters.participant_id,
                parameters.session_id,
                parameters.study_id,
                earlier["pk"],
            )
            return invalid_link_page(request, campaign)
        token = tokens.assignment_token(earlier["pk"], earlier["worker_id"])
        return redirect(reverse("judgments:task", args=[token]))

    if not campaign.accepts_work:  # checked before a new participant is stored
        return message_page(
            request, CLOSED_CAMPAIGN_REASONS[campaign.status].label, campaign=campaign
        )
    # A visit that may take a task from the pool counts against the client's start limit
    # (judgments.entry.throttle); one that only resumes a task gives its start back.
    ticket = throttle.take_start(request)
    if isinstance(ticket, throttle.StartRefused):
        return ticket.response(request, campaign)
    hand_out = _hand_out(campaign, parameters)
    if hand_out is None or hand_out.assignment is None or hand_out.kind == HandOutKind.RESUMED:
        ticket.give_back()  # nothing new was taken from the pool
    if hand_out is None:
        return message_page(request, OPEN_IN_ANOTHER_SESSION, campaign=campaign, status=404)
    if hand_out.assignment is None:
        return message_page(request, hand_out.reason.label, campaign=campaign)
    return redirect(task_url(hand_out.assignment))


def _refused_for_study(campaign: Campaign, parameters: ProlificParameters) -> Promise | str:
    """Issue 11 item 3: with the campaign's Prolific study id set, only that study's visits may
    be handed a task (Prolific fills it into every study link); anyone typing another study's
    id into the address is turned away before anything is written. (Every visit carries its
    session id: ``read_parameters`` refuses one without.) The message for the participant, or
    "" when the visit may go on."""
    expected = campaign.prolific_study_id
    if not expected or parameters.study_id.lower() == expected.lower():
        return ""
    logger.warning(
        "Prolific visit to campaign %d refused: study id %s, expected %s",
        campaign.pk,
        parameters.study_id,
        expected,
    )
    return WRONG_STUDY


def _hand_out(campaign: Campaign, parameters: ProlificParameters) -> HandOut | None:
    """The participant's hand-out, with the visit's session stored on the task; None (nothing
    written) when their started task belongs to another session."""
    # Under the campaign's lock from the check to the stored session, so that no other visit
    # of this participant can be handed the task in between.
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        other_session = _session_of_resumable_task(campaign, parameters.participant_id)
        if other_session:
            logger.warning(
                "Prolific participant %s opened campaign %d with session %r, but their started "
                "task belongs to session %s; it was not handed over",
                parameters.participant_id,
                campaign.pk,
                parameters.session_id,
                other_session,
            )
            return None
        worker, _ = Worker.objects.get_or_create(
            platform=Platform.PROLIFIC, external_id=parameters.participant_id
        )
        hand_out = next_assignment_for(worker, campaign)
        if hand_out.assignment is not None:
            restarted = hand_out.kind == HandOutKind.REACTIVATED
            _attach_session(hand_out.assignment, parameters, restarted=restarted)
    return hand_out


def _session_of_resumable_task(campaign: Campaign, participant_id: str) -> str:
    """The session stored on the started task the hand-out would resume for the participant
    (their started, unexpired assignment in ``campaign`` that comes first by HIT number, as in
    ``next_assignment_for``); "" when there is none or it holds no session.

    Called only after a session id given with the visit matched no assignment, so a stored
    session here is never the visit's own."""
    stored = (
        Assignment.objects.filter(
            campaign=campaign,
            worker__platform=Platform.PROLIFIC,
            worker__external_id=participant_id,
            status=AssignmentStatus.STARTED,
            expires_at__gt=timezone.now(),
        )
        .order_by("hit__number")
        .values_list("platform_assignment_id", flat=True)
        .first()
    )
    return stored or ""


# --- Quality control and the completion code -------------------------------------------------


def quality_control_failures(campaign: Campaign, worker_ids: Iterable[int]) -> dict[int, str]:
    """The workers among ``worker_ids`` who failed quality control in ``campaign``, with the
    reason (for the requester; never shown to the worker). One query for any number of
    workers, and the kind's own (direct assessment: one more).

    A worker failed when the requester excluded them, when the gold checks made them
    untrusted (002 section 4), when they failed the qualification test, or when the
    campaign's kind fails them (``JudgmentKind.qc_failures``: in a direct-assessment campaign,
    when the stored reliability result recommends rejecting them, i.e. clear random clicking).
    """
    ids = sorted(set(worker_ids))
    failures: dict[int, str] = {}
    memberships = CampaignWorker.objects.filter(campaign=campaign, worker_id__in=ids).values_list(
        "worker_id",
        "excluded",
        "excluded_reason",
        "untrusted",
        "untrusted_reason",
        "qualification_passed",
        "qualification_score",
    )
    for worker_id, excluded, excluded_why, untrusted, untrusted_why, passed, score in memberships:
        if excluded:
            failures[worker_id] = failure_reason("Excluded by the requester", excluded_why)
        elif untrusted:
            failures[worker_id] = failure_reason("Untrusted after the gold checks", untrusted_why)
        elif passed is False:
            shown = "" if score is None else f"score {score:.0%}"
            failures[worker_id] = failure_reason("Failed the qualification test", shown)
    kind = kind_of(campaign)
    if kind is not None:
        for worker_id, reason in kind.qc_failures(campaign, ids).items():
            failures.setdefault(worker_id, reason)
    return failures


def failed_quality_control(campaign: Campaign, worker_id: int) -> bool:
    return worker_id in quality_control_failures(campaign, [worker_id])


def completion_url(code: str) -> str:
    """Prolific's completion URL carrying ``code``."""
    base = settings.PROLIFIC_COMPLETION_URL
    return f"{base}{'&' if '?' in base else '?'}{urlencode({'cc': code})}"


def _finished_regular_assignment_exists(assignment: Assignment) -> bool:
    return Assignment.objects.filter(
        campaign_id=assignment.campaign_id,
        worker_id=assignment.worker_id,
        hit__is_qualification=False,
        status__in=FINISHED_ASSIGNMENT_STATUSES,
    ).exists()


def prolific_done_response(request: HttpRequest, assignment: Assignment) -> HttpResponse | None:
    """What a Prolific participant gets once their assignment is finished: the redirect to
    Prolific's completion page with the code their work earned, or a page saying what to do.
    None for workers of other platforms, and for a passed qualification test (the task page
    then sends the participant on to their first HIT), unless the participant already
    finished a HIT after it: that finished the session, and going back to the test's page
    must not start another, unpaid, HIT.
    """
    if assignment.worker.platform != Platform.PROLIFIC:
        return None
    campaign = assignment.campaign
    if assignment.hit.is_qualification:
        passed = (
            CampaignWorker.objects.filter(campaign=campaign, worker_id=assignment.worker_id)
            .values_list("qualification_passed", flat=True)
            .first()
        )
        if passed is not False and not _finished_regular_assignment_exists(assignment):
            return None
    return completion_response(request, campaign, assignment.worker_id)


def completion_response(request: HttpRequest, campaign: Campaign, worker_id: int) -> HttpResponse:
    """The redirect with the completion (or failed) code for ``worker_id``, or the page that
    tells them what to do when the campaign has no code for them."""
    if failed_quality_control(campaign, worker_id):
        if campaign.prolific_failed_code:
            return HttpResponseRedirect(completion_url(campaign.prolific_failed_code))
        return message_page(request, RETURN_THE_STUDY, campaign=campaign)
    if campaign.prolific_completion_code:
        return HttpResponseRedirect(completion_url(campaign.prolific_completion_code))
    logger.warning(
        "Campaign %d has no Prolific completion code: worker %d finished and was asked to "
        "message the researcher on Prolific. Set the code in the campaign's Prolific settings.",
        campaign.pk,
        worker_id,
    )
    return message_page(request, NO_CODE_SET_UP, campaign=campaign)


__all__ = [
    "ProlificParameters",
    "completion_response",
    "completion_url",
    "failed_quality_control",
    "prolific_done_response",
    "prolific_start",
    "quality_control_failures",
    "read_parameters",
]
