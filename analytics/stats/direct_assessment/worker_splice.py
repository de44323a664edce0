"""Per-worker statistics brought up to date by recomputing only the workers whose rows changed.

Worker reliability, the score spread and a worker's z-score basis (mean and sd) depend on that
worker's own rows alone: pairs are matched within an assignment, which has one worker, and
every test, sum and extreme is taken per worker, over the worker's rows in row order. So when a
campaign's judgments change only for some workers (new judgments appended, the incremental
recompute of ``analytics.incremental``), the others keep their results, and the changed workers
are computed on their own rows (:meth:`DAJudgments.subset`): the same numbers, to the last bit,
as a computation over every row (tests/analytics/test_worker_splice.py compares them).

Pure numpy; used by ``analytics.incremental.analysis`` (the incremental recompute), not by the
full recompute.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.direct_assessment.effort import ScoreSpread, score_spread
from analytics.stats.direct_assessment.judgments import DAJudgments, freeze
from analytics.stats.direct_assessment.reliability import (
    _PER_WORKER,
    WorkerReliability,
    worker_reliability,
)
from analytics.stats.direct_assessment.scores import ZScores, standardize

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["WorkerChanges", "reliability_spliced", "spread_spliced", "zscores_spliced"]


@dataclass(frozen=True, eq=False)
class WorkerChanges:
    """Where ``judgments``' workers stand against the workers of earlier results.

    ``changed`` (aligned to ``judgments.workers``): recomputed (rows changed, or unknown to the
    earlier results); ``at``: each unchanged worker's position in the earlier results;
    ``subset``: the judgments of the changed workers (None when none changed)."""

    judgments: DAJudgments
    changed: NDArray[np.bool_]
    at: NDArray[np.intp]
    subset: DAJudgments | None

    @classmethod
    def of(
        cls,
        judgments: DAJudgments,
        previous_workers: NDArray[np.integer],
        changed_ids: NDArray[np.integer],
    ) -> WorkerChanges:
        """``previous_workers``: the sorted worker ids of the earlier results;
        ``changed_ids``: the ids of workers whose rows changed since (any order)."""
        workers = judgments.workers
        at = np.searchsorted(previous_workers, workers)
        at = np.minimum(at, max(previous_workers.shape[0] - 1, 0))
        known = (
            previous_workers[at] == workers
            if previous_workers.shape[0]
            else np.zeros(workers.shape[0], dtype=bool)
        )
        changed = ~known | np.isin(workers, changed_ids)
        subset = _rows_of(judgments, changed) if changed.any() else None
        return cls(judgments=judgments, changed=changed, at=at, subset=subset)

    def merge(self, previous: NDArray, recomputed: NDArray) -> NDArray:
        """Per worker of ``judgments``: ``previous``'s value (aligned to the earlier workers)
        where unchanged, ``recomputed``'s (aligned to the changed workers) where changed."""
        out = np.empty(self.changed.shape[0], dtype=np.result_type(previous, recomputed))
        unchanged = ~self.changed
        out[unchanged] = previous[self.at[unchanged]]
        out[self.changed] = recomputed
        return out


# Up to this share of the rows, the changed workers' judgments are built from their rows alone
# (see _rows_of); more, and DAJudgments.subset is cheaper.
_FEW_ROWS = 1 / 8


def _rows_of(judgments: DAJudgments, workers: NDArray[np.bool_]) -> DAJudgments:
    """The judgments of the ``workers`` (a mask over ``judgments.workers``): whole workers, so
    whole assignments. An incremental run changes a few workers: their rows are taken by
    position and their judgments built from those rows alone (pair links and workers derived
    over them, the same as ``subset`` renumbers: a control's partner is in its assignment),
    instead of ``subset``'s passes over every row (at a million rows, 12 ms against 2-3 ms)."""
    rows = judgments.worker_mask_to_rows(workers)
    at = np.flatnonzero(rows)
    if at.shape[0] > _FEW_ROWS * len(judgments):
        return judgments.subset(rows)
    del rows
    given_z = judgments.given_z[at]
    return DAJudgments(
        # Fresh arrays of ours, read-only: taken without another copy (int32 ids stay).
        **{name: freeze(column) for name, column in judgments.rows_of(at, _TAKEN).items()},
        scale_max=judgments.scale_max,
        given_z=None if np.isnan(given_z).all() else freeze(given_z),
    )


# The columns _rows_of takes by position (given_z on its own: None when it has no value).
_TAKEN = ("worker", "assignment", "slot", "role", "system", "item", "pair_slot", "score", "seconds")


def reliability_spliced(
    previous: WorkerReliability, changes: WorkerChanges, **settings
) -> WorkerReliability:
    """``worker_reliability(changes.judgments, **settings)``, taking the unchanged workers'
    results from ``previous`` (computed with the same settings: checked)."""
    own = {
        "test": previous.test,
        "alpha": previous.alpha,
        "min_pairs": previous.min_pairs,
        "assumption_a_test": previous.assumption_a_test,
    }
    if any(own[name] != value for name, value in settings.items()):
        raise ValueError("previous was computed with other settings")
    if changes.subset is None:
        return previous.take(changes.at)
    retested = worker_reliability(changes.subset, **own)
    return replace(
        previous,
        workers=changes.judgments.workers,
        **{
            name: changes.merge(getattr(previous, name), getattr(retested, name))
            for name in _PER_WORKER
        },
        p_values={
            name: changes.merge(p, retested.p_values[name]) for name, p in previous.p_values.items()
        },
        reasons={
            name: changes.merge(r, retested.reasons[name]) for name, r in previous.reasons.items()
        },
    )


def spread_spliced(previous: ScoreSpread, changes: WorkerChanges) -> ScoreSpread:
    """``score_spread(changes.judgments)`` with the unchanged workers' from ``previous``."""
    if changes.subset is None:
        at = changes.at
        return ScoreSpread(n=previous.n[at], sd=previous.sd[at], mean=previous.mean[at])
    fresh = score_spread(changes.subset)
    return ScoreSpread(
        n=changes.merge(previous.n, fresh.n),
        sd=changes.merge(previous.sd, fresh.sd),
        mean=changes.merge(previous.mean, fresh.mean),
    )


def zscores_spliced(previous: ZScores, changes: WorkerChanges, same_rows: int = 0) -> ZScores:
    """``standardize(changes.judgments)`` with ``previous``'s settings, the unchanged workers'
    means and sds taken from ``previous``; every row's z is then derived from its worker's
    mean and sd as :func:`~.scores.standardize` derives it (an element-wise formula, so the
    same mean and sd give the same z).

    ``same_rows``: how many rows, from the first, are the rows ``previous`` was computed on
    (the same judgments in the same order): their z is ``previous``'s where the worker is
    unchanged (the same mean and sd, so the same z) and is derived again only for the changed
    workers' rows and the rows after them (at a million judgments, a fraction of the rows)."""
    settings = {"exclude_references": previous.exclude_references, "ddof": previous.ddof}
    if changes.subset is None:
        mean, sd = previous.mean[changes.at], previous.sd[changes.at]
    else:
        fresh = standardize(changes.subset, **settings)
        mean, sd = changes.merge(previous.mean, fresh.mean), changes.merge(previous.sd, fresh.sd)
    judgments = changes.judgments
    same_rows = min(max(same_rows, 0), len(judgments), previous.z.shape[0])
    w = judgments.worker_index
    usable = np.isfinite(sd) & (sd > 0)
    if same_rows == 0:
        given = judgments.has_given_z
        z = np.zeros(len(judgments))
        rows = usable[w] & ~given
        z[rows] = (judgments.score[rows] - mean[w[rows]]) / sd[w[rows]]
        z[given] = judgments.given_z[given]
        return ZScores(z=z, mean=mean, sd=sd, **settings)
    z = np.empty(len(judgments))
    z[:same_rows] = previous.z[:same_rows]
    # The rows derived again: the changed workers' and every row past the previous ones.
    again = changes.changed[w]
    again[same_rows:] = True
    at = np.flatnonzero(again)
    del again
    wa = w[at]
    given = ~np.isnan(judgments.given_z[at])
    standardised = usable[wa] & ~given
    fresh = np.zeros(at.shape[0])
    fresh[standardised] = (judgments.score[at][standardised] - mean[wa[standardised]]) / sd[
        wa[standardised]
    ]
    fresh[given] = judgments.given_z[at][given]
    z[at] = fresh
    return ZScores(z=z, mean=mean, sd=sd, **settings)
