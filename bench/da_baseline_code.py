"""The code this issue (16) replaced, kept for bench/da_stats.py's alternated baseline.

``load_da_judgments`` as it was (one ``values_list`` per table: a list of Python tuples, then
the arrays), ``pairwise_rank_sum`` as it was (one scipy.stats.mannwhitneyu call per ordered
pair), segment means through ``np.unique(axis=0)``, and both variants of the results computed
in full (no reuse). :func:`install` puts them back in place of the current ones, in a bench
process only.
"""

from __future__ import annotations

import numpy as np
from django.db.models import Q
from numpy.typing import NDArray

from analytics.kinds.direct_assessment.loading import _NO_ROLE, _ROLE_CODES, LoadedCampaign
from analytics.loading import held_back_assignment_ids, id_array, lookup, nullable_ids
from analytics.stats.direct_assessment import DAJudgments, Role
from analytics.stats.significance import _rank_sum_greater
from campaigns.models import HitSlot, Output
from judgments.models import CampaignWorker, Judgment

_JUDGMENT_COLUMNS = (
    "worker_id",
    "assignment_id",
    "slot_id",
    "score",
    "client_duration_ms",
    "server_duration_ms",
    "given_z",
)


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


def pairwise_rank_sum(samples) -> NDArray[np.float64]:
    arrays = [np.asarray(s, dtype=np.float64).reshape(-1) for s in samples]
    m = len(arrays)
    p = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(m):
            if i != j:
                p[i, j] = _rank_sum_greater(arrays[i], arrays[j])
    return p


def _segment_means(judgments, rows, values):
    pairs = np.stack([judgments.system[rows], judgments.item[rows]], axis=1)
    keys, code = np.unique(pairs, axis=0, return_inverse=True)
    code = code.reshape(-1)
    k = keys.shape[0]
    n = np.bincount(code, minlength=k)
    means = [np.bincount(code, weights=v[rows], minlength=k) / n for v in values]
    return keys[:, 0].astype(np.int64), n.astype(np.int64), means


def install() -> None:
    """Use the previous code (this process only)."""
    from analytics.kinds.direct_assessment import actions, loading
    from analytics.stats.direct_assessment import report, scores

    loading.load_da_judgments = load_da_judgments
    actions.load_da_judgments = load_da_judgments
    report.pairwise_rank_sum = pairwise_rank_sum
    scores._segment_means = _segment_means
    current = report.analyse_campaign

    def analyse_campaign(judgments, config=None, *, reuse=None):
        return current(judgments, config)  # every variant computed in full, as before

    actions.analyse_campaign = analyse_campaign
