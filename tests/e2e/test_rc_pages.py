"""The reading-comprehension pages in Chromium (issue 14 items 1 and 5): each of the four pages
completed by keyboard alone, with a reload on the way that finds the work where it was left;
each page at 360 px (no horizontal scroll, 44-px targets, no Content-Security-Policy
violation) completed by tapping; "<script>" in an article and in a worker's question or answer
shown as text; a page that cannot be sent is kept."""

import pytest
from playwright.sync_api import expect

from campaigns.models import HitTask
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.e2e.test_csp import record_violations
from tests.judgments.kinds.test_rc_pages import (
    ARTICLE,
    HUMAN,
    MACHINE,
    QUESTIONS,
    answer_hit,
    author_hit,
    grade_hit,
    rc_article,
    rc_campaign,
    select_hit,
)

pytestmark = pytest.mark.e2e

NASTY = '<script>alert(1)</script> & "x" <b>bold</b>'
LONG_WORD = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt" * 2


def start(page, campaign):
    """Start as a new worker through the campaign's entry page; return the task's URL."""
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    return page.url


def watch_dialogs(page):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    return dialogs


def paragraphs(page):
    return page.locator("#article .rc-paragraph").all_text_contents()


def judgments(task, *fields):
    return list(
        Judgment.objects.filter(slot__hit__task=task)
        .order_by("slot__position")
        .values_list(*fields)
    )


# --- Writing questions ------------------------------------------------------------------------


def test_an_author_writes_by_keyboard_and_a_reload_keeps_the_boxes(page, transactional_db):
    campaign = rc_campaign()
    document, _ = rc_article(campaign, [*ARTICLE[:2], ("Quelle.", NASTY, "MT.")])
    author_hit(campaign, document)
    dialogs = watch_dialogs(page)
    task_url = start(page, campaign)

    expect(page.locator("#stage")).to_have_text("Writing questions")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 questions written")
    expect(page.locator("#keys")).to_contain_text("Enter goes on to the next box")
    expect(page.locator("#article .rc-paragraph")).to_have_count(3)
    assert paragraphs(page) == [*HUMAN[:2], NASTY]
    assert page.locator("#article script, #article b").count() == 0
    assert page.locator("#article").get_attribute("lang") == "en"
    # The page opens at the article; the first box waits for typing.
    expect(page.locator("#question-1")).to_be_focused()
    assert page.evaluate("window.scrollY") == 0

    page.keyboard.type("Why did the witness call the police?")
    page.keyboard.press("Enter")  # no line break: on to the sample answer
    expect(page.locator("#answer-1")).to_be_focused()
    expect(page.locator("#question-1")).to_have_value("Why did the witness call the police?")
    page.keyboard.type("He was worried.")
    expect(page.locator("#progress-text")).to_have_text("1 of 3 questions written")
    page.keyboard.press("Enter")
    page.keyboard.type(NASTY)
    page.keyboard.press("Tab")
    expect(page.locator("#answer-2")).to_be_focused()
    page.keyboard.type("  A clinic.  ")

    # A reload keeps the boxes and their progress.
    page.reload()
    expect(page.locator("#question-2")).to_have_value(NASTY)
    expect(page.locator("#answer-2")).to_have_value("  A clinic.  ")
    expect(page.locator("#progress-text")).to_have_text("2 of 3 questions written")
    expect(page.locator("#question-3")).to_be_focused()
    assert Judgment.objects.count() == 0

    # Ctrl+Enter with a box empty: nothing is sent, the box says what to write.
    page.keyboard.type("When was she arrested?")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#message-questions-3-answer")).to_have_text(
        "Write a sample answer to question 3."
    )
    expect(page.locator("#answer-3")).to_be_focused()
    page.keyboard.type("At the weekend.")
    expect(page.locator("#message-questions-3-answer")).to_be_hidden()
    page.keyboard.press("Enter")
    expect(page.locator("#next")).to_be_focused()
    expect(page.locator("#next")).to_have_text("Send your questions")
    page.keyboard.press("Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assert judgments(HitTask.RC_AUTHOR, "text", "details") == [
        ("Why did the witness call the police?", {"answer": "He was worried."}),
        (NASTY, {"answer": "A clinic."}),
        ("When was she arrested?", {"answer": "At the weekend."}),
    ]
    assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED
    # The draft went with the page: nothing is left in the tab's storage.
    assert page.evaluate("window.sessionStorage.length") == 0


def test_a_page_that_cannot_be_sent_is_kept(page, transactional_db):
    campaign = rc_campaign(questions_per_author=1)
    document, _ = rc_article(campaign)
    author_hit(campaign, document, 1)
    start(page, campaign)
    page.route("**/submit", lambda route: route.abort())
    expect(page.locator("#question-1")).to_be_focused()
    page.keyboard.type("Why?")
    page.keyboard.press("Enter")
    page.keyboard.type("Because.")
    page.keyboard.press("Control+Enter")
    expect(page.locator("#error")).to_have_text(
        "What you wrote could not be sent (no connection?). It is kept: press the button again to "
        "retry."
    )
    expect(page.locator("#question-1")).to_have_value("Why?")
    page.unroute("**/submit")
    page.locator("#next").click()
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert judgments(HitTask.RC_AUTHOR, "text") == [("Why?",)]


# --- Voting -----------------------------------------------------------------------------------


def test_a_voter_votes_by_keyboard_and_a_reload_keeps_the_choices(page, transactional_db):
    campaign = rc_campaign()
    document, _ = rc_article(campaign)
    select_hit(campaign, document, [QUESTIONS[0], (NASTY, "Secret."), QUESTIONS[2]])
    dialogs = watch_dialogs(page)
    task_url = start(page, campaign)

    expect(page.locator("#stage")).to_have_text("Voting on questions")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 questions voted on")
    expect(page.locator(".rc-item")).to_have_count(3)
    texts = page.locator(".rc-question-text").all_text_contents()
    assert texts == [QUESTIONS[0][0], NASTY, QUESTIONS[2][0]]
    assert page.locator("#questions script, #questions b").count() == 0
    assert paragraphs(page) == HUMAN
    assert "Secret." not in page.content()
    first = page.locator("#item-1")
    expect(first.get_by_label("Yes")).to_be_focused()
    # Question 1 has a checkbox for each other question, not for itself.
    expect(first.locator(".rc-check")).to_have_text(["Question 2", "Question 3"])

    page.keyboard.press("Enter")  # nothing answered: nothing sent, the question says why
    expect(first.locator(".rc-box-message")).to_have_text(
        "Say whether each question is good before you send."
    )
    page.keyboard.press("y")
    expect(first.get_by_label("Yes")).to_be_checked()
    second = page.locator("#item-2")
    expect(second.get_by_label("Yes")).to_be_focused()
    # Question 2 asks the same thing as questions 1 and 3; then 3 again unmarks it.
    page.keyboard.press("1")
    page.keyboard.press("3")
    page.keyboard.press("3")
    expect(second.get_by_label("Question 1")).to_be_checked()
    expect(second.get_by_label("Question 3")).not_to_be_checked()
    page.keyboard.press("2")  # itself: nothing
    page.keyboard.press("n")
    expect(second.get_by_label("No")).to_be_checked()
    expect(page.locator("#progress-text")).to_have_text("2 of 3 questions voted on")

    page.reload()
    expect(page.locator("#item-1").get_by_label("Yes")).to_be_checked()
    expect(page.locator("#item-2").get_by_label("No")).to_be_checked()
    expect(page.locator("#item-2").get_by_label("Question 1")).to_be_checked()
    expect(page.locator("#progress-text")).to_have_text("2 of 3 questions voted on")
    third = page.locator("#item-3")
    expect(third.get_by_label("Yes")).to_be_focused()
    page.keyboard.press("2")
    page.keyboard.press("y")
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assert judgments(HitTask.RC_SELECT, "yes_no", "details") == [
        (True, {"redundant_with": []}),
        (False, {"redundant_with": [1]}),
        (True, {"redundant_with": [2]}),
    ]


# --- Answering --------------------------------------------------------------------------------


def test_a_reader_answers_by_keyboard_and_a_reload_keeps_the_answers(page, transactional_db):
    campaign = rc_campaign()
    document, systems = rc_article(campaign, [*ARTICLE[:2], ("Quelle.", "Human.", NASTY)])
    answer_hit(campaign, document, systems[0])
    dialogs = watch_dialogs(page)
    task_url = start(page, campaign)

    expect(page.locator("#stage")).to_have_text("Answering questions")
    expect(page.locator("#progress-text")).to_have_text("0 of 3 questions answered")
    expect(page.locator("#prompt")).to_contain_text(
        "automatically translated from German into English"
    )
    assert paragraphs(page) == [*MACHINE[:2], NASTY]
    assert page.locator("#article script, #article b").count() == 0
    assert page.locator(".rc-question-text").all_text_contents() == [q for q, _ in QUESTIONS]
    for _, sample in QUESTIONS:
        assert sample not in page.content()
    expect(page.locator("#answer-1")).to_be_focused()
    page.keyboard.type("He was worried.")
    page.keyboard.press("Enter")
    expect(page.locator("#answer-2")).to_be_focused()
    page.keyboard.type(NASTY)
    page.reload()
    expect(page.locator("#answer-1")).to_have_value("He was worried.")
    expect(page.locator("#answer-2")).to_have_value(NASTY)
    expect(page.locator("#answer-3")).to_be_focused()
    page.keyboard.press("Control+Enter")
    expect(page.locator("#message-answers-3")).to_have_text("Answer question 3: a guess is fine.")
    page.keyboard.type("At the weekend.")
    page.keyboard.press("Control+Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assert judgments(HitTask.RC_ANSWER, "text") == [
        ("He was worried.",),
        (NASTY,),
        ("At the weekend.",),
    ]


# --- Grading ----------------------------------------------------------------------------------


def test_a_grader_grades_by_keyboard_and_a_reload_resumes(page, transactional_db):
    campaign = rc_campaign()
    document, systems = rc_article(campaign)
    grade_hit(
        campaign,
        document,
        [["He was worried.", NASTY], ["Arizona.", "Texas.", "A clinic."]],
        system=systems[0],
    )
    dialogs = watch_dialogs(page)
    task_url = start(page, campaign)

    expect(page.locator("#stage")).to_have_text("Grading answers")
    expect(page.locator("#progress-text")).to_have_text("Question 1 of 2")
    expect(page.locator("#question-heading")).to_have_text("Question 1 of 2")
    expect(page.locator("#question-text")).to_have_text(QUESTIONS[0][0])
    expect(page.locator("#sample-answer")).to_have_text(QUESTIONS[0][1])
    assert paragraphs(page) == HUMAN
    answers = page.locator(".rc-answer-text")
    assert answers.all_text_contents() == ["He was worried.", NASTY]
    assert page.locator("#answers script, #answers b").count() == 0
    expect(page.locator("#answer-1").get_by_label("Correct", exact=True)).to_be_focused()
    expect(page.locator("#next")).to_be_disabled()
    expect(page.locator("#next")).to_have_text("Next question")

    page.keyboard.press("c")
    expect(page.locator("#answer-2").get_by_label("Correct", exact=True)).to_be_focused()
    page.keyboard.press("n")
    expect(page.locator("#answer-2").get_by_label("Not correct")).to_be_checked()
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.locator("#progress-text")).to_have_text("Question 2 of 2")
    expect(page.locator("#question-text")).to_have_text(QUESTIONS[1][0])
    expect(page.locator("#next")).to_have_text("Send your grades")
    page.keyboard.press("c")
    page.keyboard.press("n")
    page.reload()
    # Question 1 is sent; question 2 comes back with the grades given so far.
    expect(page.locator("#progress-text")).to_have_text("Question 2 of 2")
    expect(page.locator("#answer-3").get_by_label("Correct", exact=True)).to_be_checked()
    expect(page.locator("#answer-4").get_by_label("Not correct")).to_be_checked()
    expect(page.locator("#answer-5").get_by_label("Correct", exact=True)).to_be_focused()
    # An arrow key changes a grade.
    page.locator("#answer-4").get_by_label("Not correct").focus()
    page.keyboard.press("ArrowUp")
    expect(page.locator("#answer-4").get_by_label("Correct", exact=True)).to_be_checked()
    page.locator("#answer-5").get_by_label("Correct", exact=True).focus()
    page.keyboard.press("c")
    page.keyboard.press("Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assert judgments(HitTask.RC_GRADE, "yes_no") == [
        (True,),
        (False,),
        (True,),
        (True,),
        (True,),
    ]


# --- A phone ----------------------------------------------------------------------------------


def phone(browser, live_server):
    return browser.new_context(
        base_url=live_server.url,
        viewport={"width": 360, "height": 640},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )


def fits(page):
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for target in page.locator(".rc-choice, .rc-check, #next, .rc-box").all():
        box = target.bounding_box()
        assert box["height"] >= 44 and box["x"] >= 0 and box["x"] + box["width"] <= 360, box


@pytest.mark.parametrize("task", ["author", "select", "answer", "grade"])
def test_each_page_fits_a_phone_and_works_by_tapping(browser, live_server, transactional_db, task):
    campaign = rc_campaign(
        title=LONG_WORD[:128],
        instructions="Read carefully. " + LONG_WORD,
        questions_per_author=1,
    )
    document, systems = rc_article(campaign, [("Lang.", LONG_WORD, LONG_WORD), *ARTICLE[1:]])
    if task == "author":
        author_hit(campaign, document, 1)
    elif task == "select":
        select_hit(campaign, document, [(LONG_WORD, "x"), QUESTIONS[1]])
    elif task == "answer":
        answer_hit(campaign, document, systems[0])
    else:
        grade_hit(campaign, document, [[LONG_WORD, "Short."]], system=systems[0])
    context = phone(browser, live_server)
    try:
        page = context.new_page()
        violations = record_violations(page)
        page.goto(f"/work/{campaign.pk}/")
        page.get_by_role("button", name="Start").tap()
        page.wait_for_url("**/work/a/*/")
        expect(page.locator("#article .rc-paragraph").first).to_have_text(LONG_WORD)
        fits(page)
        if task == "author":
            page.locator("#question-1").tap()
            page.keyboard.type("Why?")
            page.locator("#answer-1").tap()
            page.keyboard.type("Because.")
        elif task == "select":
            page.locator("#item-1").get_by_text("Yes").tap()
            page.locator("#item-1").get_by_text("Question 2").tap()
            page.locator("#item-2").get_by_text("No").tap()
        elif task == "answer":
            for n in (1, 2, 3):
                page.locator(f"#answer-{n}").tap()
                page.keyboard.type(f"Answer {n}.")
        else:
            page.locator("#answer-1").get_by_text("Correct", exact=True).tap()
            page.locator("#answer-2").get_by_text("Not correct").tap()
        fits(page)
        page.locator("#next").tap()
        expect(page.locator("h1")).to_have_text("Thank you!")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        # The pages' scripts and stylesheet run under the Content-Security-Policy.
        assert violations == []
    finally:
        context.close()
    assert Assignment.objects.get(hit__task=f"rc_{task}").status == AssignmentStatus.SUBMITTED
