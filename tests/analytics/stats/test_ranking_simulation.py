"""Simulated campaign in the spirit of 000 Figure 1: careful workers and random clickers.

Six systems of known quality; each segment's ranking set shows 5 of them and is ranked by 5
different workers.  A careful worker ranks by the output's quality (the system's quality plus
a per-output effect shared by everyone) plus their own noise, with ties where perceived
qualities round to the same grade; a random clicker picks each rank uniformly.  000's findings
to reproduce, with the true system order standing in for the experts:

- agreement of the Schulze-combined set ranking with the true order grows with the number of
  combined judgments (1, 3, 5);
- weighting votes by each worker's agreement with the other workers (no gold needed) beats
  unweighted voting at the same number of judgments;
- the combined rankings rank the systems in the true order (win ratio, Spearman's rho).
"""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.ranking import (
    RankingJudgments,
    choose_ballots,
    combine_rankings,
    oracle_agreement,
    pair_counts,
    peer_weights,
    spearman,
    win_ratios,
)

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

N_SYSTEMS = 6
SET_SIZE = 5
VOTERS = 5
N_SEGMENTS = 400
N_CAREFUL, N_RANDOM = 24, 16


def simulate(seed: int) -> tuple[RankingJudgments, list[int], np.ndarray]:
    """Judgments, the true order (best first) and a per-worker "careful" flag."""
    rng = np.random.default_rng(seed)
    # System ids are shuffled against quality so that nothing can lean on id order.
    quality = rng.permutation(N_SYSTEMS) * 0.6
    true_order = np.argsort(-quality).tolist()
    n_workers = N_CAREFUL + N_RANDOM
    careful = rng.permutation(np.arange(n_workers) < N_CAREFUL)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("w", "a", "s", "sys", "r")}
    assignment = 0
    for seg in range(N_SEGMENTS):
        systems = rng.choice(N_SYSTEMS, SET_SIZE, replace=False)
        output_quality = quality[systems] + rng.normal(0, 0.6, SET_SIZE)
        for worker in rng.choice(n_workers, VOTERS, replace=False):
            if careful[worker]:
                grade = np.round((output_quality + rng.normal(0, 0.6, SET_SIZE)) / 0.5)
                ranks = 1 + (grade[None, :] > grade[:, None]).sum(axis=1)
            else:
                ranks = rng.integers(1, SET_SIZE + 1, SET_SIZE)
            assignment += 1
            cols["w"].append(np.full(SET_SIZE, worker))
            cols["a"].append(np.full(SET_SIZE, assignment))
            cols["s"].append(np.full(SET_SIZE, seg))
            cols["sys"].append(systems)
            cols["r"].append(ranks)
    c = {k: np.concatenate(v) for k, v in cols.items()}
    judgments = RankingJudgments(
        worker=c["w"],
        assignment=c["a"],
        ranking_set=c["s"],
        segment=c["s"],
        system=c["sys"],
        rank=c["r"],
    )
    return judgments, true_order, careful


def agreement_with_truth(
    j: RankingJudgments, true_order: list[int], k: int, weights: np.ndarray | None, seed: int
) -> float:
    """000's measure: share of the combined rankings' pairs labelled as the truth labels them."""
    sub = j.select(choose_ballots(j, k, seed=seed))
    w = None
    if weights is not None:
        # Weights are per worker of the full data; re-align them to the subset's workers.
        w = weights[np.searchsorted(j.workers, sub.workers)]
    combined = combine_rankings(sub, w).as_judgments()
    return oracle_agreement(combined, [true_order]).pr_a


def test_figure_1_agreement_grows_with_voters_and_with_weighting() -> None:
    j, true_order, careful = simulate(seed=2009)
    weights = peer_weights(j)
    # Peer agreement separates the two kinds of worker (000 Figure 2's spread).
    w = weights.weight
    assert w[careful].min() > w[~careful].max()
    # Random clickers agree with others about chance level, 1/3.
    assert w[~careful].mean() == pytest.approx(1 / 3, abs=0.06)

    unweighted = {
        k: np.mean([agreement_with_truth(j, true_order, k, None, s) for s in range(3)])
        for k in (1, 3, 5)
    }
    weighted = {
        k: np.mean([agreement_with_truth(j, true_order, k, w, s) for s in range(3)]) for k in (3, 5)
    }
    # More judgments combined -> closer to the truth (000 Figure 1, "Unweighted").
    assert unweighted[1] + 0.03 < unweighted[3] < unweighted[5] - 0.01
    # Weighting by agreement with the other workers beats counting votes equally.
    assert weighted[3] > unweighted[3] + 0.01
    assert weighted[5] > unweighted[5] + 0.01

    # System level: scores from the weighted combined rankings recover the true order.
    combined = combine_rankings(j, w).as_judgments()
    geq = win_ratios(pair_counts(combined.pairs), "better_or_equal")
    assert geq.ranked_systems.tolist() == true_order
    true_rank = np.empty(N_SYSTEMS, dtype=int)
    true_rank[true_order] = np.arange(1, N_SYSTEMS + 1)
    rho = spearman(geq.systems, geq.score, np.arange(N_SYSTEMS), true_rank)
    assert rho.rho == pytest.approx(1.0)
