"""Issue 17 (rough edge): an automated accessibility check on every worker page of every kind.

axe-core (vendored for the tests only: tests/e2e/vendor/axe-core, never served to workers) runs
in Chromium on the entry page, the background form, each kind's task pages (direct assessment,
ranking, post-editing and its verification, the four reading-comprehension stages,
translation, Detect-MT) and the completion page, each once its script has shown the first item;
no violation of serious or critical impact may remain. The focus ring and the slider's words
are checked by hand too: axe does not look at focus styles.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import AssessmentMode
from judgments.entry.pages import task_url
from judgments.models import AssignmentStatus
from tests.e2e.test_da_page import build_da_hit
from tests.factories import AssignmentFactory, CampaignFactory
from tests.judgments.kinds.test_detect_mt_page import build_detect_hit
from tests.judgments.kinds.test_post_editing_page import build_edit_hit, post_editing_campaign
from tests.judgments.kinds.test_rc_pages import (
    QUESTIONS,
    answer_hit,
    author_hit,
    grade_hit,
    rc_article,
    rc_campaign,
    select_hit,
)
from tests.judgments.kinds.test_translate_page import (
    answered_background,
    build_translate_hit,
    translation_campaign,
)
from tests.judgments.kinds.test_verify_edit_page import submitted_edits
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.e2e

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
SENTENCES = [
    ("Die Katze schläft.", ["The cat is sleeping."], "The cat sleep."),
    ("Es regnet heute.", ["It is raining today."], "It rains today."),
    ("Wir essen Brot.", ["We are eating bread."], "We eat bread."),
]


def _da_campaign():
    campaign = CampaignFactory(
        title="Rate English translations",
        instructions="Read both texts, then move the slider.",
        assessment_mode=AssessmentMode.ADEQUACY,
        redundancy=1,
    )
    build_da_hit(campaign)
    return campaign


def _rc(stage):
    campaign = rc_campaign(questions_per_author=1)
    document, systems = rc_article(campaign)
    if stage == "author":
        author_hit(campaign, document, 1)
    elif stage == "select":
        select_hit(campaign, document, QUESTIONS[:2])
    elif stage == "answer":
        answer_hit(campaign, document, systems[0])
    else:
        grade_hit(campaign, document, [["An answer.", "Another."]], system=systems[0])
    return campaign


def _verification_campaign():
    campaign = post_editing_campaign(target_language="de")
    submitted_edits(campaign, build_edit_hit(campaign, SENTENCES), texts=["a b", "c d", "e f"])
    assert build_verification_hits(campaign) == 1
    return campaign


def _start(page, campaign, background=False):
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    if background:
        page.wait_for_url("**/work/a/*/background")
        page.get_by_label("What is your native language?").fill("English")
        page.get_by_label("In which country do you live?").select_option("GB")
        page.get_by_label(re.compile("For how many years have you spoken German")).fill("6")
        page.get_by_label(re.compile("For how many years have you spoken English")).fill("30")
        page.keyboard.press("Enter")
    page.wait_for_url("**/work/a/*/")


def _entry(page):
    page.goto(f"/work/{_da_campaign().pk}/")


def _background(page):
    campaign = translation_campaign()
    build_translate_hit(campaign)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/background")


def _task(build, *, background=False, ready="#progress-text"):
    def open_page(page):
        _start(page, build(), background=background)
        expect(page.locator(ready).first).to_be_visible()
        expect(page.locator("#progress-text")).not_to_have_text("…")

    return open_page


def _translation():
    campaign = translation_campaign()
    build_translate_hit(campaign)
    return campaign


def _detect_mt(page):
    campaign = translation_campaign()
    assignment = answered_background(AssignmentFactory(hit=build_detect_hit(campaign)))
    page.goto(task_url(assignment))
    expect(page.locator("#progress-text")).not_to_have_text("…")


def _done(page):
    campaign = _da_campaign()
    assignment = AssignmentFactory(
        hit=campaign.hits.get(),
        status=AssignmentStatus.SUBMITTED,
        submitted_at=timezone.now() - timedelta(minutes=1),
    )
    page.goto(task_url(assignment))
    expect(page.locator("h1")).to_have_text("Thank you!")


PAGES = {
    "entry": _entry,
    "background": _background,
    "direct_assessment": _task(_da_campaign, ready="#main-text"),
    "ranking": _task(lambda: _ranking(), ready=".rank-set"),
    "post_editing": _task(lambda: _post_editing()),
    "verification": _task(_verification_campaign),
    "rc_author": _task(lambda: _rc("author")),
    "rc_select": _task(lambda: _rc("select")),
    "rc_answer": _task(lambda: _rc("answer")),
    "rc_grade": _task(lambda: _rc("grade")),
    "translation": _task(_translation, background=True),
    "detect_mt": _detect_mt,
    "done": _done,
}


def _ranking():
    campaign = ranking_campaign(title="Rank translations", instructions="Best first.")
    build_ranking_hit(campaign)
    return campaign


def _post_editing():
    campaign = post_editing_campaign()
    build_edit_hit(campaign, SENTENCES)
    return campaign


@pytest.fixture
def axe_page(browser, live_server):
    # The worker pages' CSP allows no inline script: the test's own engine is let in.
    context = browser.new_context(base_url=live_server.url, bypass_csp=True)
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def _violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.target.join(' '))}))"
    )
    for violation in result:
        print(f"axe {page.url}: {violation['impact']} {violation['id']}: {violation['nodes'][:3]}")
    return [violation for violation in result if violation["impact"] in BLOCKING]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_serious_accessibility_violations(axe_page, transactional_db, name):
    PAGES[name](axe_page)
    page = axe_page
    page.wait_for_load_state("networkidle")
    assert _violations(page) == [], name


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(first: str, second: str) -> float:
    def parse(css: str) -> tuple[int, int, int]:
        r, g, b = (int(v) for v in re.findall(r"\d+", css)[:3])
        return r, g, b

    high, low = sorted((_luminance(parse(first)), _luminance(parse(second))), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_focus_ring_contrast_and_slider_words(axe_page, transactional_db):
    page = axe_page
    PAGES["direct_assessment"](page)
    slider = page.locator("#score")
    expect(slider).to_be_focused()
    assert slider.get_attribute("aria-valuetext") == (
        "Not moved yet: 50% (0: strongly disagree, 100: strongly agree)"
    )
    page.keyboard.press("ArrowRight")
    assert slider.get_attribute("aria-valuetext") == (
        "51% (0: strongly disagree, 100: strongly agree)"
    )
    page.keyboard.press("Home")
    assert slider.get_attribute("aria-valuetext") == "strongly disagree"
    page.keyboard.press("End")
    assert slider.get_attribute("aria-valuetext") == "strongly agree"
    ring, background = page.evaluate(
        "[getComputedStyle(document.activeElement).outlineColor,"
        " getComputedStyle(document.body).backgroundColor]"
    )
    assert _contrast(ring, background) >= 3
    assert _contrast(ring, "rgb(255, 255, 255)") >= 3
    # The Next button's ring against the page and against the button's own blue.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "next"
    ring, button = page.evaluate(
        "[getComputedStyle(document.activeElement).outlineColor,"
        " getComputedStyle(document.activeElement).backgroundColor]"
    )
    assert _contrast(ring, background) >= 3
    assert _contrast(ring, button) >= 3


def test_the_check_would_catch_a_serious_violation(axe_page, transactional_db):
    # The harness itself: a button without a name on the entry page is reported (critical).
    PAGES["entry"](axe_page)
    axe_page.evaluate(
        "document.querySelector('main').appendChild(document.createElement('button'))"
    )
    assert [v["id"] for v in _violations(axe_page)] == ["button-name"]
