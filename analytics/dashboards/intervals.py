"""Bootstrap intervals of system means over segments, for the direct-assessment forest plot
(pure numpy, no Django).

The stored direct-assessment results keep each system's Ave z and its rank range, but no
interval; the forest plot needs one. Resampling segments (with replacement) keeps a segment's
judgments together, as WMT's bootstrap does. With the campaign's default averaging (WMT's:
segment means first, then their mean) each segment weighs the same; with the flat mean over
judgments (2014 Table 3) a segment weighs its number of judgments, and the weighted mean of
segment means is exactly the flat mean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["bootstrap_mean_intervals"]


def bootstrap_mean_intervals(
    system: ArrayLike,
    value: ArrayLike,
    weight: ArrayLike | None = None,
    *,
    systems: ArrayLike,
    samples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Percentile bootstrap interval of each system's (weighted) mean of ``value``.

    One row per (segment, system): ``system`` its system id, ``value`` its segment mean,
    ``weight`` its weight (None: 1 each). Returns ``(low, high)`` aligned to ``systems``;
    NaN for a system without rows, and the value itself (a zero-width interval) for a system
    with one segment.
    """
    system = np.asarray(system, dtype=np.int64).reshape(-1)
    value = np.asarray(value, dtype=np.float64).reshape(-1)
    weight = (
        np.ones_like(value) if weight is None else np.asarray(weight, dtype=np.float64).reshape(-1)
    )
    if not (system.shape == value.shape == weight.shape):
        raise ValueError("system, value and weight must have the same length")
    wanted = np.asarray(systems, dtype=np.int64).reshape(-1)
    low = np.full(wanted.shape[0], np.nan)
    high = np.full(wanted.shape[0], np.nan)
    finite = np.isfinite(value) & (weight > 0)
    rng = np.random.default_rng(seed)
    tail = (1 - level) / 2
    # One resampling per system (a loop over systems, not rows): systems have different
    # numbers of segments, and each is resampled within its own.
    for index, pk in enumerate(wanted):
        rows = np.flatnonzero((system == pk) & finite)
        if rows.size == 0:
            continue
        v, w = value[rows], weight[rows]
        picks = rng.integers(0, rows.size, size=(samples, rows.size))
        means = (v[picks] * w[picks]).sum(axis=1) / w[picks].sum(axis=1)
        low[index], high[index] = np.quantile(means, [tail, 1 - tail])
    return low, high
