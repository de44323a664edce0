"""The requester's MTurk pages in the admin (campaigns.admin.mturk), through Django's test client
as a superuser, with MTurk behind botocore's Stubber: the confirmation page (environment, cost,
balance, requirements, ExternalURL, problems), Confirm, expire and extend, the MTurk panel, the
read-only MTurk HIT and platform event lists, and the locale field."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from decimal import Decimal
from unittest.mock import patch

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.contrib.messages import get_messages
from django.test import RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone

from analytics.models import AccessLevel, CampaignAccess
from campaigns.admin.mturk import LocaleListField, numbers_in_words
from campaigns.models import Campaign, CampaignStatus, MTurkHit, PlatformEvent
from campaigns.platforms import events, publishing
from tests.campaigns.platforms.publishing_support import (
    BASE,
    GROUP,
    create_params,
    expect_hit,
    expect_hit_type,
    expire_params,
    mturk_campaign,
    mturk_hit_id,
    published_rows,
    qualification_campaign,
    stubbed_mturk,
)
from tests.factories import HitFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("https_base")]


@pytest.fixture
def https_base():
    with override_settings(PUBLIC_BASE_URL=BASE):
        yield


@pytest.fixture
def mturk_stub():
    yield from stubbed_mturk()


def publish_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_mturk_publish", args=[campaign.pk])


def change_url(campaign) -> str:
    return reverse("admin:campaigns_campaign_change", args=[campaign.pk])


def balance(stub, amount="10000.00"):
    stub.add("get_account_balance", {"AvailableBalance": amount}, {})


def text_of(response) -> str:
    """The page's visible text, whitespace collapsed (for exact sentences)."""
    page = response.content.decode()
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)).strip())


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def reviewed_plan(client, campaign, stub, **query) -> str:
    """Open the confirmation page (one balance call) and return the signed plan its Confirm
    form posts back, as a requester's browser would."""
    balance(stub)
    response = client.get(publish_url(campaign), query)
    found = re.findall(
        r'<input type="hidden" name="plan" value="([^"]*)">', response.content.decode()
    )
    assert len(found) == 1
    return html.unescape(found[0])


def confirm(client, campaign, stub, **query):
    """Review the page, then Confirm what it showed (a second balance call)."""
    plan = reviewed_plan(client, campaign, stub, **query)
    balance(stub)
    return client.post(publish_url(campaign), {"plan": plan, **query})


# --- The confirmation page ------------------------------------------------------------------


def test_page_shows_environment_hits_cost_balance_requirements_and_url(admin_client, mturk_stub):
    campaign = mturk_campaign()
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2)]
    balance(mturk_stub)
    response = admin_client.get(publish_url(campaign))
    assert response.status_code == 200
    page = text_of(response)
    assert "SANDBOX MTurk's sandbox: workers are testers, no money is paid." in page
    assert "0 of 2 HITs of this campaign are on MTurk already." in page
    assert "This publishes 2 HITs (numbers 1-2)." in page
    assert "Assignments per HIT 3 (the redundancy)" in page
    assert "Reward per assignment $0.30" in page
    assert "MTurk's fee 20% = $0.06 per assignment" in page
    assert "Cost (all assignments approved) $2.16" in page
    assert "Most it can cost: $2.16" in page
    assert "Account balance: $10,000.00 (the sandbox's pretend balance; nothing is paid)" in page
    assert (
        "Regular HITs: Located in US, GB At least 95% of earlier work approved At least 1,000 "
        "approved HITs" in page
    )
    assert (
        f"The first HIT shows this page in MTurk's frame: "
        f"https://eval.example.org/work/mturk/{hits[0].pk}/" in page
    )
    assert 'id="mturk-confirm">Publish 2 HITs to the SANDBOX</button>' in response.content.decode()
    mturk_stub.factory.assert_called_once_with(True)


def test_production_is_said_in_large_letters_and_the_test_separately(admin_client, mturk_stub):
    campaign = qualification_campaign(mturk_sandbox=False, mturk_masters=True)
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2, is_qualification=True)
    balance(mturk_stub, "500.00")
    response = admin_client.get(publish_url(campaign))
    page = text_of(response)
    assert 'class="mturk-environment mturk-production"' in response.content.decode()
    assert "PRODUCTION MTurk's production marketplace: real workers, real money." in page
    assert "HITs 1 (number 2) 1" in page  # the test, then the regular HITs
    assert "Assignments per HIT 50 (places in the test) 3 (the redundancy)" in page
    # Masters: 25% fee on 3 assignments; 45% on the test's 50 ($0.135 -> $0.14).
    assert "MTurk's fee 45% = $0.14 per assignment 25% = $0.08 per assignment" in page
    assert "Most it can cost: $23.14" in page
    assert "Account balance: $500.00" in page
    assert (
        "Passed this campaign's qualification test (MTurk qualification created when you "
        "publish)" in page
    )
    assert (
        f'The qualification test (workers who pass are granted the qualification "evalsite '
        f'eval.example.org campaign {campaign.pk}: passed the qualification test"): Located in '
        "US, GB At least 95% of earlier work approved At least 1,000 approved HITs MTurk Masters "
        "only (MTurk charges 5% more)" in page
    )
    mturk_stub.factory.assert_called_once_with(False)


def test_problems_are_listed_and_confirm_is_disabled(admin_client, mturk_stub):
    campaign = mturk_campaign(status=CampaignStatus.DRAFT)
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    response = admin_client.get(publish_url(campaign))
    page = text_of(response)
    assert (
        "Publishing is not possible yet: The campaign is draft, so workers arriving from MTurk "
        "would be turned away. Activate it first (campaign action 'Activate: hand out HITs')."
        in page
    )
    assert 'id="mturk-confirm" disabled>Publish</button>' in response.content.decode()


def test_a_balance_error_is_shown_with_what_to_do_and_blocks_confirm(admin_client, mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    mturk_stub.error(
        "get_account_balance",
        "The security token included in the request is invalid.",
        code="UnrecognizedClientException",
        params={},
    )
    response = admin_client.get(publish_url(campaign))
    page = text_of(response)
    assert (
        "Account balance unknown: The security token included in the request is invalid. "
        "(UnrecognizedClientException). Check the AWS credentials evalsite runs with" in page
    )
    assert 'id="mturk-confirm" disabled>' in response.content.decode()


def test_a_balance_below_the_cost_blocks_confirm(admin_client, mturk_stub):
    campaign = mturk_campaign(mturk_sandbox=False)
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub, "1.00")
    response = admin_client.get(publish_url(campaign))
    assert (
        "Account balance: $1.00. Not enough for $1.08: add funds to the requester account "
        "(requester.mturk.com, My Account), then try again" in text_of(response)
    )
    assert 'id="mturk-confirm" disabled>' in response.content.decode()


def test_choosing_hit_numbers(admin_client, mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    second = HitFactory(campaign=campaign, number=2)
    balance(mturk_stub)
    page = text_of(admin_client.get(publish_url(campaign), {"hits": "2"}))
    assert "This publishes 1 HIT (numbers 2)." in page
    assert f"https://eval.example.org/work/mturk/{second.pk}/" in page
    balance(mturk_stub)
    page = text_of(admin_client.get(publish_url(campaign), {"hits": "2, 9"}))
    assert "The campaign has no HIT number 9." in page


# --- Confirm --------------------------------------------------------------------------------


def test_confirm_publishes_and_reports_with_the_preview_link(admin_client, mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    plan = reviewed_plan(admin_client, campaign, mturk_stub)
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, hit, 1)
    response = admin_client.post(publish_url(campaign), {"hits": "", "plan": plan})
    assert response.status_code == 302
    assert response["Location"] == change_url(campaign) + "#mturk"
    preview = f"https://workersandbox.mturk.com/projects/{GROUP}/tasks"
    assert messages_of(response) == [
        f"Published 1 HIT(s) to MTurk SANDBOX. See them as workers do: "
        f'<a href="{preview}" target="_blank" rel="noopener">{preview}</a>'
    ]
    row = MTurkHit.objects.get()
    assert (row.hit_id, row.mturk_hit_id, row.sandbox) == (hit.pk, mturk_hit_id(1), True)


def test_confirm_reports_mturk_errors_with_what_to_do(admin_client, mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    plan = reviewed_plan(admin_client, campaign, mturk_stub)
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    mturk_stub.error(
        "create_hit_with_hit_type",
        "MTurk is temporarily unable to process your request.",
        code="ServiceFault",
        params=create_params(campaign, hit),
    )
    response = admin_client.post(publish_url(campaign), {"plan": plan})
    assert messages_of(response) == [
        "MTurk refused (ServiceFault): MTurk is temporarily unable to process your request. "
        "Nothing was published. What to do: MTurk is temporarily unable to process the request: "
        "retry later."
    ]
    assert not MTurkHit.objects.exists()
    # The campaign page's panel shows the stored event.
    page = text_of(admin_client.get(change_url(campaign)))
    assert (
        "Error publish (ServiceFault) MTurk is temporarily unable to process your request. "
        "MTurk is temporarily unable to process the request: retry later." in page
    )


def test_confirm_with_problems_publishes_nothing(admin_client, mturk_stub):
    campaign = mturk_campaign(status=CampaignStatus.PAUSED)
    HitFactory(campaign=campaign, number=1)
    response = confirm(admin_client, campaign, mturk_stub)
    assert response.status_code == 200
    assert messages_of(response) == [
        "Nothing was published: The campaign is paused, so workers arriving from MTurk would be "
        "turned away. Activate it first (campaign action 'Activate: hand out HITs')."
    ]
    assert not MTurkHit.objects.exists()


SETTINGS_CHANGED = (
    "the HITs' settings (title, description, reward, assignments, durations or worker requirements)"
)


def test_confirm_refuses_a_plan_that_changed_since_the_page_and_shows_the_new_one(
    admin_client, mturk_stub
):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    plan = reviewed_plan(admin_client, campaign, mturk_stub)  # SANDBOX, $1.08
    Campaign.objects.filter(pk=campaign.pk).update(mturk_sandbox=False, reward=Decimal("1.00"))
    balance(mturk_stub)
    response = admin_client.post(publish_url(campaign), {"plan": plan})

    assert response.status_code == 200
    assert messages_of(response) == [
        "The plan changed since you reviewed it (environment SANDBOX -> PRODUCTION; most it can "
        f"cost $1.08 -> $3.60; {SETTINGS_CHANGED}); review it again. Nothing was published."
    ]
    assert not MTurkHit.objects.exists()
    assert [call.args for call in mturk_stub.factory.call_args_list] == [(True,), (False,)]
    # The page now shows what Confirm would publish, and confirming that publishes it.
    page = text_of(response)
    assert "PRODUCTION MTurk's production marketplace: real workers, real money." in page
    assert "Most it can cost: $3.60" in page
    campaign.refresh_from_db()
    again = re.findall(r'name="plan" value="([^"]*)"', response.content.decode())
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign, Reward="1.00")
    expect_hit(mturk_stub, campaign, hit, 1, env="p")
    response = admin_client.post(publish_url(campaign), {"plan": html.unescape(again[0])})
    assert response.status_code == 302
    assert MTurkHit.objects.get().sandbox is False


def test_confirm_refuses_when_hits_or_settings_changed(admin_client, mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    plan = reviewed_plan(admin_client, campaign, mturk_stub)
    HitFactory(campaign=campaign, number=2)
    balance(mturk_stub)
    response = admin_client.post(publish_url(campaign), {"plan": plan})
    assert messages_of(response) == [
        "The plan changed since you reviewed it (HITs 1 -> 1-2; most it can cost $1.08 -> "
        "$2.16); review it again. Nothing was published."
    ]

    plan = reviewed_plan(admin_client, campaign, mturk_stub)
    Campaign.objects.filter(pk=campaign.pk).update(title="Rate translations", mturk_locales=[])
    balance(mturk_stub)
    response = admin_client.post(publish_url(campaign), {"plan": plan})
    assert messages_of(response) == [
        f"The plan changed since you reviewed it ({SETTINGS_CHANGED}); review it again. Nothing "
        "was published."
    ]
    assert not MTurkHit.objects.exists()


@pytest.mark.parametrize("posted", [{}, {"plan": "tampered"}])
def test_confirm_without_the_reviewed_plan_publishes_nothing(admin_client, mturk_stub, posted):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    response = admin_client.post(publish_url(campaign), posted)
    assert response.status_code == 200
    assert messages_of(response) == [
        "The plan changed since you reviewed it (the confirmation did not carry the plan you "
        "reviewed); review it again. Nothing was published."
    ]
    assert not MTurkHit.objects.exists()


def test_confirm_refuses_another_campaigns_plan(admin_client, mturk_stub):
    other = mturk_campaign(name="Other")
    HitFactory(campaign=other, number=1)
    plan = reviewed_plan(admin_client, other, mturk_stub)
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    response = admin_client.post(publish_url(campaign), {"plan": plan})
    assert messages_of(response) == [
        "The plan changed since you reviewed it (the confirmation carried another campaign's "
        "plan); review it again. Nothing was published."
    ]
    assert not MTurkHit.objects.exists()


def test_confirm_needs_csrf(mturk_stub):
    from django.test import Client

    user = User.objects.create_superuser("boss", "boss@example.org", "pw")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    assert client.post(publish_url(campaign)).status_code == 403
    mturk_stub.factory.assert_not_called()


def test_staff_without_change_permission_cannot_publish(client, mturk_stub):
    user = User.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(user)
    campaign = mturk_campaign()
    # Not shared with them: not found, as if it did not exist (analytics.access).
    assert client.get(publish_url(campaign)).status_code == 404
    CampaignAccess.objects.create(campaign=campaign, user=user, level=AccessLevel.READ)
    assert client.get(publish_url(campaign)).status_code == 403
    mturk_stub.factory.assert_not_called()


# --- Campaign actions -----------------------------------------------------------------------


def run_action(client, model, action, ids, **extra):
    url = reverse(f"admin:campaigns_{model}_changelist")
    data = {"action": action, "_selected_action": [str(pk) for pk in ids], **extra}
    return client.post(url, data)


def test_publish_action_opens_the_page_for_one_campaign(admin_client):
    first, second = mturk_campaign(), mturk_campaign(name="Other")
    response = run_action(admin_client, "campaign", "publish_to_mturk", [first.pk], index=0)
    assert (response.status_code, response["Location"]) == (302, publish_url(first))
    response = run_action(
        admin_client, "campaign", "publish_to_mturk", [first.pk, second.pk], index=0
    )
    assert messages_of(response) == [
        "Publish one campaign at a time: tick exactly one, then choose the action again."
    ]


def test_expire_action_confirms_then_ends_the_hits(admin_client, mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    response = run_action(admin_client, "campaign", "expire_mturk_hits", [campaign.pk], index=0)
    page = text_of(response)
    assert "End these 2 MTurk HITs now." in page
    assert "Rate German-English SANDBOX 2 0" in page
    assert not mturk_stub.factory.called
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    response = run_action(admin_client, "campaign", "expire_mturk_hits", [campaign.pk], apply="1")
    assert response.status_code == 302
    assert messages_of(response) == ["Ended 2 MTurk HIT(s)."]
    assert MTurkHit.objects.filter(expired_by_requester_at__isnull=False).count() == 2


def test_extend_action_asks_for_days_and_extends(admin_client, mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    response = run_action(
        admin_client, "campaign", "extend_mturk_hits", [campaign.pk], apply="1", days="0"
    )
    assert "Give between 1 and 365 days; got 0." in text_of(response)
    now = timezone.now().replace(microsecond=0)
    until = now + timedelta(days=14)
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row, until))
    with patch("django.utils.timezone.now", return_value=now):
        response = run_action(
            admin_client, "campaign", "extend_mturk_hits", [campaign.pk], apply="1", days="14"
        )
    assert messages_of(response) == ["Extended 2 MTurk HIT(s)."]
    assert set(MTurkHit.objects.values_list("expires_at", flat=True)) == {until}


def test_extend_error_is_shown_and_nothing_local_changes(admin_client, mturk_stub):
    campaign = mturk_campaign()
    (row,) = published_rows(campaign, count=1)
    before = row.expires_at
    now = timezone.now().replace(microsecond=0)
    mturk_stub.error(
        "update_expiration_for_hit",
        "Hit does not exist.",
        turk_code="AWS.MechanicalTurk.HITDoesNotExist",
        params=expire_params(row, now + timedelta(days=30)),
    )
    with patch("django.utils.timezone.now", return_value=now):
        response = run_action(
            admin_client, "campaign", "extend_mturk_hits", [campaign.pk], apply="1", days="30"
        )
    assert messages_of(response) == [
        f"Extended 0 MTurk HIT(s). MTurk refused HIT {row.mturk_hit_id} "
        "(AWS.MechanicalTurk.HITDoesNotExist): Hit does not exist. What to do: MTurk does not "
        "know this HIT id in this environment: check that the campaign uses the environment "
        "(sandbox or production) the HIT was published in."
    ]
    row.refresh_from_db()
    assert row.expires_at == before
    assert PlatformEvent.objects.get().operation == "extend"


# --- The MTurk HIT and event lists ------------------------------------------------------------


def test_mturk_hit_list_is_read_only_with_preview_links_and_actions(admin_client, mturk_stub):
    campaign = mturk_campaign()
    (row,) = published_rows(campaign, count=1)
    response = admin_client.get(reverse("admin:campaigns_mturkhit_changelist"))
    html = response.content.decode()
    assert f"https://workersandbox.mturk.com/projects/{GROUP}/tasks" in html
    assert 'value="expire_mturk_hits"' in html and 'value="extend_mturk_hits"' in html
    assert 'value="delete_selected"' not in html
    assert admin_client.get(reverse("admin:campaigns_mturkhit_add")).status_code == 403
    detail = admin_client.get(reverse("admin:campaigns_mturkhit_change", args=[row.pk]))
    assert 'name="_save"' not in detail.content.decode()
    mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    response = run_action(admin_client, "mturkhit", "expire_mturk_hits", [row.pk], apply="1")
    assert messages_of(response) == ["Ended 1 MTurk HIT(s)."]


def test_platform_event_list_is_read_only(admin_client):
    campaign = mturk_campaign()
    events.record_event(campaign.pk, "error", "publish", "Rate exceeded", what_to_do="Wait.")
    response = admin_client.get(reverse("admin:campaigns_platformevent_changelist"))
    assert "Rate exceeded" in text_of(response) and "Wait." in text_of(response)
    assert admin_client.get(reverse("admin:campaigns_platformevent_add")).status_code == 403


# --- The campaign page ------------------------------------------------------------------------


def test_the_panel_shows_progress_environment_preview_and_the_last_20_events(admin_client):
    campaign = qualification_campaign()
    HitFactory(campaign=campaign, number=3, is_qualification=True)
    published_rows(campaign, count=2)
    for n in range(25):
        events.record_event(campaign.pk, "info", "publish", f"event {n:02d}")
    page = text_of(admin_client.get(change_url(campaign)))
    assert "2 of 3 HITs published to the SANDBOX ." in page
    assert (
        f"HITs as a worker sees them: https://workersandbox.mturk.com/projects/{GROUP}/tasks"
        in page
    )
    shown = re.findall(r"event (\d\d)", page)
    assert shown == [f"{n:02d}" for n in range(24, 4, -1)]


def test_the_locale_field_reads_and_writes_a_list(admin_client):
    campaign = mturk_campaign()
    html = admin_client.get(change_url(campaign)).content.decode()
    assert re.search(r'name="mturk_locales" value="US, GB"', html)
    field = LocaleListField()
    assert field.clean("us, de-by;GB  us") == ["US", "DE-BY", "GB"]
    assert field.clean("") == []
    with pytest.raises(Exception, match="'USA' is not a locale MTurk understands"):
        field.clean("USA")

    model_admin = admin.site._registry[Campaign]
    request = RequestFactory().get("/")
    request.user = User.objects.get(username="admin")
    form_class = model_admin.get_form(request, campaign, change=True)
    unbound = form_class(instance=campaign)
    data = {}
    for name in unbound.fields:
        value = unbound[name].value()
        if value is None or value is False:
            continue
        data[name] = value
    data["mturk_locales"] = "in, us-ca"
    form = form_class(data, instance=campaign)
    assert form.is_valid(), form.errors
    form.save()
    campaign.refresh_from_db()
    assert campaign.mturk_locales == ["IN", "US-CA"]
    data["mturk_locales"] = "Germany"
    form = form_class(data, instance=campaign)
    assert not form.is_valid()
    assert form.errors["mturk_locales"] == [
        "'Germany' is not a locale MTurk understands: use an ISO 3166 country code ('US', "
        "'DE'), optionally with a subdivision ('US-CA')."
    ]


def test_numbers_in_words():
    assert numbers_in_words([7, 1, 2, 3, 9, 10]) == "1-3, 7, 9-10"
    assert numbers_in_words([]) == ""


def test_a_fresh_campaign_page_shows_an_empty_panel(admin_client):
    campaign = mturk_campaign(mturk_sandbox=False, reward=Decimal("1.00"))
    page = text_of(admin_client.get(change_url(campaign)))
    assert (
        "0 of 0 HITs published (the campaign publishes to the PRODUCTION ). Publish to MTurk…"
        in page
    )
    assert "No platform events yet." in page


def test_with_a_broker_confirm_queues_the_task_and_says_where_to_look(admin_client, mturk_stub):
    from campaigns.tasks.publishing import publish_to_mturk

    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    plan = reviewed_plan(admin_client, campaign, mturk_stub)
    balance(mturk_stub)
    saved = publish_to_mturk.app.conf.task_always_eager
    publish_to_mturk.app.conf.task_always_eager = False
    try:
        with patch.object(publish_to_mturk, "delay") as delay:
            response = admin_client.post(publish_url(campaign), {"plan": plan})
    finally:
        publish_to_mturk.app.conf.task_always_eager = saved
    # The task gets the plan the requester confirmed, to check again when it runs.
    delay.assert_called_once_with(campaign.pk, [hit.pk], publishing.reviewed_plan(plan))
    assert messages_of(response) == [
        "Publishing 1 HIT(s) to MTurk's sandbox in the background. Reload this page in a "
        "minute: the MTurk panel shows the outcome."
    ]
    assert not MTurkHit.objects.exists()
