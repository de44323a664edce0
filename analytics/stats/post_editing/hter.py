"""Segment HTER: the best verified post-edit of each output, else TER against the reference.

000 section 5.2: "For the final score, we choose the edited segment which passed the criteria
and which minimized the edit distance to the unedited machine translation output.  If none of
the five edits was deemed to be acceptable, then we used the edit distance between the MT and
the reference."  So for each output (one system's translation of one segment):

    HTER = min over passed edits e of  edits(MT -> e) / words(e)
         = edits(MT -> reference) / words(reference)      when no edit passed

Ties (two passed edits with the same rate) are broken by fewer edits, then by the earlier edit
row: any choice gives the same segment HTER, but the corpus-level HTER sums the chosen edit's
counts, so the rule must be fixed; fewer edits is the reading closest to "minimized the edit
distance".  The statistics are (edits, reference length) pairs from
:mod:`analytics.stats.post_editing.ter`, stored once per edit; nothing here scores text.

Inputs are two tables of parallel arrays: :class:`Outputs` (one row per output, with the TER
statistics of the output against the reference) and :class:`PostEdits` (one row per edit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.post_editing.ter import edit_rate

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["Outputs", "PostEdits", "SegmentHTER", "segment_hter"]


def _column(values: ArrayLike, dtype: type, name: str) -> NDArray:
    arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


def _check_lengths(obj: object, names: tuple[str, ...]) -> int:
    n = getattr(obj, names[0]).shape[0]
    for name in names:
        if getattr(obj, name).shape[0] != n:
            raise ValueError(f"{name} has length {getattr(obj, name).shape[0]}, expected {n}")
    return n


@dataclass(frozen=True, eq=False)
class Outputs:
    """One row per output: ``system`` and ``segment`` ids (unique pairs) and the TER
    statistics of the output (hypothesis) against the reference translation: ``ref_edits`` and
    ``ref_length`` (the fallback when no edit passed; 000 Table 2's "0 editors" column)."""

    system: NDArray[np.int64]
    segment: NDArray[np.int64]
    ref_edits: NDArray[np.int64]
    ref_length: NDArray[np.float64]

    def __post_init__(self) -> None:
        for name, dtype in (
            ("system", np.int64),
            ("segment", np.int64),
            ("ref_edits", np.int64),
            ("ref_length", np.float64),
        ):
            object.__setattr__(self, name, _column(getattr(self, name), dtype, name))
        _check_lengths(self, ("system", "segment", "ref_edits", "ref_length"))
        keys = _pair_keys(self.system, self.segment, self.system, self.segment)[0]
        if np.unique(keys).shape[0] != keys.shape[0]:
            raise ValueError("(system, segment) must be unique in Outputs")

    def __len__(self) -> int:
        return int(self.system.shape[0])

    def rows_of(self, system: NDArray[np.int64], segment: NDArray[np.int64]) -> NDArray[np.int64]:
        """Per (system, segment) pair, the row of that output; ValueError if there is none."""
        own, wanted = _pair_keys(self.system, self.segment, system, segment)
        order = np.argsort(own, kind="stable")
        at = np.searchsorted(own[order], wanted)
        at = np.minimum(at, max(own.shape[0] - 1, 0))
        found = own[order][at] == wanted if own.size else np.zeros(wanted.shape, dtype=bool)
        if not found.all():
            bad = int(np.flatnonzero(~found)[0])
            raise ValueError(
                f"edit {bad} is of (system {system[bad]}, segment {segment[bad]}), "
                "which is not among the outputs"
            )
        return order[at].astype(np.int64)


def _pair_keys(
    system: NDArray[np.int64],
    segment: NDArray[np.int64],
    other_system: NDArray[np.int64],
    other_segment: NDArray[np.int64],
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """One int64 key per (system, segment) pair of both sets, equal for equal pairs: the pair's
    codes among the distinct ids (no overflow whatever the ids), so that pairs are found with
    1-D sorts (``np.unique(axis=0)`` sorts rows as structured values, ~50x slower)."""
    systems = np.unique(np.concatenate([system, other_system]))
    segments = np.unique(np.concatenate([segment, other_segment]))
    width = np.int64(segments.shape[0])

    def keys(sys_: NDArray[np.int64], seg: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.searchsorted(systems, sys_).astype(np.int64) * width + np.searchsorted(
            segments, seg
        )

    return keys(system, segment), keys(other_system, other_segment)


@dataclass(frozen=True, eq=False)
class PostEdits:
    """One row per post-edit: the ``system`` and ``segment`` of the output it edits, its TER
    statistics (``edits`` and ``ref_length``, hypothesis = MT output, reference = the edit),
    ``passed`` (verification verdict, :func:`~analytics.stats.post_editing.verify_edits`),
    optionally ``worker`` (default -1) and ``slot``: which of the output's editors made it,
    0..k-1 (for the subsampling table; default: the order of the rows within the output)."""

    system: NDArray[np.int64]
    segment: NDArray[np.int64]
    edits: NDArray[np.int64]
    ref_length: NDArray[np.float64]
    passed: NDArray[np.bool_]
    worker: NDArray[np.int64] | None = field(default=None)
    slot: NDArray[np.int64] | None = field(default=None)

    def __post_init__(self) -> None:
        for name, dtype in (
            ("system", np.int64),
            ("segment", np.int64),
            ("edits", np.int64),
            ("ref_length", np.float64),
            ("passed", bool),
        ):
            object.__setattr__(self, name, _column(getattr(self, name), dtype, name))
        n = self.system.shape[0]
        if self.worker is None:
            object.__setattr__(self, "worker", np.full(n, -1, dtype=np.int64))
        object.__setattr__(self, "worker", _column(self.worker, np.int64, "worker"))
        if self.slot is None:
            object.__setattr__(self, "slot", _default_slots(self.system, self.segment))
        object.__setattr__(self, "slot", _column(self.slot, np.int64, "slot"))
        names = ("system", "segment", "edits", "ref_length", "passed", "worker", "slot")
        _check_lengths(self, names)
        if n and self.slot.min() < 0:
            raise ValueError("slot must be >= 0")

    def __len__(self) -> int:
        return int(self.system.shape[0])

    @property
    def ter(self) -> NDArray[np.float64]:
        return edit_rate(self.edits, self.ref_length)


def _default_slots(system: ArrayLike, segment: ArrayLike) -> NDArray[np.int64]:
    """Per row, how many earlier rows edit the same (system, segment)."""
    sys_ = np.asarray(system, dtype=np.int64).reshape(-1)
    seg = np.asarray(segment, dtype=np.int64).reshape(-1)
    n = sys_.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(n), seg, sys_))
    s_sys, s_seg = sys_[order], seg[order]
    start = np.ones(n, dtype=bool)
    start[1:] = (s_sys[1:] != s_sys[:-1]) | (s_seg[1:] != s_seg[:-1])
    group_start = np.maximum.accumulate(np.where(start, np.arange(n), 0))
    slots = np.empty(n, dtype=np.int64)
    slots[order] = np.arange(n) - group_start
    return slots


@dataclass(frozen=True, eq=False)
class SegmentHTER:
    """Per output (aligned to the :class:`Outputs` rows): the chosen statistics and HTER.

    ``chosen``: the row of the chosen edit in :class:`PostEdits`, or -1 when no edit passed
    and the output was scored against the reference (``from_reference``).
    """

    system: NDArray[np.int64]
    segment: NDArray[np.int64]
    edits: NDArray[np.int64]
    ref_length: NDArray[np.float64]
    chosen: NDArray[np.int64]
    n_edits: NDArray[np.int64]
    n_passed: NDArray[np.int64]

    @property
    def hter(self) -> NDArray[np.float64]:
        return edit_rate(self.edits, self.ref_length)

    @property
    def from_reference(self) -> NDArray[np.bool_]:
        return self.chosen < 0

    def __len__(self) -> int:
        return int(self.system.shape[0])


def edit_order(rows: NDArray[np.int64], post_edits: PostEdits) -> NDArray[np.int64]:
    """Edit positions sorted by (output row, TER, edits, position): for any subset of edits
    kept in this order, the first of each output is the one segment HTER chooses."""
    position = np.arange(len(post_edits))
    return np.lexsort((position, post_edits.edits, post_edits.ter, rows))


def choose(
    rows: NDArray[np.int64], order: NDArray[np.int64], keep: NDArray[np.bool_], n_outputs: int
) -> NDArray[np.int64]:
    """Per output, the edit chosen among those with ``keep`` (first in ``order``), else -1."""
    kept = order[keep[order]]
    chosen = np.full(n_outputs, -1, dtype=np.int64)
    if kept.size:
        first_rows, first_at = np.unique(rows[kept], return_index=True)
        chosen[first_rows] = kept[first_at]
    return chosen


def chosen_statistics(
    outputs: Outputs, post_edits: PostEdits, chosen: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(edits, ref_length) per output: of the chosen edit, or against the reference."""
    has = chosen >= 0
    pick = np.where(has, chosen, 0)
    if len(post_edits):
        edits = np.where(has, post_edits.edits[pick], outputs.ref_edits)
        ref = np.where(has, post_edits.ref_length[pick], outputs.ref_length)
    else:
        edits, ref = outputs.ref_edits.copy(), outputs.ref_length.copy()
    return edits.astype(np.int64), ref.astype(np.float64)


def segment_hter(outputs: Outputs, post_edits: PostEdits) -> SegmentHTER:
    """HTER of every output: the smallest TER among its passed edits (fewest edits, then
    earliest row, on ties), else its TER against the reference (000 section 5.2)."""
    n = len(outputs)
    rows = outputs.rows_of(post_edits.system, post_edits.segment)
    order = edit_order(rows, post_edits)
    chosen = choose(rows, order, post_edits.passed, n)
    edits, ref = chosen_statistics(outputs, post_edits, chosen)
    return SegmentHTER(
        system=outputs.system,
        segment=outputs.segment,
        edits=edits,
        ref_length=ref,
        chosen=chosen,
        n_edits=np.bincount(rows, minlength=n).astype(np.int64),
        n_passed=np.bincount(rows, weights=post_edits.passed, minlength=n).astype(np.int64),
    )
