"""Publishing campaigns to MTurk (campaigns.platforms.publishing and its Celery tasks) against
botocore's Stubber on a real boto3 client: the exact parameters of every call, idempotent
retries, recovered duplicates, MTurk's errors stored with what to do, expire and extend, and
the qualification granted to MTurk workers who pass the test."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from unittest.mock import patch

import boto3
import pytest
from botocore.stub import Stubber
from django.test import override_settings
from django.utils import timezone

from campaigns.models import CampaignStatus, MTurkHit, PlatformEvent, TaskKind
from campaigns.platforms import publishing
from campaigns.platforms.mturk import HitSettings
from campaigns.tasks.publishing import grant_mturk_qualification, publish_to_mturk
from judgments.models import CampaignWorker, Platform
from tests.factories import CampaignFactory, HitFactory, WorkerFactory

BASE = "https://eval.example.org"
HIT_TYPE = "3HITTYPE0000000000000000000001"
TEST_HIT_TYPE = "3HITTYPE0000000000000000000002"
GROUP = "3GROUP000000000000000000000001"
TEST_GROUP = "3GROUP000000000000000000000002"
QUAL = "3QUAL0000000000000000000000001"
EXPIRE_NOW = datetime(2015, 1, 1, tzinfo=UTC)  # what expire_hit sends: "a time in the past"
WORKER = "A1WORKER0000001"
SCHEMA = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/"
    "ExternalQuestion.xsd"
)
LOCALE = {
    "QualificationTypeId": "00000000000000000071",
    "Comparator": "In",
    "LocaleValues": [{"Country": "US"}, {"Country": "GB"}],
    "ActionsGuarded": "Accept",
}
APPROVAL_RATE = {
    "QualificationTypeId": "000000000000000000L0",
    "Comparator": "GreaterThanOrEqualTo",
    "IntegerValues": [95],
    "ActionsGuarded": "Accept",
}
APPROVED_HITS = {
    "QualificationTypeId": "00000000000000000040",
    "Comparator": "GreaterThanOrEqualTo",
    "IntegerValues": [1000],
    "ActionsGuarded": "Accept",
}
PASSED_TEST = {
    "QualificationTypeId": QUAL,
    "Comparator": "EqualTo",
    "IntegerValues": [1],
    "ActionsGuarded": "Accept",
}
TEST_NOTE = (
    "This is the qualification test of these tasks: take it once; if you pass, you are granted "
    "the qualification that the other tasks of this campaign require."
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("https_base")]


@pytest.fixture
def https_base():
    with override_settings(PUBLIC_BASE_URL=BASE):
        yield


class StubbedMTurk:
    """A real boto3 MTurk client under a Stubber, returned by the patched factory."""

    def __init__(self, client, stub, factory):
        self.client, self.stub, self.factory = client, stub, factory

    def add(self, method, response, params):
        self.stub.add_response(method, response, params)

    def error(self, method, message, *, code="RequestError", turk_code=None, params=None):
        fields = {"Message": message}
        if turk_code:
            fields["TurkErrorCode"] = turk_code
        self.stub.add_client_error(
            method,
            service_error_code=code,
            service_message=message,
            modeled_fields=fields if code in ("RequestError", "ServiceFault") else None,
            expected_params=params,
        )


def stubbed_mturk() -> Iterator[StubbedMTurk]:
    """The body of the ``mturk_stub`` fixture, shared with the admin and command tests: every
    MTurk client evalsite builds is this one, and every stubbed answer must be used."""
    client = boto3.client(
        "mturk", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    with Stubber(client) as stub:
        with patch("campaigns.platforms.clients.mturk_client", return_value=client) as factory:
            yield StubbedMTurk(client, stub, factory)
        stub.assert_no_pending_responses()


@pytest.fixture
def mturk_stub():
    yield from stubbed_mturk()


def mturk_campaign(**fields):
    values = {
        "name": "Rate German-English",
        "title": "Rate English translations of German sentences",
        "description": "Read a German sentence and rate how well each English translation "
        "expresses it.",
        "keywords": "translation, evaluation",
        "reward": Decimal("0.30"),
        "redundancy": 3,
        "assignment_duration_seconds": 3600,
        "hit_lifetime_seconds": 604800,
        "auto_approval_delay_seconds": 259200,
        "mturk_locales": ["US", "GB"],
        "mturk_min_approval_rate": 95,
        "mturk_min_approved_hits": 1000,
    }
    values.update(fields)
    return CampaignFactory(**values)


def qualification_campaign(**fields):
    values = {
        "kind": TaskKind.RANKING,
        "assessment_mode": "",
        "qualification_required": True,
        "mturk_qualification_test_places": 50,
    }
    values.update(fields)
    return mturk_campaign(**values)


def question(hit) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<ExternalQuestion xmlns="{SCHEMA}">'
        f"<ExternalURL>{BASE}/work/mturk/{hit.pk}/</ExternalURL>"
        "<FrameHeight>0</FrameHeight></ExternalQuestion>"
    )


def mturk_hit_id(n: int) -> str:
    return f"3HIT{n:026d}"


def hit_type_params(campaign, requirements=(LOCALE, APPROVAL_RATE, APPROVED_HITS), **over):
    params = {
        "AutoApprovalDelayInSeconds": 259200,
        "AssignmentDurationInSeconds": 3600,
        "Reward": "0.30",
        "Title": campaign.title,
        "Description": campaign.description,
        "Keywords": "translation, evaluation",
        "QualificationRequirements": list(requirements),
    }
    params.update(over)
    return params


def expect_hit_type(stub, campaign, type_id=HIT_TYPE, **over):
    stub.add("create_hit_type", {"HITTypeId": type_id}, hit_type_params(campaign, **over))


def token(campaign, hit, env="s"):
    return f"es{env}{campaign.pk}-{hit.pk}"


def create_params(campaign, hit, *, type_id=HIT_TYPE, assignments=3, env="s"):
    """The exact ``create_hit_with_hit_type`` parameters for one of our HITs."""
    return {
        "HITTypeId": type_id,
        "MaxAssignments": assignments,
        "LifetimeInSeconds": 604800,
        "Question": question(hit),
        "RequesterAnnotation": token(campaign, hit, env),
        "UniqueRequestToken": token(campaign, hit, env),
    }


def expect_hit(stub, campaign, hit, n, *, type_id=HIT_TYPE, group=GROUP, env="s", **params):
    stub.add(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": mturk_hit_id(n), "HITTypeId": type_id, "HITGroupId": group}},
        create_params(campaign, hit, type_id=type_id, env=env, **params),
    )


def expect_test_hit(stub, campaign, test, n, group=GROUP):
    """The qualification test's own HIT type (its title, description and no custom
    qualification) and its HIT with the test's places as assignments."""
    title = "Qualification test: Rate English translations of German sentences"
    description = f"{campaign.description}\n\n{TEST_NOTE}"
    expect_hit_type(stub, campaign, TEST_HIT_TYPE, Title=title, Description=description)
    expect_hit(stub, campaign, test, n, type_id=TEST_HIT_TYPE, group=group, assignments=50)


def expire_params(row, until=EXPIRE_NOW):
    return {"HITId": row.mturk_hit_id, "ExpireAt": until}


def list_params(name):
    return {
        "Query": name,
        "MustBeRequestable": False,
        "MustBeOwnedByCaller": True,
        "MaxResults": 100,
    }


GRANT = {
    "QualificationTypeId": QUAL,
    "WorkerId": WORKER,
    "IntegerValue": 1,
    "SendNotification": False,
}


# --- Settings, URLs, plan --------------------------------------------------------------------


def test_hit_settings_come_from_the_campaign():
    campaign = mturk_campaign(mturk_masters=True, mturk_sandbox=False)
    assert publishing.hit_settings_for(campaign) == HitSettings(
        title="Rate English translations of German sentences",
        description="Read a German sentence and rate how well each English translation "
        "expresses it.",
        keywords="translation, evaluation",
        reward=Decimal("0.30"),
        max_assignments=3,
        assignment_duration_seconds=3600,
        lifetime_seconds=604800,
        auto_approval_delay_seconds=259200,
        locales=("US", "GB"),
        min_approval_rate=95,
        min_approved_hits=1000,
        masters=True,
        custom_qualification_type_id=None,
        sandbox=False,
    )


def test_the_test_hit_has_its_places_and_no_custom_qualification_regular_hits_require_it():
    campaign = qualification_campaign(mturk_qualification_type_id=QUAL)
    test = publishing.hit_settings_for(campaign, qualification_test=True)
    assert test.max_assignments == 50
    assert test.custom_qualification_type_id is None
    assert test.title == "Qualification test: Rate English translations of German sentences"
    assert test.description == f"{campaign.description}\n\n{TEST_NOTE}"
    regular = publishing.hit_settings_for(campaign)
    assert (regular.max_assignments, regular.custom_qualification_type_id) == (3, QUAL)


def test_regular_settings_refuse_a_required_test_without_a_qualification_type():
    campaign = qualification_campaign()
    with pytest.raises(ValueError, match="no MTurk qualification type yet"):
        publishing.hit_settings_for(campaign)


def test_task_url_is_the_https_mturk_entry_page():
    hit = HitFactory()
    with override_settings(PUBLIC_BASE_URL="https://eval.example.org/"):
        assert publishing.task_url(hit) == f"https://eval.example.org/work/mturk/{hit.pk}/"


def test_task_url_refuses_http_and_says_what_to_set():
    hit = HitFactory()
    with override_settings(PUBLIC_BASE_URL="http://127.0.0.1:8000"):
        with pytest.raises(publishing.NotHttpsError) as caught:
            publishing.task_url(hit)
    assert str(caught.value) == (
        "PUBLIC_BASE_URL is http://127.0.0.1:8000, but MTurk only shows task pages served over "
        "HTTPS. Set PUBLIC_BASE_URL to this site's public HTTPS address (for example "
        "https://eval.example.org) and restart evalsite."
    )


def test_plan_splits_the_test_from_regular_hits_and_prices_them():
    campaign = qualification_campaign()
    first, second = HitFactory(campaign=campaign, number=1), HitFactory(campaign=campaign, number=2)
    test = HitFactory(campaign=campaign, number=3, is_qualification=True)
    current = publishing.plan(campaign)
    assert current.problems == []
    assert current.qualification_hits == [test]
    assert current.regular_hits == [first, second]
    assert (current.campaign_hits, current.published_hits) == (3, 0)
    # Regular: 2 HITs x 3 assignments x ($0.30 + 20% fee $0.06) = $2.16.
    assert current.regular_cost.total == Decimal("2.16")
    # The test: 1 HIT x 50 assignments, 40% fee (10 or more assignments): 50 x $0.42 = $21.00.
    assert current.qualification_cost.fee_rate == Decimal("0.40")
    assert current.qualification_cost.total == Decimal("21.00")
    assert current.total_cost == Decimal("23.16")
    assert current.first_url == f"{BASE}/work/mturk/{test.pk}/"
    assert current.creates_qualification_type is True
    assert current.can_publish


def test_plan_lists_every_problem_with_what_to_do():
    campaign = mturk_campaign(status=CampaignStatus.DRAFT, title="", reward=Decimal("0"))
    with override_settings(PUBLIC_BASE_URL="http://eval.example.org"):
        current = publishing.plan(campaign)
    assert current.problems == [
        publishing.Problem(
            "The campaign is draft, so workers arriving from MTurk would be turned away.",
            "Activate it first (campaign action 'Activate: hand out HITs').",
        ),
        publishing.Problem(
            "The campaign has no HITs yet.",
            "Import its segments, then run the campaign action 'Build HITs'.",
        ),
    ]
    HitFactory(campaign=campaign, number=1)
    with override_settings(PUBLIC_BASE_URL="http://eval.example.org"):
        current = publishing.plan(campaign)
    assert [problem.message for problem in current.problems] == [
        "The campaign is draft, so workers arriving from MTurk would be turned away.",
        "The HIT title is empty: workers see it in their search results.",
        "PUBLIC_BASE_URL is http://eval.example.org, but MTurk only shows task pages served "
        "over HTTPS.",
    ]
    assert current.problems[1].what_to_do == publishing.EDIT_CAMPAIGN
    assert not current.can_publish


def test_plan_refuses_a_zero_reward():
    campaign = mturk_campaign(reward=Decimal("0.00"))
    HitFactory(campaign=campaign, number=1)
    assert [str(problem) for problem in publishing.plan(campaign).problems] == [
        "The reward must be more than $0.00 on MTurk (the minimum is $0.01). "
        + publishing.EDIT_CAMPAIGN
    ]


def test_plan_needs_the_qualification_test_with_the_hits():
    campaign = qualification_campaign()
    HitFactory(campaign=campaign, number=1)
    assert [p.message for p in publishing.plan(campaign).problems] == [
        "The campaign requires the qualification test but has no qualification HIT, so no "
        "MTurk worker could ever qualify for its HITs."
    ]
    test = HitFactory(campaign=campaign, number=2, is_qualification=True)
    only_regular = publishing.plan(campaign, [campaign.hits.get(number=1).pk])
    assert [str(p) for p in only_regular.problems] == [
        "The qualification test HIT is not on MTurk and not among the chosen HITs, so no worker "
        "could qualify for them. Publish HIT 2 (the qualification test) with them, or publish "
        "the whole campaign."
    ]
    assert publishing.plan(campaign, [test.pk]).problems == []


def test_plan_keeps_a_campaign_in_one_environment():
    campaign = mturk_campaign(mturk_sandbox=False)
    published = HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    MTurkHit.objects.create(
        hit=published, mturk_hit_id=mturk_hit_id(1), hit_type_id=HIT_TYPE, sandbox=True,
        max_assignments=3,
    )  # fmt: skip
    current = publishing.plan(campaign)
    assert [p.message for p in current.problems] == [
        "1 HIT(s) of this campaign are already on MTurk's sandbox; one campaign lives in one "
        "environment, since its assignments and judgments would otherwise mix."
    ]


def test_plan_names_hit_ids_of_other_campaigns():
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    stranger = HitFactory()
    assert [p.message for p in publishing.plan(campaign, [stranger.pk]).problems] == [
        f"HIT id(s) {stranger.pk} are not HITs of this campaign."
    ]


def test_plan_prices_each_batch_with_hit_settings_for():
    campaign = qualification_campaign()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2, is_qualification=True)
    # No MTurk qualification type yet: publish() creates it first, so the plan prices the
    # regular HITs without it (the type changes neither the price nor the checks).
    current = publishing.plan(campaign)
    assert current.problems == []
    assert current.regular_settings == publishing.hit_settings_for(campaign, type_pending=True)
    assert current.regular_settings.custom_qualification_type_id is None
    assert current.qualification_settings == publishing.hit_settings_for(
        campaign, qualification_test=True
    )
    campaign.mturk_qualification_type_id = QUAL
    current = publishing.plan(campaign)
    assert current.regular_settings == publishing.hit_settings_for(campaign)
    assert current.regular_settings.custom_qualification_type_id == QUAL
    assert current.qualification_settings.custom_qualification_type_id is None


def test_the_plans_fingerprint_says_what_changed():
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    reviewed = publishing.plan(campaign).fingerprint()
    assert {key: reviewed[key] for key in ("campaign", "environment", "hits", "cost")} == {
        "campaign": campaign.pk,
        "environment": "sandbox",
        "hits": "1-2",
        "cost": "2.16",
    }
    signed = publishing.sign_plan(publishing.plan(campaign))
    assert publishing.reviewed_plan(signed) == reviewed
    assert publishing.reviewed_plan(signed[:-1] + ("A" if signed[-1] != "A" else "B")) is None
    assert publishing.reviewed_plan("") is None
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == []

    campaign.keywords = "translation"  # a setting the cost does not show
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "the HITs' settings (title, description, reward, assignments, durations or worker "
        "requirements)"
    ]
    campaign.keywords = "translation, evaluation"
    campaign.mturk_sandbox = False
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "environment SANDBOX -> PRODUCTION"
    ]
    first = campaign.hits.get(number=1)
    assert publishing.plan_changes(publishing.plan(campaign, [first.pk]), reviewed) == [
        "environment SANDBOX -> PRODUCTION",
        "HITs 1-2 -> 1",
        "most it can cost $2.16 -> $1.08",
    ]
    # The same numbers, but the HITs were built again (other rows): a change too.
    campaign.mturk_sandbox = True
    campaign.hits.all().delete()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "HITs 1-2 were built again"
    ]


def test_publish_refuses_a_plan_other_than_the_one_confirmed(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    confirmed = publishing.plan(campaign).fingerprint()
    campaign.reward = Decimal("0.50")
    campaign.save()
    result = publishing.publish(campaign.pk, [hit.pk], expected=confirmed)
    assert result.message() == (
        "Nothing was published. The plan changed since you reviewed it (most it can cost "
        "$1.08 -> $1.80; the HITs' settings (title, description, reward, assignments, "
        "durations or worker requirements)); review it again. Look at the plan again (the "
        "admin's 'Publish to MTurk' page or manage.py mturk_hits plan) and confirm what it shows "
        "now."
    )
    mturk_stub.factory.assert_not_called()
    assert not MTurkHit.objects.exists()
    assert list(
        PlatformEvent.objects.values_list("kind", "operation", "message", "what_to_do")
    ) == [
        (
            "error",
            "publish",
            "Nothing was published. The plan changed since you reviewed it (most it can cost "
            "$1.08 -> $1.80; the HITs' settings (title, description, reward, assignments, "
            "durations or worker requirements)); review it again.",
            "Look at the plan again (the admin's 'Publish to MTurk' page or manage.py "
            "mturk_hits plan) and confirm what it shows now.",
        )
    ]
    # The plan as it is now goes out.
    expect_hit_type(mturk_stub, campaign, Reward="0.50")
    expect_hit(mturk_stub, campaign, hit, 1)
    now = publishing.plan(campaign).fingerprint()
    assert publishing.publish(campaign.pk, [hit.pk], expected=now).created == 1


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


# --- Expire and extend -----------------------------------------------------------------------


def published_rows(campaign, count=2, sandbox=True):
    rows = []
    for n in range(1, count + 1):
        hit = HitFactory(campaign=campaign, number=n)
        rows.append(
            MTurkHit.objects.create(
                hit=hit,
                mturk_hit_id=mturk_hit_id(n),
                hit_type_id=HIT_TYPE,
                hit_group_id=GROUP,
                sandbox=sandbox,
                max_assignments=3,
                expires_at=timezone.now() + timedelta(days=7),
            )
        )
    return rows


def test_expire_ends_each_hit_on_mturk_then_locally(mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    result = publishing.expire(MTurkHit.objects.filter(hit__campaign=campaign))
    assert (len(result.done), result.failed, result.message()) == (
        2,
        [],
        "Ended 2 MTurk HIT(s).",
    )
    for row in rows:
        row.refresh_from_db()
        assert row.expired_by_requester_at is not None
        assert row.expires_at == row.expired_by_requester_at
    # Ended HITs are left alone the second time (no MTurk call is stubbed).
    again = publishing.expire(MTurkHit.objects.all())
    assert again.message() == "Ended 0 MTurk HIT(s). 2 left as they were (already ended)."


def test_an_unknown_hit_is_reported_and_the_others_still_end(mturk_stub):
    campaign = mturk_campaign()
    first, second = published_rows(campaign)
    mturk_stub.error(
        "update_expiration_for_hit",
        "Hit does not exist.",
        turk_code="AWS.MechanicalTurk.HITDoesNotExist",
        params=expire_params(first),
    )
    mturk_stub.add("update_expiration_for_hit", {}, expire_params(second))
    result = publishing.expire(MTurkHit.objects.all())
    assert [row.pk for row in result.done] == [second.pk]
    first.refresh_from_db()
    assert first.expired_by_requester_at is None  # MTurk did not confirm: nothing local
    event = PlatformEvent.objects.get(kind="error")
    assert (event.operation, event.code) == ("expire", "AWS.MechanicalTurk.HITDoesNotExist")
    assert event.what_to_do.startswith("MTurk does not know this HIT id in this environment")


def test_an_account_wide_error_stops_the_batch_and_changes_nothing(mturk_stub):
    campaign = mturk_campaign()
    first = published_rows(campaign, count=3)[0]
    mturk_stub.error(
        "update_expiration_for_hit",
        "The security token included in the request is invalid.",
        code="UnrecognizedClientException",
        params=expire_params(first),
    )
    result = publishing.expire(MTurkHit.objects.all())
    assert (len(result.done), len(result.failed), result.not_attempted) == (0, 1, 2)
    assert not MTurkHit.objects.filter(expired_by_requester_at__isnull=False).exists()
    assert result.message().endswith(
        "2 HIT(s) were not tried after that error; run the action again once it is fixed."
    )


def test_expire_builds_one_client_per_environment(mturk_stub):
    sandbox_rows = published_rows(mturk_campaign(), count=2)
    production = HitFactory(campaign=mturk_campaign(name="Live", mturk_sandbox=False), number=1)
    live = MTurkHit.objects.create(
        hit=production, mturk_hit_id=mturk_hit_id(9), hit_type_id=HIT_TYPE, sandbox=False,
        max_assignments=3,
    )  # fmt: skip
    for row in [*sandbox_rows, live]:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    result = publishing.expire(MTurkHit.objects.order_by("pk"))
    assert len(result.done) == 3
    assert [call.args for call in mturk_stub.factory.call_args_list] == [(True,), (False,)]


def test_extend_sets_the_new_expiry_after_mturk_confirms_it(mturk_stub):
    campaign = mturk_campaign()
    first, second = published_rows(campaign)
    first.expired_by_requester_at = timezone.now()
    first.save()
    until = (timezone.now() + timedelta(days=10)).replace(microsecond=0)
    for row in (first, second):
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row, until))
    result = publishing.extend(MTurkHit.objects.all(), until)
    assert result.message() == "Extended 2 MTurk HIT(s)."
    for row in (first, second):
        row.refresh_from_db()
        assert (row.expires_at, row.expired_by_requester_at) == (until, None)
    # A HIT already open longer is left alone: MTurk cannot shorten it.
    shorter = publishing.extend(MTurkHit.objects.all(), until - timedelta(days=1))
    assert shorter.message() == (
        "Extended 0 MTurk HIT(s). 2 left as they were (already open until then or later)."
    )


def test_extend_refuses_a_past_or_too_distant_expiry():
    with pytest.raises(ValueError, match="must be in the future"):
        publishing.extend([], timezone.now() - timedelta(minutes=1))
    with pytest.raises(ValueError, match="at most 365 days"):
        publishing.extend([], timezone.now() + timedelta(days=366))
    with pytest.raises(ValueError, match="between 1 and 365 days; got 0"):
        publishing.days_from_now("0")
    with pytest.raises(ValueError, match="whole number, e.g. 7; got 'soon'"):
        publishing.days_from_now("soon")


# --- The qualification granted to MTurk workers who pass the test -----------------------------


@pytest.fixture
def test_campaign(db):
    from tests.judgments.test_qualification import EXPECTED
    from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

    campaign = ranking_campaign(
        qualification_required=True,
        qualification_pass_mark=Decimal("0.8"),  # 4 of 4 right passes, 3 of 4 fails
        mturk_qualification_type_id=QUAL,
    )
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2, is_qualification=True, expected=EXPECTED)
    return campaign


def take_the_test(campaign, worker, passing, capture):
    from tests.judgments.test_qualification import answers, take_test

    with capture(execute=True):
        take_test(worker, campaign, answers(right_in_last=passing))
    return CampaignWorker.objects.get(campaign=campaign, worker=worker)


def test_passing_the_test_grants_the_mturk_qualification(
    test_campaign, mturk_stub, django_capture_on_commit_callbacks
):
    worker = WorkerFactory(platform=Platform.MTURK, external_id=WORKER)
    mturk_stub.add(
        "associate_qualification_with_worker",
        {},
        GRANT,
    )
    membership = take_the_test(test_campaign, worker, True, django_capture_on_commit_callbacks)
    assert membership.qualification_passed is True
    mturk_stub.factory.assert_called_once_with(True)
    assert not PlatformEvent.objects.exists()


@pytest.mark.parametrize(
    ("platform", "passing"), [(Platform.MTURK, False), (Platform.PROLIFIC, True)]
)
def test_no_grant_for_a_failed_test_or_a_worker_from_elsewhere(
    platform, passing, test_campaign, mturk_stub, django_capture_on_commit_callbacks
):
    worker = WorkerFactory(platform=platform, external_id=WORKER)
    membership = take_the_test(test_campaign, worker, passing, django_capture_on_commit_callbacks)
    assert membership.qualification_passed is passing
    mturk_stub.factory.assert_not_called()


def test_a_refused_grant_is_stored_with_what_to_do(test_campaign, mturk_stub):
    worker = WorkerFactory(platform=Platform.MTURK, external_id=WORKER)
    membership = CampaignWorker.objects.create(
        campaign=test_campaign, worker=worker, qualification_passed=True
    )
    mturk_stub.error(
        "associate_qualification_with_worker",
        "QualificationType 3QUAL0000000000000000000000001 does not exist.",
        turk_code="AWS.MechanicalTurk.QualificationTypeDoesNotExist",
        params=GRANT,
    )
    assert grant_mturk_qualification.delay(membership.pk).get() is False
    event = PlatformEvent.objects.get()
    assert (event.kind, event.operation, event.code) == (
        "error",
        "grant qualification",
        "AWS.MechanicalTurk.QualificationTypeDoesNotExist",
    )
    assert event.message == (
        f"Worker {WORKER} passed the qualification test but MTurk did not grant them "
        f"qualification {QUAL}: QualificationType {QUAL} does not exist."
    )
    assert event.what_to_do.endswith(
        "Until then the worker cannot accept the campaign's HITs; you can also grant it on the "
        "requester website (Manage, Workers, the worker, Assign qualification, value 1)."
    )
