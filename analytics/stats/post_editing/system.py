"""System HTER: corpus-level and mean of segment HTER, bootstrap intervals, significance.

Two system scores from the segment choices of :func:`~analytics.stats.post_editing.segment_hter`
(METHODS.md section 3; issue 13 item 5):

- ``corpus``: total edits / total reference words over the system's outputs (tercom's
  corpus-level TER; the way 000 Table 2 reports system HTER).
- ``mean``: the mean of segment HTER (every segment weighs the same, as WMT's segment-level
  scores do).

They differ when segments differ in length: a long segment weighs more in ``corpus``.

Intervals: percentile bootstrap over *segments* (``numpy.random.default_rng(seed)``): each
replicate draws as many segment ids as there are, with replacement, and every system is
rescored on the same draw (a paired bootstrap, as the systems share segments); a system scores
NaN in a replicate where none of its segments was drawn, and NaN replicates are left out of
its interval.  All replicates are computed at once as a (replicates x segments) matrix of draw
counts times the (segments x systems) statistics.

Pairwise significance, lower HTER = better.  ``p_better[i, j]`` is the one-sided p-value of
"system i has lower segment HTER than system j":

- ``test="wilcoxon"`` (default): paired Wilcoxon signed-rank test on the segments both systems
  have (``scipy.stats.wilcoxon(h_i - h_j, alternative="less")``, scipy's defaults: zero
  differences dropped, exact distribution for small samples without ties).  Post-editing
  campaigns have every system edit the same segments, so pairing by segment removes the
  segment difficulty that dominates HTER variance; the signed-rank test needs no normality of
  the bounded, skewed, zero-heavy segment HTER.  Differences are rounded to 12 decimals so
  that equal rationals reached by different float paths tie.  All differences zero: p = 1;
  no shared segment: NaN (never significant).
- ``test="rank_sum"``: unpaired one-sided Mann-Whitney U from
  :func:`analytics.stats.significance.pairwise_rank_sum` on negated HTER, for systems that
  were not edited on the same segments.

Clusters and rank ranges: :func:`analytics.stats.significance.wmt_clusters` and
:func:`~analytics.stats.significance.system_rank_ranges` expect "higher is better" scores and
``p[i, j]`` = p of "i better than j"; we pass the negated HTER (``order_by``: the mean by
default, because the test is on segment HTER; or the corpus-level score) and ``p_better``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.post_editing.hter import SegmentHTER
from analytics.stats.post_editing.ter import edit_rate
from analytics.stats.significance import (
    ClusterMethod,
    pairwise_rank_sum,
    system_rank_ranges,
    wmt_clusters,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
stats = lazy_module("scipy.stats")

__all__ = ["SystemHTER", "pairwise_wilcoxon_lower", "system_hter"]

Test = Literal["wilcoxon", "rank_sum"]
OrderBy = Literal["mean", "corpus"]

# Replicates per chunk so that the (chunk x segments) count matrix stays near 32 MB.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True, eq=False)
class SystemHTER:
    """Per system (aligned to ``systems``, sorted ids).  Lower HTER is better; cluster 1 and
    rank 1 are the best."""

    systems: NDArray[np.int64]
    n_segments: NDArray[np.int64]
    edits: NDArray[np.int64]
    ref_length: NDArray[np.float64]
    corpus: NDArray[np.float64]
    mean: NDArray[np.float64]
    corpus_ci_low: NDArray[np.float64]
    corpus_ci_high: NDArray[np.float64]
    mean_ci_low: NDArray[np.float64]
    mean_ci_high: NDArray[np.float64]
    p_better: NDArray[np.float64]
    clusters: NDArray[np.int64]
    rank_best: NDArray[np.int64]
    rank_worst: NDArray[np.int64]
    test: Test
    order_by: OrderBy
    method: ClusterMethod
    n_samples: int
    seed: int
    level: float
    alpha: float


def _matrix(seg: SegmentHTER) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray, NDArray]:
    """systems, segments and (systems x segments) edits, ref_length, hter, present."""
    systems, si = np.unique(seg.system, return_inverse=True)
    segments, gi = np.unique(seg.segment, return_inverse=True)
    shape = (systems.shape[0], segments.shape[0])
    edits = np.zeros(shape)
    ref = np.zeros(shape)
    hter = np.zeros(shape)
    present = np.zeros(shape, dtype=bool)
    edits[si, gi] = seg.edits
    ref[si, gi] = seg.ref_length
    hter[si, gi] = seg.hter
    present[si, gi] = True
    return systems, segments, edits, ref, hter, present


def pairwise_wilcoxon_lower(hter: NDArray[np.float64], present: NDArray[np.bool_]) -> NDArray:
    """P[i, j] = one-sided paired Wilcoxon signed-rank p-value of "system i has lower HTER
    than system j" over the segments both have; (systems x segments) inputs; NaN diagonal."""
    m = hter.shape[0]
    p = np.full((m, m), np.nan)
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            shared = present[i] & present[j]
            if not shared.any():
                continue
            d = np.round(hter[i, shared] - hter[j, shared], 12)
            if not d.any():
                p[i, j] = 1.0
                continue
            p[i, j] = float(stats.wilcoxon(d, alternative="less").pvalue)
    return p


def _bootstrap(
    edits: NDArray, ref: NDArray, hter: NDArray, present: NDArray, n_samples: int, seed: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(replicates x systems) corpus and mean HTER over bootstrap draws of segments."""
    rng = np.random.default_rng(seed)
    m, g = edits.shape
    corpus = np.empty((n_samples, m))
    mean = np.empty((n_samples, m))
    if g == 0:
        corpus.fill(np.nan)
        mean.fill(np.nan)
        return corpus, mean
    pres = present.astype(np.float64)
    chunk = max(1, _CHUNK_CELLS // g)
    for start in range(0, n_samples, chunk):
        b = min(chunk, n_samples - start)
        draws = rng.integers(0, g, size=(b, g))
        flat = (np.arange(b)[:, None] * g + draws).reshape(-1)
        counts = np.bincount(flat, minlength=b * g).reshape(b, g).astype(np.float64)
        tot_e = counts @ edits.T
        tot_r = counts @ ref.T
        n_seg = counts @ pres.T
        with np.errstate(invalid="ignore", divide="ignore"):
            c = edit_rate(tot_e, tot_r)
            c[n_seg == 0] = np.nan
            corpus[start : start + b] = c
            mean[start : start + b] = (counts @ (hter * pres).T) / n_seg
    return corpus, mean


def _interval(samples: NDArray[np.float64], level: float) -> tuple[NDArray, NDArray]:
    lo, hi = (1 - level) / 2, (1 + level) / 2
    out_lo = np.full(samples.shape[1], np.nan)
    out_hi = np.full(samples.shape[1], np.nan)
    for k in range(samples.shape[1]):
        col = samples[:, k]
        col = col[~np.isnan(col)]
        if col.size:
            out_lo[k], out_hi[k] = np.quantile(col, [lo, hi])
    return out_lo, out_hi


def system_hter(
    seg: SegmentHTER,
    *,
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    alpha: float = 0.05,
    test: Test = "wilcoxon",
    order_by: OrderBy = "mean",
    method: ClusterMethod = "wmt",
) -> SystemHTER:
    """Corpus and mean HTER per system with percentile bootstrap intervals at ``level``,
    pairwise one-sided p-values (``test``) and WMT-style clusters and rank ranges at
    ``alpha`` (see the module docstring)."""
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    systems, _, edits, ref, hter, present = _matrix(seg)
    n_seg = present.sum(axis=1).astype(np.int64)
    tot_e = edits.sum(axis=1)
    tot_r = ref.sum(axis=1)
    corpus = edit_rate(tot_e, tot_r)
    mean = (hter * present).sum(axis=1) / np.maximum(n_seg, 1)
    boot_corpus, boot_mean = _bootstrap(edits, ref, hter, present, n_samples, seed)
    corpus_lo, corpus_hi = _interval(boot_corpus, level)
    mean_lo, mean_hi = _interval(boot_mean, level)
    if test == "wilcoxon":
        p = pairwise_wilcoxon_lower(hter, present)
    elif test == "rank_sum":
        p = pairwise_rank_sum([-hter[k, present[k]] for k in range(systems.shape[0])])
    else:
        raise ValueError(f"test must be 'wilcoxon' or 'rank_sum', got {test!r}")
    if order_by not in ("mean", "corpus"):
        raise ValueError(f"order_by must be 'mean' or 'corpus', got {order_by!r}")
    goodness = -(mean if order_by == "mean" else corpus)  # higher is better for significance.py
    clusters = wmt_clusters(goodness, p, alpha=alpha, method=method)
    best, worst = system_rank_ranges(goodness, p, clusters, alpha=alpha, method=method)
    return SystemHTER(
        systems=systems,
        n_segments=n_seg,
        edits=tot_e.astype(np.int64),
        ref_length=tot_r,
        corpus=corpus,
        mean=mean,
        corpus_ci_low=corpus_lo,
        corpus_ci_high=corpus_hi,
        mean_ci_low=mean_lo,
        mean_ci_high=mean_hi,
        p_better=p,
        clusters=clusters,
        rank_best=best,
        rank_worst=worst,
        test=test,
        order_by=order_by,
        method=method,
        n_samples=n_samples,
        seed=seed,
        level=level,
        alpha=alpha,
    )
