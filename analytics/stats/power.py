"""How many more judgments would make two systems significantly different (issue 17 item 4).

Pure statistics (numpy/scipy, no Django). Two estimates, one per kind of test the campaigns
use; both answer "how much data would the campaign's own one-sided test need so that it
finds the better-scoring system significantly better at ``alpha`` with probability
``power`` (0.8 by convention), if the systems differ as much as they do now?".

**Rank-sum tests (direct assessment: one-sided Wilcoxon rank-sum / Mann-Whitney U on
segment-mean or per-judgment z-scores).** Noether's sample size formula (G. E. Noether 1987,
"Sample size determination for some common nonparametric tests", JASA 82(398):645-647): with
p = P(X > Y) + P(X = Y) / 2, the probability that an observation of the better system beats
one of the worse (estimated by U / (n_x n_y) on the current samples, ties counting half),
and a share c of the N observations on the first system, the one-sided test at level alpha
has power 1 - beta when

    N = (z_{1-alpha} + z_{1-beta})^2 / (12 c (1 - c) (p - 1/2)^2).

It is the normal approximation of U under the alternative with U's null variance, which is
what scipy's asymptotic test uses; it needs no assumption about the scores' distribution.
We take equal shares (c = 1/2: the HIT builders spread judgments evenly over systems), so
each system needs n = N / 2 observations. :func:`simulated_rank_sum_size` checks it by
simulation: it resamples the current per-system samples at size n (with replacement, a
"smoothed" future campaign whose systems look like today's), runs the same one-sided test on
each simulated pair and takes the smallest n at which the share of p-values below alpha
reaches the power; tests/analytics/stats/test_power.py shows the two agree.

Assumptions, said on the page too: the observed effect is the true one (a small observed
difference can be noise, and then no amount of data separates the systems: the estimate is
the data needed *if* the difference is real); new observations resemble today's
(same workers' quality, same segments' difficulty); observations are independent (segment
means are: one per segment; per-judgment z-scores of one worker are not quite).

**Bootstrap tests (ranking: the p-value is the share of resamples of ranking sets in which
the better system does not score higher).** The bootstrap distribution of the score
difference d is close to normal with standard error se (its sd over the replicates), so the
bootstrap p-value is about Phi(-d / se). Resampling units (ranking sets) are independent, so
se shrinks as 1 / sqrt(units): with k times the units, the future estimate of d is
N(d, se^2 / k), and the test separates the systems with probability ``power`` when
d / (se / sqrt(k)) >= z_{1-alpha} + z_power:

    k = ((z_{1-alpha} + z_power) * se / d)^2.

:func:`normal_sample_factor` gives k; the units needed are ceil(k * units now).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats._lazy import lazy_module

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use (a web worker loads this module but computes nothing; issue 16).
stats = lazy_module("scipy.stats")

__all__ = [
    "DEFAULT_POWER",
    "RankSumSize",
    "noether_total_n",
    "normal_sample_factor",
    "probability_of_superiority",
    "SIMULATION_MAX_N",
    "SIMULATION_REPLICATES",
    "SIMULATION_SEED",
    "rank_sum_size",
    "replicate_difference",
    "simulated_rank_sum_sizing",
    "simulated_rank_sum_power",
    "simulated_rank_sum_size",
    "units_needed",
    "z_sum",
]

DEFAULT_POWER = 0.8

# The simulation offered beside Noether's formula ("judgments still needed", method
# "simulation"): its replicates per sample size, its seed (every n is simulated with the same
# seed, so the answer is reproducible) and the largest n per system it tries. The bound keeps
# one search to about 2 x 11 steps of at most 400 x 2 x 5,000 draws and one vectorised test.
SIMULATION_REPLICATES = 400
SIMULATION_SEED = 0
SIMULATION_MAX_N = 5_000


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    if not 0 < power < 1:
        raise ValueError(f"power must be between 0 and 1, got {power!r}")


def z_sum(alpha: float, power: float) -> float:
    """z_{1-alpha} + z_{power}: the one-sided test's critical value plus the distance the
    expected statistic must stand beyond it to be past it with probability ``power``."""
    _check(alpha, power)
    return float(stats.norm.ppf(1.0 - alpha) + stats.norm.ppf(power))


def probability_of_superiority(x: ArrayLike, y: ArrayLike) -> float:
    """P(X > Y) + P(X = Y) / 2 over every pair of an x and a y: U_xy / (n_x n_y), the
    Mann-Whitney statistic of "x greater" scaled to [0, 1] (NaN if a sample is empty). One
    sort of y and two searches."""
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.sort(np.asarray(y, dtype=np.float64).reshape(-1))
    if xs.size == 0 or ys.size == 0:
        return float("nan")
    below = np.searchsorted(ys, xs, side="left")
    equal = np.searchsorted(ys, xs, side="right") - below
    return float((below.sum() + equal.sum() / 2.0) / (xs.size * ys.size))


def noether_total_n(
    p_superiority: float, *, alpha: float = 0.05, power: float = DEFAULT_POWER, share: float = 0.5
) -> float:
    """Noether (1987): the total number of observations N the one-sided rank-sum test needs
    (module docstring), ``share`` of them on the first system. Infinite when p = 1/2 (no
    difference to find) or when p is on the wrong side (the first system is not better)."""
    _check(alpha, power)
    if not 0 < share < 1:
        raise ValueError(f"share must be between 0 and 1, got {share!r}")
    effect = p_superiority - 0.5
    if not effect > 0:  # also NaN
        return math.inf
    return z_sum(alpha, power) ** 2 / (12.0 * share * (1.0 - share) * effect**2)


@dataclass(frozen=True)
class RankSumSize:
    """What the better system x and the worse system y need (equal shares).

    ``per_system``: observations each system needs (ceil(N / 2)); ``more_x``/``more_y``: how
    many more than now (0 if it has enough already). ``None`` for both when no finite number
    suffices (the observed p_superiority is 1/2 or below).
    """

    p_superiority: float
    n_x: int
    n_y: int
    per_system: int | None
    more_x: int | None
    more_y: int | None


def rank_sum_size(
    x: ArrayLike, y: ArrayLike, *, alpha: float = 0.05, power: float = DEFAULT_POWER
) -> RankSumSize:
    """Noether's estimate for the current samples: x the better system's, y the worse's."""
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.asarray(y, dtype=np.float64).reshape(-1)
    p = probability_of_superiority(xs, ys)
    total = noether_total_n(p, alpha=alpha, power=power)
    if not math.isfinite(total):
        return RankSumSize(p, xs.size, ys.size, None, None, None)
    per_system = math.ceil(total / 2.0)
    return RankSumSize(
        p_superiority=p,
        n_x=int(xs.size),
        n_y=int(ys.size),
        per_system=per_system,
        more_x=max(0, per_system - int(xs.size)),
        more_y=max(0, per_system - int(ys.size)),
    )


def simulated_rank_sum_power(
    x: ArrayLike,
    y: ArrayLike,
    n: int,
    *,
    alpha: float = 0.05,
    n_simulations: int = 400,
    seed: int = 0,
) -> float:
    """The share of ``n_simulations`` simulated campaigns, each resampling n observations of
    x and n of y with replacement, in which the one-sided rank-sum test "x greater" gives p
    below ``alpha``. All simulations in one vectorised scipy call (asymptotic p-values with
    the tie correction: resamples with replacement have ties, where scipy's default takes
    the same normal approximation)."""
    if n < 1 or n_simulations < 1:
        raise ValueError("n and n_simulations must be at least 1")
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.asarray(y, dtype=np.float64).reshape(-1)
    if xs.size == 0 or ys.size == 0:
        raise ValueError("both samples need at least one value")
    rng = np.random.default_rng(seed)
    sim_x = xs[rng.integers(0, xs.size, size=(n_simulations, n))]
    sim_y = ys[rng.integers(0, ys.size, size=(n_simulations, n))]
    # A simulated pair whose values are all one value has no variance (scipy gives NaN);
    # its p-value is 1, as analytics.stats.significance says.
    with np.errstate(invalid="ignore", divide="ignore"):
        p = stats.mannwhitneyu(
            sim_x, sim_y, alternative="greater", method="asymptotic", axis=1
        ).pvalue
    p = np.where(np.isnan(p), 1.0, p)
    return float(np.mean(p < alpha))


def simulated_rank_sum_size(
    x: ArrayLike,
    y: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    n_simulations: int = 400,
    seed: int = 0,
    max_n: int = 100_000,
    start: int = 1,
) -> int | None:
    """The smallest n per system at which :func:`simulated_rank_sum_power` reaches ``power``
    (every n is simulated with the same ``seed``, so the answer is reproducible), searched by
    doubling from ``start`` (1 by default; e.g. half of Noether's estimate: fewer steps),
    then bisecting; None if even ``max_n`` does not reach it. If ``start`` already reaches
    it, the bisection runs between 1 and ``start``."""
    _check(alpha, power)

    def reaches(n: int) -> bool:
        return (
            simulated_rank_sum_power(x, y, n, alpha=alpha, n_simulations=n_simulations, seed=seed)
            >= power
        )

    # Invariant: n = low does not reach the power (0: nothing does), n = high does.
    low, high = 1, 2
    if start > 1:
        start = min(start, max_n)
        if reaches(start):
            low, high = 0, start
        else:
            low, high = start, min(2 * start, max_n)
    while low and not reaches(high):
        if high >= max_n:
            return None
        low, high = high, min(2 * high, max_n)
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high


def normal_sample_factor(
    difference: float, standard_error: float, *, alpha: float = 0.05, power: float = DEFAULT_POWER
) -> float:
    """k, the multiple of today's resampling units a bootstrap test needs (module docstring):
    ((z_{1-alpha} + z_power) * se / d)^2. Infinite when d <= 0 (no difference to find) or se
    is not finite; 0 when se is 0 and d > 0 (every resample already agrees)."""
    z = z_sum(alpha, power)
    if not difference > 0 or not math.isfinite(standard_error):
        return math.inf
    return (z * standard_error / difference) ** 2


def units_needed(units_now: int, factor: float) -> int | None:
    """ceil(factor * units_now), at least units_now; None for an infinite factor."""
    if not math.isfinite(factor):
        return None
    return max(units_now, math.ceil(factor * units_now))


def replicate_difference(samples: NDArray[np.float64], i: int, j: int) -> tuple[float, float]:
    """The mean and standard deviation (ddof 1) of score_i - score_j over bootstrap replicates
    (rows of ``samples``); replicates where either is NaN are left out."""
    diff = samples[:, i] - samples[:, j]
    diff = diff[np.isfinite(diff)]
    if diff.size < 2:
        return float("nan"), float("nan")
    return float(diff.mean()), float(diff.std(ddof=1))


def simulated_rank_sum_sizing(
    x: ArrayLike,
    y: ArrayLike,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    n_simulations: int = SIMULATION_REPLICATES,
    seed: int = SIMULATION_SEED,
    max_n: int = SIMULATION_MAX_N,
) -> RankSumSize:
    """:func:`rank_sum_size`'s answer found by simulation (:func:`simulated_rank_sum_size`)
    instead of Noether's formula: the same fields, ``per_system`` the simulated n. None when
    the better system wins half the comparisons or fewer (no n separates them: nothing is
    simulated) or when ``max_n`` per system does not reach ``power`` (then p_superiority is
    above 1/2: tell the two apart by it). The search starts at half of Noether's n, which
    the simulation usually confirms within a few steps."""
    noether = rank_sum_size(x, y, alpha=alpha, power=power)
    if noether.per_system is None:
        return noether
    n = simulated_rank_sum_size(
        x,
        y,
        alpha=alpha,
        power=power,
        n_simulations=n_simulations,
        seed=seed,
        max_n=max_n,
        start=max(1, min(noether.per_system, max_n) // 2),
    )
    if n is None:
        return replace(noether, per_system=None, more_x=None, more_y=None)
    return replace(
        noether, per_system=n, more_x=max(0, n - noether.n_x), more_y=max(0, n - noether.n_y)
    )
