"""TrueSkill's two-player updates over a whole sequence of matches, compiled (numba).

The online updates are sequential (each match reads the ratings the previous ones left), so
no array operation can run them; as a Python loop they cost about 10 µs a match, 4.5 s for
the 450,000 pairwise outcomes of a 50,000-set campaign (issue 16). :func:`run_matches` is
the loop of :func:`analytics.stats.ranking.trueskill_rating._closed_form_python` compiled by
numba (about 0.4 µs a match): the same arithmetic operation for operation, with the trueskill
library's default backend written out: ``cdf(x) = 0.5 * erfc(-x / sqrt(2))`` with the
library's rational erfc approximation (Numerical Recipes' erfcc) and
``pdf(x) = 1 / sqrt(2 pi) * exp(-(x ** 2 / 2))`` (trueskill.backends, mu 0 and sigma 1 as
the library calls them). tests/analytics/stats/test_ranking_trueskill.py checks it against
the Python loop and the library's factor graph.

Imported on first use only (numba costs a web worker ~60 MiB and a second to import):
``trueskill_rating`` imports this module inside the function that needs it. ``cache=True``
keeps the compiled code on disk (``__pycache__``), so a new process loads it instead of
compiling again.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["run_matches", "warm_up"]

_SQRT2 = math.sqrt(2)  # the library's sigma * math.sqrt(2) with sigma = 1
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


@numba.njit(cache=True)
def _cdf(x: float) -> float:
    # trueskill.backends.cdf(x) = 0.5 * erfc(-(x - 0) / (1 * sqrt(2))), erfc inlined.
    y = -x / _SQRT2
    z = abs(y)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    return 0.5 * (2.0 - r if y < 0 else r)


@numba.njit(cache=True)
def _pdf(x: float) -> float:
    # trueskill.backends.pdf(x) = 1 / sqrt(2 pi) * |1| * exp(-(((x - 0) / |1|) ** 2 / 2)).
    return _INV_SQRT_2PI * 1.0 * math.exp(-(x**2 / 2))


@numba.njit(cache=True, nogil=True)
def _run(
    margin: float,
    two_beta2: float,
    tau2: float,
    mu: NDArray[np.float64],
    var: NDArray[np.float64],
    winner: NDArray[np.int64],
    loser: NDArray[np.int64],
    drawn: NDArray[np.bool_],
) -> int:
    for k in range(winner.shape[0]):
        a = winner[k]
        b = loser[k]
        va = var[a] + tau2
        vb = var[b] + tau2
        c2 = two_beta2 + va + vb
        c = math.sqrt(c2)
        t = (mu[a] - mu[b]) / c
        eps = margin / c
        if drawn[k]:
            abs_t = abs(t)
            lo = eps - abs_t
            hi = -eps - abs_t
            pdf_lo = _pdf(lo)
            pdf_hi = _pdf(hi)
            denom = _cdf(lo) - _cdf(hi)
            if denom == 0:
                return k + 1
            v_abs = (pdf_hi - pdf_lo) / denom
            v = -v_abs if t < 0 else v_abs
            w = (v_abs**2) + (lo * pdf_lo - hi * pdf_hi) / denom
        else:
            x = t - eps
            denom = _cdf(x)
            v = (_pdf(x) / denom) if denom != 0 else -x
            w = v * (v + x)
            if not (0 < w < 1):
                return -(k + 1)
        mu[a] += va / c * v
        mu[b] -= vb / c * v
        var[a] = va * (1.0 - va / c2 * w)
        var[b] = vb * (1.0 - vb / c2 * w)
    return 0


def run_matches(
    margin: float,
    beta: float,
    tau: float,
    mu: NDArray[np.float64],
    var: NDArray[np.float64],
    winner: NDArray[np.int64],
    loser: NDArray[np.int64],
    drawn: NDArray[np.bool_],
) -> None:
    """Play the matches in order, updating ``mu`` and ``var`` (float64, one per system) in
    place; FloatingPointError where the library's update would underflow."""
    failed = _run(
        float(margin),
        2.0 * beta * beta,
        tau * tau,
        mu,
        var,
        np.ascontiguousarray(winner, dtype=np.int64),
        np.ascontiguousarray(loser, dtype=np.int64),
        np.ascontiguousarray(drawn, dtype=np.bool_),
    )
    if failed > 0:
        raise FloatingPointError("TrueSkill draw update underflowed")
    if failed < 0:
        raise FloatingPointError("TrueSkill win update underflowed")


def warm_up() -> None:
    """Load the compiled code (numba's cache) for the types a recompute calls it with."""
    none = np.zeros(0, dtype=np.int64)
    run_matches(0.1, 1.0, 0.1, np.zeros(1), np.ones(1), none, none, np.zeros(0, dtype=np.bool_))
