"""Glue: load one direct-assessment campaign's judgments as numpy arrays.

A fixed number of queries whatever the size of the campaign: one per table (Judgment, HitSlot,
Output, plus the ids of rejected assignments and of excluded workers), no query per judgment,
no model instances, no Python object per value (``analytics.loading.load_columns``: numeric
columns, a binary COPY on PostgreSQL). The arrays are handed to :class:`DAJudgments` read-only,
so it keeps them without a copy.
Judgments are joined to their slots and outputs in numpy (sorted ids + ``searchsorted``,
``analytics.loading``), never row by row in Python.

What is loaded: every judgment of the campaign that has a score or a given z-score
(``Judgment.given_z``: imported files that publish standardised scores only; the statistics
use it as the judgment's z, see :class:`~analytics.stats.direct_assessment.DAJudgments`), on a
slot whose role is one of direct assessment's four (system, repeat, bad reference, reference).
Judgments on other slots (none in a campaign built by the DA builder) are counted in
``n_skipped`` and left out.
Seconds per judgment: the browser's ``client_duration_ms`` when present, else the server's
``server_duration_ms``, else NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Case, IntegerField, Max, Min, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce

from analytics.loading import (
    ColumnsRead,
    held_back_assignment_ids,
    id_array,
    load_columns,
    load_columns_together,
    lookup,
    reads_together,
    return_freed_memory,
)
from analytics.stats.direct_assessment import DAJudgments, Role
from analytics.stats.direct_assessment.judgments import freeze
from campaigns.models import HitSlot, Output
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import NDArray

__all__ = [
    "JUDGMENT_COPY_COLUMNS",
    "LoadSummary",
    "LoadedCampaign",
    "load_da_judgments",
    "read_judgment_tables",
    "read_outputs",
    "read_slots",
    "subset",
]

# Judgment columns read, in this order (all numeric or NULL, so one float array holds them;
# ids stay exact in float64 up to 2**53).
_JUDGMENT_COLUMNS = (
    "worker_id",
    "assignment_id",
    "slot_id",
    "score",
    "client_duration_ms",
    "server_duration_ms",
    "given_z",
)
_ROLE_CODES = {member.name.lower(): member.value for member in Role}
_NO_ROLE = -1
# int32's range, written out: numpy is not run when a web worker loads this module
# (evalsite.deferred_imports).
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True, eq=False)
class LoadedCampaign:
    """A campaign's DA judgments and what keeps some of them out of the scores.

    ``judgments`` holds every loaded judgment; ``rejected`` and ``excluded`` are per-row masks
    over it (the row's assignment was rejected, or opened from MTurk and not confirmed by
    MTurk yet, ``judgments.models.held_back_from_scores``; its worker is excluded from the
    campaign by the requester). ``scored`` is the rows that count in system scores: neither.
    ``excluded_workers`` are the sorted ids of the campaign's excluded workers (also those
    without judgments). ``n_read`` counts every judgment with a score (or a given z) that was
    read, ``n_rejected_read`` those in rejected (or unconfirmed MTurk) assignments,
    ``n_skipped`` those left out for being on a slot of another task kind (both counts include
    them).
    """

    campaign_id: int
    judgments: DAJudgments
    rejected: NDArray[np.bool_]
    excluded: NDArray[np.bool_]
    excluded_workers: NDArray[np.int64]
    n_read: int
    n_rejected_read: int
    n_skipped: int

    @property
    def scored(self) -> NDArray[np.bool_]:
        return ~(self.rejected | self.excluded)

    def __len__(self) -> int:
        return len(self.judgments)

    def summary(self) -> LoadSummary:
        """What storing the results needs of the load besides the analysis (no per-row
        array), taken before the judgments are let go."""
        return LoadSummary(
            campaign_id=self.campaign_id,
            n_read=self.n_read,
            n_scored=int(np.count_nonzero(self.scored)),
            n_rejected_read=self.n_rejected_read,
            n_unmatched_controls=self.judgments.n_unmatched_controls,
            excluded_workers=self.excluded_workers,
        )


@dataclass(frozen=True)
class LoadSummary:
    """:meth:`LoadedCampaign.summary`: the counts and excluded workers that are stored."""

    campaign_id: int
    n_read: int
    n_scored: int
    n_rejected_read: int
    n_unmatched_controls: int
    excluded_workers: NDArray[np.int64]


def _role_code() -> Case:
    """The slot's role as a Role code in SQL; roles outside direct assessment become -1."""
    return Case(
        *(When(role=name, then=Value(code)) for name, code in _ROLE_CODES.items()),
        default=Value(_NO_ROLE),
        output_field=IntegerField(),
    )


def _narrow_ids(ids: NDArray[np.int64]) -> NDArray[np.integer]:
    """``ids`` as int32 when every value (NULLs are -1) fits, else unchanged."""
    if ids.size and (ids.min() < _INT32_MIN or ids.max() > _INT32_MAX):
        return ids
    return ids.astype(np.int32)


def _by_id(columns: dict[str, NDArray]) -> dict[str, NDArray]:
    """``columns`` (from ``load_columns``, with an "id" column) in the order of their ids."""
    ids = columns["id"]
    if ids.shape[0] < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return columns
    order = np.argsort(ids, kind="stable")
    return {name: column[order] for name, column in columns.items()}


# The slots' and outputs' columns read.
_SLOT_COLUMNS = (("id", "id"), ("role_code", "id"), ("output_id", "id"), ("controls_id", "id"))
_OUTPUT_COLUMNS = (("id", "id"), ("system_id", "id"))


def read_slots(campaign_id: int) -> dict[str, NDArray]:
    """The campaign's slots' columns (id, role_code, output_id, controls_id), by id."""
    slots, _ = _side_reads(campaign_id)
    return _by_id(load_columns(slots.queryset, slots.columns))


def read_outputs(campaign_id: int) -> dict[str, NDArray]:
    """The campaign's outputs' columns (id, system_id), by id."""
    _, outputs = _side_reads(campaign_id)
    return _by_id(load_columns(outputs.queryset, outputs.columns))


def _side_reads(campaign_id: int) -> list[ColumnsRead]:
    """The reads of the campaign's slots and outputs (columns by id after :func:`_by_id`)."""
    # Slots and outputs unordered, sorted by id here: PostgreSQL sorted them after its join
    # (on disk with the default work_mem: at a million judgments 40% of these two COPYs'
    # time), where numpy checks a sort is needed (rows come in table order, nearly always
    # by id already) and sorts 200,000 ids in milliseconds otherwise.
    slots = (
        HitSlot.objects.filter(hit__campaign_id=campaign_id)
        .order_by()
        .annotate(role_code=_role_code())
    )
    outputs = Output.objects.filter(system__campaign_id=campaign_id).order_by()
    return [ColumnsRead(slots, _SLOT_COLUMNS), ColumnsRead(outputs, _OUTPUT_COLUMNS)]


def _held_back(campaign_id: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The ids of the campaign's assignments held back from the scores (rejected, or opened
    from MTurk and not confirmed by MTurk yet: ``analytics.loading``) and of its excluded
    workers, sorted: two queries."""
    rejected_assignments = held_back_assignment_ids(campaign_id)
    excluded_workers = np.sort(
        id_array(
            list(
                CampaignWorker.objects.filter(campaign_id=campaign_id, excluded=True)
                .order_by()
                .values_list("worker_id", flat=True)
            )
        )
    )
    return rejected_assignments, excluded_workers


# Judgment columns as load_columns reads them (duration_ms is annotated by the loader); the
# incremental cache reads the same, with the ids (analytics.incremental.direct_assessment).
JUDGMENT_COPY_COLUMNS = (
    ("worker_id", "id"),
    ("assignment_id", "id"),
    ("slot_id", "id"),
    ("score", "float"),
    ("duration_ms", "float"),
    ("given_z", "float"),
)
# A campaign whose judgment ids span at least this many is read as two COPY streams.
SPLIT_JUDGMENT_IDS = 200_000
# The judgments are parsed straight into arrays as long as their ids' span when it is at most
# this long (untouched pages of an array are never resident: sparse ids cost address space
# only); a longer span is read in pieces, joined after.
PREALLOCATED_SPAN = 1 << 24


def read_judgment_tables(
    campaign_id: int,
    judgments_qs: QuerySet,
    columns: Sequence[tuple[str, str]] = JUDGMENT_COPY_COLUMNS,
) -> tuple[dict, dict, dict]:
    """The judgments' ``columns`` (by default ``JUDGMENT_COPY_COLUMNS``, in id order), the
    slots' and the outputs' (by id). ``judgments_qs``: the campaign's judgments to read, in
    id order (the incremental cache's first read adds their ids to the columns).

    Where the reads can run together (``analytics.loading.reads_together``: PostgreSQL
    outside a transaction), the ids' range is read first (one query, from the (campaign, id)
    index) and every table is one binary COPY on a connection of its own, all at once: the
    slots and outputs beside the judgments, and the judgments parsed straight into one array
    per column as long as the span of the ids (at most that many rows: no pieces joined
    after, no copy when the ids are dense). When the span is at least ``SPLIT_JUDGMENT_IDS``
    the ids above the middle of the range are a COPY of their own, into the arrays' second
    part: PostgreSQL's work on the COPY (the index scan, each value's send function, a
    message per row: at a million judgments most of the load's wall time) is done by two
    server processes at once. Each half is a contiguous range of ids, so the order by id is
    kept; a first half with fewer rows than its span is closed up after. Elsewhere the three
    are read one after another on Django's connection."""
    side = _side_reads(campaign_id)
    bounds = _id_bounds(campaign_id) if reads_together(judgments_qs.db) else None
    if (
        bounds is None
        or bounds["lo"] is None
        or bounds["hi"] - bounds["lo"] + 1 > PREALLOCATED_SPAN
    ):
        judgments, slots, outputs = load_columns_together(
            [ColumnsRead(judgments_qs, columns), *side]
        )
        return judgments, _by_id(slots), _by_id(outputs)
    key = columns[0][0]
    lo, hi = bounds["lo"], bounds["hi"]
    span = hi - lo + 1
    arrays = [np.empty(span, dtype=np.int64 if kind == "id" else np.float64) for _, kind in columns]
    if span < SPLIT_JUDGMENT_IDS:
        judgments, *side_columns = load_columns_together(
            [ColumnsRead(judgments_qs, columns, into=arrays), *side]
        )
        n = judgments[key].shape[0]
        del judgments
    else:
        middle = lo + (hi - lo) // 2
        cut = middle - lo + 1  # the first half's ids: lo..middle
        lower, upper, *side_columns = load_columns_together(
            [
                ColumnsRead(
                    judgments_qs.filter(id__lte=middle),
                    columns,
                    into=[array[:cut] for array in arrays],
                ),
                ColumnsRead(
                    judgments_qs.filter(id__gt=middle),
                    columns,
                    into=[array[cut:] for array in arrays],
                ),
                *side,
            ]
        )
        n_lower, n_upper = lower[key].shape[0], upper[key].shape[0]
        del lower, upper
        if n_lower < cut:
            for array in arrays:
                # Overlapping ranges: numpy copies through a buffer when they overlap.
                array[n_lower : n_lower + n_upper] = array[cut : cut + n_upper]
        n = n_lower + n_upper
    slots, outputs = side_columns
    return _first_rows(arrays, n, columns), _by_id(slots), _by_id(outputs)


def _id_bounds(campaign_id: int) -> dict[str, int | None]:
    """The smallest and largest judgment id of the campaign ("lo", "hi"), from the
    (campaign, id) index."""
    return (
        Judgment.objects.filter(campaign_id=campaign_id)
        .order_by()
        .aggregate(lo=Min("id"), hi=Max("id"))
    )


def _first_rows(
    arrays: list[NDArray | None], n: int, columns: Sequence[tuple[str, str]]
) -> dict[str, NDArray]:
    """The first ``n`` rows of the judgments' column ``arrays`` (as long as their ids'
    span), by column name: the arrays themselves when full, else copies (one column at a
    time), so that no column keeps the rest of its span."""
    out = {}
    for k, (name, _) in enumerate(columns):
        array, arrays[k] = arrays[k], None
        out[name] = array if n == array.shape[0] else array[:n].copy()
        del array
    return out


def load_da_judgments(campaign_id: int) -> LoadedCampaign:
    """Load campaign ``campaign_id``'s direct-assessment judgments: five queries in all (the
    judgments, slots and outputs, the held-back assignments and excluded workers), plus the
    judgment ids' range where the first three are read together (:func:`read_judgment_tables`)."""
    judgments_qs = (
        Judgment.objects.filter(campaign_id=campaign_id)
        .filter(Q(score__isnull=False) | Q(given_z__isnull=False))
        # By id, for a deterministic order (the default ordering would join HitSlot).
        .order_by("id")
    )
    # Seconds: the browser's duration when present, else the server's (NULL: NaN).
    judgments_qs = judgments_qs.annotate(
        duration_ms=Coalesce("client_duration_ms", "server_duration_ms")
    )
    rejected_assignments, excluded_workers = _held_back(campaign_id)
    columns, slots, outputs = read_judgment_tables(campaign_id, judgments_qs)

    # Ids as int32 when they fit (any database short of two billion rows): half the memory
    # of the loaded judgments' id columns, taken one column at a time.
    for name in ("worker_id", "assignment_id", "slot_id"):
        columns[name] = _narrow_ids(columns[name])
    worker, assignment, slot = columns["worker_id"], columns["assignment_id"], columns["slot_id"]
    score = columns["score"]  # NaN where only a given z was stored
    given_z = columns["given_z"]
    seconds = columns["duration_ms"]
    seconds /= 1000.0
    del columns

    slot_id = slots["id"]
    slot_role = slots["role_code"].astype(np.int8)
    # int32 here makes the judgments' item and pair links int32 from the start.
    slot_output = _narrow_ids(slots["output_id"])
    slot_control = _narrow_ids(slots["controls_id"])
    n_read = int(worker.shape[0])
    rejected = np.isin(assignment, rejected_assignments)
    n_rejected_read = int(np.count_nonzero(rejected))
    at = lookup(slot_id, slot, "judged slot(s)")
    role = slot_role[at]
    keep = role != _NO_ROLE
    n_skipped = int(np.count_nonzero(~keep))
    if n_skipped:
        worker, assignment, slot, score, seconds, given_z, at, role, rejected = (
            column[keep]
            for column in (worker, assignment, slot, score, seconds, given_z, at, role, rejected)
        )
    item = slot_output[at]
    # Links on system slots are ignored by the statistics; -1 keeps the arrays clean.
    pair_slot = np.where(role != Role.SYSTEM, slot_control[at], -1)
    del at

    output_system = _narrow_ids(outputs["system_id"])
    system = np.full(item.shape[0], -1, dtype=output_system.dtype)
    # Two comparisons, not np.isin (which sorts at a million rows: 15 ms against 1).
    scored_output = (role == Role.SYSTEM) | (role == Role.REPEAT)
    scored_output &= item >= 0
    if scored_output.any():
        out_at = lookup(outputs["id"], item[scored_output], "judged output(s)")
        system[scored_output] = output_system[out_at]
        del out_at
    # The slots' and outputs' arrays are done with: let them go before the judgments derive
    # their pair links (the peak of the load).
    del scored_output, slots, outputs, slot_id, slot_role, slot_output, slot_control
    del output_system

    # What the joins above let go (the slots', outputs' and 64-bit id columns) went back to
    # glibc's heap, which keeps the pages: given back now, before the pair links are derived
    # (the load's peak), and the statistics start from what is held.
    return_freed_memory()
    judgments = DAJudgments(
        worker=freeze(worker),
        assignment=freeze(assignment),
        slot=freeze(slot),
        role=freeze(role),
        system=freeze(system),
        item=freeze(item),
        pair_slot=freeze(pair_slot),
        score=freeze(score),
        seconds=freeze(seconds),
        # None when no row has one (the usual case): no array of NaN to keep.
        given_z=freeze(given_z) if not np.isnan(given_z).all() else None,
    )
    return LoadedCampaign(
        campaign_id=campaign_id,
        judgments=judgments,
        rejected=rejected,
        excluded=np.isin(worker, excluded_workers),
        excluded_workers=excluded_workers,
        n_read=n_read,
        n_rejected_read=n_rejected_read,
        n_skipped=n_skipped,
    )


def subset(judgments: DAJudgments, rows: NDArray[np.bool_]) -> DAJudgments:
    """The judgments of the rows where ``rows`` is True (whole assignments, so that control
    pairs stay within the subset): :meth:`DAJudgments.subset`."""
    return judgments.subset(rows)
