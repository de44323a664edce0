"""A direct-assessment campaign's judgments kept in a worker's memory between recomputes.

:class:`CachedDACampaign` holds the per-row arrays that
``analytics.kinds.direct_assessment.loading.load_da_judgments`` reads, plus each row's
judgment id, in narrow growable columns (:mod:`analytics.incremental.columns`). A recompute
then reads only what is new:

- judgments: the rows with an id above the cache's *settled* mark (one query, a binary COPY
  on PostgreSQL through ``analytics.loading.load_columns``). Ids are handed out at INSERT
  time but become visible at COMMIT, so a row with a lower id can appear after one with a
  higher id: rows stay unsettled (dropped and read again on every run) until
  ``SETTLE_SECONDS`` after a run first saw an id above them (after a full read: the rows
  inserted ``SETTLE_SECONDS`` before it are settled at once); a transaction still open after
  that is caught by the count check below.
- slots and outputs: kept too; read again only when a new judgment points at a slot or an
  output the cache does not know (HITs built after the first load).
- what changes without a new judgment (rejected or unconfirmed MTurk assignments, excluded
  workers): read in full on every run, two small queries, exactly as the full loader does, so
  a rejection or an exclusion is reflected by the next run like a judgment.
- a count of the campaign's judgments up to the settled mark, every ``VERIFY_SECONDS``: when it
  differs from the cache's (a judgment deleted with its assignment, or a transaction that
  committed very late), the cache is dropped and loaded in full.

:meth:`CachedDACampaign.loaded` builds the :class:`LoadedCampaign` the statistics take; it
equals what ``load_da_judgments`` returns over the same judgments (tests/analytics/
test_incremental.py checks every array), so the stored results are a full recompute's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.incremental.analysis import (
    AgreementCarried,
    DeferredAgreement,
    LastAnalysis,
    SignificanceCarried,
)
from analytics.incremental.columns import Column, narrow_ids
from analytics.incremental.links import LinkedDAJudgments, PairLinks
from analytics.kinds.direct_assessment.loading import (
    JUDGMENT_COPY_COLUMNS,
    LoadedCampaign,
    read_judgment_tables,
    read_outputs,
    read_slots,
)
from analytics.loading import held_back_assignment_ids, id_array, load_columns, lookup
from analytics.stats.direct_assessment import DAJudgments, Role
from analytics.stats.direct_assessment.judgments import COLUMNS as DA_JUDGMENT_COLUMNS
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SETTLE_SECONDS", "VERIFY_SECONDS", "CachedDACampaign", "Refresh"]

# How long rows stay unsettled after a run first saw a higher id (see the module docstring).
# A submission's transaction lasts milliseconds, and gunicorn kills a request after 30 s.
SETTLE_SECONDS = 30.0
# How often the judgments up to the settled mark are counted against the cache.
VERIFY_SECONDS = 30.0

_NO_ROLE = -1
_ID_COLUMNS = ("id", "worker", "assignment", "slot", "system", "item", "pair_slot")
# Rows whose items are numbered at once (analytics.incremental.direct_assessment._number_items).
_NUMBERING_CHUNK = 1 << 17
# The columns DAJudgments takes (besides given_z, passed on its own).
_DA_COLUMNS = tuple(name for name in DA_JUDGMENT_COLUMNS if name != "given_z")


def _scored_judgments(campaign_id: int):
    """The judgments a DA recompute reads: a score or a given z (as the full loader)."""
    return (
        Judgment.objects.filter(campaign_id=campaign_id)
        .filter(Q(score__isnull=False) | Q(given_z__isnull=False))
        .order_by("id")
    )


def _items_of(
    values: NDArray[np.integer], rows: NDArray[np.intp]
) -> tuple[NDArray[np.integer], NDArray[np.intp], NDArray[np.intp]]:
    """The distinct ``values`` sorted, the first of ``rows`` (aligned to ``values``) where each
    appears, and each value's position among them: ``np.unique``'s values, ``rows[index]``
    and inverse. Item ids of one campaign are dense: then counted in a table as long as
    their span (a million rows: 10 ms against unique's sort, 130 ms)."""
    if values.shape[0]:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 4 * values.shape[0] + 1024:
            unseen = np.iinfo(np.intp).max
            first_row = np.full(hi - lo + 1, unseen, dtype=np.intp)
            at = values - lo
            np.minimum.at(first_row, at, rows)
            present = first_row != unseen
            position = np.cumsum(present, dtype=np.intp)
            position -= 1
            items = (np.flatnonzero(present) + lo).astype(values.dtype)
            return items, first_row[present], position[at]
    items, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    return items, rows[first], inverse.reshape(-1)


@dataclass(frozen=True)
class Refresh:
    """What one :meth:`CachedDACampaign.refresh` did: ``full`` (loaded from scratch, and
    why: ``reason``), ``n_new`` (rows read) and ``last_id`` (the highest judgment id in the
    cache)."""

    full: bool
    n_new: int
    last_id: int
    reason: str


class CachedDACampaign:
    """One campaign's DA rows, read once in full and then by what is new (see the module
    docstring). Not thread-safe: one per worker process, used by one task at a time."""

    def __init__(self, campaign_id: int) -> None:
        self.campaign_id = campaign_id
        self._reset()

    def _reset(self) -> None:
        # Every column but the judgments' ids goes to the statistics as a view (no copy); id
        # columns are int32 while their ids fit (DAJudgments takes int32 ids as they are).
        self.columns = {name: Column(np.int32, narrow=True) for name in _ID_COLUMNS}
        self.columns["role"] = Column(np.int8)
        self.columns["score"] = Column(np.float64, narrow=True)
        self.columns["seconds"] = Column(np.float64)
        # Given z-scores (imported standardised judgments) are rare: no column, and none
        # handed to the statistics, until a row has one (8 MB of NaN at a million rows).
        self.given_z: Column | None = None
        # Each row's partner (DAJudgments.partner), kept while every row is a DA row.
        self.links = PairLinks()
        self.other_roles = False  # a row of another task kind: links derived on every load
        self.slot_id = np.empty(0, dtype=np.int64)
        self.slot_role = np.empty(0, dtype=np.int8)
        self.slot_output = np.empty(0, dtype=np.int64)
        self.slot_control = np.empty(0, dtype=np.int64)
        self.output_id = np.empty(0, dtype=np.int64)
        self.output_system = np.empty(0, dtype=np.int64)
        self.settled_id = 0  # every row with an id up to this is in the cache for good
        self.marks: list[tuple[float, int]] = []  # (monotonic time, highest id then seen)
        self.verified_at: float | None = None
        self.loaded_once = False
        # The agreement of the last full analysis (analytics.incremental.analysis) and when.
        self.carried: AgreementCarried | None = None
        self.carried_at: float | None = None
        # A run's agreement left for after its store: (inputs, its stamp, its start).
        self.deferred: tuple[DeferredAgreement, dict, float] | None = None
        # The significance of the last run that computed it (analytics.incremental.analysis)
        # and when.
        self.significance: SignificanceCarried | None = None
        self.significance_at: float | None = None
        # The last run's per-worker results (analytics.incremental.analysis) and how many rows,
        # from the first, are still those it was computed on (rows past it were read since).
        self.last: LastAnalysis | None = None
        self.analysed_rows = 0
        # Each row's item numbered among the cache's items (first seen, first numbered; -1:
        # none), each item's system (-1: no output row yet), the items sorted with their
        # numbers, whether every item's output rows have one system, and the items' (system,
        # item) pair numbers once computed: the system scores' segments without numbering a
        # million rows on every run (analytics.stats.direct_assessment.scores.Segments).
        self.item_code = Column(np.int32)
        self.item_ids = np.empty(0, dtype=np.int64)
        self.item_system = np.empty(0, dtype=np.int64)
        self.items_sorted = np.empty(0, dtype=np.int64)
        self.items_sorted_code = np.empty(0, dtype=np.int32)
        self.items_one_system = True
        self.pairs: tuple[NDArray[np.int32], NDArray[np.int64]] | None = None
        # The last run's row masks (rejected assignments, excluded workers): per name, the ids
        # they were computed for, the mask, and how many rows, from the first, it still fits.
        self.masks: dict[str, tuple[NDArray[np.integer], NDArray[np.bool_], int]] = {}

    # --- sizes -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.columns["id"].n

    @property
    def nbytes(self) -> int:
        tables = (
            self.slot_id,
            self.slot_role,
            self.slot_output,
            self.slot_control,
            self.output_id,
            self.output_system,
        )
        given_z = self.given_z.nbytes if self.given_z is not None else 0
        # The last run's z-scores and scored mask (its per-worker arrays are small).
        last = self.last.zscores.z.nbytes + self.last.scored.nbytes if self.last else 0
        items = (self.item_ids, self.item_system, self.items_sorted, self.items_sorted_code)
        return (
            sum(c.nbytes for c in self.columns.values())
            + self.item_code.nbytes
            + sum(a.nbytes for a in items)
            + given_z
            + self.links.nbytes
            + sum(a.nbytes for a in tables)
            + last
        )

    @property
    def last_id(self) -> int:
        ids = self.columns["id"].view()
        return int(ids[-1]) if ids.size else 0

    # --- reading ---------------------------------------------------------------------------

    def refresh(self, *, full: bool = False, now: float | None = None) -> Refresh:
        """Bring the cache up to date with the database; ``full`` reads everything again."""
        now = time.monotonic() if now is None else now
        reason = "requested" if full else ""
        if not full and self.loaded_once and self._verify_due(now) and not self._counts_agree():
            full, reason = True, "count differs"
        if full or not self.loaded_once:
            reason = reason or "first load"
            self._reset()
            self.verified_at = now
        # Ids a run saw SETTLE_SECONDS ago or earlier are settled: every row up to them is in.
        settled = [last for at, last in self.marks if at <= now - SETTLE_SECONDS]
        if settled:
            self.settled_id = max(self.settled_id, settled[-1])
        self.marks = [(at, last) for at, last in self.marks if at > now - SETTLE_SECONDS]
        # Unsettled rows are read again: a lower id may have committed after a higher one.
        keep = int(np.searchsorted(self.columns["id"].view(), self.settled_id, side="right"))
        for column in self.columns.values():
            column.truncate(keep)
        self.item_code.truncate(keep)
        self.analysed_rows = min(self.analysed_rows, keep)
        self.masks = {
            name: (ids, mask, min(fits, keep)) for name, (ids, mask, fits) in self.masks.items()
        }
        self.links.truncate(keep)
        if self.given_z is not None:
            self.given_z.truncate(keep)
        first = not self.loaded_once
        read_at = timezone.now()
        n_new = self._append_after(self.settled_id, first_read=first)
        self.other_roles = self.other_roles or bool(
            (self.columns["role"].view()[keep:] == _NO_ROLE).any()
        )
        if not self.other_roles:
            self.links.update(
                {name: self.columns[name].view() for name in _DA_COLUMNS},
                self.given_z.view() if self.given_z is not None else None,
            )
        if first:
            self.settled_id = min(self._inserted_before(read_at), self.last_id)
        self.loaded_once = True
        self.marks.append((now, self.last_id))
        return Refresh(full=bool(reason), n_new=n_new, last_id=self.last_id, reason=reason)

    def _inserted_before(self, read_at: datetime) -> int:
        """After a full read: the id of the last judgment inserted ``SETTLE_SECONDS`` before
        it (one row from the (campaign, submitted_at) index); every lower id had its INSERT
        before that and so, like a run's mark, is settled."""
        last = (
            Judgment.objects.filter(
                campaign_id=self.campaign_id,
                submitted_at__lte=read_at - timedelta(seconds=SETTLE_SECONDS),
            )
            .order_by("-submitted_at", "-id")
            .values_list("id", flat=True)
            .first()
        )
        return 0 if last is None else int(last)

    def _verify_due(self, now: float) -> bool:
        return self.verified_at is None or now - self.verified_at >= VERIFY_SECONDS

    def _counts_agree(self) -> bool:
        """Whether the database holds exactly the cached rows up to the settled mark."""
        self.verified_at = time.monotonic()
        in_database = _scored_judgments(self.campaign_id).filter(id__lte=self.settled_id).count()
        cached = int(np.searchsorted(self.columns["id"].view(), self.settled_id, side="right"))
        return in_database == cached

    def _append_after(self, after_id: int, *, first_read: bool) -> int:
        judgments = _scored_judgments(self.campaign_id).annotate(
            duration_ms=Coalesce("client_duration_ms", "server_duration_ms")
        )
        columns = [("id", "id"), *JUDGMENT_COPY_COLUMNS]
        if first_read:
            # Every judgment, with the slots and outputs, read as a full recompute reads them:
            # at once where that can be (a million judgments: 1.3 -> 0.6 s).
            rows, slots, outputs = read_judgment_tables(self.campaign_id, judgments, columns)
            self._take_slots(slots)
            self._take_outputs(outputs)
            del slots, outputs
        else:
            rows = load_columns(judgments.filter(id__gt=after_id), columns)
        n = int(rows["id"].shape[0])
        if n == 0:
            return 0
        slot = rows["slot_id"]
        if not first_read and not np.isin(slot, self.slot_id).all():
            self._load_slots()
        at = lookup(self.slot_id, slot, "judged slot(s)")
        role = self.slot_role[at]
        item = self.slot_output[at]
        pair_slot = np.where(role != Role.SYSTEM, self.slot_control[at], -1)
        system = np.full(n, -1, dtype=np.int64)
        scored_output = np.isin(role, (Role.SYSTEM, Role.REPEAT)) & (item >= 0)
        if scored_output.any():
            wanted = item[scored_output]
            if not first_read and not np.isin(wanted, self.output_id).all():
                self._load_outputs()
            system[scored_output] = self.output_system[
                lookup(self.output_id, wanted, "judged output(s)")
            ]
        seconds = rows["duration_ms"]
        seconds /= 1000.0
        values = {
            "id": rows["id"],
            "worker": rows["worker_id"],
            "assignment": rows["assignment_id"],
            "slot": slot,
            "system": system,
            "item": item,
            "pair_slot": pair_slot,
            "role": role,
            "score": rows["score"],
            "seconds": seconds,
        }
        given_z = rows["given_z"]
        del rows, slot, at, role, item, pair_slot, system, scored_output, seconds
        n_before = len(self)
        for name, column in self.columns.items():
            column.append(values.pop(name))  # each read array let go once copied (memory)
        if self.given_z is None and not np.isnan(given_z).all():
            self.given_z = Column(np.float64)
            self.given_z.append(np.full(n_before, np.nan))
        if self.given_z is not None:
            self.given_z.append(given_z)
        # Items numbered once the read arrays are let go; a first read numbers every row at
        # once, later reads a chunk at a time (a few MB of temporaries). Not after every row
        # was cut unsettled: the items keep the numbers they have.
        item, system = self.columns["item"].view(), self.columns["system"].view()
        if n_before == 0 and self.item_ids.shape[0] == 0:
            self.item_code.append(self._number_every_item(item, system))
            return n
        for start in range(n_before, n_before + n, _NUMBERING_CHUNK):
            end = min(start + _NUMBERING_CHUNK, n_before + n)
            self.item_code.append(self._number_items(item[start:end], system[start:end]))
        return n

    def _number_every_item(
        self, item: NDArray[np.integer], system: NDArray[np.integer]
    ) -> NDArray[np.int32]:
        """:meth:`_number_items` of the rows of an empty cache, a chunk of
        ``_NUMBERING_CHUNK`` rows after another, in one pass: the same numbers (each chunk's
        new items numbered next, in the order of their ids) and the same items' systems, with
        one sort of the items instead of one per chunk (a million rows: 0.20 -> 0.06 s)."""
        codes = np.full(item.shape[0], -1, dtype=np.int32)
        rows = np.flatnonzero(item >= 0)
        items, first_row, inverse = _items_of(item[rows], rows)
        # The chunk each item first appears in; within it, the items in id order (as they
        # come): a stable sort by chunk numbers them as the chunks would have.
        order = np.argsort(first_row // _NUMBERING_CHUNK, kind="stable")
        del first_row
        item_code = np.empty(items.shape[0], dtype=np.int32)
        item_code[order] = np.arange(items.shape[0], dtype=np.int32)
        codes[rows] = item_code[inverse]
        del rows, inverse
        self.item_ids = items[order]
        self.items_sorted, self.items_sorted_code = items, item_code
        self.item_system = np.full(items.shape[0], -1, dtype=np.int64)
        self.pairs = None
        output = system >= 0
        if output.any():
            output_codes, output_system = codes[output], system[output].astype(np.int64)
            self.item_system[output_codes] = output_system
            if not np.array_equal(self.item_system[output_codes], output_system):
                self.items_one_system = False
        return codes

    def _number_items(
        self, item: NDArray[np.integer], system: NDArray[np.integer]
    ) -> NDArray[np.int32]:
        """The numbers of new rows' items (new items numbered next), noting the system of
        each item's output rows (``system >= 0``)."""
        codes = np.full(item.shape[0], -1, dtype=np.int32)
        has = item >= 0
        wanted = item[has]
        at = np.searchsorted(self.items_sorted, wanted)
        known = np.zeros(wanted.shape[0], dtype=bool)
        inside = at < self.items_sorted.shape[0]
        known[inside] = self.items_sorted[at[inside]] == wanted[inside]
        if not known.all():
            new_items = np.unique(wanted[~known])
            first = self.item_ids.shape[0]
            new_codes = np.arange(first, first + new_items.shape[0], dtype=np.int32)
            self.item_ids = np.concatenate([self.item_ids, new_items])
            self.item_system = np.concatenate(
                [self.item_system, np.full(new_items.shape[0], -1, dtype=np.int64)]
            )
            every_item = np.concatenate([self.items_sorted, new_items])
            order = np.argsort(every_item, kind="stable")
            self.items_sorted = every_item[order]
            self.items_sorted_code = np.concatenate([self.items_sorted_code, new_codes])[order]
            self.pairs = None
            at = np.searchsorted(self.items_sorted, wanted)
        codes[has] = self.items_sorted_code[at]
        output = system >= 0
        if output.any():
            output_codes, output_system = codes[output], system[output].astype(np.int64)
            unset = self.item_system[output_codes] < 0
            if unset.any():
                self.item_system[output_codes[unset]] = output_system[unset]
                self.pairs = None
            if not np.array_equal(self.item_system[output_codes], output_system):
                self.items_one_system = False
        return codes

    def segment_items(
        self,
    ) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64]] | None:
        """Per cached row its item's number, each item's (system, item) pair number and
        each pair's system (``Segments.of_items``); None when they cannot stand for the
        segments (an item judged under two systems, rows of another task kind)."""
        if not self.items_one_system or self.other_roles:
            return None
        if self.pairs is None:
            order = np.lexsort((self.item_ids, self.item_system))
            pair_of_item = np.empty(order.shape[0], dtype=np.int32)
            pair_of_item[order] = np.arange(order.shape[0], dtype=np.int32)
            self.pairs = (pair_of_item, self.item_system[order])
        return (self.item_code.view(), *self.pairs)

    def _load_slots(self) -> None:
        self._take_slots(read_slots(self.campaign_id))

    def _take_slots(self, slots: dict[str, NDArray]) -> None:
        """The campaign's slots' columns, by id."""
        self.slot_id = narrow_ids(slots["id"])
        self.slot_role = slots["role_code"].astype(np.int8)
        self.slot_output = narrow_ids(slots["output_id"])
        self.slot_control = narrow_ids(slots["controls_id"])

    def _load_outputs(self) -> None:
        self._take_outputs(read_outputs(self.campaign_id))

    def _take_outputs(self, outputs: dict[str, NDArray]) -> None:
        """The campaign's outputs' columns, by id."""
        self.output_id = narrow_ids(outputs["id"])
        self.output_system = narrow_ids(outputs["system_id"])

    # --- what the statistics take ------------------------------------------------------------

    def _member_rows(
        self, name: str, values: NDArray[np.integer], ids: NDArray[np.integer]
    ) -> NDArray[np.bool_]:
        """``np.isin(values, ids)`` over the cached rows (read-only): while ``ids`` are those
        of the last run, its mask is taken for the rows it still fits (rows are only appended,
        or cut and read again) and only the rows after them are tested (a million rows against
        the rejected assignments took 10-25 ms a run)."""
        n = values.shape[0]
        kept = self.masks.get(name)
        fits = 0
        if kept is not None and np.array_equal(kept[0], ids):
            fits = min(kept[2], n)
        mask = np.empty(n, dtype=bool)
        if fits:
            mask[:fits] = kept[1][:fits]
        mask[fits:] = np.isin(values[fits:], ids)
        mask.setflags(write=False)
        self.masks[name] = (ids, mask, n)
        return mask

    def changed_since_analysis(self) -> tuple[NDArray[np.integer], int]:
        """The ids of the workers with a row read since the last analysis, and how many of
        :meth:`loaded`'s rows, from the first, that analysis had (rows of other task kinds
        are not loaded)."""
        workers = self.columns["worker"].view()
        prefix = self.analysed_rows
        skipped = np.count_nonzero(self.columns["role"].view()[:prefix] == _NO_ROLE)
        return np.unique(workers[prefix:]), prefix - int(skipped)

    def analysed(self, last: LastAnalysis) -> None:
        """Record a finished analysis of every cached row."""
        self.last = last
        self.analysed_rows = len(self)

    def judgments(self) -> DAJudgments:
        """The cached rows' judgments, as :meth:`loaded` gives them (views of the cache)."""
        c = {name: column.view() for name, column in self.columns.items()}
        return self._judgments(c, self.given_z.view() if self.given_z is not None else None)[0]

    def _judgments(
        self, c: dict[str, NDArray], given_z: NDArray[np.float64] | None
    ) -> tuple[DAJudgments, NDArray[np.bool_] | slice, int]:
        """The judgments of the cached columns ``c``, the rows kept (rows of other task
        kinds are not) and how many were not."""
        keep: NDArray[np.bool_] | slice = c["role"] != _NO_ROLE
        n_skipped = int(np.count_nonzero(~keep))
        if not n_skipped:
            keep = slice(None)
        # None when no row has a given z (the usual case), as the full loader: no array of NaN.
        given = None if given_z is None or np.isnan(given_z).all() else given_z[keep]
        if n_skipped or self.other_roles or self.links.partner.n != len(self):
            judgments = DAJudgments(**{name: c[name][keep] for name in _DA_COLUMNS}, given_z=given)
        else:
            judgments = LinkedDAJudgments(
                **{name: c[name] for name in _DA_COLUMNS}, given_z=given, links=self.links.view()
            )
        return judgments, keep, n_skipped

    def loaded(self) -> LoadedCampaign:
        """The cached rows as ``load_da_judgments`` returns them, with the rejected
        assignments and excluded workers read now (two queries). Its judgments are views of
        the cache (read-only): use them before the next :meth:`refresh`."""
        rejected_assignments = held_back_assignment_ids(self.campaign_id)
        excluded_workers = np.sort(
            id_array(
                list(
                    CampaignWorker.objects.filter(campaign_id=self.campaign_id, excluded=True)
                    .order_by()
                    .values_list("worker_id", flat=True)
                )
            )
        )
        c = {name: column.view() for name, column in self.columns.items()}
        given_z = self.given_z.view() if self.given_z is not None else None
        n_read = len(self)
        rejected = self._member_rows("rejected", c["assignment"], rejected_assignments)
        n_rejected_read = int(np.count_nonzero(rejected))
        judgments, keep, n_skipped = self._judgments(c, given_z)
        return LoadedCampaign(
            campaign_id=self.campaign_id,
            judgments=judgments,
            rejected=rejected[keep],
            excluded=(
                self._member_rows("excluded", c["worker"], excluded_workers)
                if n_skipped == 0
                else np.isin(judgments.worker, excluded_workers)
            ),
            excluded_workers=excluded_workers,
            n_read=n_read,
            n_rejected_read=n_rejected_read,
            n_skipped=n_skipped,
        )
