"""Input representation for direct-assessment (slider) statistics.

One campaign's judgments arrive as parallel 1-D numpy arrays, one element per judgment (one row
per (assignment, slot)); see :class:`DAJudgments` for the columns.  Everything downstream is
vectorised over these arrays: grouping is done by factorising ids and sorting once, never by
looping over rows in Python.

The HIT structure follows Graham et al. (2014, EACL) Section 4 "HIT structure" and Table 2:
control slots (a repeat, a bad reference, a reference) each point to the ordinary system-output
slot they control, within the same HIT and therefore within the same assignment.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.direct_assessment._codes import factorise, stable_order
from analytics.stats.rows import WorkerRows

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike, NDArray

__all__ = ["ControlPairs", "DAJudgments", "Role", "freeze"]


class Role(IntEnum):
    """Role of a HIT slot (Graham et al. 2014, Section 4 / Table 2).

    SYSTEM: an ordinary system output.  REPEAT: an exact repeat of a system output shown earlier
    or later in the same HIT ("ask again" in the 2013 paper).  BAD_REFERENCE: a deliberately
    degraded copy of a system output.  REFERENCE: a human reference translation.
    """

    SYSTEM = 0
    REPEAT = 1
    BAD_REFERENCE = 2
    REFERENCE = 3

    @classmethod
    def codes(cls, roles: ArrayLike) -> NDArray[np.int8]:
        """Map role names ("system", "repeat", "bad_reference", "reference") or codes to codes.

        Raises ValueError on an unknown name or code: a silently mis-typed role would turn a
        quality-control item into a scored system output.
        """
        arr = np.asarray(roles)
        if arr.dtype.kind in "USO":
            # np.unique + a small lookup table: one Python step per distinct name, not per row.
            names, inverse = np.unique(arr.astype(str), return_inverse=True)
            lookup = {member.name.lower(): member.value for member in cls}
            unknown = [name for name in names if name.lower() not in lookup]
            if unknown:
                raise ValueError(f"unknown slot role(s): {unknown}; expected {sorted(lookup)}")
            table = np.array([lookup[name.lower()] for name in names], dtype=np.int8)
            return table[inverse.reshape(-1)].reshape(arr.shape)
        if arr.size and arr.dtype.kind not in "iub":
            raise ValueError(f"slot roles must be names or integer codes, got dtype {arr.dtype}")
        codes = arr.astype(np.int8)
        # Each code looked up in a table of the 256 byte values (np.isin over four values
        # took 15 ms at a million rows, the lookup 1).
        known = np.zeros(256, dtype=bool)
        known[[member.value for member in cls]] = True
        valid = known[codes.view(np.uint8)]
        if not valid.all():
            raise ValueError(f"unknown slot role code(s): {np.unique(codes[~valid]).tolist()}")
        return codes


def _frozen_array(values: ArrayLike, dtype: type, name: str) -> NDArray:
    # An id column may come as int32 (a loader's, when the ids fit): ids are only compared
    # and numbered, never added up, so half the memory changes no result.
    kept_types = (np.dtype(dtype), np.dtype(np.int32)) if dtype is np.int64 else (np.dtype(dtype),)
    if (
        isinstance(values, np.ndarray)
        and values.dtype in kept_types
        and not values.flags.writeable
        and not (isinstance(values.base, np.ndarray) and values.base.flags.writeable)
    ):
        # Already read-only all the way down (a loader's arrays, a subset's): nobody can change
        # it, so no copy (at a million judgments each copy of a column is 8 MB).
        arr = values
    else:
        arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    # Read-only so that the cached derived arrays below can never go stale.
    arr.setflags(write=False)
    return arr


# The columns a DAJudgments holds, one array each (subset and release walk them).
COLUMNS = (
    "worker",
    "assignment",
    "slot",
    "role",
    "system",
    "item",
    "pair_slot",
    "score",
    "seconds",
    "given_z",
)


# What a released object's columns become (DAJudgments.subset(release=True)).
@functools.cache
def _released() -> NDArray:
    """One empty read-only array (made on first use: a web worker loading this module does not
    run numpy, evalsite.deferred_imports)."""
    released = np.zeros(0)
    released.setflags(write=False)
    return released


# Columns a subset takes on first use (DAJudgments.subset): no statistic reads them from the
# scored rows as a whole. ``assignment`` and ``slot`` (the pair links are derived already),
# ``pair_slot`` (counting the unmatched controls, after the agreement), ``seconds`` (only the
# rows of workers tested again, a subset of the subset: DAJudgments.rows_of).
_TAKEN_ON_USE = frozenset({"assignment", "slot", "pair_slot", "seconds"})


def _held_as_taken(column: NDArray) -> bool:
    """Whether a subset may hold ``column`` until it takes its rows: when it is no wider than
    the subset's own copy would be (int32 ids, which both loaders give but for the full
    loader's ``pair_slot``; floats, copied as they are), so that holding it costs at most
    the rows the subset leaves out."""
    return column.dtype.itemsize <= 4 or column.dtype.kind == "f"


# int32's range, written out: numpy is not run when a web worker loads this module
# (evalsite.deferred_imports).
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _narrow(values: NDArray) -> NDArray:
    """An int64 id column as int32 when every value fits (else unchanged)."""
    if values.dtype != np.int64 or not values.size:
        return values
    if values.min() < _INT32_MIN or values.max() > _INT32_MAX:
        return values
    return values.astype(np.int32)


def _no_given_z(n: int) -> NDArray[np.float64]:
    return np.broadcast_to(np.float64(np.nan), (n,))


def freeze(array: NDArray) -> NDArray:
    """Mark an array the caller owns and will not change as read-only, so that
    :class:`DAJudgments` takes it without a copy; returns it."""
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class DAJudgments(WorkerRows):
    """One campaign's direct-assessment judgments as parallel arrays (length n, one per judgment).

    Columns (all 1-D, same length):

    - ``worker``: int worker id.
    - ``assignment``: int assignment id (one worker doing one HIT).
    - ``slot``: int id of the HIT slot judged.  (assignment, slot) must be unique.
    - ``role``: :class:`Role` codes (int) or names ("system", "repeat", "bad_reference",
      "reference").
    - ``system``: int system id for SYSTEM and REPEAT rows; ignored for the other roles (pass
      -1 there).  Repeats count as outputs of their system (2014, Section 4 "HIT structure":
      80% of assessments are genuine outputs "including exact repeat assessments").
    - ``item``: int id of the output judged (the output id; a repeat and a bad reference carry
      the id of the output they control).  Used to find the same output judged by distinct
      workers (inter-annotator agreement, 2013 Section 6); any id is fine for references.
    - ``pair_slot``: for a control row (REPEAT, BAD_REFERENCE, REFERENCE), the slot id of the
      SYSTEM slot it controls; -1 if none.  The partner is looked up within the same
      assignment.  Links on SYSTEM rows are ignored, so a data model that links both ways works.
    - ``score``: float in [0, ``scale_max``] (default 100), the slider position; NaN on a
      row that has a ``given_z`` and no raw score.
    - ``seconds``: float time spent on the judgment; NaN where unknown.
    - ``given_z`` (optional: None or empty when no row has one, else NaN where a row has
      none): a standardised score given with the data
      instead of a raw one (imported judgment files that publish only z-scores).  Such a row
      takes it as its z (:func:`~analytics.stats.direct_assessment.standardize`), its raw
      score is missing (system raw means that include it are NaN), and its control pairs
      compare given z-scores (:attr:`value`).  A worker's rows are meant to be all raw or all
      given: the reliability tests are unchanged by a worker's own positive linear rescaling,
      so testing z-scores gives what testing the raw scores would have given.

    The id columns are int64, or int32 when given so (a loader's, when the ids fit); a
    :meth:`subset`'s may be int32 too (when the ids fit), which only changes their size.

    A control whose partner judgment is absent (an abandoned assignment) is simply unpaired:
    see :attr:`n_unmatched_controls`.  Inconsistent data (duplicate (assignment, slot), a
    control pointing at a non-SYSTEM slot, a worker changing within an assignment) raises
    ValueError rather than being skipped silently.
    """

    worker: NDArray[np.int64]
    assignment: NDArray[np.int64]
    slot: NDArray[np.int64]
    role: NDArray[np.int8]
    system: NDArray[np.int64]
    item: NDArray[np.int64]
    pair_slot: NDArray[np.int64]
    score: NDArray[np.float64]
    seconds: NDArray[np.float64]
    scale_max: float = field(default=100.0)
    given_z: NDArray[np.float64] | None = field(default=None)

    def __post_init__(self) -> None:
        columns = {
            "worker": np.int64,
            "assignment": np.int64,
            "slot": np.int64,
            "system": np.int64,
            "item": np.int64,
            "pair_slot": np.int64,
            "score": np.float64,
            "seconds": np.float64,
        }
        for name, dtype in columns.items():
            object.__setattr__(self, name, _frozen_array(getattr(self, name), dtype, name))
        object.__setattr__(self, "role", _frozen_array(Role.codes(self.role), np.int8, "role"))
        n = self.worker.shape[0]
        given = self.given_z
        if given is None or (n and np.size(given) == 0):
            # No row has a given z: NaN everywhere, as a read-only broadcast that takes no
            # memory (8 MB at a million judgments otherwise).
            object.__setattr__(self, "given_z", _no_given_z(n))
        else:
            object.__setattr__(self, "given_z", _frozen_array(given, np.float64, "given_z"))
        for name in [*columns, "role", "given_z"]:
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"{name} has length {getattr(self, name).shape[0]}, expected {n}")
        if given is None or (n and np.size(given) == 0):
            # No given z (the usual case): every score must be finite, checked on the column
            # itself, without the masked copies below (~15 ms at a million rows).
            if not np.isfinite(self.score).all():
                raise ValueError(
                    "score must be finite (load only judgments that have a score or a given z)"
                )
            raw = self.score
        else:
            has_given = self.has_given_z
            if np.isinf(self.given_z).any():
                raise ValueError("given_z must be finite (NaN where a row has none)")
            if not np.isfinite(self.score[~has_given]).all():
                raise ValueError(
                    "score must be finite (load only judgments that have a score or a given z)"
                )
            raw = self.score[np.isfinite(self.score)]
        if raw.size and (raw.min() < 0 or raw.max() > self.scale_max):
            raise ValueError(f"score must lie in [0, {self.scale_max}]")
        # Derive (and validate) the pair links eagerly: a data error should surface at load
        # time, not in the middle of a later computation.
        _ = self.partner

    def __getattr__(self, name: str) -> NDArray:
        # Only called for an attribute not found: a subset's column taken on first use.
        on_use = self.__dict__.get("_taken_on_use")
        if on_use is None or name not in on_use:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        rows, source = on_use.pop(name)
        taken = freeze(_narrow(source[rows]))
        object.__setattr__(self, name, taken)
        if not on_use:
            del self.__dict__["_taken_on_use"]
        return taken

    def _pending(self, name: str) -> tuple[NDArray[np.bool_], NDArray] | None:
        """A column this subset has not taken yet: (its rows, the array they select from)."""
        on_use = self.__dict__.get("_taken_on_use")
        return None if on_use is None else on_use.get(name)

    def rows_of(self, where: NDArray, names: Iterable[str]) -> dict[str, NDArray]:
        """``{name: getattr(self, name)[where]}`` (``where``: positions or a mask), without
        taking a whole column this subset has not taken yet: only the rows asked for are read
        from the array it would be taken from."""
        out = {}
        positions: dict[int, NDArray[np.intp]] = {}
        for name in names:
            pending = self._pending(name)
            if pending is None:
                out[name] = getattr(self, name)[where]
                continue
            rows, source = pending
            if id(rows) not in positions:
                positions[id(rows)] = np.flatnonzero(rows)[where]
            out[name] = _narrow(source[positions[id(rows)]])
        return out

    # ------------------------------------------------------------------ derived, cached
    @property
    def has_given_z(self) -> NDArray[np.bool_]:
        """Per row: does it carry a given z-score (and so no raw score of its own to use)?"""
        return ~np.isnan(self.given_z)

    @cached_property
    def _worker_factor(self) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
        # Worker ids are dense: numbered without a sort (as np.unique would number them).
        return factorise(self.worker)

    @cached_property
    def value(self) -> NDArray[np.float64]:
        """Per row, what control pairs compare: the given z where a row has one, else the raw
        score (for a campaign of raw scores, exactly ``score``)."""
        has_given = self.has_given_z
        if not has_given.any():
            return self.score
        value = np.where(has_given, self.given_z, self.score)
        value.setflags(write=False)
        return value

    @cached_property
    def partner(self) -> NDArray[np.int64]:
        """Per row, the row index of the SYSTEM judgment a control row controls, else -1."""
        n = len(self)
        wants = (self.role != Role.SYSTEM) & (self.pair_slot >= 0)
        if n == 0:
            return np.full(0, -1, dtype=np.int64)
        # (assignment, slot) as one int64 key: the offsets of both from their smallest id when
        # the product of their spans fits (campaign ids are dense), else their codes among
        # the distinct values; then one stable sort and one searchsorted.
        want_rows = np.flatnonzero(wants)
        wanted_slot = self.pair_slot[want_rows]
        a_lo = int(self.assignment.min())
        a_span = int(self.assignment.max()) - a_lo + 1
        s_lo = min(int(self.slot.min()), int(wanted_slot.min()) if want_rows.size else 1 << 62)
        s_hi = max(int(self.slot.max()), int(wanted_slot.max()) if want_rows.size else 0)
        width = s_hi - s_lo + 1
        if a_span * width < 1 << 62:
            # In int64 whatever the columns' type (int32 ids would overflow), in place.
            key = self.assignment.astype(np.int64)
            key -= a_lo
            key *= width
            key += self.slot
            key -= s_lo
            want_key = self.assignment[want_rows].astype(np.int64)
            want_key -= a_lo
            want_key *= width
            want_key += wanted_slot
            want_key -= s_lo
        else:
            a_code = factorise(self.assignment)[1].astype(np.int64)
            slot_values, s_code = factorise(np.concatenate([self.slot, wanted_slot]))
            width = slot_values.shape[0]
            key = a_code * width + s_code[:n]
            want_key = a_code[want_rows] * width + s_code[n:]
        order = stable_order(key)
        sorted_key = key[order]
        del key
        duplicated = sorted_key[1:] == sorted_key[:-1]
        if duplicated.any():
            row = order[1:][duplicated][0]
            raise ValueError(
                f"duplicate judgment for (assignment={self.assignment[row]}, slot={self.slot[row]})"
            )
        del duplicated
        pos = np.minimum(np.searchsorted(sorted_key, want_key), n - 1)
        found = sorted_key[pos] == want_key
        matched = order[pos[found]]
        del order, sorted_key  # before the result is allocated: a lower peak
        # Row positions as int32 where they fit (any campaign), as a subset's are.
        partner = np.full(n, -1, dtype=np.int32 if n < _INT32_MAX else np.int64)
        partner[want_rows[found]] = matched
        del matched

        linked = partner >= 0
        bad_role = linked & (self.role[np.where(linked, partner, 0)] != Role.SYSTEM)
        if bad_role.any():
            row = int(np.flatnonzero(bad_role)[0])
            raise ValueError(
                f"control slot {self.slot[row]} (assignment {self.assignment[row]}) points at "
                f"slot {self.pair_slot[row]}, which is not a system output"
            )
        other_worker = linked & (self.worker[np.where(linked, partner, 0)] != self.worker)
        if other_worker.any():
            row = int(np.flatnonzero(other_worker)[0])
            raise ValueError(f"assignment {self.assignment[row]} has more than one worker")
        partner.setflags(write=False)
        return partner

    def subset(self, rows: NDArray[np.bool_], *, release: bool = False) -> DAJudgments:
        """The judgments of the rows where ``rows`` is True, which must be whole assignments
        (so that control pairs stay within the subset).

        Valid rows of valid judgments need no new checks, and what the subset derives from
        them (its pair links, its workers) follows from this one's without a sort: a control
        keeps its partner, renumbered; the workers keep their order.

        Id columns are kept as int32 when their values fit (they are only compared and
        numbered, never added up: half the memory of a subset's ids).

        ``release``: this object is not used again (a recompute that is done with every
        judgment and goes on with the scored ones): each of its columns is let go as soon as
        the subset has its copy, so that both are never held whole at once (at a million
        judgments, about 80 MB less at the peak). Afterwards this object has no rows.

        The columns no statistic reads from the scored rows as a whole (``_TAKEN_ON_USE``:
        ``assignment``, ``slot``, ``pair_slot``, ``seconds``) are taken on first use when
        this object's are no wider than a copy would be (``_held_as_taken``): the subset
        holds this object's arrays and the rows until then, instead of copies. A subset of
        such a subset holds the same arrays with its rows among theirs, and
        :meth:`rows_of` reads a few rows of them without taking the whole column. An
        incremental recompute's scored rows, taken from views of its cache, are then 19 MB
        smaller at a million judgments (its peak: 12 MB of copies, and 7 MB of the two id
        columns the workers tested again used to take); a full recompute's hold the loaded
        columns instead of their copies.
        """
        rows = np.asarray(rows, dtype=bool)
        if rows.shape != (len(self),):
            raise ValueError(f"rows must have shape ({len(self)},)")
        # Positions as int32 where they fit (every campaign): smaller temporaries, and the
        # subset's links stay int32.
        position_type = np.int32 if len(self) < _INT32_MAX else np.int64
        new_position = np.cumsum(rows, dtype=position_type)
        new_position -= 1
        partner = self.partner[rows]
        if release:
            self.__dict__.pop("partner", None)
        linked = partner >= 0
        kept = linked.copy()
        kept[linked] = rows[partner[linked]]
        del linked
        partner = np.where(kept, new_position[np.where(kept, partner, 0)], position_type(-1))
        del new_position, kept
        parent_workers = self.workers
        worker_index = self.worker_index[rows]
        if release:
            self.__dict__.pop("_worker_factor", None)
        present = np.bincount(worker_index, minlength=parent_workers.shape[0]) > 0
        if present.all():
            workers = parent_workers
        else:
            renumber = np.cumsum(present, dtype=np.intp)
            renumber -= 1
            worker_index = renumber[worker_index]
            workers = parent_workers[present]
        has_given = bool(self.has_given_z.any())
        out = object.__new__(DAJudgments)
        if release:
            for name in ("partner", "_worker_factor", "value", "n_unmatched_controls"):
                self.__dict__.pop(name, None)
        on_use: dict[str, tuple[NDArray[np.bool_], NDArray]] = {}
        # A column this object has not taken yet is not taken for the subset either: the
        # subset's rows of the array it would be taken from (one mask per distinct source
        # mask, shared by the columns that share it).
        composed: dict[int, NDArray[np.bool_]] = {}
        own_rows = None
        for name in COLUMNS:
            pending = self._pending(name) if name in _TAKEN_ON_USE else None
            if pending is not None:
                source_rows, source = pending
                if id(source_rows) not in composed:
                    within = source_rows.copy()
                    within[source_rows] = rows
                    composed[id(source_rows)] = freeze(within)
                on_use[name] = (composed[id(source_rows)], source)
            elif name in _TAKEN_ON_USE and _held_as_taken(getattr(self, name)):
                if own_rows is None:
                    # Held until the columns are taken: a mask of the caller's own that it
                    # changed later would take other rows (a copy: 1 MB a million rows).
                    own_rows = rows if not rows.flags.writeable else freeze(rows.copy())
                on_use[name] = (own_rows, getattr(self, name))
            else:
                if name == "given_z" and not has_given:
                    taken = _no_given_z(int(np.count_nonzero(rows)))
                else:
                    taken = freeze(_narrow(getattr(self, name)[rows]))
                object.__setattr__(out, name, taken)
            if release:
                object.__setattr__(self, name, _released())
        if release:
            self.__dict__.pop("_taken_on_use", None)
        if on_use:
            out.__dict__["_taken_on_use"] = on_use
        object.__setattr__(out, "scale_max", self.scale_max)
        # Row and worker positions fit int32 far beyond any campaign (half the memory).
        partner, worker_index = _narrow(partner), _narrow(worker_index)
        for derived in (partner, worker_index, workers):
            derived.setflags(write=False)
        out.__dict__["partner"] = partner
        out.__dict__["_worker_factor"] = (workers, worker_index)
        return out

    @cached_property
    def n_unmatched_controls(self) -> int:
        """Control rows with a pair link whose partner judgment is not in the data (kept: a
        recompute's report of each variant asks, 1.5 ms a time at a million judgments)."""
        wants = (self.role != Role.SYSTEM) & (self.pair_slot >= 0)
        return int(np.count_nonzero(wants & (self.partner < 0)))

    def control_pairs(self, role: Role) -> ControlPairs:
        """All resolved (controlled output, control item) pairs for one control role."""
        rows = np.flatnonzero((self.role == role) & (self.partner >= 0))
        original_rows = self.partner[rows]
        return ControlPairs(
            worker=self.worker_index[rows],
            original=self.value[original_rows],
            control=self.value[rows],
            original_row=original_rows,
            control_row=rows,
        )

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


@dataclass(frozen=True)
class ControlPairs:
    """Resolved control pairs of one role, as parallel arrays (one element per pair).

    ``worker`` is the worker *index* (position in :attr:`DAJudgments.workers`); ``original`` the
    score of the controlled system output; ``control`` the score of the control item (both
    :attr:`DAJudgments.value`: the given z-scores of rows imported as standardised).
    """

    worker: NDArray[np.int64]
    original: NDArray[np.float64]
    control: NDArray[np.float64]
    original_row: NDArray[np.int64]
    control_row: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.worker.shape[0])
