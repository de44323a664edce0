"""analytics.stats.rank_tests gives scipy.stats' p-values to the last bit (compared with
``==`` on the float64 bits, NaN with NaN) on batches like those the DA statistics send: many
sizes, whole-number and fractional values, ties, zeros, the exact and the asymptotic paths."""

import numpy as np
import pytest
from scipy import stats

from analytics.stats import rank_tests


def assert_same_bits(got, want) -> None:
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape
    assert np.array_equal(got.view(np.int64), want.view(np.int64)), (got, want)


def batches(seed: int):
    """(name, 2-D batch) pairs: integer differences (ties and zeros), distinct fractions (no
    ties, no zeros), and batches without zeros but with ties."""
    rng = np.random.default_rng(seed)
    for n in (1, 2, 5, 9, 14, 20, 35, 50, 51, 80, 200):
        rows = int(rng.integers(1, 6))
        yield f"int n={n}", rng.integers(-30, 31, size=(rows, n)).astype(np.float64)
        yield (
            f"distinct n={n}",
            rng.permutation(np.arange(1, rows * n + 1))[: rows * n].reshape(rows, n)
            * rng.choice([-1.0, 1.0], size=(rows, n))
            + 0.25,
        )
        tied = rng.integers(1, 6, size=(rows, n)).astype(np.float64)
        yield f"tied n={n}", tied * rng.choice([-1.0, 1.0], size=(rows, n))


@pytest.mark.parametrize("seed", range(4))
def test_t_sf_is_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = np.concatenate([rng.normal(0, 3, 200), [0.0, -0.0, np.inf, -np.inf, np.nan, 40, -40]])
    df = np.concatenate([rng.uniform(0.5, 300, 200), [1, 2, 3, 4, 5, 6, 7]])
    assert_same_bits(rank_tests.t_sf(t, df), stats.t.sf(t, df))
    bad_df = np.array([0.0, -1.0, np.nan, np.inf])
    assert_same_bits(rank_tests.t_sf(np.ones(4), bad_df), stats.t.sf(np.ones(4), bad_df))


@pytest.mark.parametrize("seed", range(3))
def test_rankdata_is_scipys(seed: int) -> None:
    for _, batch in batches(seed):
        assert_same_bits(rank_tests.rankdata_average(batch), stats.rankdata(batch, axis=1))
        with_nan = np.where(batch == 0, np.nan, np.abs(batch))
        assert_same_bits(
            rank_tests.rankdata_average(with_nan, omit_nan=True),
            stats.rankdata(with_nan, axis=1, nan_policy="omit"),
        )


@pytest.mark.parametrize("alternative", ["greater", "two-sided"])
@pytest.mark.parametrize("seed", range(3))
def test_wilcoxon_is_scipys(seed: int, alternative: str) -> None:
    checked = 0
    for _, batch in batches(seed):
        if batch.shape[1] <= 13 and ((batch == 0).any() or _has_ties(np.abs(batch))):
            continue  # scipy's permutation path: the DA groups enumerate these themselves
        if (batch == 0).all(axis=1).any():
            continue
        want = stats.wilcoxon(batch, alternative=alternative, axis=1).pvalue
        assert_same_bits(rank_tests.wilcoxon(batch, alternative), want)
        checked += 1
    assert checked > 20


def _has_ties(batch) -> bool:
    s = np.sort(batch, axis=1)
    return bool((s[:, 1:] == s[:, :-1]).any())


def test_wilcoxon_exact_and_asymptotic_paths() -> None:
    # 20 distinct non-zero differences: scipy's exact distribution; with one tie: asymptotic.
    d = np.arange(1.0, 21.0) * np.array([1, -1] * 10)
    d[0] = 30.0
    assert_same_bits(
        rank_tests.wilcoxon(d[None, :], "greater"),
        stats.wilcoxon(d[None, :], alternative="greater", axis=1).pvalue,
    )
    tied = d.copy()
    tied[1] = 30.0
    assert_same_bits(
        rank_tests.wilcoxon(tied[None, :], "two-sided"),
        stats.wilcoxon(tied[None, :], alternative="two-sided", axis=1).pvalue,
    )


@pytest.mark.parametrize("seed", range(4))
def test_mannwhitneyu_is_scipys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for nx in (1, 3, 8, 9, 30):
        for ny in (2, 8, 12, 60):
            rows = int(rng.integers(1, 5))
            for x, y in (
                (rng.integers(0, 40, (rows, nx)), rng.integers(0, 40, (rows, ny))),
                (rng.normal(size=(rows, nx)), rng.normal(size=(rows, ny))),
            ):
                x, y = x.astype(np.float64), y.astype(np.float64)
                want = stats.mannwhitneyu(x, y, alternative="greater", axis=1).pvalue
                assert_same_bits(rank_tests.mannwhitneyu_greater(x, y), want)
                want_1d = stats.mannwhitneyu(x[0], y[0], alternative="greater").pvalue
                assert_same_bits(rank_tests.mannwhitneyu_greater(x[0], y[0]), want_1d)
                checked += 1
    assert checked == 40


def test_mannwhitneyu_exact_with_a_large_other_side() -> None:
    # One side of 3 and no ties: scipy's exact distribution, kept between calls of one shape.
    x = np.array([[50.5, 60.25, 70.125]])
    for ny in (9, 40, 40, 200):
        y = np.arange(ny, dtype=np.float64)[None, :] / 7
        want = stats.mannwhitneyu(x, y, alternative="greater", axis=1).pvalue
        assert_same_bits(rank_tests.mannwhitneyu_greater(x, y), want)


def test_nan_samples_go_to_scipy() -> None:
    x = np.array([1.0, np.nan, 3.0])
    y = np.array([2.0, 4.0, 5.0])
    assert_same_bits(
        rank_tests.mannwhitneyu_greater(x, y),
        stats.mannwhitneyu(x, y, alternative="greater").pvalue,
    )
