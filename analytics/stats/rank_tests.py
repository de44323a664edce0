"""The scipy.stats tests a direct-assessment recompute runs, on numpy and scipy.special alone,
bit for bit as scipy 1.17 computes them.

Why: ``import scipy.stats`` costs a process about 47 MiB more than ``scipy.special`` (73 vs 26
MiB over numpy, measured) and about half a second of CPU, and a recompute needed four of its
functions: the t distribution's survival function, average ranks, the Wilcoxon signed-rank test
and the Mann-Whitney U test (issue 16: a Celery worker recomputing a million judgments under
300 MiB, a recompute's peak under 250 MiB). scipy.stats imports its whole package (every
distribution, scipy.spatial, scipy.optimize, ...) for any one of them.

Each function follows scipy's own code step for step (scipy.stats._continuous_distns.t_gen,
_stats_py._rankdata, _wilcoxon._wilcoxon_nd, _mannwhitneyu; BSD licence), with the same numpy
operations on arrays of the same shapes, so that every value is the same to the last bit
(tests/analytics/stats/test_rank_tests.py compares them with scipy.stats on many samples, with
ties, zeros and the exact paths). What scipy decides for a whole batch (an exact or an
asymptotic Wilcoxon test when any row has ties or zeros; Mann-Whitney's exact distribution
when any row has ties) is decided for the whole batch here too.

Not covered, and sent to scipy.stats itself (imported then, on first use): samples holding NaN
(scipy's NaN policy) and the Wilcoxon permutation path (13 or fewer differences with ties or
zeros, which analytics.stats.direct_assessment._groups enumerates itself and never sends here).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads the statistics modules but never computes.
special = lazy_module("scipy.special")
stats = lazy_module("scipy.stats")

__all__ = ["mannwhitneyu_greater", "rankdata_average", "t_sf", "wilcoxon"]

Alternative = Literal["greater", "two-sided"]


def t_sf(t: ArrayLike, df: ArrayLike) -> NDArray[np.float64]:
    """``scipy.stats.t.sf(t, df)``: ``special.stdtr(df, -t)`` where t is finite and df in
    (0, inf]; 1 at t = -inf, 0 at +inf, NaN for NaN t or a df outside (rv_continuous.sf)."""
    x = np.asarray(t, dtype=np.float64)
    df = np.asarray(df, dtype=np.float64)
    x, df = np.broadcast_arrays(x, df)
    valid = df > 0
    out = np.zeros(x.shape, dtype=np.float64)
    out[~valid | np.isnan(x)] = np.nan
    out[valid & (x == -np.inf)] = 1.0
    inside = valid & np.isfinite(x)
    if inside.any():
        out[inside] = special.stdtr(df[inside], -x[inside])
    return out[()] if out.ndim == 0 else out


def _rankdata(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """scipy.stats._stats_py._rankdata(x, "average", return_ties=True) along the last axis:
    average ranks (NaN sorted last, each its own value) and the tie counts of each sorted run
    at its first position (0 elsewhere)."""
    shape = x.shape
    j = np.argsort(x, axis=-1, kind="stable")
    ordinal_ranks = np.broadcast_to(np.arange(1, shape[-1] + 1, dtype=np.float64), shape)
    y = np.take_along_axis(x, j, axis=-1)
    i = np.concatenate([np.ones(shape[:-1] + (1,), dtype=bool), y[..., :-1] != y[..., 1:]], axis=-1)
    indices = np.arange(y.size)[np.reshape(i, (-1,))]
    counts = np.diff(indices, append=np.asarray([y.size], dtype=indices.dtype))
    ranks = ordinal_ranks[i] + (np.asarray(counts, dtype=np.float64) - 1) / 2
    ranks = np.reshape(np.repeat(ranks, counts), shape)
    ordered = np.empty(j.shape, dtype=ranks.dtype)
    np.put_along_axis(ordered, j, ranks, axis=-1)
    ties = np.zeros(shape, dtype=np.float64)
    ties[i] = counts.astype(np.float64)
    return ordered, ties


def rankdata_average(x: ArrayLike, *, omit_nan: bool = False) -> NDArray[np.float64]:
    """``scipy.stats.rankdata(x, axis=-1)`` (average ranks along the last axis); with
    ``omit_nan``, ``nan_policy="omit"``: NaN stay NaN, the others ranked among themselves."""
    a = np.asarray(x, dtype=np.float64)
    if a.size == 0:
        return np.empty(a.shape, dtype=np.float64)
    ranks, _ = _rankdata(a)
    if omit_nan:
        nan = np.isnan(a)
        if nan.any():
            ranks[nan] = np.nan
    return ranks


# --- Wilcoxon signed-rank ------------------------------------------------------------------


def _wilcoxon_distr(n: int) -> NDArray[np.float64]:
    """scipy.stats._hypotests._get_wilcoxon_distr: P(T+ = r), r = 0 .. n(n+1)/2."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev_c = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(prev_c)
        c[:m] = prev_c * 0.5
        c[-m:] += prev_c * 0.5
    return c


class _WilcoxonDistribution:
    """scipy.stats._wilcoxon.WilcoxonDistribution: the exact null distribution of T+."""

    def __init__(self, n: NDArray) -> None:
        n = np.asarray(n).astype(int, copy=False)
        self.n = n
        self._dists = {ni: _wilcoxon_distr(int(ni)) for ni in np.unique(n)}

    def _cdf1(self, k, n):
        return self._dists[n][: k + 1].sum()

    def _sf1(self, k, n):
        return self._dists[n][k:].sum()

    def _cdf(self, k, n):
        return np.vectorize(self._cdf1, otypes=[float])(k, n)

    def _sf(self, k, n):
        return np.vectorize(self._sf1, otypes=[float])(k, n)

    @staticmethod
    def _apply_where(cond, k, n, f1, f2):
        # array_api_extra.apply_where on numpy: f1 where cond, f2 elsewhere.
        temp1 = f1(k[cond], n[cond])
        ncond = ~cond
        temp2 = f2(k[ncond], n[ncond])
        out = np.empty_like(cond, dtype=np.result_type(temp1, temp2))
        out[ncond] = temp2
        out[cond] = temp1
        return out

    def cdf(self, k):
        k = np.asarray(k).astype(int, copy=False)
        k, n = np.broadcast_arrays(k, self.n)
        mean = n * (n + 1) / 4
        return self._apply_where(k <= mean, k, n, self._cdf, lambda k, n: 1 - self._sf(k + 1, n))[
            ()
        ]

    def sf(self, k):
        k = np.asarray(k).astype(int, copy=False)
        k, n = np.broadcast_arrays(k, self.n)
        mean = n * (n + 1) / 4
        return self._apply_where(k <= mean, k, n, self._sf, lambda k, n: 1 - self._cdf(k - 1, n))[
            ()
        ]


def wilcoxon(d: ArrayLike, alternative: Alternative) -> NDArray[np.float64]:
    """``scipy.stats.wilcoxon(d, alternative=alternative, axis=-1).pvalue`` with its defaults
    (zeros dropped, no continuity correction, method "auto"): the exact distribution when no
    row of the batch has ties or zeros and rows have at most 50 values, else the normal
    approximation with the tie correction."""
    d = np.asarray(d, dtype=np.float64)
    if d.size == 0 or np.isnan(d).any():
        return np.asarray(stats.wilcoxon(d, alternative=alternative, axis=-1).pvalue)
    n_zero = np.count_nonzero(d == 0, axis=None)
    method = "asymptotic" if d.shape[-1] > 50 else "auto"
    # _wilcoxon_statistic: zeros become NaN (ranked last, each alone, counted out).
    i_zeros = d == 0
    d = d.copy()
    d[i_zeros] = np.nan
    n_nan = np.count_nonzero(np.isnan(d), axis=-1)
    count = np.asarray(d.shape[-1] - n_nan).astype(np.float64)
    r, t = _rankdata(np.abs(d))
    r_plus = np.sum((d > 0).astype(np.float64) * r, axis=-1)
    has_ties = np.any(t == 0)
    mn = count * (count + 1.0) * 0.25
    se = count * (count + 1.0) * (2.0 * count + 1.0)
    tie_correct = np.sum(t**3 - t, axis=-1)
    se = np.sqrt((se - tie_correct / 2) / 24)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mn) / se
    if method == "auto":
        if not (has_ties or n_zero > 0):
            method = "exact"
        elif d.shape[-1] <= 13:
            # scipy's permutation test: not reproduced here (the groups' own enumeration).
            raise ValueError("wilcoxon: 13 or fewer differences with ties or zeros")
        else:
            method = "asymptotic"
    if method == "asymptotic":
        if alternative == "greater":
            p = special.ndtr(-z)
        else:
            p = 2 * special.ndtr(-np.abs(z))
    else:
        dist = _WilcoxonDistribution(count)
        r_plus_np = np.asarray(r_plus)
        if alternative == "greater":
            p = dist.sf(np.floor(r_plus_np))
        else:
            p = 2 * np.minimum(dist.sf(np.floor(r_plus_np)), dist.cdf(np.ceil(r_plus_np)))
            p = np.clip(p, 0, 1)
        p = np.asarray(p, dtype=np.float64)
    return p[()] if np.ndim(p) == 0 else p


# --- Mann-Whitney U ------------------------------------------------------------------------


class _MWU:
    """scipy.stats._mannwhitneyu._MWU: the exact null distribution of U, its frequencies
    kept between calls while the sample sizes stay the same (as scipy keeps them: a
    frequency past uint64 is continued in floats from where it first overflows, so the
    values depend on how far earlier calls built them)."""

    def __init__(self) -> None:
        self.n1: int | None = None
        self.n2: int | None = None
        self.s_array = np.zeros(0, dtype=int)
        self.configurations = np.zeros(0, dtype=np.uint64)

    def set_shapes(self, n1: int, n2: int) -> None:
        n1, n2 = min(n1, n2), max(n1, n2)
        if (n1, n2) == (self.n1, self.n2):
            return
        self.n1 = n1
        self.n2 = n2
        self.s_array = np.zeros(0, dtype=int)
        self.configurations = np.zeros(0, dtype=np.uint64)

    def pmf(self, k):
        pmfs = self.build_u_freqs_array(np.max(k))
        return pmfs[k]

    def cdf(self, k):
        pmfs = self.build_u_freqs_array(np.max(k))
        cdfs = np.cumsum(pmfs)
        return cdfs[k]

    def sf(self, k):
        kc = np.asarray(self.n1 * self.n2 - k)
        i = k < kc
        if np.any(i):
            kc[i] = k[i]
            cdfs = np.asarray(self.cdf(kc))
            cdfs[i] = 1.0 - cdfs[i] + self.pmf(kc[i])
        else:
            cdfs = np.asarray(self.cdf(kc))
        return cdfs[()]

    def build_sigma_array(self, a):
        n1, n2 = self.n1, self.n2
        if a + 1 <= self.s_array.size:
            return self.s_array[1 : a + 1]
        s_array = np.zeros(a + 1, dtype=int)
        for d in np.arange(1, n1 + 1):
            indices = np.arange(d, a + 1, d)
            s_array[indices] += d
        for d in np.arange(n2 + 1, n2 + n1 + 1):
            indices = np.arange(d, a + 1, d)
            s_array[indices] -= d
        self.s_array = s_array
        return s_array[1:]

    def build_u_freqs_array(self, maxu):
        n1, n2 = self.n1, self.n2
        total = special.binom(n1 + n2, n1)
        if maxu + 1 <= self.configurations.size:
            return self.configurations[: maxu + 1] / total
        s_array = self.build_sigma_array(maxu)
        configurations = np.zeros(maxu + 1, dtype=np.uint64)
        configurations_is_uint = True
        uint_max = np.iinfo(np.uint64).max
        configurations[0] = 1
        for u in np.arange(1, maxu + 1):
            coeffs = s_array[u - 1 :: -1]
            new_val = np.dot(configurations[:u], coeffs) / u
            if new_val > uint_max and configurations_is_uint:
                configurations = configurations.astype(float)
                configurations_is_uint = False
            configurations[u] = new_val
        self.configurations = configurations
        return configurations / total


_mwu_state = threading.local()


def _get_mwu_z(U, n1, n2, t):
    """scipy.stats._mannwhitneyu._get_mwu_z with the continuity correction."""
    mu = n1 * n2 / 2
    n = n1 + n2
    tie_term = np.sum(t**3 - t, axis=-1)
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    numerator = U - mu
    numerator -= 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z = numerator / s
    return z


def mannwhitneyu_greater(x: ArrayLike, y: ArrayLike) -> NDArray[np.float64] | float:
    """``scipy.stats.mannwhitneyu(x, y, alternative="greater", axis=-1).pvalue`` with its
    defaults (continuity correction, method "auto": exact when a side has at most 8 values
    and no row of the batch has ties, else the normal approximation)."""
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))
    y = np.atleast_1d(np.asarray(y, dtype=np.float64))
    if x.size == 0 or y.size == 0 or np.isnan(x).any() or np.isnan(y).any():
        return stats.mannwhitneyu(x, y, alternative="greater", axis=-1).pvalue
    xy = np.concatenate((x, y), axis=-1)
    n1, n2 = x.shape[-1], y.shape[-1]
    ranks, t = _rankdata(xy)
    r1 = np.sum(ranks[..., :n1], axis=-1)
    u1 = r1 - n1 * (n1 + 1) / 2
    if n1 > 8 and n2 > 8 or np.any(t > 1):
        p = special.ndtr(-_get_mwu_z(u1, n1, n2, t))
    else:
        if not hasattr(_mwu_state, "s"):
            _mwu_state.s = _MWU()
        _mwu_state.s.set_shapes(n1, n2)
        p = np.asarray(_mwu_state.s.sf(np.asarray(u1, np.int64)), dtype=np.float64)
    p = np.clip(p, 0.0, 1.0)
    return p
