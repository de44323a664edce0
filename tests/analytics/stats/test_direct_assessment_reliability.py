"""Direct-assessment input and per-worker reliability checked against numbers worked by hand:
DAJudgments (slot roles, control pairs within an assignment, validation) and the quality
control tests of bad references and repeats (paired t, Wilcoxon, Welch, Mann-Whitney,
Assumption A) on a worked example.

Expected p-values are computed independently of the code under test: from a hand-computed
statistic through scipy's distributions (t.sf, norm.sf) or by exact enumeration written out in
the comments.  Graham et al. 2013 (LAW) and 2014 (EACL) give the definitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analytics.stats.direct_assessment import DAJudgments, Role, worker_reliability
from tests.analytics.stats.direct_assessment_support import REL, Builder

# Any warning (scipy dividing by zero on degenerate samples, ...) is a failure.
# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


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
