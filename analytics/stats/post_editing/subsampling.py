"""000 Table 2: system HTER with 0, 1, ..., k editors, averaged over subsets of the editors.

000 section 5.2: "The edit rate decreases as the number of editors increases from zero (where
HTER is simply the TER score between the MT output and the reference translation) and five."
With j editors, each output's HTER is :func:`~analytics.stats.post_editing.segment_hter`
restricted to the edits of j of its editors (the best passed edit among them, else TER against
the reference), and the system's HTER is averaged over subsets of j editors.

What an "editor" is when subsets are drawn (the paper does not say; our choice): the editor
*slots* 0..k-1 of :class:`~analytics.stats.post_editing.PostEdits` (the first, second, ...
editor of each output; with 000's HITs, the five Turkers who did one HIT).  A subset of j slots
is applied to every output at once, as if the campaign had asked for j editors instead of k, so
a subset gives one system HTER, corpus-level and mean, and the table averages those numbers.
There are C(k, j) subsets: all of them are enumerated when C(k, j) <= ``max_enumerate``
(k = 5 gives at most 10), otherwise ``n_random`` subsets of j distinct slots are drawn with
``numpy.random.default_rng(seed)`` (with replacement between draws).  j = 0 is the TER
against the reference; j = k uses every edit.  An output with fewer than k edits simply has
none in the missing slots.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.post_editing.hter import (
    Outputs,
    PostEdits,
    choose,
    chosen_statistics,
    edit_order,
)
from analytics.stats.post_editing.ter import edit_rate

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SubsamplingTable", "editor_subsampling"]


@dataclass(frozen=True, eq=False)
class SubsamplingTable:
    """Rows = ``systems`` (sorted ids), columns = ``editors`` (0..k).  ``corpus[s, j]`` and
    ``mean[s, j]``: system s's corpus-level and mean HTER with j editors, averaged over
    ``n_subsets[j]`` subsets (``exact[j]``: all C(k, j) subsets enumerated)."""

    systems: NDArray[np.int64]
    editors: NDArray[np.int64]
    corpus: NDArray[np.float64]
    mean: NDArray[np.float64]
    n_subsets: NDArray[np.int64]
    exact: NDArray[np.bool_]
    seed: int


def _subsets(k: int, j: int, max_enumerate: int, n_random: int, rng: np.random.Generator):
    if comb(k, j) <= max_enumerate:
        return [np.array(c, dtype=np.int64) for c in combinations(range(k), j)], True
    return [np.sort(rng.choice(k, size=j, replace=False)) for _ in range(n_random)], False


def editor_subsampling(
    outputs: Outputs,
    post_edits: PostEdits,
    *,
    n_editors: int | None = None,
    max_enumerate: int = 1000,
    n_random: int = 1000,
    seed: int = 0,
) -> SubsamplingTable:
    """The 0..k editors table (k = ``n_editors``, default the largest slot + 1)."""
    rows = outputs.rows_of(post_edits.system, post_edits.segment)
    k = int(post_edits.slot.max()) + 1 if len(post_edits) else 0
    if n_editors is not None:
        if n_editors < k:
            raise ValueError(f"slots go up to {k - 1}, more than n_editors={n_editors}")
        k = n_editors
    rng = np.random.default_rng(seed)
    order = edit_order(rows, post_edits)
    systems, sys_index = np.unique(outputs.system, return_inverse=True)
    sys_index = sys_index.reshape(-1)
    m = systems.shape[0]
    per_system = np.bincount(sys_index, minlength=m).astype(np.float64)
    corpus = np.zeros((m, k + 1))
    mean = np.zeros((m, k + 1))
    n_subsets = np.zeros(k + 1, dtype=np.int64)
    exact = np.zeros(k + 1, dtype=bool)
    for j in range(k + 1):
        subsets, exact[j] = _subsets(k, j, max_enumerate, n_random, rng)
        n_subsets[j] = len(subsets)
        for subset in subsets:
            keep = post_edits.passed & np.isin(post_edits.slot, subset)
            chosen = choose(rows, order, keep, len(outputs))
            edits, ref = chosen_statistics(outputs, post_edits, chosen)
            tot_e = np.bincount(sys_index, weights=edits, minlength=m)
            tot_r = np.bincount(sys_index, weights=ref, minlength=m)
            seg = np.bincount(sys_index, weights=edit_rate(edits, ref), minlength=m)
            corpus[:, j] += edit_rate(tot_e, tot_r)
            mean[:, j] += seg / np.maximum(per_system, 1)
        corpus[:, j] /= n_subsets[j]
        mean[:, j] /= n_subsets[j]
    return SubsamplingTable(
        systems=systems,
        editors=np.arange(k + 1, dtype=np.int64),
        corpus=corpus,
        mean=mean,
        n_subsets=n_subsets,
        exact=exact,
        seed=seed,
    )
