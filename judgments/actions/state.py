"""What a worker sees now: the next unanswered unit(s) of an assignment and the progress."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.translation import pgettext

from judgments.actions.constants import FINISHED_ASSIGNMENT_STATUSES
from judgments.actions.hot_sql import HitSlots, JsonHitSlots, load_assignment, load_slots
from judgments.actions.specs import ShownUnit, SubmissionError, Unit, one_slot_units
from judgments.kinds import asks_background, task_spec, worker_language
from judgments.models import Assignment, AssignmentStatus, CampaignWorker

if TYPE_CHECKING:
    from campaigns.models import HitSlot


@dataclass(frozen=True)
class TaskState:
    """The worker's place in an assignment: the units the page shows now (the unanswered
    units of the page holding the next unanswered unit; empty when all are answered), how many
    of the HIT's units are answered, and the page (1-based; None when finished) of ``pages``.
    For direct assessment a unit is a slot and a page one unit."""

    assignment: Assignment
    shown: tuple[ShownUnit, ...]
    done: int
    total: int
    page: int | None = None
    pages: int = 0

    @property
    def finished(self) -> bool:
        return not self.shown

    @property
    def next_slot(self) -> HitSlot | None:
        """The first slot shown (for one-item-a-time tasks, the item)."""
        return self.shown[0].slots[0] if self.shown else None


def get_assignment(assignment_id: int, worker_id: int, *, lock: bool = False) -> Assignment:
    """The assignment a task link stands for (both ids must match), with its HIT, campaign
    and the campaign's kind settings (one query: :func:`judgments.actions.hot_sql.
    load_assignment`); SubmissionError 404 if none. ``lock``: take the row lock (inside a
    transaction) before reading it."""
    assignment = load_assignment(assignment_id, worker_id, lock=lock)
    if assignment is None:
        raise SubmissionError(pgettext("task answer", "This task link is not valid."), status=404)
    return assignment


def check_open(assignment: Assignment, now: datetime | None = None) -> None:
    """Raise SubmissionError (410 or 409) unless the assignment may take answers now."""
    now = now or timezone.now()
    if assignment.status == AssignmentStatus.RETURNED:
        raise SubmissionError(
            pgettext(
                "task answer",
                "You returned this task, so it takes no more answers. Open your task link again "
                "to get a new task.",
            ),
            status=410,
        )
    if assignment.status == AssignmentStatus.EXPIRED or (
        assignment.status == AssignmentStatus.STARTED and assignment.expires_at <= now
    ):
        raise SubmissionError(
            pgettext(
                "task answer",
                "This task has expired: its time ran out. The answers you gave are saved. Open "
                "your task link again to continue or to get a new task.",
            ),
            status=410,
        )
    if assignment.status != AssignmentStatus.STARTED:
        raise SubmissionError(
            pgettext("task answer", "This task is already finished. Thank you!"), status=409
        )


def background_needed(assignment: Assignment) -> bool:
    """True when the campaign asks for the background (its ``ask_background``, or a kind that
    always asks: ``judgments.kinds.asks_background``) and this worker has not answered it in
    this campaign yet (no query at all for campaigns that do not ask)."""
    if not asks_background(assignment.campaign):
        return False
    return not CampaignWorker.objects.filter(
        campaign_id=assignment.campaign_id,
        worker_id=assignment.worker_id,
        background_at__isnull=False,
    ).exists()


def check_background_given(assignment: Assignment) -> None:
    """Raise SubmissionError (409) while the worker owes the campaign's background form.

    The task page sends such a worker to the form; this keeps the item and submit endpoints
    from serving or storing work past it (a page loaded before the campaign began asking, or
    a script calling them directly), so every stored judgment has its worker's background.
    """
    if background_needed(assignment):
        raise SubmissionError(
            pgettext(
                "task answer", "Answer the few questions about yourself first: reload the page."
            ),
            status=409,
        )


@dataclass(frozen=True)
class _Progress:
    """A HIT's units in order, the slot pks this assignment answered, the page size, and the
    slots' rows (a page's slots are made from them)."""

    units: list[Unit]
    answered: set[int]
    page_size: int
    slots: HitSlots | JsonHitSlots

    def is_answered(self, unit: Unit) -> bool:
        # Units are written whole (one transaction), so one answered slot means all are: the
        # first slot says. (Called for every unit several times a request: no tuple built.)
        return bool(unit.slots) and unit.slots[0][0] in self.answered

    @property
    def next_index(self) -> int | None:
        return next((i for i, unit in enumerate(self.units) if not self.is_answered(unit)), None)

    @property
    def next(self) -> Unit | None:
        index = self.next_index
        return None if index is None else self.units[index]

    @property
    def done(self) -> int:
        return sum(1 for unit in self.units if self.is_answered(unit))

    @property
    def pages(self) -> int:
        return math.ceil(len(self.units) / self.page_size)

    def page_of(self, unit: Unit) -> int:
        """The 1-based page a unit is on."""
        return self.units.index(unit) // self.page_size + 1


def _progress(assignment: Assignment) -> _Progress:
    """One query: the HIT's slots in order (with their segments), each with whether this
    assignment answered it (an EXISTS on the judgments' unique (assignment, slot) index).

    A task no kind has a page for yet is cut generically (each slot a unit, one a page), so
    that its progress is still known; its page and answers are refused elsewhere."""
    spec = task_spec(assignment.hit.task)
    slots = load_slots(assignment)
    answered = set(slots.answered)
    if spec is None:
        return _Progress(one_slot_units(slots.keys), answered, 1, slots)
    return _Progress(spec.units(slots.keys), answered, spec.page_size(assignment.campaign), slots)


def _task_state(assignment: Assignment, progress: _Progress) -> TaskState:
    total, done = len(progress.units), progress.done
    # A finished assignment (submitted, or approved/rejected on its platform) shows nothing more.
    index = None if assignment.status in FINISHED_ASSIGNMENT_STATUSES else progress.next_index
    if index is None:
        return TaskState(assignment, (), done=done, total=total, page=None, pages=progress.pages)
    page = index // progress.page_size + 1  # page_of(units[index]), without searching for it
    on_page = progress.units[(page - 1) * progress.page_size : page * progress.page_size]
    units = [unit for unit in on_page if not progress.is_answered(unit)]
    # The shown slots come from the progress query's rows: no query of their own.
    shown = tuple(
        ShownUnit(unit.key, unit.number, tuple(progress.slots.slot(pk) for pk in unit.slot_ids))
        for unit in units
    )
    return TaskState(assignment, shown, done=done, total=total, page=page, pages=progress.pages)


def current_task_state(
    assignment_id: int, worker_id: int, now: datetime | None = None
) -> TaskState:
    """What the worker's page shows now (SubmissionError while the assignment is not open, or
    the worker owes the campaign's background form). Serving a page for the first time stamps
    ``assignment.current_served_at`` (one conditional UPDATE, so a reload or a second tab
    does not move it): the server-side time of the page's judgments counts from there."""
    return task_state_of(get_assignment(assignment_id, worker_id, lock=False), now)


def task_state_of(assignment: Assignment, now: datetime | None = None) -> TaskState:
    """:func:`current_task_state` for an assignment already loaded (by :func:`get_assignment`:
    its HIT and campaign with it)."""
    now = now or timezone.now()
    if assignment.status not in FINISHED_ASSIGNMENT_STATUSES:
        with worker_language(assignment):
            check_open(assignment, now)
            check_background_given(assignment)
    state = _task_state(assignment, _progress(assignment))
    if not state.finished and assignment.current_served_at is None:
        Assignment.objects.filter(pk=assignment.pk, current_served_at__isnull=True).update(
            current_served_at=now
        )
    return state
