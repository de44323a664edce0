"""The sorted-once pairwise rank-sum test gives scipy.stats.mannwhitneyu's p-values exactly."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from analytics.stats.rank_sum import pairwise_mann_whitney_greater
from analytics.stats.significance import _rank_sum_greater, pairwise_rank_sum


def scipy_matrix(samples) -> np.ndarray:
    """P[i, j] from one scipy call per ordered pair (the code this module replaces)."""
    arrays = [np.asarray(s, dtype=np.float64) for s in samples]
    m = len(arrays)
    p = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(m):
            if i != j:
                p[i, j] = _rank_sum_greater(arrays[i], arrays[j])
    return p


def assert_identical(samples) -> None:
    fast = pairwise_mann_whitney_greater(samples)
    slow = scipy_matrix(samples)
    # Bit for bit, NaN where scipy has NaN.
    np.testing.assert_array_equal(fast, slow)
    np.testing.assert_array_equal(pairwise_rank_sum(samples), slow)


@pytest.mark.parametrize("seed", range(8))
def test_continuous_samples_of_different_sizes(seed):
    rng = np.random.default_rng(seed)
    samples = [rng.normal(rng.normal(0, 0.3), 1, rng.integers(9, 400)) for _ in range(6)]
    assert_identical(samples)


@pytest.mark.parametrize("seed", range(8))
def test_many_ties_within_and_across_samples(seed):
    rng = np.random.default_rng(100 + seed)
    # Integer scores 0-100 (DA raw), and coarse values: ties inside a sample and shared ones.
    samples = [rng.integers(0, 101, rng.integers(9, 300)).astype(float) for _ in range(4)]
    samples += [np.round(rng.normal(0, 1, rng.integers(9, 300)), 1) for _ in range(3)]
    samples += [rng.integers(0, 3, 50).astype(float), rng.integers(2, 4, 40).astype(float)]
    assert_identical(samples)


def test_segment_means_like_direct_assessment():
    rng = np.random.default_rng(7)
    # Means of 1-3 judgments of z-scores that repeat per worker: some exact ties.
    z = np.round(rng.normal(0, 1, 200), 2)
    samples = [
        np.array([z[rng.integers(0, 200, rng.integers(1, 4))].mean() for _ in range(500)]) + shift
        for shift in (0.0, 0.0, 0.05, -0.1)
    ]
    assert_identical(samples)


def test_small_samples_use_scipy_exact_distribution_and_ties_the_normal_one():
    samples = [
        [3.0, 4.0, 5.0],
        [1.0, 2.0],
        [5.5, 6.0, 7.0, 8.0],
        [1.5, 2.5, 3.5, 4.5],  # no ties anywhere: exact
        [2.0, 3.0, 3.0],  # ties: asymptotic even though small
        list(range(20)),
        [0.5 + k for k in range(9)],
    ]
    assert_identical(samples)


def test_empty_constant_and_nan_samples():
    samples = [
        [],
        [0.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 1.0],
        [0.0, 1.0, np.nan],
        list(np.linspace(-1, 1, 30)),
    ]
    fast = pairwise_mann_whitney_greater(samples)
    np.testing.assert_array_equal(fast, scipy_matrix(samples))
    assert fast[1, 2] == fast[2, 1] == 1.0  # all one value on both sides
    assert np.isnan(fast[0, 1]) and np.isnan(fast[1, 0])
    assert np.isnan(fast[4, 5]) and np.isnan(fast[5, 4])  # NaN propagates as in scipy


def test_against_scipy_directly_on_one_pair_with_heavy_ties():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, 2000).astype(float)
    y = rng.integers(1, 6, 1500).astype(float)
    p = pairwise_mann_whitney_greater([x, y])
    assert p[0, 1] == stats.mannwhitneyu(x, y, alternative="greater").pvalue
    assert p[1, 0] == stats.mannwhitneyu(y, x, alternative="greater").pvalue
