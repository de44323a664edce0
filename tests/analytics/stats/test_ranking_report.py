"""The whole ranking analysis of a simulated campaign, at the size of the benchmark."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.ranking import RankingConfig, RankingJudgments, analyse_ranking

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

GOLD = -1


def simulate(
    seed: int,
    *,
    n_sets: int,
    n_systems: int,
    n_careful: int,
    n_spammers: int,
    redundancy: int = 3,
    set_size: int = 4,
    gold_share: float = 0.15,
) -> RankingJudgments:
    """Sets of ``set_size``; gold units replace one output by the gold translation (002) and
    mark the worst system in the set as the known worst.  Spammers give every output rank 1
    (the fixed pattern that best-only gold cannot catch, 002 section 5.1)."""
    rng = np.random.default_rng(seed)
    quality = np.arange(n_systems) * 0.5  # system id order = quality order
    n_workers = n_careful + n_spammers
    systems = np.argsort(rng.random((n_sets, n_systems)), axis=1)[:, :set_size]
    gold = rng.random(n_sets) < gold_share
    systems[gold, 0] = GOLD
    n_ballots = n_sets * redundancy
    sys_b = np.repeat(systems, redundancy, axis=0)
    worker = np.concatenate(
        [rng.choice(n_workers, redundancy, replace=False) for _ in range(n_sets)]
    )
    q = np.where(sys_b >= 0, quality[np.maximum(sys_b, 0)], quality[-1] + 3.0)
    expected = np.zeros(sys_b.shape, dtype=np.int64)
    expected[sys_b == GOLD] = 1
    # The known worst output of a gold unit: the lowest-quality real system in it, clearly
    # bad in that segment (002's oracle-worst is the engine trained on the least data).
    gold_rows = np.flatnonzero((sys_b == GOLD).any(axis=1))
    real = np.where(sys_b[gold_rows] >= 0, sys_b[gold_rows], n_systems)
    worst_col = np.argmin(real, axis=1)
    expected[gold_rows, worst_col] = set_size
    q[gold_rows, worst_col] -= 3.0
    grade = np.round(q + rng.normal(0, 0.7, q.shape))
    ranks = 1 + (grade[:, None, :] > grade[:, :, None]).sum(axis=2)
    spammer = worker >= n_careful
    ranks[spammer] = 1
    set_id = np.repeat(np.arange(n_sets), redundancy)
    return RankingJudgments(
        worker=np.repeat(worker, set_size),
        assignment=np.repeat(np.arange(n_ballots), set_size),
        ranking_set=np.repeat(set_id, set_size),
        segment=np.repeat(set_id, set_size),
        system=sys_b.reshape(-1),
        rank=ranks.reshape(-1),
        expected_rank=expected.reshape(-1),
    )


def test_best_worst_gold_catches_the_fixed_pattern_best_only_cannot() -> None:
    j = simulate(1, n_sets=300, n_systems=5, n_careful=8, n_spammers=2)
    spammers = j.workers >= 8
    best_only = analyse_ranking(j, RankingConfig(gold_scheme="best_only", bootstrap_samples=50))
    assert best_only.trust.trusted[spammers].all()  # all-ones passes "gold must be rank 1"
    best_worst = analyse_ranking(
        j,
        RankingConfig(gold_scheme="best_worst", bootstrap_samples=50),
        oracle=[[4, 3, 2, 1, 0]],
        reference_systems=[0, 1, 2, 3, 4],
        reference_ranks=[5, 4, 3, 2, 1],
    )
    assert best_worst.trust.untrusted[spammers].all()
    assert best_worst.trust.trusted[~spammers].all()
    assert best_worst.included_workers.tolist() == (~spammers).tolist()
    # Scores use the included workers only: every comparison between two real systems.
    pairs = j.pairs
    counted = pairs.between_systems & best_worst.included_workers[pairs.worker]
    assert best_worst.n_comparisons == int(counted.sum())
    for scores in (
        best_worst.win_ratio_better_or_equal,
        best_worst.win_ratio_better,
        best_worst.expected_wins,
        best_worst.bradley_terry.scores,
    ):
        assert scores.ranked_systems.tolist() == [4, 3, 2, 1, 0]
    assert best_worst.trueskill is not None
    assert best_worst.trueskill.ranked_systems.tolist() == [4, 3, 2, 1, 0]
    assert best_worst.spearman is not None and best_worst.spearman.rho == pytest.approx(1.0)
    # Spammers' ties pull agreement down; without them it is higher, also against the oracle.
    assert best_worst.inter_included.pairwise.pr_a > best_worst.inter_all.pairwise.pr_a
    assert best_worst.oracle is not None and best_worst.oracle.n > 0
    assert best_worst.takedown is None  # no threshold configured


def test_takedown_combination_and_weighting() -> None:
    j = simulate(2, n_sets=400, n_systems=4, n_careful=6, n_spammers=6)
    cfg = RankingConfig(
        gold_scheme="best_worst",
        takedown_threshold=0.3,
        takedown_min_workers=10,
        combine=True,
        weighting="peers",
        bootstrap_samples=50,
        trueskill=False,
    )
    r = analyse_ranking(j, cfg)
    assert r.takedown is not None and "6 of 12 workers" in r.takedown
    assert r.weights is not None and r.weights.source == "peers"
    # Excluded (untrusted) workers are not peers and get the default weight.
    assert not r.weights.has_evidence[~r.included_workers].any()
    assert r.trueskill is None
    # Combined: one ballot per set, so at most C(4, 2) = 6 comparisons per set.
    assert r.n_comparisons <= 6 * 400
    assert r.bradley_terry.scores.ranked_systems.tolist() == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="experts"):
        analyse_ranking(j, RankingConfig(weighting="experts", bootstrap_samples=5))
    experts = simulate(3, n_sets=200, n_systems=4, n_careful=2, n_spammers=0, redundancy=1)
    r2 = analyse_ranking(
        j,
        RankingConfig(combine=True, weighting="experts", bootstrap_samples=20, trueskill=False),
        experts=experts,
    )
    assert r2.experts is not None and r2.experts.n > 0
    assert r2.weights is not None and r2.weights.source == "experts"


def test_benchmark_size_campaign_ranks_the_best_systems_first() -> None:
    # 50,000 ranking sets (ballots) of 5 outputs from 300 workers on 12 systems: 500,000
    # pairwise comparisons; the full report includes a 1000-sample Bradley-Terry bootstrap and
    # TrueSkill over every comparison. Its speed is measured by bench/ranking_stats.py.
    j = simulate(
        4,
        n_sets=10_000,
        n_systems=12,
        n_careful=240,
        n_spammers=60,
        redundancy=5,
        set_size=5,
        gold_share=0.1,
    )
    assert j.n_ballots == 50_000 and len(j.pairs) == 500_000
    r = analyse_ranking(j, RankingConfig(gold_scheme="best_worst"))
    assert r.bradley_terry.n_samples == 1000
    assert r.bradley_terry.scores.ranked_systems[:3].tolist() == [11, 10, 9]
