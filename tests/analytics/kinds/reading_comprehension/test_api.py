"""Reading comprehension in the analysts' API: the kind's fields in the shared endpoints
(campaign, systems, significance, segments, workers), its system tables (000 Table 3), its
own endpoints (questions, answers, articles, the answers export), who may read them, and
their query counts; figures of the hand-worked campaign (test_actions.py)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from analytics import actions
from analytics.kinds.reading_comprehension.routes import ANSWER_COLUMNS
from analytics.models import ReadingComprehensionSystemScore
from campaigns.models import HitTask
from judgments.models import AssignmentStatus, Judgment
from tests.analytics.api.conftest import NOT_READERS, READERS, ROLES, UNAUTHENTICATED, make_cast
from tests.analytics.kinds.reading_comprehension.campaign import build_rc_campaign

pytestmark = pytest.mark.django_db

HUMAN = "Reference (human translation)"


@pytest.fixture
def built():
    campaign = build_rc_campaign()
    actions.recompute_campaign(campaign.campaign)
    yield campaign
    actions.clear_recompute_flag(campaign.campaign.pk)


@pytest.fixture
def cast(built):
    return make_cast(built.campaign)


def get(cast, url: str, role: str = "analyst", status: int = 200):
    response = cast.client(role).get(url)
    assert response.status_code == status, response.content[:500]
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    if response["Content-Type"].startswith("application/json"):
        return response.json()
    return response.content.decode()


def stored(built, name, without_suspect=False):
    system = None if name == "human" else built.systems[name]
    return ReadingComprehensionSystemScore.objects.get(
        campaign=built.campaign, system_id=system, without_suspect=without_suspect
    )


# --- Shared endpoints ----------------------------------------------------------------------------


def test_the_campaign_has_the_controls_share_and_the_kappa(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/")
    assert data["kind"] == "reading_comprehension"
    assert data["reference_share_correct"] == 0.75
    assert data["grading_kappa"] == pytest.approx(0.6)
    assert (data["assessment_mode"], data["rank_by"], data["ter_signature"]) == ("", "", "")
    results = data["results"]
    assert (results["n_judgments"], results["n_scored_judgments"], results["n_workers"]) == (
        72,
        60,
        11,
    )
    other = get(cast, f"/api/campaigns/{cast.other_campaign.pk}/", "staff")
    assert (other["reference_share_correct"], other["grading_kappa"]) == (None, None)


def test_systems_with_their_share_correct_best_first(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/systems/")["results"]
    # The human translation is no system: A (position 2) and B (3) only.
    assert [row["name"] for row in rows] == ["A", "B"]
    assert (rows[0]["direct_assessment"], rows[0]["ranking"], rows[0]["post_editing"]) == (
        None,
        [],
        None,
    )
    assert rows[0]["reading_comprehension"] == {
        "without_suspect": False,
        "position": 2,
        "share": 0.6875,
        "share_ci_low": 0.625,
        "share_ci_high": 0.75,
        "question_mean": 0.6875,
        "question_mean_ci_low": 0.625,
        "question_mean_ci_high": 0.75,
        "correct": 5.5,
        "n_answers": 8,
        "n_ties": 1,
        "n_questions": 4,
        "n_articles": 2,
        "n_readings": 4,
        "n_workers": 4,
        "cluster": 1,
        "rank_best": 1,
        "rank_worst": 2,
        "rank_range": "1–2",
    }
    without = get(cast, f"/api/campaigns/{built.campaign.pk}/systems/?without_suspect=1")
    assert [row["reading_comprehension"]["share"] for row in without["results"]] == [0.75, 0.25]
    assert get(
        cast, f"/api/campaigns/{built.campaign.pk}/systems/?without_suspect=maybe", status=400
    ) == {"without_suspect": ["Must be a valid boolean."]}


def test_significance_includes_the_control_by_name(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/significance/")
    assert data["variant"] == "all_questions"
    assert data["test"].startswith("one-sided stratified permutation test over readings")
    assert data["systems"] == [
        {"id": None, "name": HUMAN, "score": 0.75, "cluster": 1},
        {"id": built.systems["A"], "name": "A", "score": 0.6875, "cluster": 1},
        {"id": built.systems["B"], "name": "B", "score": 0.1875, "cluster": 2},
    ]
    assert data["p_values"] == [
        [None, pytest.approx(5 / 9), pytest.approx(1 / 9)],
        [pytest.approx(7 / 9), None, pytest.approx(1 / 36)],
        [1.0, 1.0, None],
    ]
    assert data["marks"] == [["", "", ""], ["", "", "*"], ["", "", ""]]
    without = get(cast, f"/api/campaigns/{built.campaign.pk}/significance/?without_suspect=1")
    assert without["variant"] == "without_suspect"
    assert without["p_values"][0][1] == pytest.approx(1 / 3)


def test_no_segment_scores(cast, built):
    # Answers are about whole articles: nothing per (segment, system).
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/segments/")
    assert (data["count"], data["results"]) == (0, [])


def test_workers_with_their_rows(cast, built):
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/workers/")["results"]
    by_id = {row["external_id"]: row for row in rows}
    assert by_id["g1"]["reading_comprehension"] == {
        "n_questions_written": 0,
        "n_votes": 0,
        "n_answers": 0,
        "n_answers_graded": 0,
        "answers_correct": 0.0,
        "share_correct": None,
        "n_grades": 20,
        "n_grades_compared": 20,
        "n_grades_agreeing": 16,
        "agreement": 0.8,
        "in_scores": True,
    }
    assert by_id["r2"]["reading_comprehension"]["share_correct"] == 0.375
    assert by_id["au-d1"]["reading_comprehension"]["n_questions_written"] == 3
    assert (by_id["r1"]["reliability"], by_id["r1"]["trust"], by_id["r1"]["post_editing"]) == (
        None,
        None,
        None,
    )


# --- System tables -------------------------------------------------------------------------------


def test_the_system_table_as_csv_tsv_and_latex(cast, built):
    base = f"/api/campaigns/{built.campaign.pk}/export"
    rows = list(csv.reader(io.StringIO(get(cast, f"{base}/systems.csv"))))
    assert rows == [
        ["rank_best", "rank_worst", "system", "is_reference", "share_correct", "share_ci_low",
         "share_ci_high", "question_mean", "correct", "n_answers", "n_ties", "n_readings",
         "cluster"],
        ["1", "3", HUMAN, "true", "0.75", "0.5", "1.0", "0.75", "3.0", "4", "0", "2", "1"],
        ["1", "2", "A", "false", "0.6875", "0.625", "0.75", "0.6875", "5.5", "8", "1", "4", "1"],
        ["2", "3", "B", "false", "0.1875", "0.125", "0.25", "0.1875", "1.5", "8", "3", "4", "2"],
    ]  # fmt: skip
    tsv = get(cast, f"{base}/systems.tsv")
    assert tsv.splitlines() == [
        "#\t% correct\t95% CI\tSystem\tAnswers\tCluster",
        f"1-3\t75.0\t[50.0, 100.0]\t{HUMAN}\t4\t1",
        "1-2\t68.8\t[62.5, 75.0]\tA\t8\t1",
        "2-3\t18.8\t[12.5, 25.0]\tB\t8\t2",
    ]
    latex = get(cast, f"{base}/systems.tex")
    assert r"\# & \% correct & 95\% interval & System \\" in latex
    # The control in italics, a rule between the clusters {human, A} and {B}.
    assert (
        "\\midrule\n"
        "1--3 & 75.0 & [50.0, 100.0] & \\textit{Reference (human translation)} \\\\\n"
        "1--2 & 68.8 & [62.5, 75.0] & A \\\\\n"
        "\\midrule\n"
        "2--3 & 18.8 & [12.5, 25.0] & B \\\\\n"
    ) in latex
    assert "reading comprehension), every question: the share of questions answered" in latex
    without = cast.client("analyst").get(f"{base}/systems.tsv?without_suspect=1")
    assert without["Content-Disposition"].endswith('-systems-without-suspect.tsv"')
    assert without.content.decode().splitlines()[1] == f"1-3\t100.0\t[100.0, 100.0]\t{HUMAN}\t3\t1"


def test_before_the_first_recompute_the_system_table_is_409():
    built = build_rc_campaign()
    cast = make_cast(built.campaign)
    response = cast.client("owner").get(f"/api/campaigns/{built.campaign.pk}/export/systems.csv")
    assert response.status_code == 409
    actions.clear_recompute_flag(built.campaign.pk)


# --- The kind's own endpoints --------------------------------------------------------------------


def test_the_questions_with_their_votes_and_difficulty(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/questions/")
    assert data["count"] == 6
    assert data["computed_at"] is not None
    first = data["results"][0]
    assert first == {
        "id": built.questions[("d1", 1)].pk,
        "article": "d1",
        "number": 1,
        "text": "Who was arrested?",
        "sample_answer": "Heather Locklear",
        "origin": "authored",
        "status": "kept",
        "good_votes": 1,
        "votes": 1,
        "redundant_with": None,
        "n_answers": 5,
        "n_graded": 5,
        "n_ties": 1,
        "reference_share": 1.0,
        "reference_answers": 1,
        "mt_share": 0.625,
        "mt_answers": 4,
        "suspect": False,
        "systems": [
            {"system_id": built.systems["A"], "system": "A", "is_reference": False,
             "correct": 2.0, "n_answers": 2, "n_ties": 0, "share": 1.0},
            {"system_id": built.systems["B"], "system": "B", "is_reference": False,
             "correct": 0.5, "n_answers": 2, "n_ties": 1, "share": 0.25},
            {"system_id": None, "system": HUMAN, "is_reference": True, "correct": 1.0,
             "n_answers": 1, "n_ties": 0, "share": 1.0},
        ],
    }  # fmt: skip
    by_key = {(row["article"], row["number"]): row for row in data["results"]}
    assert (by_key[("d1", 3)]["status"], by_key[("d1", 3)]["good_votes"]) == ("dropped_votes", 0)
    assert by_key[("d1", 3)]["systems"] == []
    assert (by_key[("d2", 2)]["status"], by_key[("d2", 2)]["redundant_with"]) == (
        "dropped_redundant",
        1,
    )
    assert (by_key[("d2", 3)]["suspect"], by_key[("d2", 3)]["reference_share"]) == (True, 0.0)
    kept = get(cast, f"/api/campaigns/{built.campaign.pk}/questions/?status=kept")
    assert kept["count"] == 4
    without = get(cast, f"/api/campaigns/{built.campaign.pk}/questions/?without_suspect=1")
    assert [row["systems"] for row in without["results"] if row["suspect"]] == [[]]
    assert get(cast, f"/api/campaigns/{built.campaign.pk}/questions/?status=maybe", status=400) == {
        "status": ['"maybe" is not a valid choice.']
    }


def test_the_articles_with_their_stages_and_shares(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/articles/")
    assert [
        (row["article"], row["stage"], row["hits_done"], row["hits"], row["questions"])
        for row in data["results"]
    ] == [
        ("d1", "done", 0, 0, {"dropped_votes": 1, "kept": 2}),
        ("d2", "done", 0, 0, {"dropped_redundant": 1, "kept": 2}),
    ]
    assert [(c["system"], c["correct"], c["n_answers"], c["share"]) for c in data["results"][1][
        "systems"
    ]] == [("A", 3.0, 4, 0.75), ("B", 1.0, 4, 0.25), (HUMAN, 1.0, 2, 0.5)]  # fmt: skip
    without = get(cast, f"/api/campaigns/{built.campaign.pk}/articles/?without_suspect=1")
    assert [c["share"] for c in without["results"][1]["systems"]] == [1.0, 0.5, 1.0]


def test_the_answers_with_their_grades(cast, built):
    data = get(cast, f"/api/campaigns/{built.campaign.pk}/answers/?page_size=5")
    assert data["count"] == 20
    first = data["results"][0]
    answer = built.answers[("d1", "r1", 1)]
    grades = [g for g in built.grades if g.slot.about_judgment_id == answer.pk]
    assert first == {
        "judgment_id": answer.pk,
        "worker_external_id": "r1",
        "article": "d1",
        "question_id": built.questions[("d1", 1)].pk,
        "question_number": 1,
        "system_id": built.systems["A"],
        "system": "A",
        "is_reference": False,
        "answer": "r1 on d1 Q1",
        "assignment_status": "submitted",
        "grades": [
            {"judgment_id": grades[0].pk, "worker_external_id": "g1", "correct": True,
             "counted": True},
            {"judgment_id": grades[1].pk, "worker_external_id": "g2", "correct": True,
             "counted": True},
        ],
        "yes_votes": 2,
        "no_votes": 0,
        "verdict": "correct",
        "score": 1.0,
        "counted": True,
    }  # fmt: skip
    base = f"/api/campaigns/{built.campaign.pk}/answers/"
    ties = get(cast, f"{base}?verdict=tie")["results"]
    assert sorted((r["article"], r["worker_external_id"], r["question_number"]) for r in ties) == [
        ("d1", "r1", 2),
        ("d1", "r4", 1),
        ("d2", "r1", 1),
        ("d2", "r2", 1),
    ]
    assert {(r["score"], r["yes_votes"], r["no_votes"]) for r in ties} == {(0.5, 1, 1)}
    human = get(cast, f"{base}?reference=true&article=d2")["results"]
    assert [(r["system_id"], r["system"], r["verdict"]) for r in human] == [
        (None, HUMAN, "correct"),
        (None, HUMAN, "incorrect"),
    ]
    one = get(cast, f"{base}?question={built.questions[('d2', 3)].pk}&system={built.systems['A']}")
    assert [r["answer"] for r in one["results"]] == ["r3 on d2 Q3", "r4 on d2 Q3"]
    assert get(cast, f"{base}?reference=false")["count"] == 16
    assert get(cast, f"{base}?system=best", status=400) == {
        "system": ["A valid integer is required."]
    }
    assert get(cast, f"{base}?article=d%00", status=400) == {
        "article": ["Null characters are not allowed."]
    }


def test_answers_of_rejected_assignments_are_shown_not_counted(cast, built):
    assignment = built.readings[("d1", "r2")]
    assignment.status = AssignmentStatus.REJECTED
    assignment.save()
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/answers/?article=d1")["results"]
    r2 = [row for row in rows if row["worker_external_id"] == "r2"]
    assert [(r["counted"], r["verdict"], r["assignment_status"]) for r in r2] == [
        (False, "correct", "rejected"),
        (False, "incorrect", "rejected"),
    ]


def test_every_answer_as_csv(cast, built):
    text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/answers.csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(ANSWER_COLUMNS)
    assert len(rows) == 20
    by_id = {int(row["judgment_id"]): row for row in rows}
    tie = by_id[built.answers[("d1", "r1", 2)].pk]
    assert {k: tie[k] for k in ANSWER_COLUMNS if k not in ("judgment_id", "hit", "assignment_id",
                                                              "submitted_at")} == {
        "worker_platform": "direct",
        "worker_external_id": "r1",
        "assignment_status": "submitted",
        "article": "d1",
        "question_number": "2",
        "question": "Where was she taken?",
        "sample_answer": "A centre for drugs & alcohol",
        "system": "A",
        "answer": "r1 on d1 Q2",
        "client_duration_ms": "30000",
        "is_reference": "false",
        "yes_votes": "1",
        "no_votes": "1",
        "verdict": "tie",
        "score": "0.5",
        "counted": "true",
    }  # fmt: skip
    human = by_id[built.answers[("d2", "r5", 3)].pk]
    assert (human["system"], human["is_reference"], human["verdict"], human["score"]) == (
        HUMAN,
        "true",
        "incorrect",
        "0.0",
    )


def test_every_answer_as_json_lines(cast, built):
    text = get(cast, f"/api/campaigns/{built.campaign.pk}/export/answers.jsonl")
    rows = [json.loads(line) for line in text.splitlines()]
    assert [row["judgment_id"] for row in rows] == sorted(a.pk for a in built.answers.values())
    b = next(row for row in rows if row["judgment_id"] == built.answers[("d1", "r3", 1)].pk)
    assert (b["system"], b["yes_votes"], b["no_votes"], b["verdict"], b["score"]) == (
        "B",
        0,
        2,
        "incorrect",
        0.0,
    )


def test_an_ungraded_answer(cast, built):
    # A sixth reader on d1's A translation after grading: no grade yet.
    hit = built.hit(HitTask.RC_ANSWER, "d1", system_id=built.systems["A"])
    assignment = built.assignment(hit, "r6")
    slot = hit.slots.order_by("position").first()
    late = built.judge(assignment, slot, text="late")
    rows = get(cast, f"/api/campaigns/{built.campaign.pk}/answers/?verdict=ungraded")["results"]
    assert [(r["judgment_id"], r["score"], r["counted"]) for r in rows] == [(late.pk, None, True)]


def test_a_campaign_of_another_kind_has_nothing_of_its_own(cast):
    other = cast.other_campaign  # direct assessment
    text = get(cast, f"/api/campaigns/{other.pk}/export/answers.csv", "staff")
    assert text.splitlines() == [",".join(ANSWER_COLUMNS)]
    for url in ("questions", "answers"):
        data = get(cast, f"/api/campaigns/{other.pk}/{url}/", "staff")
        assert (data["count"], data["results"]) == (0, [])
    assert get(cast, f"/api/campaigns/{other.pk}/articles/", "staff")["results"] == []


# --- Who may read ------------------------------------------------------------------------------

URLS = (
    "/api/campaigns/{id}/",
    "/api/campaigns/{id}/significance/",
    "/api/campaigns/{id}/systems/",
    "/api/campaigns/{id}/segments/",
    "/api/campaigns/{id}/workers/",
    "/api/campaigns/{id}/export/systems.csv",
    "/api/campaigns/{id}/export/systems.tex",
    "/api/campaigns/{id}/export/answers.csv",
    "/api/campaigns/{id}/export/answers.jsonl",
    "/api/campaigns/{id}/questions/",
    "/api/campaigns/{id}/answers/",
    "/api/campaigns/{id}/articles/",
)


@pytest.mark.parametrize("url", URLS)
def test_only_the_campaigns_readers_get_anything(cast, built, url):
    real = url.format(id=built.campaign.pk)
    absent = url.format(id=built.campaign.pk + 1000)
    for role in ROLES:
        response = cast.client(role).get(real)
        if response.streaming:
            b"".join(response.streaming_content)
        want = 401 if role in UNAUTHENTICATED else 200 if role in READERS else 404
        assert response.status_code == want, role
        if role in NOT_READERS:
            assert cast.client(role).get(absent).status_code == 404
    for method in ("post", "put", "patch", "delete"):
        assert getattr(cast.client("owner"), method)(real).status_code == 405


# --- Query counts ------------------------------------------------------------------------------


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
        if response.streaming:
            b"".join(response.streaming_content)
    assert response.status_code == 200
    return len(captured)


URLS_COUNTED = ("answers/?page_size={n}", "questions/?page_size={n}", "articles/", "systems/",
                "export/answers.csv")  # fmt: skip


def test_the_kinds_endpoints_run_the_same_queries_whatever_their_size(cast, built):
    client = cast.client("owner")
    base = f"/api/campaigns/{built.campaign.pk}"
    small = {url: queries(client, f"{base}/{url.format(n=1)}") for url in URLS_COUNTED}
    # A third grader on d1: 10 more grades, one more worker.
    hit = built.hit(HitTask.RC_GRADE, "d1")
    assignment = built.assignment(hit, "g3")
    for slot in hit.slots.order_by("position"):
        built.judge(assignment, slot, yes_no=False)
    actions.recompute_campaign(built.campaign)
    large = {url: queries(client, f"{base}/{url.format(n=100)}") for url in URLS_COUNTED}
    assert small == large
    # Token, permissions (2), campaign; load (5), the page's texts and its grades' workers,
    # the result's time.
    assert small["answers/?page_size={n}"] == 12


# --- The shared judgments export and endpoint ------------------------------------------------


def test_the_judgments_export_names_each_rows_stage_article_and_system(cast, built):
    """A reading-comprehension HIT holds its article and the system whose translation it
    shows (none for the human translation): every row of the judgments export names them, and
    its stage (the HIT's task); a grade names the answer it marks."""
    rows = list(
        csv.DictReader(
            io.StringIO(get(cast, f"/api/campaigns/{built.campaign.pk}/export/judgments.csv"))
        )
    )
    judgments = Judgment.objects.filter(campaign=built.campaign).select_related(
        "slot__hit__document", "slot__hit__system", "slot__about_judgment__slot__hit__system"
    )
    expected = {
        str(judgment.pk): (
            judgment.slot.hit.task,
            judgment.slot.hit.document.external_id,
            judgment.slot.hit.system.name if judgment.slot.hit.system else "",
            str(judgment.slot.about_judgment_id or ""),
        )
        for judgment in judgments
    }

    assert {
        row["judgment_id"]: (row["task"], row["document"], row["system"], row["about_judgment"])
        for row in rows
    } == expected
    tasks = [task for task, _, _, _ in expected.values()]
    # Per article: 3 questions written, 3 votes, 5 readers x 2 kept questions, 2 graders each.
    assert {task: tasks.count(task) for task in set(tasks)} == {
        HitTask.RC_AUTHOR: 6,
        HitTask.RC_SELECT: 6,
        HitTask.RC_ANSWER: 20,
        HitTask.RC_GRADE: 40,
    }
    answers = [values for values in expected.values() if values[0] == HitTask.RC_ANSWER]
    assert sorted({system for _, _, system, _ in answers}) == sorted(["", *built.systems])
    grades = [values for values in expected.values() if values[0] == HitTask.RC_GRADE]
    answer_ids = {pk for pk, values in expected.items() if values[0] == HitTask.RC_ANSWER}
    assert {about for _, _, _, about in grades} <= answer_ids


def test_the_judgments_endpoint_filters_answers_by_the_system_read(cast, built):
    name, system_id = sorted(built.systems.items())[0]
    read = Judgment.objects.filter(
        campaign=built.campaign, slot__hit__task=HitTask.RC_ANSWER, slot__hit__system_id=system_id
    )
    assert read.exists()

    for query in (f"system={system_id}", f"system_name={name}"):
        data = get(cast, f"/api/campaigns/{built.campaign.pk}/judgments/?{query}&page_size=500")
        assert sorted(row["id"] for row in data["results"]) == sorted(
            read.values_list("pk", flat=True)
        )
        assert {(row["task"], row["system"]) for row in data["results"]} == {("rc_answer", name)}
