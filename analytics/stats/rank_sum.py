"""Every pairwise one-sided Mann-Whitney U test between m samples, each sample sorted once.

:func:`pairwise_mann_whitney_greater` gives the matrix P[i, j] = p-value of "sample i is
stochastically greater than sample j", the same numbers as calling
``scipy.stats.mannwhitneyu(x_i, x_j, alternative="greater")`` (its defaults: continuity
correction, method "auto") for every ordered pair, bit for bit
(tests/analytics/stats/test_rank_sum.py), without ranking the pooled sample of every pair:

- each sample is sorted once and reduced to its distinct values and their counts;
- for a pair (i, j), ``searchsorted`` of i's distinct values in j's sorted values counts, for
  every value of i, the values of j below it and equal to it, so
  U_ij = sum(count_i * below) + sum(count_i * equal) / 2 (exact: integers and halves), which is
  scipy's R1 - n1 (n1 + 1) / 2, and U_ji = n_i n_j - U_ij;
- the pooled tie term sum(t^3 - t) is each sample's own term plus, for every value the two
  share, (c + e)^3 - c^3 - e^3 = 3 c e (c + e) (integers, exact);
- the p-value follows scipy's normal approximation with the same expression in the same order
  (``_get_mwu_z``: s = sqrt(n1 n2 / 12 ((n + 1) - tie_term / (n (n - 1)))), z = (U - n1 n2 / 2
  - 0.5) / s, p = ndtr(-z), clipped to [0, 1]).

Where scipy would choose its exact distribution (a sample of 8 or fewer values and no ties in
the pair), where a sample holds NaN, or where the integer tie term could overflow int64, the
pair goes to scipy itself. An empty sample gives NaN; two samples whose values are all one and
the same value give 1 (every relabelling gives U = n_i n_j / 2; scipy would divide by a zero
variance to get there). m samples of n values cost m sorts and m(m-1)/2 searches of O(n log n),
instead of m(m-1) rankings of 2n values.

scipy is imported where used (the web path imports this module through the significance
helpers without computing anything).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["pairwise_mann_whitney_greater"]

# Above this pooled size, sum(t^3) could exceed int64 (n^3 < 2^63 for n < 2,097,152).
_MAX_POOLED_FOR_INT64 = 2_000_000
# scipy's _mwu_choose_method: the exact distribution when a side has at most 8 values and
# the pair has no ties.
_EXACT_MAX_N = 8


class _Sorted:
    __slots__ = ("counts", "has_nan", "n", "tie_term", "uniques", "values")

    def __init__(self, sample: NDArray[np.float64]) -> None:
        self.n = int(sample.shape[0])
        self.has_nan = bool(np.isnan(sample).any())
        self.values = np.sort(sample)
        if self.n and not self.has_nan:
            starts = np.flatnonzero(np.r_[True, self.values[1:] != self.values[:-1]])
            self.uniques = self.values[starts]
            self.counts = np.diff(np.r_[starts, self.n]).astype(np.int64)
        else:
            self.uniques = self.values[:0]
            self.counts = np.zeros(0, dtype=np.int64)
        self.tie_term = int(np.sum(self.counts**3 - self.counts))


def _scipy_greater(x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    # scipy.stats.mannwhitneyu's p-value without importing scipy.stats (analytics.stats.
    # rank_tests: the same numbers; samples with NaN go to scipy.stats there).
    from analytics.stats.rank_tests import mannwhitneyu_greater

    return float(mannwhitneyu_greater(x, y))


def pairwise_mann_whitney_greater(samples: Sequence[ArrayLike]) -> NDArray[np.float64]:
    """P[i, j] = scipy.stats.mannwhitneyu(samples[i], samples[j], alternative="greater").pvalue
    for i != j (NaN on the diagonal and for an empty side; 1 when both sides are one value)."""
    from scipy import special

    arrays = [np.asarray(s, dtype=np.float64).reshape(-1) for s in samples]
    m = len(arrays)
    p = np.full((m, m), np.nan)
    sorted_ = [_Sorted(a) for a in arrays]
    for i in range(m):
        x = sorted_[i]
        for j in range(i + 1, m):
            y = sorted_[j]
            n1, n2 = x.n, y.n
            if n1 == 0 or n2 == 0:
                continue
            if x.has_nan or y.has_nan or n1 + n2 > _MAX_POOLED_FOR_INT64:
                p[i, j] = _scipy_greater(arrays[i], arrays[j])
                p[j, i] = _scipy_greater(arrays[j], arrays[i])
                continue
            if x.uniques.shape[0] == 1 and y.uniques.shape[0] == 1 and x.uniques[0] == y.uniques[0]:
                p[i, j] = p[j, i] = 1.0
                continue
            below = np.searchsorted(y.values, x.uniques, side="left")
            equal = np.searchsorted(y.values, x.uniques, side="right") - below
            shared = x.counts * equal
            tie_term = x.tie_term + y.tie_term + int(np.sum(3 * shared * (x.counts + equal)))
            if (n1 <= _EXACT_MAX_N or n2 <= _EXACT_MAX_N) and tie_term == 0:
                p[i, j] = _scipy_greater(arrays[i], arrays[j])
                p[j, i] = _scipy_greater(arrays[j], arrays[i])
                continue
            twice_u = 2 * int(np.sum(x.counts * below)) + int(np.sum(shared))
            u_ij = twice_u / 2
            u_ji = n1 * n2 - u_ij
            # scipy's _get_mwu_z, term for term (its t is float64; these sums are exact).
            mu = n1 * n2 / 2
            n = n1 + n2
            s = np.sqrt(n1 * n2 / 12 * ((n + 1) - float(tie_term) / (n * (n - 1))))
            for a, b, u in ((i, j, u_ij), (j, i, u_ji)):
                numerator = np.float64(u) - mu
                numerator -= 0.5
                with np.errstate(divide="ignore", invalid="ignore"):
                    z = numerator / s
                p[a, b] = float(np.clip(special.ndtr(-z), 0.0, 1.0))
    return p
