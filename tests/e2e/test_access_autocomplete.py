"""Granting analyst access in Chromium (issue 17: it needed a user's numeric id): on the
campaign page the requester adds a collaborator row, types the start of a name into Django
admin's autocomplete (select2, asking the campaign's own user search), picks the user from
the list and saves; the grant is stored for that user. A full-page screenshot is kept
(EVALSITE_E2E_SCREENSHOTS, else the test's tmp folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from analytics.models import AccessLevel, CampaignAccess
from tests.factories import CampaignFactory

pytestmark = pytest.mark.e2e


@pytest.fixture
def shots(tmp_path) -> Path:
    chosen = os.environ.get("EVALSITE_E2E_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_owner_types_a_name_and_picks_the_user(
    admin_page, admin_user, django_user_model, shots
):
    page = admin_page
    for name in ("anna", "andreas", "bert"):
        django_user_model.objects.create_user(name, email=f"{name}@example.org", password="pw")
    django_user_model.objects.create_user("anton", password="pw", is_active=False)
    campaign = CampaignFactory(owner=admin_user, name="Access by name")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(reverse("admin:campaigns_campaign_change", args=[campaign.pk]))

    group = page.locator("#accesses-group")
    group.locator(".add-row a").click()
    row = group.locator("#accesses-0")
    expect(row).to_be_visible()
    # select2 hides the <select> and shows its own box; opening it shows a search field.
    row.locator(".field-user .select2-selection").click()
    search = page.locator(".select2-container--open .select2-search__field")
    expect(search).to_be_visible()
    search.press_sequentially("an", delay=50)
    options = page.locator(".select2-results__option:not(.loading-results)")
    # Active users starting with "an", by name; not the inactive anton, nor bert, nor the
    # owner; no e-mail addresses.
    expect(options).to_have_text(["andreas", "anna"])
    page.screenshot(path=str(shots / "access-autocomplete-open.png"), full_page=False)
    options.filter(has_text="anna").click()
    expect(row.locator(".field-user .select2-selection__rendered")).to_have_text("anna")
    row.locator("select[name='accesses-0-level']").select_option(AccessLevel.CHANGE)

    with page.expect_navigation():
        page.locator("input[name='_continue']").click()
    expect(page.locator(".messagelist .success")).to_contain_text("was changed successfully")
    grant = CampaignAccess.objects.get(campaign=campaign)
    assert (grant.user.username, grant.level) == ("anna", AccessLevel.CHANGE)
    # The saved row shows the user by name, still through the autocomplete.
    saved = page.locator("#accesses-0 .field-user .select2-selection__rendered")
    expect(saved).to_have_text("anna")
    page.screenshot(path=str(shots / "access-autocomplete-saved.png"), full_page=True)
