"""The direct-assessment page in Chromium: a worker does a whole 100-item HIT by keyboard, a
phone-sized screen works by tapping without horizontal scrolling, and the page's words and
its script's messages are those of the campaign's language."""

import statistics
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from campaigns.models import AssessmentMode, SlotRole
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.e2e

NASTY = '<script>alert(1)</script> & "x"'
ARABIC = "هذه جملة عربية للاختبار."
LONG_WORD = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt" * 2

# Records, in the page itself, the time from each Enter (or tap on Next) to the next item
# appearing: a MutationObserver on the progress text, which changes when an item is shown.
TIMING_SCRIPT = """
window.__roundTrips = [];
window.__sentAt = null;
function __markSent(event) {
  if ((event.type === "keydown" && event.key === "Enter") || event.type === "click") {
    window.__sentAt = performance.now();
  }
}
document.addEventListener("keydown", __markSent, true);
document.addEventListener("click", __markSent, true);
document.addEventListener("DOMContentLoaded", function () {
  var progress = document.getElementById("progress-text");
  if (!progress) { return; }
  new MutationObserver(function () {
    if (window.__sentAt !== null) {
      window.__roundTrips.push(performance.now() - window.__sentAt);
      window.__sentAt = null;
    }
  }).observe(progress, {childList: true, characterData: true, subtree: true});
});
"""


def build_da_hit(campaign, special_texts=None):
    """A 100-slot HIT in the 2014 shape by role counts: 70 system outputs of 7 systems, 10
    degraded copies, 10 second showings and 10 human translations (one of each per set of 10).
    ``special_texts`` replaces the text shown at some positions. Returns the shown texts."""
    special_texts = special_texts or {}
    systems = [SystemFactory(campaign=campaign, name=f"SECRET-SYSTEM-{n}") for n in range(7)]
    document = DocumentFactory(campaign=campaign)
    hit = HitFactory(campaign=campaign, number=1)
    shown = {}
    position = 0
    for set_index in range(10):
        first_of_set = None
        for n in range(7):
            position += 1
            number = set_index * 7 + n + 1
            segment = SegmentFactory(
                document=document,
                campaign=campaign,
                references=[f"Reference sentence {number} in gray."],
            )
            output = OutputFactory(
                segment=segment,
                system=systems[n],
                text=special_texts.get(position, f"Output sentence {number} in black."),
            )
            slot = HitSlotFactory(
                hit=hit, position=position, group=set_index + 1, output=output, segment=segment
            )
            first_of_set = first_of_set or slot
            shown[position] = (slot.shown_text, segment.reference)
        source_text, reference = shown[first_of_set.position]
        controls = [
            (SlotRole.BAD_REFERENCE, " ".join(source_text.split()[:-2])),
            (SlotRole.REPEAT, source_text),
            (SlotRole.REFERENCE, reference),
        ]
        for role, text in controls:
            position += 1
            HitSlotFactory(
                hit=hit,
                position=position,
                group=set_index + 1,
                role=role,
                output=first_of_set.output,
                segment=first_of_set.segment,
                shown_text=text,
                controls=first_of_set,
            )
            shown[position] = (text, reference)
    assert position == 100
    return hit, shown


def moves_for(position):
    """The keys pressed for an item, and the score they make from the middle (50)."""
    count = position % 9 + 1
    key = "ArrowRight" if position % 2 else "ArrowLeft"
    return key, count, 50 + count if key == "ArrowRight" else 50 - count


def test_a_worker_does_a_whole_hit_with_the_keyboard(page, live_server, transactional_db):
    campaign = CampaignFactory(
        title="Rate English translations",
        instructions="Read both texts, then move the slider.",
        assessment_mode=AssessmentMode.ADEQUACY,
        redundancy=1,
    )
    hit, shown = build_da_hit(campaign, {2: NASTY, 3: ARABIC})
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.add_init_script(TIMING_SCRIPT)

    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    task_url = page.url

    progress = page.locator("#progress-text")
    main, gray = page.locator("#main-text"), page.locator("#gray-text")
    slider, next_button, hint = page.locator("#score"), page.locator("#next"), page.locator("#hint")
    expect(progress).to_have_text("1 of 100")
    expect(page.locator(".statement")).to_have_text(
        "The black text adequately expresses the meaning of the gray text."
    )

    # Before the slider moves: Next disabled, the hint visible, Enter does nothing.
    expect(next_button).to_be_disabled()
    expect(hint).to_be_visible()
    expect(hint).to_have_text("Move the slider to give your answer")
    expect(slider).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    expect(progress).to_have_text("1 of 100")
    assert Judgment.objects.count() == 0

    round_trips = []  # collected before each page load, which resets the page's own list
    reloaded = False
    position = 1
    while position <= 100:
        expect(progress).to_have_text(f"{position} of 100")
        text, reference = shown[position]
        assert main.text_content() == text  # literally, including markup characters
        assert gray.text_content() == reference
        expect(slider).to_be_focused()
        expect(next_button).to_be_disabled()
        if position == 37:
            bar = page.locator("[role=progressbar]")
            expect(bar).to_have_attribute("aria-valuenow", "36")  # answered, not shown
            expect(bar).to_have_attribute("aria-valuemax", "100")
        if position == 51 and not reloaded:
            # Move without answering, then reload: the page resumes at item 51, unanswered.
            page.keyboard.press("ArrowRight")
            expect(next_button).to_be_enabled()
            round_trips += page.evaluate("window.__roundTrips")
            page.reload()
            reloaded = True
            continue

        key, count, _ = moves_for(position)
        for _ in range(count):
            page.keyboard.press(key)
        expect(next_button).to_be_enabled()
        expect(hint).to_be_hidden()
        if position == 100:
            round_trips += page.evaluate("window.__roundTrips")
        page.keyboard.press("Enter")
        position += 1

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    expect(page.locator("#done-message")).to_have_text(
        "You have finished this task. Your answers are saved."
    )

    # Item 2's markup was shown as text: no script ran.
    assert dialogs == []
    assignment = Assignment.objects.get()
    assert assignment.status == AssignmentStatus.SUBMITTED
    stored = list(
        Judgment.objects.filter(assignment=assignment)
        .order_by("slot__position")
        .values_list("slot__position", "score", "client_duration_ms", "server_duration_ms")
    )
    assert [row[0] for row in stored] == list(range(1, 101))
    assert {row[0]: row[1] for row in stored} == {p: float(moves_for(p)[2]) for p in range(1, 101)}
    assert all(row[2] is not None and row[2] >= 0 for row in stored)
    assert all(row[3] is not None and row[3] >= 0 for row in stored)
    assert len(round_trips) == 99  # every answer but the last, which loads a new page
    median = statistics.median(round_trips)
    print(
        f"\nDA page submission round trip (Enter to next item shown), "
        f"{live_server.url}: median {median:.1f} ms, "
        f"p90 {statistics.quantiles(round_trips, n=10)[-1]:.1f} ms over {len(round_trips)} items"
    )


def test_a_phone_sized_screen_has_no_horizontal_scroll_and_works_by_tapping(
    browser, live_server, transactional_db
):
    campaign = CampaignFactory(
        title=LONG_WORD[:128],  # the longest title a campaign takes, in one word
        instructions="Tap the line to answer. " + LONG_WORD,
        assessment_mode=AssessmentMode.FLUENCY,
        redundancy=1,
    )
    build_da_hit(campaign, {1: LONG_WORD, 2: "Short.", 3: ARABIC})
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 360, "height": 640},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = context.new_page()
        page.goto(f"/work/{campaign.pk}/")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.get_by_role("button", name="Start").tap()
        page.wait_for_url("**/work/a/*/")
        progress = page.locator("#progress-text")
        slider, next_button = page.locator("#score"), page.locator("#next")
        expect(page.locator(".statement")).to_have_text("The text is fluent English.")
        assert page.locator("#gray-text").count() == 0

        for position, fraction in ((1, 0.85), (2, 0.15), (3, 0.6)):
            expect(progress).to_have_text(f"{position} of 100")
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            box = slider.bounding_box()
            assert box["height"] >= 44 and box["width"] >= 300  # big enough for a thumb
            assert next_button.bounding_box()["height"] >= 44
            expect(next_button).to_be_disabled()
            slider.tap(position={"x": box["width"] * fraction, "y": box["height"] / 2})
            expect(next_button).to_be_enabled()
            next_button.tap()
        expect(progress).to_have_text("4 of 100")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        context.close()

    scores = list(Judgment.objects.order_by("slot__position").values_list("score", flat=True))
    assert len(scores) == 3
    assert scores[0] > 75 and scores[1] < 25 and 50 < scores[2] < 70


def test_the_words_are_the_campaigns_language_and_the_script_says_what_went_wrong(
    page, transactional_db
):
    """The page's words come from the German catalog, from the entry page on; so do the
    script's messages, which come with the page (its data-label-* attributes) or from the
    server: an answer that cannot reach the server, then a task whose time ran out."""
    campaign = CampaignFactory(
        instructions_language="de",
        target_language="en",
        assessment_mode=AssessmentMode.FLUENCY,
        redundancy=1,
    )
    build_da_hit(campaign)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Starten").click()
    page.wait_for_url("**/work/a/*/")
    progress, error = page.locator("#progress-text"), page.locator("#error")
    slider, next_button = page.locator("#score"), page.locator("#next")
    expect(progress).to_have_text("1 von 100")
    expect(page.locator(".statement")).to_have_text("Der Text ist flüssiges Englisch.")
    expect(next_button).to_have_text("Weiter")
    expect(slider).to_be_focused()
    # What a screen reader says: the percent as German writes it (it was "50%" in a sentence
    # the script put together in English word order, out of the translators' reach).
    expect(slider).to_have_attribute(
        "aria-valuetext",
        "Noch nicht bewegt: 50\xa0% (0: stimme überhaupt nicht zu, 100: stimme voll und ganz zu)",
    )

    # The browser goes offline (a request route let one submission through once in CI).
    page.context.set_offline(True)
    page.keyboard.press("ArrowRight")
    expect(slider).to_have_attribute(
        "aria-valuetext", "51\xa0% (0: stimme überhaupt nicht zu, 100: stimme voll und ganz zu)"
    )
    page.keyboard.press("Enter")
    expect(error).to_have_text(
        "Ihre Antwort konnte nicht gesendet werden (keine Verbindung?). Sie bleibt erhalten: "
        "Drücken Sie erneut auf „Weiter“, um es noch einmal zu versuchen."
    )
    page.context.set_offline(False)

    Assignment.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    page.keyboard.press("Enter")
    expect(error).to_contain_text("Diese Aufgabe ist abgelaufen: Ihre Zeit ist um.")
    expect(error.get_by_role("link")).to_have_text("Aufgabe anfordern")
    assert Judgment.objects.count() == 0


def test_a_click_on_the_thumb_where_it_stands_is_an_answer_of_50(page, transactional_db):
    """The walkthrough clicked the untouched thumb (the middle) and nothing happened: no value
    changes, so no input event came, and Next stayed disabled. The click is an answer: the
    worker chose the middle."""
    campaign = CampaignFactory(assessment_mode=AssessmentMode.FLUENCY, redundancy=1)
    build_da_hit(campaign)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    slider, next_button = page.locator("#score"), page.locator("#next")
    expect(slider).to_have_class("untouched")
    expect(next_button).to_be_disabled()

    box = slider.bounding_box()
    slider.click(position={"x": box["width"] / 2, "y": box["height"] / 2})

    expect(next_button).to_be_enabled()
    expect(slider).not_to_have_class("untouched")
    assert slider.input_value() == "50"
    next_button.click()
    expect(page.locator("#progress-text")).to_have_text("2 of 100")
    assert list(Judgment.objects.values_list("slot__position", "score")) == [(1, 50)]


def test_the_sliders_words_on_a_chinese_page_are_written_the_chinese_way(page, transactional_db):
    campaign = CampaignFactory(
        instructions_language="zh", assessment_mode=AssessmentMode.FLUENCY, redundancy=1
    )
    build_da_hit(campaign)
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="开始").click()
    page.wait_for_url("**/work/a/*/")
    slider = page.locator("#score")
    expect(slider).to_be_focused()
    expect(slider).to_have_attribute(
        "aria-valuetext", "尚未移动：50%（0：非常不同意，100：非常同意）"
    )
    page.keyboard.press("ArrowLeft")
    expect(slider).to_have_attribute("aria-valuetext", "49%（0：非常不同意，100：非常同意）")
