"""Reading comprehension: grade majority, shares, intervals, permutation test, breakdowns, kappa.

Hand-worked example (2 systems A, B and the reference R; 2 articles, 3 questions each; four
workers, each reading both articles under different systems; graders 100-103):

    article 10 (questions 11 12 13)          article 20 (questions 21 22 23)
    w1 A: YYY  YYN  NNN   -> 1 1 0           w1 B: YYY  NNY  NNN   -> 1 0 0
    w2 B: NNN  YN   NNN   -> 0 t 0           w2 R: YYY  YYY  NNN   -> 1 1 0
    w3 R: YYY  YYY  YYY   -> 1 1 1           w3 A: YYY  YYY  YNYN  -> 1 1 t
    w4 A: YYY  NNY  YYN   -> 1 0 1           w4 R: YYY  YYY  YYY   -> 1 1 1

(Y/N: each grader's mark; t: a tie, answer 5 split 1-1, answer 21 split 2-2.)  Ties score 0.5:

    A: (2 + 2 + 2.5) / 9 = 6.5/9 = 0.7222   question mean (1 + .5 + .5 + 1 + 1 + .5)/6 = 0.75
    B: (0.5 + 1) / 6     = 1.5/6 = 0.25     question mean 1.5/6 = 0.25 (one answer each)
    R: (3 + 2 + 3) / 9   = 8/9   = 0.8889   question mean (1+1+1+1+1+0.5)/6 = 0.9167

Ties as incorrect: A 6/9, B 1/6; as correct: A 7/9, B 2/6; excluded: A 6/8, B 1/5.

Permutation test, A vs B: readings (score sum / answers) in article 10: w1 A 2/3, w2 B 0.5/3,
w4 A 2/3; in article 20: w1 B 1/3, w3 A 2.5/3.  Labellings: C(3, 2) x C(2, 1) = 6, with A's
total 6.5 (observed), 5, 5, 5, 3.5, 3.5 and statistic A/9 - B/6 = 0.472, 0.056 (x3), -0.361
(x2): p(A > B) = 1/6, p(B > A) = 6/6.  A vs R: C(3, 2) x C(3, 1) = 9 labellings, statistic
(2 A - 14.5) / 9 with A's total 6 (x1), 6.5 (obs), 7 (x3), 7.5 (x2), 8 (x2): p(A > R) = 8/9,
p(R > A) = 2/9.  B vs R: 2 x 3 = 6, B's total 1.5 (obs), 2.5, 3.5, 4, 5, 6 and the statistic
rises with it: p(B > R) = 1, p(R > B) = 1/6.  Nothing is significant at 0.05: one cluster.

Bootstrap over the 2 articles: a replicate draws {10, 10}, {10, 20} or {20, 20}; A's share is
4/6, 6.5/9 or 2.5/3, so its 95% interval is [2/3, 5/6]; B [1/6, 1/3]; R [5/6, 1].

Grader agreement, 22 answers with 3 graders (modal): 18 unanimous (P_i = 1), 4 split 2-1
(P_i = 1/3): P-bar = (18 + 4/3) / 22 = 29/33; 45 of 66 marks yes: P_e = (45/66)^2 + (21/66)^2
= 137/242; kappa = (29/33 - 137/242) / (1 - 137/242) = 227/315 = 0.7206.  Generalised over
all 24 (answer 5: 1-1, P = 0; answer 21: 2-2 of 4, P = 4/12): P-bar = (58/3 + 0 + 1/3) / 24 =
59/72; pi_yes = (15 + 1/2 + 1/2) / 24 = 2/3, P_e = 5/9; kappa = (59/72 - 40/72) / (32/72) =
19/32 = 0.59375.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.stats.reading_comprehension import (
    Answers,
    ScoredAnswers,
    aggregate_grades,
    article_breakdown,
    fleiss_kappa,
    grader_agreement,
    gwet_fleiss_kappa,
    pairwise_permutation,
    question_breakdown,
    question_difficulty,
    score_answers,
    system_scores,
    tie_score,
)

R, A, B = 0, 1, 2
Y, N = True, False
REL = 1e-12

# (answer, worker, article, question, system, graders' marks in grader order 100, 101, ...)
ROWS = [
    (1, 1, 10, 11, A, [Y, Y, Y]),
    (2, 1, 10, 12, A, [Y, Y, N]),
    (3, 1, 10, 13, A, [N, N, N]),
    (4, 2, 10, 11, B, [N, N, N]),
    (5, 2, 10, 12, B, [Y, N]),
    (6, 2, 10, 13, B, [N, N, N]),
    (7, 3, 10, 11, R, [Y, Y, Y]),
    (8, 3, 10, 12, R, [Y, Y, Y]),
    (9, 3, 10, 13, R, [Y, Y, Y]),
    (10, 4, 10, 11, A, [Y, Y, Y]),
    (11, 4, 10, 12, A, [N, N, Y]),
    (12, 4, 10, 13, A, [Y, Y, N]),
    (13, 1, 20, 21, B, [Y, Y, Y]),
    (14, 1, 20, 22, B, [N, N, Y]),
    (15, 1, 20, 23, B, [N, N, N]),
    (16, 2, 20, 21, R, [Y, Y, Y]),
    (17, 2, 20, 22, R, [Y, Y, Y]),
    (18, 2, 20, 23, R, [N, N, N]),
    (19, 3, 20, 21, A, [Y, Y, Y]),
    (20, 3, 20, 22, A, [Y, Y, Y]),
    (21, 3, 20, 23, A, [Y, N, Y, N]),
    (22, 4, 20, 21, R, [Y, Y, Y]),
    (23, 4, 20, 22, R, [Y, Y, Y]),
    (24, 4, 20, 23, R, [Y, Y, Y]),
]


def answers() -> Answers:
    return Answers(
        answer=[r[0] for r in ROWS],
        worker=[r[1] for r in ROWS],
        article=[r[2] for r in ROWS],
        question=[r[3] for r in ROWS],
        system=[r[4] for r in ROWS],
    )


def grades() -> tuple[list[int], list[int], list[bool]]:
    answer, grader, correct = [], [], []
    for row in ROWS:
        for k, mark in enumerate(row[5]):
            answer.append(row[0])
            grader.append(100 + k)
            correct.append(mark)
    return answer, grader, correct


def scored(tie: str = "half") -> ScoredAnswers:
    return score_answers(answers(), aggregate_grades(*grades(), tie=tie))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- grades
def test_majority_per_answer_with_ties_flagged() -> None:
    v = aggregate_grades(*grades())
    np.testing.assert_array_equal(v.answers, np.arange(1, 25))
    assert v.yes[[0, 1, 2, 4, 10, 20]].tolist() == [3, 2, 0, 1, 1, 2]
    assert v.no[[0, 1, 2, 4, 10, 20]].tolist() == [0, 1, 3, 1, 2, 2]
    assert np.flatnonzero(v.tie).tolist() == [4, 20]  # answers 5 and 21
    assert v.n_graders.tolist() == [3] * 4 + [2] + [3] * 15 + [4] + [3] * 3
    expected = [1, 1, 0, 0, 0.5, 0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0.5, 1, 1, 1]
    assert v.score.tolist() == expected
    assert not v.correct[[4, 20]].any()  # a tie is not a majority
    assert v.counts.shape == (24, 2) and v.counts[20].tolist() == [2, 2]


def test_tie_policies() -> None:
    assert (tie_score("half"), tie_score("incorrect"), tie_score("correct")) == (0.5, 0.0, 1.0)
    assert math.isnan(tie_score("exclude"))
    with pytest.raises(ValueError, match="tie must be one of"):
        tie_score("coin")  # type: ignore[arg-type]
    for tie, share_a, share_b, n_a, n_b in (
        ("half", 6.5 / 9, 1.5 / 6, 9, 6),
        ("incorrect", 6 / 9, 1 / 6, 9, 6),
        ("correct", 7 / 9, 2 / 6, 9, 6),
        ("exclude", 6 / 8, 1 / 5, 8, 5),
    ):
        res = system_scores(scored(tie), n_samples=10)
        assert res.share[1:].tolist() == pytest.approx([share_a, share_b], rel=REL), tie
        assert res.n_answers[1:].tolist() == [n_a, n_b], tie
        assert res.share[0] == pytest.approx(8 / 9, rel=REL)  # R has no tie


def test_a_grader_grading_an_answer_twice_is_an_error() -> None:
    with pytest.raises(ValueError, match="grader 7 graded answer 3 more than once"):
        aggregate_grades([3, 3, 4], [7, 7, 7], [True, False, True])
    with pytest.raises(ValueError, match="same length"):
        aggregate_grades([1, 2], [1], [True, True])


def test_scoring_joins_by_answer_id_and_leaves_ungraded_answers_out() -> None:
    a = answers()
    answer, grader, correct = grades()
    keep = [i for i, x in enumerate(answer) if x != 24]  # answer 24 (R, correct) ungraded
    v = aggregate_grades(
        [answer[i] for i in keep], [grader[i] for i in keep], [correct[i] for i in keep]
    )
    s = score_answers(a, v)
    assert math.isnan(s.score[23]) and s.n_graders[23] == 0 and not s.scored[23]
    assert s.tie_policy == "half"
    res = system_scores(s, n_samples=10)
    assert res.n_answers.tolist() == [8, 9, 6]
    assert res.share[0] == pytest.approx(7 / 8, rel=REL)
    with pytest.raises(ValueError, match="answer 99 has grades but is not among the answers"):
        score_answers(a, aggregate_grades([1, 99], [5, 5], [True, True]))


def test_answers_validation() -> None:
    with pytest.raises(ValueError, match="answer 1 appears more than once"):
        Answers(answer=[1, 1], question=[1, 2], article=[1, 1], system=[0, 0], worker=[1, 1])
    with pytest.raises(ValueError, match=r"question 5 is in more than one article: \[1, 2\]"):
        Answers(answer=[1, 2], question=[5, 5], article=[1, 2], system=[0, 0], worker=[1, 2])
    with pytest.raises(ValueError, match="worker has length 1, expected 2"):
        Answers(answer=[1, 2], question=[5, 5], article=[1, 1], system=[0, 0], worker=[1])
    with pytest.raises(ValueError, match=r"scores must be in \[0, 1\]"):
        ScoredAnswers(answer=[1], question=[1], article=[1], system=[0], worker=[1], score=[2.0])


# --------------------------------------------------------------------------- system scores
def test_system_scores_of_the_hand_worked_example() -> None:
    res = system_scores(scored(), reference=R, n_samples=1000, seed=0)
    assert res.systems.tolist() == [R, A, B]
    assert res.is_reference.tolist() == [True, False, False]
    assert res.correct.tolist() == [8.0, 6.5, 1.5]
    assert res.n_answers.tolist() == [9, 9, 6]
    assert res.share.tolist() == pytest.approx([8 / 9, 6.5 / 9, 1.5 / 6], rel=REL)
    assert res.question_mean.tolist() == pytest.approx([5.5 / 6, 4.5 / 6, 1.5 / 6], rel=REL)
    assert res.n_ties.tolist() == [0, 1, 1]
    assert res.n_questions.tolist() == [6, 6, 6]
    assert res.n_articles.tolist() == [2, 2, 2]
    assert res.n_readings.tolist() == [3, 3, 2]
    assert res.n_workers.tolist() == [3, 3, 2]
    # Article bootstrap: the extremes are the replicates drawing one article twice.
    assert res.share_ci_low.tolist() == pytest.approx([5 / 6, 2 / 3, 1 / 6], rel=REL)
    assert res.share_ci_high.tolist() == pytest.approx([1, 5 / 6, 1 / 3], rel=REL)
    assert res.question_mean_ci_low.tolist() == pytest.approx([5 / 6, 2 / 3, 1 / 6], rel=REL)
    assert res.question_mean_ci_high.tolist() == pytest.approx([1, 5 / 6, 1 / 3], rel=REL)
    expected_p = [[np.nan, 2 / 9, 1 / 6], [8 / 9, np.nan, 1 / 6], [1, 1, np.nan]]
    np.testing.assert_allclose(res.p_better, expected_p, rtol=REL)
    assert res.p_exact.sum() == 6
    assert res.clusters.tolist() == [1, 1, 1]
    assert (res.rank_best.tolist(), res.rank_worst.tolist()) == ([1, 1, 1], [3, 3, 3])


def test_exact_labelling_counts_and_monte_carlo_agreement() -> None:
    exact = pairwise_permutation(scored())
    np.testing.assert_array_equal(
        exact.n_labellings, [[np.nan, 9, 6], [9, np.nan, 6], [6, 6, np.nan]]
    )
    sampled = pairwise_permutation(scored(), max_exact=0, n_permutations=20_000, seed=1)
    assert not sampled.exact.any()
    off = ~np.eye(3, dtype=bool)
    # Monte Carlo standard error at p = 1/6 with 20000 draws: 0.0026.
    np.testing.assert_allclose(sampled.p_better[off], exact.p_better[off], atol=0.015)
    assert sampled.p_better[off].min() >= 1 / 20_001  # (1 + count) / (1 + n): never 0


def test_question_bootstrap_unit() -> None:
    res = system_scores(scored(), unit="question", n_samples=500, seed=0)
    # Same point estimates, different resampling.
    assert res.share.tolist() == pytest.approx([8 / 9, 6.5 / 9, 1.5 / 6], rel=REL)
    assert res.unit == "question"
    assert (res.share_ci_low <= res.share_ci_high).all()
    # B scores 1, .5, 0, 0, 0, 0 by question: resampling questions can give 0 and more than 1/3.
    assert res.share_ci_low[2] == 0.0 and res.share_ci_high[2] > 1 / 3
    with pytest.raises(ValueError, match="unit must be one of"):
        system_scores(scored(), unit="worker")  # type: ignore[arg-type]


def test_bootstrap_and_permutations_are_seeded() -> None:
    data = simulated(n_articles=12, seed=5)
    one = system_scores(data, n_samples=300, n_permutations=500, seed=7)
    two = system_scores(data, n_samples=300, n_permutations=500, seed=7)
    other = system_scores(data, n_samples=300, n_permutations=500, seed=8)
    for field in ("share_ci_low", "share_ci_high", "question_mean_ci_low", "p_better"):
        np.testing.assert_array_equal(getattr(one, field), getattr(two, field))
    assert not np.array_equal(one.share_ci_low, other.share_ci_low)
    assert not np.array_equal(one.p_better, other.p_better, equal_nan=True)
    assert not one.p_exact.any()


def simulated(
    n_articles: int, seed: int, quality: tuple[float, ...] = (0.95, 0.8, 0.4), per: int = 3
) -> ScoredAnswers:
    """Every article read ``per`` times under each system, 4 questions, scores drawn with the
    system's ``quality`` (system ids 0, 1, 2, ...; 0 plays the reference)."""
    rng = np.random.default_rng(seed)
    n_sys, n_q = len(quality), 4
    art = np.repeat(np.arange(n_articles), n_sys * per * n_q)
    sys = np.tile(np.repeat(np.arange(n_sys), per * n_q), n_articles)
    worker = np.repeat(np.arange(n_articles * n_sys * per), n_q)
    question = art * 10 + np.tile(np.arange(n_q), n_articles * n_sys * per)
    score = (rng.random(art.shape[0]) < np.asarray(quality)[sys]).astype(np.float64)
    return ScoredAnswers(
        answer=np.arange(art.shape[0]),
        question=question,
        article=art,
        system=sys,
        worker=worker,
        score=score,
    )


def test_clear_differences_are_significant_and_clustered() -> None:
    res = system_scores(simulated(n_articles=30, seed=2), reference=0, n_samples=200)
    assert res.share[0] > res.share[1] > res.share[2]
    assert (res.p_better[[0, 0, 1], [1, 2, 2]] < 0.01).all()
    assert (res.p_better[[1, 2, 2], [0, 0, 1]] > 0.5).all()
    assert res.clusters.tolist() == [1, 2, 3]
    assert (res.rank_best.tolist(), res.rank_worst.tolist()) == ([1, 2, 3], [1, 2, 3])
    assert (res.share_ci_low < res.share).all() and (res.share < res.share_ci_high).all()


def test_many_readers_per_article_are_shuffled_not_tabled() -> None:
    # 16 readings per system per article: C(32, 16) subsets is past the table, so the
    # readings are shuffled; a 0.8 vs 0.5 system over 96 answers each is clearly apart.
    data = simulated(n_articles=3, seed=4, quality=(0.8, 0.5), per=16)
    res = pairwise_permutation(data, n_permutations=2000)
    assert not res.exact[0, 1]
    assert res.p_better[0, 1] < 0.01 and res.p_better[1, 0] > 0.99


def test_a_pair_without_a_shared_article_is_never_significant() -> None:
    # A on article 1 only, B on article 2 only: one labelling, p = 1 both ways.
    s = ScoredAnswers(
        answer=[1, 2, 3, 4], question=[1, 1, 2, 2], article=[1, 1, 2, 2],
        system=[A, A, B, B], worker=[1, 2, 3, 4], score=[1, 1, 0, 0],
    )  # fmt: skip
    res = pairwise_permutation(s)
    assert res.p_better[0, 1] == 1.0 and res.p_better[1, 0] == 1.0
    assert res.n_labellings[0, 1] == 1


def test_empty_input() -> None:
    s = ScoredAnswers(answer=[], question=[], article=[], system=[], worker=[], score=[])
    res = system_scores(s, n_samples=5)
    assert res.systems.shape == (0,) and res.p_better.shape == (0, 0)
    assert article_breakdown(s).share.shape == (0, 0)
    assert grader_agreement(aggregate_grades([], [], [])).modal_graders == 0


# --------------------------------------------------------------------------- breakdowns
def test_article_and_question_breakdowns() -> None:
    s = scored()
    art = article_breakdown(s)
    assert art.groups.tolist() == [10, 20] and art.systems.tolist() == [R, A, B]
    np.testing.assert_allclose(art.share, [[1, 4 / 6, 0.5 / 3], [5 / 6, 2.5 / 3, 1 / 3]])
    assert art.n_answers.tolist() == [[3, 6, 3], [6, 3, 3]]
    assert art.overall_share.tolist() == pytest.approx([7.5 / 12, 8.5 / 12], rel=REL)
    q = question_breakdown(s)
    assert q.groups.tolist() == [11, 12, 13, 21, 22, 23]
    assert q.article.tolist() == [10, 10, 10, 20, 20, 20]
    np.testing.assert_allclose(
        q.share,
        [[1, 1, 0], [1, 0.5, 0.5], [1, 0.5, 0], [1, 1, 1], [1, 1, 0], [0.5, 0.5, 0]],
    )
    assert q.n_answers[:, 1].tolist() == [2, 2, 2, 1, 1, 1]
    # The tables add up to the system scores.
    res = system_scores(s, n_samples=10)
    np.testing.assert_allclose(art.correct.sum(axis=0), res.correct)
    np.testing.assert_array_equal(q.n_answers.sum(axis=0), res.n_answers)


def test_question_difficulty_from_the_reference() -> None:
    d = question_difficulty(scored(), R)
    assert d.questions.tolist() == [11, 12, 13, 21, 22, 23]
    assert d.reference_share.tolist() == [1, 1, 1, 1, 1, 0.5]
    assert d.reference_answers.tolist() == [1, 1, 1, 2, 2, 2]
    assert d.mt_share.tolist() == pytest.approx([2 / 3, 1.5 / 3, 1 / 3, 1, 0.5, 0.25], rel=REL)
    assert d.mt_answers.tolist() == [3, 3, 3, 2, 2, 2]
    assert not d.suspect.any()  # 0.5 is not below 0.5
    strict = question_difficulty(scored(), R, suspect_below=0.75)
    assert strict.suspect.tolist() == [False] * 5 + [True]
    # Dropping the flagged question 23 and rescoring: R 6/6, A 6/8 (its tie goes), B 1.5/5.
    s = scored()
    kept = s.subset(~np.isin(s.question, strict.questions[strict.suspect]))
    share = system_scores(kept, n_samples=10).share
    assert share.tolist() == pytest.approx([1, 6 / 8, 1.5 / 5], rel=REL)
    # A question nobody read on the reference: NaN share, not flagged.
    no_ref = s.subset(~((s.system == R) & (s.question == 11)))
    d2 = question_difficulty(no_ref, R, suspect_below=2.0)
    assert math.isnan(d2.reference_share[0]) and not d2.suspect[0] and d2.suspect[1:].all()


# --------------------------------------------------------------------------- agreement
WIKIPEDIA = [
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


def test_fleiss_kappa_on_the_wikipedia_example() -> None:
    # Wikipedia "Fleiss' kappa": 10 subjects, 14 raters, 5 categories; P-bar = 0.378,
    # P-bar_e = 0.213, kappa = 0.210.  Gwet's generalisation equals it with equal n.
    for r in (fleiss_kappa(WIKIPEDIA), gwet_fleiss_kappa(WIKIPEDIA)):
        assert (r.n_items, r.n_ratings) == (10, 140)
        assert round(r.pr_a, 3) == 0.378
        assert round(r.pr_e, 3) == 0.213
        assert round(r.kappa, 3) == 0.210
    assert gwet_fleiss_kappa(WIKIPEDIA).kappa == pytest.approx(fleiss_kappa(WIKIPEDIA).kappa)


def test_grader_agreement_of_the_hand_worked_example() -> None:
    g = grader_agreement(aggregate_grades(*grades()))
    assert g.graders_per_answer == ((2, 1), (3, 22), (4, 1))
    assert g.modal_graders == 3
    assert (g.fleiss.n_items, g.fleiss.n_ratings) == (22, 66)
    assert g.fleiss.pr_a == pytest.approx(29 / 33, rel=REL)
    assert g.fleiss.pr_e == pytest.approx(137 / 242, rel=REL)
    assert g.fleiss.kappa == pytest.approx(227 / 315, rel=REL)
    assert (g.generalised.n_items, g.generalised.n_ratings) == (24, 72)
    assert g.generalised.pr_a == pytest.approx(59 / 72, rel=REL)
    assert g.generalised.pr_e == pytest.approx(5 / 9, rel=REL)
    assert g.generalised.kappa == pytest.approx(19 / 32, rel=REL)
    assert g.generalised.category_shares == pytest.approx((1 / 3, 2 / 3), rel=REL)


def test_gwet_generalisation_by_hand_and_edge_cases() -> None:
    # [2 no], [2 yes, 1 no], [1 yes]: P = 1, 1/3 (the single rating is not in P-bar);
    # pi_yes = (0 + 2/3 + 1) / 3 = 5/9, P_e = 25/81 + 16/81 = 41/81.
    r = gwet_fleiss_kappa([[2, 0], [1, 2], [0, 1], [0, 0]])
    assert (r.n_items, r.n_ratings) == (2, 6)
    assert r.pr_a == pytest.approx(2 / 3, rel=REL)
    assert r.pr_e == pytest.approx(41 / 81, rel=REL)
    assert r.kappa == pytest.approx((2 / 3 - 41 / 81) / (40 / 81), rel=REL)
    assert math.isnan(gwet_fleiss_kappa([[1, 0], [0, 1]]).kappa)  # no subject with 2 ratings
    with pytest.raises(ValueError, match="2-D"):
        gwet_fleiss_kappa([1, 2])
    # Modal ties go to the larger panel: two answers with 2 graders, two with 4.
    g = grader_agreement(aggregate_grades([1, 1, 2, 2] + [3] * 4 + [4] * 4, list(range(12)),
                                          [1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]))  # fmt: skip
    assert g.modal_graders == 4 and g.fleiss.n_items == 2
