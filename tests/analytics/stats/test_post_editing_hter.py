"""Verification majority, segment HTER, system HTER (corpus vs mean), bootstrap, significance.

Hand-worked example used below (edits / reference words of each edit, hypothesis = MT output):

    output   TER vs reference   edits (passed?)                            segment HTER
    A / 10   5/10               e0 2/8 yes, e1 1/10 yes, e2 0/9 no         e1: 1/10 = 0.1
    A / 11   6/20               e3 3/12 no,  e4 4/16 no                    ref: 6/20 = 0.3
    B / 10   8/10               e5 2/10 yes, e6 3/15 yes (both 0.2)        e5 (fewer edits): 0.2
    B / 11   4/20               e7 1/4 yes                                 e7: 1/4 = 0.25

    A: corpus (1 + 6) / (10 + 20) = 7/30 = 0.2333, mean (0.1 + 0.3) / 2 = 0.2
    B: corpus (2 + 1) / (10 + 4)  = 3/14 = 0.2143, mean (0.2 + 0.25) / 2 = 0.225

Corpus-level says B is better, the mean of segment HTER says A: a long segment (A / 11) weighs
more in the corpus score.  B / 11 keeps its passed edit (0.25) although the reference is closer
(0.2): 000 falls back to the reference only when no edit passed.
"""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.post_editing import (
    Outputs,
    PostEdits,
    segment_hter,
    system_hter,
    verify_edits,
)
from analytics.stats.significance import pairwise_rank_sum

A, B = 1, 2


def example() -> tuple[Outputs, PostEdits]:
    outputs = Outputs(
        system=[A, A, B, B], segment=[10, 11, 10, 11], ref_edits=[5, 6, 8, 4],
        ref_length=[10, 20, 10, 20],
    )  # fmt: skip
    edits = PostEdits(
        system=[A, A, A, A, A, B, B, B],
        segment=[10, 10, 10, 11, 11, 10, 10, 11],
        edits=[2, 1, 0, 3, 4, 2, 3, 1],
        ref_length=[8, 10, 9, 12, 16, 10, 15, 4],
        passed=[True, True, False, False, False, True, True, True],
    )
    return outputs, edits


# --------------------------------------------------------------------------- verification
def test_majority_of_verifiers_with_ties_failing_by_default() -> None:
    # edit 0: yes/yes, yes/yes           -> 2 yes 0 no: passes
    # edit 1: yes/yes, yes/no, yes/yes   -> 2 yes 1 no: passes
    # edit 2: yes/no, no/yes, yes/yes    -> 1 yes 2 no: fails (a vote needs both yes)
    # edit 3: yes/yes, no/no             -> 1 yes 1 no: a tie, fails by default
    # edit 4: no votes                   -> never passes
    edit = [0, 0, 1, 1, 1, 2, 2, 2, 3, 3]
    meaning = [1, 1, 1, 1, 1, 1, 0, 1, 1, 0]
    fluent = [1, 1, 1, 0, 1, 0, 1, 1, 1, 0]
    out = verify_edits(edit, meaning, fluent, n_edits=5)
    np.testing.assert_array_equal(out.yes, [2, 2, 1, 1, 0])
    np.testing.assert_array_equal(out.no, [0, 1, 2, 1, 0])
    np.testing.assert_array_equal(out.passed, [True, True, False, False, False])
    np.testing.assert_array_equal(out.verified, [True, True, True, True, False])
    ties = verify_edits(edit, meaning, fluent, n_edits=5, tie_passes=True)
    np.testing.assert_array_equal(ties.passed, [True, True, False, True, False])


def test_verification_rejects_unknown_edit_positions() -> None:
    with pytest.raises(ValueError, match="0..1"):
        verify_edits([2], [1], [1], n_edits=2)


# --------------------------------------------------------------------------- segment HTER
def test_segment_hter_of_the_hand_worked_example() -> None:
    seg = segment_hter(*example())
    np.testing.assert_array_equal(seg.chosen, [1, -1, 5, 7])
    np.testing.assert_array_equal(seg.edits, [1, 6, 2, 1])
    np.testing.assert_array_equal(seg.ref_length, [10, 20, 10, 4])
    np.testing.assert_allclose(seg.hter, [0.1, 0.3, 0.2, 0.25], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(seg.from_reference, [False, True, False, False])
    np.testing.assert_array_equal(seg.n_edits, [3, 2, 2, 1])
    np.testing.assert_array_equal(seg.n_passed, [2, 0, 2, 1])


def test_every_edit_failing_falls_back_to_the_reference() -> None:
    outputs, edits = example()
    none = PostEdits(edits.system, edits.segment, edits.edits, edits.ref_length, [False] * 8)
    seg = segment_hter(outputs, none)
    np.testing.assert_allclose(seg.hter, [0.5, 0.3, 0.8, 0.2], rtol=0, atol=1e-15)
    assert seg.from_reference.all()


def test_an_edit_of_an_unknown_output_is_an_error() -> None:
    outputs, _ = example()
    stray = PostEdits(system=[A], segment=[99], edits=[1], ref_length=[5], passed=[True])
    with pytest.raises(ValueError, match="segment 99"):
        segment_hter(outputs, stray)


# --------------------------------------------------------------------------- system HTER
def test_corpus_and_mean_hter_differ_on_the_hand_worked_example() -> None:
    result = system_hter(segment_hter(*example()), n_samples=200, seed=1)
    np.testing.assert_array_equal(result.systems, [A, B])
    np.testing.assert_allclose(result.corpus, [7 / 30, 3 / 14], rtol=1e-15)
    np.testing.assert_allclose(result.mean, [0.2, 0.225], rtol=1e-15)
    np.testing.assert_array_equal(result.edits, [7, 3])
    np.testing.assert_array_equal(result.ref_length, [30, 14])
    np.testing.assert_array_equal(result.n_segments, [2, 2])


def test_bootstrap_intervals_over_two_segments_by_hand() -> None:
    # A replicate draws two of the two segments: {10, 10} (probability 1/4), {10, 11} (1/2)
    # or {11, 11} (1/4).  A's corpus HTER is then 2/20 = 0.1, 7/30 or 12/40 = 0.3, so with
    # 1000 replicates the 2.5% and 97.5% quantiles are the extremes 0.1 and 0.3; B's are
    # 4/20 = 0.2 and 2/8 = 0.25.  Means: A 0.1 .. 0.3, B 0.2 .. 0.25.
    result = system_hter(segment_hter(*example()), n_samples=1000, seed=3)
    np.testing.assert_allclose(result.corpus_ci_low, [0.1, 0.2], rtol=1e-12)
    np.testing.assert_allclose(result.corpus_ci_high, [0.3, 0.25], rtol=1e-12)
    np.testing.assert_allclose(result.mean_ci_low, [0.1, 0.2], rtol=1e-12)
    np.testing.assert_allclose(result.mean_ci_high, [0.3, 0.25], rtol=1e-12)


def random_segments(seed: int) -> Outputs:
    rng = np.random.default_rng(seed)
    n = 40
    return Outputs(
        system=np.repeat([0, 1, 2], n),
        segment=np.tile(np.arange(n), 3),
        ref_edits=rng.integers(0, 12, size=3 * n),
        ref_length=rng.integers(8, 30, size=3 * n),
    )


def test_bootstrap_is_deterministic_with_a_seed() -> None:
    outputs = random_segments(5)
    no_edits = PostEdits([], [], [], [], [])
    seg = segment_hter(outputs, no_edits)
    first = system_hter(seg, n_samples=300, seed=42)
    again = system_hter(seg, n_samples=300, seed=42)
    other = system_hter(seg, n_samples=300, seed=43)
    for name in ("corpus_ci_low", "corpus_ci_high", "mean_ci_low", "mean_ci_high"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
    assert not np.array_equal(first.mean_ci_low, other.mean_ci_low)
    assert (first.corpus_ci_low <= first.corpus).all() and (
        first.corpus <= first.corpus_ci_high
    ).all()


def significance_example() -> Outputs:
    # Six segments of 10 words; HTER = ref_edits / 10.  X is below Y on every segment by
    # 0.1 .. 0.6 (distinct magnitudes, no ties); Z equals X everywhere.
    x = [1, 2, 3, 1, 2, 3]
    y = [2, 4, 6, 5, 7, 9]
    return Outputs(
        system=np.repeat([0, 1, 2], 6),
        segment=np.tile(np.arange(6), 3),
        ref_edits=x + y + x,
        ref_length=[10] * 18,
    )


def test_paired_wilcoxon_lower_is_better_and_wmt_clusters() -> None:
    seg = segment_hter(significance_example(), PostEdits([], [], [], [], []))
    result = system_hter(seg, n_samples=50, seed=0)
    # All six differences X - Y are negative: exact one-sided p = 1 / 2^6 = 0.015625; the
    # other direction has every signed-rank sum possible at or above it: p = 1.  X vs Z: every
    # difference is zero: p = 1 both ways.
    assert result.p_better[0, 1] == pytest.approx(1 / 64, rel=1e-12)
    assert result.p_better[1, 0] == 1.0
    assert result.p_better[0, 2] == result.p_better[2, 0] == 1.0
    assert result.p_better[2, 1] == pytest.approx(1 / 64, rel=1e-12)
    assert np.isnan(np.diag(result.p_better)).all()
    # X and Z beat Y, nobody beats X or Z: WMT ranges X 1-2, Y 3-3, Z 1-2; clusters {X, Z}, {Y}.
    np.testing.assert_array_equal(result.rank_best, [1, 3, 1])
    np.testing.assert_array_equal(result.rank_worst, [2, 3, 2])
    np.testing.assert_array_equal(result.clusters, [1, 2, 1])


def test_rank_sum_option_reuses_significance_on_negated_hter() -> None:
    seg = segment_hter(significance_example(), PostEdits([], [], [], [], []))
    result = system_hter(seg, n_samples=10, test="rank_sum")
    hter = seg.hter.reshape(3, 6)
    np.testing.assert_array_equal(result.p_better, pairwise_rank_sum(list(-hter)))
    assert result.p_better[0, 1] < 0.05 < result.p_better[1, 0]
