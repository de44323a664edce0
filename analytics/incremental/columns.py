"""Growable, narrow numpy columns for the arrays a worker keeps between recomputes.

Judgments are append-only, so a cached campaign grows at its end: each column keeps spare
capacity (an eighth more each time it fills) and appending copies only the new rows. An id
column is stored as int32 while every id fits (``narrow``, half of int64's bytes) and widened
to int64 once one does not (the statistics take int32 ids as they are); columns are kept
read-only between changes, so that
``DAJudgments`` takes a view of them without a copy (8 MB per column at a million judgments).
Floats must be the very values a full load reads, or the statistics would differ: a float
column that narrows (the scores) is kept as float32 while every value is one exactly (the
slider's whole numbers: 4 MB less at a million judgments, at a recompute's peak) and widened to
float64 once a value is not; ``DAJudgments`` takes it as float64 (a copy of the rows it is
given, which a recompute lets go once it has the scored rows). Durations (milliseconds over
1000) stay float64.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Column", "narrow_ids"]


def _read_only(array: NDArray) -> NDArray:
    array.setflags(write=False)
    return array


# int32's range, written out: numpy is not run when a web worker loads this module
# (evalsite.deferred_imports).
_INT32_MAX = 2**31 - 1
_INT32_MIN = -(2**31)


def narrow_ids(values: NDArray) -> NDArray:
    """Integer ids as int32 when they all fit, else int64 (-1 stands for "none")."""
    values = np.asarray(values)
    if values.size and (values.max() > _INT32_MAX or values.min() < _INT32_MIN):
        return values.astype(np.int64)
    return values.astype(np.int32)


class Column:
    """One column: ``view()`` is the filled part; ``append`` grows it, ``truncate`` cuts it."""

    def __init__(self, dtype: type, *, narrow: bool = False) -> None:
        kind = np.dtype(dtype).kind
        self.narrow = narrow and kind in "iu"
        # Floats kept as float32 while every value is one exactly (the slider's whole
        # numbers), widened to float64 once one is not.
        self.narrow_floats = narrow and kind == "f"
        stored = np.float32 if self.narrow_floats else dtype
        self.data: NDArray = _read_only(np.empty(0, dtype=stored))
        self.n = 0

    def view(self) -> NDArray:
        """The filled part, read-only (its buffer too, until the next append)."""
        return self.data[: self.n]

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes)

    def append(self, values: NDArray) -> None:
        values = np.asarray(values)
        data = self.data
        if self.narrow:
            wanted = np.result_type(data.dtype, narrow_ids(values).dtype)
            if wanted != data.dtype:  # an id past int32: widen once
                data = data.astype(wanted)
        if self.narrow_floats and data.dtype == np.float32:
            as_float32 = values.astype(np.float32)
            if not np.array_equal(as_float32.astype(np.float64), values, equal_nan=True):
                data = data.astype(np.float64)  # a value float32 does not hold: widen once
            del as_float32
        end = self.n + values.shape[0]
        if end > data.shape[0]:
            grown = np.empty(max(end, data.shape[0] + data.shape[0] // 8, 1024), dtype=data.dtype)
            grown[: self.n] = data[: self.n]
            data = grown
        elif data is self.data:
            # Written in place: only rows past every view handed out since, or unsettled rows
            # whose last views (a finished recompute's) are no longer used.
            data.setflags(write=True)
        data[self.n : end] = values
        self.data = _read_only(data)
        self.n = end

    def truncate(self, n: int) -> None:
        if not 0 <= n <= self.n:
            raise ValueError(f"cannot truncate a column of {self.n} rows to {n}")
        self.n = n
