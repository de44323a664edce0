"""Worker profiles for post-editing: how far each edit is from the MT output and the reference.

003 section 7: "a worker's submission could be characterized in terms of its distance to the MT
output and to the human reference, thus building a complete 'profile' of the worker", to catch
"not editing the MT output at all, or using the human reference as is instead of editing the
MT output" (000's instructions forbid pasting the reference).

Per edit, two TER distances (from :mod:`analytics.stats.post_editing.ter`, computed once when
the edit arrives):

- ``ter_to_mt``: TER with hypothesis = MT output, reference = the edit (the edit's own HTER
  statistics): 0 when the edit is the MT output unchanged (after tercom's tokenisation,
  case-insensitively by default).
- ``ter_to_reference``: TER with hypothesis = the edit, reference = the reference translation:
  0 when the edit is the reference.

Flags (thresholds are arguments; the defaults are our choice, the papers give none):

- an edit is *unchanged* when ``ter_to_mt <= nothing_threshold`` (default 0.0: identical to
  the MT output; a perfect MT output honestly left alone is unchanged too, which is why a
  single unchanged edit says nothing and only a worker's share of them is flagged);
- an edit is *copied* when ``ter_to_reference <= copy_threshold`` (default 0.1: at most one
  edit per ten reference words from the reference, i.e. "equal or nearly equal"), unless the
  MT output itself was already that close to the reference (``mt_to_reference``, when given:
  then an honest minimal edit is as close and proves nothing);
- a worker *did nothing* / *copied the reference* when at least ``min_edits`` (default 3) of
  their edits were judged and at least ``min_share`` (default 0.8, "all or most") of them are
  unchanged / copied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["WorkerProfiles", "worker_profiles"]


@dataclass(frozen=True, eq=False)
class WorkerProfiles:
    """Per edit (input order) the two flags; per worker (``workers``, sorted ids) the profile."""

    unchanged: NDArray[np.bool_]
    copied: NDArray[np.bool_]
    workers: NDArray[np.int64]
    n_edits: NDArray[np.int64]
    mean_ter_to_mt: NDArray[np.float64]
    mean_ter_to_reference: NDArray[np.float64]
    share_unchanged: NDArray[np.float64]
    share_copied: NDArray[np.float64]
    did_nothing: NDArray[np.bool_]
    copied_reference: NDArray[np.bool_]


def worker_profiles(
    worker: ArrayLike,
    ter_to_mt: ArrayLike,
    ter_to_reference: ArrayLike,
    *,
    mt_to_reference: ArrayLike | None = None,
    nothing_threshold: float = 0.0,
    copy_threshold: float = 0.1,
    min_share: float = 0.8,
    min_edits: int = 3,
) -> WorkerProfiles:
    """Profiles and flags from one row per edit (see the module docstring)."""
    wk = np.asarray(worker, dtype=np.int64).reshape(-1)
    to_mt = np.asarray(ter_to_mt, dtype=np.float64).reshape(-1)
    to_ref = np.asarray(ter_to_reference, dtype=np.float64).reshape(-1)
    if not (wk.shape == to_mt.shape == to_ref.shape):
        raise ValueError("worker, ter_to_mt and ter_to_reference must have the same length")
    unchanged = to_mt <= nothing_threshold
    copied = to_ref <= copy_threshold
    if mt_to_reference is not None:
        mt_ref = np.asarray(mt_to_reference, dtype=np.float64).reshape(-1)
        if mt_ref.shape != wk.shape:
            raise ValueError("mt_to_reference must have one value per edit")
        copied &= mt_ref > copy_threshold
    workers, wi = np.unique(wk, return_inverse=True)
    wi = wi.reshape(-1)
    m = workers.shape[0]
    n = np.bincount(wi, minlength=m)
    denominator = np.maximum(n, 1)
    share_unchanged = np.bincount(wi, weights=unchanged, minlength=m) / denominator
    share_copied = np.bincount(wi, weights=copied, minlength=m) / denominator
    enough = n >= min_edits
    return WorkerProfiles(
        unchanged=unchanged,
        copied=copied,
        workers=workers,
        n_edits=n.astype(np.int64),
        mean_ter_to_mt=np.bincount(wi, weights=to_mt, minlength=m) / denominator,
        mean_ter_to_reference=np.bincount(wi, weights=to_ref, minlength=m) / denominator,
        share_unchanged=share_unchanged,
        share_copied=share_copied,
        did_nothing=enough & (share_unchanged >= min_share),
        copied_reference=enough & (share_copied >= min_share),
    )
