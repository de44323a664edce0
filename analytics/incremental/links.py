"""The pair links of a cached campaign (``DAJudgments.partner``) kept between recomputes.

``DAJudgments`` derives, for every control row (repeat, bad reference, reference), the row of
the system output it controls within the same assignment: a stable sort of every row's
(assignment, slot), about a third of building a million judgments. A link only ever changes
for the rows of an assignment that got new rows (a control's output may be judged after it),
so the cache keeps the links and, on each refresh, derives them again for the rows from the
first row of any assignment with new rows to the end (by ``DAJudgments`` itself, over those
rows: the same derivation and checks), keeping the links of the other rows in that stretch.
tests/analytics/test_incremental.py compares the links with a full load's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from analytics.incremental.columns import Column
from analytics.stats.direct_assessment import DAJudgments
from analytics.stats.direct_assessment.judgments import COLUMNS as _DA_COLUMNS
from analytics.stats.direct_assessment.judgments import _no_given_z, freeze

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LinkedDAJudgments", "PairLinks"]

# The columns a LinkedDAJudgments takes as they are (given_z is optional).
_CHECKED_COLUMNS = tuple(name for name in _DA_COLUMNS if name != "given_z")
# dtype names, which compare equal to the dtypes: no numpy call when the module is imported
# (the web process imports it with the recompute task, and numpy only on first use: issue 16
# item 4, evalsite/deferred_imports.py).
_IDS = ("int32", "int64")
_TYPES = {
    **{name: _IDS for name in _CHECKED_COLUMNS},
    "links": _IDS,
    "role": ("int8",),
    "score": ("float64", "float32"),  # float32: the cache's exact scores, widened below
    "seconds": ("float64",),
}


@dataclass(frozen=True, eq=False)
class LinkedDAJudgments(DAJudgments):
    """``DAJudgments`` whose pair links were derived already (``links``, the values
    ``DAJudgments.partner`` derives): every other derivation is ``DAJudgments``'.

    With ``links``, the rows were also checked already: :meth:`PairLinks.update` built a
    ``DAJudgments`` over every row it linked (the same checks, on the same values: cached rows
    never change, they are only cut and read again, and then linked again), so the checks of
    every row on every run (about 15 ms at a million judgments) are not made again; the columns
    are taken as they are (read-only views of the cache). Without ``links``: ``DAJudgments``."""

    links: NDArray[np.integer] | None = field(default=None, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        if self.links is None:
            super().__post_init__()
            return
        # What DAJudgments would take without a copy: read-only columns of its types.
        n = self.worker.shape[0]
        for name in (*_CHECKED_COLUMNS, "links"):
            values = getattr(self, name)
            if values.shape != (n,) or values.flags.writeable or values.dtype not in _TYPES[name]:
                raise ValueError(f"{name} must be a read-only column of {n} rows")
        if self.score.dtype != np.float64:
            # The statistics add scores up in float64: a float32 column (which holds each
            # value exactly: analytics.incremental.columns) is taken as the float64 a full
            # load reads, a copy the recompute lets go with the scored rows.
            object.__setattr__(self, "score", freeze(self.score.astype(np.float64)))
        if self.given_z is None or (n and np.size(self.given_z) == 0):
            object.__setattr__(self, "given_z", _no_given_z(n))
        elif (
            self.given_z.shape != (n,)
            or self.given_z.flags.writeable
            or self.given_z.dtype != np.float64
        ):
            raise ValueError(f"given_z must be a read-only column of {n} rows")

    @cached_property
    def partner(self) -> NDArray[np.integer]:
        if self.links is None:
            return DAJudgments.partner.func(self)
        return self.links


class PairLinks:
    """Per cached row, its partner row (-1 for none), and the first row of each assignment."""

    def __init__(self) -> None:
        self.partner = Column(np.int32)
        self.assignments = np.empty(0, dtype=np.int64)  # sorted
        self.first_row = np.empty(0, dtype=np.int64)  # aligned to assignments

    @property
    def nbytes(self) -> int:
        return self.partner.nbytes + self.assignments.nbytes + self.first_row.nbytes

    def view(self) -> NDArray[np.int32]:
        return self.partner.view()

    def truncate(self, n: int) -> None:
        """The rows from ``n`` on are gone (read again next)."""
        self.partner.truncate(min(n, self.partner.n))
        kept = self.first_row < n
        self.assignments, self.first_row = self.assignments[kept], self.first_row[kept]

    def update(self, columns: dict[str, NDArray], given_z: NDArray | None) -> None:
        """Link the rows past the linked ones (``columns``: every cached row, as views) and
        link again the earlier rows of their assignments."""
        start = self.partner.n
        assignment = columns["assignment"]
        n = assignment.shape[0]
        if start >= n:
            return
        new, first_new = np.unique(assignment[start:], return_index=True)
        at = np.minimum(np.searchsorted(self.assignments, new), max(self.assignments.size - 1, 0))
        known = self.assignments[at] == new if self.assignments.size else np.zeros(new.size, bool)
        window = int(min(self.first_row[at[known]].min(initial=n), (first_new + start).min()))
        if not known.all():
            assignments = np.concatenate([self.assignments, new[~known].astype(np.int64)])
            first_row = np.concatenate([self.first_row, first_new[~known] + start])
            order = np.argsort(assignments, kind="stable")
            self.assignments, self.first_row = assignments[order], first_row[order]
        part = {name: values[window:] for name, values in columns.items()}
        linked = DAJudgments(
            **part, given_z=None if given_z is None else given_z[window:]
        ).partner.astype(np.int64)
        links = np.where(linked >= 0, linked + window, -1)
        # Rows before ``start`` whose assignment has no new row keep their links.
        earlier = slice(0, start - window)
        again = np.isin(part["assignment"][earlier], new)
        links[earlier] = np.where(again, links[earlier], self.partner.view()[window:start])
        self.partner.truncate(window)
        self.partner.append(links.astype(np.int32))
