"""Agreement against the number of workers voting (000 Figure 1), pure (no Django).

000 combines the ballots of k non-experts per ranking set with Schulze's method and measures
how often the combined ranking's pairwise labels agree with the experts'; agreement grows
with k, and grows faster when votes are weighted. The app has no expert rankings of the same
sets, so the combined rankings are compared with:

- the requester's oracle (002: systems known to be better), when declared: every set with at
  least K ballots, k = 1..K;
- otherwise one held-out worker of the same set: in each set one ballot, chosen at random,
  is left out of the combination and is the reference; k = 1..K-1 of the others are
  combined. The level reached is the agreement of a crowd vote with a new worker's labels
  (below 000's expert level: one worker is a noisier reference than an expert).

K is the median number of ballots per set, so that every point is over the same sets (the
sets with at least K ballots). Ballots are chosen at random within each set, and the result
averaged over a few seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.ranking import RankingJudgments
from analytics.stats.ranking.agreement import oracle_agreement, reference_agreement
from analytics.stats.ranking.schulze import combine_rankings

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["VotersCurves", "agreement_by_voters", "ballot_positions"]


@dataclass(frozen=True)
class VotersCurves:
    voters: list[int]
    curves: dict[str, list[float | None]]
    against: str  # "oracle" or "held_out"
    n_sets: int  # ranking sets every point is computed over
    seeds: int


def ballot_positions(j: RankingJudgments, seed: int) -> NDArray[np.int64]:
    """Each row's ballot's random position (0, 1, ...) among the ballots of its set."""
    rng = np.random.default_rng(seed)
    b_set = j.set_index[j.ballot_first_row]
    order = np.lexsort((rng.random(j.n_ballots), b_set))
    sizes = np.bincount(b_set, minlength=j.sets.shape[0])
    starts = np.cumsum(sizes) - sizes
    position = np.empty(j.n_ballots, dtype=np.int64)
    position[order] = np.arange(j.n_ballots) - starts[b_set[order]]
    return position[j.ballot]


def _aligned(weights: NDArray[np.float64] | None, full: RankingJudgments, sub: RankingJudgments):
    if weights is None:
        return None
    return weights[np.searchsorted(full.workers, sub.workers)]


def agreement_by_voters(
    judgments: RankingJudgments,
    weightings: Mapping[str, NDArray[np.float64] | None],
    *,
    oracle: Sequence[Sequence[int]] | None = None,
    seeds: Sequence[int] = (0, 1, 2),
) -> VotersCurves:
    """The agreement (Pr(a), 0..1) of the Schulze-combined rankings of k ballots per set,
    one curve per entry of ``weightings`` (name -> per-worker weights aligned to
    ``judgments.workers``, None for one vote each). Empty curves when no set has enough
    ballots (two for the held-out reference, one with an oracle)."""
    j = judgments
    if len(j) == 0:
        return VotersCurves([], {}, "oracle" if oracle else "held_out", 0, len(seeds))
    per_set = np.bincount(j.set_index[j.ballot_first_row], minlength=j.sets.shape[0])
    most = int(np.median(per_set))
    held_out = not oracle
    top = most - 1 if held_out else most
    against = "held_out" if held_out else "oracle"
    if top < 1:
        return VotersCurves([], {}, against, 0, len(seeds))
    enough_sets = per_set >= most
    rows_in = enough_sets[j.set_index]
    j = j.select(rows_in)
    voters = list(range(1, top + 1))
    curves: dict[str, list[float | None]] = {}
    for name, weights in weightings.items():
        values: list[float | None] = []
        for k in voters:
            seen = []
            for seed in seeds:
                position = ballot_positions(j, seed)
                if held_out:
                    voting = (position >= 1) & (position <= k)
                    sub = j.select(voting)
                    combined = combine_rankings(sub, _aligned(weights, judgments, sub))
                    result = reference_agreement(combined.as_judgments(), j.select(position == 0))
                else:
                    sub = j.select(position < k)
                    combined = combine_rankings(sub, _aligned(weights, judgments, sub))
                    result = oracle_agreement(combined.as_judgments(), oracle)
                if result.n:
                    seen.append(result.pr_a)
            values.append(float(np.mean(seen)) if seen else None)
        curves[name] = values
    return VotersCurves(voters, curves, against, int(enough_sets.sum()), len(seeds))
