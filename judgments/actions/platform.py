"""Accepting a crowd platform's assignment: the MTurk worker who accepted one of our HITs.

MTurk, not the hand-out, decides who works on which HIT: the worker picks the HIT on MTurk,
MTurk enforces its qualification requirements and its redundancy (``MaxAssignments``), and
then frames our task page with its ``assignmentId``. So this action does not choose a HIT; it
records the worker and the assignment MTurk gave them (created, resumed or re-used), under the
same campaign lock as ``next_assignment_for``.

But MTurk's parameters reach us through the worker's browser, and anyone can type them (issue
11: ten made-up accepts all got work on a HIT MTurk offered three times). So the HIT's places
are counted here too, as the hand-out counts them for direct links: an accept that would hold
more MTurk assignments of the HIT at once than its ``MaxAssignments`` (``MTurkHit``) is
refused (:func:`_refuse_when_full`). A made-up accept that does get a place gets no say in the
scores: its judgments count only once MTurk reports the assignment (see
``judgments.models.held_back_from_scores``; the sync is where that happens, since MTurk's API
shows no assignment before it is submitted).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.text import format_lazy
from django.utils.translation import pgettext_lazy

from campaigns.models import Campaign, CampaignStatus, Hit
from campaigns.pay import offered_reward
from campaigns.platforms.models import MTurkHit
from judgments.actions.constants import FINISHED_ASSIGNMENT_STATUSES
from judgments.actions.handout import (
    CLOSED_CAMPAIGN_REASONS,
    HandOut,
    HandOutKind,
    NoWorkReason,
)
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    CountrySource,
    Platform,
    Worker,
)

logger = logging.getLogger(__name__)


class MTurkAcceptRefused(Exception):
    """An accept that must change nothing: the assignment id belongs to another worker or HIT
    (a forged or mixed-up link: ``status`` 404), or the worker already finished this HIT, or
    holds it live, under another assignment (409). ``message`` is what the worker reads."""

    def __init__(self, message: str | Promise, *, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


ALREADY_FINISHED_HIT = pgettext_lazy(
    "entry page",
    "You have already finished this HIT under another assignment, and each worker may do it "
    "once. Please return this assignment on MTurk. Thank you!",
)
# Translators: {places} is a number of workers, at least 1.
HIT_FULL = pgettext_lazy(
    "entry page",
    "Every place on this HIT is taken: it is offered to {places} worker(s) at a time and "
    "{places} already hold it. Please return this HIT on MTurk; a place frees up when someone "
    "else's time on it runs out.",
)
HIT_HELD_UNDER_ANOTHER_ASSIGNMENT = pgettext_lazy(
    "entry page",
    "You already hold this HIT under another MTurk assignment; return one of them. Then "
    "open the one you kept from MTurk's website.",
)


def single_locale_country(locales: list[str] | tuple[str, ...]) -> str | None:
    """The country every locale names (``["US-CA", "US-NY"]`` -> ``"US"``), or None when the
    locales name no country or several."""
    countries = {str(code).strip().upper()[:2] for code in locales or () if str(code).strip()}
    return countries.pop() if len(countries) == 1 else None


def _note_locale_country(worker: Worker, campaign: Campaign) -> None:
    """MTurk only let workers in the campaign's locale accept (its Locale qualification), so
    when that locale is a single country, the worker is in it. A country the worker gave on
    the background form, or learnt earlier, is kept: it is at least as good."""
    if worker.country:
        return
    country = single_locale_country(campaign.mturk_locales)
    if country is None:
        return
    worker.country = country
    worker.country_source = CountrySource.MTURK_LOCALE
    worker.save(update_fields=["country", "country_source"])


def _live(assignment: Assignment, now: datetime) -> bool:
    """Started and within its deadline: the worker may be answering it right now."""
    return assignment.status == AssignmentStatus.STARTED and assignment.expires_at > now


def _refuse_when_full(hit: Hit, now: datetime, reused: Assignment | None) -> Decimal | None:
    """Refuse (:class:`MTurkAcceptRefused`, 409) an accept that would take a place on ``hit``
    when its MTurk assignments already fill the HIT's ``MaxAssignments``: those started and
    within their deadline, submitted or approved (expired, returned and rejected ones hold no
    place, as in the hand-out), other than ``reused``, the row the accept would start again.

    MTurk enforces the same limit for accepts it made; this one stops accepts nobody made on
    MTurk (made-up ``assignmentId`` and ``workerId``). A HIT never published has no limit
    here (the entry page refuses it before).

    Returns the reward MTurk published the HIT with (None: not recorded), read with its
    places: what a new assignment on it pays (campaigns.pay)."""
    published = MTurkHit.objects.filter(hit=hit).values_list("max_assignments", "reward").first()
    if published is None:
        return None
    places, reward = published
    holding = Assignment.objects.filter(
        hit=hit, worker__platform=Platform.MTURK, platform_assignment_id__gt=""
    ).filter(
        Q(status__in=(AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED))
        | Q(status=AssignmentStatus.STARTED, expires_at__gt=now)
    )
    if reused is not None:
        holding = holding.exclude(pk=reused.pk)
    held = holding.count()
    if held >= places:
        logger.warning(
            "MTurk accept refused on HIT %d: %d of its %d place(s) are held already",
            hit.pk,
            held,
            places,
        )
        raise MTurkAcceptRefused(format_lazy(HIT_FULL, places=places), status=409)
    return reward


def _start_again(
    assignment: Assignment,
    *,
    assignment_id: str,
    hit_id: str,
    turk_submit_to: str,
    expires_at: datetime,
    now: datetime,
) -> Assignment:
    """Start the row again under the MTurk assignment the worker holds now; judgments kept."""
    new_mturk_assignment = assignment.platform_assignment_id != assignment_id
    assignment.status = AssignmentStatus.STARTED
    assignment.expires_at = expires_at
    assignment.last_activity_at = now
    assignment.current_served_at = None
    assignment.platform_assignment_id = assignment_id
    assignment.platform_hit_id = hit_id
    assignment.turk_submit_to = turk_submit_to
    fields = [
        "status",
        "expires_at",
        "last_activity_at",
        "current_served_at",
        "platform_assignment_id",
        "platform_hit_id",
        "turk_submit_to",
    ]
    if new_mturk_assignment:
        # What MTurk reported was about the assignment the worker gave back, not this one.
        assignment.platform_status = ""
        assignment.platform_synced_at = None
        fields += ["platform_status", "platform_synced_at"]
    assignment.save(update_fields=fields)
    logger.info("MTurk assignment %s started again on assignment %d", assignment_id, assignment.pk)
    return assignment


def accept_mturk_assignment(
    hit: Hit,
    worker_external_id: str,
    assignment_id: str,
    hit_id: str,
    turk_submit_to: str,
    now: datetime | None = None,
) -> HandOut:
    """The assignment behind MTurk's ``assignmentId`` on ``hit``, for MTurk worker
    ``worker_external_id``: resumed, started again, re-used or created; or why there is none.

    The ids are MTurk's, already checked by the caller (capital letters and digits), and
    ``turk_submit_to`` is one of ``settings.MTURK_SUBMIT_HOSTS``. Under the campaign's row
    lock, in order:

    1. an assignment that already carries ``assignment_id`` but belongs to another worker or
       HIT refuses the accept (:class:`MTurkAcceptRefused`, 404; nothing is written);
    2. that assignment, once finished, is returned as it is, whatever the campaign's status
       now: its completion page posts it to MTurk, which is how the worker gets paid;
    3. a campaign that is not active, a worker it excludes or no longer trusts, or one who
       failed its qualification test gets nothing (with the reason);
    4. the same ``assignment_id`` again (a reload of MTurk's frame) resumes its assignment,
       started again with a new deadline if it had expired;
    5. the worker's earlier assignment on this HIT under another id (MTurk gives a new id when
       a worker returns a HIT and accepts it again) is re-used under the new id when it is no
       longer live here (expired, returned, or started but past its deadline): started, a new
       deadline, its judgments kept. One already finished refuses (409: each worker does a HIT
       once), and so does one still started and within its deadline (409): MTurk never gives
       one worker two live assignments of one HIT, so a second id for a live one is a forged
       or mixed-up link, and handing it over would let whoever knows a WorkerId take the
       worker's task and make its completion post an assignment id MTurk does not know;
    6. otherwise a new assignment is created.

    Steps 4 (for an assignment no longer live), 5 and 6 take a place on the HIT, and refuse
    (409, nothing written) when its MTurk assignments already fill its ``MaxAssignments``
    (:func:`_refuse_when_full`): MTurk's parameters can be made up.

    The worker (``Worker`` with platform mturk) and their campaign membership are created on
    their first accept.
    """
    with transaction.atomic():
        # FOR NO KEY UPDATE: hand-outs still exclude each other (and campaign saves), but
        # not the submissions, whose inserts take KEY SHARE on the campaign row (foreign key).
        campaign = Campaign.objects.select_for_update(no_key=True).get(pk=hit.campaign_id)
        now = now or timezone.now()
        held = (
            Assignment.objects.select_related("worker", "hit", "campaign")
            .filter(platform_assignment_id=assignment_id)
            .first()
        )
        if held is not None and (
            held.hit_id != hit.pk
            or held.worker.platform != Platform.MTURK
            or held.worker.external_id != worker_external_id
        ):
            logger.warning(
                "MTurk assignment %s was opened for HIT %d by worker %s but belongs to "
                "assignment %d",
                assignment_id,
                hit.pk,
                worker_external_id,
                held.pk,
            )
            raise MTurkAcceptRefused("This link is not valid.", status=404)
        if held is not None and held.status in FINISHED_ASSIGNMENT_STATUSES:
            return HandOut(held, kind=HandOutKind.RESUMED)

        if campaign.status != CampaignStatus.ACTIVE:
            return HandOut(None, reason=CLOSED_CAMPAIGN_REASONS[campaign.status])
        worker, _ = Worker.objects.get_or_create(
            platform=Platform.MTURK, external_id=worker_external_id
        )
        membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
        if membership.excluded:
            return HandOut(None, reason=NoWorkReason.EXCLUDED)
        if membership.untrusted:
            return HandOut(None, reason=NoWorkReason.UNTRUSTED)
        # MTurk's own qualification requirement keeps out workers who were not granted our
        # qualification; this also holds if it was granted by hand to one who failed here.
        if (
            campaign.qualification_required
            and not hit.is_qualification
            and membership.qualification_passed is False
        ):
            return HandOut(None, reason=NoWorkReason.NOT_QUALIFIED)
        earlier = None
        if held is None:
            earlier = (
                Assignment.objects.select_related("hit", "campaign")
                .filter(worker=worker, hit=hit)
                .first()
            )
        if earlier is not None:
            if earlier.status in FINISHED_ASSIGNMENT_STATUSES:
                raise MTurkAcceptRefused(ALREADY_FINISHED_HIT, status=409)
            if _live(earlier, now):
                logger.warning(
                    "MTurk assignment %s was opened for worker %s on HIT %d, which they hold "
                    "live under MTurk assignment %s (assignment %d); nothing was changed",
                    assignment_id,
                    worker_external_id,
                    hit.pk,
                    earlier.platform_assignment_id,
                    earlier.pk,
                )
                raise MTurkAcceptRefused(HIT_HELD_UNDER_ANOTHER_ASSIGNMENT, status=409)
        _note_locale_country(worker, campaign)

        expires_at = now + timedelta(seconds=campaign.assignment_duration_seconds)
        ids = {"assignment_id": assignment_id, "hit_id": hit_id, "turk_submit_to": turk_submit_to}
        if held is not None:
            if _live(held, now):
                return HandOut(held, kind=HandOutKind.RESUMED)
            # Expired here (or marked returned by a sync) while MTurk still offers the worker
            # the same assignment: its time on MTurk decides, so the work goes on.
            _refuse_when_full(hit, now, held)
            restarted = _start_again(held, expires_at=expires_at, now=now, **ids)
            return HandOut(restarted, kind=HandOutKind.REACTIVATED)

        if earlier is not None:
            # Expired, returned, or started but past its deadline: the worker gave the HIT
            # back (or let it lapse) and accepted it again under a new MTurk id.
            _refuse_when_full(hit, now, earlier)
            restarted = _start_again(earlier, expires_at=expires_at, now=now, **ids)
            return HandOut(restarted, kind=HandOutKind.REACTIVATED)

        published_reward = _refuse_when_full(hit, now, None)
        assignment = Assignment.objects.create(
            campaign=campaign,
            hit=hit,
            worker=worker,
            expires_at=expires_at,
            # What MTurk pays for this HIT: the reward it was published with, whatever the
            # campaign's is now. A row started again below keeps the reward it has.
            reward=offered_reward(campaign.reward, hit.reward, published_reward),
            platform_assignment_id=assignment_id,
            platform_hit_id=hit_id,
            turk_submit_to=turk_submit_to,
        )
        logger.info(
            "MTurk assignment %s: worker %s started HIT %d",
            assignment_id,
            worker_external_id,
            hit.pk,
        )
        return HandOut(assignment, kind=HandOutKind.NEW)
