"""Input representation for ranking statistics, and the pairwise expansion.

One campaign's ranking judgments arrive as parallel 1-D numpy arrays, one element per ranked
output (one row per (assignment, ranking set, output)); see :class:`RankingJudgments`.  Rows of
one assignment and one ranking set form a *ballot*: one worker's ranking of the N outputs of
that set.  Everything downstream works on these arrays (or on the :class:`Pairs` derived from
them) by factorising ids and sorting once, never by looping over rows in Python.

Pairwise view (000 section 4, 002 section 5.3, METHODS.md section 1): "each set yields
N(N-1)/2 pairs labelled A>B, A<B or A=B".  :func:`pairwise` lists them.  Each pair is oriented
canonically by system id (``system_a < system_b``) so that the same two outputs judged in
different ballots, by different workers or in a different dataset (experts) get the same key
and comparable labels:

    outcome = +1  "A > B": system_a's output was ranked better (smaller rank number)
    outcome =  0  "A = B": tie
    outcome = -1  "A < B": system_b's output was ranked better
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from analytics.stats.rows import WorkerRows, factorise

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["BETTER", "TIE", "WORSE", "Pairs", "RankingJudgments", "pairwise"]

BETTER = 1  # A > B
TIE = 0  # A = B
WORSE = -1  # A < B


def _frozen_array(values: ArrayLike, dtype: type, name: str) -> NDArray:
    arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    # Read-only so that the cached derived arrays below can never go stale.
    arr.setflags(write=False)
    return arr


def _dense_codes(col: NDArray[np.int64]) -> tuple[int, NDArray[np.int64]]:
    """(number of distinct values, per element its position among them): :func:`factorise`
    without the sort when the values span a short range (systems, ranks, positions): a
    presence table over the range, then a lookup, the same codes in O(n)."""
    if col.shape[0] == 0:
        return 0, np.zeros(0, dtype=np.int64)
    low, high = int(col.min()), int(col.max())
    if high - low <= 4 * col.shape[0]:
        present = np.zeros(high - low + 1, dtype=bool)
        offset = col - low
        present[offset] = True
        position = np.cumsum(present, dtype=np.int64) - 1
        return int(position[-1]) + 1, position[offset]
    ids, code = factorise(col)
    return int(ids.shape[0]), code


def _factor(col: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """:func:`factorise` (sorted distinct values, each element's position among them)
    without sorting ids whose high and low 16 bits each span a short range (a set id is
    ``hit_id << 16 | group``, the HITs of one campaign): their codes in the order of
    (high, low), which is the values' order (a third less CPU than the sort at 50,000 sets)."""
    if col.shape[0] == 0:
        return factorise(col)
    code, k = tuple_codes(col >> 16, col & 0xFFFF)
    ids = np.empty(k, dtype=np.int64)
    ids[code] = col
    return ids, code


def _narrowed(
    ids: NDArray[np.int64], codes: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(sorted distinct ids, codes) of a subset from its parent's ``ids`` and the subset's
    parent ``codes``: the ids the subset has, and each code's position among them."""
    present = np.zeros(ids.shape[0], dtype=bool)
    present[codes] = True
    position = np.cumsum(present, dtype=np.int64) - 1
    return ids[present], position[codes]


def tuple_codes(*columns: NDArray[np.int64]) -> tuple[NDArray[np.int64], int]:
    """Dense codes 0..k-1 for the distinct tuples of the given columns, in sorted tuple order.

    Built column by column on 1-D int64 codes, which is much faster than
    ``np.unique(..., axis=0)`` on a stacked array: each column's dense codes (without a sort
    when its values span a short range), combined in mixed radix, and compressed to dense
    codes once at the end; when the product of the numbers of distinct values could
    overflow int64, after each column instead.
    """
    n = columns[0].shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    code = np.zeros(n, dtype=np.int64)
    span = 1  # code < span
    for col in columns:
        k, c = _dense_codes(col)
        if span * max(k, 1) >= 2**62:
            _, code = factorise(code)
            span = int(code.max()) + 1
        code = code * np.int64(max(k, 1)) + c
        span *= max(k, 1)
    k, code = _dense_codes(code)
    return code, k


@dataclass(frozen=True, eq=False)
class RankingJudgments(WorkerRows):
    """One campaign's ranking judgments as parallel arrays (length n, one row per ranked output).

    Columns (all 1-D, same length):

    - ``worker``: int worker id.
    - ``assignment``: int assignment id (one worker doing one HIT); constant worker per
      assignment.
    - ``ranking_set``: int id of the *ranking set*: the N outputs of one segment shown and
      ranked together (000: N = 5, 002: N = 4).  Several workers ranking the same set (the
      redundancy of a HIT, 000: five Turkers per screen) share this id; their ballots are what
      Schulze's method combines.  The same set met again by the same worker in another
      assignment is a repeat (intra-annotator agreement).  A set belongs to one segment.
    - ``segment``: int segment id.  Pair keys for agreement are (segment, system_a,
      system_b), so that crowd and expert judgments of the same two outputs meet even when
      their sets were composed differently.
    - ``system``: int system id of the output (>= 0).  A negative id marks an output that is
      not a system's, such as the gold translation of a gold unit (002 section 4.2): it takes
      part in gold checks and agreement but never in system scores.  (assignment,
      ranking_set, system) must be unique; use distinct negative ids if a set holds more than
      one such output.
    - ``rank``: int >= 1, the rank the worker gave (1 = best, ties share a rank).  Values are
      taken as the worker chose them (the interface offers 1..N), not renumbered: the gold
      checks compare them with 002's "rank 1 or 2" / "rank 3 or 4".
    - ``expected_rank`` (optional, default 0 = none): for gold units (002 section 4.2), the
      rank the output is known to deserve: 1 for the gold translation, N for the known worst
      output (best+worst scheme).  A ballot with any expected rank > 0 is a gold unit.
    - ``order`` (optional, default the row position): anything that sorts judgments in the
      order the worker made them (submission time as a number, a sequence).  Used for "the
      first 10 judgments" of a worker (000's expert weights, gold weights).

    Inconsistent data (duplicate (assignment, set, system), a worker changing within an
    assignment, a set spanning two segments, rank < 1) raises ValueError at construction.
    """

    worker: NDArray[np.int64]
    assignment: NDArray[np.int64]
    ranking_set: NDArray[np.int64]
    segment: NDArray[np.int64]
    system: NDArray[np.int64]
    rank: NDArray[np.int64]
    expected_rank: NDArray[np.int64] | None = field(default=None)
    order: NDArray[np.float64] | None = field(default=None)

    def __post_init__(self) -> None:
        columns = ("worker", "assignment", "ranking_set", "segment", "system", "rank")
        for name in columns:
            object.__setattr__(self, name, _frozen_array(getattr(self, name), np.int64, name))
        n = self.worker.shape[0]
        if self.expected_rank is None:
            object.__setattr__(self, "expected_rank", np.zeros(n, dtype=np.int64))
        if self.order is None:
            object.__setattr__(self, "order", np.arange(n, dtype=np.float64))
        object.__setattr__(
            self, "expected_rank", _frozen_array(self.expected_rank, np.int64, "expected_rank")
        )
        object.__setattr__(self, "order", _frozen_array(self.order, np.float64, "order"))
        for name in (*columns, "expected_rank", "order"):
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"{name} has length {getattr(self, name).shape[0]}, expected {n}")
        if n == 0:
            return
        if self.rank.min() < 1:
            raise ValueError("rank must be >= 1 (1 = best)")
        if self.expected_rank.min() < 0:
            raise ValueError("expected_rank must be >= 0 (0 = no expectation)")
        # Consistency checks, vectorised: after sorting by the grouping key, a column that
        # must be constant within a group may not change between neighbours of one group.
        self._check_unique()
        self._check_constant(self.assignment, self.worker, "assignment", "worker")
        self._check_constant(self.ranking_set, self.segment, "ranking set", "segment")

    def _check_unique(self) -> None:
        key, n_distinct = tuple_codes(self.ballot, self.system)
        if n_distinct == key.shape[0]:  # as many distinct (ballot, system) as rows
            return
        order = np.argsort(key, kind="stable")
        ks = key[order]
        dup = ks[1:] == ks[:-1]
        if dup.any():
            row = int(order[1:][dup][0])
            raise ValueError(
                f"duplicate output: assignment {self.assignment[row]}, ranking set "
                f"{self.ranking_set[row]}, system {self.system[row]}"
            )

    @staticmethod
    def _check_constant(
        group: NDArray[np.int64], value: NDArray[np.int64], gname: str, vname: str
    ) -> None:
        # Without a sort: each group keeps one of its values (the last written); a row with
        # another value is in a group with more than one. The smallest such group is named.
        n_groups, code = _dense_codes(group)
        kept = np.empty(n_groups, dtype=value.dtype)
        kept[code] = value
        bad = kept[code] != value
        if bad.any():
            raise ValueError(f"{gname} {group[bad].min()} has more than one {vname}")

    @classmethod
    def from_ballots(cls, ballots: Iterable[Mapping[str, Any]]) -> RankingJudgments:
        """Build from ballots given as mappings (small hand-made cases, fixtures, imports).

        Keys: ``worker``, ``ranking_set``, ``ranks`` ({system: rank}); optional
        ``assignment`` (default: a new assignment per ballot, numbered from 1), ``segment``
        (default: the ranking set id), ``expected`` ({system: expected rank}) and ``order``
        (default: the ballot's position).
        """
        cols: dict[str, list[float]] = {
            k: []
            for k in ("worker", "assignment", "ranking_set", "segment", "system", "rank")
            + ("expected_rank", "order")
        }
        for i, b in enumerate(ballots):
            expected = b.get("expected", {})
            for system, rank in b["ranks"].items():
                cols["worker"].append(b["worker"])
                cols["assignment"].append(b.get("assignment", i + 1))
                cols["ranking_set"].append(b["ranking_set"])
                cols["segment"].append(b.get("segment", b["ranking_set"]))
                cols["system"].append(system)
                cols["rank"].append(rank)
                cols["expected_rank"].append(expected.get(system, 0))
                cols["order"].append(b.get("order", i))
        return cls(**{k: np.asarray(v) for k, v in cols.items()})

    # ------------------------------------------------------------------ derived, cached
    @cached_property
    def systems(self) -> NDArray[np.int64]:
        """Sorted distinct system ids (>= 0); per-system results are aligned to this order."""
        return np.unique(self.system[self.system >= 0])

    @cached_property
    def _set_factor(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _factor(self.ranking_set)

    @property
    def sets(self) -> NDArray[np.int64]:
        """Sorted distinct ranking-set ids."""
        return self._set_factor[0]

    @property
    def set_index(self) -> NDArray[np.int64]:
        """Per row, the position of its ranking set in :attr:`sets`."""
        return self._set_factor[1]

    @cached_property
    def _ballot_factor(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        # A ballot is one (assignment, ranking set); encode the pair as one int64 after
        # factorising both columns so that arbitrary database ids cannot overflow.
        code, k = tuple_codes(self.assignment, self.ranking_set)
        return np.arange(k, dtype=np.int64), code

    @property
    def ballot(self) -> NDArray[np.int64]:
        """Per row, its ballot code 0..n_ballots-1 (one per (assignment, ranking set))."""
        return self._ballot_factor[1]

    @property
    def n_ballots(self) -> int:
        return int(self._ballot_factor[0].shape[0])

    @cached_property
    def ballot_size(self) -> NDArray[np.int64]:
        """Number of outputs in each ballot (N of that ranking set as this worker saw it)."""
        return np.bincount(self.ballot, minlength=self.n_ballots).astype(np.int64)

    @cached_property
    def ballot_first_row(self) -> NDArray[np.int64]:
        """Per ballot, one row index of it (to read worker, set, segment, order of a ballot)."""
        first = np.full(self.n_ballots, -1, dtype=np.int64)
        # Reverse assignment so that the smallest row index wins.
        rows = np.arange(len(self), dtype=np.int64)[::-1]
        first[self.ballot[::-1]] = rows
        return first

    @cached_property
    def ballot_order(self) -> NDArray[np.float64]:
        """Per ballot, the smallest ``order`` of its rows: when the worker made it."""
        out = np.full(self.n_ballots, np.inf)
        np.minimum.at(out, self.ballot, self.order)
        return out

    @cached_property
    def ballot_worker(self) -> NDArray[np.int64]:
        """Per ballot, its worker index (position in :attr:`workers`)."""
        return self.worker_index[self.ballot_first_row]

    def select(self, rows: NDArray[np.bool_] | NDArray[np.int64]) -> RankingJudgments:
        """A new RankingJudgments with only the given rows (mask or indices).

        Rows of consistent judgments are consistent, so the subset is not checked again,
        and the worker, set and ballot codes it has already are narrowed to the subset
        (what factorising the subset's columns gives, without its sorts; issue 16)."""
        columns = ("worker", "assignment", "ranking_set", "segment", "system", "rank")
        sub = object.__new__(RankingJudgments)
        for name in (*columns, "expected_rank", "order"):
            column = getattr(self, name)[rows]
            column.setflags(write=False)
            object.__setattr__(sub, name, column)
        for factor in ("_worker_factor", "_set_factor", "_ballot_factor"):
            if factor in self.__dict__:
                ids, codes = self.__dict__[factor]
                sub.__dict__[factor] = _narrowed(ids, codes[rows])
        if "_ballot_factor" in sub.__dict__:  # ballots are numbered, not ids
            kept, codes = sub.__dict__["_ballot_factor"]
            sub.__dict__["_ballot_factor"] = (np.arange(kept.shape[0], dtype=np.int64), codes)
        return sub

    def worker_mask_to_rows(self, include_workers: NDArray[np.bool_] | None) -> NDArray[np.bool_]:
        """Expand a boolean mask over :attr:`workers` to a mask over rows (None = everyone)."""
        if include_workers is None:
            return np.ones(len(self), dtype=bool)
        mask = np.asarray(include_workers, dtype=bool)
        if mask.shape != (self.n_workers,):
            raise ValueError(
                f"include_workers must have shape ({self.n_workers},) aligned to .workers"
            )
        return mask[self.worker_index]

    @cached_property
    def pairs(self) -> Pairs:
        """All pairwise comparisons (cached); see :func:`pairwise`."""
        return pairwise(self)


@dataclass(frozen=True, eq=False)
class Pairs:
    """The pairwise view of a :class:`RankingJudgments`: one element per compared pair.

    ``row_a`` / ``row_b`` index the judgments' rows, oriented so that ``system_a <
    system_b``; ``outcome`` is +1 (A > B), 0 (A = B) or -1 (A < B).  ``ballot``, ``worker``
    (index into ``judgments.workers``), ``set_index`` (index into ``judgments.sets``) and
    ``segment`` are copied from the rows for grouping.
    """

    judgments: RankingJudgments
    row_a: NDArray[np.int64]
    row_b: NDArray[np.int64]
    system_a: NDArray[np.int64]
    system_b: NDArray[np.int64]
    outcome: NDArray[np.int8]
    ballot: NDArray[np.int64]
    worker: NDArray[np.int64]
    set_index: NDArray[np.int64]
    segment: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.row_a.shape[0])

    @property
    def between_systems(self) -> NDArray[np.bool_]:
        """Pairs of two system outputs (neither a gold translation nor other non-system)."""
        return self.system_a >= 0

    def labels(self) -> NDArray[np.int64]:
        """Outcome as a category 0, 1, 2 (A < B, A = B, A > B) for agreement counting."""
        return self.outcome.astype(np.int64) + 1

    @cached_property
    def key(self) -> NDArray[np.int64]:
        """Per pair, a code for (segment, system_a, system_b): "the same two outputs".

        Codes are dense (0..k-1) on the pairs of a whole judgments object; a subset keeps
        its parent's codes.
        """
        return tuple_codes(self.segment, self.system_a, self.system_b)[0]

    def subset(self, mask: NDArray[np.bool_]) -> Pairs:
        """The pairs where ``mask`` is True (same judgments; key codes carried over)."""
        sub = Pairs(
            judgments=self.judgments,
            row_a=self.row_a[mask],
            row_b=self.row_b[mask],
            system_a=self.system_a[mask],
            system_b=self.system_b[mask],
            outcome=self.outcome[mask],
            ballot=self.ballot[mask],
            worker=self.worker[mask],
            set_index=self.set_index[mask],
            segment=self.segment[mask],
        )
        if "key" in self.__dict__:
            # Codes of the full set stay valid labels of "the same two outputs" (no longer
            # dense, which no consumer needs); recomputing them is the costly part.
            sub.__dict__["key"] = self.key[mask]
        return sub


def pairwise(judgments: RankingJudgments) -> Pairs:
    """Expand every ballot of N outputs into its N(N-1)/2 pairs (000 section 4).

    Vectorised per ballot size: rows are sorted by ballot once; for each distinct size N the
    upper-triangle index pairs of an N x N matrix are added to the start offsets of all
    ballots of that size at once, so the Python loop runs over distinct sizes (2..10), not over
    ballots.
    """
    j = judgments
    n = len(j)
    ballot = j.ballot
    # Rows come grouped by ballot in ballot order when loaded in submission order: the
    # stable sort is then the identity, seen in one pass.
    if n < 2 or bool(np.all(ballot[1:] >= ballot[:-1])):
        order = np.arange(n, dtype=np.int64)
    else:
        order = np.argsort(ballot, kind="stable")
    sizes = j.ballot_size
    starts = np.cumsum(sizes) - sizes
    parts_a: list[NDArray[np.int64]] = []
    parts_b: list[NDArray[np.int64]] = []
    for size in np.unique(sizes) if n else []:
        if size < 2:
            continue
        ballots = np.flatnonzero(sizes == size)
        iu, ju = np.triu_indices(int(size), k=1)
        base = starts[ballots][:, None]
        parts_a.append(order[(base + iu).reshape(-1)])
        parts_b.append(order[(base + ju).reshape(-1)])
    if parts_a:
        ra = np.concatenate(parts_a)
        rb = np.concatenate(parts_b)
    else:
        ra = rb = np.zeros(0, dtype=np.int64)
    # Canonical orientation: the smaller system id first.
    swap = j.system[ra] > j.system[rb]
    row_a = np.where(swap, rb, ra)
    row_b = np.where(swap, ra, rb)
    # Smaller rank number = better, so A > B when rank_a < rank_b.
    outcome = np.sign(j.rank[row_b] - j.rank[row_a]).astype(np.int8)
    return Pairs(
        judgments=j,
        row_a=row_a,
        row_b=row_b,
        system_a=j.system[row_a],
        system_b=j.system[row_b],
        outcome=outcome,
        ballot=j.ballot[row_a],
        worker=j.worker_index[row_a],
        set_index=j.set_index[row_a],
        segment=j.segment[row_a],
    )
