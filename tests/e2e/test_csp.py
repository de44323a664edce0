"""The Content-Security-Policy (issue 11 item 9) in a real browser: Chromium reports no
violation on the admin's pages (its widgets, the related-object popup and its answer page), on
the API documentation page, and on a worker's task page, and their scripts run."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from judgments import tokens
from tests.e2e.conftest import ADMIN_USERNAME
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.e2e


def record_violations(page) -> list[str]:
    """Chromium logs every blocked script, style or connection as a console error."""
    violations: list[str] = []

    def on_console(message) -> None:
        if "Content Security Policy" in message.text:
            violations.append(f"{page.url}: {message.text}")

    page.on("console", on_console)
    return violations


def test_the_admin_works_under_the_policy(admin_page, live_server):
    page = admin_page
    violations = record_violations(page)
    for url in (
        "/admin/",
        "/admin/campaigns/campaign/",
        "/admin/campaigns/campaign/add/",
        "/admin/auth/user/add/",
    ):
        page.goto(url)
        page.wait_for_load_state("networkidle")
    # The admin's scripts ran: the "select all" checkbox of the user list toggles every row.
    page.goto("/admin/auth/user/")
    page.check("#action-toggle")
    expect(page.locator("input.action-select").first).to_be_checked()

    # The "+" beside a related field opens a popup; saving there answers with
    # admin/popup_response.html, whose script (popup_response.js) fills the field in the opener.
    user = get_user_model().objects.get(username=ADMIN_USERNAME)
    page.goto(reverse("admin:auth_user_change", args=[user.pk]))
    with page.expect_popup() as popup_info:
        page.click("#add_id_groups")
    popup = popup_info.value
    violations_in_popup = record_violations(popup)
    popup.fill("#id_name", "made-in-popup")
    with popup.expect_event("close"):
        popup.click("input[name=_save]")
    expect(page.locator("select[id^=id_groups] option", has_text="made-in-popup")).to_have_count(1)
    assert violations == []
    assert violations_in_popup == []


def test_the_api_documentation_renders_under_the_policy(admin_page):
    page = admin_page
    violations = record_violations(page)
    page.goto(reverse("api:docs"))
    # Swagger UI's bundle and its start-up script (a same-origin file) ran and read the schema.
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("evalsite API")
    assert violations == []


def test_a_task_page_runs_its_script_under_the_policy(page, transactional_db):
    campaign = CampaignFactory(title="Rate some English", redundancy=1)
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1, shown_text="Black text 1.")
    assignment = AssignmentFactory(hit=hit)
    violations = record_violations(page)
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    page.goto(reverse("judgments:task", args=[token]))
    page.wait_for_load_state("networkidle")
    # task-common.js marks the page as scripted (a class on <html> or the form); at least, the
    # page's scripts loaded without a refusal.
    assert page.evaluate("document.scripts.length") >= 2
    assert violations == []
