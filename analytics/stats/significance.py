"""Pairwise significance between systems and WMT-style clustering (generic: any scores).

Direct assessment (Graham et al. 2014, EACL, Section 4 and Tables 4-5; WMT 2016 onwards):
for each ordered pair of systems (i, j), a one-sided Wilcoxon rank-sum (Mann-Whitney U) test of
"i's standardised scores are stochastically greater than j's", reported with marks for
p < 0.05, 0.01 and 0.001.  Nothing here knows about direct assessment: the inputs are one
sample per system, a score per system to order them, and a matrix of one-sided p-values, so
ranking-based scores can reuse :func:`wmt_clusters` with their own p-value matrix.

Rank ranges and clusters (``method="wmt"``, the default) follow WMT's official tables for DA
(WMT 2016 onwards; /work/shared/METHODS.md section 2, which states the rule exactly):

  Sort systems by score (Ave z), best first (ties keep the input order); n systems.  Let
  beats(a, b) mean p[a, b] < alpha.  System s has the rank range
      1 + #{systems that beat s}  ..  n - #{systems that s beats},
  a win counting even over a system sorted above s (WMT's ranges count wins and losses, not
  positions).  A cluster ends after sorted position i (1-based) exactly when the system at
  position i has a rank range ending at i.  Clusters are numbered 1, 2, ... from the top.

Equivalently, a line is drawn below position i exactly when the system there significantly
beats exactly n - i systems, wherever they are sorted; WMT does not ask whether the systems
above the line beat those below it.  A range need not contain the system's own position: a
system that beats a system sorted above it has a range ending above its position, and no line
is drawn below it where its wins do not add up to the systems below (e.g. A > B > C by score,
B beats A and C, A beats C: ranges A 2-2, B 1-1, C 3-3, and WMT draws no line at all, where
"separating" below puts C in a cluster of its own).  :func:`wmt_rank_ranges` gives the ranges,
:func:`wmt_clusters` the clusters.

``method="separating"`` (the rule used before issue 12, kept as a named option): a boundary
between sorted positions k and k+1 if and only if every system at positions 0..k beats every
system at positions k+1..m-1, so every system in a higher cluster significantly beats every
system in every lower cluster.  It differs from WMT's rule when a system beats one sorted
above it, or beats all below without a neighbour doing so; its rank ranges are those of the
clusters (:func:`rank_ranges`).

``method="unbeaten"`` is the peel-off reading of "the top cluster is the systems that no other
system beats significantly": among the systems not yet clustered, the next cluster is every
system that none of the others beats; remove it and repeat.  If significance is cyclic and
every remaining system is beaten by another, the remaining systems form one last cluster.
With A > B > C, A beating C but neither B nor C beaten by its neighbour, "separating" gives
one cluster {A, B, C} while "unbeaten" gives {A, B}, {C}.  "unbeaten" clusters may also be
non-contiguous in score order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.rank_sum import pairwise_mann_whitney_greater

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
stats = lazy_module("scipy.stats")

__all__ = [
    "CLUSTER_METHODS",
    "SIGNIFICANCE_LEVELS",
    "ClusterMethod",
    "pairwise_rank_sum",
    "rank_ranges",
    "significance_marks",
    "system_rank_ranges",
    "wmt_clusters",
    "wmt_rank_ranges",
]

ClusterMethod = Literal["wmt", "separating", "unbeaten"]
CLUSTER_METHODS: tuple[ClusterMethod, ...] = ("wmt", "separating", "unbeaten")
SIGNIFICANCE_LEVELS: tuple[float, ...] = (0.05, 0.01, 0.001)


def _rank_sum_greater(x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """One-sided Mann-Whitney U p-value, H1: x stochastically greater than y.

    scipy.stats.mannwhitneyu(x, y, alternative="greater") with its defaults (continuity
    correction; exact for small untied samples, else the tie-corrected normal approximation).
    Empty samples give NaN.  If every value in both samples is the same, every relabelling
    gives U = n_x n_y / 2, so the conditional p-value P(U >= observed) is 1; we return it
    directly because scipy would divide by a zero tie-corrected variance to get there.
    """
    if x.size == 0 or y.size == 0:
        return float("nan")
    lo = min(x.min(), y.min())
    if lo == x.max() and lo == y.max():
        return 1.0
    return float(stats.mannwhitneyu(x, y, alternative="greater").pvalue)


def pairwise_rank_sum(samples: Sequence[ArrayLike]) -> NDArray[np.float64]:
    """Matrix P with P[i, j] = p-value of "system i scores higher than system j" (one-sided).

    The diagonal is NaN.  Both directions are tested separately (P[i, j] and P[j, i] do not
    sum to exactly 1 with the continuity correction).  Each sample is sorted once and every
    pair counted with ``searchsorted`` (:mod:`analytics.stats.rank_sum`): the same p-values
    as :func:`_rank_sum_greater` (scipy) for every ordered pair, without m(m-1) rankings.
    """
    return pairwise_mann_whitney_greater(samples)


def significance_marks(
    p: ArrayLike, levels: Sequence[float] = SIGNIFICANCE_LEVELS
) -> NDArray[np.object_]:
    """ "*", "**", "***" for p below the first, second, third level (2014 Tables 4-5); else "".

    NaN gets "".  Works elementwise on any shape.
    """
    arr = np.asarray(p, dtype=np.float64)
    count = np.zeros(arr.shape, dtype=np.int64)
    valid = ~np.isnan(arr)
    for level in levels:
        count += np.less(arr, level, where=valid, out=np.zeros(arr.shape, dtype=bool))
    marks = np.array(["*" * k for k in range(len(levels) + 1)], dtype=object)
    return marks[count]


def _validate(scores: ArrayLike, p_greater: ArrayLike) -> tuple[NDArray, NDArray]:
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    p = np.asarray(p_greater, dtype=np.float64)
    if p.shape != (s.shape[0], s.shape[0]):
        raise ValueError(f"p_greater must be {s.shape[0]}x{s.shape[0]}, got {p.shape}")
    if np.isnan(s).any():
        raise ValueError("scores must not be NaN (drop systems without judgments first)")
    return s, p


def _beats(p: NDArray[np.float64], alpha: float) -> NDArray[np.bool_]:
    # NaN (no test possible) is never significant.
    beats = np.less(p, alpha, where=~np.isnan(p), out=np.zeros(p.shape, dtype=bool))
    np.fill_diagonal(beats, False)
    return beats


def wmt_rank_ranges(
    scores: ArrayLike, p_greater: ArrayLike, *, alpha: float = 0.05
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """WMT's official rank range per system, aligned to the input order (1-based).

    best = 1 + the number of systems that beat it significantly (p[j, s] < alpha), worst = n -
    the number of systems it beats significantly (p[s, j] < alpha), whatever their scores
    (METHODS.md section 2; the WMT findings' DA tables from 2016 on).  ``scores`` are only
    validated here: the ranges do not depend on the order.
    """
    s, p = _validate(scores, p_greater)
    beats = _beats(p, alpha)
    n = s.shape[0]
    best = 1 + beats.sum(axis=0).astype(np.int64)
    worst = n - beats.sum(axis=1).astype(np.int64)
    return best, worst


def _official_clusters(
    s: NDArray[np.float64], p: NDArray[np.float64], alpha: float
) -> NDArray[np.int64]:
    # WMT: a cluster ends after sorted position i exactly when the system there has a rank
    # range ending at i; the last position always ends one (its range ends at n unless it
    # beats someone above it, and nothing follows it anyway).
    m = s.shape[0]
    order = np.argsort(-s, kind="stable")
    _, worst = wmt_rank_ranges(s, p, alpha=alpha)
    ends = worst[order] == np.arange(1, m + 1)
    ends[-1] = True
    sorted_cluster = 1 + np.concatenate([[0], np.cumsum(ends[:-1])])
    clusters = np.zeros(m, dtype=np.int64)
    clusters[order] = sorted_cluster
    return clusters


def wmt_clusters(
    scores: ArrayLike,
    p_greater: ArrayLike,
    *,
    alpha: float = 0.05,
    method: ClusterMethod = "wmt",
) -> NDArray[np.int64]:
    """Cluster number per system (1 = top), aligned to the input order.

    ``scores``: one score per system (higher is better; for DA the Ave z).  ``p_greater``:
    P[i, j] = p-value of "i better than j", e.g. from :func:`pairwise_rank_sum`.  See the
    module docstring for the exact definitions of ``method`` "wmt" (WMT's official rule, the
    default), "separating" and "unbeaten".
    """
    s, p = _validate(scores, p_greater)
    m = s.shape[0]
    clusters = np.zeros(m, dtype=np.int64)
    if m == 0:
        return clusters
    if method == "wmt":
        return _official_clusters(s, p, alpha)
    # Best first; stable so that tied scores keep the caller's order.
    order = np.argsort(-s, kind="stable")
    beats = _beats(p, alpha)[np.ix_(order, order)]
    if method == "separating":
        boundary = np.array([beats[: k + 1, k + 1 :].all() for k in range(m - 1)], dtype=bool)
        # Cluster number of sorted position k = 1 + boundaries above it.
        sorted_cluster = 1 + np.concatenate([[0], np.cumsum(boundary)])
        clusters[order] = sorted_cluster
        return clusters
    if method == "unbeaten":
        remaining = np.ones(m, dtype=bool)
        label = 0
        while remaining.any():
            label += 1
            beaten = (beats & remaining[:, None]).any(axis=0)
            top = remaining & ~beaten
            if not top.any():  # cyclic significance: nothing left is unbeaten
                top = remaining.copy()
            clusters[order[top]] = label
            remaining &= ~top
        return clusters
    raise ValueError(f"method must be one of {CLUSTER_METHODS}, got {method!r}")


def system_rank_ranges(
    scores: ArrayLike,
    p_greater: ArrayLike,
    clusters: ArrayLike,
    *,
    alpha: float = 0.05,
    method: ClusterMethod = "wmt",
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The rank ranges that go with ``method``'s clusters: WMT's official ranges for "wmt"
    (:func:`wmt_rank_ranges`), the clusters' spans (:func:`rank_ranges`) for the others."""
    if method == "wmt":
        return wmt_rank_ranges(scores, p_greater, alpha=alpha)
    return rank_ranges(clusters)


def rank_ranges(clusters: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Rank range per system from its cluster: (best rank, worst rank), 1-based (the
    "separating" and "unbeaten" methods; WMT's official ranges are :func:`wmt_rank_ranges`).

    A system in a cluster of size c with h systems in better clusters has range h+1 .. h+c
    (a range of one rank for a cluster of one).
    """
    c = np.asarray(clusters, dtype=np.int64).reshape(-1)
    if c.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    size = np.bincount(c)
    above = np.cumsum(size) - size  # systems in strictly better clusters
    return above[c] + 1, above[c] + size[c]
