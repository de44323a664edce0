"""The machinery of the task kinds' answers: what one submission answers (its unit), how an
answer is parsed and validated, and how it becomes Judgment column values (:class:`TaskSpec`).

Each kind's specs live with the kind (``judgments.kinds.<kind>``: its ``TaskPage.spec``);
shared code finds one with ``judgments.kinds.task_spec(hit_task)``. The building blocks every
kind may use are here: :func:`one_slot_units` and :func:`group_units` cut a HIT into units,
:func:`bind_one_slot` stores a one-slot answer, :func:`json_kind` describes a bad value.

Messages are for the worker: marked with ``pgettext`` ("task answer" here) and built when the
error is raised, in the language the worker's page is in (``judgments.kinds.worker_language``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.utils.functional import Promise
from django.utils.translation import pgettext

from campaigns.models import Campaign, HitSlot
from judgments.actions.constants import MAX_STORED_INT


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


class Unit(NamedTuple):
    """What one submission answers: one slot (direct assessment) or one ranking set (the
    slots of one group). ``key`` is the value the page sends back for it (the slot's position,
    or the set's group); ``number`` its 1-based place in the HIT as the page shows it (a DA
    item's position; "set 2" is the second set); ``slots`` its (slot pk, position) pairs in
    position order.

    A named tuple: every request of a task cuts its HIT into units again, 100 of them for a
    DA HIT, and a frozen dataclass took twice as long to build (100 us a request in one
    process) and to compare (issue 16)."""

    key: int
    number: int
    slots: tuple[tuple[int, int], ...]

    @property
    def slot_ids(self) -> tuple[int, ...]:
        return tuple(pk for pk, _ in self.slots)

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(position for _, position in self.slots)


@dataclass(frozen=True)
class ShownUnit:
    """A unit on the worker's page now, with its slots (segment loaded) in position order."""

    key: int
    number: int
    slots: tuple[HitSlot, ...]


def json_kind(value: Any) -> str:
    """How a JSON value reads to a person, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, str):
        return pgettext("task answer", 'the text "{text}"').format(text=value[:40])
    if isinstance(value, list):
        return pgettext("task answer", "a list")
    if isinstance(value, dict):
        return pgettext("task answer", "an object")
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)


def _whole_number(
    payload: Mapping[str, Any], name: str, minimum: int, what: str | Promise
) -> int | None:
    value = payload.get(name)
    if value is None:
        return None
    if type(value) is not int or not minimum <= value <= MAX_STORED_INT:
        raise SubmissionError(
            pgettext(
                "task answer",
                "{name} must be {what}, a whole number of at least {minimum} (got {value}).",
            ).format(name=name, what=what, minimum=minimum, value=json_kind(value)),
            field=name,
        )
    return value


def one_slot_units(slots: list[tuple[int, int, int]]) -> list[Unit]:
    """One unit per slot, in position order (a direct-assessment item)."""
    return [Unit(position, position, ((pk, position),)) for pk, position, _ in slots]


def group_units(slots: list[tuple[int, int, int]]) -> list[Unit]:
    """One unit per group, in group order; slots by position within it."""
    groups: dict[int, list[tuple[int, int]]] = {}
    for pk, position, group in slots:
        groups.setdefault(group, []).append((pk, position))
    return [
        Unit(key=group, number=number, slots=tuple(groups[group]))
        for number, group in enumerate(sorted(groups), start=1)
    ]


def bind_one_slot(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """A one-slot unit's answer, stored as it was parsed (its fields are Judgment columns)."""
    return {unit.slot_ids[0]: dict(answer)}


@dataclass(frozen=True)
class TaskSpec:
    """How one HIT task takes answers.

    ``key``: the payload field naming the unit answered, with its minimum and what it is (for
    messages, translated when shown: a lazy string); ``example``: a valid payload, shown in
    messages; ``parsers``: the answer fields and their database-free parsers; ``units``: the
    HIT's slots ``(pk, position, group)`` in position order -> its units in answer order;
    ``bind``: a unit and a parsed answer -> Judgment column values per slot pk, checking the
    answer against the unit (SubmissionError if it does not fit); ``page_size``: units on one
    page for a campaign; ``unknown_unit``: the message for a key naming no unit (the key and
    the units). The worker's words for a unit (an item, a set) are whole sentences, so that
    each language can phrase them: ``answered`` (unit number: it is answered and cannot be
    changed), ``continue_with`` (the next unit's number) and ``answer_first`` (the number of
    the unit to answer first, in order). ``slots_per_page``: the most slots one page of the
    task shows, whatever the campaign, where the kind knows it (one-slot units, one a page:
    1); the statement that reads an assignment then sends the columns of only that many
    unanswered slots (judgments.actions.hot_sql; None: its default, enough for any page).
    """

    key: str
    key_minimum: int
    key_what: str | Promise
    example: str
    parsers: dict[str, Callable[[Mapping[str, Any]], Any]]
    units: Callable[[list[tuple[int, int, int]]], list[Unit]]
    bind: Callable[[Unit, dict[str, Any]], dict[int, dict[str, Any]]]
    page_size: Callable[[Campaign], int]
    unknown_unit: Callable[[int, list[Unit]], str]
    answered: Callable[[int], str]
    continue_with: Callable[[int], str]
    answer_first: Callable[[int], str]
    slots_per_page: int | None = None

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.key, *TIMING_FIELDS, *self.parsers)


# Fields every submission may carry besides its unit and its answer.


TIMING_FIELDS = ("client_started_at", "client_duration_ms")
