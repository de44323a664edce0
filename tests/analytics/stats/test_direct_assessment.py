"""Direct-assessment statistics checked against numbers worked by hand.

Expected p-values are computed independently of the code under test: from a hand-computed
statistic through scipy's distributions (t.sf, norm.sf) or by exact enumeration written out in
the comments.  Graham et al. 2013 (LAW) and 2014 (EACL) give the definitions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pytest
from scipy import stats

from analytics.stats.direct_assessment import (
    DAConfig,
    DAJudgments,
    Role,
    agreement,
    analyse_campaign,
    calibrated_gain,
    equal_width_categories,
    kappa_coefficient,
    percentile_categories,
    standardize,
    system_samples,
    system_scores,
    worker_reliability,
)

# Any warning (scipy dividing by zero on degenerate samples, ...) is a failure.
# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

REL = 1e-12  # tight tolerance: expectations are exact formulas, not simulations


# ------------------------------------------------------------------------------ builder
@dataclass
class Builder:
    """Assemble DAJudgments row by row for small hand-made cases (test helper only)."""

    rows: list[dict] = field(default_factory=list)
    _slot: int = 0

    def add(
        self,
        worker: int,
        role: str,
        score: float,
        *,
        system: int = -1,
        item: int = -1,
        pair: int = -1,
        assignment: int | None = None,
        seconds: float = float("nan"),
    ) -> int:
        self._slot += 1
        self.rows.append(
            dict(
                worker=worker,
                assignment=worker if assignment is None else assignment,
                slot=self._slot,
                role=role,
                system=system,
                item=item if item >= 0 else 10_000 + self._slot,
                pair_slot=pair,
                score=score,
                seconds=seconds,
            )
        )
        return self._slot

    def bad_pairs(self, worker: int, pairs: list[tuple[float, float]], system: int = 0) -> None:
        """(source output score, bad reference score) pairs."""
        for original, bad in pairs:
            s = self.add(worker, "system", original, system=system)
            self.add(worker, "bad_reference", bad, pair=s)

    def repeat_pairs(self, worker: int, pairs: list[tuple[float, float]], system: int = 0) -> None:
        """(first score, repeat score) pairs."""
        for first, again in pairs:
            s = self.add(worker, "system", first, system=system)
            self.add(worker, "repeat", again, system=system, pair=s)

    def build(self) -> DAJudgments:
        cols = {k: [r[k] for r in self.rows] for k in self.rows[0]} if self.rows else {}
        return DAJudgments(**cols)


# The worked example used throughout.  Bad-reference pairs (source, bad reference):
BAD = [(80, 20), (70, 30), (60, 55), (90, 60), (50, 50)]
#   d2 = source - bad = 60, 40, 5, 30, 0
# Repeat pairs (first, repeat):
REPEATS = [(50, 52), (60, 55), (70, 70), (40, 43), (80, 70)]
#   first - repeat = -2, 5, 0, -3, 10;   d1 = |first - repeat| = 2, 5, 0, 3, 10


def worked_example() -> DAJudgments:
    b = Builder()
    b.bad_pairs(1, BAD)
    b.repeat_pairs(1, REPEATS)
    return b.build()


# ------------------------------------------------------------------------------ input
def test_roles_accept_names_or_codes() -> None:
    assert Role.codes(["system", "repeat", "bad_reference", "reference"]).tolist() == [0, 1, 2, 3]
    assert Role.codes(["SYSTEM", "Reference"]).tolist() == [0, 3]
    assert Role.codes(np.array([3, 0], dtype=np.int64)).tolist() == [3, 0]
    with pytest.raises(ValueError, match="unknown slot role"):
        Role.codes(["system", "bad_ref"])
    with pytest.raises(ValueError, match="unknown slot role code"):
        Role.codes([0, 7])
    # Negative codes too (looked up as bytes); the message names each unknown code once.
    with pytest.raises(ValueError, match=r"unknown slot role code\(s\): \[-1, 4\]"):
        Role.codes(np.array([4, 0, -1, 4, 3], dtype=np.int8))
    assert Role.codes(np.array([], dtype=np.int64)).tolist() == []


def test_pairs_resolve_within_the_same_assignment() -> None:
    # Two assignments of the same HIT: identical slot ids; each control must find the output
    # judged in its own assignment.  A third control points at a slot nobody judged.
    j = DAJudgments(
        worker=[1, 1, 2, 2, 2],
        assignment=[10, 10, 20, 20, 20],
        slot=[5, 6, 5, 6, 7],
        role=["system", "repeat", "system", "repeat", "bad_reference"],
        system=[0, 0, 0, 0, -1],
        item=[1, 1, 1, 1, 1],
        pair_slot=[-1, 5, 6, 5, 99],  # a link on a SYSTEM row (slot 5 of asg 20) is ignored
        score=[10, 20, 30, 40, 50],
        seconds=[1, 2, 3, 4, 5],
    )
    assert j.partner.tolist() == [-1, 0, -1, 2, -1]
    assert j.n_unmatched_controls == 1
    pairs = j.control_pairs(Role.REPEAT)
    assert pairs.original.tolist() == [10, 30] and pairs.control.tolist() == [20, 40]
    assert pairs.worker.tolist() == [0, 1]  # worker *indexes* into j.workers == [1, 2]


def test_inputs_are_validated() -> None:
    base = dict(
        worker=[1, 1],
        assignment=[1, 1],
        slot=[1, 2],
        role=["system", "repeat"],
        system=[0, 0],
        item=[1, 1],
        pair_slot=[-1, 1],
        score=[10.0, 20.0],
        seconds=[1.0, 1.0],
    )
    DAJudgments(**base)
    with pytest.raises(ValueError, match="duplicate judgment"):
        DAJudgments(**{**base, "slot": [1, 1], "pair_slot": [-1, -1]})
    with pytest.raises(ValueError, match="not a system output"):
        DAJudgments(**{**base, "role": ["reference", "repeat"]})
    with pytest.raises(ValueError, match="more than one worker"):
        DAJudgments(**{**base, "worker": [1, 2]})
    with pytest.raises(ValueError, match=r"score must lie in \[0, 100"):
        DAJudgments(**{**base, "score": [10.0, 101.0]})
    with pytest.raises(ValueError, match="finite"):
        DAJudgments(**{**base, "score": [10.0, float("nan")]})
    with pytest.raises(ValueError, match="score must be finite"):
        DAJudgments(**{**base, "score": [float("inf"), 20.0], "given_z": None})
    # A row with a given z needs no raw score; without one it does (given_z of NaN only).
    DAJudgments(**{**base, "score": [10.0, float("nan")], "given_z": [float("nan"), 0.5]})
    with pytest.raises(ValueError, match="score must be finite"):
        DAJudgments(**{**base, "score": [10.0, float("nan")], "given_z": [float("nan")] * 2})
    with pytest.raises(ValueError, match="length"):
        DAJudgments(**{**base, "seconds": [1.0]})


def test_arrays_are_private_read_only_copies() -> None:
    score = np.array([10.0, 20.0])
    j = DAJudgments(
        worker=[1, 1],
        assignment=[1, 1],
        slot=[1, 2],
        role=[0, 0],
        system=[0, 0],
        item=[1, 2],
        pair_slot=[-1, -1],
        score=score,
        seconds=[1.0, 1.0],
    )
    score[0] = 99.0
    assert j.score[0] == 10.0
    with pytest.raises(ValueError):
        j.score[0] = 5.0


# ------------------------------------------------------------------------------ reliability
def test_paired_t_on_the_worked_example() -> None:
    # d2 = 60, 40, 5, 30, 0: mean 27; deviations 33, 13, -22, 3, -27, squares sum 2480;
    # s^2 = 2480 / 4 = 620; se = sqrt(620 / 5) = sqrt(124); t = 27 / sqrt(124) = 2.4247, df 4.
    rel = worker_reliability(worked_example(), test="paired_t")
    expected = stats.t.sf(27 / math.sqrt(124), 4)
    assert expected == pytest.approx(0.03617, abs=5e-5)
    assert rel.p_value[0] == pytest.approx(expected, rel=REL)
    assert rel.reliable.tolist() == [True]
    assert rel.n_pairs.tolist() == [5]
    assert rel.reason.tolist() == [""]


def test_wilcoxon_drops_zero_differences_on_the_worked_example() -> None:
    # d2 = 60, 40, 5, 30, 0: the zero is dropped (Wilcoxon's method), 4 positive differences
    # remain, T+ = 1+2+3+4 = 10, the maximum.  Enumerating the 2^5 sign flips (the zero's sign
    # changes nothing), T+ >= 10 only when all four are positive: 2 of 32, p = 1/16.
    # So the default test does NOT find this worker reliable while the paired t does.
    rel = worker_reliability(worked_example())
    assert rel.test == "wilcoxon"
    assert rel.p_value[0] == pytest.approx(1 / 16, rel=REL)
    assert rel.reliable.tolist() == [False]


def test_wilcoxon_exact_enumeration_with_a_negative_difference() -> None:
    # d2 = 60, 40, 5, 30, -10: ranks of |d|: 5->1, 10->2, 30->3, 40->4, 60->5; T+ = 1+3+4+5 = 13.
    # Of the 32 subsets of {1..5} as positive ranks, sum >= 13 <=> the negative ranks sum <= 2:
    # {}, {1}, {2}: p = 3/32.
    b = Builder()
    b.bad_pairs(1, [(80, 20), (70, 30), (60, 55), (90, 60), (50, 60)])
    assert worker_reliability(b.build()).p_value[0] == pytest.approx(3 / 32, rel=REL)


def test_wilcoxon_exact_enumeration_with_tied_differences() -> None:
    # d2 = 10, 10, 20, 30, -10: |d| 10, 10, 10 tie for ranks 1-3 -> 2 each; 20 -> 4, 30 -> 5.
    # T+ = 2+2+4+5 = 13 of a total 15; T+ >= 13 <=> negative ranks sum <= 2: no negative, or
    # exactly one of the three rank-2 values negative: 1 + 3 = 4 of 32 sign vectors, p = 1/8.
    b = Builder()
    b.bad_pairs(1, [(60, 50), (70, 60), (80, 60), (90, 60), (40, 50)])
    rel = worker_reliability(b.build())
    assert rel.p_value[0] == pytest.approx(4 / 32, rel=REL)
    scipy_p = stats.wilcoxon([10, 10, 20, 30, -10], alternative="greater").pvalue
    assert rel.p_value[0] == pytest.approx(scipy_p, rel=REL)


def test_welch_2013_on_the_worked_example() -> None:
    # d2 = 60, 40, 5, 30, 0 (mean 27, s^2 620); d1 = 2, 5, 0, 3, 10 (mean 4; deviations
    # -2, 1, -4, -1, 6, squares sum 58, s^2 = 14.5).  se^2 = 620/5 + 14.5/5 = 124 + 2.9 = 126.9;
    # t = (27 - 4) / sqrt(126.9) = 2.0417;
    # df = 126.9^2 / (124^2/4 + 2.9^2/4) = 16103.61 / 3846.1025 = 4.1870.
    rel = worker_reliability(worked_example(), test="welch")
    t = 23 / math.sqrt(126.9)
    df = 126.9**2 / (124**2 / 4 + 2.9**2 / 4)
    assert rel.p_value[0] == pytest.approx(stats.t.sf(t, df), rel=1e-10)
    assert rel.n_pairs.tolist() == [10]


def test_mann_whitney_2013_on_the_worked_example() -> None:
    # U for d2 = {60, 40, 5, 30, 0} over d1 = {2, 5, 0, 3, 10} (ties count 1/2):
    # 60: 5, 40: 5, 5: 3 + 0.5, 30: 5, 0: 0.5  ->  U = 19;  mu = 5*5/2 = 12.5.
    # Ties in the pooled sample: 0 twice, 5 twice -> sum(t^3 - t) = 6 + 6 = 12, N = 10;
    # sigma = sqrt(25/12 * (11 - 12/90)) = 4.7580; with continuity correction
    # z = (19 - 12.5 - 0.5) / sigma = 1.2610.
    rel = worker_reliability(worked_example(), test="mann_whitney")
    z = 6 / math.sqrt(25 / 12 * (11 - 12 / 90))
    assert rel.p_value[0] == pytest.approx(stats.norm.sf(z), rel=1e-10)
    assert rel.p_value[0] == pytest.approx(0.10365, abs=5e-5)


def test_assumption_a_on_the_worked_example() -> None:
    # first - repeat = -2, 5, 0, -3, 10: mean 2; deviations -4, 3, -2, -5, 8, squares sum 118;
    # s^2 = 29.5; se = sqrt(29.5/5); t = 2 / sqrt(5.9) = 0.8234, df 4, two-sided.
    rel = worker_reliability(worked_example(), test="paired_t")
    expected = 2 * stats.t.sf(2 / math.sqrt(5.9), 4)
    assert rel.assumption_a_p[0] == pytest.approx(expected, rel=REL)
    assert rel.assumption_a_holds.tolist() == [True]
    assert rel.assumption_a_share == 1.0

    rel_w = worker_reliability(worked_example(), assumption_a_test="wilcoxon")
    # Wilcoxon two-sided on -2, 5, 0, -3, 10: zero dropped; ranks 2->1, 3->2, 5->3, 10->4;
    # T+ = 3 + 4 = 7 of 10.  Of the 16 subsets of {1, 2, 3, 4} as positive ranks, those with
    # sum >= 7 are {3,4}, {1,2,4}, {1,3,4}, {2,3,4}, {1,2,3,4}: P(T+ >= 7) = 5/16 < P(T+ <= 7),
    # so the two-sided p = 2 * 5/16 = 0.625.
    assert rel_w.assumption_a_p[0] == pytest.approx(0.625, rel=REL)


def test_assumption_a_fails_for_a_drifting_worker_and_share_counts_reliable_only() -> None:
    b = Builder()
    strong_bad = [(90, 20), (80, 30), (70, 10), (85, 25), (75, 5), (95, 35)]
    for w in (1, 2, 3):
        b.bad_pairs(w, strong_bad)  # all reliable: 6 positive differences, p = 1/64
    b.repeat_pairs(1, REPEATS)  # holds (p = 0.456 above)
    b.repeat_pairs(2, [(50, 40), (60, 48), (70, 61), (40, 29), (80, 70)])  # drifts by ~10
    b.repeat_pairs(3, [(50, 51), (60, 58), (70, 73), (40, 40), (80, 77)])
    b.bad_pairs(4, [(50, 60)] * 5)  # unreliable worker whose repeats drift: not counted
    b.repeat_pairs(4, [(50, 20), (60, 30), (70, 40), (40, 10), (80, 50)])
    rel = worker_reliability(b.build())
    assert rel.reliable.tolist() == [True, True, True, False]
    assert rel.p_value[0] == pytest.approx(1 / 64, rel=REL)
    # worker 2: first - repeat = 10, 12, 9, 11, 10: mean 10.4, s^2 = (0.16+2.56+1.96+0.36+0.16)/4
    # = 1.3; t = 10.4 / sqrt(1.3/5) = 20.40, df 4 -> p far below 0.05.
    assert rel.assumption_a_p[1] == pytest.approx(
        2 * stats.t.sf(10.4 / math.sqrt(0.26), 4), rel=REL
    )
    assert rel.assumption_a_holds.tolist() == [True, False, True, False]
    # Worker 4's constant drift of exactly 30 has sd 0: two-sided limit p = 0.
    assert rel.assumption_a_p[3] == 0.0
    assert rel.assumption_a_share == pytest.approx(2 / 3, rel=REL)


def test_too_few_pairs_gives_no_p_value_and_a_reason() -> None:
    b = Builder()
    b.bad_pairs(1, BAD[:4])
    b.repeat_pairs(1, REPEATS)
    b.add(2, "system", 40.0, system=0)  # a worker with no control pairs at all
    rel = worker_reliability(b.build())
    assert np.isnan(rel.p_value).all()
    assert rel.reliable.tolist() == [False, False]
    assert rel.reason[0] == "too few bad-reference pairs (4 < 5)"
    assert rel.reasons["welch"][0] == ("too few pairs: 4 bad-reference, 5 repeat (minimum 5 each)")
    assert not np.isnan(rel.assumption_a_p[0]) and np.isnan(rel.assumption_a_p[1])
    # With min_pairs=4 the same worker is tested: d2 = 60, 40, 5, 30 -> T+ = 10 of 10, p = 1/16.
    rel4 = worker_reliability(b.build(), min_pairs=4)
    assert rel4.p_value[0] == pytest.approx(1 / 16, rel=REL)
    qc = rel.records()
    assert qc[0].p_value is None and qc[0].n_bad_ref_pairs == 4 and qc[0].n_repeat_pairs == 5
    assert qc[1].assumption_a_holds is None and qc[1].n_judgments == 1


def test_a_worker_who_never_moves_the_slider() -> None:
    # Everything scored 50: every difference is zero and every value tied.  scipy would warn
    # and return NaN; each test is instead the limit/conditional value p = 1 (no evidence that
    # bad references score lower), so the worker is unreliable, with a reason.
    b = Builder()
    b.bad_pairs(1, [(50, 50)] * 6)
    b.repeat_pairs(1, [(50, 50)] * 6)
    rel = worker_reliability(b.build())
    for name in ("wilcoxon", "paired_t", "welch", "mann_whitney"):
        assert rel.p_values[name].tolist() == [1.0], name
    assert rel.reason[0] == "all bad-reference differences are zero"
    assert rel.reasons["mann_whitney"][0] == "all d1 and d2 differences tied"
    assert rel.reliable.tolist() == [False]
    assert rel.assumption_a_p.tolist() == [1.0] and rel.assumption_a_holds.tolist() == [True]


def test_constant_positive_differences() -> None:
    # Every bad reference exactly 10 lower: sd 0, t -> +inf, so the paired t limit is p = 0.
    # Wilcoxon: all |d| tie at average rank 3, all positive, T+ = 15; only the all-positive
    # sign vector reaches it: p = 1/32.
    b = Builder()
    b.bad_pairs(1, [(60, 50), (70, 60), (80, 70), (90, 80), (50, 40)])
    rel = worker_reliability(b.build())
    assert rel.p_values["paired_t"].tolist() == [0.0]
    assert rel.reasons["paired_t"][0] == "constant bad-reference differences (sd = 0)"
    assert rel.p_value[0] == pytest.approx(1 / 32, rel=REL)
    assert rel.reliable.tolist() == [True]


def test_mean_seconds_ignores_unknown_durations() -> None:
    b = Builder()
    b.add(1, "system", 50.0, system=0, seconds=10.0)
    b.add(1, "system", 60.0, system=0, seconds=20.0)
    b.add(1, "reference", 90.0)  # seconds unknown (NaN)
    b.add(2, "system", 60.0, system=0)
    rel = worker_reliability(b.build())
    assert rel.mean_seconds[0] == 15.0 and np.isnan(rel.mean_seconds[1])
    assert rel.records()[1].mean_seconds is None


def test_invalid_reliability_arguments() -> None:
    j = worked_example()
    with pytest.raises(ValueError, match="test must be one of"):
        worker_reliability(j, test="sign")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_pairs"):
        worker_reliability(j, min_pairs=1)
    with pytest.raises(ValueError, match="alpha"):
        worker_reliability(j, alpha=1.5)


def test_batched_tests_equal_scipy_on_each_worker_alone() -> None:
    """Batching by sample size must not change any worker's p-value."""
    rng = np.random.default_rng(3)
    b = Builder()
    # Sizes cover the exact enumeration (<= 13), scipy exact (14-50, no ties), scipy normal
    # approximation (ties, or > 50); integer scores create ties and zero differences.
    # (scipy's own path for small samples with ties is slow, ~0.1 s a call: keep those few.)
    sizes = [5, 8, 11, 14, 20, 20, 35, 60, 25, 60, 9]
    rounded = [True, True, True, False, False, True, False, False, True, True, False]
    for w, (n, rnd) in enumerate(zip(sizes, rounded, strict=True)):
        orig = rng.uniform(40, 90, n)
        bad = orig - rng.normal(8, 15, n)
        first = rng.uniform(20, 90, n + 1)
        again = first + rng.normal(1, 6, n + 1)
        if rnd:
            orig, bad, first, again = (np.round(x / 5) * 5 for x in (orig, bad, first, again))
        clip = (np.clip(x, 0, 100) for x in (orig, bad, first, again))
        orig, bad, first, again = clip
        b.bad_pairs(w, list(zip(orig, bad, strict=True)))
        b.repeat_pairs(w, list(zip(first, again, strict=True)))
    j = b.build()
    rel = worker_reliability(j, min_pairs=2)
    rel_a_w = worker_reliability(j, min_pairs=2, assumption_a_test="wilcoxon")
    bad_pairs = j.control_pairs(Role.BAD_REFERENCE)
    rep_pairs = j.control_pairs(Role.REPEAT)
    for w in range(len(sizes)):
        mb, mr = bad_pairs.worker == w, rep_pairs.worker == w
        o, c = bad_pairs.original[mb], bad_pairs.control[mb]
        f, a = rep_pairs.original[mr], rep_pairs.control[mr]
        d2, d1 = o - c, np.abs(f - a)
        expected = {
            "wilcoxon": stats.wilcoxon(d2, alternative="greater").pvalue,
            "paired_t": stats.ttest_rel(o, c, alternative="greater").pvalue,
            "welch": stats.ttest_ind(d2, d1, equal_var=False, alternative="greater").pvalue,
            "mann_whitney": stats.mannwhitneyu(d2, d1, alternative="greater").pvalue,
        }
        for name, p in expected.items():
            assert rel.p_values[name][w] == pytest.approx(p, rel=1e-9, abs=1e-15), (w, name)
        assert rel.assumption_a_p[w] == pytest.approx(stats.ttest_rel(f, a).pvalue, rel=1e-9)
        assert rel_a_w.assumption_a_p[w] == pytest.approx(stats.wilcoxon(f - a).pvalue, rel=1e-9), w


# ------------------------------------------------------------------------------ z-scores
def test_z_scores_use_each_workers_own_mean_and_sample_sd() -> None:
    # Worker 1: 20, 40, 60, 80 -> mean 50, deviations -30, -10, 10, 30, squares sum 2000,
    # sample sd sqrt(2000/3) = 25.820 -> z = -1.1619, -0.3873, 0.3873, 1.1619.
    # Worker 2 scores 30 three times (sd 0) and worker 3 once: z = 0 for both.
    b = Builder()
    for s in (20, 40, 60, 80):
        b.add(1, "system", s, system=0)
    for _ in range(3):
        b.add(2, "system", 30.0, system=0)
    b.add(3, "system", 70.0, system=0)
    j = b.build()
    zs = standardize(j)
    sd = math.sqrt(2000 / 3)
    assert zs.z[:4] == pytest.approx([-30 / sd, -10 / sd, 10 / sd, 30 / sd], rel=REL)
    assert zs.z[4:].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert zs.mean.tolist() == [50.0, 30.0, 70.0]
    assert zs.sd[0] == pytest.approx(sd, rel=REL) and zs.sd[1] == 0.0 and np.isnan(zs.sd[2])
    # Population sd (ddof = 0): sqrt(2000/4) = 22.361 -> z = -1.3416, ...
    z0 = standardize(j, ddof=0).z
    assert z0[:4] == pytest.approx(np.array([-30, -10, 10, 30]) / math.sqrt(500), rel=REL)
    assert z0[7] == 0.0  # a single score has population sd 0


def test_constant_scores_give_exact_zero_even_when_the_float_mean_is_inexact() -> None:
    # 0.1 * 3 / 3 != 0.1 in floating point; a naive sd would be ~1e-17 and z ~ +-1.
    b = Builder()
    for _ in range(3):
        b.add(1, "system", 0.1, system=0)
    assert standardize(b.build()).z.tolist() == [0.0, 0.0, 0.0]


def test_z_scores_can_leave_references_out_of_mean_and_sd() -> None:
    # 40 (output), 60 (output), 100 (reference).
    # All three: mean 66.667, deviations -26.667, -6.667, 33.333, squares sum 1866.67,
    # sd sqrt(933.33) = 30.551.
    # Without the reference (2014 footnote 4): mean 50, sd sqrt(200) = 14.142, and the
    # reference is still standardised with them: (100 - 50) / 14.142 = 3.5355.
    b = Builder()
    b.add(1, "system", 40.0, system=0)
    b.add(1, "system", 60.0, system=0)
    b.add(1, "reference", 100.0)
    j = b.build()
    mean, sd = 200 / 3, math.sqrt(((80 / 3) ** 2 + (20 / 3) ** 2 + (100 / 3) ** 2) / 2)
    assert standardize(j).z == pytest.approx((np.array([40, 60, 100]) - mean) / sd, rel=REL)
    ex = standardize(j, exclude_references=True).z
    assert ex == pytest.approx(np.array([-10, 10, 50]) / math.sqrt(200), rel=REL)


# ------------------------------------------------------------------------------ systems
def test_system_scores_count_outputs_and_repeats_only() -> None:
    # Worker 1: system 7 output 80, system 3 output 40, repeat of the system-7 output 70,
    # a bad reference 10, a reference 90.  Mean 58, deviations 22, -18, 12, -48, 32,
    # squares sum 4280, sd sqrt(1070).  Worker 2: 60 for both systems (sd 0, z 0).
    # System 7: scores 80, 70, 60 -> mean 70; z (22 + 12)/sqrt(1070)/3 over n = 3.
    # System 3: scores 40, 60 -> mean 50; z -18/sqrt(1070)/2 over n = 2.
    b = Builder()
    s = b.add(1, "system", 80.0, system=7)
    b.add(1, "system", 40.0, system=3)
    b.add(1, "repeat", 70.0, system=7, pair=s)
    b.add(1, "bad_reference", 10.0, pair=s)
    b.add(1, "reference", 90.0)
    b.add(2, "system", 60.0, system=7)
    b.add(2, "system", 60.0, system=3)
    j = b.build()
    z = standardize(j)
    sd = math.sqrt(1070)
    scores = system_scores(j, z)
    assert scores.system.tolist() == [7, 3]  # best mean z first
    assert scores.n.tolist() == [3, 2]
    assert scores.mean_score == pytest.approx([70.0, 50.0], rel=REL)
    assert scores.mean_z == pytest.approx([34 / sd / 3, -18 / sd / 2], rel=REL)
    # Worker 1 only (the mask is aligned to j.workers == [1, 2]).
    only1 = system_scores(j, z, include_workers=np.array([True, False]))
    assert only1.n.tolist() == [2, 1]
    assert only1.mean_score == pytest.approx([75.0, 40.0], rel=REL)
    assert only1.mean_z == pytest.approx([34 / sd / 2, -18 / sd], rel=REL)
    samples = system_samples(j, z.z, scores.system)
    assert samples[0] == pytest.approx([22 / sd, 12 / sd, 0.0], rel=REL)
    assert samples[1] == pytest.approx([-18 / sd, 0.0], rel=REL)
    with pytest.raises(ValueError, match="include_workers"):
        system_scores(j, z, include_workers=np.array([True]))


def test_system_ties_are_ordered_by_id() -> None:
    b = Builder()
    b.add(1, "system", 50.0, system=9)
    b.add(1, "system", 50.0, system=4)
    j = b.build()
    assert system_scores(j, standardize(j)).system.tolist() == [4, 9]


# ------------------------------------------------------------------------------ agreement
def test_kappa_reproduces_the_2013_tables() -> None:
    # Pr(e) = 1/k reproduces Graham et al. 2013 Table 2 (continuous, unfiltered) and Table 3.
    assert kappa_coefficient(0.597, 1 / 5) == pytest.approx(0.496, abs=5e-4)
    assert kappa_coefficient(0.646, 1 / 4) == pytest.approx(0.528, abs=5e-4)
    assert kappa_coefficient(0.852, 1 / 2) == pytest.approx(0.704, abs=5e-4)
    assert kappa_coefficient(0.718, 1 / 5) == pytest.approx(0.647, abs=5e-4)  # filtered
    assert kappa_coefficient(0.302, 1 / 5) == pytest.approx(0.1272, abs=5e-4)  # Table 3
    assert math.isnan(kappa_coefficient(0.5, 1.0))


def test_category_mappings() -> None:
    assert equal_width_categories([0, 19.9, 20, 50, 79.9, 80, 100], 5).tolist() == [
        0,
        0,
        1,
        2,
        3,
        4,
        4,
    ]
    assert equal_width_categories([0, 49.9, 50, 100], 2).tolist() == [0, 0, 1, 1]
    assert equal_width_categories([24.9, 25, 75, 100], 4).tolist() == [0, 1, 3, 3]
    # Quintile edges of 1..10 (linear interpolation at 9q): 2.8, 4.6, 6.4, 8.2.
    ref = np.arange(1, 11)
    assert percentile_categories(ref, 5, ref).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_same_judge_agreement_by_hand() -> None:
    # Repeat pairs (10, 15), (50, 45), (90, 70), (35, 41): |d| = 5, 5, 20, 6, mean 9;
    # deviations -4, -4, 11, -3, squares 162, sd sqrt(162/3) = 7.348.
    # 5 categories: (0,0) agree, (2,2) agree, (4,3) no, (1,2) no -> Pr(a) = 0.5,
    #   kappa = (0.5 - 0.2) / 0.8 = 0.375.
    # 4 categories: (0,0) yes, (2,1) no, (3,2) no, (1,1) yes -> 0.5, kappa = 0.25/0.75 = 1/3.
    # 2 categories: (0,0) yes, (1,0) no, (1,1) yes, (0,0) yes -> 0.75, kappa = 0.5.
    b = Builder()
    b.repeat_pairs(1, [(10, 15), (50, 45), (90, 70), (35, 41)])
    result = agreement(b.build()).same_judge
    assert result.n_pairs == 4
    assert result.mean_abs_diff == pytest.approx(9.0, rel=REL)
    assert result.sd_abs_diff == pytest.approx(math.sqrt(54), rel=REL)
    assert (result.kappa(5).pr_a, result.kappa(5).kappa) == pytest.approx((0.5, 0.375), rel=REL)
    assert result.kappa(4).kappa == pytest.approx(1 / 3, rel=REL)
    assert (result.kappa(2).pr_a, result.kappa(2).kappa) == pytest.approx((0.75, 0.5), rel=REL)
    # Pooled chance: the 8 categories (5 bins) are 0,0,2,2,4,3,1,2 -> p = 2/8, 1/8, 3/8, 1/8,
    # 1/8; Pr(e) = (4 + 1 + 9 + 1 + 1)/64 = 0.25; kappa = (0.5 - 0.25)/0.75 = 1/3.
    pooled = agreement(b.build(), chance="pooled").same_judge.kappa(5)
    assert (pooled.pr_e, pooled.kappa) == pytest.approx((0.25, 1 / 3), rel=REL)
    # No distinct-judge pairs: one worker only.
    assert agreement(b.build()).distinct_judges.n_pairs == 0


def test_distinct_judge_agreement_by_hand() -> None:
    # Output 1 scored by workers A, B, C: 20, 30, 60 -> pairs |10|, |40|, |30|.
    # Output 2 scored by A, B: 80, 75 -> |5|.  Worker A met output 2 again in a second HIT
    # (score 10): only the first judgment per (worker, output) counts.
    # 4 pairs: mean 85/4 = 21.25; deviations -11.25, 18.75, 8.75, -16.25,
    # squares 818.75, sd sqrt(818.75/3) = 16.52.
    # 5 categories: output 1 -> 1, 1, 3 (one agreeing pair of three); output 2 -> 4, 3 (none):
    # Pr(a) = 1/4, kappa = (0.25 - 0.2)/0.8 = 0.0625.
    b = Builder()
    b.add(1, "system", 20.0, system=0, item=1)
    b.add(1, "system", 80.0, system=0, item=2)
    b.add(1, "system", 10.0, system=0, item=2, assignment=99)
    b.add(2, "system", 30.0, system=0, item=1)
    b.add(2, "system", 75.0, system=0, item=2)
    b.add(3, "system", 60.0, system=0, item=1)
    result = agreement(b.build()).distinct_judges
    assert result.n_pairs == 4
    assert result.mean_abs_diff == pytest.approx(21.25, rel=REL)
    assert result.sd_abs_diff == pytest.approx(math.sqrt(818.75 / 3), rel=REL)
    assert result.kappa(5).pr_a == pytest.approx(0.25, rel=REL)
    assert result.kappa(5).kappa == pytest.approx(0.0625, rel=REL)
    # Filtered to workers A and B: one pair per output, |10| and |5|.
    ab = agreement(b.build(), include_workers=np.array([True, True, False])).distinct_judges
    assert (ab.n_pairs, ab.mean_abs_diff) == (2, 7.5)


@pytest.mark.parametrize("whole", [True, False], ids=["whole scores", "fractional scores"])
def test_distinct_judge_closed_form_equals_enumerating_pairs(whole: bool) -> None:
    # Whole scores take the 8-bit sort of the scores, fractional ones the float sort.
    rng = np.random.default_rng(11)
    b = Builder()
    n_workers, n_items = 12, 15
    for w in range(n_workers):
        for item in rng.choice(n_items, size=6, replace=False):
            score = float(rng.integers(0, 101)) if whole else float(rng.integers(0, 41)) * 2.5
            b.add(w, "system", score, system=0, item=int(item))
    j = b.build()
    z = standardize(j)
    got = agreement(j, z, chance="pooled").distinct_judges
    # Brute force: list every pair of rows with the same item and different workers.
    i, k = np.triu_indices(len(j), 1)
    same = (j.item[i] == j.item[k]) & (j.worker[i] != j.worker[k])
    i, k = i[same], k[same]
    d = np.abs(j.score[i] - j.score[k])
    assert got.n_pairs == d.size
    assert got.mean_abs_diff == pytest.approx(d.mean(), rel=1e-12)
    assert got.sd_abs_diff == pytest.approx(d.std(ddof=1), rel=1e-10)
    for kappa in got.kappas:
        if kappa.binning == "equal_width":
            cats = equal_width_categories(j.score, kappa.categories)
        else:
            cats = percentile_categories(z.z, kappa.categories, z.z)
        assert kappa.pr_a == pytest.approx(np.mean(cats[i] == cats[k]), rel=1e-12)
        pooled = np.bincount(np.concatenate([cats[i], cats[k]]), minlength=kappa.categories)
        p = pooled / pooled.sum()
        assert kappa.pr_e == pytest.approx(np.sum(p * p), rel=1e-12)


# ------------------------------------------------------------------------------ calibration
def test_calibrated_gain_reproduces_2014_table_3() -> None:
    # Fluency: CURR07 64.1, CURR12 58.2 -> delta 5.9; BEST07 53.5, BEST12 58.0 -> +4.5;
    # gain 10.4.  Adequacy: 65.0 - 56.7 = 8.3; 56.0 - 54.0 = 2.0; gain 10.3.
    gain, delta = calibrated_gain(58.0, 53.5, benchmark_on_old=64.1, benchmark_on_new=58.2)
    assert (gain, delta) == pytest.approx((10.4, 5.9), abs=1e-9)
    gain, delta = calibrated_gain(56.0, 54.0, benchmark_on_old=65.0, benchmark_on_new=56.7)
    assert (gain, delta) == pytest.approx((10.3, 8.3), abs=1e-9)


# ------------------------------------------------------------------------------ pipeline
def test_analyse_campaign_filters_unreliable_workers_unless_asked() -> None:
    b = Builder()
    strong_bad = [(90, 20), (80, 30), (70, 10), (85, 25), (75, 5)]
    b.bad_pairs(1, strong_bad, system=1)  # reliable: p = 1/32
    b.add(1, "system", 30.0, system=2)
    b.bad_pairs(2, [(50, 60)] * 5, system=2)  # unreliable: bad refs score higher
    j = b.build()
    report = analyse_campaign(j)
    assert report.reliability.reliable.tolist() == [True, False]
    assert report.included_workers.tolist() == [True, False]
    assert report.systems.n.tolist() == [5, 1]  # worker 1's outputs only
    everyone = analyse_campaign(j, DAConfig(include_unreliable=True))
    # Worker 2's outputs (50, below their mean) now count for system 2 as well.
    assert everyone.systems.system.tolist() == [1, 2]
    assert everyone.systems.n.tolist() == [5, 6]
    assert report.p_greater.shape == (2, 2) and report.clusters.shape == (2,)
    assert report.n_unmatched_controls == 0


def test_empty_campaign() -> None:
    j = DAJudgments(
        worker=[],
        assignment=[],
        slot=[],
        role=[],
        system=[],
        item=[],
        pair_slot=[],
        score=[],
        seconds=[],
    )
    report = analyse_campaign(j)
    assert len(report.systems) == 0 and report.reliability.records() == []
    assert math.isnan(report.reliability.assumption_a_share)
    assert report.agreement_all.same_judge.n_pairs == 0


# ------------------------------------------------------------------ WMT's scores (issue 12)
def _given_z_judgments(rows: list[tuple[int, int, int, float]]) -> DAJudgments:
    """(worker, system, item, z) system-output rows whose z-scores are given (imports), so
    the z that the statistics see is exactly the one written here."""
    n = len(rows)
    return DAJudgments(
        worker=[r[0] for r in rows],
        assignment=[r[0] for r in rows],
        slot=list(range(1, n + 1)),
        role=["system"] * n,
        system=[r[1] for r in rows],
        item=[r[2] for r in rows],
        pair_slot=[-1] * n,
        score=[np.nan] * n,
        seconds=[np.nan] * n,
        given_z=[r[3] for r in rows],
    )


def test_ave_raw_and_ave_z_average_segments_first_unlike_the_flat_mean() -> None:
    # System 1: segment (output) 101 judged three times: worker 1 gives 90 and, on its
    # repeat, 80; worker 2 gives 70: segment mean 80. Segment 102 judged once: 20. A bad
    # reference (5) and a reference (100) of worker 1 are QC items and never count.
    # WMT's Ave raw = (80 + 20) / 2 = 50; the flat mean = (90 + 80 + 70 + 20) / 4 = 65.
    # System 2: segments 201 (60) and 202 (40) judged once each: 50 either way.
    b = Builder()
    s = b.add(1, "system", 90.0, system=1, item=101)
    b.add(1, "repeat", 80.0, system=1, item=101, pair=s)
    b.add(1, "bad_reference", 5.0, item=101, pair=s)
    b.add(1, "reference", 100.0)
    b.add(1, "system", 20.0, system=1, item=102)
    b.add(2, "system", 70.0, system=1, item=101)
    b.add(2, "system", 60.0, system=2, item=201)
    b.add(2, "system", 40.0, system=2, item=202)
    j = b.build()
    z = j.score / 10.0  # any per-row z: averaged exactly like the raw scores
    wmt = system_scores(j, z)
    assert wmt.system.tolist() == [1, 2]  # Ave z 5.0 = 5.0: ties go to the lower id
    assert wmt.n.tolist() == [4, 2] and wmt.n_segments.tolist() == [2, 2]
    assert wmt.mean_score.tolist() == [50.0, 50.0]
    assert wmt.mean_z == pytest.approx([5.0, 5.0], rel=REL)
    flat = system_scores(j, z, averaging="judgments")
    assert flat.system.tolist() == [1, 2]
    assert flat.mean_score.tolist() == [65.0, 50.0]
    assert flat.mean_z == pytest.approx([6.5, 5.0], rel=REL)
    assert (flat.n.tolist(), flat.n_segments.tolist()) == ([4, 2], [2, 2])
    with pytest.raises(ValueError, match="averaging"):
        system_scores(j, z, averaging="systems")  # type: ignore[arg-type]


def test_the_significance_test_compares_segment_mean_z_one_sided() -> None:
    # System 1: segments 11 (z 3.0), 12 (2.0), 13 (judged twice: 1.0 and 2.0, mean 1.5).
    # System 2: segments 21 (1.0), 22 (0.5). Segment means: {3, 2, 1.5} all above {1, 0.5}:
    # U = 6, the largest of the C(5, 2) = 10 equally likely rank splits: p = 1/10 exactly;
    # the other way U = 0, p = 1.
    j = _given_z_judgments(
        [
            (1, 1, 11, 3.0),
            (1, 1, 12, 2.0),
            (1, 1, 13, 1.0),
            (2, 1, 13, 2.0),
            (2, 2, 21, 1.0),
            (1, 2, 22, 0.5),
        ]
    )
    report = analyse_campaign(j, DAConfig(include_unreliable=True))
    assert report.systems.system.tolist() == [1, 2]
    assert report.systems.mean_z == pytest.approx([6.5 / 3, 0.75], rel=REL)
    assert report.p_greater[0, 1] == pytest.approx(1 / 10, rel=REL)
    assert report.p_greater[1, 0] == pytest.approx(1.0, rel=REL)
    assert report.p_greater[0, 1] == pytest.approx(
        stats.mannwhitneyu([3.0, 2.0, 1.5], [1.0, 0.5], alternative="greater").pvalue, rel=REL
    )
    # Per judgment (the option): {3, 2, 1, 2} against {1, 0.5} has ties (1 twice, 2 twice),
    # so scipy uses its tie-corrected normal approximation.
    per_judgment = analyse_campaign(
        j, DAConfig(include_unreliable=True, significance_unit="judgments")
    )
    assert per_judgment.p_greater[0, 1] == pytest.approx(
        stats.mannwhitneyu([3.0, 2.0, 1.0, 2.0], [1.0, 0.5], alternative="greater").pvalue,
        rel=REL,
    )
    # U by hand: 3 and 2 and 2 beat both (2 each = 6), 1 beats 0.5 and ties 1 (1.5): 7.5 of
    # 8; mu = 4, ties {1, 1} and {2, 2}: sigma^2 = 8/12 * (7 - (6 + 6) / 30) = 4.4, and
    # p = P(Z > (7.5 - 4 - 0.5) / sqrt(4.4)).
    assert per_judgment.p_greater[0, 1] == pytest.approx(
        stats.norm.sf(3 / math.sqrt(4.4)), rel=1e-9
    )
    samples = system_samples(j, j.given_z, np.array([1, 2]))
    assert [s.tolist() for s in samples] == [[3.0, 2.0, 1.5], [1.0, 0.5]]


def test_score_spread_is_each_workers_sample_sd_over_every_role() -> None:
    from analytics.stats.direct_assessment.effort import score_spread

    # Worker 1: 70 everywhere (system, bad reference, reference): sd exactly 0.  Worker 2:
    # 69, 71 (sd sqrt(2)), worker 3 one score (no sd), worker 4 given z only (no raw score).
    b = Builder()
    s = b.add(1, "system", 70.0, system=1)
    b.add(1, "bad_reference", 70.0, pair=s)
    b.add(1, "reference", 70.0)
    b.add(2, "system", 69.0, system=1)
    b.add(2, "system", 71.0, system=1)
    b.add(3, "system", 50.0, system=1)
    spread = score_spread(b.build())
    assert spread.n.tolist() == [3, 2, 1]
    assert spread.sd[:2].tolist() == [0.0, pytest.approx(math.sqrt(2), rel=REL)]
    assert math.isnan(spread.sd[2])
    assert spread.mean.tolist() == [70.0, 70.0, 50.0]
    given = score_spread(_given_z_judgments([(4, 1, 1, 0.5), (4, 1, 2, -0.5)]))
    assert given.n.tolist() == [0] and math.isnan(given.sd[0])


@pytest.mark.parametrize("scale", [1.0, 0.5, 1e-3], ids=["whole", "halves", "fractions"])
def test_tie_flags_equal_a_brute_force_for_whole_and_fractional_values(scale: float) -> None:
    # Whole numbers take one sorted int64 key per (group, value); other values the lexsort.
    from analytics.stats.direct_assessment._groups import Grouped

    rng = np.random.default_rng(5)
    group = rng.integers(0, 40, 600)
    values = rng.integers(-100, 101, 600) * scale
    grouped = Grouped.build(values, group, 41)  # group 40 is empty
    expected = [
        len(set(values[group == g].tolist())) < np.count_nonzero(group == g) for g in range(41)
    ]
    assert grouped.has_ties().tolist() == expected
    assert any(expected) and not all(expected)


def test_int32_ids_are_taken_as_they_are_and_pair_across_the_int32_range() -> None:
    # A loader hands int32 ids (read-only) when they fit: no copy, and the pair keys, built
    # from assignment and slot offsets, are computed in int64 (their product is past int32).
    big = np.iinfo(np.int32).max - 10
    columns = {
        "worker": np.array([7, 7, 8, 8], dtype=np.int32),
        "assignment": np.array([1, 1, big, big], dtype=np.int32),
        "slot": np.array([5, 6, big - 1, big], dtype=np.int32),
        "system": np.array([3, -1, 3, -1], dtype=np.int32),
        "item": np.array([11, 11, 12, 12], dtype=np.int32),
        "pair_slot": np.array([-1, 5, -1, big - 1], dtype=np.int32),
    }
    for column in columns.values():
        column.setflags(write=False)
    j = DAJudgments(
        **columns,
        role=["system", "bad_reference", "system", "bad_reference"],
        score=[80.0, 20.0, 60.0, 50.0],
        seconds=[1.0, 2.0, 3.0, 4.0],
    )
    for name, column in columns.items():
        assert getattr(j, name) is column, name
    assert j.partner.tolist() == [-1, 0, -1, 2]
    pairs = j.control_pairs(Role.BAD_REFERENCE)
    assert pairs.original.tolist() == [80.0, 60.0] and pairs.control.tolist() == [20.0, 50.0]


def test_reliability_of_a_subset_retests_only_the_workers_who_lost_rows() -> None:
    from analytics.stats.direct_assessment.reliability import reliability_of_subset

    rng = np.random.default_rng(8)
    b = Builder()
    for w in range(6):
        for a in range(3):  # three assignments per worker
            pairs = [(float(rng.integers(40, 101)), float(rng.integers(0, 90))) for _ in range(6)]
            for original, bad in pairs:
                s = b.add(w, "system", original, system=0, assignment=10 * w + a)
                b.add(w, "bad_reference", bad, pair=s, assignment=10 * w + a)
    j = b.build()
    whole = worker_reliability(j, min_pairs=5)
    # Worker 1 loses one assignment (then has 12 pairs), worker 4 all of them (gone).
    rows = ~np.isin(j.assignment, [11, 40, 41, 42])
    sub = j.subset(rows)
    unchanged = ~np.isin(sub.workers, [1])
    got = reliability_of_subset(whole, sub, unchanged, min_pairs=5)
    expected = worker_reliability(sub, min_pairs=5)
    assert got.workers.tolist() == [0, 1, 2, 3, 5]
    assert got.n_bad_ref_pairs.tolist() == [18, 12, 18, 18, 18]
    for name in ("p_value", "reliable", "n_bad_ref_pairs", "n_judgments", "assumption_a_p"):
        assert np.array_equal(getattr(got, name), getattr(expected, name), equal_nan=True), name
    for test_name in expected.p_values:
        assert np.array_equal(
            got.p_values[test_name], expected.p_values[test_name], equal_nan=True
        ), test_name
        assert got.reasons[test_name].tolist() == expected.reasons[test_name].tolist()
    # Worker 1's result is a new test of its 12 pairs, not the 18 pairs' result.
    assert got.p_value[1] != whole.p_value[1]
    with pytest.raises(ValueError, match="other settings"):
        reliability_of_subset(whole, sub, unchanged, min_pairs=6)
