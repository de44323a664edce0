"""The grading page over HTTP (issue 14 item 1, stage 4): the human translation, then one
question at a time with its sample answer and every answer to it (000: "the human translation
of the article, one question, the sample answer, and ... all answers to it"), one POST per
question stored as yes_no per answer, exact 400s, an idempotent retry, the MTurk preview, and
the grading HIT the stages build from submitted answering pages."""

import re

import pytest
from django.test import Client

from campaigns.kinds.reading_comprehension.models import RCArticle, RCStage
from campaigns.kinds.reading_comprehension.stages import advance, build_answering_hits
from campaigns.models import Hit, HitTask
from judgments.kinds.reading_comprehension.grading import GRADES_EXAMPLE
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory
from tests.judgments.kinds.test_rc_pages import (
    HUMAN,
    MACHINE,
    NASTY,
    QUESTIONS,
    SYSTEM_NAME,
    grade_hit,
    kept_questions,
    post_json,
    rc_article,
    rc_campaign,
    url,
)
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish

pytestmark = pytest.mark.django_db

ANSWERS = [["He was worried.", NASTY], ["Arizona.", "In Texas.", "A clinic."]]


@pytest.fixture
def campaign():
    return rc_campaign()


@pytest.fixture
def hit(campaign):
    document, systems = rc_article(campaign)
    return grade_hit(campaign, document, ANSWERS, system=systems[0])


@pytest.fixture
def assignment(hit):
    return AssignmentFactory(hit=hit)


def grades(question, **given):
    return {"question": question, "grades": {str(k): v for k, v in given.items()}}


def shown(number, index):
    """The item endpoint's view of question ``index`` (0-based) of the HIT."""
    first = 1 + sum(len(answers) for answers in ANSWERS[:index])
    return {
        "question": index + 1,
        "number": number,
        "text": QUESTIONS[index][0],
        "sample_answer": QUESTIONS[index][1],
        "answers": [{"position": first + n, "text": text} for n, text in enumerate(ANSWERS[index])],
        "article": HUMAN,
    }


def test_the_page_is_a_shell_with_the_grading_task(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', html)
    assert scripts == [
        "/static/js/rc_common.js",
        "/static/js/task-common.js",
        "/static/js/rc_grade.js",
    ]
    assert 'class="task task-rc task-rc-grade" lang="en"' in html
    assert '<p class="rc-stage" id="stage">Grading answers</p>' in html
    assert (
        '<p class="prompt rc-prompt" id="prompt">Please read the article below. Then, for each '
        "question, mark every answer correct or not correct, compared with the article and the "
        "sample answer.</p>"
    ) in html
    assert (
        '<p class="rc-note">An answer is correct when it gives what the question asks for, even '
        "in other words, more briefly or with spelling mistakes. The sample answer is one correct "
        "answer, not the only one.</p>"
    ) in html
    assert (
        '<p class="rc-keys" id="keys">Keyboard: C (correct) or N (not correct) grades the answer '
        "in focus and moves on to the next one; the arrow keys change a grade; Enter goes on to "
        "the next question once every answer is graded.</p>"
    ) in html
    assert 'data-label-progress="Question {n} of {total}"' in html
    assert 'data-label-correct="Correct" data-label-not-correct="Not correct"' in html
    assert 'data-label-next="Next question" data-label-last="Send your grades"' in html
    for text in ["actress", "He was worried", QUESTIONS[0][1]]:
        assert text not in html


def test_one_question_at_a_time_with_its_sample_answer_and_answers(assignment):
    client = Client()
    submit = url(assignment, "judgments:task-submit")
    body = client.get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": shown(1, 0),
        "done": False,
        "progress": {"done": 0, "total": 2},
    }
    first = post_json(client, submit, grades(1, **{"1": True, "2": False}))
    assert first.json() == {
        "ok": True,
        "next": shown(2, 1),
        "done": False,
        "progress": {"done": 1, "total": 2},
    }
    retry = post_json(client, submit, grades(1, **{"2": False, "1": True}))
    assert retry.json() == {**first.json(), "already_recorded": True}
    changed = post_json(client, submit, grades(1, **{"1": False, "2": False}))
    assert (changed.status_code, changed.json()) == (
        409,
        {
            "ok": False,
            "error": "The answers to question 1 are already graded, and grades cannot be changed "
            "(there is no going back). Continue with question 2.",
            "field": "question",
        },
    )
    last = post_json(client, submit, grades(2, **{"3": True, "4": False, "5": True}))
    assert last.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 2, "total": 2},
    }
    rows = list(
        Judgment.objects.filter(slot__hit=assignment.hit)
        .order_by("slot__position")
        .values_list("slot__position", "yes_no", "text", "details")
    )
    assert rows == [
        (1, True, "", {}),
        (2, False, "", {}),
        (3, True, "", {}),
        (4, False, "", {}),
        (5, True, "", {}),
    ]
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.SUBMITTED


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({"question": 1}, f"grades is required, for example {GRADES_EXAMPLE}.", "grades"),
        (
            {"question": 1, "grades": [True, False]},
            f"grades must be an object keyed by position, for example {GRADES_EXAMPLE} (got a "
            "list).",
            "grades",
        ),
        (
            grades(1, **{"1": True, "2": "yes"}),
            "The grade of position 2 must be true (correct) or false (not correct) (got the text "
            '"yes").',
            "grades.2",
        ),
        (
            grades(1, **{"1": 1, "2": True}),
            "The grade of position 1 must be true (correct) or false (not correct) (got 1).",
            "grades.1",
        ),
        (
            grades(1, **{"1": True}),
            "Every answer to question 1 needs a grade; missing: position 2.",
            "grades",
        ),
        (
            grades(1, **{"1": True, "2": True, "3": True}),
            "grades names position 3, which is not in this page; its positions are 1, 2.",
            "grades",
        ),
        (
            grades(2, **{"3": True, "4": True, "5": True}),
            "Grade the answers to question 1 first; the questions are graded in order.",
            "question",
        ),
        (
            grades(7, **{"1": True, "2": True}),
            'There is no question 7 in this task: "question" is one of 1, 2.',
            "question",
        ),
        (
            {"grades": {"1": True, "2": True}},
            "question is required: the question whose answers you grade.",
            "question",
        ),
    ],
)
def test_a_bad_grade_is_a_400_and_stores_nothing(assignment, body, error, field):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert not Judgment.objects.filter(slot__hit=assignment.hit).exists()


def test_the_mturk_preview_shows_the_first_question_read_only(client, hit):
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert re.findall(r'<p class="rc-paragraph">(.*?)</p>', html) == HUMAN
    assert '<h2 class="rc-heading" id="preview-question-heading">Question 1 of 2</h2>' in html
    assert f'lang="en">{QUESTIONS[0][1]}</p>' in html
    assert re.findall(r'<p class="rc-answer-text" dir="auto" lang="en">(.*?)</p>', html) == [
        "He was worried.",
        "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;",
    ]
    assert html.count('<input type="radio" disabled>') == 4
    for text in ["In Texas.", SYSTEM_NAME, *MACHINE, "<script"]:
        assert text not in html


def test_the_grading_hit_the_stages_build_from_submitted_answers():
    """Readers answer through the page (on the system's translation and on the human one);
    the stages build the grading HIT; the page shows each question with every answer to it,
    and never which translation an answer was given on."""
    campaign = rc_campaign(answers_per_system=1, answers_on_reference=1)
    document, _ = rc_article(campaign)
    kept_questions(campaign, document, QUESTIONS[:2])
    article = RCArticle.objects.create(campaign=campaign, document=document, stage=RCStage.REVIEW)
    build_answering_hits(campaign, campaign.rc_settings, article)
    given = {0: ("Worried.", "Arizona."), 1: ("Scared.", "A clinic.")}
    for index, hit in enumerate(Hit.objects.filter(task=HitTask.RC_ANSWER).order_by("number")):
        payload = {"page": 1, "answers": {"1": given[index][0], "2": given[index][1]}}
        sent = post_json(
            Client(), url(AssignmentFactory(hit=hit), "judgments:task-submit"), payload
        )
        assert sent.json()["done"] is True
    assert advance(campaign) == ["article-1: grading HIT 3 built (4 answer(s))"]
    grading = Hit.objects.get(campaign=campaign, task=HitTask.RC_GRADE)
    body = Client().get(url(AssignmentFactory(hit=grading), "judgments:task-item")).json()
    assert body["next"] == {
        "question": 1,
        "number": 1,
        "text": QUESTIONS[0][0],
        "sample_answer": QUESTIONS[0][1],
        "answers": [{"position": 1, "text": "Worried."}, {"position": 2, "text": "Scared."}],
        "article": HUMAN,
    }
    assert body["progress"] == {"done": 0, "total": 2}
