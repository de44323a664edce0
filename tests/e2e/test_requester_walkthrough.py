"""A requester's whole way through the campaign page alone (issue 17 item 6), in Chromium: from
an empty site (logged in as staff) to results, using only the campaign page's checklist and
the pages its buttons open: create a direct-assessment campaign, import a file, build the
HITs, activate, make a worker link; a worker does the HIT through that link; the results,
fresh, are on the campaign page and export.

Screenshots of each stage are saved as PNG files in ``$EVALSITE_E2E_SCREENSHOTS`` when that
variable names a directory (created if missing), else in the test's own ``tmp_path``
(pytest keeps the last three runs under its basetemp; ``--basetemp`` chooses it). The
requester's clicks are counted; from the imported file to live HITs they are two: "Build
HITs" and "Activate" (the open link works from then on), and two more for a CSV of
per-worker links.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, CampaignStatus, SlotRole
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.e2e.conftest import DEFAULT_TIMEOUT_MS
from tests.e2e.test_da_full_loop import set_slider
from tests.integration.test_da_pipeline import slots_of

pytestmark = pytest.mark.e2e

SAMPLE = Path(__file__).resolve().parents[2] / "campaigns" / "sample" / "demo.tsv"
# How the simulated careful worker scores each system of the sample (references 90, bad
# references 40 points under their output).
QUALITY = {"Lindenbaum-NMT": 80, "LLM-Zero": 70, "OpusBase-2026": 55, "RuleBased-Classic": 35}


class Requester:
    """The requester's browser page, counting the clicks and saving the screenshots."""

    def __init__(self, page, shots: Path) -> None:
        self.page = page
        self.shots = shots
        self.clicks = 0
        self.saved: list[Path] = []

    def click(self, locator, *, navigates: bool = True) -> None:
        self.clicks += 1
        if navigates:
            with self.page.expect_navigation():
                locator.click()
        else:
            locator.click()

    def shot(self, name: str) -> None:
        path = self.shots / f"{len(self.saved) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        self.saved.append(path)

    def step(self, key: str):
        return self.page.locator(f"#step-{key}")


@pytest.fixture
def shots(tmp_path) -> Path:
    chosen = os.environ.get("EVALSITE_E2E_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def score_for(slot) -> int:
    if slot.role == SlotRole.REFERENCE:
        return 90
    score = QUALITY[slot.system] + slot.output_id * 7919 % 5 - 2
    if slot.role == SlotRole.BAD_REFERENCE:
        score -= 40
    return max(0, min(100, score))


def worker_does_the_hit(browser, live_server, link_path: str) -> Assignment:
    """A worker opens their link in a browser of their own and scores all 100 items."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        page = context.new_page()
        page.goto(link_path)
        page.wait_for_url("**/work/a/*/")
        task_url = page.url
        token = task_url.rstrip("/").rsplit("/", 1)[-1]
        assignment = Assignment.objects.get(pk=tokens.read_assignment_token(token).assignment_id)
        slots = slots_of(assignment)
        progress, slider = page.locator("#progress-text"), page.locator("#score")
        for position in range(1, 101):
            # The first answer starts the campaign's first recompute, which loads the
            # statistics' libraries (imported on first use): seconds on a busy machine.
            expect(progress).to_have_text(f"{position} of 100", timeout=60_000)
            expect(slider).to_be_focused()
            score = score_for(slots[position])
            set_slider(page, score)
            expect(slider).to_have_value(str(score))
            page.keyboard.press("Enter")
        page.wait_for_url(task_url)
        expect(page.locator("h1")).to_have_text("Thank you!")
    finally:
        context.close()
    assignment.refresh_from_db()
    return assignment


def test_a_requester_goes_from_an_empty_site_to_results_on_the_campaign_page(
    browser, live_server, admin_page, shots
):
    assert not Campaign.objects.exists()  # an empty site
    requester = Requester(admin_page, shots)
    page = admin_page

    # Create: the kind first, then the name, the mode and the languages.
    page.goto("/admin/campaigns/campaign/add/")
    page.check("input[name=kind][value=direct_assessment]")
    requester.click(page.get_by_text("Next: settings"))
    page.fill("#id_name", "WMT26 de-en walkthrough")
    page.select_option("#id_da_settings-0-assessment_mode", "adequacy")
    page.fill("#id_source_language", "de")
    page.fill("#id_target_language", "en")
    requester.click(page.locator("input[name=_continue]"))
    campaign = Campaign.objects.get(name="WMT26 de-en walkthrough")
    expect(requester.step("import")).to_have_attribute("data-state", "next")
    expect(page.locator("#checklist .next-hint")).to_have_text("Next: Segments imported.")
    requester.shot("created")
    clicks_to_create = requester.clicks

    # Import: the checklist's button, the file, "Check and import".
    requester.click(requester.step("import").get_by_role("link", name="Import segments"))
    page.set_input_files("input[name=file]", str(SAMPLE))
    requester.click(page.locator("input[value='Check and import']"))
    expect(page.locator(".messagelist")).to_contain_text(
        "Imported 4 new documents, 28 segments and 112 outputs of 4 systems"
    )
    expect(requester.step("import").locator(".summary")).to_have_text(
        "28 segments in 4 documents; 4 systems, 112 outputs."
    )
    expect(requester.step("build")).to_have_attribute("data-state", "next")
    requester.shot("imported")
    imported_at = requester.clicks

    # Build, then activate: live HITs.
    requester.click(requester.step("build").get_by_role("button", name="Build HITs"))
    expect(page.locator(".messagelist")).to_contain_text(f"{campaign}: built 2 HIT(s).")
    expect(requester.step("build").locator(".summary")).to_have_text("2 HITs built.")
    expect(requester.step("activate")).to_have_attribute("data-state", "next")
    requester.shot("built")
    requester.click(requester.step("activate").get_by_role("button", name="Activate"))
    expect(requester.step("activate").locator(".summary")).to_have_text(
        "Active: HITs are handed out."
    )
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.ACTIVE
    clicks_to_live = requester.clicks - imported_at
    assert clicks_to_live == 2
    expect(requester.step("publish")).to_have_attribute("data-state", "next")
    requester.shot("active")

    # A link per worker: the links page, one link, the CSV.
    requester.click(
        requester.step("publish").get_by_role("link", name="Create direct worker links")
    )
    page.fill("input[name=count]", "1")
    with page.expect_download() as download:
        requester.click(page.locator("input[type=submit]"), navigates=False)
    rows = list(
        csv.DictReader(io.StringIO(Path(download.value.path()).read_text(encoding="utf-8")))
    )
    assert len(rows) == 1
    clicks_to_links = requester.clicks - imported_at
    assert clicks_to_links == 4

    # The worker does the HIT through the link (its path, on the test server).
    assignment = worker_does_the_hit(browser, live_server, urlsplit(rows[0]["link"]).path)
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(campaign=campaign).count() == 100

    # Back on the campaign page: the judgments and the results, fresh.
    page.goto(f"/admin/campaigns/campaign/{campaign.pk}/change/")
    expect(requester.step("publish")).to_have_attribute("data-state", "done")
    expect(requester.step("publish")).to_contain_text("(1 worker came by direct link)")
    expect(requester.step("judgments").locator(".summary")).to_have_text(
        f"100 of {200 * campaign.redundancy:,} judgments in; 1 of {2 * campaign.redundancy} "
        f"assignments done (2 HITs, redundancy {campaign.redundancy})."
    )
    expect(requester.step("results")).to_have_attribute("data-state", "done")
    expect(requester.step("results").locator(".summary")).to_contain_text("Fresh as of")
    systems = page.locator("#da-systems tbody tr")
    expect(systems).to_have_count(4)
    assert systems.first.locator("td").nth(1).inner_text().strip() == "Lindenbaum-NMT"
    requester.shot("results")

    # The export button downloads the judgments.
    with page.expect_download() as download:
        requester.click(
            requester.step("results").get_by_role("link", name="Export judgments (CSV)"),
            navigates=False,
        )
    exported = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    assert len(exported) == 101  # the header and the 100 judgments

    print(
        f"\nRequester clicks: {clicks_to_create} to create the campaign, "
        f"{imported_at - clicks_to_create} to import the file, {clicks_to_live} from the "
        f"imported file to live HITs, {clicks_to_links} to a CSV of worker links; "
        f"screenshots: {', '.join(str(path) for path in requester.saved)}"
    )
    assert [path.name for path in requester.saved] == [
        "01-created.png",
        "02-imported.png",
        "03-built.png",
        "04-active.png",
        "05-results.png",
    ]
    assert all(path.stat().st_size > 10_000 for path in requester.saved)
