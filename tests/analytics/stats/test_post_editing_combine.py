"""003's combinations (minimum, median, mean, weighted mean) and document Spearman, by hand.

Three workers edit six segments (edit rates = TER of the MT output against each edit):

    segment  doc   w7    w8    w9    gold
    0        100   0.2   0.0   0.5   0.2     <- verification subset
    1        100   0.3   0.1   0.9   0.4     <- verification subset
    2        200   0.1   0.0   0.9
    3        200   0.2   0.3   0.4
    4        300   0.5   0.2   0.8
    5        300   0.6   0.4   0.1

Distances on the verification subset, d_w = mean |rate - gold|:
    w7: (0.0 + 0.1) / 2 = 0.05 -> weight 1 / (0.05 + 0.05) = 10
    w8: (0.2 + 0.3) / 2 = 0.25 -> weight 1 / 0.30 = 10/3
    w9: (0.3 + 0.5) / 2 = 0.40 -> weight 1 / 0.45 = 20/9
so, times 9, the weighted mean is (90 r7 + 30 r8 + 20 r9) / 140:

    segment  minimum  median  mean     weighted
    0        0.0      0.2     0.7/3    (18 + 0 + 10)/140 = 28/140
    1        0.1      0.3     1.3/3    (27 + 3 + 18)/140 = 48/140
    2        0.0      0.1     1.0/3    (9 + 0 + 18)/140  = 27/140
    3        0.2      0.3     0.3      (18 + 9 + 8)/140  = 35/140
    4        0.2      0.5     0.5      (45 + 6 + 16)/140 = 67/140
    5        0.1      0.4     1.1/3    (54 + 12 + 2)/140 = 68/140

Documents (mean of their two segments): weighted 76/280, 62/280, 135/280; minimum 0.05, 0.1,
0.15.  Gold document HTER 0.25, 0.2, 0.45 ranks them 2, 1, 3.  Weighted ranks 2, 1, 3: rho = 1.
Minimum ranks 1, 2, 3: sum d^2 = 1 + 1 + 0 = 2, rho = 1 - 6 * 2 / (3 * 8) = 0.5.
"""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.post_editing import (
    combine_edit_rates,
    document_scores,
    rank_all,
    rank_documents,
    verification_subset,
    worker_weights,
)

RATES = np.array(
    [
        [0.2, 0.0, 0.5],
        [0.3, 0.1, 0.9],
        [0.1, 0.0, 0.9],
        [0.2, 0.3, 0.4],
        [0.5, 0.2, 0.8],
        [0.6, 0.4, 0.1],
    ]
)
SEGMENT = np.repeat(np.arange(6), 3)
WORKER = np.tile([7, 8, 9], 6)
TER = RATES.reshape(-1)
DOCUMENT = np.array([100, 100, 200, 200, 300, 300])
GOLD_DOCS = np.array([0.25, 0.2, 0.45])


def weights():
    return worker_weights(SEGMENT, WORKER, TER, gold_segment=[0, 1], gold_ter=[0.2, 0.4])


def test_worker_weights_from_the_verification_subset() -> None:
    w = weights()
    np.testing.assert_array_equal(w.workers, [7, 8, 9])
    np.testing.assert_array_equal(w.n_verification, [2, 2, 2])
    np.testing.assert_allclose(w.distance, [0.05, 0.25, 0.4], rtol=1e-12)
    np.testing.assert_allclose(w.weight, [10, 10 / 3, 20 / 9], rtol=1e-12)


def test_four_combinations_per_segment() -> None:
    c = combine_edit_rates(SEGMENT, WORKER, TER, weights())
    np.testing.assert_array_equal(c.segments, np.arange(6))
    np.testing.assert_array_equal(c.n_edits, [3] * 6)
    np.testing.assert_allclose(c.minimum, [0.0, 0.1, 0.0, 0.2, 0.2, 0.1], atol=1e-15)
    np.testing.assert_allclose(c.median, [0.2, 0.3, 0.1, 0.3, 0.5, 0.4], atol=1e-15)
    np.testing.assert_allclose(c.mean, [0.7 / 3, 1.3 / 3, 1 / 3, 0.3, 0.5, 1.1 / 3], rtol=1e-12)
    np.testing.assert_allclose(c.weighted, np.array([28, 48, 27, 35, 67, 68]) / 140, rtol=1e-12)
    assert c.method("weighted") is c.weighted


def test_even_number_of_edits_median_and_an_unverified_worker() -> None:
    # Segment 6: w7 0.1 and worker 10 (never on the verification subset) 0.4.  Median of two =
    # (0.1 + 0.4) / 2 = 0.25.  Worker 10 gets the mean of the known weights,
    # (10 + 10/3 + 20/9) / 3 = 140/27; weighted = (10 * 0.1 + 140/27 * 0.4) / (10 + 140/27)
    # = (27 + 56) / (270 + 140) = 83/410.
    seg = np.concatenate([SEGMENT, [6, 6]])
    wk = np.concatenate([WORKER, [7, 10]])
    ter = np.concatenate([TER, [0.1, 0.4]])
    w = worker_weights(seg, wk, ter, gold_segment=[0, 1], gold_ter=[0.2, 0.4])
    np.testing.assert_array_equal(w.workers, [7, 8, 9, 10])
    assert np.isnan(w.distance[3]) and w.n_verification[3] == 0
    assert w.weight[3] == pytest.approx(140 / 27, rel=1e-12)
    c = combine_edit_rates(seg, wk, ter, w)
    assert c.median[6] == pytest.approx(0.25, rel=1e-12)
    assert c.weighted[6] == pytest.approx(83 / 410, rel=1e-12)


def test_no_verification_segment_means_equal_weights() -> None:
    w = worker_weights(SEGMENT, WORKER, TER, gold_segment=[], gold_ter=[])
    np.testing.assert_array_equal(w.weight, [1.0, 1.0, 1.0])
    c = combine_edit_rates(SEGMENT, WORKER, TER, w)
    np.testing.assert_allclose(c.weighted, c.mean, rtol=1e-12)


def test_document_ranking_and_spearman() -> None:
    c = combine_edit_rates(SEGMENT, WORKER, TER, weights())
    docs, weighted = document_scores(c.weighted, DOCUMENT)
    np.testing.assert_array_equal(docs, [100, 200, 300])
    np.testing.assert_allclose(weighted, np.array([76, 62, 135]) / 280, rtol=1e-12)
    ranking = rank_documents(docs, weighted, GOLD_DOCS)
    np.testing.assert_array_equal(ranking.predicted_rank, [2, 1, 3])
    np.testing.assert_array_equal(ranking.gold_rank, [2, 1, 3])
    assert ranking.rho == pytest.approx(1.0)
    _, minimum = document_scores(c.minimum, DOCUMENT)
    np.testing.assert_allclose(minimum, [0.05, 0.1, 0.15], rtol=1e-12)
    assert rank_documents(docs, minimum, GOLD_DOCS).rho == pytest.approx(0.5, rel=1e-12)
    every = rank_all(docs, {"minimum": minimum, "weighted": weighted}, GOLD_DOCS)
    assert every["minimum"].rho == pytest.approx(0.5) and every["weighted"].rho == pytest.approx(1)


def test_length_weighted_document_scores() -> None:
    # Segment 0 has 10 MT words, segment 1 has 30: (0.0 * 10 + 0.1 * 30) / 40 = 0.075.
    _, score = document_scores([0.0, 0.1], [100, 100], length=[10, 30])
    assert score[0] == pytest.approx(0.075, rel=1e-12)


def test_constant_prediction_has_no_correlation() -> None:
    ranking = rank_documents([1, 2, 3], [0.3, 0.3, 0.3], GOLD_DOCS)
    assert np.isnan(ranking.rho) and np.isnan(ranking.p_value)


def test_verification_subset_is_seeded() -> None:
    a = verification_subset(np.arange(20), 0.25, seed=4)
    assert a.shape == (5,) and np.array_equal(a, verification_subset(np.arange(20), 0.25, seed=4))
    assert np.unique(a).shape == (5,) and set(a) <= set(range(20))
    assert verification_subset(np.arange(20), 0.01, seed=4).shape == (1,)
