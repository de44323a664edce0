"""Issue 17 (rough edge): the ranking page was about 3,200 px tall for 3 sets of 4 and showed
the keyboard hint on touch screens. The compact layout (like Appraise's: ranks beside each
translation, the source beside the reference on wide screens, instructions that fold away)
is measured here in Chromium at a desktop and a phone width; the keyboard hint is hidden where
there is no hover or the pointer is coarse.

Measured before the change (this file's page, 3 sets of 4 with sentences of 20-30 words):
desktop 1280 px wide: 3,685 px; phone 360 px: 5,264 px (PAGE_HEIGHT_BEFORE).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Segment
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.e2e

SENTENCE = (
    "The committee said on Tuesday that the new rules would apply to every member state from "
    "next spring, although several governments had asked for more time to prepare"
)
SOURCE = (
    "Der Ausschuss erklärte am Dienstag, die neuen Regeln würden ab dem nächsten Frühjahr für "
    "alle Mitgliedstaaten gelten, obwohl mehrere Regierungen um mehr Zeit gebeten hatten"
)
INSTRUCTIONS = (
    "You will see a sentence in German, a human translation of it, and four machine "
    "translations. Give each machine translation a rank from 1 (best) to 4 (worst); equally "
    "good translations may share a rank. Judge the meaning first, then the fluency."
)
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 640}
PAGE_HEIGHT_BEFORE = {"desktop": 3685, "phone": 5264}


def _campaign():
    campaign = ranking_campaign(title="Rank translations", instructions=INSTRUCTIONS)
    texts = {position: f"{SENTENCE} ({position})." for position in range(1, 13)}
    build_ranking_hit(campaign, texts=texts)
    Segment.objects.filter(campaign=campaign).update(source=SOURCE, references=[SENTENCE])
    return campaign


def _open(browser, live_server, campaign, viewport, touch):
    context = browser.new_context(
        base_url=live_server.url,
        viewport=viewport,
        is_mobile=touch,
        has_touch=touch,
    )
    page = context.new_page()
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    expect(page.locator(".rank-set")).to_have_count(3)
    return context, page


def _height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


@pytest.mark.parametrize(
    ("name", "viewport", "touch", "most"),
    # After: desktop 1,748 px, phone 4,205 px (the bounds leave room for other fonts).
    [("desktop", DESKTOP, False, 1850), ("phone", PHONE, True, 4400)],
)
def test_three_sets_of_four_fit_in_a_compact_page(
    browser, live_server, transactional_db, name, viewport, touch, most
):
    campaign = _campaign()
    context, page = _open(browser, live_server, campaign, viewport, touch)
    try:
        height = _height(page)
        print(f"ranking page height at {name} ({viewport['width']} px): {height} px")
        assert height <= most, height
        assert height < PAGE_HEIGHT_BEFORE[name]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        # The keyboard hint only where there is a keyboard to speak of.
        hint = page.locator(".rank-keys")
        if touch:
            expect(hint).to_be_hidden()
        else:
            expect(hint).to_be_visible()
        # Instructions fold away (open at first) and the page gets shorter still.
        instructions = page.locator("details.task-instructions")
        expect(instructions).to_have_attribute("open", "")
        page.locator("details.task-instructions > summary").click()
        expect(instructions).not_to_have_attribute("open", "")
        assert _height(page) < height
    finally:
        context.close()


def test_ranks_sit_beside_each_translation_on_a_wide_screen(browser, live_server, transactional_db):
    campaign = _campaign()
    context, page = _open(browser, live_server, campaign, DESKTOP, False)
    try:
        output = page.locator(".rank-output").first
        text = output.locator(".rank-output-text").bounding_box()
        buttons = output.locator(".rank-buttons").bounding_box()
        label = output.locator(".rank-output-label").bounding_box()
        assert label["x"] + label["width"] <= text["x"]  # the label left of the text
        assert buttons["x"] >= text["x"] + text["width"] - 1  # the ranks right of it
        assert buttons["y"] < text["y"] + text["height"]  # on the same row, not below
    finally:
        context.close()
