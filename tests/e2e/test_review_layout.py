"""Issue 17: the requester's review table (the Assignment changelist in the admin) needed
1,970 px of width. With a realistic list (20 submitted assignments: MTurk and Prolific worker
ids, a long campaign name, reliability figures and the recommendation's reason) the page must
fit a 1,280 px laptop screen without scrolling sideways, and on a 390 px phone only the table
scrolls, inside its own container, never the page. Every figure stays reachable, approve /
reject still work by clicking, and every review action's page (approve, reject, bonus, block,
e-mail) opens by clicking and fits both widths (its table of 20 selected assignments made a
390 px page 867 px wide before). Full-page screenshots are kept (EVALSITE_E2E_SCREENSHOTS, else
the test's tmp folder).

Measured before the change in Chromium with this file's list: the page itself never scrolled
sideways (document.scrollingElement.scrollWidth 1,280 and 390 px: the admin puts the table in a
".results" box with overflow-x: auto), but the table was 2,260 px wide in a 631 px box at
1,280 px (the app menu on the left and the filters on the right took the rest; a column and a
half showed) and 2,416 px in a 360 px box at 390 px (TABLE_WIDTH_BEFORE). So at laptop width
the test asserts that the table fits its box as well as that the page does not scroll.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from analytics.models import Recommendation
from judgments.models import Assignment, AssignmentStatus, Platform, Worker
from tests.campaigns.platforms.review_support import DECIDED, SUBMITTED, published_hit
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory
from tests.judgments.test_admin_review import da_stat

pytestmark = pytest.mark.e2e

CHANGELIST = "/admin/judgments/assignment/"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TABLE_WIDTH_BEFORE = {"laptop": 2260, "phone": 2416}
CAMPAIGN_NAME = "WMT25 English-German news, direct assessment with reference, round 2"
RANDOM_REASON = "the same score (70) on all 100 items; 12 of 14 degraded outputs scored higher"
# Prolific ids are 24 hexadecimal characters, MTurk's 13-14 upper-case letters and digits.
PROLIFIC_IDS = [f"5f3e9a1c2b7d4e{n:010x}" for n in range(4)]


@pytest.fixture
def shots(tmp_path) -> Path:
    chosen = os.environ.get("EVALSITE_E2E_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def review_list() -> list[Assignment]:
    """16 MTurk assignments over 4 published HITs (synced, most with statistics, some
    recommended for rejection with the reason) and 4 Prolific ones (approved and rejected here
    without MTurk, so the clicks below need no MTurk stub)."""
    campaign = CampaignFactory(name=CAMPAIGN_NAME)
    hits = [published_hit(campaign, f"3HIT{n:026d}") for n in range(4)]
    made = []
    for n in range(16):
        worker = Worker.objects.create(platform=Platform.MTURK, external_id=f"A3KX9QZ{n:07d}")
        assignment = AssignmentFactory(
            hit=hits[n % 4],
            worker=worker,
            status=AssignmentStatus.SUBMITTED,
            platform_assignment_id=f"3R{n:028d}",
            platform_hit_id=hits[n % 4].mturk.mturk_hit_id,
            platform_status="Submitted",
            platform_synced_at=DECIDED,
            submitted_at=SUBMITTED,
        )
        if n % 5 == 4:
            da_stat(
                assignment,
                reliable=False,
                p_value=0.62,
                recommendation=Recommendation.REJECT,
                reason=RANDOM_REASON,
            )
        elif n % 5 != 3:
            da_stat(
                assignment,
                reliable=True,
                p_value=0.0001 * (n + 1),
                recommendation=Recommendation.APPROVE,
            )
        made.append(assignment)
    prolific_hit = HitFactory(campaign=campaign)
    for external_id in PROLIFIC_IDS:
        worker = Worker.objects.create(platform=Platform.PROLIFIC, external_id=external_id)
        made.append(
            AssignmentFactory(
                hit=prolific_hit,
                worker=worker,
                status=AssignmentStatus.SUBMITTED,
                submitted_at=SUBMITTED + timedelta(minutes=3),
            )
        )
    return made


def _page_width(page, viewport) -> int:
    page.set_viewport_size(viewport)
    page.goto(CHANGELIST)
    expect(page.locator("#result_list tbody tr")).to_have_count(20)
    return page.evaluate("document.scrollingElement.scrollWidth")


def test_review_table_fits_a_laptop_and_scrolls_inside_its_box_on_a_phone(admin_page, shots):
    review_list()
    page = admin_page

    laptop_width = _page_width(page, LAPTOP)
    page.screenshot(path=str(shots / "review-1280.png"), full_page=True)
    assert laptop_width <= LAPTOP["width"], f"page is {laptop_width} px wide"
    scroller = page.locator(".results")
    table_width = page.locator("#result_list").bounding_box()["width"]
    assert table_width < TABLE_WIDTH_BEFORE["laptop"]
    # No scrolling inside the box either: every column's right edge is on the screen.
    assert scroller.evaluate("el => el.scrollWidth <= el.clientWidth"), f"table {table_width} px"
    right_edges = page.locator("#result_list thead th").evaluate_all(
        "ths => ths.map(th => th.getBoundingClientRect().right)"
    )
    assert len(right_edges) == 14 and max(right_edges) <= LAPTOP["width"]

    # Every figure is still on the page: the worker's full id, the campaign, the HIT, MTurk's
    # status and last sync, reliability, the recommendation with its reason, the dates.
    row = page.locator("#result_list tbody tr").filter(has_text="A3KX9QZ0000004")
    expect(row).to_have_count(1)
    expect(row.locator(".field-worker")).to_contain_text("A3KX9QZ0000004")
    expect(row.locator(".field-campaign")).to_contain_text(CAMPAIGN_NAME)
    expect(row.locator(".field-hit_shown")).to_contain_text("HIT")
    expect(row.locator(".field-platform_status")).to_contain_text("Submitted")
    expect(row.locator(".field-platform_synced_at")).to_contain_text("2025")
    expect(row.locator(".field-worker_quality")).to_have_text("not reliable (p = 0.620)")
    expect(row.locator(".field-recommendation_shown")).to_contain_text(RANDOM_REASON)
    expect(row.locator(".field-submitted_at")).to_contain_text("2025")
    prolific_row = page.locator("#result_list tbody tr").filter(has_text=PROLIFIC_IDS[0])
    expect(prolific_row.locator(".field-worker")).to_contain_text(PROLIFIC_IDS[0])

    phone_width = _page_width(page, PHONE)
    page.screenshot(path=str(shots / "review-390.png"), full_page=True)
    assert phone_width <= PHONE["width"], f"page is {phone_width} px wide at 390 px"
    assert scroller.evaluate("el => getComputedStyle(el).overflowX") == "auto"
    assert scroller.evaluate("el => el.scrollWidth > el.clientWidth")  # the table scrolls


def _act_on(page, external_id, action):
    page.goto(CHANGELIST)
    row = page.locator("#result_list tbody tr").filter(has_text=external_id)
    row.locator("input.action-select").check()
    page.select_option("select[name=action]", action)
    page.get_by_role("button", name="Go", exact=True).click()
    expect(page.locator("#review-rows")).to_contain_text(external_id)


def test_approve_and_reject_work_by_clicking_at_laptop_width(admin_page, shots):
    made = review_list()
    page = admin_page
    page.set_viewport_size(LAPTOP)
    approved, rejected = made[16], made[17]

    _act_on(page, PROLIFIC_IDS[0], "approve_selected")
    page.fill("#id_feedback", "Thank you, careful work.")
    page.get_by_role("button", name="Approve").click()
    expect(page.locator(".messagelist")).to_contain_text("Approved")
    approved.refresh_from_db()
    assert approved.status == AssignmentStatus.APPROVED

    _act_on(page, PROLIFIC_IDS[1], "reject_selected")
    page.fill("#id_feedback", "Every item got the same score.")
    page.get_by_role("button", name="Reject").click()
    expect(page.locator(".messagelist")).to_contain_text("Rejected")
    rejected.refresh_from_db()
    assert rejected.status == AssignmentStatus.REJECTED
    assert rejected.review_feedback == "Every item got the same score."

    # The changelist shows the new statuses and still fits.
    assert _page_width(page, LAPTOP) <= LAPTOP["width"]
    page.screenshot(path=str(shots / "review-1280-after-actions.png"), full_page=True)
    expect(
        page.locator("#result_list tbody tr")
        .filter(has_text=PROLIFIC_IDS[1])
        .locator(".field-status")
    ).to_contain_text("Rejected")


REVIEW_ACTIONS = {
    "approve_selected": "Approve",
    "reject_selected": "Reject",
    "bonus_selected": "Pay",
    "block_selected_workers": "Block on MTurk",
    "notify_selected_workers": "Send",
}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_every_review_action_page_opens_by_clicking_and_fits(admin_page, viewport):
    review_list()
    page = admin_page
    page.set_viewport_size(viewport)
    for action, submit_label in REVIEW_ACTIONS.items():
        page.goto(CHANGELIST)
        page.locator("#action-toggle").check()
        page.select_option("select[name=action]", action)
        page.get_by_role("button", name="Go", exact=True).click()
        expect(page.locator("#review-rows tbody tr")).to_have_count(20)
        expect(page.locator("#review-form input[type=submit]")).to_have_value(submit_label)
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"{action}: page is {width} px wide"
        # The form's fields are on the screen, not past its right edge.
        right_edges = page.locator("#review-form textarea, #review-form input").evaluate_all(
            "fields => fields.map(f => f.getBoundingClientRect().right)"
        )
        assert max(right_edges) <= viewport["width"], action
