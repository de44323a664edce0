"""The bootstrap's draws and recount in one compiled pass (numba).

:func:`replicate_totals` gives what :func:`analytics.stats.ranking.bootstrap._replicate_chunks`
computes with numpy (per replicate, the outcome counts of every cell: the sum over the drawn
units of their counts), from the very same draws: ``rng.integers(0, n_units, (B, n_units))``
replicate after replicate. NumPy draws such a bounded integer from the bit generator's
``next_uint32`` with Lemire's rejection (numpy/random/src/distributions/
distributions.c, ``random_bounded_uint64_fill`` and ``buffered_bounded_lemire_uint32``, for a
range that fits 32 bits); :func:`_draw` is that loop, calling the same ``next_uint32`` of the
same generator (numba's binding of the bit generator), so the generator is left in the state
NumPy would leave it in. tests/analytics/stats/test_ranking_bootstrap.py checks the draws
against ``rng.integers`` and the totals against the numpy path.

Why compiled: the numpy path writes every draw to memory (8 bytes each, 50 million at 50,000
sets and 1000 replicates), counts them with a bincount into another array of that size and
transposes it for the sparse product: about 0.75 s of CPU per variant at 50,000 sets (issue
16). Here each draw is counted where it is made, into a few replicates' counts that stay in
the processor's cache, and the counts are multiplied out at once; all integers, so the totals
are exact, as the numpy path's are.

Imported on first use only (numba costs a web worker ~60 MiB and a second to import), as
``trueskill_kernel`` is; ``cache=True`` keeps the compiled code on disk (``__pycache__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from numba.np.random.generator_core import next_uint32

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LARGEST_UNITS", "uniform_draws", "unit_multiplicities", "warm_up"]

# NumPy takes another algorithm (64-bit Lemire) when the range does not fit 32 bits.
LARGEST_UNITS = 0xFFFFFFFF  # n_units - 1 below 0xFFFFFFFF: the 32-bit path, with rejection

# Replicates counted together: their counts (units x _TILE int32) stay in the cache.
_TILE = 8

_LOW32 = np.uint64(0xFFFFFFFF)


@numba.njit(cache=True, inline="always")
def _draw(bitgen, n_units: np.uint64, threshold: np.uint64) -> np.int64:
    # numpy's buffered_bounded_lemire_uint32 with rng = n_units - 1 (rng_excl = n_units).
    m = np.uint64(next_uint32(bitgen)) * n_units
    leftover = m & _LOW32
    if leftover < n_units:
        while leftover < threshold:
            m = np.uint64(next_uint32(bitgen)) * n_units
            leftover = m & _LOW32
    return np.int64(m >> np.uint64(32))


@numba.njit(cache=True)
def _uniform_draws(rng, n_units: int, n_samples: int) -> NDArray[np.int64]:
    out = np.zeros((n_samples, n_units), dtype=np.int64)
    if n_units < 2:  # numpy: a range of one value draws nothing
        return out
    bitgen = rng.bit_generator
    units = np.uint64(n_units)
    threshold = (_LOW32 - np.uint64(n_units - 1)) % units
    for b in range(n_samples):
        for k in range(n_units):
            out[b, k] = _draw(bitgen, units, threshold)
    return out


@numba.njit(cache=True)
def _multiplicities(rng, n_units: int, out: NDArray, counts: NDArray[np.int32]) -> None:
    size = out.shape[1]
    tile = counts.shape[1]
    bitgen = rng.bit_generator
    units = np.uint64(n_units)
    threshold = (_LOW32 - np.uint64(n_units - 1)) % units
    for first in range(0, size, tile):
        width = min(tile, size - first)
        counts[:] = 0
        for j in range(width):  # replicate after replicate: numpy's order of draws
            if n_units < 2:  # numpy: a range of one value draws nothing
                counts[0, j] = n_units
                continue
            for _ in range(n_units):
                counts[_draw(bitgen, units, threshold), j] += 1
        for u in range(n_units):
            for j in range(width):
                out[u, first + j] = counts[u, j]


def uniform_draws(rng: np.random.Generator, n_units: int, n_samples: int) -> NDArray[np.int64]:
    """``rng.integers(0, n_units, (n_samples, n_units))``, drawn by :func:`_draw` (tests)."""
    if not 1 <= n_units <= LARGEST_UNITS:
        raise ValueError(f"n_units must be 1 .. {LARGEST_UNITS}, got {n_units}")
    return _uniform_draws(rng, int(n_units), int(n_samples))


def unit_multiplicities(rng: np.random.Generator, n_units: int, out: NDArray) -> None:
    """Fill ``out`` (n_units x replicates, float32 or float64, C order) with how often each
    replicate drew each unit: column b is
    ``np.bincount(rng.integers(0, n_units, n_units), minlength=n_units)`` of replicate b,
    the replicates drawn in column order from ``rng`` (module docstring)."""
    if not 1 <= n_units <= LARGEST_UNITS:
        raise ValueError(f"n_units must be 1 .. {LARGEST_UNITS}, got {n_units}")
    if out.ndim != 2 or out.shape[0] != n_units or not out.flags.c_contiguous:
        raise ValueError("out must be a C-ordered (n_units, replicates) array")
    _multiplicities(rng, int(n_units), out, np.empty((n_units, _TILE), dtype=np.int32))


def warm_up() -> None:
    """Load the compiled code (numba's cache) for the types a recompute calls it with."""
    for value_type in (np.float32, np.float64):
        unit_multiplicities(np.random.default_rng(0), 1, np.empty((1, 1), dtype=value_type))
