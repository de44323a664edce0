"""Publishing to MTurk against botocore's Stubber: the exact parameters of every call,
idempotent retries, recovered duplicates, MTurk's errors stored with what to do."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import CampaignStatus, MTurkHit, PlatformEvent
from campaigns.platforms import publishing
from campaigns.tasks.publishing import publish_to_mturk
from tests.campaigns.platforms import publishing_support as support
from tests.campaigns.platforms.publishing_support import (
    APPROVAL_RATE,
    APPROVED_HITS,
    GROUP,
    HIT_TYPE,
    LOCALE,
    PASSED_TEST,
    QUAL,
    TEST_GROUP,
    create_params,
    expect_hit,
    expect_hit_type,
    expect_test_hit,
    hit_type_params,
    list_params,
    mturk_campaign,
    mturk_hit_id,
    qualification_campaign,
    token,
)
from tests.factories import HitFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("https_base")]

https_base = support.https_base  # the shared fixture
mturk_stub = support.mturk_stub  # the shared fixture


# --- Publish ---------------------------------------------------------------------------------


def test_publish_creates_each_hit_with_the_exact_parameters(mturk_stub):
    campaign = mturk_campaign()
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2)]
    expect_hit_type(mturk_stub, campaign)
    for n, hit in enumerate(hits, start=1):
        expect_hit(mturk_stub, campaign, hit, n)
    before = timezone.now()
    result = publishing.publish(campaign.pk)
    assert (result.ok, result.created, result.recovered) == (True, 2, 0)
    assert result.preview_urls == [f"https://workersandbox.mturk.com/projects/{GROUP}/tasks"]
    mturk_stub.factory.assert_called_once_with(True)
    rows = list(MTurkHit.objects.order_by("hit__number"))
    assert [(r.hit_id, r.mturk_hit_id, r.hit_type_id, r.hit_group_id) for r in rows] == [
        (hits[0].pk, mturk_hit_id(1), HIT_TYPE, GROUP),
        (hits[1].pk, mturk_hit_id(2), HIT_TYPE, GROUP),
    ]
    assert all(r.sandbox and r.max_assignments == 3 for r in rows)
    # The reward MTurk now pays for them, whatever the campaign's becomes.
    assert [str(r.reward) for r in rows] == ["0.30", "0.30"]
    lifetime = timedelta(seconds=604800)
    assert before + lifetime <= rows[0].expires_at <= timezone.now() + lifetime
    event = PlatformEvent.objects.get()
    assert (event.kind, event.operation) == ("info", "publish")
    assert event.message == "Published 2 HIT(s) to MTurk's sandbox. Most it can cost: $2.16."
    assert event.what_to_do == (
        "Check the HITs as a worker sees them: "
        f"https://workersandbox.mturk.com/projects/{GROUP}/tasks"
    )


def test_production_uses_the_production_client_and_token_prefix(mturk_stub):
    campaign = mturk_campaign(mturk_sandbox=False, mturk_masters=True)
    hit = HitFactory(campaign=campaign, number=1)
    masters = {
        "QualificationTypeId": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
        "Comparator": "Exists",
        "ActionsGuarded": "Accept",
    }
    expect_hit_type(
        mturk_stub, campaign, requirements=(LOCALE, APPROVAL_RATE, APPROVED_HITS, masters)
    )
    expect_hit(mturk_stub, campaign, hit, 1, env="p")
    result = publishing.publish(campaign.pk)
    assert result.ok and result.created == 1
    mturk_stub.factory.assert_called_once_with(False)
    assert MTurkHit.objects.get().sandbox is False
    assert result.preview_urls == [f"https://worker.mturk.com/projects/{GROUP}/tasks"]


def test_qualification_type_then_the_test_hit_then_the_regular_hits(mturk_stub):
    campaign = qualification_campaign()
    regular = HitFactory(campaign=campaign, number=1)
    test = HitFactory(campaign=campaign, number=2, is_qualification=True)
    name = f"evalsite eval.example.org campaign {campaign.pk}: passed the qualification test"
    mturk_stub.add(
        "list_qualification_types",
        {"NumResults": 0, "QualificationTypes": []},
        list_params(name),
    )
    mturk_stub.add(
        "create_qualification_type",
        {"QualificationType": {"QualificationTypeId": QUAL}},
        {
            "Name": name,
            "Description": 'Granted to workers who passed the qualification test of "Rate '
            'English translations of German sentences". The other tasks of that campaign '
            "require it.",
            "QualificationTypeStatus": "Active",
        },
    )
    expect_test_hit(mturk_stub, campaign, test, 1, group=TEST_GROUP)
    expect_hit_type(
        mturk_stub, campaign, requirements=(LOCALE, APPROVAL_RATE, APPROVED_HITS, PASSED_TEST)
    )
    expect_hit(mturk_stub, campaign, regular, 2)
    result = publishing.publish(campaign.pk)
    assert (result.ok, result.created, result.group_ids) == (True, 2, [TEST_GROUP, GROUP])
    campaign.refresh_from_db()
    assert campaign.mturk_qualification_type_id == QUAL
    assert dict(MTurkHit.objects.values_list("hit_id", "max_assignments")) == {
        test.pk: 50,
        regular.pk: 3,
    }


def test_an_existing_qualification_type_is_found_by_name_not_created_again(mturk_stub):
    campaign = qualification_campaign(mturk_qualification_type_id=QUAL)
    test = HitFactory(campaign=campaign, number=1, is_qualification=True)
    name = publishing.qualification_type_name(campaign)
    mturk_stub.add(
        "list_qualification_types",
        {
            "NumResults": 1,
            "QualificationTypes": [
                {"QualificationTypeId": QUAL, "Name": name, "QualificationTypeStatus": "Active"}
            ],
        },
        list_params(name),
    )
    expect_test_hit(mturk_stub, campaign, test, 1)
    assert publishing.publish(campaign.pk).created == 1


def test_a_failure_part_way_keeps_what_was_created_and_a_retry_creates_only_the_rest(mturk_stub):
    campaign = mturk_campaign()
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2, 3)]
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, hits[0], 1)
    mturk_stub.error(
        "create_hit_with_hit_type",
        "Rate exceeded",
        code="ThrottlingException",
        params=create_params(campaign, hits[1]),
    )
    result = publishing.publish(campaign.pk)
    assert (result.ok, result.created, result.error_code) == (False, 1, "ThrottlingException")
    assert list(MTurkHit.objects.values_list("hit_id", flat=True)) == [hits[0].pk]
    event = PlatformEvent.objects.get(kind="error")
    assert (event.operation, event.code, event.message) == (
        "publish",
        "ThrottlingException",
        "Rate exceeded",
    )
    assert event.what_to_do == (
        "MTurk is throttling this account: wait a minute and retry. Retrying is safe: HIT "
        "creation and bonuses carry a unique request token, so nothing is done twice. The 1 "
        "HIT(s) published before the error are kept; publishing again creates only the missing "
        "ones."
    )
    assert result.message() == (
        "MTurk refused (ThrottlingException): Rate exceeded Published 1 HIT(s) to MTurk SANDBOX; "
        "they are kept, and publishing again creates only the missing ones. What to do: "
        + event.what_to_do
    )

    # The retry: the same HIT type (MTurk returns the same id), HITs 2 and 3 only.
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, hits[1], 2)
    expect_hit(mturk_stub, campaign, hits[2], 3)
    retry = publishing.publish(campaign.pk)
    assert (retry.ok, retry.created) == (True, 2)
    assert MTurkHit.objects.count() == 3


def test_a_duplicate_token_recovers_the_hit_created_before(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    expect_hit_type(mturk_stub, campaign)
    mturk_stub.error(
        "create_hit_with_hit_type",
        f"The HIT with ID {mturk_hit_id(7)} already exists for this request token.",
        turk_code="AWS.MechanicalTurk.HitAlreadyExists",
        params=create_params(campaign, hit),
    )
    mturk_stub.add(
        "get_hit",
        {
            "HIT": {
                "HITId": mturk_hit_id(7),
                "HITTypeId": HIT_TYPE,
                "HITGroupId": GROUP,
                "RequesterAnnotation": token(campaign, hit),
            }
        },
        {"HITId": mturk_hit_id(7)},
    )
    result = publishing.publish(campaign.pk)
    assert (result.ok, result.created, result.recovered) == (True, 0, 1)
    assert MTurkHit.objects.get().mturk_hit_id == mturk_hit_id(7)
    assert result.message() == (
        "Published 1 HIT(s) to MTurk SANDBOX (1 of them created by an earlier attempt and "
        "recorded now)."
    )


def test_an_error_before_any_hit_publishes_nothing_and_says_what_to_do(mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    mturk_stub.error(
        "create_hit_type",
        "This Requester has insufficient funds in their account to complete this transaction.",
        params=hit_type_params(campaign),
    )
    result = publishing.publish(campaign.pk)
    assert (result.ok, result.published, result.error_code) == (False, 0, "RequestError")
    assert not MTurkHit.objects.exists()
    event = PlatformEvent.objects.get()
    assert (event.kind, event.operation) == ("error", "publish")
    assert event.what_to_do.startswith("Add funds to the requester account")
    assert result.message().startswith(
        "MTurk refused (RequestError): This Requester has insufficient funds in their account "
        "to complete this transaction. Nothing was published. What to do: Add funds"
    )


def test_problems_publish_nothing_and_call_no_mturk(mturk_stub):
    campaign = mturk_campaign(status=CampaignStatus.PAUSED)
    HitFactory(campaign=campaign, number=1)
    result = publishing.publish(campaign.pk)
    assert result.message() == (
        "Nothing was published. The campaign is paused, so workers arriving from MTurk would "
        "be turned away. Activate it first (campaign action 'Activate: hand out HITs')."
    )
    mturk_stub.factory.assert_not_called()
    assert not MTurkHit.objects.exists()


def test_the_celery_task_publishes_and_returns_the_outcome(mturk_stub):
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    second = HitFactory(campaign=campaign, number=2)
    expect_hit_type(mturk_stub, campaign)
    expect_hit(mturk_stub, campaign, second, 1)
    outcome = publish_to_mturk.delay(campaign.pk, [second.pk]).get()
    assert outcome == {
        "campaign_id": campaign.pk,
        "sandbox": True,
        "created": 1,
        "recovered": 0,
        "group_ids": [GROUP],
        "problems": [],
        "error_code": "",
        "error_message": "",
        "error_what_to_do": "",
    }
    assert list(MTurkHit.objects.values_list("hit_id", flat=True)) == [second.pk]
    assert publish_to_mturk.delay(campaign.pk + 1000).get() is None
