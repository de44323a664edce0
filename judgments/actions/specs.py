"""The task kinds' answers: what one submission answers (its unit), how an answer is parsed
and validated, and how it becomes Judgment column values (``TASK_SPECS``)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from campaigns.models import Campaign, HitSlot, HitTask
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


@dataclass(frozen=True)
class Unit:
    """What one submission answers: one slot (direct assessment) or one ranking set (the
    slots of one group). ``key`` is the value the page sends back for it (the slot's position,
    or the set's group); ``number`` its 1-based place in the HIT as the page shows it (a DA
    item's position; "set 2" is the second set); ``slots`` its (slot pk, position) pairs in
    position order."""

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


# A position as a JSON object key: digits without a leading zero, so that "1" and "01" can
# never both name the same output.


_POSITION_KEY = re.compile(r"[1-9][0-9]{0,8}")


RANKS_EXAMPLE = '{"1": 2, "2": 1}'


def _parse_ranks(payload: Mapping[str, Any]) -> dict[int, int]:
    """``ranks``: {"<position>": <rank>} for every output of the set; ranks are whole numbers
    from 1 (best); ties allowed. The upper bound (the set's size) is checked against the set."""
    value = payload.get("ranks")
    if value is None:
        raise SubmissionError(
            "ranks is required: give every output of the set a rank.", field="ranks"
        )
    if not isinstance(value, dict):
        raise SubmissionError(
            f"ranks must be an object that gives each output's position its rank, for example "
            f"{RANKS_EXAMPLE} (got {_json_kind(value)}).",
            field="ranks",
        )
    ranks: dict[int, int] = {}
    for key, rank in value.items():
        if not _POSITION_KEY.fullmatch(key):
            raise SubmissionError(
                f"ranks must give each output's position its rank, for example {RANKS_EXAMPLE}; "
                f'"{key[:40]}" is not a position.',
                field="ranks",
            )
        if type(rank) is not int or not 1 <= rank <= MAX_STORED_INT:
            raise SubmissionError(
                f"The rank of position {key} must be a whole number of at least 1 "
                f"(got {_json_kind(rank)}).",
                field="ranks",
            )
        ranks[int(key)] = rank
    return ranks


def _one_slot_units(slots: list[tuple[int, int, int]]) -> list[Unit]:
    return [
        Unit(key=position, number=position, slots=((pk, position),)) for pk, position, _ in slots
    ]


def _group_units(slots: list[tuple[int, int, int]]) -> list[Unit]:
    """One unit per group, in group order; slots by position within it."""
    groups: dict[int, list[tuple[int, int]]] = {}
    for pk, position, group in slots:
        groups.setdefault(group, []).append((pk, position))
    return [
        Unit(key=group, number=number, slots=tuple(groups[group]))
        for number, group in enumerate(sorted(groups), start=1)
    ]


def _bind_one_slot(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {unit.slot_ids[0]: dict(answer)}


def _bind_ranks(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Check that ``ranks`` names exactly the set's outputs, with ranks 1..N (N = its size)."""
    ranks: dict[int, int] = answer["ranks"]
    by_position = dict((position, pk) for pk, position in unit.slots)
    outputs = ", ".join(str(position) for position in unit.positions)
    extra = sorted(set(ranks) - set(by_position))
    if extra:
        raise SubmissionError(
            f"ranks names position {extra[0]}, which is not an output of set {unit.number}; "
            f"its outputs are at positions {outputs}.",
            field="ranks",
        )
    missing = [position for position in unit.positions if position not in ranks]
    if missing:
        raise SubmissionError(
            f"Every output of set {unit.number} needs a rank; missing: position"
            f"{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}.",
            field="ranks",
        )
    size = len(unit.slots)
    for position in unit.positions:
        if ranks[position] > size:
            raise SubmissionError(
                f"The rank of position {position} must be from 1 to {size}, the number of "
                f"outputs in set {unit.number} (got {ranks[position]}).",
                field="ranks",
            )
    return {by_position[position]: {"rank": ranks[position]} for position in unit.positions}


@dataclass(frozen=True)
class TaskSpec:
    """How one HIT task takes answers.

    ``key``: the payload field naming the unit answered, with its minimum and what it is (for
    messages); ``noun``: what the worker calls a unit; ``example``: a valid payload, shown in
    messages; ``parsers``: the answer fields and their database-free parsers; ``units``: the
    HIT's slots ``(pk, position, group)`` in position order -> its units in answer order;
    ``bind``: a unit and a parsed answer -> Judgment column values per slot pk, checking the
    answer against the unit (SubmissionError if it does not fit); ``page_size``: units on one
    page for a campaign.
    """

    key: str
    key_minimum: int
    key_what: str
    noun: str
    example: str
    parsers: dict[str, Callable[[Mapping[str, Any]], Any]]
    units: Callable[[list[tuple[int, int, int]]], list[Unit]]
    bind: Callable[[Unit, dict[str, Any]], dict[int, dict[str, Any]]]
    page_size: Callable[[Campaign], int]
    unknown_unit: Callable[[int, list[Unit]], str]

    @property
    def fields(self) -> tuple[str, ...]:
        return (self.key, *TIMING_FIELDS, *self.parsers)


# Fields every submission may carry besides its unit and its answer.


TIMING_FIELDS = ("client_started_at", "client_duration_ms")


TASK_SPECS: dict[str, TaskSpec] = {
    HitTask.ASSESS: TaskSpec(
        key="position",
        key_minimum=1,
        key_what="the number of the item you answer",
        noun="item",
        example='{"position": 1, "score": 50}',
        parsers={"score": _parse_score},
        units=_one_slot_units,
        bind=_bind_one_slot,
        page_size=lambda campaign: 1,
        unknown_unit=lambda key, units: (
            f"There is no item {key} in this task; it has items 1 to {len(units)}."
        ),
    ),
    # 002 section 3.4: a ranking set is one segment's source, reference and N outputs; the
    # worker ranks them 1 (best) to N, ties allowed; 3 sets per page (sets_per_hit).
    HitTask.RANK: TaskSpec(
        key="set",
        key_minimum=0,
        key_what="the ranking set you answer",
        noun="set",
        example='{"set": 0, "ranks": {"1": 2, "2": 1}}',
        parsers={"ranks": _parse_ranks},
        units=_group_units,
        bind=_bind_ranks,
        page_size=lambda campaign: max(1, campaign.ranking_settings.sets_per_hit),
        unknown_unit=lambda key, units: (
            f'There is no set {key} in this task: "set" is one of '
            f"{', '.join(str(unit.key) for unit in units)}."
        ),
    ),
}
