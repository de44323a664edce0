"""How many SQL queries the task page, the item endpoint and the submit endpoint run for every
task kind's page (issue 16 item 5): ranking, post-editing (editing and verification), reading
comprehension (authoring, selecting, answering, grading), translation (translating, Detect-MT)
and a ranking qualification test's last set. Direct assessment, the entry page, Start, the
hand-out, the background form, MTurk's preview and Prolific's entry are counted in
test_query_counts.py.

Each count is fixed: a change that adds or removes a query changes a number here on purpose
(say why in the commit). The numbers include the savepoints the test's transaction makes of
atomic blocks. Where PostgreSQL differs, it is because a submission that stores judgments is
one statement there (``judgments.actions.hot_sql.store_unlocked``: no transaction of its own,
so in a test one savepoint around it) instead of a locked read and two writes.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from judgments import tokens
from judgments.models import Judgment
from tests.factories import AssignmentFactory
from tests.judgments.kinds.test_detect_mt_page import build_detect_hit
from tests.judgments.kinds.test_post_editing_page import (
    SENTENCES,
    build_edit_hit,
    edit,
    post_editing_campaign,
)
from tests.judgments.kinds.test_rc_pages import (
    QUESTIONS,
    answer_hit,
    author_hit,
    grade_hit,
    kept_questions,
    rc_article,
    rc_campaign,
    select_hit,
)
from tests.judgments.kinds.test_translate_page import (
    answered_background,
    build_translate_hit,
    translation,
    translation_campaign,
)
from tests.judgments.kinds.test_verify_edit_page import verification_hit
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.django_db


def ranking():
    return AssignmentFactory(hit=build_ranking_hit(ranking_campaign())), {
        "set": 0,
        "ranks": {"1": 2, "2": 1, "3": 2, "4": 3},
    }


def ranking_qualification_last_set():
    """The last set of a qualification test: scoring it writes the worker's membership with
    the judgments (always the locked path)."""
    campaign = ranking_campaign()
    hit = build_ranking_hit(campaign, sets=1, is_qualification=True)
    return AssignmentFactory(hit=hit), {"set": 0, "ranks": {"1": 1, "2": 2, "3": 3, "4": 4}}


def post_edit():
    hit = build_edit_hit(post_editing_campaign(), SENTENCES)
    return AssignmentFactory(hit=hit), edit(1, "The cat is asleep.")


def verify_edit():
    hit = verification_hit(post_editing_campaign())
    return AssignmentFactory(hit=hit), {"position": 1, "same_meaning": True, "acceptable": True}


def rc_author():
    campaign = rc_campaign()
    document, _ = rc_article(campaign)
    questions = {
        str(position): {"question": question, "answer": answer}
        for position, (question, answer) in enumerate(QUESTIONS[:3], start=1)
    }
    hit = author_hit(campaign, document)
    return AssignmentFactory(hit=hit), {"page": 1, "questions": questions}


def rc_select():
    campaign = rc_campaign()
    document, _ = rc_article(campaign)
    votes = {
        "1": {"good": True, "redundant_with": []},
        "2": {"good": False, "redundant_with": [3, 1]},
        "3": {"good": True, "redundant_with": []},
    }
    hit = select_hit(campaign, document)
    return AssignmentFactory(hit=hit), {"page": 1, "votes": votes}


def rc_answer():
    campaign = rc_campaign()
    document, systems = rc_article(campaign)
    questions = kept_questions(campaign, document)
    hit = answer_hit(campaign, document, systems[0], questions=questions)
    answers = {"1": "He was scared.", "2": "Arizona", "3": "In a clinic."}
    return AssignmentFactory(hit=hit), {"page": 1, "answers": answers}


def rc_grade():
    campaign = rc_campaign()
    document, systems = rc_article(campaign)
    answers = [["He was scared.", "No idea"], ["Arizona"], ["In a clinic.", "Texas"]]
    hit = grade_hit(campaign, document, answers, system=systems[0])
    return AssignmentFactory(hit=hit), {"question": 1, "grades": {"1": True, "2": False}}


def translate():
    hit = build_translate_hit(translation_campaign())
    assignment = answered_background(AssignmentFactory(hit=hit))
    return assignment, translation(1, "The cat sleeps on the sofa.")


def detect_mt():
    hit = build_detect_hit(translation_campaign())
    assignment = answered_background(AssignmentFactory(hit=hit))
    return assignment, {"position": 1, "machine": True}


def task_url(assignment, name):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def count(call) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    return len(queries), response


def measure(build, endpoint):
    """(queries, response) of one request to ``endpoint`` on a fresh assignment: the page,
    the item, or the first unit's submission (after the item was served, as a page does)."""
    assignment, answer = build()
    client = Client()
    if endpoint == "page":
        return count(lambda: client.get(task_url(assignment, "judgments:task")))
    if endpoint == "item":
        return count(lambda: client.get(task_url(assignment, "judgments:task-item")))
    client.get(task_url(assignment, "judgments:task-item"))
    submit = task_url(assignment, "judgments:task-submit")
    body = json.dumps(answer)
    result = count(lambda: client.post(submit, data=body, content_type="application/json"))
    assert Judgment.objects.filter(assignment=assignment).exists(), result[1].content
    return result


BUILDERS = {
    "ranking": ranking,
    "ranking_qualification_last_set": ranking_qualification_last_set,
    "post_edit": post_edit,
    "verify_edit": verify_edit,
    "rc_author": rc_author,
    "rc_select": rc_select,
    "rc_answer": rc_answer,
    "rc_grade": rc_grade,
    "translate": translate,
    "detect_mt": detect_mt,
}

# (kind, endpoint): queries on SQLite, and on PostgreSQL where it differs (there the HIT's slots
# are read in the assignment's statement: judgments.actions.hot_sql). The item counts
# include the first serving's two stamps (the first-touch deadline and the page's served time)
# and the transaction that makes them one commit (issue 16: in a test, SAVEPOINT and RELEASE).
EXPECTED = {
    ("detect_mt", "page"): {"sqlite": 3},
    ("detect_mt", "item"): {"sqlite": 7, "postgresql": 6},
    ("detect_mt", "submit"): {"sqlite": 7, "postgresql": 5},
    ("post_edit", "page"): {"sqlite": 2},
    ("post_edit", "item"): {"sqlite": 8, "postgresql": 7},
    ("post_edit", "submit"): {"sqlite": 9, "postgresql": 7},
    ("ranking", "page"): {"sqlite": 2},
    ("ranking", "item"): {"sqlite": 6, "postgresql": 5},
    ("ranking", "submit"): {"sqlite": 9, "postgresql": 4},
    ("rc_answer", "page"): {"sqlite": 2},
    ("rc_answer", "item"): {"sqlite": 7, "postgresql": 6},
    ("rc_answer", "submit"): {"sqlite": 8, "postgresql": 4},
    ("rc_author", "page"): {"sqlite": 2},
    ("rc_author", "item"): {"sqlite": 7, "postgresql": 6},
    ("rc_author", "submit"): {"sqlite": 8, "postgresql": 4},
    ("rc_grade", "page"): {"sqlite": 2},
    ("rc_grade", "item"): {"sqlite": 8, "postgresql": 7},
    ("rc_grade", "submit"): {"sqlite": 9, "postgresql": 6},
    ("rc_select", "page"): {"sqlite": 2},
    ("rc_select", "item"): {"sqlite": 7, "postgresql": 6},
    ("rc_select", "submit"): {"sqlite": 8, "postgresql": 4},
    ("translate", "page"): {"sqlite": 3},
    ("translate", "item"): {"sqlite": 9, "postgresql": 8},
    ("translate", "submit"): {"sqlite": 9, "postgresql": 7},
    ("verify_edit", "page"): {"sqlite": 2},
    ("verify_edit", "item"): {"sqlite": 6, "postgresql": 5},
    ("verify_edit", "submit"): {"sqlite": 6, "postgresql": 4},
    ("ranking_qualification_last_set", "submit"): {"sqlite": 17, "postgresql": 13},
}


CASES = sorted(EXPECTED)


@pytest.mark.parametrize(("kind", "endpoint"), CASES, ids=[f"{k}-{e}" for k, e in CASES])
def test_query_count(kind, endpoint):
    queries, response = measure(BUILDERS[kind], endpoint)
    expected = EXPECTED[(kind, endpoint)]
    assert (response.status_code, queries) == (
        200,
        expected.get(connection.vendor, expected["sqlite"]),
    )
