"""Ranking input, pairwise expansion and system scores, checked against hand-worked numbers.

Sources: 000 section 4 (pairs, "better than or equal"), 002 section 5.2 ("better than"),
WMT13 (Expected Wins), Bradley & Terry (1952) via choix.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.stats.ranking import (
    RankingJudgments,
    bootstrap_counting_scores,
    bootstrap_scores,
    bradley_terry,
    competition_ranks,
    expected_wins,
    pair_counts,
    pairwise,
    win_ratios,
)
from analytics.stats.ranking.bootstrap import replicate_counts

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

REL = 1e-12


def ballots(*specs: tuple[int, int, dict[int, int]]) -> RankingJudgments:
    """(worker, ranking_set, {system: rank}) per ballot; one assignment per ballot."""
    return RankingJudgments.from_ballots(
        {"worker": w, "ranking_set": s, "ranks": r} for w, s, r in specs
    )


# ---------------------------------------------------------------------------- input
def test_input_validation() -> None:
    ok = dict(worker=[1, 1], assignment=[1, 1], ranking_set=[5, 5], segment=[7, 7])
    with pytest.raises(ValueError, match="duplicate output"):
        RankingJudgments(**ok, system=[3, 3], rank=[1, 2])
    with pytest.raises(ValueError, match="rank must be >= 1"):
        RankingJudgments(**ok, system=[3, 4], rank=[0, 2])
    with pytest.raises(ValueError, match="assignment 1 has more than one worker"):
        RankingJudgments(**{**ok, "worker": [1, 2]}, system=[3, 4], rank=[1, 2])
    with pytest.raises(ValueError, match="ranking set 5 has more than one segment"):
        RankingJudgments(**{**ok, "segment": [7, 8]}, system=[3, 4], rank=[1, 2])
    with pytest.raises(ValueError, match="length"):
        RankingJudgments(**ok, system=[3, 4], rank=[1])
    # Several inconsistent groups: the smallest id is named (assignments 9 and 4 here).
    many = dict(assignment=[9, 9, 4, 4, 2], ranking_set=[5] * 5, segment=[7] * 5)
    with pytest.raises(ValueError, match="assignment 4 has more than one worker"):
        RankingJudgments(**many, worker=[1, 2, 3, 1, 1], system=[1, 2, 3, 4, 5], rank=[1] * 5)
    with pytest.raises(ValueError, match="duplicate output: assignment 9, ranking set 5, system 2"):
        RankingJudgments(**many, worker=[1, 1, 3, 3, 1], system=[2, 2, 3, 4, 5], rank=[1] * 5)
    j = RankingJudgments(**ok, system=[3, 4], rank=[1, 2])
    assert not j.rank.flags.writeable  # cached derived data can never go stale
    assert j.expected_rank.tolist() == [0, 0] and j.order.tolist() == [0.0, 1.0]


def test_pairwise_expansion_by_hand() -> None:
    # Ballot 1 (N = 3): system 3 rank 1, system 1 rank 2, system 2 rank 2 -> 3 pairs, oriented
    # by system id: (1, 2) tie; (1, 3): 3 is better, so "A < B" = -1; (2, 3): -1.
    # Ballot 2 (N = 4, another worker): ranks 1, 2, 3, 4 for systems 0..3 -> 6 pairs, all +1.
    j = ballots((1, 10, {3: 1, 1: 2, 2: 2}), (2, 11, {0: 1, 1: 2, 2: 3, 3: 4}))
    p = pairwise(j)
    assert len(p) == 3 + 6  # N(N-1)/2 per ballot
    got = sorted(
        zip(
            p.ballot.tolist(),
            p.system_a.tolist(),
            p.system_b.tolist(),
            p.outcome.tolist(),
            strict=True,
        )
    )
    assert got == [
        (0, 1, 2, 0),
        (0, 1, 3, -1),
        (0, 2, 3, -1),
        (1, 0, 1, 1),
        (1, 0, 2, 1),
        (1, 0, 3, 1),
        (1, 1, 2, 1),
        (1, 1, 3, 1),
        (1, 2, 3, 1),
    ]
    assert (j.rank[p.row_a] < j.rank[p.row_b]).tolist() == (p.outcome == 1).tolist()


def test_pairs_with_a_gold_translation_are_not_counted_for_systems() -> None:
    # System -1 is the gold translation: its pairs exist (for gold checks and agreement) but
    # the counts only see the 1 pair between the two real systems.
    j = ballots((1, 1, {-1: 1, 4: 2, 5: 3}))
    assert len(j.pairs) == 3
    c = pair_counts(j.pairs)
    assert c.systems.tolist() == [4, 5]
    assert c.wins.tolist() == [[0, 1], [0, 0]]


# ---------------------------------------------------------------------------- win ratios
TWO_BALLOTS = ((1, 1, {0: 1, 1: 2, 2: 3}), (2, 2, {0: 2, 1: 1, 2: 1}))
# Ballot 1: 0 > 1, 0 > 2, 1 > 2.   Ballot 2: 1 > 0, 2 > 0, 1 = 2.
#   system 0: wins 2 (both in ballot 1), losses 2, ties 0 -> 4 comparisons
#   system 1: wins 2 (over 2, over 0), losses 1, ties 1 -> 4
#   system 2: wins 1 (over 0),        losses 2, ties 1 -> 4


def test_win_ratios_by_hand() -> None:
    c = pair_counts(ballots(*TWO_BALLOTS).pairs)
    assert c.wins.tolist() == [[0, 1, 1], [1, 0, 1], [1, 0, 0]]
    assert c.ties.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    geq = win_ratios(c, "better_or_equal")
    # (wins + ties) / comparisons: 2/4, 3/4, 2/4
    assert geq.score.tolist() == [0.5, 0.75, 0.5]
    assert geq.comparisons.tolist() == [4, 4, 4]
    assert geq.ties.tolist() == [0, 1, 1] and geq.losses.tolist() == [2, 1, 2]
    better = win_ratios(c, "better")
    # wins / comparisons: 2/4, 2/4, 1/4
    assert better.score.tolist() == [0.5, 0.5, 0.25]
    assert better.rank.tolist() == [1, 1, 3]  # ties share the best rank
    assert geq.ranked_systems.tolist() == [1, 0, 2]  # stable: 0 before 2 at 0.5
    with pytest.raises(ValueError):
        win_ratios(c, "maybe")  # type: ignore[arg-type]


def test_system_without_comparisons_has_nan_ratio() -> None:
    c = pair_counts(ballots((1, 1, {0: 1, 1: 2})).pairs, systems=[0, 1, 9])
    assert np.isnan(win_ratios(c).score[2])
    assert competition_ranks(win_ratios(c).score).tolist() == [1, 2, 3]


# ---------------------------------------------------------------------------- Expected Wins
def test_expected_wins_by_hand() -> None:
    c = pair_counts(ballots(*TWO_BALLOTS).pairs)
    # Ties ignored; each opponent counts once (|{S_j}| = 2):
    #   0: vs 1: 1/(1+1) = 1/2, vs 2: 1/(1+1) = 1/2        -> (1/2 + 1/2) / 2 = 0.5
    #   1: vs 0: 1/2,           vs 2: 1/(1+0) = 1 (tie out) -> (1/2 + 1) / 2   = 0.75
    #   2: vs 0: 1/2,           vs 1: 0/(0+1) = 0           -> (1/2 + 0) / 2   = 0.25
    assert expected_wins(c).score.tolist() == [0.5, 0.75, 0.25]


def test_expected_wins_weighs_opponents_equally_unlike_the_win_ratio() -> None:
    # A (0) beats B (1) nine times, loses once to C (2); C and B never meet.
    specs = [(1, k, {0: 1, 1: 2}) for k in range(9)] + [(1, 9, {0: 2, 2: 1})]
    c = pair_counts(ballots(*specs).pairs)
    # Win ratio of A: 9 wins of 10 comparisons = 0.9.
    assert win_ratios(c, "better").score[0] == pytest.approx(0.9, rel=REL)
    # Expected Wins of A: (9/9 + 0/1) / 2 = 0.5; of C: (1/1 + undefined vs B -> 0) / 2 = 0.5;
    # of B: (0/9 + undefined -> 0) / 2 = 0.
    assert expected_wins(c).score.tolist() == [0.5, 0.0, 0.5]


# ---------------------------------------------------------------------------- Bradley-Terry
def test_bradley_terry_two_systems_closed_form() -> None:
    # 0 beats 1 three times, loses once, ties twice.  The BT MLE has p = e^θ0/(e^θ0+e^θ1) =
    # wins / decisive, so θ0 - θ1 = log(wins / losses); θ is centred (mean 0).
    specs = [(1, k, {0: 1, 1: 2}) for k in range(3)] + [(1, 3, {0: 2, 1: 1})]
    specs += [(1, 4, {0: 1, 1: 1}), (1, 5, {0: 1, 1: 1})]
    c = pair_counts(ballots(*specs).pairs)
    drop = bradley_terry(c, ties="drop", alpha=0.0)
    # Ties dropped: 3 : 1 -> θ0 - θ1 = log 3.
    assert drop.score[0] - drop.score[1] == pytest.approx(math.log(3), rel=1e-7)
    assert drop.score.sum() == pytest.approx(0.0, abs=1e-12)
    half = bradley_terry(c, ties="half", alpha=0.0)
    # Ties split: 3 + 2/2 = 4 wins against 1 + 2/2 = 2 -> θ0 - θ1 = log 2.
    assert half.score[0] - half.score[1] == pytest.approx(math.log(2), rel=1e-7)


def test_bradley_terry_satisfies_the_likelihood_equations() -> None:
    # Three systems, a non-transitive-looking but connected set of results:
    #   0 beats 1 x3, 1 beats 0 x1; 1 beats 2 x2, 2 beats 1 x1; 0 beats 2 x1, 2 beats 0 x2.
    # At the MLE each system's expected wins equal its observed wins:
    #   sum_j n_ij e^θi / (e^θi + e^θj) = W_i   (Bradley & Terry 1952; Hunter 2004, eq. 3)
    res = [(0, 1)] * 3 + [(1, 0)] + [(1, 2)] * 2 + [(2, 1)] + [(0, 2)] + [(2, 0)] * 2
    specs = [(1, k, {w: 1, lo: 2}) for k, (w, lo) in enumerate(res)]
    c = pair_counts(ballots(*specs).pairs)
    theta = bradley_terry(c, ties="drop", alpha=0.0).score
    n = c.comparisons
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
    expected = (n * p).sum(axis=1)
    assert expected == pytest.approx(c.wins.sum(axis=1), abs=1e-7)  # W = [4, 3, 3]
    assert c.wins.sum(axis=1).tolist() == [4, 3, 3]


def test_bradley_terry_alpha_keeps_an_unbeaten_system_finite() -> None:
    c = pair_counts(ballots(*[(1, k, {0: 1, 1: 2}) for k in range(5)]).pairs)
    theta = bradley_terry(c).score  # default alpha > 0
    assert np.isfinite(theta).all() and theta[0] > theta[1]


# ---------------------------------------------------------------------------- bootstrap
def _campaign(seed: int, n_sets: int = 120) -> RankingJudgments:
    """3 systems of clearly different quality (2 > 1 > 0), 3 workers per set."""
    rng = np.random.default_rng(seed)
    specs = []
    for s in range(n_sets):
        for w in range(3):
            score = np.array([0.0, 1.0, 2.0]) + rng.normal(0, 1.0, 3)
            ranks = 1 + (score[None, :] > score[:, None]).sum(axis=1)
            specs.append((w, s, dict(enumerate(ranks.tolist()))))
    return ballots(*specs)


def test_bootstrap_is_seeded_and_consistent() -> None:
    j = _campaign(0)
    a = bootstrap_scores(j, n_samples=200, seed=3)
    b = bootstrap_scores(j, n_samples=200, seed=3)
    c = bootstrap_scores(j, n_samples=200, seed=4)
    assert np.array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)
    assert a.samples.shape == (200, 3)
    assert (a.ci_low <= a.score).all() and (a.score <= a.ci_high).all()
    assert (a.rank_low <= a.scores.rank).all() and (a.scores.rank <= a.rank_high).all()
    # Clearly separated systems: each beats the one below it, one cluster each.
    assert a.p_greater[2, 1] < 0.05 and a.p_greater[1, 0] < 0.05
    assert a.p_greater[0, 2] > 0.5
    assert a.clusters.tolist() == [3, 2, 1]
    assert a.cluster_rank_best.tolist() == [3, 2, 1]


def test_bootstrap_with_one_set_has_no_variation() -> None:
    # A single ranking set: every replicate redraws that one set, so every replicate equals
    # the data.  Then the CI is the point, and for i better than j no replicate has
    # score_i <= score_j: p[i, j] = (1 + 0) / (1 + B); p[j, i] = (1 + B) / (1 + B) = 1.
    j = ballots((1, 1, {0: 1, 1: 2, 2: 3}), (2, 1, {0: 1, 1: 2, 2: 3}))
    r = bootstrap_scores(j, "win_ratio", n_samples=99, seed=0)
    assert r.score.tolist() == [1.0, 0.5, 0.0]
    assert np.array_equal(r.ci_low, r.score) and np.array_equal(r.ci_high, r.score)
    assert r.p_greater[0, 1] == pytest.approx(1 / 100, rel=REL)
    assert r.p_greater[1, 0] == 1.0
    assert r.rank_low.tolist() == r.rank_high.tolist() == [1, 2, 3]


def test_replicate_counts_match_a_direct_recount() -> None:
    # Recount one replicate by hand from the same draws: multiplicity of each set times its
    # own win matrix, summed.
    j = _campaign(1, n_sets=7)
    pairs = j.pairs
    systems = j.systems
    (wins, ties), *_ = list(replicate_counts(pairs, systems, 5, np.random.default_rng(9)))
    draws = np.random.default_rng(9).integers(0, 7, size=(5, 7))
    for b in range(5):
        mult = np.bincount(draws[b], minlength=7)
        expect_w = np.zeros((3, 3))
        expect_t = np.zeros((3, 3))
        for s in range(7):
            c = pair_counts(pairs.subset(pairs.set_index == s), systems)
            expect_w += mult[s] * c.wins
            expect_t += mult[s] * c.ties
        assert np.array_equal(wins[b], expect_w)
        assert np.array_equal(ties[b], expect_t)


def test_bootstrap_methods_and_units() -> None:
    j = _campaign(2, n_sets=40)
    for method in ("bradley_terry", "expected_wins", "win_ratio"):
        r = bootstrap_scores(j, method, n_samples=50, unit="ballot")
        assert r.samples.shape == (50, 3)
        assert r.scores.ranked_systems.tolist() == [2, 1, 0]
    with pytest.raises(ValueError):
        bootstrap_scores(j, "elo", n_samples=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        bootstrap_scores(j, unit="worker", n_samples=5)  # type: ignore[arg-type]


def test_counting_scores_share_one_draw_and_equal_their_separate_bootstraps() -> None:
    j = _campaign(3)
    shared = bootstrap_counting_scores(
        j,
        {
            "geq": ("win_ratio", "better_or_equal"),
            "gt": ("win_ratio", "better"),
            "ew": ("expected_wins", "better_or_equal"),
        },
        n_samples=200,
        seed=11,
    )
    alone = {
        "geq": bootstrap_scores(j, "win_ratio", n_samples=200, seed=11),
        "gt": bootstrap_scores(j, "win_ratio", win_ties="better", n_samples=200, seed=11),
        "ew": bootstrap_scores(j, "expected_wins", n_samples=200, seed=11),
    }
    for name, result in alone.items():
        np.testing.assert_array_equal(shared[name].samples, result.samples)
        np.testing.assert_array_equal(shared[name].scores.score, result.scores.score)
        np.testing.assert_array_equal(shared[name].ci_low, result.ci_low)
        np.testing.assert_array_equal(shared[name].clusters, result.clusters)
    assert (shared["geq"].scores.method, shared["gt"].scores.method) == (
        "win_ratio_better_or_equal",
        "win_ratio_better",
    )
    with pytest.raises(ValueError, match="bootstrap Bradley-Terry with bootstrap_scores"):
        bootstrap_counting_scores(j, {"bt": ("bradley_terry", "better_or_equal")})


def test_tuple_codes_number_the_distinct_tuples_in_sorted_order() -> None:
    from analytics.stats.ranking.judgments import tuple_codes

    rng = np.random.default_rng(4)
    n = 2_000
    cases = [
        # short ranges (systems, ranks): the presence table, no sort
        (rng.integers(0, 300, n) * 7 + 3, rng.integers(1, 13, n), rng.integers(1, 13, n)),
        # a wide range (ids far apart): sorted codes
        (rng.integers(-(2**40), 2**40, n), rng.integers(0, 3, n)),
        # three wide columns whose product of distinct counts passes int64: compressed as it goes
        (rng.integers(0, 2**62, n), rng.integers(0, 2**62, n), rng.integers(0, 2**62, n)),
        # few distinct tuples, repeated
        (rng.integers(0, 3, n), rng.integers(5, 7, n)),
    ]
    for columns in cases:
        columns = tuple(np.asarray(c, dtype=np.int64) for c in columns)
        distinct, expected = np.unique(np.stack(columns, axis=1), axis=0, return_inverse=True)
        code, k = tuple_codes(*columns)
        assert k == distinct.shape[0]
        assert np.array_equal(code, expected.reshape(-1))
    empty = np.zeros(0, dtype=np.int64)
    code, k = tuple_codes(empty, empty)
    assert k == 0 and code.shape == (0,)


def test_pair_cells_are_worked_out_once_per_list_of_systems() -> None:
    from analytics.stats.ranking.scores import _cells

    j = _campaign(5, n_sets=30)
    pairs = j.pairs
    first = _cells(pairs, j.systems)
    assert _cells(pairs, j.systems) is first  # kept on the pairs
    assert not first[0].flags.writeable and not first[1].flags.writeable
    fewer = _cells(pairs, j.systems[:2])
    assert fewer is not first
    # A system left out: its pairs go in no cell.
    dropped = (pairs.system_a == j.systems[2]) | (pairs.system_b == j.systems[2])
    assert (fewer[0][dropped] == -1).all() and (fewer[1][dropped] == -1).all()
    assert pair_counts(pairs, j.systems[:2]).wins.sum() + pair_counts(
        pairs, j.systems[:2]
    ).ties.sum() / 2 == np.count_nonzero(~dropped)


@pytest.mark.parametrize("sys_ids", [[3, 5, 9], [3, 5, 10**9], [7], []])
def test_system_positions_by_table_or_search(sys_ids) -> None:
    # Short id ranges take the lookup table, long ones the binary search: both give each
    # value's position among the ids, -1 for gold outputs (negative) and unlisted systems.
    from analytics.stats.ranking.scores import system_positions

    ids = np.array(sys_ids, dtype=np.int64)
    values = np.array([-2, -1, 0, 3, 4, 5, 7, 9, 10, 10**9, 10**9 + 1], dtype=np.int64)
    expected = [sys_ids.index(v) if v in sys_ids else -1 for v in values.tolist()]
    assert system_positions(ids, values).tolist() == expected
    assert values.tolist()[0] == -2  # the input is left as it was


def test_pair_counts_are_counted_once_per_pairs_and_systems() -> None:
    j = RankingJudgments.from_ballots(
        [
            {"worker": 1, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 2}},
            {"worker": 2, "ranking_set": 1, "ranks": {0: 2, 1: 1, 2: 3}},
        ]
    )
    counts = pair_counts(j.pairs)
    assert pair_counts(j.pairs) is counts
    assert pair_counts(j.pairs, [0, 1]) is not counts
    assert counts.wins.tolist() == [[0, 1, 2], [1, 0, 1], [0, 0, 0]]
    assert counts.ties.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 0]]
    with pytest.raises(ValueError, match="read-only"):
        counts.wins[0, 0] = 1


def test_a_selection_has_the_codes_its_own_columns_give() -> None:
    # select() narrows the worker, set and ballot codes the judgments have already instead
    # of factorising the subset again: the same ids and codes as judgments built afresh.
    rng = np.random.default_rng(5)
    ballots = [
        {
            "worker": int(rng.integers(10, 16)),
            "ranking_set": int(rng.integers(100, 130)),
            "ranks": {int(s): int(rng.integers(1, 4)) for s in rng.choice(6, 3, replace=False)},
        }
        for _ in range(60)
    ]
    j = RankingJudgments.from_ballots(ballots)
    _ = j.worker_index, j.set_index, j.ballot  # computed on the whole first
    rows = ~np.isin(j.worker, [11, 14]) & (j.ranking_set != 105)
    for selection in (rows, np.flatnonzero(rows)):
        sub = j.select(selection)
        fresh = RankingJudgments(
            **{name: getattr(j, name)[rows] for name in RankingJudgments.__dataclass_fields__}
        )
        for name in ("workers", "worker_index", "sets", "set_index", "ballot"):
            np.testing.assert_array_equal(getattr(sub, name), getattr(fresh, name))
        assert sub.n_ballots == fresh.n_ballots
        np.testing.assert_array_equal(sub.pairs.key, fresh.pairs.key)
        np.testing.assert_array_equal(sub.pairs.outcome, fresh.pairs.outcome)
        assert not sub.rank.flags.writeable


def test_set_codes_without_a_sort_equal_factorising() -> None:
    # Set ids split in their high and low 16 bits give the sorted distinct ids and codes a
    # sort gives, for any int64 (negative, beyond 2**32, 16-bit boundaries).
    from analytics.stats.ranking.judgments import _factor
    from analytics.stats.rows import factorise

    rng = np.random.default_rng(2)
    for col in (
        np.array([5]),
        np.zeros(0, dtype=np.int64),
        np.array([-3, 7, -3, 2**40, -(2**40), 0, 65535, 65536, 65536]),
        (rng.integers(1000, 1300, 5000) << 16) | rng.integers(0, 3, 5000),
        rng.integers(-(2**62), 2**62, 1000),
    ):
        ids, codes = _factor(col.astype(np.int64))
        expected_ids, expected_codes = factorise(col.astype(np.int64))
        np.testing.assert_array_equal(ids, expected_ids)
        np.testing.assert_array_equal(codes, expected_codes)
        assert codes.dtype == np.int64


def test_pairs_of_rows_out_of_ballot_order_are_the_same_comparisons() -> None:
    # Rows grouped by ballot skip the sort; shuffled rows take it: the same comparisons.
    rng = np.random.default_rng(8)
    j = RankingJudgments.from_ballots(
        {
            "worker": b % 4,
            "ranking_set": b // 2,
            "ranks": {int(s): int(rng.integers(1, 4)) for s in rng.choice(6, 4, replace=False)},
        }
        for b in range(30)
    )
    shuffled = j.select(rng.permutation(len(j)))
    assert np.any(np.diff(shuffled.ballot) < 0)

    def comparisons(judgments: RankingJudgments) -> list[tuple[int, ...]]:
        p = judgments.pairs
        rows = zip(
            judgments.assignment[p.row_a].tolist(),
            p.system_a.tolist(),
            p.system_b.tolist(),
            p.outcome.tolist(),
            strict=True,
        )
        return sorted(rows)

    assert comparisons(shuffled) == comparisons(j)
    assert len(j.pairs) == 30 * 6
