"""The campaign page and the list's action menu (issue 17): the MTurk panel shows only where
MTurk makes sense (credentials, or the campaign is on MTurk or chose it), else one line says
how to enable it; every action of the list's menu has its way on one campaign's page (the
checklist's buttons, through CampaignAdmin.step_view), and the menu is grouped, the common
actions first."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.contrib.messages import get_messages
from django.test import RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone

from campaigns.admin import mturk as mturk_admin
from campaigns.admin.campaign import ACTION_GROUPS
from campaigns.checklist import campaign_checklist
from campaigns.models import Campaign, CampaignStatus, MTurkHit
from tests.campaigns.platforms.publishing_support import (
    BASE,
    expire_params,
    mturk_campaign,
    published_rows,
    stubbed_mturk,
)
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_credentials(monkeypatch):
    monkeypatch.setattr(mturk_admin, "mturk_credentials_configured", lambda: False)


@pytest.fixture
def credentials(monkeypatch):
    monkeypatch.setattr(mturk_admin, "mturk_credentials_configured", lambda: True)


@pytest.fixture
def mturk_stub():
    yield from stubbed_mturk()


def change_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk])


def step_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_step", args=[campaign.pk])


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- The MTurk panel, where it makes sense ------------------------------------------------------


def test_a_campaign_off_mturk_gets_a_one_line_hint_instead_of_the_panel(
    admin_client, no_credentials
):
    campaign = CampaignFactory()
    HitSlotFactory(hit=HitFactory(campaign=campaign))
    html = admin_client.get(change_url(campaign)).content.decode()
    assert 'id="mturk"' not in html
    hint = re.search(r'<p id="mturk-hint" class="help">([^<]*)</p>', html).group(1)
    assert hint.startswith("Amazon Mechanical Turk is not set up: this server has no AWS")
    assert "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)" in hint
    # The checklist agrees: no MTurk button, a line saying why.
    assert reverse("admin:campaigns_campaign_mturk_publish", args=[campaign.pk]) not in html
    assert "MTurk: not set up (this server has no AWS credentials" in html


@pytest.mark.parametrize(
    "why",
    ["credentials", "published", "settings"],
)
def test_the_panel_shows_with_credentials_or_when_the_campaign_is_on_mturk(
    admin_client, monkeypatch, why
):
    monkeypatch.setattr(mturk_admin, "mturk_credentials_configured", lambda: why == "credentials")
    campaign = CampaignFactory(**({"mturk_locales": ["US"]} if why == "settings" else {}))
    if why == "published":
        published_rows(campaign, count=1)
    else:
        HitSlotFactory(hit=HitFactory(campaign=campaign))
    html = admin_client.get(change_url(campaign)).content.decode()
    assert '<section id="mturk" class="module">' in html
    assert 'id="mturk-hint"' not in html
    assert reverse("admin:campaigns_campaign_mturk_publish", args=[campaign.pk]) in html


def test_credentials_are_read_from_the_environment_without_instance_metadata(monkeypatch, tmp_path):
    for name in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")  # were it asked, never wait
    assert mturk_admin.mturk_credentials_configured() is False
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    assert mturk_admin.mturk_credentials_configured() is True


def test_chose_mturk_by_settings_events_or_hits():
    campaign = CampaignFactory()
    assert mturk_admin.chose_mturk(campaign) is False
    for field, value in (
        ("mturk_sandbox", False),
        ("mturk_qualification_type_id", "3QUALTYPE"),
        ("mturk_min_approval_rate", 98),
    ):
        other = CampaignFactory(**{field: value})
        assert mturk_admin.chose_mturk(other) is True, field


# --- The action menu ------------------------------------------------------------------------------


def test_the_menu_is_grouped_common_actions_first(admin_client):
    CampaignFactory()
    html = admin_client.get(reverse("admin:campaigns_campaign_changelist")).content.decode()
    select = re.search(r'<select name="action"[^>]*>(.*?)</select>', html, re.S).group(1)
    groups = re.findall(r'<optgroup label="([^"]*)">(.*?)</optgroup>', select, re.S)
    assert [label for label, _ in groups] == [
        "Run the campaign",
        "Reach workers",
        "MTurk HITs",
        "Export",
        "Delete",
    ]
    values = [re.findall(r'<option value="([a-z_]+)"', body) for _, body in groups]
    assert values == [list(names) for _, names in ACTION_GROUPS]
    assert select.strip().startswith('<option value="" selected>---------</option>')
    # Every action the admin has is in a group (none lands in "Other").
    request = RequestFactory().get("/")
    request.user = _superuser()
    actions = set(admin.site._registry[Campaign].get_actions(request))
    assert actions == {name for _, names in ACTION_GROUPS for name in names}


def _superuser():
    from django.contrib.auth.models import User

    return User.objects.get(is_superuser=True)


# How each action of the list's menu is done for one campaign from its page: the checklist
# button that posts the step (CampaignAdmin.step_view) or opens the action's own page.
ON_THE_PAGE = {
    "build_hits": ("post", "build"),
    "delete_hits": ("post", "delete_hits"),
    "activate": ("post", "activate"),
    "pause": ("post", "pause"),
    "finish": ("post", "finish"),
    "create_worker_links": ("link", "campaigns_campaign_links"),
    "prolific_study": ("link", "campaigns_campaign_prolific"),
    "publish_to_mturk": ("link", "campaigns_campaign_mturk_publish"),
    "sync_with_mturk": ("post", "sync_mturk"),
    "expire_mturk_hits": ("post", "expire_mturk"),
    "extend_mturk_hits": ("post", "extend_mturk"),
    "export_worker_background": ("post", "export_background"),
}


def _buttons(campaign) -> set[tuple[str, str]]:
    checklist = campaign_checklist(
        campaign, can_change=True, can_publish_mturk=True, mturk_shown=True
    )
    found = set()
    for step in checklist.steps:
        for button in step.buttons:
            found.add(("post", button.post) if button.post else ("link", button.url))
    return found


def test_every_single_campaign_action_has_its_button_on_the_campaign_page(admin_client):
    """Each of the menu's actions but deleting (the page's own Delete link) is reachable on
    one campaign's page, in the state where it applies: a draft with HITs builds and
    activates; an active campaign on MTurk with judgments pauses, finishes, makes links,
    publishes, syncs, expires, extends and exports."""
    names = {name for _, group in ACTION_GROUPS for name in group} - {"delete_selected"}
    assert set(ON_THE_PAGE) == names
    expected = {
        name: (kind, reverse(f"admin:{target}", args=[0]).replace("/0/", "/{}/"))
        if kind == "link"
        else (kind, target)
        for name, (kind, target) in ON_THE_PAGE.items()
    }

    draft = CampaignFactory(status=CampaignStatus.DRAFT)
    HitSlotFactory(hit=HitFactory(campaign=draft))
    active = mturk_campaign(status=CampaignStatus.ACTIVE)
    (row,) = published_rows(active, count=1)
    HitSlotFactory(hit=row.hit)
    JudgmentFactory(assignment=AssignmentFactory(hit=row.hit), slot=row.hit.slots.first())
    reachable = set()
    for campaign in (draft, active):
        buttons = _buttons(campaign)
        for name, (kind, target) in expected.items():
            wanted = (kind, target.format(campaign.pk) if kind == "link" else target)
            if wanted in buttons:
                reachable.add(name)
    # Build: a draft with HITs offers "Rebuild HITs"; the others on the active campaign.
    assert reachable == names
    # The page itself shows them (one rendering, as a requester sees it).
    html = admin_client.get(change_url(active)).content.decode()
    for step in ("sync_mturk", "expire_mturk", "extend_mturk", "export_background"):
        assert f'data-step="{step}"' in html


@override_settings(PUBLIC_BASE_URL=BASE)
def test_expire_from_the_page_confirms_then_returns_to_the_checklist(admin_client, mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    response = admin_client.post(step_url(campaign), {"step": "expire_mturk"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "End these 2 MTurk HITs now." in " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert '<input type="hidden" name="step" value="expire_mturk">' in html
    assert not mturk_stub.factory.called
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    response = admin_client.post(step_url(campaign), {"step": "expire_mturk", "apply": "1"})
    assert response.status_code == 302
    assert response["Location"] == change_url(campaign) + "#checklist"
    assert messages_of(response) == ["Ended 2 MTurk HIT(s)."]
    assert MTurkHit.objects.filter(expired_by_requester_at__isnull=False).count() == 2


def test_extend_from_the_page_asks_for_days(admin_client):
    campaign = mturk_campaign()
    published_rows(campaign)
    html = admin_client.post(step_url(campaign), {"step": "extend_mturk"}).content.decode()
    assert 'name="days" value="7"' in html
    assert '<input type="hidden" name="step" value="extend_mturk">' in html


def test_sync_and_export_from_the_page(admin_client):
    campaign = CampaignFactory(name="Sync me")
    response = admin_client.post(step_url(campaign), {"step": "sync_mturk"})
    assert response.status_code == 302
    assert response["Location"] == change_url(campaign) + "#checklist"
    assert messages_of(response) == [
        "Sync me: no HIT is published on MTurk, so there is nothing to sync. Publish it to "
        "MTurk first."
    ]
    response = admin_client.post(step_url(campaign), {"step": "export_background"})
    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="background-campaign-{campaign.pk}.csv"'
    )
    assert b"".join(response.streaming_content).decode().startswith("campaign,worker_id,platform")


def test_the_mturk_steps_need_the_right_to_spend(client, django_user_model):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    campaign = CampaignFactory(owner=viewer)
    client.force_login(viewer)
    assert client.post(step_url(campaign), {"step": "expire_mturk"}).status_code == 403
    # A viewer may download the background, as the list action allows.
    assert client.post(step_url(campaign), {"step": "export_background"}).status_code == 200


def test_expiry_is_untouched_without_apply(admin_client):
    campaign = mturk_campaign()
    (row,) = published_rows(campaign, count=1)
    before = row.expires_at
    admin_client.post(step_url(campaign), {"step": "expire_mturk"})
    row.refresh_from_db()
    assert row.expires_at == before and row.expired_by_requester_at is None
    assert before > timezone.now() + timedelta(days=6)
