"""The dashboard in Chromium: every plot image loads (the SVG endpoint as <img>, under the
site's Content-Security-Policy), the PNG download is named for the paper, and a full-page
screenshot is kept (EVALSITE_E2E_SCREENSHOTS, else the test's tmp folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse

from analytics import actions
from judgments.models import Worker
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign

pytestmark = pytest.mark.e2e
# A plot is drawn on its first request (matplotlib, about a second; several on a loaded
# machine): more than the e2e default of 10 s for five of them in turn.
RENDER_TIMEOUT_MS = 60_000


@pytest.fixture
def shots(tmp_path) -> Path:
    chosen = os.environ.get("EVALSITE_E2E_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_dashboard_shows_every_plot_and_downloads_png(admin_page, shots):
    browser_page = admin_page
    built = build_small_campaign(name="WMT26 de-en <DA> & co")
    Worker.objects.filter(external_id="careful").update(country="DE")
    actions.recompute_campaign(built.campaign)
    browser_page.set_viewport_size({"width": 1400, "height": 900})
    browser_page.goto(reverse("campaign-dashboard", args=[built.campaign.pk]))
    assert browser_page.locator("h1").inner_text() == "Dashboard: WMT26 de-en <DA> & co"
    images = browser_page.locator("figure.dashboard-plot img")
    assert images.count() == 5
    for index in range(5):
        image = images.nth(index)
        image.scroll_into_view_if_needed()
        browser_page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0",
            arg=image.element_handle(),
            timeout=RENDER_TIMEOUT_MS,
        )
    with browser_page.expect_download(timeout=RENDER_TIMEOUT_MS) as download:
        browser_page.locator("#plot-system-scores").get_by_text("Download PNG").click()
    assert download.value.suggested_filename == "wmt26-de-en-da-co-system-scores.png"
    saved = shots / "dashboard-da.png"
    browser_page.screenshot(path=str(saved), full_page=True)
    assert saved.stat().st_size > 0
    actions.clear_recompute_flag(built.campaign.pk)
