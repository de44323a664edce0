"""A ranking campaign's gold answer chosen by name in Chromium (session 16's requester
walkthrough: the form asked for numeric ids): from the campaign's gold answers the requester
adds one, types into the segment's autocomplete, picks the segment, then finds the best and
the worst output among that segment's outputs only (static/js/gold-answer-form.js narrows
the search), and saves; choosing another segment clears the outputs chosen for the last."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaigns.models import GoldAnswer
from tests.campaigns.kinds.ranking.test_gold_import import SYSTEMS, gold_campaign

pytestmark = pytest.mark.e2e


def choose(page, field: str, typed: str, option: str) -> None:
    """Open the select2 box of ``field``, type ``typed``, pick the option ``option``."""
    page.locator(f".field-{field} .select2-selection").click()
    search = page.locator(".select2-container--open .select2-search__field")
    expect(search).to_be_visible()
    search.press_sequentially(typed, delay=30)
    options = page.locator(".select2-results__option:not(.loading-results)")
    expect(options.filter(has_text=option)).to_have_count(1)
    options.filter(has_text=option).click()


def offered(page, field: str, typed: str) -> list[str]:
    page.locator(f".field-{field} .select2-selection").click()
    search = page.locator(".select2-container--open .select2-search__field")
    search.press_sequentially(typed, delay=30)
    options = page.locator(".select2-results__option:not(.loading-results)")
    expect(options.first).to_be_visible()
    page.wait_for_timeout(300)  # the search answers once the typing pauses
    shown = options.all_inner_texts()
    search.press("Escape")
    return shown


def test_the_requester_picks_the_segment_then_its_outputs_by_name(admin_page, admin_user):
    page = admin_page
    campaign = gold_campaign(owner=admin_user)
    page.set_viewport_size({"width": 1280, "height": 900})
    filters = f"segment__campaign__id__exact={campaign.pk}"
    page.goto(f"{reverse('admin:campaigns_goldanswer_changelist')}?{filters}")
    with page.expect_navigation():
        page.get_by_role("link", name="Add gold answer").click()

    choose(page, "segment", "Satz 2", "doc news-1, seg 2: Satz 2.")
    # Only segment 2's outputs, one per system, by system name and text (in name order).
    assert offered(page, "best_output", "s") == [
        f"{name}: {name} says 2." for name in sorted(SYSTEMS)
    ]
    choose(page, "best_output", SYSTEMS[0], f"{SYSTEMS[0]}: {SYSTEMS[0]} says 2.")
    choose(page, "worst_output", SYSTEMS[1], f"{SYSTEMS[1]}: {SYSTEMS[1]} says 2.")

    # Another segment: the outputs chosen for segment 2 are cleared.
    choose(page, "segment", "Satz 3", "doc news-1, seg 3: Satz 3.")
    expect(page.locator(".field-best_output .select2-selection__rendered")).not_to_contain_text(
        "says 2."
    )
    choose(page, "best_output", SYSTEMS[2], f"{SYSTEMS[2]}: {SYSTEMS[2]} says 3.")
    choose(page, "worst_output", SYSTEMS[3], f"{SYSTEMS[3]}: {SYSTEMS[3]} says 3.")
    with page.expect_navigation():
        page.locator("input[name='_save']").click()

    expect(page.locator(".messagelist .success")).to_contain_text("was added successfully")
    answer = GoldAnswer.objects.get(segment__campaign=campaign)
    assert (
        answer.segment.external_id,
        answer.best_output.system.name,
        answer.worst_output.system.name,
    ) == ("3", SYSTEMS[2], SYSTEMS[3])
