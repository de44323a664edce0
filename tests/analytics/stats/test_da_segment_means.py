"""Segment means by 1-D int64 keys equal the np.unique(axis=0) version they replace, exactly."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from analytics.stats.direct_assessment.scores import _segment_means


def by_rows(judgments, rows, values):
    """The previous code: np.unique over stacked (system, item) rows."""
    pairs = np.stack([judgments.system[rows], judgments.item[rows]], axis=1)
    keys, code = np.unique(pairs, axis=0, return_inverse=True)
    code = code.reshape(-1)
    k = keys.shape[0]
    n = np.bincount(code, minlength=k)
    means = [np.bincount(code, weights=v[rows], minlength=k) / n for v in values]
    return keys[:, 0].astype(np.int64), n.astype(np.int64), means


@pytest.mark.parametrize("seed", range(6))
def test_same_systems_counts_and_means_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    # Sparse large ids, repeated (system, item) pairs, items shared across systems.
    system = rng.choice(np.array([3, 17, 10**9, 2**40]), n)
    item = rng.integers(0, 300, n) * 1_000_003 + (seed % 2) * 2**45
    judgments = SimpleNamespace(system=system, item=item)
    rows = rng.random(n) < 0.8
    values = [rng.normal(0, 1, n), np.round(rng.uniform(0, 100, n))]
    got = _segment_means(judgments, rows, values)
    want = by_rows(judgments, rows, values)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    for a, b in zip(got[2], want[2], strict=True):
        np.testing.assert_array_equal(a, b)


def test_no_rows():
    judgments = SimpleNamespace(system=np.array([1, 2]), item=np.array([5, 6]))
    rows = np.zeros(2, dtype=bool)
    got = _segment_means(judgments, rows, [np.array([1.0, 2.0])])
    assert got[0].shape == got[1].shape == got[2][0].shape == (0,)
