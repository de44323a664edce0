"""Smoke test of the browser stack: a requester logs in through the real admin login form."""

import re

import pytest
from django.urls import reverse

from tests.e2e.conftest import ADMIN_PASSWORD, ADMIN_USERNAME, log_in_to_admin

pytestmark = pytest.mark.e2e


def test_admin_login_form_leads_to_index_listing_campaigns(page, admin_user, live_server):
    log_in_to_admin(page, ADMIN_USERNAME, ADMIN_PASSWORD)

    assert page.url == live_server.url + reverse("admin:index")
    assert page.locator("#user-tools").inner_text().upper().startswith("WELCOME,")
    app_captions = page.locator("#content-main caption").all_inner_texts()
    assert "Campaigns" in [caption.strip().title() for caption in app_captions]
    campaigns_link = page.get_by_role("link", name=re.compile(r"^Campaigns$"))
    assert campaigns_link.first.get_attribute("href") == reverse(
        "admin:app_list", args=["campaigns"]
    )


def test_admin_login_form_rejects_a_wrong_password(page, admin_user, live_server):
    log_in_to_admin(page, ADMIN_USERNAME, "not-the-password")

    assert page.url.startswith(live_server.url + reverse("admin:login"))
    assert (
        "Please enter the correct username and password" in page.locator(".errornote").inner_text()
    )
