"""analytics.kinds.reading_comprehension: the recompute moves the articles through their stages,
then scores the answers by the majority of their grades; every figure worked by hand on the
campaign of tests/analytics/kinds/reading_comprehension/campaign.py (its docstring has the
questions, readings and grades)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import numpy as np
import pytest

from analytics import actions
from analytics.kinds.reading_comprehension.actions import counted_grade_rows
from analytics.kinds.reading_comprehension.loading import load_reading_comprehension
from analytics.models import (
    ReadingComprehensionBreakdown,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionResult,
    ReadingComprehensionSystemScore,
    ReadingComprehensionWorkerStat,
)
from campaigns.kinds.reading_comprehension.models import RCArticle, RCQuestionStatus, RCStage
from campaigns.models import CampaignStatus, Hit, HitTask
from judgments.models import AssignmentStatus, CampaignWorker, Judgment
from tests.analytics.kinds.reading_comprehension.campaign import (
    answer,
    build_rc_campaign,
    grade,
    new_rc_campaign,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def built():
    campaign = build_rc_campaign()
    yield campaign
    actions.clear_recompute_flag(campaign.campaign.pk)


@pytest.fixture
def recomputed(built):
    actions.recompute_campaign(built.campaign)
    return built


def scores(built, without_suspect=False) -> dict[str, ReadingComprehensionSystemScore]:
    rows = ReadingComprehensionSystemScore.objects.filter(
        campaign=built.campaign, without_suspect=without_suspect
    ).select_related("system")
    return {"human" if row.is_reference else row.system.name: row for row in rows}


def result_of(built) -> ReadingComprehensionResult:
    # Read anew: Campaign.rc_result caches the row the first store created.
    return ReadingComprehensionResult.objects.get(campaign=built.campaign)


def stages(built) -> list[tuple[str, str]]:
    return list(
        RCArticle.objects.filter(campaign=built.campaign)
        .order_by("document__position")
        .values_list("document__external_id", "stage")
    )


def stored_rows(campaign) -> dict[str, list]:
    """Every stored row of the campaign's results, as values without ids or times."""
    tables = {
        "systems": ReadingComprehensionSystemScore,
        "breakdowns": ReadingComprehensionBreakdown,
        "questions": ReadingComprehensionQuestionStat,
        "workers": ReadingComprehensionWorkerStat,
    }
    out = {
        name: sorted(
            (
                tuple(sorted((k, v) for k, v in row.items() if k != "id"))
                for row in model.objects.filter(campaign=campaign).values()
            ),
            key=repr,
        )
        for name, model in tables.items()
    }
    result = ReadingComprehensionResult.objects.get(campaign=campaign)
    out["result"] = [
        (field.name, getattr(result, field.name))
        for field in ReadingComprehensionResult._meta.concrete_fields
        if field.name not in ("computed_at", "compute_seconds")
    ]
    return out


# --- The stages, through the recompute -----------------------------------------------------------


def test_the_recompute_moves_the_articles_on():
    built = build_rc_campaign(until="selection")
    answer(built)  # the answering HITs done; nobody advanced the stages yet
    assert stages(built) == [("d1", RCStage.ANSWERING), ("d2", RCStage.ANSWERING)]
    result = actions.recompute_campaign(built.campaign)
    assert stages(built) == [("d1", RCStage.GRADING), ("d2", RCStage.GRADING)]
    assert Hit.objects.filter(campaign=built.campaign, task=HitTask.RC_GRADE).count() == 2
    # Answers, none graded yet: stored, no system scores.
    assert (result.n_answers, result.n_grades, result.n_graded_answers) == (20, 0, 0)
    assert not ReadingComprehensionSystemScore.objects.filter(campaign=built.campaign).exists()
    assert result.details["agreement"] is None
    assert (
        ReadingComprehensionQuestionStat.objects.get(question=built.questions[("d1", 1)]).n_answers
        == 5
    )
    grade(built)
    actions.recompute_campaign(built.campaign)
    assert stages(built) == [("d1", RCStage.DONE), ("d2", RCStage.DONE)]
    assert scores(built)["A"].share == 0.6875
    actions.clear_recompute_flag(built.campaign.pk)


def test_a_paused_campaign_does_not_move_on():
    built = build_rc_campaign(until="selection")
    answer(built)
    built.campaign.status = CampaignStatus.PAUSED
    built.campaign.save()
    result = actions.recompute_campaign(built.campaign)
    assert stages(built) == [("d1", RCStage.ANSWERING), ("d2", RCStage.ANSWERING)]
    assert result.n_answers == 20
    actions.clear_recompute_flag(built.campaign.pk)


def test_the_questions_kept(recomputed):
    statuses = {key: q.status for key, q in recomputed.questions.items()}
    assert statuses == {
        ("d1", 1): RCQuestionStatus.KEPT,
        ("d1", 2): RCQuestionStatus.KEPT,
        ("d1", 3): RCQuestionStatus.DROPPED_VOTES,
        ("d2", 1): RCQuestionStatus.KEPT,
        ("d2", 2): RCQuestionStatus.DROPPED_REDUNDANT,
        ("d2", 3): RCQuestionStatus.KEPT,
    }


# --- System scores -------------------------------------------------------------------------------


def test_share_correct_per_system_by_hand(recomputed):
    got = scores(recomputed)
    # Position by share: the human translation 3/4, A 11/16, B 3/16.
    assert {name: row.position for name, row in got.items()} == {"human": 1, "A": 2, "B": 3}
    assert {name: F(row.share) for name, row in got.items()} == {
        "human": F(3, 4),
        "A": F(11, 16),
        "B": F(3, 16),
    }
    assert {name: row.correct for name, row in got.items()} == {"human": 3, "A": 5.5, "B": 1.5}
    # Every system answered all four questions of both articles: the question mean is the
    # share (A: d1 Q1 (1 + 1)/2, Q2 (1/2 + 0)/2, d2 Q1 1, Q3 1/2: 2.75 / 4).
    assert {name: row.question_mean for name, row in got.items()} == {
        "human": 0.75,
        "A": 0.6875,
        "B": 0.1875,
    }
    counts = {
        name: (row.n_answers, row.n_ties, row.n_questions, row.n_articles, row.n_readings,
               row.n_workers)
        for name, row in got.items()
    }  # fmt: skip
    assert counts == {
        "human": (4, 0, 4, 2, 2, 1),
        "A": (8, 1, 4, 2, 4, 4),
        "B": (8, 3, 4, 2, 4, 4),
    }
    assert got["human"].system is None and got["human"].is_reference
    assert not got["A"].is_reference


def test_intervals_are_the_bootstrap_over_two_articles(recomputed):
    # Two articles: a replicate draws (d1, d1), (d1, d2) or (d2, d2) with chances 1/4, 1/2,
    # 1/4, so the 2.5% and 97.5% quantiles of 1000 draws are the all-d1 and all-d2 shares.
    # A: d1 2.5/4, d2 3/4; B: d1 0.5/4, d2 1/4; the human translation: d1 2/2, d2 1/2.
    got = scores(recomputed)
    assert {name: (row.share_ci_low, row.share_ci_high) for name, row in got.items()} == {
        "human": (0.5, 1.0),
        "A": (0.625, 0.75),
        "B": (0.125, 0.25),
    }


def test_p_values_are_the_exact_permutation_test(recomputed):
    """A against B: per article the 4 readings split 2 + 2 in C(4, 2) = 6 ways, 36 labellings
    in all. Reading sums (two answers each): d1 A 3/2, 1, B 0, 1/2; d2 A 2, 1, B 1/2, 1/2.
    The observed labelling is the only one giving A both top readings of both articles:
    p(A > B) = 1/36, p(B > A) = 36/36. The human translation (one reading per article) against
    A: 3 x 3 = 9 labellings; its sum S is 3 observed, and S >= 3 in 5 of them (d1 2, 3/2, 1
    plus d2 1, 2, 1), S <= 3 in 7: p = 5/9 and 7/9. Against B: S = 3 is the unique maximum
    (d1 2, 0, 1/2 plus d2 1, 1/2, 1/2): 1/9 and 1."""
    details = result_of(recomputed).details["all_questions"]
    systems = recomputed.systems
    assert details["systems"] == [None, systems["A"], systems["B"]]
    p = np.array(details["p_better"], dtype=float)
    expected = [[np.nan, 5 / 9, 1 / 9], [7 / 9, np.nan, 1 / 36], [1, 1, np.nan]]
    np.testing.assert_allclose(p, expected, rtol=0, atol=1e-12)
    assert details["p_exact"] == [[False, True, True], [True, False, True], [True, True, False]]


def test_clusters_and_rank_ranges(recomputed):
    # Only A beats B (1/36 < 0.05). WMT's ranges: the human translation 1..3 (beaten by
    # none, beats none), A 1..2, B 2..3; a rule after A, whose range ends at its position.
    got = scores(recomputed)
    assert {name: (row.rank_range, row.cluster) for name, row in got.items()} == {
        "human": ("1–3", 1),
        "A": ("1–2", 1),
        "B": ("2–3", 2),
    }


def test_without_the_suspect_question(recomputed):
    # d2 Q3 (0 of 1 right on the human translation) left out: A (2.5 + 2) / 6, B (0.5 + 1)
    # / 6, the human translation 3/3; intervals: d1 alone and d2 alone (A 2.5/4 and 2/2,
    # B 0.5/4 and 1/2, human 1 and 1).
    got = scores(recomputed, without_suspect=True)
    assert {
        name: (row.share, row.share_ci_low, row.share_ci_high) for name, row in got.items()
    } == {
        "human": (1.0, 1.0, 1.0),
        "A": (0.75, 0.625, 1.0),
        "B": (0.25, 0.125, 0.5),
    }
    assert {name: row.n_answers for name, row in got.items()} == {"human": 3, "A": 6, "B": 6}
    details = result_of(recomputed).details["without_suspect"]
    # A against the human translation: d2 now has one answer per reading (1, 1, 1), so S >= 3
    # whenever d1's human reading keeps its label: 3 of 9.
    np.testing.assert_allclose(
        np.array(details["p_better"], dtype=float),
        [[np.nan, 1 / 3, 1 / 9], [1, np.nan, 1 / 36], [1, 1, np.nan]],
        atol=1e-12,
    )
    assert (details["n_answers"], details["n_questions"]) == (15, 3)


# --- Breakdowns, difficulty, agreement -----------------------------------------------------------


def test_the_per_article_and_per_question_tables(recomputed):
    def table(question: bool, without: bool = False):
        rows = ReadingComprehensionBreakdown.objects.filter(
            campaign=recomputed.campaign, question__isnull=not question, without_suspect=without
        ).select_related("document", "question", "system")
        return {
            (
                row.document.external_id,
                row.question.number if row.question else None,
                row.system.name if row.system else "human",
            ): (row.correct, row.n_answers, row.n_ties)
            for row in rows
        }

    assert table(question=False) == {
        ("d1", None, "A"): (2.5, 4, 1),
        ("d1", None, "B"): (0.5, 4, 1),
        ("d1", None, "human"): (2.0, 2, 0),
        ("d2", None, "A"): (3.0, 4, 0),
        ("d2", None, "B"): (1.0, 4, 2),
        ("d2", None, "human"): (1.0, 2, 0),
    }
    questions = table(question=True)
    assert len(questions) == 12
    assert questions[("d1", 2, "A")] == (0.5, 2, 1)
    assert questions[("d2", 1, "B")] == (1.0, 2, 2)
    assert questions[("d2", 3, "human")] == (0.0, 1, 0)
    # Without the suspect question, d2's article row holds Q1 only.
    assert table(question=False, without=True)[("d2", None, "A")] == (2.0, 2, 0)
    assert ("d2", 3, "A") not in table(question=True, without=True)
    assert ReadingComprehensionBreakdown.objects.get(
        campaign=recomputed.campaign, question=None, system=None, without_suspect=False,
        document__external_id="d1",
    ).share == 1.0  # fmt: skip


def test_question_difficulty_marks_the_suspect_question(recomputed):
    got = {
        (stat.question.document.external_id, stat.question.number): (
            stat.n_answers, stat.n_graded, stat.n_ties, stat.correct, stat.reference_share,
            stat.reference_answers, stat.mt_share, stat.mt_answers, stat.suspect,
        )
        for stat in ReadingComprehensionQuestionStat.objects.filter(
            campaign=recomputed.campaign
        ).select_related("question__document")
    }  # fmt: skip
    assert got == {
        ("d1", 1): (5, 5, 1, 3.5, 1.0, 1, 2.5 / 4, 4, False),
        ("d1", 2): (5, 5, 1, 1.5, 1.0, 1, 0.5 / 4, 4, False),
        ("d2", 1): (5, 5, 2, 4.0, 1.0, 1, 3 / 4, 4, False),
        ("d2", 3): (5, 5, 0, 1.0, 0.0, 1, 1 / 4, 4, True),
    }
    result = result_of(recomputed)
    assert result.n_suspect == 1
    assert result.details["suspect_questions"] == [recomputed.questions[("d2", 3)].pk]


def test_grader_agreement(recomputed):
    # 20 answers, 2 graders each; they agree on 16 (P-bar 0.8); 20 of the 40 marks are yes
    # (P-bar_e 1/4 + 1/4 = 0.5): kappa (0.8 - 0.5) / (1 - 0.5) = 0.6.
    result = result_of(recomputed)
    assert result.fleiss_kappa == pytest.approx(0.6)
    agreement = result.details["agreement"]
    assert agreement["graders_per_answer"] == [[2, 20]]
    assert agreement["modal_graders"] == 2
    fleiss = agreement["fleiss"]
    assert (fleiss["n_items"], fleiss["n_ratings"]) == (20, 40)
    assert fleiss["pr_a"] == pytest.approx(0.8)
    assert fleiss["pr_e"] == pytest.approx(0.5)
    assert agreement["generalised"]["kappa"] == pytest.approx(0.6)
    assert result.n_ties == 4


def test_the_result_row(recomputed):
    result = result_of(recomputed)
    # 6 questions written, 6 votes, 20 answers, 40 grades; all answers and grades counted.
    assert (result.n_judgments, result.n_scored_judgments, result.n_rejected_judgments) == (
        72,
        60,
        0,
    )
    assert (result.n_answers, result.n_grades, result.n_graded_answers) == (20, 40, 20)
    assert (result.n_workers, result.n_questions, result.tie_policy) == (11, 4, "half")
    assert result.details["test"]["unit"] == "article"


def test_the_workers(recomputed):
    got = {
        stat.worker.external_id: (
            stat.n_questions_written, stat.n_votes, stat.n_answers, stat.share_correct,
            stat.n_grades, stat.n_grades_compared, stat.n_grades_agreeing, stat.agreement,
        )
        for stat in ReadingComprehensionWorkerStat.objects.filter(
            campaign=recomputed.campaign
        ).select_related("worker")
    }  # fmt: skip
    assert got == {
        "au-d1": (3, 0, 0, None, 0, 0, 0, None),
        "au-d2": (3, 0, 0, None, 0, 0, 0, None),
        "v-d1": (0, 3, 0, None, 0, 0, 0, None),
        "v-d2": (0, 3, 0, None, 0, 0, 0, None),
        # r1: d1 1 + 1/2, d2 1/2 + 0 of 4; r2 1 + 0 + 1/2 + 0; r5 1 + 1 + 1 + 0.
        "r1": (0, 0, 4, 0.5, 0, 0, 0, None),
        "r2": (0, 0, 4, 0.375, 0, 0, 0, None),
        "r3": (0, 0, 4, 0.5, 0, 0, 0, None),
        "r4": (0, 0, 4, 0.375, 0, 0, 0, None),
        "r5": (0, 0, 4, 0.75, 0, 0, 0, None),
        # The other grader agrees on 16 of the 20 answers.
        "g1": (0, 0, 0, None, 20, 20, 16, 0.8),
        "g2": (0, 0, 0, None, 20, 20, 16, 0.8),
    }


# --- What counts ---------------------------------------------------------------------------------


def test_an_excluded_graders_grades_are_left_out_and_kept(recomputed):
    built = recomputed
    actions.set_workers_excluded(built.campaign, [built.workers["g2"].pk], True)
    # g1's marks alone (the first of each pair in GRADES), no ties: A d1 r1 2 + r2 1, d2 r3 2
    # + r4 1 = 6/8; B d1 0 + 0, d2 r1 1 + r2 1 = 2/8; the human translation 2 + 1 = 3/4.
    got = scores(built)
    assert {name: (row.share, row.n_ties) for name, row in got.items()} == {
        "A": (0.75, 0),
        "B": (0.25, 0),
        "human": (0.75, 0),
    }
    result = result_of(built)
    assert (result.n_grades, result.n_scored_judgments, result.n_ties) == (40, 20 + 20, 0)
    assert result.fleiss_kappa is None  # one grader per answer
    assert result.details["agreement"]["graders_per_answer"] == [[1, 20]]
    stat = ReadingComprehensionWorkerStat.objects.get(worker=built.workers["g2"])
    assert (stat.excluded, stat.in_scores, stat.n_grades) == (True, False, 20)
    # g2's grades compared with g1's: still 16 of 20.
    assert (stat.n_grades_compared, stat.n_grades_agreeing) == (20, 16)
    assert Judgment.objects.filter(worker=built.workers["g2"]).count() == 20
    actions.set_workers_excluded(built.campaign, [built.workers["g2"].pk], False)
    assert scores(built)["A"].share == 0.6875


def test_an_excluded_reader_is_left_out(recomputed):
    built = recomputed
    actions.set_workers_excluded(built.campaign, [built.workers["r5"].pk], True)
    # No control answer counts: no row for the human translation, no difficulty, no suspect.
    got = scores(built)
    assert sorted(got) == ["A", "B"]
    assert (got["A"].share, got["B"].share) == (0.6875, 0.1875)
    assert result_of(built).n_suspect == 0
    assert sorted(scores(built, without_suspect=True)) == ["A", "B"]
    stat = ReadingComprehensionQuestionStat.objects.get(question=built.questions[("d2", 3)])
    assert (stat.n_answers, stat.n_counted, stat.reference_share, stat.suspect) == (
        5,
        4,
        None,
        False,
    )


def test_rejected_assignments_count_nowhere(recomputed):
    built = recomputed
    assignment = built.readings[("d1", "r2")]
    assignment.status = AssignmentStatus.REJECTED
    assignment.save()
    result = actions.recompute_campaign(built.campaign)
    # r2's A reading of d1 (1 + 0) is out: A (1.5 + 3) / 6.
    assert scores(built)["A"].share == 0.75
    assert scores(built)["A"].n_readings == 3
    assert result.n_rejected_judgments == 2
    # 18 answers and the 36 grades of those answers.
    assert result.n_scored_judgments == 18 + 36
    stat = ReadingComprehensionWorkerStat.objects.get(worker=built.workers["r2"])
    assert (stat.n_rejected_judgments, stat.n_answers) == (2, 4)


def test_a_grader_counts_once_per_answer(recomputed):
    loaded = load_reading_comprehension(recomputed.campaign.pk)
    rows = counted_grade_rows(loaded)
    assert rows.tolist() == list(range(40))
    # The same grader's second mark of an answer (a later grade id): only that one counts.
    twice = dataclasses.replace(
        loaded,
        grade_id=np.append(loaded.grade_id, loaded.grade_id.max() + 1),
        grade_worker=np.append(loaded.grade_worker, loaded.grade_worker[0]),
        grade_answer=np.append(loaded.grade_answer, loaded.grade_answer[0]),
        grade_correct=np.append(loaded.grade_correct, 1 - loaded.grade_correct[0]),
        grade_rejected=np.append(loaded.grade_rejected, False),
        grade_excluded=np.append(loaded.grade_excluded, False),
    )
    assert counted_grade_rows(twice).tolist() == list(range(1, 41))


# --- Idempotency, the sweep, loading -------------------------------------------------------------


def test_the_recompute_is_idempotent(recomputed):
    campaign = recomputed.campaign
    first = stored_rows(campaign)
    hits = Hit.objects.filter(campaign=campaign).count()
    actions.recompute_campaign(campaign)
    assert stored_rows(campaign) == first
    assert Hit.objects.filter(campaign=campaign).count() == hits == 12


def test_a_campaign_without_judgments_has_no_results():
    built = new_rc_campaign()
    assert actions.recompute_campaign(built.campaign) is None
    assert not ReadingComprehensionResult.objects.filter(campaign=built.campaign).exists()
    assert not actions.is_stale(built.campaign)


def test_the_sweep_finds_what_changed(built):
    campaign = built.campaign
    assert actions.is_stale(campaign)  # judgments, no result
    actions.recompute_campaign(campaign)
    assert not actions.is_stale(campaign)
    # Another grade (a third grader on one answer).
    slot = built.grades[0].slot
    assignment = built.assignment(slot.hit, "g3")
    built.judge(assignment, slot, yes_no=True)
    assert actions.is_stale(campaign)
    result = actions.recompute_campaign(campaign)
    assert not actions.is_stale(campaign)
    assert result.details["agreement"]["graders_per_answer"] == [[2, 19], [3, 1]]
    # A rejection, then an exclusion made behind the recompute's back.
    assignment.status = AssignmentStatus.REJECTED
    assignment.save()
    assert actions.is_stale(campaign)
    actions.recompute_campaign(campaign)
    CampaignWorker.objects.create(campaign=campaign, worker=built.workers["r1"], excluded=True)
    assert actions.is_stale(campaign)


def test_loading_reads_one_query_per_table(recomputed, django_assert_num_queries):
    with django_assert_num_queries(5):
        loaded = load_reading_comprehension(recomputed.campaign.pk)
    assert (loaded.n_answers, loaded.n_grades, loaded.n_read) == (20, 40, 72)
    answers = recomputed.answers
    assert loaded.answer_id.tolist() == sorted(j.pk for j in answers.values())
    # The human translation's answers carry system 0 (it is no System row).
    human = answers[("d1", "r5", 1)].pk
    assert loaded.answer_system[loaded.answer_id.tolist().index(human)] == 0
