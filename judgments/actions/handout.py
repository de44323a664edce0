"""The assignment hand-out shared by every task kind: resume, reactivate, the qualification
test, or the next HIT with room under the campaign's redundancy, all under a campaign lock."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from campaigns.kinds import CampaignKind, kind_of
from campaigns.models import Campaign, CampaignStatus, Hit
from campaigns.pay import offered_reward
from judgments.actions.frontier import advance, hand_out_start
from judgments.actions.hot_sql import load_started_assignment, pick_regular_hit
from judgments.actions.membership import expire_abandoned_assignments
from judgments.actions.qualification import _store_qualification
from judgments.models import (
    LIVE_ASSIGNMENT_STATUSES,
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Worker,
)

logger = logging.getLogger(__name__)


class NoWorkReason(models.TextChoices):
    """Why the hand-out gave nothing; the label is the polite sentence the worker reads (in
    the campaign's language: a lazy message of the "entry page" context,
    judgments.entry.words)."""

    NOT_OPEN = (
        "not_open",
        pgettext_lazy("entry page", "This campaign has not opened yet. Please come back later."),
    )
    PAUSED = (
        "paused",
        pgettext_lazy("entry page", "This campaign is paused. Please come back later."),
    )
    FINISHED = (
        "finished",
        pgettext_lazy("entry page", "This campaign has finished. Thank you for your interest."),
    )
    EXCLUDED = (
        "excluded",
        pgettext_lazy("entry page", "There are no more tasks for you in this campaign. Thank you."),
    )
    # Says neither "gold" nor "trust": the worker must not learn how they were judged.
    UNTRUSTED = (
        "untrusted",
        pgettext_lazy(
            "entry page", "There is no more work for you in this campaign. Thank you for your help."
        ),
    )
    NOT_QUALIFIED = (
        "not_qualified",
        pgettext_lazy(
            "entry page",
            "You did not pass the qualification test for this campaign. Thank you for trying.",
        ),
    )
    NO_TASKS = (
        "no_tasks",
        pgettext_lazy(
            "entry page", "No tasks are ready in this campaign yet. Please come back later."
        ),
    )
    ALL_TAKEN = (
        "all_taken",
        pgettext_lazy(
            "entry page",
            "Every task left is being worked on by other people right now. Tasks that are not "
            "finished in time come back: please try again later.",
        ),
    )
    ALL_DONE = (
        "all_done",
        pgettext_lazy("entry page", "You have done every task available to you, thank you!"),
    )
    ON_MTURK = (
        "on_mturk",
        pgettext_lazy(
            "entry page",
            "This campaign's tasks are offered on Amazon Mechanical Turk: please take them there.",
        ),
    )


CLOSED_CAMPAIGN_REASONS = {
    CampaignStatus.DRAFT: NoWorkReason.NOT_OPEN,
    CampaignStatus.PAUSED: NoWorkReason.PAUSED,
    CampaignStatus.FINISHED: NoWorkReason.FINISHED,
}


class HandOutKind(models.TextChoices):
    NEW = "new", "A HIT the worker never had"
    RESUMED = "resumed", "The worker's started, unexpired assignment"
    REACTIVATED = "reactivated", "The worker's own expired assignment, started again"


@dataclass(frozen=True)
class HandOut:
    """The hand-out's answer: an assignment (and how it was found) or the reason for none."""

    assignment: Assignment | None
    kind: HandOutKind | None = None
    reason: NoWorkReason | None = None


# --- The first-touch timeout (issue 11, item 3) ------------------------------------------------
# A task handed out gets a short deadline (``ASSIGNMENT_FIRST_TOUCH_SECONDS``, 10 minutes, or the
# campaign's working time if that is shorter): a hand-out nobody opens (a script starting tasks
# to hold them) returns to the pool after it. The worker's first opening of the task page or
# its item endpoint (:func:`open_assignment`) extends the deadline to the campaign's full
# working time from then. "Not opened yet" needs no new column: the hand-out leaves
# ``current_served_at`` empty (the item endpoint sets it when it first sends an item), and the
# deadline is then at most the first-touch window away.


def first_touch_window(campaign: Campaign) -> timedelta:
    seconds = min(settings.ASSIGNMENT_FIRST_TOUCH_SECONDS, campaign.assignment_duration_seconds)
    return timedelta(seconds=seconds)


def first_touch_deadline(campaign: Campaign, now: datetime) -> datetime:
    """The deadline of a task at its hand-out: the first-touch window from now."""
    return now + first_touch_window(campaign)


def open_assignment(assignment: Assignment, now: datetime | None = None) -> bool:
    """The worker opened the task: a started task still on its first-touch deadline gets the
    campaign's full working time from now. One conditional UPDATE (a reload, a second tab or
    a later visit changes nothing once an item was served); True if the deadline moved.

    Only a task that is started, not yet past its deadline (an expired one stays expired: the
    hand-out may start it again), never served an item, and due within the first-touch window
    is extended; a task handed out with its full time (an MTurk accept) is left alone."""
    campaign = assignment.campaign
    window = first_touch_window(campaign)
    full = timedelta(seconds=campaign.assignment_duration_seconds)
    if (
        full <= window
        or assignment.status != AssignmentStatus.STARTED
        or assignment.current_served_at is not None
    ):
        return False
    now = now or timezone.now()
    moved = Assignment.objects.filter(
        pk=assignment.pk,
        status=AssignmentStatus.STARTED,
        current_served_at__isnull=True,
        expires_at__gt=now,
        expires_at__lte=now + window,
    ).update(expires_at=now + full)
    if moved:
        assignment.expires_at = now + full
        logger.info("Assignment %d opened: deadline extended to %s", assignment.pk, now + full)
    return bool(moved)


def _restart(assignment: Assignment, expires_at: datetime, now: datetime) -> Assignment:
    """Start the worker's own expired (or returned qualification) assignment again."""
    assignment.status = AssignmentStatus.STARTED
    assignment.expires_at = expires_at
    assignment.last_activity_at = now
    assignment.current_served_at = None
    assignment.save(update_fields=["status", "expires_at", "last_activity_at", "current_served_at"])
    logger.info("Reactivated assignment %d for worker %d", assignment.pk, assignment.worker_id)
    return assignment


def next_assignment_for(worker: Worker, campaign: Campaign, now: datetime | None = None) -> HandOut:
    """The worker's assignment in ``campaign``: resumed, reactivated or new; or why there is none.

    Runs under a per-campaign lock (``select_for_update`` on the campaign row inside one
    transaction), so concurrent hand-outs in a campaign are serialised on PostgreSQL; on
    SQLite the settings open IMMEDIATE transactions, which serialise all writers anyway.
    Under the lock, in order:

    1. a campaign that is not active, or a worker it excludes or no longer trusts, gets
       nothing (with the reason);
    2. the campaign's abandoned assignments expire (their HITs return to the pool);
    3. a started assignment of the worker in the campaign is returned as it is (resume);
    4. if the campaign requires the qualification test and the worker has not passed it:
       a worker who failed it gets nothing (NOT_QUALIFIED); one who has not taken it gets the
       campaign's qualification HIT (``Hit.is_qualification``; any number of workers may
       take it, one assignment each; their own expired or returned one is started again);
    5. otherwise the regular HIT (never a qualification HIT) with room (fewer live
       assignments, i.e. started, submitted or approved, than its ``places``, else
       ``campaign.redundancy``), among those the kind allows the worker
       (``CampaignKind.hits_for_worker``), that comes first is handed out, where the worker's
       own expired assignments come before HITs the worker never had, then the kind's
       preference (``CampaignKind.hit_preference``), then lower HIT numbers. A HIT the worker
       has held in any other status (submitted, approved, rejected, returned) is never handed
       to them again.

    A new or restarted task's deadline is the first-touch window (:func:`first_touch_deadline`);
    opening it (:func:`open_assignment`) gives it the campaign's working time.

    Reactivation rule (decided here, since (worker, hit) is unique): an expired assignment is
    started again (same row, new deadline, judgments already given kept, the page resumes at
    the next unanswered item) when the worker asks again and its HIT still has room. Finishing
    a half-done HIT keeps its quality-control pairs together for the reliability test, which a
    fresh HIT would not; a HIT that filled up meanwhile stays closed to the worker. A returned
    assignment is not reactivated: the worker gave it back on purpose (except the
    qualification test, the only way into a campaign that requires it).
    """
    with transaction.atomic():
        # FOR NO KEY UPDATE: hand-outs still exclude each other (and campaign saves), but
        # not the submissions, whose inserts take KEY SHARE on the campaign row (foreign key).
        campaign = Campaign.objects.select_for_update(no_key=True).get(pk=campaign.pk)
        now = now or timezone.now()
        if campaign.status != CampaignStatus.ACTIVE:
            return HandOut(None, reason=CLOSED_CAMPAIGN_REASONS[campaign.status])
        membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
        if membership.excluded:
            return HandOut(None, reason=NoWorkReason.EXCLUDED)
        if membership.untrusted:
            return HandOut(None, reason=NoWorkReason.UNTRUSTED)

        expire_abandoned_assignments(now, campaign=campaign)
        mine = Assignment.objects.filter(campaign=campaign, worker=worker)
        # Loaded with its HIT and campaign in one hand-written statement (issue 16: the
        # hand-out runs under the campaign's lock, so its Python time is everyone's wait).
        started = load_started_assignment(campaign.pk, worker.pk)
        if started is not None:
            return HandOut(started, kind=HandOutKind.RESUMED)

        expires_at = first_touch_deadline(campaign, now)
        if campaign.qualification_required and membership.qualification_passed is not True:
            if membership.qualification_passed is None:
                test = _qualification_hand_out(campaign, worker, mine, expires_at, now)
                if test is not None:
                    return test
                membership.refresh_from_db()
            if not membership.qualification_passed:
                return HandOut(None, reason=NoWorkReason.NOT_QUALIFIED)
        return _regular_hand_out(campaign, worker, mine, expires_at, now)


def _qualification_hand_out(
    campaign: Campaign,
    worker: Worker,
    mine: QuerySet[Assignment],
    expires_at: datetime,
    now: datetime,
) -> HandOut | None:
    """The qualification test for a worker who has no result yet; None once a result was
    stored here (a finished test assignment without one, e.g. taken before the campaign
    required the test, is scored now)."""
    test = campaign.hits.filter(is_qualification=True).order_by("number").first()
    if test is None:
        logger.warning(
            "Campaign %d requires a qualification test but has no qualification HIT", campaign.pk
        )
        return HandOut(None, reason=NoWorkReason.NO_TASKS)
    held = mine.select_related("hit", "campaign").filter(hit=test).first()
    if held is None:
        assignment = Assignment.objects.create(
            campaign=campaign,
            hit=test,
            worker=worker,
            expires_at=expires_at,
            reward=offered_reward(campaign.reward, test.reward),
        )
        return HandOut(assignment, kind=HandOutKind.NEW)
    if held.status in (AssignmentStatus.EXPIRED, AssignmentStatus.RETURNED):
        return HandOut(_restart(held, expires_at, now), kind=HandOutKind.REACTIVATED)
    _store_qualification(held, now)
    return None


def _kind_has_no_hit_rules(kind: CampaignKind) -> bool:
    """Whether the kind leaves the hand-out's choice as it is (no ``hits_for_worker`` or
    ``hit_preference`` of its own), so that the hand-written pick applies."""
    cls = type(kind)
    return (
        cls.hits_for_worker is CampaignKind.hits_for_worker
        and cls.hit_preference is CampaignKind.hit_preference
    )


def _regular_hand_out(
    campaign: Campaign,
    worker: Worker,
    mine: QuerySet[Assignment],
    expires_at: datetime,
    now: datetime,
) -> HandOut:
    # Every regular HIT with room is numbered from ``start`` on (judgments.actions.frontier).
    start = hand_out_start(campaign.pk)
    hand_out = _choose_regular(campaign, worker, mine, expires_at, now, start)
    advance(campaign.pk, campaign.redundancy, start)
    return hand_out


def _choose_regular(
    campaign: Campaign,
    worker: Worker,
    mine: QuerySet[Assignment],
    expires_at: datetime,
    now: datetime,
    start: int,
) -> HandOut:
    regular = Hit.objects.filter(campaign=campaign, is_qualification=False)
    kind = kind_of(campaign)
    # A HIT published on MTurk is MTurk's to hand out (its MaxAssignments places, counted in
    # judgments.actions.platform): handing it out here too put 7 live assignments on a HIT of
    # redundancy 5 when the attacks of issue 11 were replayed (4 by direct link, 3 on MTurk).
    # Direct links and Prolific take the HITs that were not published there.
    offered_here = regular.filter(mturk__isnull=True)
    mine_on_hit = mine.filter(hit=OuterRef("pk"))
    # HITs the worker may still get: never held, or held and let expire; and what the kind
    # allows this worker (post-editing: not a second HIT of a run of segments).
    eligible = kind.hits_for_worker(
        campaign,
        worker,
        offered_here.filter(~Exists(mine_on_hit.exclude(status=AssignmentStatus.EXPIRED))),
    )
    hit_id: int | None = None
    mine_expired = False
    hit_reward = None  # the HIT's own reward (None: the campaign's)
    if _kind_has_no_hit_rules(kind):
        # The same choice as below, in one hand-written statement (hot_sql.pick_regular_hit).
        picked = pick_regular_hit(campaign.pk, worker.pk, campaign.redundancy, start)
        if picked is not None:
            hit_id, mine_expired, hit_reward = picked
    else:
        hit = (
            eligible.filter(number__gte=start)
            .annotate(
                live=Count(
                    "assignments", filter=Q(assignments__status__in=LIVE_ASSIGNMENT_STATUSES)
                ),
                mine_expired=Exists(mine_on_hit),
            )
            # A HIT's own places (a verification HIT's verifiers), else the campaign's
            # redundancy.
            .filter(live__lt=Coalesce("places", Value(campaign.redundancy)))
            .order_by("-mine_expired", *kind.hit_preference(), "number")
            .values_list("pk", "mine_expired", "reward")
            .first()
        )
        if hit is not None:
            hit_id, mine_expired, hit_reward = hit
    if hit_id is None:
        if eligible.exists():
            return HandOut(None, reason=NoWorkReason.ALL_TAKEN)
        if offered_here.exists():
            return HandOut(None, reason=NoWorkReason.ALL_DONE)
        if regular.exists():
            return HandOut(None, reason=NoWorkReason.ON_MTURK)
        return HandOut(None, reason=NoWorkReason.NO_TASKS)

    if mine_expired:
        # Started again, the assignment keeps the reward the worker first took it at.
        assignment = mine.select_related("hit", "campaign").get(hit_id=hit_id)
        return HandOut(_restart(assignment, expires_at, now), kind=HandOutKind.REACTIVATED)
    # The reward offered now is the assignment's for good (campaigns.pay): the campaign row
    # was read under the lock, so a reward saved meanwhile is the one the worker is offered.
    assignment = Assignment.objects.create(
        campaign=campaign,
        hit_id=hit_id,
        worker=worker,
        expires_at=expires_at,
        reward=offered_reward(campaign.reward, hit_reward),
    )
    return HandOut(assignment, kind=HandOutKind.NEW)
