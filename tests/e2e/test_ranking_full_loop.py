"""The whole ranking loop in Chromium: a campaign of four systems with gold answers and HITs
built by campaigns.actions.build_hits; a careful worker and a careless one rank whole HITs
with the keyboard; once the careless worker has failed the gold units (trust decided after
two), their next request for work gets the polite "no more work" page; the requester's admin
page shows the trust table and the scores from the careful worker alone.

Statistics run live: without a broker (the test setting) each submitted set recomputes the
campaign inline, after its commit, and the recompute marks failing workers untrusted.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from analytics.models import RankingWorkerStat
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.e2e.conftest import DEFAULT_TIMEOUT_MS
from tests.integration.test_ranking_pipeline import (
    QUALITY,
    build_ranking_campaign,
    careful_ranks,
    careless_ranks,
    gold_seen,
    sets_of,
)

pytestmark = pytest.mark.e2e

POLITE = "There is no more work for you in this campaign. Thank you for your help."


def start(page, campaign) -> Assignment | None:
    """Ask for work on the entry page; the assignment handed out, or None (a message page)."""
    page.goto(f"/work/{campaign.pk}/")
    page.get_by_role("button", name="Start").click()
    page.wait_for_load_state()
    if "/work/a/" not in page.url:
        return None
    token = page.url.rstrip("/").rsplit("/", 1)[-1]
    return Assignment.objects.get(pk=tokens.read_assignment_token(token).assignment_id)


def rank_hit(page, assignment, choose) -> None:
    """Rank every set of the page with number keys, one per translation, then Enter."""
    sets = sets_of(assignment)
    expect(page.locator(".rank-set")).to_have_count(len(sets))
    page.locator(".rank-set").nth(0).locator(".rank-output").nth(0).focus()
    for _, slots in sorted(sets.items()):
        for rank in choose(slots):
            page.keyboard.press(str(rank))
    expect(page.locator("#next")).to_be_focused()
    page.keyboard.press("Enter")
    # Celery is eager in this test, so the last submission also recomputes the campaign's
    # scores (a bootstrap of 1,000 samples) before the page moves on: seconds on a busy machine.
    expect(page.locator("h1")).to_have_text("Thank you!", timeout=30_000)
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED


def new_page(browser, live_server):
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(DEFAULT_TIMEOUT_MS)
    return context, context.new_page()


def cells(row) -> list[str]:
    return [" ".join(text.split()) for text in row.locator("td").all_inner_texts()]


def test_a_worker_who_fails_gold_is_cut_off_and_the_requester_sees_why(
    browser, live_server, admin_page
):
    campaign = build_ranking_campaign(segments=12)  # 6 HITs of 3 sets, 5 of them gold sets
    careful_context, careful = new_page(browser, live_server)
    careless_context, careless = new_page(browser, live_server)
    try:
        first = start(careful, campaign)
        rank_hit(careful, first, careful_ranks)
        second = start(careful, campaign)
        rank_hit(careful, second, careful_ranks)

        done = []
        while (assignment := start(careless, campaign)) is not None:
            rank_hit(careless, assignment, careless_ranks)
            done.append(assignment)
            assert len(done) <= 4, "the careless worker was never cut off"
        expect(careless.locator(".notice")).to_have_text(POLITE)
        html = careless.content().lower()
        assert "gold" not in html and "trust" not in html
        worker = done[0].worker
        assert gold_seen(worker.pk) >= 2
        assert CampaignWorker.objects.get(campaign=campaign, worker=worker).untrusted
        # The careful worker still gets work.
        assert start(careful, campaign) is not None
    finally:
        careful_context.close()
        careless_context.close()
    assert Judgment.objects.filter(worker=worker).count() == 12 * len(done)  # all kept

    page = admin_page
    page.goto(f"/admin/campaigns/campaign/{campaign.pk}/change/")
    panel = page.locator("#ranking-results")
    expect(panel).to_be_visible()
    stats = {
        row.worker.external_id: row
        for row in RankingWorkerStat.objects.filter(campaign=campaign).select_related("worker")
    }
    rows = {
        cells(row)[1].split(" ")[0]: cells(row)
        for row in panel.locator("#ranking-trust tbody tr").all()
    }
    careless_row = rows[worker.external_id]
    stat = stats[worker.external_id]
    assert careless_row[2:] == [
        str(3 * len(done)),
        str(stat.gold_seen),
        "0",
        "0.0%",
        "untrusted",
        "yes",
        "no",
        "no",
    ]
    careful_row = rows[first.worker.external_id]
    assert careful_row[6:] == ["trusted", "no", "no", "yes"]
    assert careful_row[3] == careful_row[4]  # every gold unit right

    # Scores from the careful worker alone: the systems in their order by every method.
    for method in ("win_ratio_geq", "expected_wins", "bradley_terry", "trueskill"):
        names = [cells(row)[1] for row in panel.locator(f"#ranking-scores-{method} tbody tr").all()]
        assert names == QUALITY, method
    panel.get_by_role("link", name="Show scores from all workers, untrusted ones included").click()
    expect(page.locator("#ranking-variant")).to_have_text("Systems: all workers")
