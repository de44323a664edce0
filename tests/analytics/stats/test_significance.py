"""Pairwise rank-sum tests, significance marks and WMT clustering on hand-made inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from analytics.stats.significance import (
    pairwise_rank_sum,
    rank_ranges,
    significance_marks,
    system_rank_ranges,
    wmt_clusters,
    wmt_rank_ranges,
)

# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

SIG, NOT = 0.01, 0.5  # p-values for "significantly better" / "not"


def p_matrix(m: int, beats: list[tuple[int, int]]) -> np.ndarray:
    """P[i, j] = SIG if (i, j) in beats else NOT; diagonal NaN."""
    p = np.full((m, m), NOT)
    for i, j in beats:
        p[i, j] = SIG
    np.fill_diagonal(p, np.nan)
    return p


# ------------------------------------------------------------------------------ rank-sum
def test_exact_one_sided_rank_sum_by_enumeration() -> None:
    # A = {3, 4, 5} above B = {1, 2} entirely: U_A = 6, the maximum.  Of the C(5, 2) = 10 ways
    # to choose which two of the five ranks belong to B, only {1, 2} gives U_A = 6: p = 1/10.
    # Reverse direction: U_B = 0, P(U >= 0) = 1.
    # C = {5, 6, 7, 8} vs D = {1, 2, 3, 4}: p = 1 / C(8, 4) = 1/70.
    p = pairwise_rank_sum([[3, 4, 5], [1, 2], [5, 6, 7, 8], [1, 2, 3, 4]])
    assert p[0, 1] == pytest.approx(1 / 10, rel=1e-12)
    assert p[1, 0] == pytest.approx(1.0, rel=1e-12)
    assert p[2, 3] == pytest.approx(1 / 70, rel=1e-12)
    assert np.isnan(np.diag(p)).all()


def test_rank_sum_with_ties_uses_the_tie_corrected_normal_approximation() -> None:
    # X = {2, 3, 3} vs Y = {1, 3}: U_X = 1 + 1.5 + 1.5 = 4 (a tie counts 1/2), mu = 3*2/2 = 3.
    # The value 3 occurs three times: sum(t^3 - t) = 24, N = 5;
    # sigma = sqrt(3*2/12 * (6 - 24/20)) = sqrt(2.4); z = (4 - 3 - 0.5) / sqrt(2.4) = 0.3227.
    p = pairwise_rank_sum([[2, 3, 3], [1, 3]])
    assert p[0, 1] == pytest.approx(stats.norm.sf(0.5 / math.sqrt(2.4)), rel=1e-12)


def test_rank_sum_degenerate_samples() -> None:
    # All values equal in both samples: every relabelling gives U = n1 n2 / 2, so p = 1 (and
    # no scipy warning).  An empty sample cannot be tested: NaN.
    p = pairwise_rank_sum([[0.0, 0.0], [0.0, 0.0, 0.0], []])
    assert p[0, 1] == 1.0 and p[1, 0] == 1.0
    assert np.isnan(p[0, 2]) and np.isnan(p[2, 1])


def test_significance_marks() -> None:
    p = np.array([[np.nan, 0.04], [0.009, 0.0009]])
    assert significance_marks(p).tolist() == [["", "*"], ["**", "***"]]
    assert significance_marks([0.05, 0.01, 0.001, 1.0]).tolist() == ["", "*", "**", ""]


# ------------------------------------------------------------------------------ clusters
def test_wmt_clusters_on_a_hand_made_matrix() -> None:
    # Systems 0..4 by score.  0 and 1 each beat 2, 3, 4; 2 and 3 each beat 4; 0 does not beat
    # 1, 2 does not beat 3.  Boundaries: after 1 (both of 0, 1 beat all of 2, 3, 4) and
    # after 3 (0..3 all beat 4); not after 0 (0 does not beat 1) nor after 2.
    scores = [0.5, 0.4, 0.1, 0.0, -0.3]
    beats = [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    p = p_matrix(5, beats)
    assert wmt_clusters(scores, p, method="separating").tolist() == [1, 1, 2, 2, 3]
    assert wmt_clusters(scores, p, method="unbeaten").tolist() == [1, 1, 2, 2, 3]
    best, worst = rank_ranges([1, 1, 2, 2, 3])
    assert best.tolist() == [1, 1, 3, 3, 5] and worst.tolist() == [2, 2, 4, 4, 5]
    # WMT's official rule gives the same here: 0 and 1 are beaten by none and beat 3 (1-2);
    # 2 and 3 are beaten by 2 and beat 1 (3-4); 4 is beaten by 4 (5-5).  Ranges end at 2, 4, 5.
    assert wmt_clusters(scores, p).tolist() == [1, 1, 2, 2, 3]
    best, worst = wmt_rank_ranges(scores, p)
    assert best.tolist() == [1, 1, 3, 3, 5] and worst.tolist() == [2, 2, 4, 4, 5]


def test_a_boundary_needs_every_system_above_to_beat_every_system_below() -> None:
    # 0 beats everyone; 1 beats 3 only; 2 beats 3.  After 0: 0 beats 1, 2, 3 -> boundary.
    # After 1: 1 does not beat 2 -> none.  After 2: 0, 1, 2 all beat 3 -> boundary.
    p = p_matrix(4, [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)])
    assert wmt_clusters([4.0, 3.0, 2.0, 1.0], p, method="separating").tolist() == [1, 2, 2, 3]
    # WMT: 0: 1-1; 1: beaten by 0, beats 3 -> 2-3; 2: beaten by 0, beats 3 -> 2-3; 3: 4-4.
    # Ranges end at 1, 3, 3, 4: lines after positions 1 and 3, the same clusters.
    assert wmt_clusters([4.0, 3.0, 2.0, 1.0], p).tolist() == [1, 2, 2, 3]
    best, worst = wmt_rank_ranges([4.0, 3.0, 2.0, 1.0], p)
    assert best.tolist() == [1, 2, 2, 4] and worst.tolist() == [1, 3, 3, 4]


def test_separating_and_unbeaten_differ_when_significance_is_not_transitive() -> None:
    # A > B > C by score; only A beats C.  "separating": no boundary below A (A does not beat
    # B) nor below B (B does not beat C) -> one cluster.  "unbeaten": A and B are beaten by
    # nobody, C by A -> {A, B}, {C}.
    p = p_matrix(3, [(0, 2)])
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="separating").tolist() == [1, 1, 1]
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="unbeaten").tolist() == [1, 1, 2]
    # WMT: A 1-2 (beats C only), B 1-3, C 2-3; ranges end at 2, 3, 3: no line ends at its
    # position before the last -> one cluster.
    assert wmt_clusters([3.0, 2.0, 1.0], p).tolist() == [1, 1, 1]
    assert [r.tolist() for r in wmt_rank_ranges([3.0, 2.0, 1.0], p)] == [[1, 1, 2], [2, 3, 3]]
    # "unbeaten" can also jump the score order: A beats B, nobody beats C -> {A, C}, {B}.
    p = p_matrix(3, [(0, 1)])
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="separating").tolist() == [1, 1, 1]
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="unbeaten").tolist() == [1, 2, 1]
    # WMT: A 1-2, B 2-3, C 1-3: ranges end at 2, 3, 3 -> one cluster.
    assert wmt_clusters([3.0, 2.0, 1.0], p).tolist() == [1, 1, 1]


def test_cyclic_significance_gives_one_cluster() -> None:
    # 0 beats 1, 1 beats 2, 2 beats 0: every system is beaten by some other.
    p = p_matrix(3, [(0, 1), (1, 2), (2, 0)])
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="separating").tolist() == [1, 1, 1]
    assert wmt_clusters([3.0, 2.0, 1.0], p, method="unbeaten").tolist() == [1, 1, 1]
    # WMT's rule counts wins and losses only: each system is beaten once and beats once, so
    # every range is 2-2; the range at position 2 ends there -> a line after B.
    assert wmt_clusters([3.0, 2.0, 1.0], p).tolist() == [1, 1, 2]
    assert [r.tolist() for r in wmt_rank_ranges([3.0, 2.0, 1.0], p)] == [[2, 2, 2], [2, 2, 2]]


def test_clusters_follow_the_input_order_not_a_sorted_one() -> None:
    scores = np.array([0.5, 0.4, 0.1, 0.0, -0.3])
    beats = [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 4), (3, 4)]
    p = p_matrix(5, beats)
    perm = np.array([3, 0, 4, 2, 1])  # shuffled input
    for method in ("wmt", "separating"):
        clusters = wmt_clusters(scores[perm], p[np.ix_(perm, perm)], method=method)
        assert clusters.tolist() == [2, 1, 3, 2, 1]
        best, worst = system_rank_ranges(
            scores[perm], p[np.ix_(perm, perm)], clusters, method=method
        )
        assert best.tolist() == [3, 1, 5, 3, 1] and worst.tolist() == [4, 2, 5, 4, 2]


def test_alpha_nan_and_ties_in_scores() -> None:
    # p = 0.03 counts at alpha 0.05 but not at 0.01; NaN (untestable) never counts.
    # Boundary after 0 iff 0 beats 1 (p 0.03) and 2 (p 0.001); after 1 iff 0 and 1 beat 2,
    # but 1 vs 2 is NaN.
    p = np.array([[np.nan, 0.03, 0.001], [0.9, np.nan, np.nan], [0.9, 0.9, np.nan]])
    assert wmt_clusters([2.0, 1.0, 0.0], p, method="separating").tolist() == [1, 2, 2]
    assert wmt_clusters([2.0, 1.0, 0.0], p, alpha=0.01, method="separating").tolist() == [1, 1, 1]
    # WMT: 0 beats both (1-1); 1 and 2 are beaten by 0 (2-3 each): the same clusters.  At
    # alpha 0.01, 0 beats 2 only (1-2), 1 is 1-3, 2 is 2-3: one cluster.
    assert wmt_clusters([2.0, 1.0, 0.0], p).tolist() == [1, 2, 2]
    assert wmt_clusters([2.0, 1.0, 0.0], p, alpha=0.01).tolist() == [1, 1, 1]
    # Equal scores keep the caller's order (significance does not reorder them): 0 sorts above
    # 1, so 1 beating 0 cannot open a boundary between them; 0 and 1 both beat 2.
    p = p_matrix(3, [(1, 0), (1, 2), (0, 2)])
    assert wmt_clusters([1.0, 1.0, 0.0], p, method="separating").tolist() == [1, 1, 2]
    # WMT: 0 is beaten by 1 and beats 2 -> 2-2; 1 beats both -> 1-1; 2 -> 3-3.  Ranges end at
    # 2, 1, 3 by position: no line after position 1 (range ends at 2) nor after position 2
    # (the system there, 1, has a range ending at 1): one cluster.
    assert wmt_clusters([1.0, 1.0, 0.0], p).tolist() == [1, 1, 1]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=7).flatmap(
        lambda m: st.tuples(
            st.lists(st.floats(-3, 3), min_size=m, max_size=m),
            st.lists(st.booleans(), min_size=m * m, max_size=m * m),
        )
    )
)
def test_wmt_cluster_invariants(case: tuple[list[float], list[bool]]) -> None:
    scores, flat = case
    m = len(scores)
    beats = np.array(flat).reshape(m, m)
    np.fill_diagonal(beats, False)
    p = np.where(beats, SIG, NOT)
    clusters = wmt_clusters(scores, p, method="separating")
    order = np.argsort(-np.asarray(scores), kind="stable")
    c = clusters[order]
    # Numbered 1, 2, ... without gaps, contiguous and non-decreasing in score order.
    assert c[0] == 1 and np.all(np.diff(c) >= 0) and np.all(np.diff(c) <= 1)
    # Every system in a higher cluster beats every system in every lower cluster.
    higher = clusters[:, None] < clusters[None, :]
    assert np.all(beats[higher])
    # As fine as possible: inside a cluster no cut point would have been valid.
    b = beats[np.ix_(order, order)]
    for k in range(m - 1):
        if c[k] == c[k + 1]:
            assert not b[: k + 1, k + 1 :].all()


def test_invalid_cluster_inputs() -> None:
    with pytest.raises(ValueError, match="2x2"):
        wmt_clusters([1.0, 2.0], np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        wmt_clusters([1.0, np.nan], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="method"):
        wmt_clusters([1.0], np.zeros((1, 1)), method="bootstrap")  # type: ignore[arg-type]
    assert wmt_clusters([], np.zeros((0, 0))).tolist() == []
    assert [r.tolist() for r in rank_ranges([])] == [[], []]


# ------------------------------------------------------- WMT's official rule (issue 12)
def test_wmt_draws_no_line_where_a_lower_system_beats_a_higher_one() -> None:
    # Three systems' samples (z-scores, say).  A has the highest mean (13.375) because of one
    # outlier, but B's eight 2s lie above seven of A's eight 1s: B beats A significantly
    # (U = 56 of 64), though its mean (2) is lower.  Both beat C (all 0).
    a = [100.0] + [1.0] * 7
    b = [2.0] * 8
    c = [0.0] * 8
    scores = [np.mean(a), np.mean(b), np.mean(c)]
    p = pairwise_rank_sum([a, b, c])
    beats = p < 0.05
    np.fill_diagonal(beats, False)
    assert beats.tolist() == [[False, False, True], [True, False, True], [False, False, False]]
    # WMT: A is beaten by B (best 2) and beats C (worst 3 - 1 = 2): 2-2.  B beats both: 1-1.
    # C is beaten by both: 3-3.  Ranges end at 2, 1, 3 by position: no range ends at its own
    # position before the last, so WMT draws no line: one cluster.
    best, worst = wmt_rank_ranges(scores, p)
    assert (best.tolist(), worst.tolist()) == ([2, 1, 3], [2, 1, 3])
    assert wmt_clusters(scores, p).tolist() == [1, 1, 1]
    # The old default ("separating") split C off: A and B both beat C.
    assert wmt_clusters(scores, p, method="separating").tolist() == [1, 1, 2]


def test_a_wmt_shaped_table_from_the_rule() -> None:
    # Six systems by Ave z, as a WMT findings table lays them out: S0 and S1 beat S2..S5
    # but not each other; S2 beats S3..S5; S3, S4, S5 beat nobody.  Ranges: S0, S1 1-2 (no
    # loss; 4 wins: 6 - 4 = 2); S2 3-3 (2 losses, 3 wins); S3..S5 4-6 (3 losses, no win).
    # Lines after positions 2 and 3, where the ranges end: "1-2 1-2 | 3 | 4-6 4-6 4-6".
    beats = [(i, j) for i in (0, 1) for j in range(2, 6)] + [(2, j) for j in range(3, 6)]
    p = p_matrix(6, beats)
    scores = [0.30, 0.25, 0.10, -0.05, -0.10, -0.20]
    best, worst = wmt_rank_ranges(scores, p)
    assert best.tolist() == [1, 1, 3, 4, 4, 4]
    assert worst.tolist() == [2, 2, 3, 6, 6, 6]
    assert wmt_clusters(scores, p).tolist() == [1, 1, 2, 3, 3, 3]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=1, max_value=7).flatmap(
        lambda m: st.tuples(
            st.lists(st.floats(-3, 3), min_size=m, max_size=m),
            st.lists(st.booleans(), min_size=m * m, max_size=m * m),
        )
    )
)
def test_wmt_rule_invariants(case: tuple[list[float], list[bool]]) -> None:
    scores, flat = case
    m = len(scores)
    beats = np.array(flat).reshape(m, m)
    np.fill_diagonal(beats, False)
    beats &= ~beats.T | np.triu(np.ones((m, m), dtype=bool))  # never both ways
    p = np.where(beats, SIG, NOT)
    best, worst = wmt_rank_ranges(scores, p)
    # The definition, and best <= worst (losses + wins <= m - 1).
    assert best.tolist() == (1 + beats.sum(axis=0)).tolist()
    assert worst.tolist() == (m - beats.sum(axis=1)).tolist()
    assert np.all(best <= worst)
    clusters = wmt_clusters(scores, p)
    order = np.argsort(-np.asarray(scores), kind="stable")
    c = clusters[order]
    # Numbered 1, 2, ... without gaps, contiguous in score order.
    assert c[0] == 1 and np.all(np.diff(c) >= 0) and np.all(np.diff(c) <= 1)
    # A line after sorted position i (1-based) exactly when the range there ends at i.
    for i in range(1, m):
        assert (c[i] > c[i - 1]) == (worst[order[i - 1]] == i)
