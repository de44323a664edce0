"""manage.py mturk_hits: plan, publish, expire, extend and balance from the command line, with
MTurk behind botocore's Stubber (the same calls, parameters and checks as the admin)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from io import StringIO
from unittest.mock import patch

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus, MTurkHit
from campaigns.platforms import publishing
from tests.campaigns.platforms.publishing_support import (
    BASE,
    GROUP,
    create_params,
    expect_hit,
    expect_hit_type,
    expire_params,
    mturk_campaign,
    published_rows,
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


def run(*args: str) -> str:
    out = StringIO()
    call_command("mturk_hits", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def balance(stub, amount="10000.00"):
    stub.add("get_account_balance", {"AvailableBalance": amount}, {})


def test_plan_prints_the_admin_summary_and_the_balance(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    assert run("plan", campaign.name).splitlines() == [
        f"Campaign: Rate German-English (id {campaign.pk})",
        "Environment: SANDBOX (no money is paid)",
        "On MTurk already: 0 of 1 HIT(s)",
        "To publish: 1 HIT(s)",
        "  Regular HITs: 1 HIT(s) x 3 assignment(s) x $0.30 reward + MTurk fee 20% ($0.06 per "
        "assignment) = $1.08",
        "Most it can cost: $1.08 (every assignment approved)",
        "Worker requirements: Located in US, GB; At least 95% of earlier work approved; At "
        "least 1,000 approved HITs",
        f"ExternalURL of the first HIT: {BASE}/work/mturk/{hit.pk}/",
        "Account balance: $10,000.00 (the sandbox's pretend balance; nothing is paid)",
    ]


def test_plan_with_problems_exits_with_an_error(mturk_stub):
    campaign = mturk_campaign(status=CampaignStatus.DRAFT)
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    with pytest.raises(CommandError, match="Publishing is not possible yet: see the problems"):
        run("plan", str(campaign.pk))


def test_publish_with_yes_publishes_and_prints_the_preview(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, hit, 1)
    output = run("publish", str(campaign.pk), "--yes").splitlines()
    assert output[-2:] == [
        "Published 1 HIT(s) to MTurk SANDBOX.",
        f"See them as workers do: https://workersandbox.mturk.com/projects/{GROUP}/tasks",
    ]
    assert MTurkHit.objects.get().hit_id == hit.pk


def test_publish_asks_first(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    with patch("builtins.input", return_value="no") as asked:
        with pytest.raises(CommandError, match="Nothing was done \\(not confirmed"):
            run("publish", campaign.name)
    asked.assert_called_once_with(
        "Publish 1 HIT(s) to MTurk's SANDBOX for at most $1.08? Type yes to go on: "
    )
    assert not MTurkHit.objects.exists()
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, hit, 1)
    with patch("builtins.input", return_value="yes"):
        assert "Published 1 HIT(s) to MTurk SANDBOX." in run("publish", campaign.name)


def test_publish_refuses_a_plan_that_changed_while_asking(mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)

    def answer_while_someone_edits(question: str) -> str:
        Campaign.objects.filter(pk=campaign.pk).update(mturk_sandbox=False)
        return "yes"

    with patch("builtins.input", side_effect=answer_while_someone_edits):
        with pytest.raises(CommandError) as caught:
            run("publish", campaign.name)
    assert str(caught.value) == (
        "Nothing was published. The plan changed since you reviewed it (environment SANDBOX -> "
        "PRODUCTION); review it again. Look at the plan again (the admin's 'Publish to MTurk' "
        "page or manage.py mturk_hits plan) and confirm what it shows now."
    )
    assert not MTurkHit.objects.exists()
    mturk_stub.factory.assert_called_once_with(True)  # the balance only


def test_publish_only_the_chosen_hit_numbers(mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    second = HitFactory(campaign=campaign, number=2)
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, second, 1)
    run("publish", campaign.name, "--hits", "2", "--yes")
    assert list(MTurkHit.objects.values_list("hit_id", flat=True)) == [second.pk]


def test_publish_refuses_when_the_balance_is_short(mturk_stub):
    campaign = mturk_campaign(mturk_sandbox=False)
    HitFactory(campaign=campaign, number=1)
    balance(mturk_stub, "1.00")
    with pytest.raises(CommandError) as caught:
        run("publish", campaign.name, "--yes")
    assert str(caught.value) == (
        "Nothing was published: Account balance: $1.00. Not enough for $1.08: add funds to the "
        "requester account (requester.mturk.com, My Account), then try again"
    )
    mturk_stub.factory.assert_called_once_with(False)


def test_publish_reports_an_mturk_error_and_keeps_nothing_half_done(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    balance(mturk_stub)
    expect_hit_type(mturk_stub, campaign)
    mturk_stub.error(
        "create_hit_with_hit_type",
        "Rate exceeded",
        code="ThrottlingException",
        params=create_params(campaign, hit),
    )
    with pytest.raises(CommandError) as caught:
        run("publish", campaign.name, "--yes")
    assert str(caught.value) == (
        "MTurk refused (ThrottlingException): Rate exceeded Nothing was published. What to do: "
        "MTurk is throttling this account: wait a minute and retry. Retrying is safe: HIT "
        "creation and bonuses carry a unique request token, so nothing is done twice."
    )
    assert not MTurkHit.objects.exists()


def test_bad_arguments_say_what_is_wrong():
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    with pytest.raises(CommandError, match='No campaign named or numbered "nope"'):
        run("plan", "nope")
    with pytest.raises(CommandError, match="The campaign has no HIT number 4."):
        run("plan", campaign.name, "--hits", "1,4")
    with pytest.raises(CommandError, match="'one' is not a HIT number"):
        run("plan", campaign.name, "--hits", "one")
    with pytest.raises(CommandError, match="--days goes with extend."):
        run("publish", campaign.name, "--days", "3")
    with pytest.raises(CommandError, match="extend needs --days N"):
        run("extend", campaign.name)


def test_expire_and_extend(mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    assert run("expire", campaign.name, "--yes") == "Ended 2 MTurk HIT(s).\n"
    assert run("expire", campaign.name, "--yes") == (
        "No MTurk HIT to end: none published, or all already ended.\n"
    )
    now = timezone.now().replace(microsecond=0)
    until = now + timedelta(days=5)
    mturk_stub.add("update_expiration_for_hit", {}, expire_params(rows[1], until))
    with patch("django.utils.timezone.now", return_value=now):
        assert run("extend", campaign.name, "--days", "5", "--hits", "2") == (
            "Extended 1 MTurk HIT(s).\n"
        )
    rows[1].refresh_from_db()
    assert (rows[1].expires_at, rows[1].expired_by_requester_at) == (until, None)


def test_balance(mturk_stub):
    campaign = mturk_campaign(mturk_sandbox=False, reward=Decimal("1.00"))
    balance(mturk_stub, "250.5")
    assert run("balance", campaign.name) == "Account balance: $250.50\n"
    mturk_stub.error(
        "get_account_balance",
        "The security token included in the request is invalid.",
        code="UnrecognizedClientException",
        params={},
    )
    with pytest.raises(CommandError, match="Account balance unknown: The security token"):
        run("balance", campaign.name)


# --- What the command builds on: the balance and HIT numbers ----------------------------------


def test_funds_cover_the_cost_or_say_why_not(mturk_stub):
    campaign = mturk_campaign(mturk_sandbox=False)
    balance(mturk_stub, "1.50")
    funds = publishing.check_funds(campaign)
    assert funds.balance == Decimal("1.50")
    assert funds.covers(Decimal("1.50")) and not funds.covers(Decimal("1.51"))
    assert funds.summary(Decimal("2.16")) == (
        "Account balance: $1.50. Not enough for $2.16: add funds to the requester account "
        "(requester.mturk.com, My Account), then try again"
    )
    mturk_stub.error(
        "get_account_balance",
        "The security token included is invalid.",
        code="UnrecognizedClientException",
        params={},
    )
    failed = publishing.check_funds(campaign)
    assert failed.balance is None and not failed.covers(Decimal("0"))
    assert failed.summary(Decimal("1")).startswith(
        "Account balance unknown: The security token included is invalid. "
        "(UnrecognizedClientException). Check the AWS credentials evalsite runs with"
    )


def test_hit_numbers_and_ranges():
    assert publishing.parse_hit_numbers("1-3, 7,3") == [1, 2, 3, 7]
    with pytest.raises(ValueError, match="'x' is not a HIT number"):
        publishing.parse_hit_numbers("1, x")
    campaign = mturk_campaign()
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2)]
    assert publishing.hit_ids_for_numbers(campaign, [2, 1]) == [hits[1].pk, hits[0].pk]
    with pytest.raises(ValueError, match="The campaign has no HIT number 5, 9."):
        publishing.hit_ids_for_numbers(campaign, [1, 5, 9])
