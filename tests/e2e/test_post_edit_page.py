"""The post-editing pages in Chromium (issue 13 items 3 and 4): a worker edits one segment by
typing, says "no changes needed" for another, resets a third, reloads mid-HIT and resumes, and
finishes, all by keyboard; a verifier answers 000's two questions by keyboard; both pages fit
a 360-px phone and work by tapping; texts holding <script> are shown as text, before and
after a reload; an edit that cannot reach the server is kept."""

import pytest
from playwright.sync_api import expect

from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import Hit, HitTask
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.judgments.kinds.test_post_editing_page import build_edit_hit, post_editing_campaign
from tests.judgments.kinds.test_verify_edit_page import submitted_edits

pytestmark = pytest.mark.e2e

NASTY = '<script>alert(1)</script> & "x" <b>bold</b>'
LONG_WORD = "Donaudampfschifffahrtsgesellschaftskapitänswitwenrentenversicherungsanstalt" * 2

SENTENCES = [
    ("Die Katze schläft.", ["The cat is sleeping."], "The cat sleep."),
    ("Es regnet heute.", ["It is raining today."], "It rains today."),
    ("Wir essen Brot.", ["We are eating bread."], "We eat bread."),
    ("<b>Quelle</b>", [NASTY], NASTY),
]


def start(page, campaign):
    """Start as a new worker through the campaign's entry page; return the task's URL."""
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    return page.url


def segment(page, position):
    return page.locator(f"#segment-{position}")


def details(position):
    return Judgment.objects.get(slot__position=position).details


def test_a_worker_edits_a_run_by_keyboard_and_resumes_after_a_reload(page, transactional_db):
    campaign = post_editing_campaign()
    build_edit_hit(campaign, SENTENCES)
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    task_url = start(page, campaign)

    progress, bar = page.locator("#progress-text"), page.locator("#progress-bar")
    expect(progress).to_have_text("Segment 1 of 4")
    expect(page.locator(".pe-segment")).to_have_count(4)
    expect(page.locator("#keys")).to_contain_text("Ctrl+Enter saves the segment")
    first = segment(page, 1)
    expect(first.locator(".pe-title > span").first).to_have_text("Segment 1 of 4")
    expect(first.locator(".pe-context")).to_have_text("The cat is sleeping.")
    assert first.locator(".pe-context").get_attribute("lang") == "en"
    # Only the segment being edited has a box; the later ones show their MT output.
    box = page.locator("#edit-1")
    expect(page.locator("textarea")).to_have_count(1)
    expect(box).to_have_attribute("maxlength", "10000")  # what the server stores
    expect(box).to_have_value("The cat sleep.")
    expect(box).to_be_focused()
    expect(segment(page, 2).locator(".pe-text")).to_have_text("It rains today.")
    assert segment(page, 4).locator(".pe-text").text_content() == NASTY
    assert segment(page, 4).locator(".pe-context").text_content() == NASTY

    # Segment 1: typed. The caret starts at the end: one step left, then "s".
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("s")
    expect(box).to_have_value("The cat sleeps.")
    page.keyboard.press("Enter")  # no line break in a sentence: the keys are explained
    expect(box).to_have_value("The cat sleeps.")
    expect(first.locator(".pe-note")).to_contain_text("Ctrl+Enter saves the segment")
    page.keyboard.press("Control+Enter")
    expect(first).to_have_class("pe-segment is-saved")
    expect(first.locator(".pe-saved-mark")).to_have_text("Saved")
    expect(first.locator(".pe-edit")).to_have_text("The cat sleeps.")
    expect(progress).to_have_text("Segment 2 of 4")
    expect(bar).to_have_attribute("aria-valuenow", "1")
    expect(page.locator("#edit-2")).to_be_focused()
    expect(page.locator("textarea")).to_have_count(1)

    # Segment 2: no changes needed, by its key.
    page.keyboard.press("Control+Shift+Enter")
    expect(segment(page, 2).locator(".pe-mark")).to_have_text("No changes needed")
    expect(page.locator("#edit-3")).to_be_focused()
    assert Judgment.objects.count() == 2

    # Typed but not saved, then a reload: the saved segments come back read-only, the page
    # resumes at segment 3 with its MT output.
    page.keyboard.type("lost")
    page.reload()
    expect(progress).to_have_text("Segment 3 of 4")
    expect(segment(page, 1).locator(".pe-edit")).to_have_text("The cat sleeps.")
    expect(segment(page, 2).locator(".pe-edit")).to_have_text("It rains today.")
    expect(segment(page, 2).locator(".pe-mark")).to_have_text("No changes needed")
    box = page.locator("#edit-3")
    expect(box).to_have_value("We eat bread.")
    expect(box).to_be_focused()

    # Segment 3: typing, then the reset (Tab to it: Save, No changes needed, Reset), then
    # "No changes needed" refused while the text differs, then a save of the MT output.
    page.keyboard.type(" Yes")
    page.keyboard.press("Tab")
    expect(segment(page, 3).get_by_role("button", name="Save and continue")).to_be_focused()
    page.keyboard.press("Tab")
    expect(segment(page, 3).get_by_role("button", name="No changes needed")).to_be_focused()
    page.keyboard.press("Enter")
    expect(segment(page, 3).locator(".pe-message")).to_have_text(
        "You have changed this translation. If it needs no changes, press “Reset to the machine "
        "translation” first."
    )
    reset = segment(page, 3).get_by_role("button", name="Reset to the machine translation")
    expect(reset).to_be_focused()
    page.keyboard.press("Enter")
    expect(box).to_have_value("We eat bread.")
    expect(box).to_be_focused()
    expect(segment(page, 3).locator(".pe-message")).to_be_hidden()
    page.keyboard.press("Control+Enter")
    expect(page.locator("#edit-4")).to_be_focused()

    # Segment 4: emptied (refused with the server's message), then edited and saved.
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.press("Control+Enter")
    expect(segment(page, 4).locator(".pe-message")).to_have_text(
        "The edited translation of segment 4 is empty. Edit the machine translation rather than "
        "deleting it; if it needs no changes, choose “No changes needed”."
    )
    expect(page.locator("#edit-4")).to_be_focused()
    page.keyboard.type("<b>Bold</b> & plain")
    page.keyboard.press("Control+Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED
    texts = list(Judgment.objects.order_by("slot__position").values_list("text", flat=True))
    assert texts == [
        "The cat sleeps.",
        "It rains today.",
        "We eat bread.",
        "<b>Bold</b> & plain",
    ]
    assert details(1) == {
        "keystrokes": 2,
        "no_changes": False,
        "resets": 0,
        "pasted": False,
        "unchanged": False,
        "copied_reference": False,
    }
    assert details(2) == {
        "keystrokes": 0,
        "no_changes": True,
        "resets": 0,
        "pasted": False,
        "unchanged": True,
        "copied_reference": False,
    }
    # " Yes" is 4 keys; the reset put the MT output back.
    assert details(3) == {
        "keystrokes": 4,
        "no_changes": False,
        "resets": 1,
        "pasted": False,
        "unchanged": True,
        "copied_reference": False,
    }
    # Delete, then 19 characters; Ctrl+A is a shortcut, not a keystroke.
    assert details(4)["keystrokes"] == 20
    assert (details(4)["unchanged"], details(4)["copied_reference"]) == (False, False)
    durations = Judgment.objects.values_list("client_duration_ms", flat=True)
    assert all(duration is not None and duration >= 0 for duration in durations)


def test_pasting_the_reference_is_stored_as_a_flag_not_refused(page, transactional_db):
    campaign = post_editing_campaign()
    build_edit_hit(campaign, SENTENCES[:1])
    start(page, campaign)
    box = page.locator("#edit-1")
    expect(box).to_be_focused()
    page.keyboard.press("Control+a")
    # A paste, as the browser fires it when text is pasted into the box.
    box.evaluate(
        """box => {
            const data = new DataTransfer();
            data.setData("text/plain", "The cat is sleeping.");
            box.dispatchEvent(new ClipboardEvent("paste", {clipboardData: data, bubbles: true}));
        }"""
    )
    page.keyboard.insert_text("The cat is sleeping.")
    page.keyboard.press("Control+Enter")
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert details(1)["pasted"] is True
    assert details(1)["copied_reference"] is True
    assert Judgment.objects.get().text == "The cat is sleeping."


def test_a_verifier_answers_by_keyboard(page, transactional_db):
    campaign = post_editing_campaign(target_language="de")
    edit_hit = build_edit_hit(campaign, SENTENCES[:3])
    edits = ["Die Katze schläft.", NASTY, "Wir essen Brot."]
    submitted_edits(campaign, edit_hit, texts=edits)
    assert build_verification_hits(campaign) == 1
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    task_url = start(page, campaign)

    progress, next_button = page.locator("#progress-text"), page.locator("#next")
    same, acceptable = page.locator("#same-meaning"), page.locator("#acceptable")
    expect(progress).to_have_text("Sentence 1 of 3")
    expect(page.locator("#acceptable legend")).to_have_text("Is it acceptable German?")
    expect(page.locator("#note")).to_have_text(
        "Some small errors are OK, so long as it is still understandable."
    )
    expect(page.locator("#context-text")).to_have_text("The cat is sleeping.")
    expect(page.locator("#edited-text")).to_have_text("Die Katze schläft.")
    assert page.locator("#edited-text").get_attribute("lang") == "de"
    expect(same.get_by_label("Yes")).to_be_focused()
    expect(next_button).to_be_disabled()
    page.keyboard.press("Enter")  # nothing answered: nothing sent
    expect(progress).to_have_text("Sentence 1 of 3")

    # Y for the first question, N for the second, then Enter.
    page.keyboard.press("y")
    expect(same.get_by_label("Yes")).to_be_checked()
    expect(acceptable.get_by_label("Yes")).to_be_focused()
    page.keyboard.press("n")
    expect(acceptable.get_by_label("No")).to_be_checked()
    expect(next_button).to_be_enabled()
    expect(next_button).to_be_focused()
    page.keyboard.press("Enter")

    # Sentence 2 (markup shown as text): N, then Y; an arrow key changes the second answer.
    expect(progress).to_have_text("Sentence 2 of 3")
    assert page.locator("#edited-text").text_content() == NASTY
    expect(same.get_by_label("Yes")).not_to_be_checked()
    page.keyboard.press("n")
    page.keyboard.press("y")
    acceptable.get_by_label("Yes").focus()
    page.keyboard.press("ArrowDown")
    expect(acceptable.get_by_label("No")).to_be_checked()
    page.keyboard.press("Enter")

    expect(progress).to_have_text("Sentence 3 of 3")
    page.keyboard.press("y")
    page.keyboard.press("y")
    page.keyboard.press("Enter")

    page.wait_for_url(task_url)
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert dialogs == []
    verify_hit = Hit.objects.get(task=HitTask.VERIFY_EDIT)
    answers = list(
        Judgment.objects.filter(slot__hit=verify_hit)
        .order_by("slot__position")
        .values_list("yes_no", "yes_no_second")
    )
    assert answers == [(True, False), (False, False), (True, True)]


@pytest.mark.parametrize("verifying", [False, True], ids=["editing", "verifying"])
def test_a_phone_sized_screen_has_no_horizontal_scroll_and_works_by_tapping(
    browser, live_server, transactional_db, verifying
):
    campaign = post_editing_campaign(
        title=LONG_WORD[:128], instructions="Edit each translation. " + LONG_WORD
    )
    sentences = [
        ("Lang.", [LONG_WORD], LONG_WORD),
        ("Kurz.", ["Short."], "Short one."),
    ]
    edit_hit = build_edit_hit(campaign, sentences)
    if verifying:
        submitted_edits(campaign, edit_hit, texts=[LONG_WORD + " edited", "Short."])
        build_verification_hits(campaign)
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
        page.get_by_role("button", name="Start").tap()
        page.wait_for_url("**/work/a/*/")
        page.locator("#progress-text").wait_for()
        if verifying:
            for number in (1, 2):
                expect(page.locator("#progress-text")).to_have_text(f"Sentence {number} of 2")
                assert page.evaluate("document.documentElement.scrollWidth") <= 360
                for choice in page.locator(".ve-choice").all():
                    box = choice.bounding_box()
                    assert box["height"] >= 44 and box["x"] + box["width"] <= 360
                page.locator("#same-meaning").get_by_text("Yes").tap()
                page.locator("#acceptable").get_by_text("No").tap()
                next_button = page.locator("#next")
                assert next_button.bounding_box()["height"] >= 44
                next_button.tap()
        else:
            expect(page.locator("#progress-text")).to_have_text("Segment 1 of 2")
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            box = page.locator("#edit-1").bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 360
            for button in segment(page, 1).locator("button").all():
                size = button.bounding_box()
                assert size["height"] >= 44 and size["x"] + size["width"] <= 360
            segment(page, 1).get_by_role("button", name="No changes needed").tap()
            expect(page.locator("#edit-2")).to_be_visible()
            page.locator("#edit-2").fill("Short.")
            segment(page, 2).get_by_role("button", name="Save and continue").tap()
        expect(page.locator("h1")).to_have_text("Thank you!")
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        context.close()
    if verifying:
        verified = Judgment.objects.filter(slot__hit__task=HitTask.VERIFY_EDIT)
        assert set(verified.values_list("yes_no", "yes_no_second")) == {(True, False)}
    else:
        texts = list(Judgment.objects.order_by("slot__position").values_list("text", flat=True))
        assert texts == [LONG_WORD, "Short."]


def test_script_in_a_segment_is_shown_as_text_before_and_after_saving(page, transactional_db):
    campaign = post_editing_campaign()
    build_edit_hit(campaign, [SENTENCES[3], SENTENCES[0]])
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    start(page, campaign)
    expect(page.locator("#edit-1")).to_have_value(NASTY)
    assert segment(page, 1).locator(".pe-context").text_content() == NASTY
    page.keyboard.press("Control+Shift+Enter")
    expect(segment(page, 1).locator(".pe-edit")).to_be_visible()
    page.reload()
    expect(page.locator("#edit-2")).to_be_focused()
    assert segment(page, 1).locator(".pe-edit").text_content() == NASTY
    assert page.locator("#segments script, #segments b").count() == 0
    assert dialogs == []


def test_an_edit_that_cannot_be_sent_is_kept(page, transactional_db):
    campaign = post_editing_campaign()
    build_edit_hit(campaign, SENTENCES[:1])
    start(page, campaign)
    page.route("**/submit", lambda route: route.abort())
    expect(page.locator("#edit-1")).to_be_focused()
    page.keyboard.type(" Zzz")
    page.keyboard.press("Control+Enter")
    expect(segment(page, 1).locator(".pe-message")).to_have_text(
        "Your edit could not be sent (no connection?). It is kept: press “Save and continue” "
        "again to retry."
    )
    expect(page.locator("#edit-1")).to_have_value("The cat sleep. Zzz")
    page.unroute("**/submit")
    page.keyboard.press("Control+Enter")
    expect(page.locator("h1")).to_have_text("Thank you!")
    assert Judgment.objects.get().text == "The cat sleep. Zzz"
    assert Judgment.objects.get().details["keystrokes"] == 4
