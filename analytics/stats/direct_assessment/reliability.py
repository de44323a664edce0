"""Per-worker reliability (judge-intrinsic quality control) for direct assessment.

Graham et al. (2014, EACL), Section 3 "Assessor Consistency":
  a paired test of the raw scores of bad references against their source system outputs; a
  worker is reliable if the bad references score significantly lower (p < 0.05, one-sided).
  WMT's later practice uses the Wilcoxon signed-rank test for this, which is our default.
  Assumption A: for a reliable worker, the mean scores of initial and repeat judgments do not
  differ significantly (Table 1: holds for ~99% of reliable workers).
Graham et al. (2013, LAW), Section 5 "Judge-Intrinsic Quality Control" and Figure 3:
  d1 = |score - repeat score| over ask-again (repeat) pairs, d2 = score(output) -
  score(bad reference) over bad-reference pairs; H0 "d1 is not less than d2", tested with
  Welch's t-test and, for comparison, the Mann-Whitney U test; p < 0.05 means reliable.

All four p-values are computed for every worker (cheap: see ``_groups``); ``test`` only chooses
which one decides the ``reliable`` flag.

Minimum number of pairs (``min_pairs``, default 5, never below 2): a worker with fewer pairs
than that for a test gets p = NaN, reliable = False and a reason string.  Why 5: the smallest
one-sided p-value the exact Wilcoxon signed-rank test can produce from n pairs is 2**-n, so
with 4 pairs (1/16 = 0.0625) a worker could never pass at 0.05 however careful; 5 pairs
(1/32) is the first size at which the default test can say anything.  One 100-item HIT gives
10 bad-reference and 10 repeat pairs, so half an abandoned HIT is enough.  The floor of 2 is
what any variance (t-tests) needs.  For the two-sample 2013 tests the minimum applies to both
the repeat and the bad-reference sample.

Degenerate samples (all differences zero, all values tied, constant differences) are
resolved without scipy warnings; see ``_groups`` for the reasoning behind each value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from analytics.stats.direct_assessment._groups import (
    Grouped,
    mann_whitney_greater,
    paired_t,
    welch_t_greater,
    wilcoxon_signed_rank,
)
from analytics.stats.direct_assessment.judgments import DAJudgments, Role

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "DEFAULT_MIN_PAIRS",
    "RELIABILITY_TESTS",
    "AssumptionATest",
    "ReliabilityTest",
    "WorkerQC",
    "WorkerReliability",
    "reliability_of_subset",
    "worker_reliability",
]

ReliabilityTest = Literal["wilcoxon", "paired_t", "welch", "mann_whitney"]
RELIABILITY_TESTS: tuple[ReliabilityTest, ...] = get_args(ReliabilityTest)
AssumptionATest = Literal["paired_t", "wilcoxon"]
DEFAULT_MIN_PAIRS = 5
# Tests on bad-reference pairs alone (2014) vs tests of d1 (repeats) against d2 (2013).
_PAIRED_TESTS = ("wilcoxon", "paired_t")


@dataclass(frozen=True)
class WorkerQC:
    """One worker's quality-control result, as plain Python values (None for NaN).

    ``n_pairs`` counts the pairs that entered the deciding test: bad-reference pairs for the
    paired tests, bad-reference plus repeat pairs for Welch and Mann-Whitney.  ``reason`` is
    empty unless the test could not run normally (too few pairs, a degenerate sample).
    """

    worker: int
    test: str
    p_value: float | None
    reliable: bool
    reason: str
    n_pairs: int
    n_bad_ref_pairs: int
    n_repeat_pairs: int
    n_judgments: int
    mean_seconds: float | None
    assumption_a_p: float | None
    assumption_a_holds: bool | None


def _nullable(values: NDArray[np.floating]) -> list[float | None]:
    """The values as Python floats, None where NaN."""
    out = values.tolist()
    for i in np.flatnonzero(np.isnan(values)).tolist():
        out[i] = None
    return out


@dataclass(frozen=True, eq=False)
class WorkerReliability:
    """Per-worker reliability, as arrays aligned to ``workers`` (sorted worker ids).

    ``p_values[name]`` / ``reasons[name]`` hold every test's result; ``p_value`` / ``reason``
    are those of the deciding ``test``.  ``reliable = p_value < alpha`` (False where NaN).
    ``assumption_a_p`` is the two-sided paired test of first vs repeat scores;
    ``assumption_a_holds`` = p >= alpha, and is only meaningful where ``assumption_a_tested``.
    """

    workers: NDArray[np.int64]
    test: ReliabilityTest
    alpha: float
    min_pairs: int
    p_value: NDArray[np.float64]
    reliable: NDArray[np.bool_]
    reason: NDArray[np.object_]
    p_values: dict[str, NDArray[np.float64]]
    reasons: dict[str, NDArray[np.object_]]
    n_bad_ref_pairs: NDArray[np.int64]
    n_repeat_pairs: NDArray[np.int64]
    n_judgments: NDArray[np.int64]
    mean_seconds: NDArray[np.float64]
    assumption_a_test: AssumptionATest
    assumption_a_p: NDArray[np.float64]
    assumption_a_holds: NDArray[np.bool_]

    @property
    def n_pairs(self) -> NDArray[np.int64]:
        if self.test in _PAIRED_TESTS:
            return self.n_bad_ref_pairs
        return self.n_bad_ref_pairs + self.n_repeat_pairs

    @property
    def assumption_a_tested(self) -> NDArray[np.bool_]:
        return ~np.isnan(self.assumption_a_p)

    @property
    def assumption_a_share(self) -> float:
        """Share of reliable workers (with enough repeat pairs) for whom Assumption A holds.

        2014 Table 1 reports 98.8% (fluency) and 99.6% (adequacy).  NaN if no such worker.
        """
        considered = self.reliable & self.assumption_a_tested
        if not considered.any():
            return float("nan")
        return float(np.mean(self.assumption_a_holds[considered]))

    def row_mask(self, judgments: DAJudgments) -> NDArray[np.bool_]:
        """Per judgment row: does it come from a reliable worker?"""
        if not np.array_equal(judgments.workers, self.workers):
            raise ValueError("judgments do not have the workers this result was computed for")
        return self.reliable[judgments.worker_index]

    def records(self) -> list[WorkerQC]:
        """One :class:`WorkerQC` per worker, for storage (a Python step per worker, not row).

        Each column becomes a Python list at once (``tolist``: the same ints, floats and bools
        as converting element by element, NaN then replaced by None) and the records are zipped
        from them: an incremental recompute builds these for every worker twice a run, and at
        a few thousand workers converting numpy scalars one by one took tens of ms."""
        tested = self.assumption_a_tested
        holds = self.assumption_a_holds.tolist()
        columns = (
            self.workers.tolist(),
            _nullable(self.p_value),
            self.reliable.tolist(),
            [str(reason) for reason in self.reason.tolist()],
            self.n_pairs.tolist(),
            self.n_bad_ref_pairs.tolist(),
            self.n_repeat_pairs.tolist(),
            self.n_judgments.tolist(),
            _nullable(self.mean_seconds),
            _nullable(self.assumption_a_p),
            [
                held if was_tested else None
                for held, was_tested in zip(holds, tested.tolist(), strict=True)
            ],
        )
        test = self.test
        return [
            WorkerQC(
                worker=worker,
                test=test,
                p_value=p_value,
                reliable=reliable,
                reason=reason,
                n_pairs=n_pairs,
                n_bad_ref_pairs=n_bad_ref_pairs,
                n_repeat_pairs=n_repeat_pairs,
                n_judgments=n_judgments,
                mean_seconds=mean_seconds,
                assumption_a_p=assumption_a_p,
                assumption_a_holds=assumption_a_holds,
            )
            for (
                worker,
                p_value,
                reliable,
                reason,
                n_pairs,
                n_bad_ref_pairs,
                n_repeat_pairs,
                n_judgments,
                mean_seconds,
                assumption_a_p,
                assumption_a_holds,
            ) in zip(*columns, strict=True)
        ]

    def take(self, positions: NDArray[np.integer]) -> WorkerReliability:
        """The results of the workers at ``positions`` (in that order)."""
        return replace(
            self,
            workers=self.workers[positions],
            **{name: getattr(self, name)[positions] for name in _PER_WORKER},
            p_values={name: p[positions] for name, p in self.p_values.items()},
            reasons={name: r[positions] for name, r in self.reasons.items()},
        )


# WorkerReliability's per-worker arrays besides workers, p_values and reasons.
_PER_WORKER = (
    "p_value",
    "reliable",
    "reason",
    "n_bad_ref_pairs",
    "n_repeat_pairs",
    "n_judgments",
    "mean_seconds",
    "assumption_a_p",
    "assumption_a_holds",
)


def reliability_of_subset(
    whole: WorkerReliability,
    judgments: DAJudgments,
    unchanged: NDArray[np.bool_],
    **settings,
) -> WorkerReliability:
    """:func:`worker_reliability` of ``judgments``, a subset of the judgments ``whole`` was
    computed on, without testing again the workers whose rows are all still there.

    A worker's results depend on that worker's rows alone (pairs are matched within an
    assignment, which has one worker; every test runs per worker), so for a worker who lost
    no row they are ``whole``'s. ``unchanged`` (aligned to ``judgments.workers``): the workers
    who kept every row. The others are tested on their remaining rows, a subset of whole
    assignments. ``settings``: those ``whole`` was computed with (checked).
    """
    result_settings = {
        "test": whole.test,
        "alpha": whole.alpha,
        "min_pairs": whole.min_pairs,
        "assumption_a_test": whole.assumption_a_test,
    }
    if any(result_settings[name] != value for name, value in settings.items()):
        raise ValueError("whole was computed with other settings")
    at = np.searchsorted(whole.workers, judgments.workers)
    at = np.minimum(at, max(whole.workers.shape[0] - 1, 0))
    if judgments.n_workers and not np.array_equal(whole.workers[at], judgments.workers):
        raise ValueError("judgments has workers whole was not computed for")
    kept = whole.take(at)
    changed = ~np.asarray(unchanged, dtype=bool)
    if not changed.any():
        return kept
    retested = worker_reliability(
        judgments.subset(judgments.worker_mask_to_rows(changed)), **result_settings
    )
    where = np.flatnonzero(changed)  # retested.workers are judgments.workers[where], in order
    merged = {}
    for name in _PER_WORKER:
        column = getattr(kept, name).copy()
        column[where] = getattr(retested, name)
        merged[name] = column
    p_values, reasons = {}, {}
    for name in kept.p_values:
        p_values[name] = kept.p_values[name].copy()
        p_values[name][where] = retested.p_values[name]
        reasons[name] = kept.reasons[name].copy()
        reasons[name][where] = retested.reasons[name]
    return replace(kept, **merged, p_values=p_values, reasons=reasons)


def _reasons(n: int) -> NDArray[np.object_]:
    out = np.empty(n, dtype=object)
    out[:] = ""
    return out


def _set_reason(reason: NDArray[np.object_], mask: NDArray[np.bool_], text: str) -> None:
    # Only rows without a reason yet: the first reason set (too few pairs) is the one shown.
    reason[mask & (reason == "")] = text


def _paired_test_result(
    test: ReliabilityTest, d2: Grouped, min_pairs: int
) -> tuple[NDArray[np.float64], NDArray[np.object_]]:
    """2014: one-sided paired test that bad references score lower than their sources."""
    n = d2.counts
    enough = n >= min_pairs
    p = wilcoxon_signed_rank(d2, "greater") if test == "wilcoxon" else paired_t(d2, "greater")
    p = np.where(enough, p, np.nan)
    reason = _reasons(d2.n_groups)
    for i in np.flatnonzero(~enough):
        reason[i] = f"too few bad-reference pairs ({n[i]} < {min_pairs})"
    lo, hi = d2.minmax()
    _set_reason(reason, enough & (lo == 0) & (hi == 0), "all bad-reference differences are zero")
    if test == "paired_t":
        _set_reason(reason, enough & (lo == hi), "constant bad-reference differences (sd = 0)")
    return p, reason


def _two_sample_test_result(
    test: ReliabilityTest, d2: Grouped, d1: Grouped, min_pairs: int
) -> tuple[NDArray[np.float64], NDArray[np.object_]]:
    """2013: one-sided test that repeat differences d1 are smaller than bad-ref differences d2."""
    nb, nr = d2.counts, d1.counts
    enough = (nb >= min_pairs) & (nr >= min_pairs)
    p = welch_t_greater(d2, d1) if test == "welch" else mann_whitney_greater(d2, d1)
    p = np.where(enough, p, np.nan)
    reason = _reasons(d2.n_groups)
    for i in np.flatnonzero(~enough):
        reason[i] = (
            f"too few pairs: {nb[i]} bad-reference, {nr[i]} repeat (minimum {min_pairs} each)"
        )
    blo, bhi = d2.minmax()
    rlo, rhi = d1.minmax()
    if test == "welch":
        _set_reason(reason, enough & (blo == bhi) & (rlo == rhi), "no variation in d1 or d2")
    else:
        tied = enough & (blo == bhi) & (rlo == rhi) & (blo == rlo)
        _set_reason(reason, tied, "all d1 and d2 differences tied")
    return p, reason


def worker_reliability(
    judgments: DAJudgments,
    *,
    test: ReliabilityTest = "wilcoxon",
    alpha: float = 0.05,
    min_pairs: int = DEFAULT_MIN_PAIRS,
    assumption_a_test: AssumptionATest = "paired_t",
) -> WorkerReliability:
    """Quality control for every worker in ``judgments`` (pooled over all their HITs).

    ``test`` decides reliability: "wilcoxon" (default; one-sided Wilcoxon signed-rank on
    source - bad-reference differences, WMT practice), "paired_t" (2014 paper), "welch" or
    "mann_whitney" (2013 paper: d1 repeat differences vs d2 bad-reference differences).
    ``assumption_a_test`` is the two-sided paired test of initial vs repeat scores
    ("paired_t" by default: Assumption A is about means; "wilcoxon" on request).
    """
    if test not in RELIABILITY_TESTS:
        raise ValueError(f"test must be one of {RELIABILITY_TESTS}, got {test!r}")
    if assumption_a_test not in get_args(AssumptionATest):
        raise ValueError(f"assumption_a_test must be one of {get_args(AssumptionATest)}")
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie strictly between 0 and 1")
    if min_pairs < 2:
        raise ValueError("min_pairs must be at least 2 (a variance needs two values)")

    g = judgments.n_workers
    bad = judgments.control_pairs(Role.BAD_REFERENCE)
    rep = judgments.control_pairs(Role.REPEAT)
    d2 = Grouped.build(bad.original - bad.control, bad.worker, g)
    d1 = Grouped.build(np.abs(rep.original - rep.control), rep.worker, g)
    repeat_diff = Grouped.build(rep.original - rep.control, rep.worker, g)

    p_values: dict[str, NDArray[np.float64]] = {}
    reasons: dict[str, NDArray[np.object_]] = {}
    for name in RELIABILITY_TESTS:
        if name in _PAIRED_TESTS:
            p_values[name], reasons[name] = _paired_test_result(name, d2, min_pairs)
        else:
            p_values[name], reasons[name] = _two_sample_test_result(name, d2, d1, min_pairs)
    p = p_values[test]
    # NaN < alpha is False, so workers without a p-value are never reliable.
    reliable = np.less(p, alpha, where=~np.isnan(p), out=np.zeros(g, dtype=bool))

    enough_repeats = repeat_diff.counts >= min_pairs
    if assumption_a_test == "paired_t":
        a_p = paired_t(repeat_diff, "two-sided")
    else:
        a_p = wilcoxon_signed_rank(repeat_diff, "two-sided")
    a_p = np.where(enough_repeats, a_p, np.nan)
    a_holds = np.greater_equal(a_p, alpha, where=~np.isnan(a_p), out=np.zeros(g, dtype=bool))

    w = judgments.worker_index
    timed = np.isfinite(judgments.seconds)
    n_timed = np.bincount(w[timed], minlength=g)
    total_seconds = np.bincount(w[timed], weights=judgments.seconds[timed], minlength=g)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_seconds = np.where(n_timed > 0, total_seconds / np.maximum(n_timed, 1), np.nan)

    return WorkerReliability(
        workers=judgments.workers,
        test=test,
        alpha=alpha,
        min_pairs=min_pairs,
        p_value=p,
        reliable=reliable,
        reason=reasons[test],
        p_values=p_values,
        reasons=reasons,
        n_bad_ref_pairs=d2.counts,
        n_repeat_pairs=d1.counts,
        n_judgments=np.bincount(w, minlength=g).astype(np.int64),
        mean_seconds=mean_seconds,
        assumption_a_test=assumption_a_test,
        assumption_a_p=a_p,
        assumption_a_holds=a_holds,
    )
