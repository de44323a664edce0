"""Grouped (per-worker) sample statistics and one/two-sample tests, vectorised.

Each worker's pairs form a small sample.  Rather than calling scipy once per worker, samples are
laid out contiguously by group (one stable sort) and:

- the t-tests are computed in closed form for all groups at once (np.bincount sums, then one
  vectorised call to the t distribution's survival function);
- the rank tests are run in batches of groups that share a sample size (and tie status, which
  is what scipy's ``method="auto"`` looks at), so the number of scipy calls is the number of
  distinct sample sizes, not the number of workers.  Every p-value is identical to calling
  scipy on that worker's sample alone (tested).
- the Wilcoxon signed-rank test for n <= 13 is evaluated by exact enumeration of the 2**n sign
  flips here, because scipy's equivalent path (``PermutationMethod`` when there are ties or
  zeros) takes ~90 ms per worker and decides exact-vs-permutation for a whole batch at once.

Degenerate samples (no variation at all) are resolved here before any scipy call, which is
what keeps scipy from warning or returning NaN; the individual decisions are commented where
they are made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

# scipy.stats' tests computed on scipy.special alone, bit for bit (a recompute without
# scipy.stats' 47 MiB, issue 16).
from analytics.stats.rank_tests import mannwhitneyu_greater, rankdata_average, t_sf, wilcoxon

if TYPE_CHECKING:
    from numpy.typing import NDArray

Alternative = Literal["greater", "two-sided"]

# Largest n for which the signed-rank null distribution is enumerated exactly (2**13 = 8192
# sign vectors).  The same cut-off as scipy's own switch from its permutation path to the
# normal approximation when ties or zeros are present.
EXACT_SIGNED_RANK_MAX_N = 13
# Rows per enumeration chunk: 8192 x 256 float64 = 16 MiB at most.
_CHUNK = 256


@dataclass(frozen=True)
class Grouped:
    """A sample split into groups 0..n_groups-1, stored contiguously by group."""

    values: NDArray[np.float64]
    counts: NDArray[np.int64]
    starts: NDArray[np.int64]

    @classmethod
    def build(cls, values: NDArray[np.float64], group: NDArray[np.int64], n_groups: int) -> Grouped:
        order = np.argsort(group, kind="stable")
        counts = np.bincount(group, minlength=n_groups).astype(np.int64)
        starts = np.cumsum(counts) - counts
        return cls(values=np.asarray(values, dtype=np.float64)[order], counts=counts, starts=starts)

    @property
    def n_groups(self) -> int:
        return int(self.counts.shape[0])

    @property
    def group_of_value(self) -> NDArray[np.int64]:
        return np.repeat(np.arange(self.n_groups), self.counts)

    def sums(self, values: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        v = self.values if values is None else values
        return np.bincount(self.group_of_value, weights=v, minlength=self.n_groups)

    def mean_var(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Mean and sample variance (ddof=1) per group; NaN where undefined.

        Two-pass (deviations from the group mean) for numerical stability.
        """
        n = self.counts.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, self.sums() / np.maximum(n, 1), np.nan)
            dev = self.values - mean[self.group_of_value]
            ss = self.sums(dev * dev)
            var = np.where(n > 1, ss / np.maximum(n - 1, 1), np.nan)
        return mean, var

    def minmax(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Exact per-group minimum and maximum (NaN for empty groups).

        Used to detect constant samples exactly; a variance computed in floating point can be
        a tiny positive number for a constant sample and would make t explode.
        """
        lo = np.full(self.n_groups, np.nan)
        hi = np.full(self.n_groups, np.nan)
        nonempty = self.counts > 0
        if nonempty.any():
            starts = self.starts[nonempty]
            lo[nonempty] = np.minimum.reduceat(self.values, starts)
            hi[nonempty] = np.maximum.reduceat(self.values, starts)
        return lo, hi

    def any_per_group(self, flags: NDArray[np.bool_]) -> NDArray[np.bool_]:
        return np.bincount(self.group_of_value, weights=flags, minlength=self.n_groups) > 0

    def has_ties(self, values: NDArray[np.float64] | None = None) -> NDArray[np.bool_]:
        """Whether any two values within a group are equal."""
        v = self.values if values is None else values
        g = self.group_of_value
        keyed = _integer_pair_keys(g, v, self.n_groups)
        if keyed is not None:
            key, span = keyed
            # Whole-number values (score differences): one int64 key per (group, value),
            # sorted; equal neighbours are ties. The same flags as the lexsort below at a
            # fraction of its time.
            key.sort()
            tie = key[1:] == key[:-1]
            return np.bincount(key[1:][tie] // span, minlength=self.n_groups) > 0
        order = np.lexsort((v, g))
        sv, sg = v[order], g[order]
        tie = (sv[1:] == sv[:-1]) & (sg[1:] == sg[:-1])
        return np.bincount(sg[1:][tie], minlength=self.n_groups) > 0

    def rows(self, groups: NDArray[np.int64], n: int) -> NDArray[np.float64]:
        """The samples of ``groups`` (all of size n) as a (len(groups), n) array."""
        return self.values[self.starts[groups][:, None] + np.arange(n)[None, :]]


def _integer_pair_keys(
    group: NDArray[np.integer], values: NDArray[np.float64], n_groups: int
) -> tuple[NDArray[np.int64], int] | None:
    """(keys, span): (group, value) as one int64 key each, group * span + (value - lowest),
    when every value is a whole number and the keys fit; else None."""
    if values.size == 0 or not np.isfinite(values).all():
        return None
    lo, hi = float(values.min()), float(values.max())
    span = int(hi - lo) + 1
    if span * max(n_groups, 1) >= 1 << 62:
        return None
    offset = values - lo
    whole = offset.astype(np.int64)
    if not np.array_equal(whole, offset):
        return None
    del offset
    whole += group.astype(np.int64) * span
    return whole, span


def for_each_shape(
    keys: NDArray[np.int64], eligible: NDArray[np.bool_], fn: Callable[[NDArray, tuple], NDArray]
) -> NDArray[np.float64]:
    """Run ``fn(groups, key)`` once per distinct row of ``keys`` among eligible groups.

    ``keys`` is (n_groups, k) ints (sample sizes, tie flags); returns fn's p-values scattered
    back into an (n_groups,) array, NaN where not eligible.
    """
    p = np.full(keys.shape[0], np.nan)
    idx = np.flatnonzero(eligible)
    if idx.size == 0:
        return p
    distinct, inverse = np.unique(keys[idx], axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for k, key in enumerate(distinct):
        groups = idx[inverse == k]
        p[groups] = fn(groups, tuple(int(x) for x in key))
    return p


# ---------------------------------------------------------------------------- t-tests
def paired_t(diff: Grouped, alternative: Alternative) -> NDArray[np.float64]:
    """One-sample t-test of the per-group differences against 0, for every group at once.

    Equivalent to scipy.stats.ttest_rel(x, y, alternative=...) with diff = x - y.  Groups with
    fewer than 2 values get NaN.  A constant sample has sd = 0 and t = +-inf or 0/0; we return
    the limit of the p-value instead of scipy's NaN (and warning): a constant positive
    difference is the strongest possible evidence for "greater" (p = 0); an all-zero sample is
    no evidence of any difference (p = 1); for "greater", a constant negative difference gives
    p = 1.  Two-sided: p = 0 for a constant non-zero difference, 1 for all zeros.
    """
    n = diff.counts.astype(np.float64)
    mean, var = diff.mean_var()
    lo, hi = diff.minmax()
    constant = (n >= 2) & (lo == hi)
    ok = (n >= 2) & ~constant
    p = np.full(diff.n_groups, np.nan)
    t = mean[ok] / np.sqrt(var[ok] / n[ok])
    df = n[ok] - 1
    if alternative == "greater":
        p[ok] = t_sf(t, df)
        p[constant] = np.where(mean[constant] > 0, 0.0, 1.0)
    else:
        p[ok] = np.minimum(1.0, 2.0 * t_sf(np.abs(t), df))
        p[constant] = np.where(mean[constant] != 0, 0.0, 1.0)
    return p


def welch_t_greater(x: Grouped, y: Grouped) -> NDArray[np.float64]:
    """Welch's unequal-variance t-test, H1: mean(x) > mean(y), for every group at once.

    Equivalent to scipy.stats.ttest_ind(x, y, equal_var=False, alternative="greater").  Needs at
    least 2 values on each side (else NaN).  When both samples are constant the standard error
    is 0; as for :func:`paired_t` we return the limit: p = 0 if mean(x) > mean(y), else 1.
    """
    nx, ny = x.counts.astype(np.float64), y.counts.astype(np.float64)
    mx, vx = x.mean_var()
    my, vy = y.mean_var()
    xlo, xhi = x.minmax()
    ylo, yhi = y.minmax()
    sized = (nx >= 2) & (ny >= 2)
    both_constant = sized & (xlo == xhi) & (ylo == yhi)
    ok = sized & ~both_constant
    p = np.full(x.n_groups, np.nan)
    ax, ay = vx[ok] / nx[ok], vy[ok] / ny[ok]
    se2 = ax + ay
    t = (mx[ok] - my[ok]) / np.sqrt(se2)
    # Welch-Satterthwaite degrees of freedom; if one variance is 0 this reduces to n_other - 1.
    df = se2 * se2 / (ax * ax / (nx[ok] - 1) + ay * ay / (ny[ok] - 1))
    p[ok] = t_sf(t, df)
    p[both_constant] = np.where(mx[both_constant] > my[both_constant], 0.0, 1.0)
    return p


# ---------------------------------------------------------------------------- signed-rank
def _signed_rank_exact(d: NDArray[np.float64], alternative: Alternative) -> NDArray[np.float64]:
    """Exact conditional p-values of the Wilcoxon signed-rank test for the rows of d (n <= 13).

    Zeros are dropped (Wilcoxon's method, scipy's default ``zero_method="wilcox"``) and ties
    get average ranks; the null distribution is the exact distribution of T+ over all 2**n
    equally likely sign flips given those ranks.  This equals scipy's ``method="exact"`` when
    there are no ties or zeros and its exact ``PermutationMethod`` result otherwise.
    """
    b, n = d.shape
    zero = d == 0
    ranks = rankdata_average(np.where(zero, np.nan, np.abs(d)), omit_nan=True)
    ranks = np.where(zero, 0.0, ranks)
    t_obs = np.sum(ranks * (d > 0), axis=1)
    signs = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
    p = np.empty(b)
    # Ranks are multiples of 1/2, so sums are exact in float64; the tolerance only guards
    # against ever comparing values that should be equal with a strict inequality.
    tol = 1e-9
    for lo in range(0, b, _CHUNK):
        null = signs @ ranks[lo : lo + _CHUNK].T  # (2**n, chunk)
        obs = t_obs[lo : lo + _CHUNK]
        ge = np.mean(null >= obs - tol, axis=0)
        if alternative == "greater":
            p[lo : lo + _CHUNK] = ge
        else:
            le = np.mean(null <= obs + tol, axis=0)
            p[lo : lo + _CHUNK] = np.minimum(1.0, 2.0 * np.minimum(ge, le))
    return p


def wilcoxon_signed_rank(diff: Grouped, alternative: Alternative) -> NDArray[np.float64]:
    """Wilcoxon signed-rank p-values per group, as scipy.stats.wilcoxon(d, alternative=...).

    Groups with no values get NaN.  A group whose differences are all zero gets p = 1: zeros
    are dropped, so no signed ranks remain, and the conditional null distribution of T+ is the
    point mass at 0, which the observed T+ = 0 attains (P(T+ >= 0) = 1).  scipy instead
    divides 0 by 0 with a RuntimeWarning.
    """
    lo, hi = diff.minmax()
    all_zero = (diff.counts > 0) & (lo == 0) & (hi == 0)
    eligible = (diff.counts > 0) & ~all_zero
    zero_or_tie = diff.any_per_group(diff.values == 0) | diff.has_ties(np.abs(diff.values))
    keys = np.stack([diff.counts, zero_or_tie.astype(np.int64)], axis=1)

    def run(groups: NDArray, key: tuple) -> NDArray[np.float64]:
        n, _ = key
        rows = diff.rows(groups, n)
        if n <= EXACT_SIGNED_RANK_MAX_N:
            return _signed_rank_exact(rows, alternative)
        # All rows of this batch share n and tie status, so scipy's method="auto" makes the
        # same choice (exact / normal approximation) it would make for each row alone.
        return np.asarray(wilcoxon(rows, alternative))

    p = for_each_shape(keys, eligible, run)
    p[all_zero] = 1.0
    return p


# ---------------------------------------------------------------------------- rank-sum
def mann_whitney_greater(x: Grouped, y: Grouped) -> NDArray[np.float64]:
    """Mann-Whitney U p-values per group, H1: x stochastically greater than y.

    As scipy.stats.mannwhitneyu(x, y, alternative="greater") (continuity correction, method
    "auto").  Groups with an empty side get NaN.  When every value on both sides is equal the
    tie-corrected variance is 0; every relabelling gives U = n_x n_y / 2, so the conditional
    p-value P(U >= observed) is 1, which we return directly.
    """
    both = (x.counts > 0) & (y.counts > 0)
    xlo, xhi = x.minmax()
    ylo, yhi = y.minmax()
    all_tied = both & (xlo == xhi) & (ylo == yhi) & (xlo == ylo)
    eligible = both & ~all_tied
    pooled = Grouped.build(
        np.concatenate([x.values, y.values]),
        np.concatenate([x.group_of_value, y.group_of_value]),
        x.n_groups,
    )
    ties = pooled.has_ties()
    keys = np.stack([x.counts, y.counts, ties.astype(np.int64)], axis=1)

    def run(groups: NDArray, key: tuple) -> NDArray[np.float64]:
        nx, ny, _ = key
        return np.asarray(mannwhitneyu_greater(x.rows(groups, nx), y.rows(groups, ny)))

    p = for_each_shape(keys, eligible, run)
    p[all_tied] = 1.0
    return p
