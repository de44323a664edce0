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

from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from analytics.stats.rows import WorkerRows

__all__ = ["ControlPairs", "DAJudgments", "Role"]


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
        valid = np.isin(codes, [member.value for member in cls])
        if not valid.all():
            raise ValueError(f"unknown slot role code(s): {np.unique(codes[~valid]).tolist()}")
        return codes


def _frozen_array(values: ArrayLike, dtype: type, name: str) -> NDArray:
    arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    # Read-only so that the cached derived arrays below can never go stale.
    arr.setflags(write=False)
    return arr


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
            given = np.full(n, np.nan)  # no row has a given z
        object.__setattr__(self, "given_z", _frozen_array(given, np.float64, "given_z"))
        for name in [*columns, "role", "given_z"]:
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"{name} has length {getattr(self, name).shape[0]}, expected {n}")
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

    # ------------------------------------------------------------------ derived, cached
    @property
    def has_given_z(self) -> NDArray[np.bool_]:
        """Per row: does it carry a given z-score (and so no raw score of its own to use)?"""
        return ~np.isnan(self.given_z)

    @cached_property
    def value(self) -> NDArray[np.float64]:
        """Per row, what control pairs compare: the given z where a row has one, else the raw
        score (for a campaign of raw scores, exactly ``score``)."""
        value = np.where(self.has_given_z, self.given_z, self.score)
        value.setflags(write=False)
        return value

    @cached_property
    def partner(self) -> NDArray[np.int64]:
        """Per row, the row index of the SYSTEM judgment a control row controls, else -1."""
        n = len(self)
        partner = np.full(n, -1, dtype=np.int64)
        wants = (self.role != Role.SYSTEM) & (self.pair_slot >= 0)
        if n == 0:
            return partner
        # Encode (assignment, slot) as one int64 key after factorising both columns, so that
        # arbitrary database ids cannot overflow; then one sort + one searchsorted.
        a_code = np.unique(self.assignment, return_inverse=True)[1].reshape(-1)
        slot_values, s_code = np.unique(
            np.concatenate([self.slot, self.pair_slot[wants]]), return_inverse=True
        )
        s_code = s_code.reshape(-1)
        width = np.int64(slot_values.shape[0])
        key = a_code.astype(np.int64) * width + s_code[:n]
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        duplicated = sorted_key[1:] == sorted_key[:-1]
        if duplicated.any():
            row = order[1:][duplicated][0]
            raise ValueError(
                f"duplicate judgment for (assignment={self.assignment[row]}, slot={self.slot[row]})"
            )
        want_rows = np.flatnonzero(wants)
        want_key = a_code[want_rows].astype(np.int64) * width + s_code[n:]
        pos = np.minimum(np.searchsorted(sorted_key, want_key), n - 1)
        found = sorted_key[pos] == want_key
        partner[want_rows[found]] = order[pos[found]]

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

    @property
    def n_unmatched_controls(self) -> int:
        """Control rows with a pair link whose partner judgment is not in the data."""
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
