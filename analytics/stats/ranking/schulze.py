"""Schulze's method: combine several workers' rankings of the same set into one (000 section 4).

000: "To create an ordering from the ranks assigned to the systems by multiple Turkers, we use
Schulze's method (Schulze, 2003).  It is guaranteed to correctly pick the winner that is
preferred pairwise over the other candidates.  It further allows a complete ranking of
candidates to be constructed."  Implemented here from Schulze's definition (M. Schulze, "A new
monotonic, clone-independent, reversal symmetric, and Condorcet-consistent single-winner
election method", Social Choice and Welfare 36, 2011; the 2003 Voting Matters paper cited by
000 is its first version):

1. d[i, j] = total weight of the ballots that rank i strictly better than j (a tie on a
   ballot is no preference either way; an output missing from a ballot likewise).
2. Strongest paths (widest paths, Floyd-Warshall): p[i, j] = d[i, j] if d[i, j] > d[j, i]
   else 0; then for every k, p[i, j] = max(p[i, j], min(p[i, k], p[k, j])).
3. i beats j in the result iff p[i, j] > p[j, i].  Schulze proves this relation transitive (a
   strict partial order), so it has unbeaten candidates.  The combined ranking peels them off
   in layers: layer 1 = candidates no one beats, remove them, layer 2 = those no remaining
   candidate beats, and so on.  Candidates in one layer share a rank; ranks are numbered in
   competition style (1, 1, 3: 1 + the number of candidates in better layers), like the
   workers' own ranks with ties.  Where Schulze leaves two candidates unordered but one of
   them is beaten by a third, the layers put them apart (the only weak order consistent with
   the relation that ranks every candidate as high as it can).

Weighted voting (000, Figure 1 "weighted by experts" / "by non-experts"): each ballot counts
with its worker's weight in step 1 (:mod:`analytics.stats.ranking.weights`).

Vectorised over sets: sets with the same number of candidates K are stacked into one
(sets, K, K) array; the Floyd-Warshall loop runs over k (K <= 10 iterations), each a whole
array operation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.ranking.judgments import BETTER, WORSE, RankingJudgments, tuple_codes

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CombinedRankings",
    "choose_ballots",
    "combine_rankings",
    "schulze_ranks",
    "strongest_paths",
]


def strongest_paths(d: ArrayLike) -> NDArray[np.float64]:
    """Strongest-path strengths p (..., K, K) from pairwise preferences d (..., K, K)."""
    dd = np.asarray(d, dtype=np.float64)
    dt = np.swapaxes(dd, -1, -2)
    p = np.where(dd > dt, dd, 0.0)
    k_count = dd.shape[-1]
    for k in range(k_count):
        # Paths through k: min(p[i, k], p[k, j]).  i == k or j == k never improves p (the
        # diagonal is 0), so no masking is needed.
        via = np.minimum(p[..., :, k, None], p[..., None, k, :])
        p = np.maximum(p, via)
    idx = np.arange(k_count)
    p[..., idx, idx] = 0.0
    return p


def schulze_ranks(d: ArrayLike) -> NDArray[np.int64]:
    """Combined ranks (..., K), 1 = best, ties shared, from pairwise preferences d (..., K, K).

    ``d[..., i, j]`` = (weighted) number of ballots preferring candidate i to j.  See the
    module docstring for the layers and the competition-style numbering.
    """
    p = strongest_paths(d)
    beats = p > np.swapaxes(p, -1, -2)  # beats[..., i, j]: i beats j
    shape = beats.shape[:-1]
    rank = np.zeros(shape, dtype=np.int64)
    remaining = np.ones(shape, dtype=bool)
    placed = np.zeros(shape[:-1], dtype=np.int64)
    for _ in range(beats.shape[-1]):
        if not remaining.any():
            break
        # beaten[..., j]: some remaining i beats j.
        beaten = np.any(beats & remaining[..., :, None], axis=-2)
        layer = remaining & ~beaten
        # Schulze's relation is a strict partial order, so every non-empty remainder has an
        # unbeaten candidate; guard anyway so that bad input cannot loop forever.
        stuck = remaining.any(axis=-1) & ~layer.any(axis=-1)
        layer |= remaining & stuck[..., None]
        rank = np.where(layer, (placed + 1)[..., None], rank)
        placed = placed + layer.sum(axis=-1)
        remaining &= ~layer
    return rank


@dataclass(frozen=True, eq=False)
class CombinedRankings:
    """One Schulze ranking per ranking set, one row per (set, output).

    ``n_ballots`` and ``weight`` are per row: the ballots of that set that were combined and
    their total weight.
    """

    ranking_set: NDArray[np.int64]
    segment: NDArray[np.int64]
    system: NDArray[np.int64]
    rank: NDArray[np.int64]
    n_ballots: NDArray[np.int64]
    weight: NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.system.shape[0])

    def as_judgments(self, worker: int = -1) -> RankingJudgments:
        """The combined rankings as judgments of one pseudo-worker, one ballot per set.

        So every score and agreement function applies to them (000 combines first, then
        compares with the experts).
        """
        n = len(self)
        set_code = np.unique(self.ranking_set, return_inverse=True)[1].reshape(-1)
        return RankingJudgments(
            worker=np.full(n, worker, dtype=np.int64),
            assignment=set_code,
            ranking_set=self.ranking_set,
            segment=self.segment,
            system=self.system,
            rank=self.rank,
        )


def combine_rankings(
    judgments: RankingJudgments,
    weights: ArrayLike | None = None,
    *,
    include_workers: NDArray[np.bool_] | None = None,
) -> CombinedRankings:
    """Schulze-combine all ballots of each ranking set (optionally weighted per worker).

    ``weights``: one non-negative weight per worker, aligned to ``judgments.workers``
    (default 1 each).  ``include_workers``: mask over ``judgments.workers``; excluded
    workers' ballots are ignored (same as weight 0, but they do not count in ``n_ballots``).
    A set whose ballots are all excluded is left out.
    """
    j = judgments
    w = (
        np.ones(j.n_workers, dtype=np.float64)
        if weights is None
        else np.asarray(weights, dtype=np.float64)
    )
    if w.shape != (j.n_workers,):
        raise ValueError(f"weights must have shape ({j.n_workers},) aligned to .workers")
    if (w < 0).any() or np.isnan(w).any():
        raise ValueError("weights must be non-negative numbers")
    rows_ok = j.worker_mask_to_rows(include_workers)
    rows = np.flatnonzero(rows_ok)
    if rows.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return CombinedRankings(empty, empty, empty, empty, empty, np.zeros(0))

    # Candidates: distinct (set, system) among the included rows, numbered within their set.
    cand_of_row, n_cands = tuple_codes(j.set_index[rows], j.system[rows])
    # Codes follow sorted (set, system) order: a set's candidates are contiguous.
    cand_set = np.zeros(n_cands, dtype=np.int64)
    cand_set[cand_of_row] = j.set_index[rows]
    cand_system = np.zeros(n_cands, dtype=np.int64)
    cand_system[cand_of_row] = j.system[rows]
    set_sizes = np.bincount(cand_set, minlength=j.sets.shape[0])
    set_start = np.cumsum(set_sizes) - set_sizes
    local = np.arange(n_cands) - set_start[cand_set]  # index within its set
    row_local = np.full(len(j), -1, dtype=np.int64)
    row_local[rows] = local[cand_of_row]

    # Ballots combined per set, and their weight.
    ballot_rows = j.ballot_first_row
    ballot_ok = rows_ok[ballot_rows]
    ballot_set = j.set_index[ballot_rows]
    ballot_weight = w[j.worker_index[ballot_rows]]
    n_ballots = np.bincount(ballot_set[ballot_ok], minlength=j.sets.shape[0])
    set_weight = np.bincount(
        ballot_set[ballot_ok], weights=ballot_weight[ballot_ok], minlength=j.sets.shape[0]
    )

    pairs = j.pairs
    pmask = rows_ok[pairs.row_a] & (pairs.outcome != 0)
    pr_a, pr_b = pairs.row_a[pmask], pairs.row_b[pmask]
    # Preferred -> less preferred, as local candidate indices.
    better_a = pairs.outcome[pmask] == BETTER
    win = np.where(better_a, row_local[pr_a], row_local[pr_b])
    lose = np.where(better_a, row_local[pr_b], row_local[pr_a])
    pw = w[pairs.worker[pmask]]
    pset = pairs.set_index[pmask]
    assert WORSE == -BETTER  # outcome is +1 / -1 here (ties were dropped)

    out_rank = np.zeros(n_cands, dtype=np.int64)
    for k in np.unique(set_sizes[set_sizes > 0]):
        sets_k = np.flatnonzero(set_sizes == k)
        pos = np.full(j.sets.shape[0], -1, dtype=np.int64)
        pos[sets_k] = np.arange(sets_k.shape[0])
        sel = pos[pset] >= 0
        flat = (pos[pset[sel]] * k + win[sel]) * k + lose[sel]
        d = np.bincount(flat, weights=pw[sel], minlength=sets_k.shape[0] * k * k)
        ranks = schulze_ranks(d.reshape(sets_k.shape[0], k, k))
        # Candidates of these sets are contiguous per set, in local order.
        idx = (set_start[sets_k][:, None] + np.arange(k)[None, :]).reshape(-1)
        out_rank[idx] = ranks.reshape(-1)

    set_ids = j.sets[cand_set]
    # Segment of each set: every row of a set has the same segment (checked on input).
    seg_of_set = np.zeros(j.sets.shape[0], dtype=np.int64)
    seg_of_set[j.set_index] = j.segment
    return CombinedRankings(
        ranking_set=set_ids,
        segment=seg_of_set[cand_set],
        system=cand_system,
        rank=out_rank,
        n_ballots=n_ballots[cand_set].astype(np.int64),
        weight=set_weight[cand_set],
    )


def choose_ballots(judgments: RankingJudgments, k: int, seed: int = 0) -> NDArray[np.bool_]:
    """Row mask keeping k ballots per ranking set, chosen at random (all if fewer).

    For agreement as a function of the number of combined judgments (000 Figure 1).
    """
    j = judgments
    rng = np.random.default_rng(seed)
    b_set = j.set_index[j.ballot_first_row]
    # Random order within each set: sort ballots by (set, random key), keep the first k.
    order = np.lexsort((rng.random(j.n_ballots), b_set))
    sizes = np.bincount(b_set, minlength=j.sets.shape[0])
    starts = np.cumsum(sizes) - sizes
    position = np.empty(j.n_ballots, dtype=np.int64)
    position[order] = np.arange(j.n_ballots) - starts[b_set[order]]
    keep_ballot = position < k
    return keep_ballot[j.ballot]
