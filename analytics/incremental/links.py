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

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LinkedDAJudgments", "PairLinks"]


@dataclass(frozen=True, eq=False)
class LinkedDAJudgments(DAJudgments):
    """``DAJudgments`` whose pair links were derived already (``links``, the values
    ``DAJudgments.partner`` derives): every other check and derivation is ``DAJudgments``'."""

    links: NDArray[np.integer] | None = field(default=None, repr=False, kw_only=True)

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
