"""Actions on workers' assignments, shared by views, admin, API and Celery tasks.

- ``next_assignment_for``: the hand-out (resume, reactivate, or the next HIT with room);
- ``current_task_state``: what a worker sees now (the next unanswered slot and progress);
- ``record_judgment``: one validated, atomic, idempotent answer;
- ``expire_abandoned_assignments``, ``set_excluded``, ``exclude_worker``: housekeeping.

Every task kind shares these; a kind only adds its answer fields to ``ANSWER_PARSERS``.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import models, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from campaigns.models import Campaign, CampaignStatus, Hit, HitSlot, HitTask
from judgments.models import (
    LIVE_ASSIGNMENT_STATUSES,
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    Platform,
    Worker,
)
from judgments.signals import exclusions_changed, judgments_recorded

logger = logging.getLogger(__name__)

# Largest value a PositiveIntegerField holds on every supported database.
MAX_STORED_INT = 2_147_483_647

FINISHED_ASSIGNMENT_STATUSES = (
    AssignmentStatus.SUBMITTED,
    AssignmentStatus.APPROVED,
    AssignmentStatus.REJECTED,
)


# --- Housekeeping ---------------------------------------------------------------------------


def expire_abandoned_assignments(
    now: datetime | None = None, *, campaign: Campaign | None = None
) -> int:
    """Mark started assignments past their deadline as expired; return how many.

    An expired assignment no longer counts against its HIT's redundancy, so the HIT returns
    to the pool. Its judgments stay stored (judgments are never deleted). The update is one
    conditional UPDATE, so running it twice, or concurrently with itself, is harmless.
    ``campaign`` limits the sweep to one campaign (the hand-out runs it before choosing).
    """
    now = now or timezone.now()
    stale = Assignment.objects.filter(status=AssignmentStatus.STARTED, expires_at__lte=now)
    if campaign is not None:
        stale = stale.filter(campaign=campaign)
    with transaction.atomic():
        expired = stale.update(status=AssignmentStatus.EXPIRED)
    if expired:
        logger.info("Expired %d abandoned assignment(s)", expired)
    return expired


def set_excluded(
    memberships: QuerySet[CampaignWorker],
    excluded: bool,
    reason: str = "",
    now: datetime | None = None,
) -> int:
    """Exclude (or re-admit) workers from their campaigns; return how many rows changed.

    Exclusion takes effect at the worker's next hand-out: an assignment already started may
    still be finished, and the requester approves or rejects it as usual. Re-admitting clears
    the reason and the time.
    """
    if excluded:
        changing = memberships.filter(excluded=False)
        values = {"excluded": True, "excluded_reason": reason, "excluded_at": now or timezone.now()}
    else:
        changing = memberships.filter(excluded=True)
        values = {"excluded": False, "excluded_reason": "", "excluded_at": None}
    with transaction.atomic():
        campaign_ids = sorted(set(changing.values_list("campaign_id", flat=True)))
        changed = changing.update(**values)
        if changed:
            transaction.on_commit(
                partial(
                    _send_logged,
                    "exclusions_changed",
                    exclusions_changed,
                    CampaignWorker,
                    campaign_ids=campaign_ids,
                )
            )
    return changed


def exclude_worker(campaign: Campaign, worker: Worker, reason: str) -> CampaignWorker:
    """Exclude one worker from one campaign (creating their membership row if needed)."""
    membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
    set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, reason)
    membership.refresh_from_db()
    return membership


def create_pseudonymous_worker() -> Worker:
    """A worker who came by a direct link: no platform id, so a random pseudonym."""
    return Worker.objects.create(
        platform=Platform.DIRECT, external_id="anon-" + secrets.token_hex(8)
    )


# --- Hand-out -------------------------------------------------------------------------------


class NoWorkReason(models.TextChoices):
    """Why the hand-out gave nothing; the label is the polite sentence the worker reads."""

    NOT_OPEN = "not_open", "This campaign has not opened yet. Please come back later."
    PAUSED = "paused", "This campaign is paused. Please come back later."
    FINISHED = "finished", "This campaign has finished. Thank you for your interest."
    EXCLUDED = "excluded", "There are no more tasks for you in this campaign. Thank you."
    NO_TASKS = "no_tasks", "No tasks are ready in this campaign yet. Please come back later."
    ALL_TAKEN = (
        "all_taken",
        "Every task left is being worked on by other people right now. Tasks that are not "
        "finished in time come back: please try again later.",
    )
    ALL_DONE = "all_done", "You have done every task available to you, thank you!"


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


def next_assignment_for(worker: Worker, campaign: Campaign, now: datetime | None = None) -> HandOut:
    """The worker's assignment in ``campaign``: resumed, reactivated or new; or why there is none.

    Runs under a per-campaign lock (``select_for_update`` on the campaign row inside one
    transaction), so concurrent hand-outs in a campaign are serialised on PostgreSQL; on
    SQLite the settings open IMMEDIATE transactions, which serialise all writers anyway.
    Under the lock, in order:

    1. a campaign that is not active, or a worker it excludes, gets nothing (with the reason);
    2. the campaign's abandoned assignments expire (their HITs return to the pool);
    3. a started assignment of the worker in the campaign is returned as it is (resume);
    4. otherwise the HIT with room (fewer live assignments, i.e. started, submitted or
       approved, than ``campaign.redundancy``) that comes first is handed out, where the
       worker's own expired assignments come before HITs the worker never had, and lower
       HIT numbers before higher ones. A HIT the worker has held in any other status
       (submitted, approved, rejected, returned) is never handed to them again.

    Reactivation rule (decided here, since (worker, hit) is unique): an expired assignment is
    started again (same row, new deadline, judgments already given kept, the page resumes at
    the next unanswered item) when the worker asks again and its HIT still has room. Finishing
    a half-done HIT keeps its quality-control pairs together for the reliability test, which a
    fresh HIT would not; a HIT that filled up meanwhile stays closed to the worker. A returned
    assignment is not reactivated: the worker gave it back on purpose.
    """
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        now = now or timezone.now()
        if campaign.status != CampaignStatus.ACTIVE:
            return HandOut(None, reason=CLOSED_CAMPAIGN_REASONS[campaign.status])
        membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
        if membership.excluded:
            return HandOut(None, reason=NoWorkReason.EXCLUDED)

        expire_abandoned_assignments(now, campaign=campaign)
        mine = Assignment.objects.filter(campaign=campaign, worker=worker)
        started = (
            mine.filter(status=AssignmentStatus.STARTED)
            .select_related("hit", "campaign")
            .order_by("hit__number")
            .first()
        )
        if started is not None:
            return HandOut(started, kind=HandOutKind.RESUMED)

        mine_on_hit = mine.filter(hit=OuterRef("pk"))
        # HITs the worker may still get: never held, or held and let expire.
        eligible = Hit.objects.filter(campaign=campaign).filter(
            ~Exists(mine_on_hit.exclude(status=AssignmentStatus.EXPIRED))
        )
        hit = (
            eligible.annotate(
                live=Count(
                    "assignments", filter=Q(assignments__status__in=LIVE_ASSIGNMENT_STATUSES)
                ),
                mine_expired=Exists(mine_on_hit),
            )
            .filter(live__lt=campaign.redundancy)
            .order_by("-mine_expired", "number")
            .first()
        )
        if hit is None:
            if eligible.exists():
                return HandOut(None, reason=NoWorkReason.ALL_TAKEN)
            if campaign.hits.exists():
                return HandOut(None, reason=NoWorkReason.ALL_DONE)
            return HandOut(None, reason=NoWorkReason.NO_TASKS)

        expires_at = now + timedelta(seconds=campaign.assignment_duration_seconds)
        if hit.mine_expired:
            assignment = mine.select_related("hit", "campaign").get(hit=hit)
            assignment.status = AssignmentStatus.STARTED
            assignment.expires_at = expires_at
            assignment.last_activity_at = now
            assignment.current_served_at = None
            assignment.save(
                update_fields=["status", "expires_at", "last_activity_at", "current_served_at"]
            )
            logger.info("Reactivated assignment %d for worker %d", assignment.pk, worker.pk)
            return HandOut(assignment, kind=HandOutKind.REACTIVATED)
        assignment = Assignment.objects.create(
            campaign=campaign, hit=hit, worker=worker, expires_at=expires_at
        )
        return HandOut(assignment, kind=HandOutKind.NEW)


# --- What the worker sees now ---------------------------------------------------------------


class SubmissionError(Exception):
    """A request the worker's page made that changes nothing, with a message a person can act
    on, the payload field at fault (or None) and the HTTP status the views answer with:
    400 bad input or out of order, 404 unknown assignment, 409 an answered item answered
    differently (or a finished task), 410 an expired or returned assignment."""

    def __init__(self, message: str, *, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.status = status


@dataclass(frozen=True)
class TaskState:
    """The worker's place in an assignment: the next unanswered slot (None when all are
    answered) and how many of the HIT's slots are answered."""

    assignment: Assignment
    next_slot: HitSlot | None
    done: int
    total: int

    @property
    def finished(self) -> bool:
        return self.next_slot is None


def get_assignment(assignment_id: int, worker_id: int, *, lock: bool = False) -> Assignment:
    """The assignment a task link stands for (both ids must match); SubmissionError 404 if none.
    ``lock``: take the row lock (inside a transaction) before reading it."""
    assignments = Assignment.objects.select_related("hit", "campaign")
    if lock:
        # Lock the assignment row only, not the HIT and campaign rows joined in.
        assignments = assignments.select_for_update(of=("self",))
    assignment = assignments.filter(pk=assignment_id, worker_id=worker_id).first()
    if assignment is None:
        raise SubmissionError("This task link is not valid.", status=404)
    return assignment


def check_open(assignment: Assignment, now: datetime | None = None) -> None:
    """Raise SubmissionError (410 or 409) unless the assignment may take answers now."""
    now = now or timezone.now()
    if assignment.status == AssignmentStatus.RETURNED:
        raise SubmissionError(
            "You returned this task, so it takes no more answers. Open your task link again "
            "to get a new task.",
            status=410,
        )
    if assignment.status == AssignmentStatus.EXPIRED or (
        assignment.status == AssignmentStatus.STARTED and assignment.expires_at <= now
    ):
        raise SubmissionError(
            "This task has expired: its time ran out. The answers you gave are saved. Open "
            "your task link again to continue or to get a new task.",
            status=410,
        )
    if assignment.status != AssignmentStatus.STARTED:
        raise SubmissionError("This task is already finished. Thank you!", status=409)


@dataclass(frozen=True)
class _Progress:
    """A HIT's slots in order as (pk, position), and the slot pks this assignment answered."""

    slots: list[tuple[int, int]]
    answered: set[int]

    @property
    def next(self) -> tuple[int, int] | None:
        return next((slot for slot in self.slots if slot[0] not in self.answered), None)


def _progress(assignment: Assignment) -> _Progress:
    """Two queries: the HIT's slots in order, and the slots this assignment answered."""
    slots = list(
        HitSlot.objects.filter(hit=assignment.hit_id)
        .order_by("position")
        .values_list("pk", "position")
    )
    answered = set(Judgment.objects.filter(assignment=assignment).values_list("slot_id", flat=True))
    return _Progress(slots, answered)


def _task_state(assignment: Assignment, progress: _Progress) -> TaskState:
    # A finished assignment (submitted, or approved/rejected on its platform) shows nothing more.
    finished = assignment.status in FINISHED_ASSIGNMENT_STATUSES
    upcoming = None if finished else progress.next
    next_slot = HitSlot.objects.select_related("segment").get(pk=upcoming[0]) if upcoming else None
    return TaskState(assignment, next_slot, done=len(progress.answered), total=len(progress.slots))


def current_task_state(
    assignment_id: int, worker_id: int, now: datetime | None = None
) -> TaskState:
    """What the worker's page shows now. Serving an item for the first time stamps
    ``assignment.current_served_at`` (one conditional UPDATE, so a reload or a second tab
    does not move it): the next judgment's server-side time counts from there."""
    assignment = get_assignment(assignment_id, worker_id, lock=False)
    now = now or timezone.now()
    if assignment.status not in FINISHED_ASSIGNMENT_STATUSES:
        check_open(assignment, now)
    state = _task_state(assignment, _progress(assignment))
    if state.next_slot is not None and assignment.current_served_at is None:
        Assignment.objects.filter(pk=assignment.pk, current_served_at__isnull=True).update(
            current_served_at=now
        )
    return state


# --- Submission -----------------------------------------------------------------------------


def _json_kind(value: Any) -> str:
    """How a JSON value reads to a person, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return f'the text "{value[:40]}"'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)


def _whole_number(payload: Mapping[str, Any], name: str, minimum: int, what: str) -> int | None:
    value = payload.get(name)
    if value is None:
        return None
    if type(value) is not int or not minimum <= value <= MAX_STORED_INT:
        raise SubmissionError(
            f"{name} must be {what}, a whole number of at least {minimum} "
            f"(got {_json_kind(value)}).",
            field=name,
        )
    return value


def _parse_score(payload: Mapping[str, Any]) -> float:
    value = payload.get("score")
    if value is None:
        raise SubmissionError(
            "score is required: move the slider to give your answer.", field="score"
        )
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= 100
    ):
        raise SubmissionError(
            f"score must be a number from 0 to 100 (got {_json_kind(value)}).", field="score"
        )
    return float(value)


# The answer fields each task kind takes, with their parsers; later kinds add theirs. The
# parsed names are Judgment columns, which makes comparing a retried answer a lookup.
ANSWER_PARSERS: dict[str, dict[str, Callable[[Mapping[str, Any]], Any]]] = {
    HitTask.ASSESS: {"score": _parse_score},
}
# Fields every submission may carry besides its answer.
COMMON_FIELDS = ("position", "client_started_at", "client_duration_ms")


@dataclass(frozen=True)
class Submission:
    position: int
    answer: dict[str, Any]
    client_started_at: datetime | None = None
    client_duration_ms: int | None = None


def parse_submission(task: str, payload: Any) -> Submission:
    """Validate a posted answer without touching the database; SubmissionError (400) if bad."""
    if not isinstance(payload, dict):
        raise SubmissionError(
            'Send the answer as a JSON object, for example {"position": 1, "score": 50}.'
        )
    parsers = ANSWER_PARSERS.get(task)
    if parsers is None:
        raise SubmissionError("This kind of task cannot take answers here.")
    allowed = (*COMMON_FIELDS, *parsers)
    unknown = sorted(name for name in payload if name not in allowed)
    if unknown:
        raise SubmissionError(
            f"Unknown field '{unknown[0]}': send only {', '.join(allowed)}.", field=unknown[0]
        )
    position = _whole_number(payload, "position", 1, "the number of the item you answer")
    if position is None:
        raise SubmissionError(
            "position is required: the number of the item you answer.", field="position"
        )
    answer = {name: parse(payload) for name, parse in parsers.items()}

    started = payload.get("client_started_at")
    client_started_at = None
    if started is not None:
        client_started_at = parse_datetime(started) if isinstance(started, str) else None
        if client_started_at is None or timezone.is_naive(client_started_at):
            raise SubmissionError(
                "client_started_at must be a date and time with a time zone, for example "
                f"2025-05-01T12:00:00.000Z (got {_json_kind(started)}).",
                field="client_started_at",
            )
    duration = _whole_number(payload, "client_duration_ms", 0, "a time in milliseconds")
    return Submission(position, answer, client_started_at, duration)


@dataclass(frozen=True)
class SubmissionResult:
    judgment: Judgment
    created: bool  # False: an identical retry, answered with the stored judgment
    state: TaskState = field(repr=False)


def _send_logged(name: str, signal: Signal, sender: type, **kwargs: Any) -> None:
    """Send a signal after a commit; a failing receiver is logged, never raised into the
    request (the rows are committed; analytics' periodic sweep repairs what it missed)."""
    for receiver, response in signal.send_robust(sender=sender, **kwargs):
        if isinstance(response, Exception):
            logger.error("%s receiver %r failed", name, receiver, exc_info=response)


def _announce(campaign_id: int, worker_id: int, judgment_ids: list[int]) -> None:
    _send_logged(
        "judgments_recorded",
        judgments_recorded,
        Judgment,
        campaign_id=campaign_id,
        worker_id=worker_id,
        judgment_ids=judgment_ids,
    )


def record_judgment(
    assignment_id: int, worker_id: int, payload: Any, now: datetime | None = None
) -> SubmissionResult:
    """Store one answer of ``worker_id`` in ``assignment_id``, atomically and idempotently.

    ``payload`` is the decoded JSON the page posted: ``position`` (the slot, 1..N), the task's
    answer fields (``score`` for direct assessment), optional ``client_started_at`` (ISO 8601
    with a time zone) and ``client_duration_ms``. Under a lock on the assignment row:

    - a position already answered with the same answer returns the stored judgment
      (``created`` False): a retried or double-clicked submit; with another answer it is a
      409, since there is no going back;
    - the assignment must be started and not past its deadline (410 otherwise);
    - the position must be the next unanswered one (400 "answer item N first" otherwise).

    On success the Judgment is created with the server's timing (``served_at`` is when the
    item was first served, ``server_duration_ms`` the time since), the assignment's activity
    is stamped, the assignment is submitted when this was its last slot, and
    ``judgments_recorded`` is sent after the commit. Any error raises SubmissionError and
    writes nothing.
    """
    with transaction.atomic():
        assignment = get_assignment(assignment_id, worker_id, lock=True)
        now = now or timezone.now()
        submission = parse_submission(assignment.hit.task, payload)
        progress = _progress(assignment)
        slot_id = next((pk for pk, pos in progress.slots if pos == submission.position), None)
        if slot_id is None:
            raise SubmissionError(
                f"There is no item {submission.position} in this task; it has items 1 to "
                f"{len(progress.slots)}.",
                field="position",
            )
        upcoming = progress.next
        if slot_id in progress.answered:
            stored = Judgment.objects.get(assignment=assignment, slot_id=slot_id)
            if all(getattr(stored, name) == value for name, value in submission.answer.items()):
                return SubmissionResult(
                    stored, created=False, state=_task_state(assignment, progress)
                )
            follow_on = (
                f"Continue with item {upcoming[1]}." if upcoming else "The task is finished."
            )
            raise SubmissionError(
                f"Item {submission.position} is already answered, and answers cannot be "
                f"changed (there is no going back). {follow_on}",
                field="position",
                status=409,
            )
        check_open(assignment, now)
        # The slot is unanswered and the assignment open, so there is a next slot.
        if upcoming[0] != slot_id:
            raise SubmissionError(
                f"Answer item {upcoming[1]} first; the items are answered in order.",
                field="position",
            )

        served_at = assignment.current_served_at
        server_duration_ms = None
        if served_at is not None:
            elapsed = (now - served_at) / timedelta(milliseconds=1)
            server_duration_ms = min(max(round(elapsed), 0), MAX_STORED_INT)
        judgment = Judgment.objects.create(
            campaign_id=assignment.campaign_id,
            worker_id=assignment.worker_id,
            assignment=assignment,
            slot_id=slot_id,
            client_started_at=submission.client_started_at,
            client_duration_ms=submission.client_duration_ms,
            served_at=served_at,
            server_duration_ms=server_duration_ms,
            **submission.answer,
        )
        progress.answered.add(slot_id)
        state = _task_state(assignment, progress)

        assignment.last_activity_at = now
        # The next item goes out in this response, so it counts as served now.
        assignment.current_served_at = None if state.finished else now
        update_fields = ["last_activity_at", "current_served_at"]
        if state.finished:
            assignment.status = AssignmentStatus.SUBMITTED
            assignment.submitted_at = now
            update_fields += ["status", "submitted_at"]
        assignment.save(update_fields=update_fields)
        transaction.on_commit(
            partial(_announce, assignment.campaign_id, assignment.worker_id, [judgment.pk])
        )
        return SubmissionResult(judgment, created=True, state=state)
