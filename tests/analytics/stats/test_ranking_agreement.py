"""Agreement measures (000 section 4, 002 section 5.3) and Spearman's rho, worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analytics.stats.ranking import (
    RankingJudgments,
    cohen_kappa,
    fleiss_kappa,
    inter_annotator_agreement,
    intra_annotator_agreement,
    kappa_coefficient,
    label_agreement,
    oracle_agreement,
    oracle_pairs,
    reference_agreement,
    spearman,
)

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

REL = 1e-12


def test_label_agreement_uniform_chance_is_one_third() -> None:
    # 000: chance agreement on three labels is 1/3.  4 of 6 labels agree.
    r = label_agreement([1, 0, -1, 1, 1, 0], [1, 0, -1, -1, 1, 1])
    assert (r.n, r.n_agree) == (6, 4)
    assert r.pr_a == pytest.approx(4 / 6, rel=REL)
    assert r.pr_e == pytest.approx(1 / 3, rel=REL)
    # kappa = (2/3 - 1/3) / (1 - 1/3) = 1/2
    assert r.kappa == pytest.approx(0.5, rel=REL)


def test_cohen_kappa_wikipedia_example() -> None:
    # Wikipedia "Cohen's kappa", first example: 50 proposals, yes/no; both yes 20, A yes B no
    # 5, A no B yes 10, both no 15.  p_o = 35/50 = 0.7; A says yes 25/50, B 30/50:
    # p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    a = [1] * 20 + [1] * 5 + [-1] * 10 + [-1] * 15
    b = [1] * 20 + [-1] * 5 + [1] * 10 + [-1] * 15
    assert cohen_kappa(a, b) == pytest.approx(0.4, rel=1e-12)
    r = label_agreement(a, b, chance="cohen")
    assert (r.pr_a, r.pr_e) == (pytest.approx(0.7), pytest.approx(0.5))
    # Pooled (Scott's pi): p(yes) = (25 + 30) / 100 = 0.55 -> p_e = 0.55^2 + 0.45^2 = 0.505.
    assert label_agreement(a, b, chance="pooled").pr_e == pytest.approx(0.505, rel=1e-12)
    with pytest.raises(ValueError):
        label_agreement([2], [1])


def test_fleiss_kappa_wikipedia_example() -> None:
    # Wikipedia "Fleiss' kappa" worked example: 10 subjects, 14 raters, 5 categories.
    # P-bar = 0.378, P-bar_e = 0.213, kappa = 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    r = fleiss_kappa(table)
    assert (r.n_items, r.n_ratings) == (10, 140)
    # p_j = column sums / 140: 20, 28, 39, 21, 32 -> 0.143, 0.200, 0.279, 0.150, 0.229
    assert r.category_shares == pytest.approx((20 / 140, 28 / 140, 39 / 140, 21 / 140, 32 / 140))
    assert r.pr_a == pytest.approx(0.378, abs=5e-4)
    assert r.pr_e == pytest.approx(0.213, abs=5e-4)
    assert r.kappa == pytest.approx(0.210, abs=5e-4)
    # Exact: P-bar = 3.78 / 10 (P_1 = 1.000, P_2 = 0.253, ...) from the sums of squares.
    squares = np.sum(np.square(table), axis=1)
    assert r.pr_a == pytest.approx(float(np.mean((squares - 14) / (14 * 13))), rel=REL)


def test_fleiss_kappa_skips_items_with_one_rating_and_handles_unequal_counts() -> None:
    # Item 1: 2 ratings both category 0 -> P = (4 - 2) / (2 * 1) = 1.
    # Item 2: 3 ratings, 2 x cat 0 and 1 x cat 1 -> P = (4 + 1 - 3) / (3 * 2) = 1/3.
    # Item 3: a single rating: no pair, skipped.
    # P-bar = (1 + 1/3) / 2 = 2/3; p = (4/5, 1/5); P-bar_e = 16/25 + 1/25 = 17/25.
    r = fleiss_kappa([[2, 0], [2, 1], [0, 1]])
    assert r.n_items == 2 and r.n_ratings == 5
    assert r.pr_a == pytest.approx(2 / 3, rel=REL)
    assert r.pr_e == pytest.approx(17 / 25, rel=REL)
    assert r.kappa == pytest.approx((2 / 3 - 17 / 25) / (1 - 17 / 25), rel=REL)
    assert math.isnan(fleiss_kappa(np.zeros((0, 3))).kappa)
    assert math.isnan(kappa_coefficient(0.5, 1.0))


# Three workers rank set 1 (systems 0, 1, 2); worker 0 sees the same set again later.
#   W0:        0:1 1:2 2:3 -> (0,1) +  (0,2) +  (1,2) +
#   W1:        0:1 1:1 2:2 -> (0,1) =  (0,2) +  (1,2) +
#   W2:        0:3 1:2 2:1 -> (0,1) -  (0,2) -  (1,2) -
#   W0 again:  0:1 1:3 2:2 -> (0,1) +  (0,2) +  (1,2) -
PANEL = [
    {"worker": 0, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}, "order": 0},
    {"worker": 1, "ranking_set": 1, "ranks": {0: 1, 1: 1, 2: 2}, "order": 1},
    {"worker": 2, "ranking_set": 1, "ranks": {0: 3, 1: 2, 2: 1}, "order": 2},
    {"worker": 0, "ranking_set": 1, "ranks": {0: 1, 1: 3, 2: 2}, "order": 3},
]


def test_intra_annotator_agreement_on_a_repeated_set() -> None:
    j = RankingJudgments.from_ballots(PANEL)
    r = intra_annotator_agreement(j)
    # W0 vs W0 again: (0,1) + +, (0,2) + +, (1,2) + - -> 2 of 3.
    assert (r.n, r.n_agree) == (3, 2)
    # kappa = (2/3 - 1/3) / (2/3) = 1/2
    assert r.kappa == pytest.approx(0.5, rel=REL)


def test_inter_annotator_agreement_by_hand() -> None:
    j = RankingJudgments.from_ballots(PANEL)
    r = inter_annotator_agreement(j)
    # One label per worker and pair (W0's first ballot), 3 workers -> 3 pairs of workers on
    # each of 3 pairs of outputs = 9 comparisons:
    #   (0,1): +, =, -  -> 0 agree;  (0,2): +, +, -  -> 1;  (1,2): +, +, -  -> 1.
    assert (r.pairwise.n, r.pairwise.n_agree) == (9, 2)
    # uniform: (2/9 - 1/3) / (2/3) = -1/6
    assert r.pairwise.kappa == pytest.approx(-1 / 6, rel=REL)
    # Fleiss: P_i = 0, 1/3, 1/3 -> P-bar = 2/9; labels -: 3, =: 1, +: 5 of 9 ->
    # P-bar_e = (9 + 1 + 25) / 81 = 35/81; kappa = (18/81 - 35/81) / (46/81) = -17/46.
    assert r.fleiss.pr_a == pytest.approx(2 / 9, rel=REL)
    assert r.fleiss.pr_e == pytest.approx(35 / 81, rel=REL)
    assert r.fleiss.kappa == pytest.approx(-17 / 46, rel=REL)
    pooled = inter_annotator_agreement(j, chance="pooled").pairwise
    assert pooled.pr_e == pytest.approx(35 / 81, rel=REL)  # same as Fleiss with equal n
    # Restricted to workers 0 and 1: 3 comparisons, (0,2) and (1,2) agree -> 2/3.
    two = inter_annotator_agreement(j, include_workers=np.array([True, True, False]))
    assert (two.pairwise.n, two.pairwise.n_agree) == (3, 2)


def test_reference_agreement_matches_pairs_by_segment() -> None:
    # Crowd: W0 (+ + +) and W1 (= + +) on set 1 (segment 1).  Expert: one ranking of the same
    # segment, in its own set 99: 0:1 1:2 2:2 -> (0,1) +, (0,2) +, (1,2) =.
    crowd = RankingJudgments.from_ballots(PANEL[:2])
    expert = RankingJudgments.from_ballots(
        [{"worker": 50, "ranking_set": 99, "segment": 1, "ranks": {0: 1, 1: 2, 2: 2}}]
    )
    r = reference_agreement(crowd, expert, chance="cohen")
    # W0: agrees on (0,1), (0,2) -> 2; W1: agrees on (0,2) -> 1.  3 of 6.
    assert (r.n, r.n_agree) == (6, 3)
    # Cohen: crowd labels + 5/6, = 1/6; expert labels (each met by 2 crowd labels) + 4/6,
    # = 2/6 -> p_e = 5/6 * 4/6 + 1/6 * 2/6 = 22/36; kappa = (1/2 - 11/18) / (7/18) = -2/7.
    assert r.pr_e == pytest.approx(22 / 36, rel=REL)
    assert r.kappa == pytest.approx(-2 / 7, rel=REL)
    # A different segment shares nothing.
    other = RankingJudgments.from_ballots(
        [{"worker": 50, "ranking_set": 99, "segment": 2, "ranks": {0: 1, 1: 2, 2: 2}}]
    )
    assert reference_agreement(crowd, other).n == 0


def test_oracle_agreement_by_hand() -> None:
    # Oracle: 2 > 1 > 0 (e.g. trained on 160k > 80k > 20k sentences, 002): every judged pair
    # (a, b) with a < b should be "A < B" (-1).
    assert oracle_pairs([[2, 1, 0]]) == {(1, 2): -1, (0, 2): -1, (0, 1): -1}
    j = RankingJudgments.from_ballots(PANEL[:3])
    r = oracle_agreement(j, [[2, 1, 0]], chance="cohen")
    # W0 + + +: 0 agree; W1 = + +: 0; W2 - - -: 3.  3 of 9.
    assert (r.n, r.n_agree) == (9, 3)
    # Cohen: crowd - 3/9; oracle always - -> p_e = 3/9 = Pr(a): kappa 0.
    assert r.kappa == pytest.approx(0.0, abs=1e-12)
    # Only declared pairs count: "2 > 1" alone compares 3 labels of pair (1, 2).
    assert oracle_agreement(j, [[2, 1]]).n == 3
    with pytest.raises(ValueError, match="contradictory"):
        oracle_pairs([[2, 1], [1, 2]])


def test_spearman_by_hand() -> None:
    # Our scores rank systems 1..5 in order; the reference swaps the last two.
    # d = 0, 0, 0, 1, 1 -> rho = 1 - 6 * 2 / (5 * 24) = 0.9.
    r = spearman([1, 2, 3, 4, 5], [0.9, 0.8, 0.7, 0.6, 0.5], [5, 4, 3, 2, 1], [4, 5, 3, 2, 1])
    assert r.rho == pytest.approx(0.9, rel=1e-12)
    # p: two-sided t test, t = rho * sqrt((n - 2) / (1 - rho^2)) with n - 2 = 3 df.
    t = 0.9 * math.sqrt(3 / (1 - 0.81))
    assert r.p_value == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-9)
    assert r.systems == (1, 2, 3, 4, 5) and r.n_systems == 5


def test_spearman_with_ties_and_missing_systems() -> None:
    # Reference ranks 1, 1, 3, 4, 5 (systems 1 and 2 tied); system 9 is only ours.
    # Average ranks: ours 1..5, theirs 1.5, 1.5, 3, 4, 5.  Pearson on ranks:
    # deviations -2,-1,0,1,2 and -1.5,-1.5,0,1,2: cov = 9.5, ss = 10 and 9.5 ->
    # rho = 9.5 / sqrt(95).
    r = spearman(
        [1, 2, 3, 4, 5, 9], [0.9, 0.8, 0.7, 0.6, 0.5, 0.1], [1, 2, 3, 4, 5], [1, 1, 3, 4, 5]
    )
    assert r.rho == pytest.approx(9.5 / math.sqrt(95), rel=1e-12)
    assert r.n_systems == 5
    # Reference as scores (higher = better) gives the same.
    r2 = spearman(
        [1, 2, 3], [3.0, 2.0, 1.0], [1, 2, 3], [30.0, 20.0, 10.0], reference_is_rank=False
    )
    assert r2.rho == pytest.approx(1.0)
    # Too few shared systems, or a constant side: undefined, no warning.
    assert math.isnan(spearman([1, 2], [1.0, 2.0], [1, 2], [1, 2]).rho)
    assert math.isnan(spearman([1, 2, 3], [1.0, 1.0, 1.0], [1, 2, 3], [1, 2, 3]).rho)


def _first_per_worker_key_by_sorting(pairs) -> np.ndarray:
    # The previous implementation (a three-key sort), kept as the reference.
    order_of = pairs.judgments.ballot_order[pairs.ballot]
    wk = pairs.key.astype(np.int64) * max(pairs.judgments.n_workers, 1) + pairs.worker
    sort = np.lexsort((np.arange(len(pairs)), order_of, wk))
    first = np.ones(sort.shape[0], dtype=bool)
    first[1:] = wk[sort][1:] != wk[sort][:-1]
    return np.sort(sort[first])


@pytest.mark.parametrize("repeats", [False, True])
def test_first_pair_per_worker_and_outputs_equals_the_sorted_choice(repeats: bool) -> None:
    # Workers meeting the same two outputs again (repeated sets, some made at the same time,
    # some in a later set listed first): the earliest ballot's pair, the first on ties; the
    # agreement figures with it equal to the last bit.
    from analytics.stats.ranking.agreement import _first_per_worker_key

    rng = np.random.default_rng(4)
    ballots = []
    for b in range(400):
        shown = rng.choice(6, 4, replace=False)
        ballots.append(
            {
                "worker": int(rng.integers(0, 7)),
                "ranking_set": int(rng.integers(0, 40)) if repeats else b,
                "ranks": dict(zip(shown.tolist(), rng.integers(1, 5, 4).tolist(), strict=True)),
                "order": float(rng.integers(0, 50)) if repeats else float(b),
            }
        )
    j = RankingJudgments.from_ballots(ballots)
    chosen = _first_per_worker_key(j.pairs)
    np.testing.assert_array_equal(chosen, _first_per_worker_key_by_sorting(j.pairs))
    assert (chosen.shape[0] < len(j.pairs)) is repeats
    subset = j.pairs.subset(j.pairs.worker % 2 == 0)
    np.testing.assert_array_equal(
        _first_per_worker_key(subset), _first_per_worker_key_by_sorting(subset)
    )
