"""The answering page over HTTP (issue 14 item 1, stage 3): 000's instructions with the
campaign's languages, the article in the HIT's translation (a system's, or the human one for
the control, and nothing that tells which), the questions without their sample answers, every
answer in one POST (trimmed, none empty), exact 400s, an idempotent retry, the MTurk preview,
and the answering HITs the stages build."""

import re

import pytest
from django.test import Client

from campaigns.kinds.reading_comprehension.models import RCArticle, RCStage
from campaigns.kinds.reading_comprehension.stages import build_answering_hits
from campaigns.models import Hit, HitTask
from judgments.kinds.reading_comprehension.answering import ANSWERS_EXAMPLE
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory
from tests.judgments.kinds.test_rc_pages import (
    HUMAN,
    MACHINE,
    NASTY,
    QUESTIONS,
    SYSTEM_NAME,
    answer_hit,
    kept_questions,
    post_json,
    rc_article,
    rc_campaign,
    url,
)
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish

pytestmark = pytest.mark.django_db

TEXTS = [question for question, _ in QUESTIONS]
SAMPLES = [sample for _, sample in QUESTIONS]
PROMPT = (
    "You will answer questions about an article that has been automatically translated from "
    "German into English. The translation may contain many errors, but the goal is to see how "
    "understandable it is. Please do your best to guess at the right answers to the questions."
)


@pytest.fixture
def campaign():
    return rc_campaign()


@pytest.fixture
def hits(campaign):
    """The article's answering HITs: its system's translation, then the human one."""
    document, systems = rc_article(campaign)
    questions = kept_questions(campaign, document)
    return (
        answer_hit(campaign, document, systems[0], questions=questions),
        answer_hit(campaign, document, None, questions=questions, places=3),
    )


@pytest.fixture
def assignment(hits):
    return AssignmentFactory(hit=hits[0])


def answers(**given):
    return {"page": 1, "answers": {str(k): v for k, v in given.items()}}


def all_answers(**changed):
    given = {"1": " He was scared. ", "2": "Arizona", "3": NASTY}
    given.update(changed)
    return answers(**given)


def test_the_page_is_a_shell_with_000s_instructions(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', html)
    assert scripts == [
        "/static/js/rc_common.js",
        "/static/js/task-common.js",
        "/static/js/rc_answer.js",
    ]
    assert 'class="task task-rc task-rc-answer" lang="en"' in html
    assert '<p class="rc-stage" id="stage">Answering questions</p>' in html
    assert f'<p class="prompt rc-prompt" id="prompt">{PROMPT}</p>' in html
    assert re.findall(r"<li>(.*?)</li>", html) == [
        "Read through the automatically translated article.",
        "Answer the questions listed below, using just a few words.",
        "Give your best guess at the answers, even if the translation is hard to understand.",
        "Don’t use any other information to answer the questions.",
    ]
    assert (
        '<p class="rc-keys" id="keys">Keyboard: Enter goes on to the next question; Ctrl+Enter '
        "sends your answers once every question has one; Tab also moves between the boxes.</p>"
    ) in html
    assert 'data-label-answer-box="Your answer to question {n}"' in html
    assert 'data-label-empty-answer="Answer question {n}: a guess is fine."' in html
    assert ">Send your answers" in html
    for text in [*TEXTS, *SAMPLES, *MACHINE, *HUMAN, SYSTEM_NAME]:
        assert text not in html


def test_the_languages_are_the_campaigns():
    campaign = rc_campaign(source_language="fr", target_language="de")
    document, systems = rc_article(campaign)
    html = (
        Client().get(url(AssignmentFactory(hit=answer_hit(campaign, document, systems[0])))).content
    )
    assert "automatically translated from French into German." in html.decode()


def test_the_control_page_is_the_system_page_but_for_the_article(hits):
    """The shell of the human translation's HIT is the system's, word for word (but the task's
    own links), and its JSON has the same keys: only the article's text differs."""
    system, human = (AssignmentFactory(hit=hit) for hit in hits)
    shells = []
    for assignment in (system, human):
        html = Client().get(url(assignment)).content.decode()
        shells.append(re.sub(r"/work/[aw]/[^/\"]+/", "/work/TOKEN/", html))
    assert shells[0] == shells[1]
    bodies = [Client().get(url(a, "judgments:task-item")).json() for a in (system, human)]
    questions = [{"position": n, "text": text} for n, text in enumerate(TEXTS, start=1)]
    assert bodies[0]["next"] == {"page": 1, "questions": questions, "article": MACHINE}
    assert bodies[1]["next"] == {"page": 1, "questions": questions, "article": HUMAN}


def test_the_answers_are_stored_trimmed_then_the_completion_page(assignment):
    client = Client()
    submit = url(assignment, "judgments:task-submit")
    first = post_json(client, submit, all_answers())
    assert first.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 1, "total": 1},
    }
    rows = list(
        Judgment.objects.order_by("slot__position").values_list(
            "slot__position", "text", "details", "yes_no"
        )
    )
    assert rows == [(1, "He was scared.", {}, None), (2, "Arizona", {}, None), (3, NASTY, {}, None)]
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.SUBMITTED
    retry = post_json(client, submit, all_answers(**{"1": "He was scared."}))
    assert retry.json() == {**first.json(), "already_recorded": True}
    changed = post_json(client, submit, all_answers(**{"2": "Texas"}))
    assert changed.status_code == 409
    assert Judgment.objects.count() == 3


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({"page": 1}, f"answers is required, for example {ANSWERS_EXAMPLE}.", "answers"),
        (
            {"page": 1, "answers": "Arizona"},
            f"answers must be an object keyed by position, for example {ANSWERS_EXAMPLE} (got "
            'the text "Arizona").',
            "answers",
        ),
        (
            {"page": 1, "answers": {"x": "Arizona"}},
            f'answers must be keyed by position, for example {ANSWERS_EXAMPLE}; "x" is not a '
            "position.",
            "answers",
        ),
        (
            all_answers(**{"2": "   "}),
            "The answer to question 2 is empty: give your best guess, in a few words.",
            "answers.2",
        ),
        (
            all_answers(**{"1": ["Arizona"]}),
            "The answer to question 1 must be text (got a list).",
            "answers.1",
        ),
        (
            all_answers(**{"3": "y" * 1001}),
            "The answer to question 3 is too long: at most 1,000 characters (got 1,001).",
            "answers.3",
        ),
        (
            answers(**{"1": "Scared.", "3": "At the weekend."}),
            "Every question needs an answer; missing: position 2.",
            "answers",
        ),
        (
            all_answers(**{"9": "Extra."}),
            "answers names position 9, which is not in this page; its positions are 1, 2, 3.",
            "answers",
        ),
    ],
)
def test_a_bad_page_is_a_400_naming_the_question_and_stores_nothing(assignment, body, error, field):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert Judgment.objects.count() == 0
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.STARTED


def test_the_mturk_preview_shows_the_article_and_the_questions_read_only(client, hits):
    hit = hits[0]
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert re.findall(r'<p class="rc-paragraph">(.*?)</p>', html) == MACHINE
    assert re.findall(r'<p class="rc-question-text" dir="auto" lang="en">(.*?)</p>', html) == TEXTS
    assert html.count(' rows="1" disabled></textarea>') == 3
    assert PROMPT in html
    for text in [*SAMPLES, SYSTEM_NAME, "<script"]:
        assert text not in html


def test_the_answering_hits_the_stages_build_show_each_translation():
    campaign = rc_campaign(answers_per_system=2, answers_on_reference=1)
    document, systems = rc_article(campaign, systems=(SYSTEM_NAME, "SECRET-SYSTEM-TWO"))
    kept_questions(campaign, document, QUESTIONS[:2])
    article = RCArticle.objects.create(campaign=campaign, document=document, stage=RCStage.REVIEW)
    build_answering_hits(campaign, campaign.rc_settings, article)
    hits = list(Hit.objects.filter(campaign=campaign, task=HitTask.RC_ANSWER).order_by("number"))
    assert [hit.system_id for hit in hits] == [systems[0].pk, systems[1].pk, None]
    articles = [
        Client().get(url(AssignmentFactory(hit=hit), "judgments:task-item")).json()["next"]
        for hit in hits
    ]
    questions = [{"position": 1, "text": TEXTS[0]}, {"position": 2, "text": TEXTS[1]}]
    assert articles == [
        {"page": 1, "questions": questions, "article": MACHINE},
        {
            "page": 1,
            "questions": questions,
            "article": [f"{text} (SECRET-SYSTEM-TWO)" for text in MACHINE],
        },
        {"page": 1, "questions": questions, "article": HUMAN},
    ]
