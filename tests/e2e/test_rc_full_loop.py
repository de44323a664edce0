"""One reading-comprehension article through all four stages in Chromium (issue 14 item 6):
scripted workers, each in a browser context of their own and by keyboard alone, write the
questions (two authors), vote on them (two voters), answer them on the translation the
hand-out draws (five readers: two on each system, one on the human translation) and grade
the answers (two graders); after each stage the article moves on by itself. Then the
requester's admin page shows the article done, the questions kept and dropped, and the score
table cell by cell as worked by hand.

Statistics run live: without a broker (the test setting) each submission recomputes the
campaign inline after its commit, and the recompute (stages.advance first) builds the next
stage's HITs. The hand-out draws the HIT (and so the translation) at random among the
fewest-live ones: each worker's HIT is read from the database, and what they write follows
the shared tables by that HIT and their turn on it, so the figures do not depend on the draw.

The campaign (article d1 of it) and the hand-worked numbers are those of
tests/integration/test_rc_pipeline.py (READINGS there has the answers and grades):

    d1          Q1        Q2        sum
    A 1st       YY 1      YN 1/2    3/2
    A 2nd       YY 1      NN 0      1
    B 1st       YN 1/2    NN 0      1/2
    B 2nd       NN 0      NN 0      0
    human       YY 1      YY 1      2

Share correct: the human translation 2/2 = 100%, A 5/2 of 4 = 62.5%, B 1/2 of 4 = 12.5%; one
tie each for A and B. One article: every bootstrap draw is that article, so each interval is
its point; no pair differs at 0.05 (exact permutation tests over the article's readings: A
over B p = 1/6, the human translation over either 1/3), so one cluster and ranks 1-3.
Graders agree on 8 of 10 answers and half the marks are Y: kappa (0.8 - 0.5) / 0.5 = 0.6.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import expect

from campaigns.kinds.reading_comprehension.models import RCArticle, RCQuestion, RCStage
from campaigns.models import Hit, HitTask
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.e2e.conftest import DEFAULT_TIMEOUT_MS
from tests.integration.test_rc_pipeline import (
    ARTICLE_SHARES,
    ARTICLES,
    BALLOTS,
    HUMAN,
    OUTCOMES,
    QUESTIONS,
    READINGS,
    SYSTEMS,
    answered_questions,
    build_rc_campaign,
    judgments_per_article,
    marks_of_answers,
    reading_of,
    turn,
)

pytestmark = pytest.mark.e2e

ARTICLE = "d1"
# Which column of ARTICLES each translation is.
TRANSLATION = {HUMAN: 1, "A": 2, "B": 3}
REFERENCE_ROW = "Reference (human translation) (control)"


def assignment_of(page) -> Assignment:
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    assignment_id = tokens.read_assignment_token(token).assignment_id
    return Assignment.objects.select_related("hit__document", "hit__system").get(pk=assignment_id)


@contextmanager
def worker_page(browser, live_server, campaign, task: str) -> Iterator:
    """A new visitor (own browser context, so own session) on a started task of ``task``."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(f"/work/{campaign.pk}/")
        page.get_by_role("button", name="Start").click()
        page.wait_for_url("**/work/a/*/")
        # The page fetches its article: the database is read once it is in (SQLite's shared
        # in-memory test database refuses a read while the server writes).
        expect(paragraphs(page).first).to_be_visible()
        assignment = assignment_of(page)
        assert assignment.hit.task == task
        yield page, assignment
        expect(page.locator("h1")).to_have_text("Thank you!")
        assignment.refresh_from_db()
        assert assignment.status == AssignmentStatus.SUBMITTED
    finally:
        context.close()


def paragraphs(page):
    """The article's paragraphs (the pages fetch them: expect() waits for them)."""
    return page.locator("#article .rc-paragraph")


def translation(label: str) -> list[str]:
    return [sentence[TRANSLATION[label]] for sentence in ARTICLES[ARTICLE]]


def stage(campaign) -> str:
    return RCArticle.objects.get(campaign=campaign).stage


def write_in_browser(page, assignment) -> None:
    """An author types each question, Enter, its sample answer, Enter; then Enter sends."""
    written = QUESTIONS[ARTICLE][turn(assignment) - 1]
    expect(page.locator("#stage")).to_have_text("Writing questions")
    expect(paragraphs(page)).to_have_text(translation(HUMAN))
    for position, (question, sample) in enumerate(written, start=1):
        expect(page.locator(f"#question-{position}")).to_be_focused()
        page.keyboard.type(question)
        page.keyboard.press("Enter")
        expect(page.locator(f"#answer-{position}")).to_be_focused()
        page.keyboard.type(sample)
        page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("2 of 2 questions written")
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("Enter")


def vote_in_browser(page, assignment) -> None:
    """A voter marks the questions each one repeats by their numbers, then Y or N (which
    moves on); Enter sends."""
    ballot = BALLOTS[ARTICLE][turn(assignment) - 1]
    expect(page.locator("#stage")).to_have_text("Voting on questions")
    shown = [QUESTIONS[ARTICLE][(n - 1) // 2][(n - 1) % 2][0] for n in ballot]
    expect(page.locator(".rc-question-text")).to_have_text(shown)
    for number, (good, repeats) in ballot.items():
        item = page.locator(f"#item-{number}")
        expect(item.get_by_label("Yes")).to_be_focused()
        for other in repeats:
            page.keyboard.press(str(other))
            expect(item.get_by_label(f"Question {other}")).to_be_checked()
        page.keyboard.press("y" if good else "n")
        expect(item.get_by_label("Yes" if good else "No")).to_be_checked()
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("Enter")


def answer_in_browser(page, assignment) -> None:
    """A reader reads the translation drawn for them and answers, Enter between the boxes,
    Ctrl+Enter to send."""
    reading = reading_of(assignment)
    expect(page.locator("#stage")).to_have_text("Answering questions")
    # The translation drawn for the reader (never named on the page).
    expect(paragraphs(page)).to_have_text(translation(reading[1]))
    asked = answered_questions(assignment.hit)
    for position, number in asked.items():
        box = page.locator(f"#answer-{position}")
        expect(box).to_be_focused()
        page.keyboard.type(READINGS[reading][number][0])
        page.keyboard.press("Control+Enter" if position == len(asked) else "Enter")


def grade_in_browser(page, assignment, grader: int, marks: dict[int, str]) -> None:
    """A grader sees one question at a time with its sample answer and answers; C or N per
    answer (each moves on), Enter goes to the next question and finally sends."""
    slots = list(
        assignment.hit.slots.order_by("position").values_list(
            "position", "group", "shown_text", "about_judgment_id"
        )
    )
    questions = {
        q.number: q for q in RCQuestion.objects.filter(document_id=assignment.hit.document_id)
    }
    groups = list(dict.fromkeys(group for _, group, _, _ in slots))
    expect(page.locator("#stage")).to_have_text("Grading answers")
    expect(paragraphs(page)).to_have_text(translation(HUMAN))
    for index, number in enumerate(groups, start=1):
        expect(page.locator("#progress-text")).to_have_text(f"Question {index} of 2")
        expect(page.locator("#question-text")).to_have_text(questions[number].text)
        expect(page.locator("#sample-answer")).to_have_text(questions[number].sample_answer)
        for position, group, text, answer in slots:
            if group != number:
                continue
            box = page.locator(f"#answer-{position}")
            expect(box.locator(".rc-answer-text")).to_have_text(text)
            expect(box.get_by_label("Correct", exact=True)).to_be_focused()
            page.keyboard.press("c" if marks[answer][grader] == "Y" else "n")
        expect(page.locator("#next")).to_be_focused()
        page.keyboard.press("Enter")


def cells(row) -> list[str]:
    return [" ".join(text.split()) for text in row.locator("td").all_inner_texts()]


def table(page, table_id: str) -> list[list[str]]:
    return [cells(row) for row in page.locator(f"#{table_id} tbody tr").all()]


def share(label: str) -> str:
    correct, answers, _ = ARTICLE_SHARES[(ARTICLE, label)]
    return f"{100 * float(correct / answers):.1f}%"


def test_one_article_through_the_four_stages_then_the_score_table(browser, live_server, admin_page):
    campaign = build_rc_campaign((ARTICLE,))
    assert stage(campaign) == RCStage.AUTHORING

    # 1. Two authors, one after the other (the first's questions are 1-2, the second's 3-4).
    for _ in range(2):
        with worker_page(browser, live_server, campaign, HitTask.RC_AUTHOR) as (page, assignment):
            write_in_browser(page, assignment)
    # The selection HIT was built by the second author's submission.
    assert stage(campaign) == RCStage.SELECTION
    select = Hit.objects.get(campaign=campaign, task=HitTask.RC_SELECT)
    assert list(select.slots.order_by("position").values_list("shown_text", flat=True)) == [
        question for pair in QUESTIONS[ARTICLE] for question, _ in pair
    ]

    # 2. Two voters.
    for _ in range(2):
        with worker_page(browser, live_server, campaign, HitTask.RC_SELECT) as (page, assignment):
            vote_in_browser(page, assignment)
    assert stage(campaign) == RCStage.ANSWERING
    outcomes = {
        (ARTICLE, q.number): (
            q.status,
            q.good_votes,
            q.redundant_with.number if q.redundant_with else None,
        )
        for q in RCQuestion.objects.filter(campaign=campaign).select_related("redundant_with")
    }
    assert outcomes == {key: value for key, value in OUTCOMES.items() if key[0] == ARTICLE}

    # 3. Five readers; the hand-out draws each one's translation.
    readings = []
    for _ in range(5):
        with worker_page(browser, live_server, campaign, HitTask.RC_ANSWER) as (page, assignment):
            readings.append(reading_of(assignment))
            answer_in_browser(page, assignment)
    assert sorted(readings) == sorted(key for key in READINGS if key[0] == ARTICLE)
    assert stage(campaign) == RCStage.GRADING

    # 4. Two graders.
    marks = marks_of_answers(campaign)
    assert len(marks) == 10
    for grader in (0, 1):
        with worker_page(browser, live_server, campaign, HitTask.RC_GRADE) as (page, assignment):
            grade_in_browser(page, assignment, grader, marks)
    assert stage(campaign) == RCStage.DONE
    n_judgments = judgments_per_article()
    assert Judgment.objects.filter(campaign=campaign).count() == n_judgments == 42

    # The requester's page.
    page = admin_page
    page.goto(f"/admin/campaigns/campaign/{campaign.pk}/change/")
    panel = page.locator("#reading-comprehension-results")
    expect(panel).to_be_visible()
    expect(panel.locator(".rc-reflects")).to_have_text(f"{n_judgments} of {n_judgments}")
    expect(panel.locator(".rc-progress-text")).to_have_text(
        "1 of 1 articles through all four stages (100.0%)"
    )
    expect(panel.locator(".pending")).to_have_count(0)
    assert table(page, "rc-articles") == [[ARTICLE, "Done", "–", "–", "2 kept of 4"]]

    # The score table: the human translation first, then by share.
    expect(page.locator("#rc-variant")).to_have_text("Systems: every question")
    assert table(page, "rc-systems") == [
        [
            "1–3",
            REFERENCE_ROW if label == HUMAN else label,
            share(label),
            f"{share(label)[:-1]}–{share(label)}",  # one article: the interval is the point
            share(label),  # two answers per question and system: the question mean is the share
            f"{float(ARTICLE_SHARES[(ARTICLE, label)][0]):g}",
            str(ARTICLE_SHARES[(ARTICLE, label)][1]),
            str(ARTICLE_SHARES[(ARTICLE, label)][2]),
            "1" if label == HUMAN else "2",
            "1",
        ]
        for label in (HUMAN, *SYSTEMS)
    ]
    # That is, worked by hand:
    assert [row[2] for row in table(page, "rc-systems")] == ["100.0%", "62.5%", "12.5%"]
    assert table(page, "rc-article-shares") == [
        [ARTICLE, "100.0% (2/2)", "62.5% (2.5/4)", "12.5% (0.5/4)"]
    ]

    # The questions: two kept, one dropped as a repeat of Q1, one by votes; per question the
    # share on the human translation (its difficulty), on MT, and per translation.
    assert table(page, "rc-questions") == [
        [
            "d1", "1", "Who was arrested?", "Heather Locklear", "Kept", "2 of 2 good", "5",
            "1", "100.0% (1)", "62.5%", "", "100.0% (1/1)", "100.0% (2/2)", "25.0% (0.5/2)",
        ],
        [
            "d1", "2", "Why did the witness call the police?", "She was driving erratically",
            "Kept", "2 of 2 good", "5", "1", "100.0% (1)", "12.5%", "", "100.0% (1/1)",
            "25.0% (0.5/2)", "0.0% (0/2)",
        ],
        [
            "d1", "3", "Which actress did the police arrest?", "Heather Locklear",
            "Dropped: repeats a kept question", "2 of 2 good", "0", "0", "–", "–", "", "–",
            "–", "–",
        ],
        [
            "d1", "4", "What colour was her car?", "Red", "Dropped: too few good votes",
            "1 of 2 good", "0", "0", "–", "–", "", "–", "–", "–",
        ],
    ]  # fmt: skip
    expect(page.locator("#rc-agreement .kappa")).to_have_text("0.600")
    expect(page.locator("#rc-agreement .ties")).to_have_text("2")
    expect(page.locator("#rc-agreement")).to_contain_text(
        "over the 10 answers graded by 2 graders (observed agreement 0.800, by chance 0.500)"
    )
