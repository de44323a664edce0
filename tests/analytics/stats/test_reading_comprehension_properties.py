"""Invariants of the reading-comprehension statistics on random small campaigns (hypothesis)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    score_answers,
    system_scores,
)

REL = 1e-9
Campaign = tuple[Answers, list[int], list[int], list[bool]]


@st.composite
def campaigns(draw: st.DrawFn) -> Campaign:
    """Articles with 1-3 questions, 2-3 systems, 0-2 readings per (article, system), a fresh
    worker per reading, 1-4 graders per answer with random marks."""
    n_articles = draw(st.integers(1, 3))
    n_systems = draw(st.integers(2, 3))
    answer, question, article, system, worker = [], [], [], [], []
    w = 0
    for a in range(n_articles):
        n_q = draw(st.integers(1, 3))
        for s in range(n_systems):
            for _ in range(draw(st.integers(0, 2))):
                w += 1
                for q in range(n_q):
                    answer.append(len(answer) + 1)
                    question.append(a * 10 + q)
                    article.append(a)
                    system.append(s)
                    worker.append(w)
    g_answer, g_grader, g_mark = [], [], []
    for x in answer:
        for grader in range(draw(st.integers(1, 4))):
            g_answer.append(x)
            g_grader.append(grader)
            g_mark.append(draw(st.booleans()))
    return (
        Answers(answer=answer, question=question, article=article, system=system, worker=worker),
        g_answer,
        g_grader,
        g_mark,
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), max_size=30),
    st.randoms(use_true_random=False),
)
def test_majority_is_counts_and_ignores_row_order(
    rows: list[tuple[int, int, bool]], rnd: random.Random
) -> None:
    rows = list({(a, g): (a, g, c) for a, g, c in rows}.values())  # one grade per pair
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    v = aggregate_grades(*zip(*rows, strict=True)) if rows else aggregate_grades([], [], [])
    w = aggregate_grades(*zip(*shuffled, strict=True)) if rows else v
    for field in ("answers", "yes", "no", "correct", "tie", "score"):
        np.testing.assert_array_equal(getattr(v, field), getattr(w, field))
    for k, ans in enumerate(v.answers):
        marks = [c for a, _, c in rows if a == ans]
        assert (v.yes[k], v.no[k]) == (sum(marks), len(marks) - sum(marks))
        assert v.correct[k] == (2 * sum(marks) > len(marks))
        assert v.tie[k] == (2 * sum(marks) == len(marks))
        assert v.score[k] == (0.5 if v.tie[k] else float(v.correct[k]))


@settings(max_examples=120, deadline=None)
@given(campaigns())
def test_shares_intervals_and_tables_are_consistent(campaign: Campaign) -> None:
    answers, ga, gg, gm = campaign
    s = score_answers(answers, aggregate_grades(ga, gg, gm))
    res = system_scores(s, n_samples=50, n_permutations=50, seed=3)
    for k, sys in enumerate(res.systems):
        mine = s.score[s.system == sys]
        assert res.share[k] == pytest.approx(mine.mean(), rel=REL)
        assert res.n_answers[k] == mine.size
    assert ((0 <= res.share) & (res.share <= 1)).all()
    assert ((0 <= res.question_mean) & (res.question_mean <= 1)).all()
    for lo, hi in ((res.share_ci_low, res.share_ci_high),
                   (res.question_mean_ci_low, res.question_mean_ci_high)):  # fmt: skip
        assert ((0 <= lo) & (lo <= hi + 1e-12) & (hi <= 1)).all()
    for table in (article_breakdown(s), question_breakdown(s)):
        np.testing.assert_allclose(table.correct.sum(axis=0), res.correct, rtol=REL)
        np.testing.assert_array_equal(table.n_answers.sum(axis=0), res.n_answers)
        finite = ~np.isnan(table.share)
        assert ((table.share[finite] >= 0) & (table.share[finite] <= 1)).all()
        assert (finite == (table.n_answers > 0)).all()


@settings(max_examples=120, deadline=None)
@given(campaigns())
def test_ties_count_between_incorrect_and_correct(campaign: Campaign) -> None:
    answers, ga, gg, gm = campaign
    shares = {
        tie: system_scores(
            score_answers(answers, aggregate_grades(ga, gg, gm, tie=tie)),
            n_samples=1,
            n_permutations=1,
        ).share
        for tie in ("incorrect", "half", "correct")
    }
    assert (shares["incorrect"] <= shares["half"] + REL).all()
    assert (shares["half"] <= shares["correct"] + REL).all()
    np.testing.assert_allclose(
        shares["half"], (shares["incorrect"] + shares["correct"]) / 2, rtol=REL
    )


@settings(max_examples=120, deadline=None)
@given(campaigns())
def test_exact_p_values_are_valid_and_swap_with_the_systems(campaign: Campaign) -> None:
    answers, ga, gg, gm = campaign
    s = score_answers(answers, aggregate_grades(ga, gg, gm))
    res = pairwise_permutation(s, max_exact=10**6)
    m = res.systems.shape[0]
    off = ~np.eye(m, dtype=bool)
    p = res.p_better
    assert res.exact[off].all()
    assert ((p[off] > 0) & (p[off] <= 1 + REL)).all()
    assert (p[off] + p.T[off] >= 1 - REL).all()  # both tails include the observed labelling
    # Renaming systems 0 <-> 1 swaps their rows and columns.
    swapped = np.where(s.system == 0, 1, np.where(s.system == 1, 0, s.system))
    t = ScoredAnswers(
        answer=s.answer, question=s.question, article=s.article, system=swapped,
        worker=s.worker, score=s.score,
    )  # fmt: skip
    q = pairwise_permutation(t, max_exact=10**6).p_better
    present = [int(x) for x in res.systems]
    if set(present) >= {0, 1}:
        perm = [present.index(1 if x == 0 else 0 if x == 1 else x) for x in present]
        np.testing.assert_allclose(q, p[np.ix_(perm, perm)], rtol=REL)


@settings(max_examples=80, deadline=None)
@given(campaigns(), st.integers(1, 1000))
def test_results_do_not_depend_on_the_ids_of_articles_questions_and_workers(
    campaign: Campaign, shift: int
) -> None:
    answers, ga, gg, gm = campaign
    s = score_answers(answers, aggregate_grades(ga, gg, gm))
    t = ScoredAnswers(
        answer=s.answer, question=s.question + shift, article=s.article + shift,
        system=s.system, worker=s.worker * 7 + shift, score=s.score,
    )  # fmt: skip
    a = system_scores(s, n_samples=30, n_permutations=30, seed=1)
    b = system_scores(t, n_samples=30, n_permutations=30, seed=1)
    for field in ("share", "question_mean", "share_ci_low", "share_ci_high", "p_better"):
        np.testing.assert_allclose(getattr(a, field), getattr(b, field), rtol=REL)


count_tables = st.integers(1, 4).flatmap(
    lambda k: st.lists(st.lists(st.integers(0, 5), min_size=k, max_size=k), min_size=1, max_size=12)
)


@settings(max_examples=200, deadline=None)
@given(count_tables)
def test_gwet_generalisation_is_fleiss_with_equal_raters_and_ignores_category_order(
    table: list[list[int]],
) -> None:
    c = np.array(table)
    g = gwet_fleiss_kappa(c)
    flipped = gwet_fleiss_kappa(c[:, ::-1])
    assert (math.isnan(g.kappa) and math.isnan(flipped.kappa)) or g.kappa == pytest.approx(
        flipped.kappa, rel=1e-9, abs=1e-12
    )
    assert math.isnan(g.kappa) or g.kappa <= 1 + 1e-12
    n = c.sum(axis=1)
    if (n == n[0]).all() and n[0] >= 2:
        f = fleiss_kappa(c)
        assert (g.pr_a, g.pr_e) == pytest.approx((f.pr_a, f.pr_e), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(2, 5)), min_size=2, max_size=15))
def test_unanimous_graders_agree_perfectly(items: list[tuple[bool, int]]) -> None:
    answer, grader, mark = [], [], []
    for k, (verdict, n) in enumerate(items):
        for g in range(n):
            answer.append(k)
            grader.append(g)
            mark.append(verdict)
    agreement = grader_agreement(aggregate_grades(answer, grader, mark))
    both = len({v for v, _ in items}) == 2
    assert agreement.generalised.pr_a == 1.0
    if both:
        assert agreement.generalised.kappa == pytest.approx(1.0)
    else:
        assert math.isnan(agreement.generalised.kappa)  # P_e = 1: kappa undefined
