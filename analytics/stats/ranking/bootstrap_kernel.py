"""The bootstrap's draws, recount and totals in one compiled pass (numba).

:func:`replicate_totals` gives what :func:`analytics.stats.ranking.bootstrap._replicate_chunks`
computes with numpy (per replicate, the outcome counts of every cell: the sum over the drawn
units of their counts), from the very same draws: ``rng.integers(0, n_units, (B, n_units))``
replicate after replicate. NumPy draws such a bounded integer from the bit generator's
``next_uint32`` with Lemire's rejection (numpy/random/src/distributions/
distributions.c, ``random_bounded_uint64_fill`` and ``buffered_bounded_lemire_uint32``, for a
range that fits 32 bits); :func:`_draw` is that loop. ``next_uint32`` is PCG64's
(numpy/random/src/pcg64/pcg64.h: ``pcg64_next32``, the 128-bit LCG step with the XSL-RR
output, each 64-bit output giving two 32-bit values, the high half kept for the next call)
written out here on the generator's state, which is read before and written back after, so
the generator is left in the state NumPy would leave it in. Only ``default_rng``'s PCG64 is
copied; another bit generator takes the numpy path (:func:`supports`).
tests/analytics/stats/test_ranking_bootstrap.py checks the draws against ``rng.integers``,
the generator's state after them, and the totals against the numpy path.

Why compiled, and why this way (issue 16): the numpy path writes every draw to memory
(8 bytes each, 50 million at 50,000 sets and 1000 replicates), counts them with a bincount
into another array of that size and transposes it for a sparse product. Calling numba's
binding of the bit generator's ``next_uint32`` cost an indirect call per draw (about 60% of
the kernel's time); the PCG64 step inlined costs about 1.6 ns. Each draw is counted into a
tile of a few replicates' counts (units x ``_TILE``, 16-bit while no count can exceed it)
that stays in the processor's cache, and the tile is multiplied out against each unit's
cells at once into the tile's totals (cells x ``_TILE``, in L1), so no units x replicates
array is ever written: all integers, so the totals are exact, as the numpy path's are.

Imported on first use only (numba costs a web worker ~60 MiB and a second to import), as
``trueskill_kernel`` is; ``cache=True`` keeps the compiled code on disk (``__pycache__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LARGEST_UNITS", "replicate_totals", "supports", "uniform_draws", "warm_up"]

# NumPy takes another algorithm (64-bit Lemire) when the range does not fit 32 bits.
LARGEST_UNITS = 0xFFFFFFFF  # n_units - 1 below 0xFFFFFFFF: the 32-bit path, with rejection

# Replicates counted together: their counts (units x _TILE, 16-bit: 1.5 MiB at 50,000 units)
# stay in the L2 cache while the draws land at random units; wider tiles left it.
_TILE = 16
# Below this many units no unit can be drawn more times than a uint16 holds.
_UINT16_UNITS = 0xFFFF
# Sums in 32 bits while a total (at most every draw's largest unit) stays below this.
_INT32_TOTAL = 2**31

_LOW32 = np.uint64(0xFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_SHIFT32 = np.uint64(32)
_SHIFT_ROTATE = np.uint64(58)  # 128 - 6 - 64: the rotation is the state's top 6 bits
_ROTATE_MASK = np.uint64(63)
# PCG_DEFAULT_MULTIPLIER_128 (pcg64.h), high and low 64 bits.
_MULTIPLIER_HIGH = np.uint64(0x2360ED051FC65DA4)
_MULTIPLIER_LOW = np.uint64(0x4385DF649FCCF645)
_MASK64 = (1 << 64) - 1


@intrinsic
def _mul_high(typingctx, a, b):  # numba passes the typing context first
    """The high 64 bits of the 128-bit product of two uint64 (one MUL instruction)."""
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(product, ir.Constant(wide, 64)), ir.IntType(64))

    return signature, codegen


@numba.njit(cache=True, inline="always")
def _next64(high, low, inc_high, inc_low):
    # pcg_setseq_128_step_r then pcg_output_xsl_rr_128_64 on the new state; all uint64.
    product_low = low * _MULTIPLIER_LOW
    product_high = _mul_high(low, _MULTIPLIER_LOW) + low * _MULTIPLIER_HIGH + high * _MULTIPLIER_LOW
    new_low = product_low + inc_low
    new_high = product_high + inc_high + (_ONE if new_low < product_low else _ZERO)
    mixed = new_high ^ new_low
    rotation = new_high >> _SHIFT_ROTATE
    value = (mixed >> rotation) | (mixed << ((_ZERO - rotation) & _ROTATE_MASK))
    return new_high, new_low, value


@numba.njit(cache=True, inline="always")
def _next32(high, low, inc_high, inc_low, has_half, half):
    # pcg64_next32: the high half of the last 64-bit output when one is kept, else a new one.
    if has_half != _ZERO:
        return high, low, _ZERO, half, half
    high, low, value = _next64(high, low, inc_high, inc_low)
    return high, low, _ONE, value >> _SHIFT32, value & _LOW32


@numba.njit(cache=True, inline="always")
def _draw(state, n_units, threshold):
    # numpy's buffered_bounded_lemire_uint32 with rng = n_units - 1 (rng_excl = n_units);
    # ``state`` is (high, low, inc_high, inc_low, has_half, half) and comes back advanced.
    high, low, inc_high, inc_low, has_half, half = state
    high, low, has_half, half, value = _next32(high, low, inc_high, inc_low, has_half, half)
    m = value * n_units
    leftover = m & _LOW32
    if leftover < n_units:
        while leftover < threshold:
            high, low, has_half, half, value = _next32(high, low, inc_high, inc_low, has_half, half)
            m = value * n_units
            leftover = m & _LOW32
    return (high, low, inc_high, inc_low, has_half, half), np.int64(m >> _SHIFT32)


@numba.njit(cache=True)
def _uniform_draws(words, n_units: int, n_samples: int) -> NDArray[np.int64]:
    out = np.zeros((n_samples, n_units), dtype=np.int64)
    if n_units < 2:  # numpy: a range of one value draws nothing
        return out
    state = (words[0], words[1], words[2], words[3], words[4], words[5])
    units = np.uint64(n_units)
    threshold = (_LOW32 - np.uint64(n_units - 1)) % units
    for b in range(n_samples):
        for k in range(n_units):
            state, out[b, k] = _draw(state, units, threshold)
    words[0], words[1], words[4], words[5] = state[0], state[1], state[4], state[5]
    return out


@numba.njit(cache=True, nogil=True)
def _unit_lists(n_units, unit, cell, n_cells):
    """Each unit's cells and counts (CSR: ``start[u]:start[u + 1]``), from one unit and one
    cell per pair: a counting sort, each unit's repeated cells summed into one entry."""
    size = np.zeros(n_units + 1, dtype=np.int64)
    for k in range(unit.shape[0]):
        size[unit[k] + 1] += 1
    for u in range(n_units):
        size[u + 1] += size[u]
    fill = size[:-1].copy()
    by_unit = np.empty(unit.shape[0], dtype=np.int64)
    for k in range(unit.shape[0]):
        by_unit[fill[unit[k]]] = cell[k]
        fill[unit[k]] += 1
    start = np.zeros(n_units + 1, dtype=np.int64)
    unit_cell = np.empty(unit.shape[0], dtype=np.int64)
    unit_count = np.zeros(unit.shape[0], dtype=np.int64)
    entry_of = np.full(n_cells, -1, dtype=np.int64)  # the cell's entry in the current unit
    n_entries = 0
    for u in range(n_units):
        for k in range(size[u], size[u + 1]):
            c = by_unit[k]
            if entry_of[c] < start[u]:
                entry_of[c] = n_entries
                unit_cell[n_entries] = c
                n_entries += 1
            unit_count[entry_of[c]] += 1
        start[u + 1] = n_entries
    return start, unit_cell[:n_entries].copy(), unit_count[:n_entries].copy()


@numba.njit(cache=True, nogil=True)
def _totals(words, n_units, unit_start, unit_cell, unit_count, totals, counts, tile_totals):
    n_samples, n_cells = totals.shape
    tile = counts.shape[1]
    state = (words[0], words[1], words[2], words[3], words[4], words[5])
    units = np.uint64(n_units)
    threshold = (_LOW32 - np.uint64(n_units - 1)) % units
    for first in range(0, n_samples, tile):
        width = min(tile, n_samples - first)
        counts[:] = 0
        for j in range(width):  # replicate after replicate: numpy's order of draws
            if n_units < 2:  # numpy: a range of one value draws nothing
                counts[0, j] = n_units
                continue
            for _ in range(n_units):
                state, unit = _draw(state, units, threshold)
                counts[unit, j] += 1
        # The tile's totals: every unit's cells, times how often each replicate drew it.
        tile_totals[:] = 0
        for u in range(n_units):
            row = counts[u]
            for k in range(unit_start[u], unit_start[u + 1]):
                cell_totals = tile_totals[unit_cell[k]]
                weight = unit_count[k]
                for j in range(tile):
                    cell_totals[j] += row[j] * weight
        for j in range(width):
            for c in range(n_cells):
                totals[first + j, c] = tile_totals[c, j]
    words[0], words[1], words[4], words[5] = state[0], state[1], state[4], state[5]


def supports(rng: np.random.Generator, n_units: int) -> bool:
    """Whether the kernel draws what ``rng.integers(0, n_units, ...)`` would: a PCG64
    generator (``default_rng``'s) and a range that fits numpy's 32-bit algorithm."""
    return type(rng.bit_generator) is np.random.PCG64 and 1 <= n_units <= LARGEST_UNITS


def _read_state(rng: np.random.Generator) -> NDArray[np.uint64]:
    state = rng.bit_generator.state
    value, inc = state["state"]["state"], state["state"]["inc"]
    return np.array(
        [
            value >> 64,
            value & _MASK64,
            inc >> 64,
            inc & _MASK64,
            state["has_uint32"],
            state["uinteger"],
        ],
        dtype=np.uint64,
    )


def _write_state(rng: np.random.Generator, words: NDArray[np.uint64]) -> None:
    high, low, inc_high, inc_low, has_half, half = (int(w) for w in words)
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (high << 64) | low, "inc": (inc_high << 64) | inc_low},
        "has_uint32": has_half,
        "uinteger": half,
    }


def _check(rng: np.random.Generator, n_units: int) -> None:
    if not supports(rng, n_units):
        raise ValueError(
            f"needs a PCG64 generator and n_units 1 .. {LARGEST_UNITS}, got "
            f"{type(rng.bit_generator).__name__} and {n_units}"
        )


def uniform_draws(rng: np.random.Generator, n_units: int, n_samples: int) -> NDArray[np.int64]:
    """``rng.integers(0, n_units, (n_samples, n_units))``, drawn by :func:`_draw` (tests)."""
    _check(rng, n_units)
    words = _read_state(rng)
    out = _uniform_draws(words, int(n_units), int(n_samples))
    _write_state(rng, words)
    return out


def replicate_totals(
    rng: np.random.Generator,
    n_samples: int,
    n_units: int,
    unit: NDArray[np.int64],
    cell: NDArray[np.int64],
    n_cells: int,
) -> NDArray[np.float64]:
    """(n_samples, n_cells) totals: for each replicate, drawn as
    ``rng.integers(0, n_units, n_units)`` (replicate after replicate), how many of the pairs
    of the drawn units (with repetition) fall in each cell. Pair k belongs to unit
    ``unit[k]`` (0 .. n_units - 1; every unit has one) and counts in cell ``cell[k]``."""
    _check(rng, n_units)
    if unit.shape != cell.shape:
        raise ValueError("unit and cell must have one value per pair")
    unit = np.ascontiguousarray(unit, dtype=np.int64)
    cell = np.ascontiguousarray(cell, dtype=np.int64)
    unit_start, unit_cell, unit_count = _unit_lists(int(n_units), unit, cell, int(n_cells))
    # A total is at most every draw's largest unit's pairs: 32-bit sums while that fits.
    largest = int(np.diff(unit_start).max()) * int(unit_count.max()) if unit_count.size else 0
    sum_type = np.int64 if n_units * max(largest, 1) >= _INT32_TOTAL else np.int32
    count_type = np.uint16 if n_units <= _UINT16_UNITS else np.uint32
    totals = np.empty((int(n_samples), int(n_cells)), dtype=np.float64)
    words = _read_state(rng)
    _totals(
        words,
        int(n_units),
        unit_start,
        unit_cell,
        unit_count.astype(sum_type),
        totals,
        np.empty((n_units, _TILE), dtype=count_type),
        np.empty((int(n_cells), _TILE), dtype=sum_type),
    )
    _write_state(rng, words)
    return totals


def warm_up() -> None:
    """Load the compiled code (numba's cache) for the types a recompute calls it with."""
    zero = np.zeros(1, dtype=np.int64)
    start, unit_cell, unit_count = _unit_lists(1, zero, zero, 1)
    for sum_type in (np.int32, np.int64):
        for count_type in (np.uint16, np.uint32):
            _totals(
                _read_state(np.random.default_rng(0)),
                1,
                start,
                unit_cell,
                unit_count.astype(sum_type),
                np.empty((1, 1)),
                np.empty((1, _TILE), dtype=count_type),
                np.empty((1, _TILE), dtype=sum_type),
            )
