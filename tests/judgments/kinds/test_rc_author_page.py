"""The writing-questions page over HTTP (issue 14 item 1, stage 1): the shell with 000's
instructions and guidance, the human translation and the boxes as JSON, the whole page as one
POST (questions and sample answers, trimmed), exact 400s naming the box, an idempotent retry,
the MTurk preview, and a HIT of the campaigns builder."""

import re

import pytest
from django.test import Client

from campaigns.actions import build_hits
from campaigns.models import Hit, HitTask
from judgments.entry.presenters import first_unit
from judgments.kinds import task_page
from judgments.kinds.reading_comprehension.author import AUTHOR_SPEC, QUESTIONS_EXAMPLE
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory
from tests.judgments.kinds.test_rc_pages import (
    HUMAN,
    NASTY,
    author_hit,
    post_json,
    rc_article,
    rc_campaign,
    url,
)
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign():
    return rc_campaign()


@pytest.fixture
def assignment(campaign):
    document, _ = rc_article(campaign)
    return AssignmentFactory(hit=author_hit(campaign, document))


def page(**questions):
    """A payload as rc_author.js sends it: {position: (question, answer)}."""
    return {
        "page": 1,
        "questions": {
            str(position): {"question": question, "answer": answer}
            for position, (question, answer) in questions.items()
        },
    }


FULL = {
    1: ("  Why did the witness call the police? ", "He was worried.\n"),
    2: ("Where was she two months ago?", " In a clinic in Arizona. "),
    3: (NASTY, "<b>bold</b> & more"),
}


def full():
    return page(**{str(k): v for k, v in FULL.items()})


# --- The page ---------------------------------------------------------------------------------


def test_the_page_is_a_shell_with_000s_instructions_and_guidance(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    assert "no-store" in response["Cache-Control"]
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', html)
    assert scripts == [
        "/static/js/rc_common.js",
        "/static/js/task-common.js",
        "/static/js/rc_author.js",
    ]
    assert '<link rel="stylesheet" href="/static/css/rc.css">' in html
    assert 'class="task task-rc task-rc-author" lang="en"' in html
    assert '<p class="rc-stage" id="stage">Writing questions</p>' in html
    assert (
        '<p class="prompt rc-prompt" id="prompt">Please read the short article below, and then '
        "write reading comprehension questions about it, one in each pair of boxes, giving a "
        "sample answer for each of your questions.</p>"
    ) in html
    assert re.findall(r'<p class="rc-guidance-heading">(.*?)</p>', html) == [
        "Good reading comprehension questions:",
        "Poor reading comprehension questions:",
    ]
    assert re.findall(r"<li>(.*?)</li>", html) == [
        "Ask about why something happened or why someone did something.",
        "Ask about relationships between people or things.",
        "Should be answerable in a few words.",
        "Ask about numbers or dates.",
        "Only require a yes/no answer.",
    ]
    assert (
        '<p class="rc-keys" id="keys">Keyboard: Enter goes on to the next box; Ctrl+Enter sends '
        "your questions once every box is filled; Tab also moves between the boxes.</p>"
    ) in html
    assert "reloading the page loses nothing" in html
    assert 'data-label-progress="{done} of {total} questions written"' in html
    assert 'data-label-answer-box="Sample answer to question {n}"' in html
    assert 'data-label-empty-question="Write question {n}."' in html
    assert 'data-target-lang="en"' in html
    assert (
        '<button type="button" id="next" class="button-primary" disabled>Send your questions'
        in html
    )
    # No article in the shell: the script fetches it.
    assert "actress" not in html


def test_the_item_endpoint_sends_the_human_translation_and_the_boxes(assignment):
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {
            "page": 1,
            "questions": [{"position": 1}, {"position": 2}, {"position": 3}],
            "article": HUMAN,
        },
        "done": False,
        "progress": {"done": 0, "total": 1},
    }


# --- Sending ----------------------------------------------------------------------------------


def test_the_page_is_sent_whole_trimmed_then_the_completion_page(assignment):
    client = Client(enforce_csrf_checks=True)
    submit = url(assignment, "judgments:task-submit")
    sent = {**full(), "client_duration_ms": 90_000}
    first = post_json(client, submit, sent)
    assert first.status_code == 200
    assert first.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 1, "total": 1},
    }
    rows = list(
        Judgment.objects.order_by("slot__position").values_list(
            "slot__position", "text", "details", "yes_no", "client_duration_ms"
        )
    )
    assert rows == [
        (1, "Why did the witness call the police?", {"answer": "He was worried."}, None, 90_000),
        (2, "Where was she two months ago?", {"answer": "In a clinic in Arizona."}, None, 90_000),
        (3, NASTY, {"answer": "<b>bold</b> & more"}, None, 90_000),
    ]
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    # An identical retry (a lost response) is answered as the first; another text is a 409.
    retry = post_json(client, submit, sent)
    assert retry.json() == {**first.json(), "already_recorded": True}
    other = page(**{**{str(k): v for k, v in FULL.items()}, "3": ("Who?", "Nobody.")})
    changed = post_json(client, submit, other)
    assert (changed.status_code, changed.json()) == (
        409,
        {
            "ok": False,
            "error": "This page is already sent, and what you sent cannot be changed. The task is "
            "finished.",
            "field": "page",
        },
    )
    assert Judgment.objects.count() == 3
    assert "<h1>Thank you!</h1>" in client.get(url(assignment)).content.decode()


def test_a_retry_with_other_white_space_is_the_same_answer(assignment):
    """Texts are stored trimmed, so a retry that differs only at the ends is a retry."""
    client, submit = Client(), url(assignment, "judgments:task-submit")
    assert post_json(client, submit, full()).status_code == 200
    trimmed = page(**{str(k): (q.strip(), a.strip()) for k, (q, a) in FULL.items()})
    assert post_json(client, submit, trimmed).json()["already_recorded"] is True


EXAMPLE = QUESTIONS_EXAMPLE


def without(position, name):
    payload = full()
    del payload["questions"][str(position)][name]
    return payload


def with_item(position, value):
    payload = full()
    payload["questions"][str(position)] = value
    return payload


def with_text(position, name, value):
    payload = full()
    payload["questions"][str(position)][name] = value
    return payload


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({"page": 1}, f"questions is required, for example {EXAMPLE}.", "questions"),
        (
            {"page": 1, "questions": ["Why?"]},
            f"questions must be an object keyed by position, for example {EXAMPLE} (got a list).",
            "questions",
        ),
        (
            {"page": 1, "questions": {"01": {"question": "Why?", "answer": "So."}}},
            f'questions must be keyed by position, for example {EXAMPLE}; "01" is not a position.',
            "questions",
        ),
        (
            with_item(2, "Why?"),
            'questions: position 2 must be an object with "question" and "answer" (got the text '
            '"Why?").',
            "questions.2",
        ),
        (
            with_text(1, "sample", "x"),
            'Unknown field "sample" in questions.1: send only question, answer.',
            "questions.1",
        ),
        (
            with_text(1, "question", " \n "),
            "Question 1 is empty: write a question about the article.",
            "questions.1.question",
        ),
        (
            without(2, "question"),
            "Question 2 is empty: write a question about the article.",
            "questions.2.question",
        ),
        (
            with_text(3, "answer", ""),
            "The sample answer to question 3 is empty: write the answer to your question.",
            "questions.3.answer",
        ),
        (
            without(1, "answer"),
            "The sample answer to question 1 is empty: write the answer to your question.",
            "questions.1.answer",
        ),
        (with_text(1, "question", 5), "Question 1 must be text (got 5).", "questions.1.question"),
        (
            with_text(2, "answer", None),
            "The sample answer to question 2 must be text (got null).",
            "questions.2.answer",
        ),
        (
            with_text(1, "question", "x" * 1001),
            "Question 1 is too long: at most 1,000 characters (got 1,001).",
            "questions.1.question",
        ),
        (
            with_text(1, "answer", "He\x00 was."),
            "The sample answer to question 1 holds a character that cannot be stored (U+0000 or a "
            "lone surrogate).",
            "questions.1.answer",
        ),
        (
            with_text(2, "question", "Why \ud800?"),
            "Question 2 holds a character that cannot be stored (U+0000 or a lone surrogate).",
            "questions.2.question",
        ),
        (
            page(**{"1": ("Why?", "So."), "2": ("Where?", "There.")}),
            "Every question needs its text and a sample answer; missing: position 3.",
            "questions",
        ),
        (
            page(**{"1": ("Why?", "So.")}),
            "Every question needs its text and a sample answer; missing: positions 2, 3.",
            "questions",
        ),
        (
            with_item(4, {"question": "Who?", "answer": "She."}),
            "questions names position 4, which is not in this page; its positions are 1, 2, 3.",
            "questions",
        ),
        ({**full(), "page": 2}, 'There is no page 2 in this task: send "page": 1.', "page"),
        (
            {k: v for k, v in full().items() if k != "page"},
            "page is required: the page you send (1: the task has one page).",
            "page",
        ),
    ],
)
def test_a_bad_page_is_a_400_naming_the_box_and_stores_nothing(assignment, body, error, field):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert Judgment.objects.count() == 0
    assert Assignment.objects.get().status == AssignmentStatus.STARTED


def test_a_body_that_is_not_json_is_told_what_to_send(assignment):
    response = Client().post(
        url(assignment, "judgments:task-submit"), data="x", content_type="application/json"
    )
    assert response.json()["error"] == (
        f'The answer could not be read: send JSON such as {{"page": 1, "questions": {EXAMPLE}}}.'
    )
    assert AUTHOR_SPEC.example == f'{{"page": 1, "questions": {EXAMPLE}}}'


# --- Words, preview, the builder's HITs -------------------------------------------------------


def test_the_page_is_in_german_for_german_instructions(assignment):
    campaign = assignment.campaign
    campaign.instructions_language = "de"
    campaign.save()
    html = Client().get(url(assignment)).content.decode()
    assert 'class="task task-rc task-rc-author" lang="de"' in html
    assert '<p class="rc-stage" id="stage">Fragen schreiben</p>' in html
    assert "Gute Fragen zum Leseverständnis:" in html


def test_the_mturk_preview_shows_the_article_and_the_boxes_read_only(client, assignment):
    hit = assignment.hit
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert "Accept the HIT to start.</p>" in html
    assert re.findall(r'<p class="rc-paragraph">(.*?)</p>', html) == HUMAN
    assert re.findall(r'<label class="rc-label" for="preview-[a-z]+-\d">(.*?)</label>', html) == [
        "Question 1",
        "Sample answer to question 1",
        "Question 2",
        "Sample answer to question 2",
        "Question 3",
        "Sample answer to question 3",
    ]
    assert html.count(" disabled></textarea>") == 6
    assert "Good reading comprehension questions:" in html
    assert "<script" not in html


def test_the_preview_escapes_the_article(campaign):
    document, _ = rc_article(campaign, [("Quelle.", NASTY, "MT.")])
    hit = author_hit(campaign, document)
    page_ = task_page(HitTask.RC_AUTHOR)
    sample = page_.preview_sample(*first_unit(hit), campaign, page_.labels(campaign))
    assert sample["article"] == [NASTY]
    publish(hit, preview_params()["hitId"])
    html = Client().get(mturk_url(hit, **preview_params())).content.decode()
    assert "<script>alert" not in html
    assert (
        '<p class="rc-paragraph">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;</p>'
        in html
    )


def test_an_authoring_hit_of_the_campaigns_builder_shows_its_article():
    campaign = rc_campaign(questions_per_author=2)
    rc_article(campaign)
    build_hits(campaign)
    hit = Hit.objects.get(campaign=campaign, task=HitTask.RC_AUTHOR)
    body = Client().get(url(AssignmentFactory(hit=hit), "judgments:task-item")).json()
    assert body["next"] == {
        "page": 1,
        "questions": [{"position": 1}, {"position": 2}],
        "article": HUMAN,
    }
