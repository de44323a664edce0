"""Submissions: parsing a task kind's answer, and recording it atomically and idempotently."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import connections, router, transaction
from django.db.models import Q, sql
from django.utils import timezone
from django.utils.translation import pgettext

from judgments.actions.constants import FINISHED_ASSIGNMENT_STATUSES, MAX_STORED_INT
from judgments.actions.hot_sql import TakeTheLock, store_unlocked
from judgments.actions.membership import _send_logged
from judgments.actions.qualification import _store_qualification
from judgments.actions.specs import SubmissionError, _whole_number
from judgments.actions.state import (
    TaskState,
    _progress,
    _task_state,
    check_background_given,
    check_open,
    get_assignment,
)
from judgments.actions.timing import parse_timing
from judgments.kinds import task_spec, worker_language
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
)
from judgments.signals import judgments_recorded


@dataclass(frozen=True)
class Submission:
    """A parsed answer: ``key`` names the unit (a position, or a set's group)."""

    key: int
    answer: dict[str, Any]
    client_started_at: datetime | None = None
    client_duration_ms: int | None = None

    @property
    def position(self) -> int:
        """Direct assessment's name for the key."""
        return self.key


def parse_submission(task: str, payload: Any, now: datetime | None = None) -> Submission:
    """Validate a posted answer without touching the database; SubmissionError (400) if bad.
    The timing fields must lie within a window of ``now`` (the server's time: see
    :mod:`judgments.actions.timing`)."""
    spec = task_spec(task)
    if spec is None:
        raise SubmissionError(
            pgettext("task answer", "This kind of task cannot take answers here.")
        )
    if not isinstance(payload, dict):
        raise SubmissionError(
            pgettext(
                "task answer", "Send the answer as a JSON object, for example {example}."
            ).format(example=spec.example)
        )
    allowed = spec.fields
    unknown = sorted(name for name in payload if name not in allowed)
    if unknown:
        raise SubmissionError(
            pgettext("task answer", "Unknown field '{name}': send only {fields}.").format(
                name=unknown[0], fields=", ".join(allowed)
            ),
            field=unknown[0],
        )
    key = _whole_number(payload, spec.key, spec.key_minimum, spec.key_what)
    if key is None:
        raise SubmissionError(
            pgettext("task answer", "{key} is required: {what}.").format(
                key=spec.key, what=spec.key_what
            ),
            field=spec.key,
        )
    answer = {name: parse(payload) for name, parse in spec.parsers.items()}

    client_started_at, duration = parse_timing(payload, now or timezone.now())
    return Submission(key, answer, client_started_at, duration)


@dataclass(frozen=True)
class SubmissionResult:
    judgments: tuple[Judgment, ...]  # the unit's rows, in position order
    created: bool  # False: an identical retry, answered with the stored judgments
    state: TaskState = field(repr=False)
    qualification: CampaignWorker | None = field(default=None, repr=False)

    @property
    def judgment(self) -> Judgment:
        """The first (for one-slot units, the only) judgment."""
        return self.judgments[0]


def _announce(campaign_id: int, worker_id: int, judgment_ids: list[int]) -> None:
    _send_logged(
        "judgments_recorded",
        judgments_recorded,
        Judgment,
        campaign_id=campaign_id,
        worker_id=worker_id,
        judgment_ids=judgment_ids,
    )


def _store(judgments: tuple[Judgment, ...], assignment: Assignment, update_fields: list[str]):
    """Insert the unit's judgments and save ``update_fields`` of the assignment. On PostgreSQL
    one statement (the UPDATE as a data-modifying WITH of the multi-row INSERT, which returns
    the new ids in the rows' order, as bulk_create relies on); elsewhere the ORM's saves."""
    connection = connections[router.db_for_write(Judgment)]
    if connection.vendor != "postgresql":
        for judgment in judgments:
            judgment.save(force_insert=True)
        assignment.save(update_fields=update_fields)
        return
    insert = sql.InsertQuery(Judgment)
    insert.insert_values(
        [field for field in Judgment._meta.concrete_fields if not field.primary_key], judgments
    )
    compiler = insert.get_compiler(connection=connection)
    compiler.returning_fields = [Judgment._meta.pk]
    ((insert_sql, insert_params),) = compiler.as_sql()
    update = sql.UpdateQuery(Assignment)
    update.add_update_values({name: getattr(assignment, name) for name in update_fields})
    update.add_q(Q(pk=assignment.pk))
    update_sql, update_params = update.get_compiler(connection=connection).as_sql()
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH stamped AS ({update_sql}) {insert_sql}", [*update_params, *insert_params]
        )
        ids = [pk for (pk,) in cursor.fetchall()]
    for judgment, pk in zip(judgments, ids, strict=True):
        judgment.pk = pk
        judgment._state.adding = False
        judgment._state.db = connection.alias


def record_judgment(
    assignment_id: int, worker_id: int, payload: Any, now: datetime | None = None
) -> SubmissionResult:
    """Store one unit's answer of ``worker_id`` in ``assignment_id``, atomically and
    idempotently: one code path for every task kind (its spec: ``judgments.kinds.task_spec``).

    ``payload`` is the decoded JSON the page posted: the unit (``position`` of a direct-
    assessment item, ``set`` (the group) of a ranking set), the task's answer fields
    (``score``; ``ranks`` as {"<position>": rank}), optional ``client_started_at`` (ISO 8601
    with a time zone, within a window of the server's time; stored in UTC) and
    ``client_duration_ms`` (at most 7 days; see :mod:`judgments.actions.timing`). As if under
    a lock on the assignment row (on PostgreSQL the checks run on the assignment read without
    a lock, and the write is one statement that stores anything only while the assignment is
    still as read; otherwise, or elsewhere, everything runs again on the locked row):

    - the answer must fit the unit (every output of a set ranked exactly once, 1..N);
    - a unit already answered with the same answer returns the stored judgments
      (``created`` False): a retried or double-clicked submit; with another answer it is a
      409, since there is no going back;
    - the assignment must be started and not past its deadline (410 otherwise);
    - a campaign that asks for the worker's background must have it (409 otherwise: the
      task page shows the form);
    - the unit must be the next unanswered one (400 "answer item N first" otherwise).

    On success one Judgment per slot of the unit is created with the server's timing
    (``served_at`` is when the unit's page was first served, ``server_duration_ms`` the time
    since), the assignment's activity is stamped, the assignment is submitted when this was
    its last unit (a qualification test is then scored and the result stored on the worker's
    membership, in the same transaction), and ``judgments_recorded`` is sent once after the
    commit with all the new ids. Any error raises SubmissionError and writes nothing.
    """
    now = now or timezone.now()
    if _writes_unlocked():
        # The common case in one statement without a transaction (see store_unlocked): read
        # without a lock, check, then write only if the assignment is still as it was read.
        assignment = get_assignment(assignment_id, worker_id)
        with worker_language(assignment):
            try:
                return _record(assignment, payload, now, unlocked=True)
            except TakeTheLock:
                pass  # changed meanwhile, or a qualification test's last unit: decide locked
    with transaction.atomic():
        assignment = get_assignment(assignment_id, worker_id, lock=True)
        # Messages about the answer are in the language of the worker's page.
        with worker_language(assignment):
            return _record(assignment, payload, now)


def _writes_unlocked() -> bool:
    """Whether the database takes a submission's write as one unlocked statement (PostgreSQL:
    a data-modifying WITH gates the INSERT on the assignment's UPDATE)."""
    return connections[router.db_for_write(Judgment)].vendor == "postgresql"


def _record(
    assignment: Assignment, payload: Any, now: datetime, *, unlocked: bool = False
) -> SubmissionResult:
    """record_judgment's work on the locked assignment, inside its transaction; ``unlocked``:
    on the assignment as read without a lock, writing with :func:`store_unlocked` (which
    raises TakeTheLock when the assignment changed since it was read)."""
    if assignment.status not in FINISHED_ASSIGNMENT_STATUSES:
        # Expired or returned: 410 whatever the answer, a retry of a stored one included (its
        # answer is kept, and the message says so), rather than a 200 offering the next item
        # or a 400 about an answer that could never be stored. A finished assignment still
        # answers a retry with its stored judgments (its completion page may be a reload away).
        check_open(assignment, now)
    task = assignment.hit.task
    submission = parse_submission(task, payload, now)
    spec = task_spec(task)
    progress = _progress(assignment)
    unit = next((unit for unit in progress.units if unit.key == submission.key), None)
    if unit is None:
        raise SubmissionError(spec.unknown_unit(submission.key, progress.units), field=spec.key)
    rows = spec.bind(unit, submission.answer)
    upcoming = progress.next
    if progress.is_answered(unit):
        stored = {
            judgment.slot_id: judgment
            for judgment in Judgment.objects.filter(
                assignment=assignment, slot_id__in=unit.slot_ids
            ).order_by()  # by the unique (assignment, slot) index: no ordering joins
        }
        if stored.keys() == rows.keys() and all(
            getattr(stored[pk], name) == value
            for pk, values in rows.items()
            for name, value in values.items()
        ):
            return SubmissionResult(
                tuple(stored[pk] for pk in unit.slot_ids),
                created=False,
                state=_task_state(assignment, progress),
            )
        follow_on = (
            spec.continue_with(upcoming.number)
            if upcoming
            else pgettext("task answer", "The task is finished.")
        )
        # Translators: two sentences, one after the other: a space between them, or none in
        # a language whose sentences end in a full-width stop (Chinese "{first}{second}").
        both = pgettext("task answer", "{first} {second}")
        raise SubmissionError(
            both.format(first=spec.answered(unit.number), second=follow_on),
            field=spec.key,
            status=409,
        )
    check_open(assignment, now)  # a finished assignment takes no new answer (409)
    check_background_given(assignment)
    # The unit is unanswered and the assignment open, so there is a next unit.
    if upcoming != unit:
        raise SubmissionError(spec.answer_first(upcoming.number), field=spec.key)

    served_at = assignment.current_served_at
    server_duration_ms = None
    if served_at is not None:
        elapsed = (now - served_at) / timedelta(milliseconds=1)
        server_duration_ms = min(max(round(elapsed), 0), MAX_STORED_INT)
    judgments = tuple(
        Judgment(
            campaign_id=assignment.campaign_id,
            worker_id=assignment.worker_id,
            assignment=assignment,
            slot_id=slot_id,
            client_started_at=submission.client_started_at,
            client_duration_ms=submission.client_duration_ms,
            served_at=served_at,
            server_duration_ms=server_duration_ms,
            **rows[slot_id],
        )
        for slot_id in unit.slot_ids
    )
    progress.answered.update(unit.slot_ids)
    state = _task_state(assignment, progress)

    assignment.last_activity_at = now
    # A new page goes out in this response, so it counts as served now; the rest of this
    # unit's page was served with it.
    if state.finished:
        assignment.current_served_at = None
    elif state.page != progress.page_of(unit):
        assignment.current_served_at = now
    update_fields = ["last_activity_at", "current_served_at"]
    qualification = None
    if state.finished:
        assignment.status = AssignmentStatus.SUBMITTED
        assignment.submitted_at = now
        update_fields += ["status", "submitted_at"]
    if unlocked:
        if state.finished and assignment.hit.is_qualification:
            # Scoring the test writes the worker's membership with the judgments: one
            # transaction, under the lock.
            raise TakeTheLock
        store_unlocked(judgments, assignment, served_at, now, update_fields)
    else:
        _store(judgments, assignment, update_fields)
    if state.finished and assignment.hit.is_qualification:
        qualification = _store_qualification(assignment, now)
    transaction.on_commit(
        partial(
            _announce,
            assignment.campaign_id,
            assignment.worker_id,
            [judgment.pk for judgment in judgments],
        )
    )
    return SubmissionResult(judgments, created=True, state=state, qualification=qualification)
