"""The translation page in Chromium (issue 15 items 1-2): a worker answers the language-background
form, then translates a run of three sentences by keyboard; the sources are pictures only: the
page's HTML, every JSON answer and the text selected by select-all hold nothing of them; the
translations are stored with their details, and a reload mid-HIT resumes with the box's draft
kept. The Detect-MT page is answered by keyboard too."""

import pytest
from playwright.sync_api import expect

from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.judgments.kinds.test_detect_mt_page import TRANSLATIONS, build_detect_hit
from tests.judgments.kinds.test_translate_page import (
    SOURCES,
    build_translate_hit,
    translation_campaign,
)

pytestmark = pytest.mark.e2e

SOURCE_WORDS = ["Katze", "Sofa", "regnet", "<script>", "Brot", "Frühstück"]


def start(page, campaign):
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/background")
    page.get_by_label("What is your native language?").fill("English")
    page.get_by_label("In which country do you live?").select_option("GB")
    page.get_by_label("For how many years have you spoken German?").fill("6")
    page.get_by_label("For how many years have you spoken English?").fill("30")
    page.keyboard.press("Enter")
    page.wait_for_url("**/work/a/*/")
    return page.url


def selected_text(page):
    page.locator("h1").click()
    page.keyboard.press("Control+A")
    return page.evaluate("() => window.getSelection().toString()")


def test_a_translator_translates_by_keyboard_and_never_receives_the_source(page, transactional_db):
    campaign = translation_campaign()
    build_translate_hit(campaign)
    bodies = []

    def keep(response):
        if "/item" in response.url or "/submit" in response.url:
            bodies.append(response.text())

    page.on("response", keep)
    task_url = start(page, campaign)

    progress = page.locator("#progress-text")
    expect(progress).to_have_text("Sentence 1 of 3")
    expect(page.locator(".pe-segment")).to_have_count(3)
    images = page.locator("img.tr-image")
    expect(images).to_have_count(3)
    expect(images.nth(2)).to_have_attribute("alt", "Source sentence 3")
    page.wait_for_function(
        "() => [...document.images].every(image => image.complete && image.naturalWidth > 0)"
    )
    box = page.locator("#translation-1")
    expect(box).to_be_focused()
    expect(page.locator("textarea")).to_have_count(1)
    expect(box).to_have_attribute("maxlength", "10000")  # what the server stores

    page.keyboard.type("The cat sleeps on the sofa.")
    page.keyboard.press("Enter")
    expect(page.locator("#sentence-1 .pe-edit")).to_have_text("The cat sleeps on the sofa.")
    expect(progress).to_have_text("Sentence 2 of 3")
    expect(page.locator("#translation-2")).to_be_focused()
    # An empty box is not saved: the page says what to do.
    page.keyboard.press("Enter")
    expect(page.locator("#sentence-2 .pe-message")).to_contain_text("Write your translation")
    page.keyboard.type("It is raining today.")
    # A reload keeps what was typed in the box and resumes at sentence 2.
    page.reload()
    expect(page.locator("#translation-2")).to_have_value("It is raining today.")
    page.locator("#translation-2").press("End")
    page.keyboard.press("Enter")
    expect(progress).to_have_text("Sentence 3 of 3")

    html = page.content()
    selection = selected_text(page)
    assert "The cat sleeps on the sofa." in selection  # the selection works on the page's text
    for word in SOURCE_WORDS:
        assert word not in html, word
        assert word not in selection, word
        assert not any(word in body for body in bodies), word
    assert not any(source in page.url for source in SOURCES)

    page.locator("#translation-3").type("We eat fresh bread for breakfast.")
    page.keyboard.press("Tab")
    expect(page.locator("#sentence-3 .pe-save")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(task_url)
    expect(page.locator("body")).to_contain_text("Thank you")

    stored = Judgment.objects.order_by("slot__position")
    assert [judgment.text for judgment in stored] == [
        "The cat sleeps on the sofa.",
        "It is raining today.",
        "We eat fresh bread for breakfast.",
    ]
    first = stored[0].details
    assert first["keystrokes"] == len("The cat sleeps on the sofa.")
    assert first["pastes"] == 0 and first["seconds"] > 0
    assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED


def test_a_detect_mt_worker_answers_by_keyboard(page, transactional_db):
    campaign = translation_campaign()
    build_detect_hit(campaign)
    task_url = start(page, campaign)
    # The hand-out may give the translation HIT or the Detect-MT HIT: this worker takes the
    # Detect-MT one directly.
    detect = Assignment.objects.order_by("-pk").first()  # the translator's is the first
    if detect.hit.task != "detect_mt":
        pytest.skip("the hand-out gave the translation HIT first")
    expect(page.locator("#progress-text")).to_have_text("Translation 1 of 3")
    expect(page.locator("#translation-text")).to_have_text(TRANSLATIONS[0])
    expect(page.locator("#source img.tr-image")).to_have_attribute("alt", "Source sentence")
    for number, key in enumerate(("y", "n", "n"), start=1):
        expect(page.locator("#progress-text")).to_have_text(f"Translation {number} of 3")
        expect(page.locator("#translation-text")).to_have_text(TRANSLATIONS[number - 1])
        page.keyboard.press(key)
        expect(page.locator("#next")).to_be_enabled()
        page.keyboard.press("Enter")
    page.wait_for_url(task_url)
    expect(page.locator("body")).to_contain_text("Thank you")
    votes = Judgment.objects.filter(assignment=detect).order_by("slot__position")
    assert [vote.yes_no for vote in votes] == [True, False, False]


def test_on_a_phone_the_sources_letters_are_as_large_as_on_a_desktop(
    browser, live_server, transactional_db
):
    """The walkthrough's phone showed a short source at full size and long ones at 9 to 10
    pixels: each picture was drawn 720 pixels wide and scaled down to the screen. Now each is
    drawn for the page's width at the screen's density: none is scaled, and each fits."""
    campaign = translation_campaign()
    build_translate_hit(campaign)
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = context.new_page()
        start(page, campaign)
        expect(page.locator("img.tr-image")).to_have_count(3)
        page.wait_for_function(
            "() => [...document.images].every(image => image.complete && image.naturalWidth > 0)"
        )
        sizes = page.evaluate(
            """async () => Promise.all([...document.querySelectorAll("img.tr-image")].map(
                async image => ({
                    shown: image.getBoundingClientRect().width,
                    natural: image.naturalWidth,
                    pixels: (await createImageBitmap(await (await fetch(image.currentSrc)).blob()))
                        .width,
                    room: image.parentElement.clientWidth,
                    asked: image.currentSrc.split("?")[1],
                })
            ))"""
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
    assert len(sizes) == 3
    for size in sizes:
        # srcset says density 2: the browser shows the picture at half its pixels, unscaled.
        assert size["shown"] == pytest.approx(size["pixels"] / 2, abs=0.5), size
        assert size["shown"] <= size["room"], size
        assert size["asked"].endswith("&scale=2"), size
        assert int(size["asked"].split("width=")[1].split("&")[0]) <= 360, size
