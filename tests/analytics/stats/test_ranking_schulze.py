"""Schulze's method (000 section 4), checked on the classic worked example and tie cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics.stats.ranking import (
    RankingJudgments,
    choose_ballots,
    combine_rankings,
    schulze_ranks,
    strongest_paths,
)

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

CANDS = "ABCDE"
# Wikipedia, "Schulze method", example: 45 voters, 5 candidates.
WIKIPEDIA_BALLOTS = [
    (5, "ACBED"),
    (5, "ADECB"),
    (8, "BEDAC"),
    (3, "CABED"),
    (7, "CAEBD"),
    (2, "CBADE"),
    (7, "DCEBA"),
    (8, "EBADC"),
]


def preferences(ballots: list[tuple[float, str]]) -> np.ndarray:
    d = np.zeros((5, 5))
    for weight, order in ballots:
        pos = {c: i for i, c in enumerate(order)}
        for a in CANDS:
            for b in CANDS:
                if pos[a] < pos[b]:
                    d[CANDS.index(a), CANDS.index(b)] += weight
    return d


def test_wikipedia_example_pairwise_preferences_and_strongest_paths() -> None:
    d = preferences(WIKIPEDIA_BALLOTS)
    # d[A, B] = voters preferring A to B = 5 + 5 + 3 + 7 = 20; d[B, A] = 8 + 2 + 7 + 8 = 25.
    assert d.tolist() == [
        [0, 20, 26, 30, 22],
        [25, 0, 16, 33, 18],
        [19, 29, 0, 17, 24],
        [15, 12, 28, 0, 14],
        [23, 27, 21, 31, 0],
    ]
    # Strongest paths as listed in the example, e.g. p[A, B] = 28 via A -30-> D -28-> C
    # -29-> B (weakest link 28), p[E, D] = 31 directly.
    assert strongest_paths(d).tolist() == [
        [0, 28, 28, 30, 24],
        [25, 0, 28, 33, 24],
        [25, 29, 0, 29, 24],
        [25, 28, 28, 0, 24],
        [25, 28, 28, 31, 0],
    ]


def test_wikipedia_example_result_is_e_a_c_b_d() -> None:
    ranks = schulze_ranks(preferences(WIKIPEDIA_BALLOTS))
    # E > A > C > B > D: E beats everyone (p[E, x] = 25, 28, 28, 31 > p[x, E] = 24), A beats
    # C, B, D (28 > 25, 28 > 25, 30 > 25), C beats B, D (29 > 28, 29 > 28), B beats D.
    assert "".join(CANDS[i] for i in np.argsort(ranks)) == "EACBD"
    assert ranks.tolist() == [2, 4, 3, 5, 1]


def test_wikipedia_example_through_judgments_and_weights() -> None:
    # The same election as weighted ballots of 8 workers on one ranking set: the weight of a
    # worker plays the role of the number of voters with that ballot.
    specs = []
    for w, (_count, order) in enumerate(WIKIPEDIA_BALLOTS):
        ranks = {CANDS.index(c): order.index(c) + 1 for c in CANDS}
        specs.append({"worker": w, "ranking_set": 1, "ranks": ranks})
    j = RankingJudgments.from_ballots(specs)
    weights = np.array([count for count, _ in WIKIPEDIA_BALLOTS], dtype=float)
    combined = combine_rankings(j, weights)
    assert combined.system.tolist() == [0, 1, 2, 3, 4]
    assert combined.rank.tolist() == [2, 4, 3, 5, 1]
    assert combined.n_ballots.tolist() == [8] * 5
    assert combined.weight.tolist() == [45.0] * 5
    # Unweighted, each of the 8 distinct ballots counts once and the result changes:
    #   d[A, C] = 4 = d[C, A] and d[A, B] = 4 = d[B, A] (no edge either way); the strict
    #   majorities are A>D 6:2, A>E 5:3, C>B 6:2, C>E 5:3, B>D 6:2, E>D 5:3, C>D 4:4 (none).
    #   No path leads into A or C: layer 1 = {A, C}.  Then B (beaten only by C) and E (by A
    #   and C) have no path between them: layer 2 = {B, E}; D last.  Ranks A..E: 1, 3, 1, 5, 3.
    unweighted = combine_rankings(j)
    assert unweighted.rank.tolist() == [1, 3, 1, 5, 3]


def test_unanimous_ties_stay_tied() -> None:
    # Two ballots both tie B and C between A and D: no ballot prefers B to C or C to B, so
    # d[B, C] = d[C, B] = 0 and Schulze leaves them tied: ranks 1, 2, 2, 4 (competition style).
    d = np.zeros((4, 4))
    for ranks in ([1, 2, 2, 3], [1, 2, 2, 4]):
        r = np.array(ranks)
        d += r[:, None] < r[None, :]
    assert schulze_ranks(d).tolist() == [1, 2, 2, 4]


def test_opposite_ballots_give_a_complete_tie() -> None:
    # A > B > C and C > B > A: every d[i, j] = d[j, i] = 1, so no strict preference at all.
    d = np.zeros((3, 3))
    for ranks in ([1, 2, 3], [3, 2, 1]):
        r = np.array(ranks)
        d += r[:, None] < r[None, :]
    assert schulze_ranks(d).tolist() == [1, 1, 1]


def test_condorcet_cycle_of_equal_strength_is_a_tie() -> None:
    # 3 voters A>B>C, B>C>A, C>A>B: d = 2 vs 1 around the cycle A>B>C>A.  Every strongest
    # path is 2 in both directions (A->B 2, B->A via C: min(2, 2) = 2), so all tie.
    d = np.zeros((3, 3))
    for ranks in ([1, 2, 3], [3, 1, 2], [2, 3, 1]):
        r = np.array(ranks)
        d += r[:, None] < r[None, :]
    assert d.tolist() == [[0, 2, 1], [1, 0, 2], [2, 1, 0]]
    assert strongest_paths(d).tolist() == [[0, 2, 2], [2, 0, 2], [2, 2, 0]]
    assert schulze_ranks(d).tolist() == [1, 1, 1]


def test_partial_order_layers() -> None:
    # Ballots: A > C (one voter, B tied with both on it); nothing else.  A beats C, B is
    # unordered with both.  Layer 1 = {A, B} (unbeaten), layer 2 = {C}: ranks 1, 1, 3.
    d = np.zeros((3, 3))
    d[0, 2] = 1
    assert schulze_ranks(d).tolist() == [1, 1, 3]


def test_batched_ranks_equal_one_by_one() -> None:
    rng = np.random.default_rng(0)
    d = rng.integers(0, 6, size=(50, 5, 5)).astype(float)
    d[:, np.arange(5), np.arange(5)] = 0
    batch = schulze_ranks(d)
    for k in range(50):
        assert batch[k].tolist() == schulze_ranks(d[k]).tolist()


def test_combine_rankings_per_set_with_ties_and_exclusion() -> None:
    # Set 1 (systems 0, 1, 2): three workers; 0 > 1 > 2, 0 > 2 > 1, 1 = 0 > 2.
    #   d[0,1] = 2, d[1,0] = 0, d[0,2] = 3, d[1,2] = 2, d[2,1] = 1 -> 0 > 1 > 2.
    # Set 2 (systems 0, 3): worker 0 says 3 > 0, worker 1 says 0 > 3 -> tie.  With worker 1
    # excluded only worker 0's 3 > 0 is left.
    specs = [
        {"worker": 0, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}},
        {"worker": 1, "ranking_set": 1, "ranks": {0: 1, 1: 3, 2: 2}},
        {"worker": 2, "ranking_set": 1, "ranks": {0: 1, 1: 1, 2: 2}},
        {"worker": 0, "ranking_set": 2, "segment": 9, "ranks": {0: 2, 3: 1}},
        {"worker": 1, "ranking_set": 2, "segment": 9, "ranks": {0: 1, 3: 2}},
    ]
    j = RankingJudgments.from_ballots(specs)
    c = combine_rankings(j)
    got = list(zip(c.ranking_set.tolist(), c.system.tolist(), c.rank.tolist(), strict=True))
    assert got == [(1, 0, 1), (1, 1, 2), (1, 2, 3), (2, 0, 1), (2, 3, 1)]
    assert c.segment.tolist() == [1, 1, 1, 9, 9]
    assert c.n_ballots.tolist() == [3, 3, 3, 2, 2]
    c2 = combine_rankings(j, include_workers=np.array([True, False, True]))
    assert c2.rank[c2.ranking_set == 2].tolist() == [2, 1]
    assert c2.n_ballots.tolist() == [2, 2, 2, 1, 1]
    # As judgments: one pseudo-worker ballot per set, usable by every score function.
    as_j = c.as_judgments()
    assert as_j.n_ballots == 2 and len(as_j.pairs) == 3 + 1
    with pytest.raises(ValueError):
        combine_rankings(j, np.array([1.0, -1.0, 1.0]))


def test_choose_ballots_keeps_k_per_set() -> None:
    specs = [
        {"worker": w, "ranking_set": s, "ranks": {0: 1, 1: 2}} for s in range(4) for w in range(5)
    ]
    j = RankingJudgments.from_ballots(specs)
    for k in (1, 3, 5, 7):
        mask = choose_ballots(j, k, seed=1)
        kept = j.select(mask)
        per_set = np.bincount(kept.set_index[kept.ballot_first_row])
        assert per_set.tolist() == [min(k, 5)] * 4
    assert np.array_equal(choose_ballots(j, 2, seed=3), choose_ballots(j, 2, seed=3))


ballot_lists = st.lists(st.lists(st.integers(1, 5), min_size=5, max_size=5), min_size=1, max_size=9)


@settings(max_examples=200, deadline=None)
@given(ballot_lists)
def test_schulze_properties(ballots: list[list[int]]) -> None:
    r = np.array(ballots)
    d = (r[:, :, None] < r[:, None, :]).sum(axis=0).astype(float)
    ranks = schulze_ranks(d)
    # Ranks are competition style: the best rank is 1, and a rank k is preceded by k - 1
    # candidates ranked strictly better.
    assert ranks.min() == 1
    for k in ranks:
        assert np.sum(ranks < k) == k - 1
    # Condorcet: a candidate preferred to every other by a strict majority wins alone.
    for c in range(5):
        if all(d[c, x] > d[x, c] for x in range(5) if x != c):
            assert ranks[c] == 1 and np.sum(ranks == 1) == 1
    # Unanimity: identical ballots give back that ballot (ties included, as competition
    # ranks).
    if (r == r[0]).all():
        expected = 1 + (r[0][None, :] < r[0][:, None]).sum(axis=1)
        assert ranks.tolist() == expected.tolist()
    # Pareto: if every ballot ranks a strictly above b, the result does too.
    for a in range(5):
        for b in range(5):
            if (r[:, a] < r[:, b]).all():
                assert ranks[a] < ranks[b]
