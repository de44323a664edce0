"""Glue shared by the task kinds' loaders: ids from ``values_list`` rows as numpy arrays.

Each kind loads one campaign's judgments for the pure statistics in its own module
(``analytics.kinds.<kind>.loading``, e.g. ``load_da_judgments``, ``load_ranking_judgments``),
the same way: a fixed number of queries whatever the size of the campaign, one
``values_list`` per table, no query per judgment, no model instances; judgments are joined to
their slots and outputs in numpy (sorted ids + ``searchsorted``, :func:`lookup`), never row by
row in Python.

Both kinds leave out of the scores the same assignments (:func:`held_back_assignment_ids`):
rejected ones, and MTurk ones MTurk has not confirmed yet
(``judgments.models.held_back_from_scores``); their judgments stay loaded and flagged.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from judgments.models import Assignment, held_back_from_scores

__all__ = ["held_back_assignment_ids", "id_array", "lookup", "nullable_ids"]


def id_array(values: list) -> NDArray[np.int64]:
    """Ids as a flat int64 array."""
    return np.array(values, dtype=np.int64).reshape(-1)


def nullable_ids(values: tuple) -> NDArray[np.int64]:
    """Ids with NULLs (None) as -1, converted in C (None becomes NaN in a float array)."""
    as_float = np.array(values, dtype=np.float64).reshape(-1)
    return np.where(np.isnan(as_float), -1, as_float).astype(np.int64)


def lookup(sorted_ids: NDArray[np.int64], wanted: NDArray[np.int64], what: str) -> NDArray:
    """Positions of ``wanted`` in ``sorted_ids``; every id must be there."""
    pos = np.searchsorted(sorted_ids, wanted)
    pos = np.minimum(pos, max(sorted_ids.shape[0] - 1, 0))
    found = sorted_ids[pos] == wanted if sorted_ids.size else np.zeros(wanted.shape, dtype=bool)
    if not found.all():
        missing = wanted[~found][:5].tolist()
        raise ValueError(f"{what} {missing} not found in the campaign")
    return pos


def held_back_assignment_ids(campaign_id: int) -> NDArray[np.int64]:
    """Ids of the campaign's assignments whose judgments count in no score (one query):
    rejected ones and MTurk ones MTurk has not confirmed yet. The loaders mask their rows as
    ``rejected``; the kinds' stale sweeps count the same rows with
    ``held_back_from_scores("assignment__")``, so confirming an assignment makes the stored
    results stale."""
    return id_array(
        list(
            Assignment.objects.filter(campaign_id=campaign_id)
            .filter(held_back_from_scores())
            .order_by()
            .values_list("id", flat=True)
        )
    )
