"""Glue: load one direct-assessment campaign's judgments as numpy arrays.

A fixed number of queries whatever the size of the campaign: one ``values_list`` per table
(Judgment, HitSlot, Output, plus the ids of rejected assignments and of excluded workers), no
query per judgment, no model instances. Judgments are joined to their slots and outputs in
numpy (sorted ids + ``searchsorted``, ``analytics.loading``), never row by row in Python.

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

import numpy as np
from django.db.models import Q
from numpy.typing import NDArray

from analytics.loading import held_back_assignment_ids, id_array, lookup, nullable_ids
from analytics.stats.direct_assessment import DAJudgments, Role
from campaigns.models import HitSlot, Output
from judgments.models import CampaignWorker, Judgment

__all__ = ["LoadedCampaign", "load_da_judgments", "subset"]

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


def _role_codes(names: tuple) -> NDArray[np.int8]:
    """Role names to Role codes; roles outside direct assessment become -1."""
    distinct, inverse = np.unique(np.array(names, dtype=str), return_inverse=True)
    table = np.array([_ROLE_CODES.get(name, _NO_ROLE) for name in distinct], dtype=np.int8)
    return table[inverse.reshape(-1)] if distinct.size else np.zeros(0, dtype=np.int8)


def load_da_judgments(campaign_id: int) -> LoadedCampaign:
    """Load campaign ``campaign_id``'s direct-assessment judgments (five queries in all)."""
    judgment_rows = list(
        Judgment.objects.filter(campaign_id=campaign_id)
        .filter(Q(score__isnull=False) | Q(given_z__isnull=False))
        # By id, for a deterministic order (the default ordering would join HitSlot).
        .order_by("id")
        .values_list(*_JUDGMENT_COLUMNS)
    )
    slot_rows = list(
        HitSlot.objects.filter(hit__campaign_id=campaign_id)
        .order_by("id")
        .values_list("id", "role", "output_id", "controls_id")
    )
    output_rows = list(
        Output.objects.filter(system__campaign_id=campaign_id)
        .order_by("id")
        .values_list("id", "system_id")
    )
    # Rejected, or opened from MTurk and not confirmed by MTurk yet (analytics.loading).
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

    table = np.array(judgment_rows, dtype=np.float64).reshape(-1, len(_JUDGMENT_COLUMNS))
    worker, assignment, slot = (table[:, i].astype(np.int64) for i in range(3))
    score = table[:, 3]  # NaN where only a given z was stored
    client_ms, server_ms = table[:, 4], table[:, 5]
    given_z = table[:, 6]
    seconds = np.where(np.isnan(client_ms), server_ms, client_ms) / 1000.0

    if slot_rows:
        slot_ids, slot_roles, slot_outputs, slot_controls = zip(*slot_rows, strict=True)
        slot_id = id_array(list(slot_ids))
        slot_role = _role_codes(slot_roles)
        slot_output = nullable_ids(slot_outputs)
        slot_control = nullable_ids(slot_controls)
    else:
        slot_id = np.zeros(0, dtype=np.int64)
        slot_role = np.zeros(0, dtype=np.int8)
        slot_output = slot_control = slot_id
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

    output = np.array(output_rows, dtype=np.int64).reshape(-1, 2)
    system = np.full(item.shape[0], -1, dtype=np.int64)
    scored_output = np.isin(role, (Role.SYSTEM, Role.REPEAT)) & (item >= 0)
    if scored_output.any():
        out_at = lookup(output[:, 0], item[scored_output], "judged output(s)")
        system[scored_output] = output[out_at, 1]

    judgments = DAJudgments(
        worker=worker,
        assignment=assignment,
        slot=slot,
        role=role,
        system=system,
        item=item,
        pair_slot=pair_slot,
        score=score,
        seconds=seconds,
        given_z=given_z,
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
    pairs stay within the subset)."""
    return DAJudgments(
        worker=judgments.worker[rows],
        assignment=judgments.assignment[rows],
        slot=judgments.slot[rows],
        role=judgments.role[rows],
        system=judgments.system[rows],
        item=judgments.item[rows],
        pair_slot=judgments.pair_slot[rows],
        score=judgments.score[rows],
        seconds=judgments.seconds[rows],
        scale_max=judgments.scale_max,
        given_z=judgments.given_z[rows],
    )
