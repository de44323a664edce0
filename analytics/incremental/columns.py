"""Growable, narrow numpy columns for the arrays a worker keeps between recomputes.

Judgments are append-only, so a cached campaign grows at its end: each column keeps spare
capacity (a quarter more each time it fills) and appending copies only the new rows. Id columns are
stored as int32 while every id fits (half of int64's bytes; a million judgments' ids take
4 MB per column) and widened to int64 once one does not. Floats stay float64: scores and
durations must be the very values a full load reads, or the statistics would differ.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Column", "narrow_ids"]

_INT32_MAX = np.iinfo(np.int32).max
_INT32_MIN = np.iinfo(np.int32).min


def narrow_ids(values: NDArray) -> NDArray:
    """Integer ids as int32 when they all fit, else int64 (-1 stands for "none")."""
    values = np.asarray(values)
    if values.size and (values.max() > _INT32_MAX or values.min() < _INT32_MIN):
        return values.astype(np.int64)
    return values.astype(np.int32)


class Column:
    """One column: ``view()`` is the filled part; ``append`` grows it, ``truncate`` cuts it."""

    def __init__(self, dtype: type) -> None:
        self.kind = np.dtype(dtype).kind
        self.data: NDArray = np.empty(0, dtype=dtype)
        self.n = 0

    def view(self) -> NDArray:
        return self.data[: self.n]

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes)

    def append(self, values: NDArray) -> None:
        values = np.asarray(values)
        if self.kind in "iu":
            wanted = np.result_type(self.data.dtype, narrow_ids(values).dtype)
            if wanted != self.data.dtype:  # an id past int32: widen once
                self.data = self.data.astype(wanted)
        end = self.n + values.shape[0]
        if end > self.data.shape[0]:
            grown = np.empty(
                max(end, self.data.shape[0] + self.data.shape[0] // 4, 1024), dtype=self.data.dtype
            )
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        self.data[self.n : end] = values
        self.n = end

    def truncate(self, n: int) -> None:
        if not 0 <= n <= self.n:
            raise ValueError(f"cannot truncate a column of {self.n} rows to {n}")
        self.n = n
