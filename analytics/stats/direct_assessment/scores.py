"""Standardised (z) scores, system scores and test-set difficulty calibration.

Graham et al. (2014, EACL), Section 4 "Overall change in performance": "Average z scores for
each system are also presented, based on the mean and standard deviation of all assessments
provided by an individual worker"; footnote 4: "Scores for reference translations can
optionally be omitted for score standardization."  Graham et al. (2013, LAW), Section 6:
standardising each judge's scores removes judges' individual leniency before comparing them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from analytics.stats.direct_assessment._groups import Grouped
from analytics.stats.direct_assessment.judgments import DAJudgments, Role

__all__ = [
    "SystemScores",
    "ZScores",
    "calibrated_gain",
    "standardize",
    "system_samples",
    "system_scores",
]

# Roles that are genuine system outputs: repeats count, QC items (bad references,
# references) do not (2014 Section 4 "HIT structure": 80% of assessments are genuine outputs
# "including exact repeat assessments", 20% are quality-control items).
OUTPUT_ROLES = (Role.SYSTEM, Role.REPEAT)


@dataclass(frozen=True, eq=False)
class ZScores:
    """Per-row z-scores plus the per-worker mean and sd they were computed from.

    ``mean`` and ``sd`` are aligned to ``judgments.workers``; ``sd`` is NaN where undefined
    (fewer than ddof + 1 scores in the basis) and 0 for a worker whose basis scores are all
    equal.  Both cases give z = 0 for all of that worker's rows.
    """

    z: NDArray[np.float64]
    mean: NDArray[np.float64]
    sd: NDArray[np.float64]
    ddof: int
    exclude_references: bool


def standardize(
    judgments: DAJudgments, *, exclude_references: bool = False, ddof: int = 1
) -> ZScores:
    """z = (score - mean_w) / sd_w with each worker's own mean and sd (2014 Section 4).

    The mean and sd are taken over all of the worker's scores in ``judgments`` (bad
    references included, as in the paper), or over all but references if
    ``exclude_references`` (2014 footnote 4).  Every row gets a z-score, references too.

    ddof = 1 (sample standard deviation) by default: a worker's scores are a sample of how that
    worker uses the scale, and it is what WMT's tooling does (Appraise's ComputeZScores command
    divides the sum of squares by n - 1).  The difference from
    the population sd is a factor sqrt((n-1)/n), about 0.5% for one 100-item HIT; it rescales a
    worker's z-scores but never reorders them.

    Rows with a given z (``judgments.given_z``, imported files that publish only z-scores)
    keep it as their z and are not part of any worker's basis: they were standardised by
    whoever published them, over data we may not have.

    A worker whose basis scores are all identical (sd = 0), or who has too few scores for an sd,
    gets z = 0 everywhere: such a worker expresses no preference between any two items, and 0
    ("at this worker's mean") is the only value that neither invents a preference nor poisons
    means with inf/NaN.  (Appraise does the same by dividing by 1 when sd is 0.)  The constant
    case is detected exactly with min == max, because a float variance of equal scores can come
    out as a tiny positive number and would otherwise produce z = +-1 noise.
    """
    if ddof < 0:
        raise ValueError("ddof must be >= 0")
    g = judgments.n_workers
    w = judgments.worker_index
    given = judgments.has_given_z
    basis = ~given
    if exclude_references:
        basis &= judgments.role != Role.REFERENCE
    grouped = Grouped.build(judgments.score[basis], w[basis], g)
    n = grouped.counts.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, grouped.sums() / np.maximum(n, 1), np.nan)
        dev_basis = grouped.values - mean[grouped.group_of_value]
        ss = grouped.sums(dev_basis * dev_basis)
        sd = np.where(n > ddof, np.sqrt(ss / np.maximum(n - ddof, 1)), np.nan)
    lo, hi = grouped.minmax()
    sd = np.where((n > ddof) & (lo == hi), 0.0, sd)

    usable = np.isfinite(sd) & (sd > 0)
    z = np.zeros(len(judgments))
    rows = usable[w] & ~given
    z[rows] = (judgments.score[rows] - mean[w[rows]]) / sd[w[rows]]
    z[given] = judgments.given_z[given]
    return ZScores(z=z, mean=mean, sd=sd, ddof=ddof, exclude_references=exclude_references)


@dataclass(frozen=True, eq=False)
class SystemScores:
    """Per-system scores, sorted best first by mean z (ties: lower system id first).

    Only systems with at least one included output judgment appear. ``mean_score`` is NaN for
    a system some of whose included judgments have no raw score (imported as given z-scores):
    a raw mean over part of them would not be the system's.
    """

    system: NDArray[np.int64]
    n: NDArray[np.int64]
    mean_score: NDArray[np.float64]
    mean_z: NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.system.shape[0])


def _output_rows(
    judgments: DAJudgments, include_workers: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    rows = np.isin(judgments.role, OUTPUT_ROLES) & (judgments.system >= 0)
    return rows & judgments.worker_mask_to_rows(include_workers)


def system_scores(
    judgments: DAJudgments,
    z: NDArray[np.float64] | ZScores,
    *,
    include_workers: NDArray[np.bool_] | None = None,
) -> SystemScores:
    """Mean raw score, mean z and n per system over system outputs and repeats (2014 Table 3).

    ``include_workers`` is a boolean mask aligned to ``judgments.workers`` (for instance
    ``WorkerReliability.reliable``, the default in the paper); None includes every worker.
    """
    zz = z.z if isinstance(z, ZScores) else np.asarray(z, dtype=np.float64)
    if zz.shape != (len(judgments),):
        raise ValueError("z must have one value per judgment")
    rows = _output_rows(judgments, include_workers)
    systems, code = np.unique(judgments.system[rows], return_inverse=True)
    code = code.reshape(-1)
    n = np.bincount(code, minlength=systems.shape[0])
    mean_score = np.bincount(code, weights=judgments.score[rows], minlength=systems.shape[0]) / n
    mean_z = np.bincount(code, weights=zz[rows], minlength=systems.shape[0]) / n
    # Best first; lexsort's last key is primary.  Ties broken by system id for determinism.
    order = np.lexsort((systems, -mean_z))
    return SystemScores(
        system=systems[order],
        n=n[order].astype(np.int64),
        mean_score=mean_score[order],
        mean_z=mean_z[order],
    )


def system_samples(
    judgments: DAJudgments,
    values: NDArray[np.float64],
    systems: NDArray[np.int64],
    *,
    include_workers: NDArray[np.bool_] | None = None,
) -> list[NDArray[np.float64]]:
    """Per system in ``systems`` order, its included output values (e.g. z-scores).

    The input to :func:`analytics.stats.significance.pairwise_rank_sum`.  One sort and one
    split, not a mask per system.
    """
    rows = _output_rows(judgments, include_workers)
    sys_ids = judgments.system[rows]
    vals = np.asarray(values, dtype=np.float64)[rows]
    order = np.argsort(sys_ids, kind="stable")
    sys_sorted, vals_sorted = sys_ids[order], vals[order]
    lo = np.searchsorted(sys_sorted, systems, side="left")
    hi = np.searchsorted(sys_sorted, systems, side="right")
    return [vals_sorted[a:b] for a, b in zip(lo, hi, strict=True)]


def calibrated_gain(
    best_new: float, best_old: float, benchmark_on_old: float, benchmark_on_new: float
) -> tuple[float, float]:
    """Test-set difficulty calibration, 2014 Section 4 and Table 3.

    One fixed benchmark system translates both test sets; delta = benchmark_on_old -
    benchmark_on_new is how much harder the new test set is.  The calibrated gain of the
    state of the art is (best_new - best_old) + delta.  Returns (gain, delta).
    """
    delta = benchmark_on_old - benchmark_on_new
    return (best_new - best_old) + delta, delta
