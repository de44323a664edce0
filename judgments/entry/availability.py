"""Whether a worker could get another task now, and if not, whether and when work may free up
(issue 17: the completion page offered "Do another task" when no task was left).

A read-only twin of the hand-out's choice (``judgments.actions.handout``): the same HITs
(regular, offered here rather than on MTurk, never held by the worker except expired, narrowed
by the kind), the same room rule (fewer assignments holding a place than the HIT's places),
with assignments already past their deadline or the unanswered hold counted as free, as the
hand-out's expiry would make them. Nothing is written: the completion page must not take a
task for the worker.

When nothing has room but other people hold places on HITs this worker could do, work may free
up: at the earliest moment one of those assignments would expire (its deadline, or for one
with no answer yet its last activity plus the unanswered hold).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import Count, Exists, OuterRef, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import npgettext, pgettext

from campaigns.kinds import kind_of
from campaigns.models import Campaign, CampaignStatus, Hit
from judgments.actions.frontier import lowest_with_room
from judgments.actions.membership import long_first_answer_tasks, unanswered_hold
from judgments.models import (
    LIVE_ASSIGNMENT_STATUSES,
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    Worker,
)

__all__ = ["WorkAvailability", "next_task_note", "work_for"]


@dataclass(frozen=True)
class WorkAvailability:
    available: bool
    held: int = 0  # places others hold on HITs this worker could do
    frees_at: datetime | None = None  # the earliest of those assignments' expiry


def _expiry(expires_at: datetime, last_activity_at: datetime, answered: bool, task: str):
    if answered or task in long_first_answer_tasks():
        return expires_at
    return min(expires_at, last_activity_at + unanswered_hold())


def work_for(worker: Worker, campaign: Campaign, now: datetime | None = None) -> WorkAvailability:
    """Could ``worker`` be handed a task in ``campaign`` now? (At most seven queries.)"""
    now = now or timezone.now()
    if campaign.status != CampaignStatus.ACTIVE:
        return WorkAvailability(False)
    membership = CampaignWorker.objects.filter(campaign=campaign, worker=worker).first()
    if membership is not None and (membership.excluded or membership.untrusted):
        return WorkAvailability(False)
    if campaign.qualification_required and (
        membership is None or membership.qualification_passed is not True
    ):
        # Not taken yet: the test is their next task; failed: nothing.
        return WorkAvailability(membership is None or membership.qualification_passed is None)
    mine = Assignment.objects.filter(campaign=campaign, worker=worker)
    answered = Exists(Judgment.objects.filter(assignment=OuterRef("pk")))
    # Assignments the hand-out's expiry would release now do not hold a place.
    releasable = Q(status=AssignmentStatus.STARTED) & (
        Q(expires_at__lte=now)
        | (
            Q(last_activity_at__lte=now - unanswered_hold(), turk_submit_to="")
            & ~Q(hit__task__in=long_first_answer_tasks())
            & ~Q(answered)
        )
    )
    holding = Q(status__in=LIVE_ASSIGNMENT_STATUSES) & ~releasable
    if mine.filter(status=AssignmentStatus.STARTED, expires_at__gt=now).exists():
        return WorkAvailability(True)  # their own started task, resumed
    regular = Hit.objects.filter(campaign=campaign, is_qualification=False, mturk__isnull=True)
    eligible = kind_of(campaign).hits_for_worker(
        campaign,
        worker,
        regular.filter(
            ~Exists(mine.filter(hit=OuterRef("pk")).exclude(status=AssignmentStatus.EXPIRED))
        ),
    )
    holders = Assignment.objects.filter(holding, hit=OuterRef("pk"))
    # Below the hand-out's frontier every HIT's places are held by live assignments
    # (judgments.actions.frontier): one of them has room here only if one of its holders is
    # releasable. So the HITs from the frontier on are counted, then those with a releasable
    # holder: two walks of an index each (issue 16: counting every HIT's holders was 137 ms
    # at 20,000 HITs, on every completion page; as one OR, PostgreSQL still read every HIT).
    room = Q(live__lt=Coalesce("places", Value(campaign.redundancy)))
    live = Coalesce(holders.order_by().values("hit").annotate(n=Count("pk")).values("n"), Value(0))
    releasing = Assignment.objects.filter(releasable, campaign=campaign).values("hit_id")
    for candidates in (
        eligible.filter(number__gte=lowest_with_room(campaign.pk)),
        eligible.filter(pk__in=releasing),
    ):
        if candidates.annotate(live=live).filter(room).exists():
            return WorkAvailability(True)
    rows = list(
        Assignment.objects.filter(
            campaign=campaign, hit__in=eligible, status=AssignmentStatus.STARTED
        )
        .exclude(worker=worker)
        .annotate(answered=answered)
        .values_list("expires_at", "last_activity_at", "answered", "hit__task")
    )
    if not rows:
        return WorkAvailability(False)
    frees_at = min(_expiry(*row) for row in rows)
    return WorkAvailability(False, held=len(rows), frees_at=max(frees_at, now))


def next_task_note(availability: WorkAvailability, now: datetime | None = None) -> str:
    """What the completion page says when there is no next task for the worker."""
    if availability.frees_at is None:
        return pgettext(
            "task page", "There is no other task for you in this campaign right now. Thank you!"
        )
    now = now or timezone.now()
    minutes = max(1, round((availability.frees_at - now).total_seconds() / 60))
    return npgettext(
        "task page",
        "Every other task is being worked on by someone else right now. Tasks that are not "
        "finished in time come back: the first could free up in about {minutes} minute "
        "({time} UTC). Come back then with the same link.",
        "Every other task is being worked on by someone else right now. Tasks that are not "
        "finished in time come back: the first could free up in about {minutes} minutes "
        "({time} UTC). Come back then with the same link.",
        minutes,
    ).format(minutes=minutes, time=availability.frees_at.astimezone(UTC).strftime("%H:%M"))
