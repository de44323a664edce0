"""The judgments of one import, stored by column (issue 11 item 6: imports in bounded memory).

A WMT direct-assessment file of 200 MB holds about 2.2 million judgments. Kept as one Python
object per row (a dataclass, its float, its line number), they took about 150 bytes a row, and
the duplicate check another 45: 585 MB over the 300 MB the issue allows. Here a row is a few
machine numbers in ``array.array`` columns (about 43 bytes): the worker, HIT, slot and file
as indexes into lists of the distinct values (a file repeats them on every row), the line,
the value with its kind (score, given z or rank), the seconds and the start time.

Iterating gives :class:`~campaigns.importers.judgments.records.JudgmentRecord` objects made on
the fly, one at a time, so the checks and the writer read rows as before and never hold more
than one. The duplicate check keeps, per (worker, HIT), a bit per slot position and the rows'
indexes, instead of a dict of records.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

__all__ = ["AssignmentRows", "JudgmentColumns"]

# What the value column holds on a row.
_NONE, _SCORE, _GIVEN_Z, _RANK = 0, 1, 2, 3
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
# started_at: no time on the row (no real time is 2**63 - 1 microseconds after 1970).
_NO_TIME = 2**63 - 1


class _Interned:
    """Distinct values in first-appearance order, each with its index."""

    __slots__ = ("index", "values")

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}
        self.values: list[Any] = []

    def of(self, value: Any) -> int:
        number = self.index.get(value)
        if number is None:
            number = self.index[value] = len(self.values)
            self.values.append(value)
        return number


class AssignmentRows:
    """One (worker, HIT) of an import: which slot positions it judged (a bit each) and the
    indexes of its rows, for the duplicate check and for spreading a HIT's time."""

    __slots__ = ("rows", "seen")

    def __init__(self) -> None:
        self.seen = bytearray()
        self.rows = array("i")

    def judged(self, position: int) -> bool:
        byte, bit = divmod(position, 8)
        return byte < len(self.seen) and bool(self.seen[byte] >> bit & 1)

    def mark(self, position: int, row: int) -> None:
        byte, bit = divmod(position, 8)
        if byte >= len(self.seen):
            self.seen.extend(bytes(byte + 1 - len(self.seen)))
        self.seen[byte] |= 1 << bit
        self.rows.append(row)


class JudgmentColumns:
    """The rows of one import; ``make`` builds a row's record (JudgmentRecord) when read."""

    def __init__(self, make: Callable[..., Any]) -> None:
        self._make = make
        self._workers = _Interned()
        self._hits = _Interned()
        self._slots = _Interned()
        self._files = _Interned()
        self._worker = array("i")
        self._hit = array("i")
        self._slot = array("i")
        self._file = array("h")
        self._line = array("i")
        self._kind = array("b")
        self._value = array("d")
        self._seconds = array("d")
        self._started = array("q")

    def __len__(self) -> int:
        return len(self._line)

    def __bool__(self) -> bool:
        return len(self._line) > 0

    def append(self, record: Any) -> int:
        """Store ``record`` (a JudgmentRecord, which is not kept); its row index."""
        if record.score is not None:
            kind, value = _SCORE, record.score
        elif record.given_z is not None:
            kind, value = _GIVEN_Z, record.given_z
        elif record.rank is not None:
            kind, value = _RANK, float(record.rank)
        else:
            kind, value = _NONE, 0.0
        if [record.score, record.given_z, record.rank].count(None) < 2:
            raise ValueError("a judgment holds one of score, given_z and rank")
        started = record.started_at
        if started is not None and started.utcoffset() is None:
            raise ValueError("started_at must carry a time zone")
        self._worker.append(self._workers.of(record.worker))
        self._hit.append(self._hits.of(record.hit))
        self._slot.append(self._slots.of(record.slot))
        self._file.append(self._files.of(record.file))
        self._line.append(record.line)
        self._kind.append(kind)
        self._value.append(value)
        self._seconds.append(math.nan if record.seconds is None else record.seconds)
        self._started.append(_NO_TIME if started is None else (started - _EPOCH) // _MICROSECOND)
        return len(self._line) - 1

    def record(self, row: int) -> Any:
        """Row ``row`` as a record (a new object: changing it changes nothing stored)."""
        kind, value = self._kind[row], self._value[row]
        seconds, started = self._seconds[row], self._started[row]
        return self._make(
            worker=self._workers.values[self._worker[row]],
            hit=self._hits.values[self._hit[row]],
            slot=self._slots.values[self._slot[row]],
            file=self._files.values[self._file[row]],
            line=self._line[row],
            score=value if kind == _SCORE else None,
            given_z=value if kind == _GIVEN_Z else None,
            rank=round(value) if kind == _RANK else None,
            seconds=None if math.isnan(seconds) else seconds,
            started_at=None if started == _NO_TIME else _EPOCH + started * _MICROSECOND,
        )

    def __iter__(self) -> Iterator[Any]:
        return (self.record(row) for row in range(len(self._line)))

    def row_of_slot(self, rows: Iterable[int], slot: Any) -> int:
        """The first of ``rows`` (one assignment's) that judged ``slot``."""
        index = self._slots.index[slot]
        return next(row for row in rows if self._slot[row] == index)

    def set_seconds(self, rows: Iterable[int], seconds: float | None) -> None:
        value = math.nan if seconds is None else seconds
        for row in rows:
            self._seconds[row] = value

    def workers(self) -> list[str]:
        """The workers in first-appearance order."""
        return list(self._workers.values)
