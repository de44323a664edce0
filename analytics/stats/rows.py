"""What every judgment table of the statistics shares: rows indexed by worker.

A table of judgments (direct assessment, ranking) is a dataclass of parallel numpy arrays with
a ``worker`` column; per-worker results are aligned to its sorted distinct workers.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray


def factorise(values: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(sorted distinct values, per element its position among them)."""
    ids, inverse = np.unique(values, return_inverse=True)
    return ids, inverse.reshape(-1).astype(np.int64)


class WorkerRows:
    """Mixin for a dataclass with a ``worker`` array: row count and worker indexing."""

    worker: NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.worker.shape[0])

    @cached_property
    def _worker_factor(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return factorise(self.worker)

    @property
    def workers(self) -> NDArray[np.int64]:
        """Sorted distinct worker ids; every per-worker result is aligned to this order."""
        return self._worker_factor[0]

    @property
    def worker_index(self) -> NDArray[np.int64]:
        """Per row, the position of its worker in :attr:`workers`."""
        return self._worker_factor[1]

    @property
    def n_workers(self) -> int:
        return int(self.workers.shape[0])
