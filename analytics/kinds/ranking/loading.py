"""Glue: load one ranking campaign's judgments as numpy arrays.

:func:`load_ranking_judgments` runs one query per table, as direct assessment's loader does
(``analytics.loading``), and builds :class:`~analytics.stats.ranking.RankingJudgments`, one row
per ranked output:

- ``ranking_set`` is ``hit_id << 16 | group``: one id per (HIT, ``HitSlot.group``), stable
  across recomputes, shared by the redundant workers of the HIT (their ballots of the set);
- ``system`` is the output's system on a "system" slot; on a "gold" slot it is negative
  (-1, or -2, -3 ... should a set hold more than one), since a gold translation is no
  system's output, even when a requester's gold unit shows an existing output (the builder
  counts only the set's other outputs as comparisons);
- ``expected_rank`` maps the slot's accepted range to the statistics' convention (1 for the
  gold translation, N for the known worst): a range starting at 1 is the best end (1), any
  other range the worst end (its maximum, N). The builder's ranges, (1, w) and
  (N - w + 1, N) with w = min(2, N // 2), are then exactly what
  :func:`~analytics.stats.ranking.gold_trust` accepts with its default margin of 2.
  0 (no expectation) on slots without a range;
- ``order`` is the judgment id, which grows with submission;
- ``segment`` is the slot's segment (the output's when the slot has none).

Judgments on qualification HITs (``Hit.is_qualification``) are counted in
``n_qualification`` and left out, as are judgments on slots of other roles (``n_skipped``).
Rows of rejected assignments and of excluded workers are kept, with per-row masks, so that a
worker's trust is computed over everything they did; ``scored`` leaves them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Case, IntegerField, Q, Value, When

from analytics.loading import (
    ColumnsRead,
    held_back_assignment_ids,
    id_array,
    load_columns,
    load_columns_together,
    lookup,
)
from analytics.stats.ranking import RankingJudgments
from analytics.stats.ranking.judgments import tuple_codes
from campaigns.models import HitSlot, Output, SlotRole
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LoadedRanking", "by_id", "load_ranking_judgments", "ranking_set_id"]


_SET_SHIFT = 16  # HitSlot.group is a smallint: below 2**15 on every database
_RANKING_ROLES = {SlotRole.SYSTEM.value: 1, SlotRole.GOLD.value: 2}  # other roles: 0


def ranking_set_id(hit_id: int, group: int) -> int:
    """The ranking-set id of one (HIT, group): ``hit_id << 16 | group``."""
    return (int(hit_id) << _SET_SHIFT) | int(group)


@dataclass(frozen=True, eq=False)
class LoadedRanking:
    """A ranking campaign's judgments and what keeps some of them out of the scores.

    ``judgments`` holds every ranked output on a system or gold slot of a regular HIT;
    ``slot`` the slot of each row. ``rejected`` and ``excluded`` are per-row masks (the row's
    assignment was rejected, or opened from MTurk and not confirmed by MTurk yet,
    ``judgments.models.held_back_from_scores``; its worker is excluded by the requester);
    ``scored`` is neither.
    ``excluded_workers`` and ``untrusted_workers`` are the sorted ids of the workers the
    campaign excludes or has marked untrusted (``CampaignWorker``), with or without
    judgments. ``n_read`` counts every judgment with a rank that was read,
    ``n_rejected_read`` those of rejected assignments outside qualification tests,
    ``n_qualification`` those on qualification HITs and ``n_skipped`` those on slots of other
    roles (both left out).
    """

    campaign_id: int
    judgments: RankingJudgments
    slot: NDArray[np.int64]
    rejected: NDArray[np.bool_]
    excluded: NDArray[np.bool_]
    excluded_workers: NDArray[np.int64]
    untrusted_workers: NDArray[np.int64]
    n_read: int
    n_rejected_read: int
    n_qualification: int
    n_skipped: int

    @property
    def scored(self) -> NDArray[np.bool_]:
        return ~(self.rejected | self.excluded)

    def __len__(self) -> int:
        return len(self.judgments)


def _expected_rank(low: NDArray[np.int64], high: NDArray[np.int64]) -> NDArray[np.int64]:
    """Slot ranges (-1 = NULL) to the statistics' expected rank (module docstring)."""
    return np.where(low < 0, 0, np.where(low == 1, 1, high)).astype(np.int64)


def _gold_system_ids(
    assignment: NDArray[np.int64], ranking_set: NDArray[np.int64], slot: NDArray[np.int64]
) -> NDArray[np.int64]:
    """-1, -2, ... for the gold rows of one ballot, in slot order."""
    if assignment.size == 0:
        return np.zeros(0, dtype=np.int64)
    ballot = tuple_codes(assignment, ranking_set)[0]
    order = np.lexsort((slot, ballot))
    sorted_ballot = ballot[order]
    starts = np.r_[0, np.flatnonzero(sorted_ballot[1:] != sorted_ballot[:-1]) + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, sorted_ballot.size]))
    out = np.empty(assignment.size, dtype=np.int64)
    out[order] = -(np.arange(assignment.size) - first + 1)
    return out


def by_id(columns: dict[str, NDArray]) -> dict[str, NDArray]:
    """The rows in ``id`` order. The queries ask for no order: PostgreSQL then scans and joins
    without sorting or walking the primary key (at 50,000 sets the three queries took about
    a third longer ordered, issue 16), and returns a table's rows mostly in the order they
    were inserted, ids ascending, which one pass checks; otherwise one sort here."""
    ids = columns["id"]
    if ids.shape[0] < 2 or bool(np.all(ids[1:] > ids[:-1])):
        return columns
    order = np.argsort(ids, kind="stable")
    return {name: column[order] for name, column in columns.items()}


# From this many judgments (on PostgreSQL, outside a transaction) the slots and outputs are
# read at once, each on a connection of its own (analytics.loading.load_columns_together): at
# 50,000 sets the outputs' query is about a fifth of the load's wall time (issue 16); a
# connection costs a few milliseconds, more than a small campaign's reads.
TOGETHER_FROM_JUDGMENTS = 20_000


def _outputs_read(campaign_id: int) -> ColumnsRead:
    return ColumnsRead(
        Output.objects.filter(system__campaign_id=campaign_id).order_by(),
        [("id", "id"), ("system_id", "id"), ("segment_id", "id")],
    )


def _slots_read(campaign_id: int) -> ColumnsRead:
    return ColumnsRead(
        HitSlot.objects.filter(hit__campaign_id=campaign_id)
        .order_by()
        .annotate(
            role_code=_role_code(),
            qualification=Case(
                When(hit__is_qualification=True, then=Value(1)),
                default=Value(0),
                output_field=IntegerField(),
            ),
        ),
        [
            ("id", "id"),
            ("hit_id", "id"),
            ("group", "id"),
            ("role_code", "id"),
            ("segment_id", "id"),
            ("output_id", "id"),
            ("expected_rank_min", "id"),
            ("expected_rank_max", "id"),
            ("qualification", "id"),
        ],
    )


def _role_code() -> Case:
    """The slot's role as :data:`_RANKING_ROLES`' code, computed in SQL (numeric columns
    only: ``load_columns``)."""
    return Case(
        *(When(role=name, then=Value(code)) for name, code in _RANKING_ROLES.items()),
        default=Value(0),
        output_field=IntegerField(),
    )


def load_ranking_judgments(
    campaign_id: int, *, on_judgments_read: Callable[[int], object] | None = None
) -> LoadedRanking:
    """Load campaign ``campaign_id``'s ranking judgments (five queries in all).

    Judgments, slots and outputs come through ``analytics.loading.load_columns`` (numeric
    columns; PostgreSQL's binary COPY straight into arrays, no Python object per value; the
    slots and outputs of a large campaign at once, ``load_columns_together``), unordered,
    then put in id order (:func:`by_id`). ``on_judgments_read`` is called with
    the number of judgments read as soon as they are, before the other queries (the
    recompute starts loading its compiled kernels then)."""
    judgments = load_columns(
        Judgment.objects.filter(campaign_id=campaign_id, rank__isnull=False).order_by(),
        [("id", "id"), ("worker_id", "id"), ("assignment_id", "id"), ("slot_id", "id")]
        + [("rank", "id")],
    )
    if on_judgments_read is not None:
        on_judgments_read(int(judgments["id"].shape[0]))
    # Both reads start after the judgments' one, so every judged slot and its output are in
    # what each of them sees (a slot exists before its judgments, an output before its
    # slots), whether they run at once or in turn.
    reads = [_slots_read(campaign_id), _outputs_read(campaign_id)]
    if judgments["id"].shape[0] >= TOGETHER_FROM_JUDGMENTS:
        slots, outputs = load_columns_together(reads)
    else:
        slots, outputs = (load_columns(read.queryset, read.columns) for read in reads)
    judgments, slots, outputs = (by_id(table) for table in (judgments, slots, outputs))
    # Rejected, or opened from MTurk and not confirmed by MTurk yet (analytics.loading).
    rejected_assignments = held_back_assignment_ids(campaign_id)
    flags = list(
        CampaignWorker.objects.filter(campaign_id=campaign_id)
        .filter(Q(excluded=True) | Q(untrusted=True))
        .order_by("worker_id")
        .values_list("worker_id", "excluded", "untrusted")
    )
    excluded_workers = id_array([worker for worker, excluded, _ in flags if excluded])
    untrusted_workers = id_array([worker for worker, _, untrusted in flags if untrusted])

    order, worker, assignment, slot, rank = (
        judgments[name] for name in ("id", "worker_id", "assignment_id", "slot_id", "rank")
    )
    n_read = int(order.shape[0])

    slot_id, slot_hit, slot_group = slots["id"], slots["hit_id"], slots["group"]
    slot_role = slots["role_code"].astype(np.int8)
    slot_segment, slot_output = slots["segment_id"], slots["output_id"]
    slot_expected = _expected_rank(slots["expected_rank_min"], slots["expected_rank_max"])
    slot_qualification = slots["qualification"] == 1

    at = lookup(slot_id, slot, "judged slot(s)")
    qualification = slot_qualification[at]
    role = slot_role[at]
    keep = ~qualification & (role > 0)
    n_qualification = int(np.count_nonzero(qualification))
    n_skipped = int(np.count_nonzero(~qualification & (role == 0)))
    # As the sweep counts them: every ranking of a rejected (or unconfirmed MTurk) assignment
    # outside the test.
    n_rejected_read = int(
        np.count_nonzero(np.isin(assignment, rejected_assignments) & ~qualification)
    )
    order, worker, assignment, slot, rank, at, role = (
        column[keep] for column in (order, worker, assignment, slot, rank, at, role)
    )

    output_id, output_system, output_segment = (
        outputs[name] for name in ("id", "system_id", "segment_id")
    )
    item = slot_output[at]
    segment = slot_segment[at]
    system = np.full(item.shape[0], -1, dtype=np.int64)
    is_system = role == _RANKING_ROLES[SlotRole.SYSTEM.value]
    with_output = item >= 0
    if with_output.any():
        out_at = lookup(output_id, item[with_output], "ranked output(s)")
        system[with_output] = output_system[out_at]
        segment[with_output & (segment < 0)] = output_segment[out_at][segment[with_output] < 0]
    if (is_system & ~with_output).any():
        missing = slot[is_system & ~with_output][:5].tolist()
        raise ValueError(f"system slot(s) {missing} have no output")
    ranking_set = (slot_hit[at] << _SET_SHIFT) | slot_group[at]
    gold = ~is_system
    system[gold] = _gold_system_ids(assignment[gold], ranking_set[gold], slot[gold])

    judgments = RankingJudgments(
        worker=worker,
        assignment=assignment,
        ranking_set=ranking_set,
        segment=segment,
        system=system,
        rank=rank,
        expected_rank=slot_expected[at],
        order=order.astype(np.float64),
    )
    rejected = np.isin(assignment, rejected_assignments)
    return LoadedRanking(
        campaign_id=campaign_id,
        judgments=judgments,
        slot=slot,
        rejected=rejected,
        excluded=np.isin(worker, excluded_workers),
        excluded_workers=excluded_workers,
        untrusted_workers=untrusted_workers,
        n_read=n_read,
        n_rejected_read=n_rejected_read,
        n_qualification=n_qualification,
        n_skipped=n_skipped,
    )
