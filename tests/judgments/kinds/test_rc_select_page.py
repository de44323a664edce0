"""The voting page over HTTP (issue 14 item 1, stage 2): the shell with the task and 000's
guidance, the human translation and the questions (never their sample answers) as JSON, every
vote in one POST stored as yes_no and {"redundant_with": [positions]} (other positions of the
HIT, each once, sorted), exact 400s, an idempotent retry, the MTurk preview, and the selection
HIT the stages build from submitted authoring pages."""

import re

import pytest
from django.test import Client

from campaigns.actions import build_hits
from campaigns.kinds.reading_comprehension.stages import advance
from campaigns.models import Hit, HitTask
from judgments.kinds.reading_comprehension.selection import VOTES_EXAMPLE
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory
from tests.judgments.kinds.test_rc_pages import (
    HUMAN,
    NASTY,
    QUESTIONS,
    post_json,
    rc_article,
    rc_campaign,
    select_hit,
    url,
)
from tests.judgments.test_mturk_entry import mturk_url, preview_params, publish

pytestmark = pytest.mark.django_db

TEXTS = [question for question, _ in QUESTIONS]
SAMPLES = [sample for _, sample in QUESTIONS]


@pytest.fixture
def campaign():
    return rc_campaign()


@pytest.fixture
def assignment(campaign):
    document, _ = rc_article(campaign)
    return AssignmentFactory(hit=select_hit(campaign, document))


def votes(**given):
    """A payload as rc_select.js sends it: {position: (good, [positions it repeats])}."""
    return {
        "page": 1,
        "votes": {
            str(position): {"good": good, "redundant_with": repeats}
            for position, (good, repeats) in given.items()
        },
    }


def all_votes(**changed):
    given = {"1": (True, []), "2": (False, [3, 1]), "3": (True, [])}
    given.update(changed)
    return votes(**given)


def test_the_page_is_a_shell_with_the_task_and_000s_guidance(assignment):
    response = Client(enforce_csrf_checks=True).get(url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}
    scripts = re.findall(r'<script src="([^"]+)" defer></script>', html)
    assert scripts == [
        "/static/js/rc_common.js",
        "/static/js/task-common.js",
        "/static/js/rc_select.js",
    ]
    assert 'class="task task-rc task-rc-select" lang="en"' in html
    assert '<p class="rc-stage" id="stage">Voting on questions</p>' in html
    assert (
        '<p class="prompt rc-prompt" id="prompt">Please read the article below, then the '
        "questions that were written about it. Say whether each one is a good reading "
        "comprehension question, and mark the other questions it asks the same thing as.</p>"
    ) in html
    assert len(re.findall(r"<li>(.*?)</li>", html)) == 5
    assert (
        '<p class="rc-keys" id="keys">Keyboard: Y (yes) or N (no) says whether the question in '
        "focus is good and moves on to the next question; a number key marks the question in "
        "focus as asking the same thing as that question, and unmarks it when pressed again; Tab "
        "moves between the choices; Enter sends your votes once every question has one.</p>"
    ) in html
    assert 'data-label-good-question="Is this a good question?"' in html
    assert 'data-label-same-as="It asks the same thing as:"' in html
    assert 'data-label-progress="{done} of {total} questions voted on"' in html
    assert ">Send your votes" in html
    for text in [*TEXTS, *SAMPLES, "actress"]:
        assert text not in html


def test_the_item_endpoint_sends_the_questions_and_never_their_sample_answers(assignment):
    body = Client().get(url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {
            "page": 1,
            "questions": [{"position": n, "text": text} for n, text in enumerate(TEXTS, start=1)],
            "article": HUMAN,
        },
        "done": False,
        "progress": {"done": 0, "total": 1},
    }


def test_the_votes_are_stored_per_question_sorted_then_the_completion_page(assignment):
    client = Client()
    submit = url(assignment, "judgments:task-submit")
    first = post_json(client, submit, all_votes())
    assert first.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 1, "total": 1},
    }
    rows = list(
        Judgment.objects.filter(slot__hit=assignment.hit)
        .order_by("slot__position")
        .values_list("slot__position", "yes_no", "details", "text")
    )
    assert rows == [
        (1, True, {"redundant_with": []}, ""),
        (2, False, {"redundant_with": [1, 3]}, ""),
        (3, True, {"redundant_with": []}, ""),
    ]
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.SUBMITTED
    # The same votes again, in another order: a retry. Another vote: a 409.
    retry = post_json(client, submit, all_votes(**{"2": (False, [1, 3])}))
    assert retry.json() == {**first.json(), "already_recorded": True}
    changed = post_json(client, submit, all_votes(**{"3": (False, [])}))
    assert changed.status_code == 409
    assert Judgment.objects.filter(slot__hit=assignment.hit).count() == 3


def with_vote(position, value):
    payload = all_votes()
    payload["votes"][str(position)] = value
    return payload


def with_field(position, name, value):
    payload = all_votes()
    payload["votes"][str(position)][name] = value
    return payload


def without(position, name):
    payload = all_votes()
    del payload["votes"][str(position)][name]
    return payload


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({"page": 1}, f"votes is required, for example {VOTES_EXAMPLE}.", "votes"),
        (
            {"page": 1, "votes": [True, False, True]},
            f"votes must be an object keyed by position, for example {VOTES_EXAMPLE} (got a list).",
            "votes",
        ),
        (
            with_vote(1, True),
            'votes: position 1 must be an object with "good" and "redundant_with" (got '
            "true/false).",
            "votes.1",
        ),
        (
            with_field(1, "same", [2]),
            'Unknown field "same" in votes.1: send only good, redundant_with.',
            "votes.1",
        ),
        (
            without(2, "good"),
            'Question 2 needs "good": true (a good question) or false (got null).',
            "votes.2.good",
        ),
        (
            with_field(1, "good", "yes"),
            'Question 1 needs "good": true (a good question) or false (got the text "yes").',
            "votes.1.good",
        ),
        (
            without(3, "redundant_with"),
            'Question 3 needs "redundant_with": the list of the positions of the other questions '
            "it repeats, [] for none (got null).",
            "votes.3.redundant_with",
        ),
        (
            with_field(1, "redundant_with", 2),
            'Question 1 needs "redundant_with": the list of the positions of the other questions '
            "it repeats, [] for none (got 2).",
            "votes.1.redundant_with",
        ),
        (
            with_field(1, "redundant_with", ["2"]),
            'redundant_with of question 1 holds the text "2", which is not a position.',
            "votes.1.redundant_with",
        ),
        (
            with_field(1, "redundant_with", [True]),
            "redundant_with of question 1 holds true/false, which is not a position.",
            "votes.1.redundant_with",
        ),
        (
            with_field(1, "redundant_with", [2.0]),
            "redundant_with of question 1 holds 2.0, which is not a position.",
            "votes.1.redundant_with",
        ),
        (
            with_field(2, "redundant_with", [1, 2]),
            "Question 2 cannot repeat itself: leave 2 out of its redundant_with.",
            "votes.2.redundant_with",
        ),
        (
            with_field(1, "redundant_with", [3, 2, 3]),
            "redundant_with of question 1 names 3 twice; name each question once.",
            "votes.1.redundant_with",
        ),
        (
            with_field(1, "redundant_with", [2, 4]),
            "Question 1 cannot repeat question 4: this page's questions are at positions 1, 2, 3.",
            "votes.1.redundant_with",
        ),
        (
            with_field(3, "redundant_with", [0]),
            "Question 3 cannot repeat question 0: this page's questions are at positions 1, 2, 3.",
            "votes.3.redundant_with",
        ),
        (
            votes(**{"1": (True, []), "2": (True, [])}),
            "Every question needs a vote; missing: position 3.",
            "votes",
        ),
        (
            with_vote(4, {"good": True, "redundant_with": []}),
            "votes names position 4, which is not in this page; its positions are 1, 2, 3.",
            "votes",
        ),
    ],
)
def test_a_bad_vote_is_a_400_naming_the_question_and_stores_nothing(assignment, body, error, field):
    response = post_json(Client(), url(assignment, "judgments:task-submit"), body)
    assert (response.status_code, response.json()) == (
        400,
        {"ok": False, "error": error, "field": field},
    )
    assert not Judgment.objects.filter(slot__hit=assignment.hit).exists()
    assert Assignment.objects.get(pk=assignment.pk).status == AssignmentStatus.STARTED


def test_a_single_question_repeats_nothing(campaign):
    document, _ = rc_article(campaign)
    hit = select_hit(campaign, document, QUESTIONS[:1])
    assignment = AssignmentFactory(hit=hit)
    submit = url(assignment, "judgments:task-submit")
    refused = post_json(Client(), submit, votes(**{"1": (True, [2])}))
    assert refused.json()["error"] == (
        "Question 1 cannot repeat question 2: this page's questions are at positions 1."
    )
    assert post_json(Client(), submit, votes(**{"1": (False, [])})).status_code == 200


def test_the_mturk_preview_shows_the_questions_and_their_choices_read_only(client, campaign):
    document, _ = rc_article(campaign)
    hit = select_hit(campaign, document, [(NASTY, "Secret sample.")] + QUESTIONS[1:])
    publish(hit, preview_params()["hitId"])
    html = client.get(mturk_url(hit, **preview_params())).content.decode()
    assert re.findall(r'<p class="rc-paragraph">(.*?)</p>', html) == HUMAN
    assert re.findall(r'<h3 class="rc-item-title">(.*?)</h3>', html) == [
        "Question 1",
        "Question 2",
        "Question 3",
    ]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;</p>" in html
    assert re.findall(r"<span>(Question \d)</span>", html) == [
        "Question 2",
        "Question 3",
        "Question 1",
        "Question 3",
        "Question 1",
        "Question 2",
    ]
    assert "Secret sample." not in html and "<script" not in html


def test_the_selection_hit_the_stages_build_from_submitted_questions():
    """Authors write through the page; the stages build the voting HIT from their judgments;
    the page shows each question as written (trimmed), in the order the authors sent them."""
    campaign = rc_campaign(authors_per_article=2, questions_per_author=2)
    rc_article(campaign)
    build_hits(campaign)
    author = Hit.objects.get(campaign=campaign, task=HitTask.RC_AUTHOR)
    for n in (1, 2):
        written = {
            "page": 1,
            "questions": {
                str(p): {"question": f" Why {n}.{p}? ", "answer": f"Because {n}.{p}."}
                for p in (1, 2)
            },
        }
        sent = post_json(
            Client(), url(AssignmentFactory(hit=author), "judgments:task-submit"), written
        )
        assert sent.json()["done"] is True
    assert advance(campaign) == [
        "article-1: 4 question(s) written; selection HIT 2 built (4 question(s))"
    ]
    hit = Hit.objects.get(campaign=campaign, task=HitTask.RC_SELECT)
    body = Client().get(url(AssignmentFactory(hit=hit), "judgments:task-item")).json()
    assert body["next"] == {
        "page": 1,
        "questions": [
            {"position": 1, "text": "Why 1.1?"},
            {"position": 2, "text": "Why 1.2?"},
            {"position": 3, "text": "Why 2.1?"},
            {"position": 4, "text": "Why 2.2?"},
        ],
        "article": HUMAN,
    }
