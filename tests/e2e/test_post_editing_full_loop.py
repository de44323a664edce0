"""The whole post-editing loop in Chromium (issue 13 item 8): two editors complete a HIT each
(one types the edits, one leaves every segment untouched with "No changes needed"), the
verification HITs appear by themselves, a verifier answers them by keyboard, and the
requester's admin page shows the HTER the hand-worked tables predict and the did-nothing flag.

Statistics run live: without a broker (the test setting) each submission recomputes the
campaign inline after its commit, and the recompute builds the verification HITs.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Hit, HitTask
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.e2e.conftest import DEFAULT_TIMEOUT_MS
from tests.integration.test_post_editing_pipeline import (
    EDITS,
    MT,
    build_post_editing_campaign,
    cells_of,
    expected_hter,
)

pytestmark = pytest.mark.e2e


def assignment_of(page) -> Assignment:
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    return Assignment.objects.get(pk=tokens.read_assignment_token(token).assignment_id)


def new_worker_page(browser, live_server, campaign):
    """A new visitor (own browser context, so own session) on a started task."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    page = context.new_page()
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/work/a/*/")
    # The test reads the database after this: let the page's own requests finish first (on
    # SQLite a read during the page's write may find the table locked).
    page.wait_for_load_state("networkidle")
    return context, page


def edit_in_browser(page, careful: bool) -> Assignment:
    """The editor's whole HIT by keyboard: the careful editor types EDITS, the other presses
    "No changes needed" (Ctrl+Shift+Enter) for every segment."""
    assignment = assignment_of(page)
    cells = cells_of(assignment)
    for position in range(1, 4):
        box = page.locator(f"#edit-{position}")
        expect(box).to_be_focused()
        expect(box).to_have_value(MT[cells[position]])
        if careful:
            page.keyboard.press("Control+a")
            page.keyboard.type(EDITS[cells[position]][0])
            page.keyboard.press("Control+Enter")
        else:
            page.keyboard.press("Control+Shift+Enter")
    expect(page.locator("h1")).to_have_text("Thank you!")
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    return assignment


def cells(row) -> list[str]:
    return [" ".join(text.split()) for text in row.locator("td").all_inner_texts()]


def test_two_editors_a_verifier_then_the_requester_sees_hter(browser, live_server, admin_page):
    campaign = build_post_editing_campaign()

    # Both editors start before either submits: verification HITs, once they exist, are
    # handed out first.
    careful_context, careful_page = new_worker_page(browser, live_server, campaign)
    untouched_context, untouched_page = new_worker_page(browser, live_server, campaign)
    try:
        careful = edit_in_browser(careful_page, careful=True)
        untouched = edit_in_browser(untouched_page, careful=False)
    finally:
        careful_context.close()
        untouched_context.close()
    assert careful.hit_id != untouched.hit_id
    texts = dict(Judgment.objects.filter(assignment=careful).values_list("slot_id", "text"))
    assert sorted(texts.values()) == sorted(EDITS[c][0] for c in cells_of(careful).values())
    assert all(
        judgment.details["unchanged"] and judgment.details["no_changes"]
        for judgment in Judgment.objects.filter(assignment=untouched)
    )

    # Two verification HITs, built by themselves; one verifier does both, by keyboard:
    # the careful editor's edits pass (yes, yes), the untouched ones fail (no, no).
    assert Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT).count() == 2
    context, page = new_worker_page(browser, live_server, campaign)
    try:
        for hit_done in range(2):
            assignment = assignment_of(page)
            assert assignment.hit.task == HitTask.VERIFY_EDIT
            slots = list(assignment.hit.slots.select_related("about_judgment").order_by("position"))
            for number, slot in enumerate(slots, start=1):
                expect(page.locator("#progress-text")).to_have_text(f"Sentence {number} of 3")
                expect(page.locator("#edited-text")).to_have_text(slot.shown_text)
                answer = "y" if slot.about_judgment.worker_id == careful.worker_id else "n"
                page.keyboard.press(answer)
                page.keyboard.press(answer)
                page.keyboard.press("Enter")
            expect(page.locator("h1")).to_have_text("Thank you!")
            if hit_done == 0:
                page.get_by_role("link", name="Do another task").click()
                page.wait_for_url("**/work/a/*/")
    finally:
        context.close()
    votes = Judgment.objects.filter(slot__hit__task=HitTask.VERIFY_EDIT)
    assert votes.count() == 6

    # The requester's page: HTER per system and the untouched editor flagged.
    page = admin_page
    page.goto(f"/admin/campaigns/campaign/{campaign.pk}/change/")
    panel = page.locator("#post-editing-results")
    expect(panel).to_be_visible()
    expect(panel.locator(".pe-reflects")).to_have_text("12 of 12")

    workers = {
        row.get_attribute("data-worker"): row for row in panel.locator("#pe-workers tbody tr").all()
    }
    flagged = panel.locator("#pe-workers tr.flagged")
    expect(flagged).to_have_count(1)
    expect(flagged.locator(".flag.did-nothing")).to_have_text("did nothing")
    assert untouched.worker.external_id in flagged.locator(".worker-id").inner_text()
    assert len(workers) == 3  # two editors and the verifier

    # Default: the flagged editor left out. Every editor: the untouched edits failed, so
    # their outputs are scored against the reference.
    careful_cells = list(cells_of(careful).values())
    untouched_cells = list(cells_of(untouched).values())
    for switch, failed, expected in (
        (None, "0", expected_hter(careful_cells, [])),
        (
            "Show HTER over every editor, flagged ones included",
            "3",
            expected_hter(careful_cells, untouched_cells),
        ),
    ):
        if switch:
            panel.get_by_role("link", name=switch).click()
            expect(page.locator("#pe-variant")).to_have_text("Systems: every editor")
        expect(page.locator("#pe-verification .passed")).to_have_text("3")
        expect(page.locator("#pe-verification .failed")).to_have_text(failed)
        rows = {cells(row)[1]: cells(row) for row in page.locator("#pe-systems tbody tr").all()}
        assert set(rows) == {"sys-a", "sys-b"}
        for name, numbers in expected.items():
            assert rows[name][2] == f"{float(numbers['corpus']):.3f}", (name, rows[name])
            assert rows[name][4] == f"{float(numbers['mean']):.3f}", (name, rows[name])
            assert rows[name][7] == str(numbers["outputs"])
            assert rows[name][10] == str(numbers["passed"])
