"""The MTurk service layer against botocore's Stubber: every call's exact parameters, the error
answers MTurk gives (with their codes) and pagination. No network, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError, NoCredentialsError, ParamValidationError
from botocore.stub import Stubber

from campaigns.platforms import mturk
from campaigns.platforms.mturk import assignments as assignments_module
from campaigns.platforms.mturk.errors import translate

HIT_TYPE_ID = "3HITTYPE0000000000000000000001"
HIT_1 = "3HIT00000000000000000000000001"
HIT_2 = "3HIT00000000000000000000000002"
HIT_3 = "3HIT00000000000000000000000003"
GROUP_ID = "3GROUP000000000000000000000001"
WORKER = "A1WORKER0000001"
ASSIGNMENT = "3ASSIGNMENT00000000000000000001"
QUAL_ID = "3QUAL0000000000000000000000001"
CREATED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def client():
    return boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk.SANDBOX_ENDPOINT,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="not-a-secret",
    )


@pytest.fixture
def stub(client):
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def settings(**overrides):
    values = {
        "title": "Rank five translations",
        "description": "Read a sentence and rank five translations of it.",
        "keywords": "translation, ranking",
        "reward": Decimal("0.30"),
        "max_assignments": 3,
        "assignment_duration_seconds": 3600,
    }
    values.update(overrides)
    return mturk.HitSettings(**values)


def hit(hit_id, annotation, hit_type_id=HIT_TYPE_ID):
    return {
        "HITId": hit_id,
        "HITTypeId": hit_type_id,
        "HITGroupId": GROUP_ID,
        "CreationTime": CREATED,
        "RequesterAnnotation": annotation,
    }


def request_error(stub, method, message, turk_code=None, expected_params=None):
    fields = {"Message": message}
    if turk_code:
        fields["TurkErrorCode"] = turk_code
    stub.add_client_error(
        method,
        service_error_code="RequestError",
        service_message=message,
        modeled_fields=fields,
        expected_params=expected_params,
    )


# --- client --------------------------------------------------------------------------------


def test_client_for_sandbox_and_production_endpoints():
    assert mturk.client_for(sandbox=True).meta.endpoint_url == (
        "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
    )
    assert mturk.client_for(sandbox=False).meta.endpoint_url == (
        "https://mturk-requester.us-east-1.amazonaws.com"
    )
    assert mturk.client_for(sandbox=True).meta.region_name == "us-east-1"


def test_client_for_refuses_other_regions():
    with pytest.raises(ValueError, match="only in us-east-1"):
        mturk.client_for(sandbox=True, region="eu-west-1")


def test_preview_url_per_environment():
    assert mturk.preview_url(GROUP_ID, sandbox=True) == (
        f"https://workersandbox.mturk.com/projects/{GROUP_ID}/tasks"
    )
    assert mturk.preview_url(GROUP_ID, sandbox=False) == (
        f"https://worker.mturk.com/projects/{GROUP_ID}/tasks"
    )


# --- ExternalQuestion ---------------------------------------------------------------------


def test_external_question_xml_is_exact_and_escapes_the_url():
    xml = mturk.external_question_xml("https://eval.example.org/task/7/?token=a&b=<c>")
    assert xml == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/'
        'AWSMechanicalTurkDataSchemas/2006-07-14/ExternalQuestion.xsd">'
        "<ExternalURL>https://eval.example.org/task/7/?token=a&amp;b=&lt;c&gt;</ExternalURL>"
        "<FrameHeight>0</FrameHeight>"
        "</ExternalQuestion>"
    )


def test_external_question_xml_frame_height():
    xml = mturk.external_question_xml("https://eval.example.org/t", frame_height=800)
    assert xml.endswith("<FrameHeight>800</FrameHeight></ExternalQuestion>")


@pytest.mark.parametrize(
    ("url", "height", "message"),
    [
        ("http://eval.example.org/t", 0, "HTTPS"),
        ("eval.example.org/t", 0, "HTTPS"),
        ("https://eval.example.org/a b", 0, "spaces"),
        ("https://eval.example.org/t", -1, "pixels"),
        ("https://eval.example.org/t", True, "pixels"),
        ("https://eval.example.org/" + "x" * 70000, 0, "65535 bytes"),
    ],
)
def test_external_question_xml_refuses(url, height, message):
    with pytest.raises(ValueError, match=message):
        mturk.external_question_xml(url, frame_height=height)


# --- HitSettings ---------------------------------------------------------------------------


def test_hit_settings_normalises():
    s = settings(
        title="  Rank five translations ",
        keywords=" translation,ranking,, mt ",
        reward="0.3",
        locales=["us", "US-ca", "de_DE", "US"],
    )
    assert s.title == "Rank five translations"
    assert s.keywords == "translation, ranking, mt"
    assert s.reward == Decimal("0.30")
    assert s.reward_param == "0.30"
    assert s.locales == ("US", "US-CA", "DE-DE")
    assert s.sandbox is True
    assert s.lifetime_seconds == 7 * 86400
    assert s.auto_approval_delay_seconds == 3 * 86400


def test_hit_settings_keywords_from_a_list():
    assert settings(keywords=["mt", " ranking "]).keywords == "mt, ranking"


def test_hit_settings_limits_accepted_at_the_edges():
    s = settings(
        title="t" * 128,
        description="d" * 2000,
        keywords="k" * 1000,
        reward=Decimal("0.01"),
        max_assignments=1,
        assignment_duration_seconds=30,
        lifetime_seconds=31_536_000,
        auto_approval_delay_seconds=0,
        locales=[f"US-{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(30)],
        min_approval_rate=100,
        min_approved_hits=0,
    )
    assert len(s.locales) == 30


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"reward": Decimal("0")}, r"more than \$0.00"),
        ({"reward": Decimal("-1")}, r"more than \$0.00"),
        ({"reward": Decimal("0.305")}, "whole cents"),
        ({"reward": 0.3}, "Decimal or a string"),
        ({"reward": "abc"}, "US dollars"),
        ({"reward": "NaN"}, "US dollars"),
        ({"title": "  "}, "title is empty"),
        ({"title": "t" * 129}, "129 characters; MTurk allows 128"),
        ({"description": ""}, "description is empty"),
        ({"description": "d" * 2001}, "2001 characters; MTurk allows 2000"),
        ({"keywords": "k" * 1001}, "MTurk allows 1000"),
        ({"max_assignments": 0}, "between 1 and 1,000,000,000"),
        ({"max_assignments": "3"}, "whole number"),
        ({"assignment_duration_seconds": 29}, "assignment duration must be between 30 and"),
        ({"assignment_duration_seconds": 31_536_001}, "365 days"),
        ({"assignment_duration_seconds": 60.0}, "whole number of seconds"),
        ({"lifetime_seconds": 29}, "HIT lifetime"),
        ({"lifetime_seconds": 31_536_001}, "HIT lifetime"),
        ({"auto_approval_delay_seconds": -1}, "auto-approval delay"),
        ({"auto_approval_delay_seconds": 2_592_001}, "30 days"),
        ({"locales": "US"}, "not one string"),
        ({"locales": ["USA"]}, "ISO 3166"),
        ({"locales": ["US-CAL"]}, "ISO 3166"),
        ({"locales": [f"US-{i:02d}" for i in range(31)]}, "at most 30 locales"),
        ({"min_approval_rate": 101}, "0 to 100"),
        ({"min_approval_rate": 95.5}, "0 to 100"),
        ({"min_approved_hits": -1}, "0 or more"),
        ({"custom_qualification_type_id": "my-qual"}, "MTurk's id"),
        ({"actions_guarded": "Preview"}, "actions_guarded must be one of"),
    ],
)
def test_hit_settings_refuses(overrides, message):
    with pytest.raises(ValueError, match=message):
        settings(**overrides)


# --- qualification requirements ------------------------------------------------------------


def test_no_requirements_by_default():
    assert mturk.qualification_requirements(settings()) == []


def test_qualification_requirements_exact_in_production():
    s = settings(
        locales=["US", "GB", "US-CA"],
        min_approval_rate=95,
        min_approved_hits=500,
        masters=True,
        custom_qualification_type_id=QUAL_ID,
        sandbox=False,
    )
    assert mturk.qualification_requirements(s) == [
        {
            "QualificationTypeId": "00000000000000000071",
            "Comparator": "In",
            "LocaleValues": [
                {"Country": "US"},
                {"Country": "GB"},
                {"Country": "US", "Subdivision": "CA"},
            ],
            "ActionsGuarded": "Accept",
        },
        {
            "QualificationTypeId": "000000000000000000L0",
            "Comparator": "GreaterThanOrEqualTo",
            "IntegerValues": [95],
            "ActionsGuarded": "Accept",
        },
        {
            "QualificationTypeId": "00000000000000000040",
            "Comparator": "GreaterThanOrEqualTo",
            "IntegerValues": [500],
            "ActionsGuarded": "Accept",
        },
        {
            "QualificationTypeId": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH",
            "Comparator": "Exists",
            "ActionsGuarded": "Accept",
        },
        {
            "QualificationTypeId": QUAL_ID,
            "Comparator": "EqualTo",
            "IntegerValues": [1],
            "ActionsGuarded": "Accept",
        },
    ]


def test_masters_uses_the_sandbox_id_in_the_sandbox():
    requirements = mturk.qualification_requirements(settings(masters=True, sandbox=True))
    assert requirements == [
        {
            "QualificationTypeId": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6",
            "Comparator": "Exists",
            "ActionsGuarded": "Accept",
        }
    ]


def test_actions_guarded_applies_to_every_requirement():
    s = settings(locales=["US"], min_approval_rate=0, actions_guarded="DiscoverPreviewAndAccept")
    assert [r["ActionsGuarded"] for r in mturk.qualification_requirements(s)] == [
        "DiscoverPreviewAndAccept",
        "DiscoverPreviewAndAccept",
    ]


# --- costs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reward", "assignments", "hits", "masters", "rate", "fee", "rewards", "fees", "total"),
    [
        # 20%: 0.30 * 0.20 = 0.06 per assignment, 300 assignments.
        ("0.30", 3, 100, False, "0.20", "0.06", "90.00", "18.00", "108.00"),
        # 9 assignments per HIT: still 20%.
        ("0.30", 9, 10, False, "0.20", "0.06", "27.00", "5.40", "32.40"),
        # 10 assignments per HIT: 20% + 20% = 40%, 0.12 per assignment, 1000 assignments.
        ("0.30", 10, 100, False, "0.40", "0.12", "300.00", "120.00", "420.00"),
        # Masters: 25%, 0.075 rounded half up to 0.08 per assignment.
        ("0.30", 3, 100, True, "0.25", "0.08", "90.00", "24.00", "114.00"),
        # Masters and 10+ assignments: 45% of 1.00.
        ("1.00", 10, 1, True, "0.45", "0.45", "10.00", "4.50", "14.50"),
        # 0.02 * 20% = 0.004: the minimum fee of 0.01 applies.
        ("0.02", 1, 50, False, "0.20", "0.01", "1.00", "0.50", "1.50"),
        # 0.12 * 20% = 0.024: rounds down to 0.02.
        ("0.12", 2, 10, False, "0.20", "0.02", "2.40", "0.40", "2.80"),
        ("0.30", 3, 0, False, "0.20", "0.06", "0.00", "0.00", "0.00"),
    ],
)
def test_estimate_cost_hand_worked(
    reward, assignments, hits, masters, rate, fee, rewards, fees, total
):
    estimate = mturk.estimate_cost(Decimal(reward), assignments, hits, masters=masters)
    assert estimate.assignments == assignments * hits
    assert estimate.fee_rate == Decimal(rate)
    assert estimate.fee_per_assignment == Decimal(fee)
    assert estimate.reward_total == Decimal(rewards)
    assert estimate.fees == Decimal(fees)
    assert estimate.total == Decimal(total)
    assert estimate.total == estimate.reward_total + estimate.fees


def test_estimate_cost_refuses_bad_input():
    with pytest.raises(ValueError, match="more than"):
        mturk.estimate_cost(Decimal("0"), 3, 10, masters=False)
    with pytest.raises(ValueError, match="assignments per HIT"):
        mturk.estimate_cost(Decimal("0.30"), -1, 10, masters=False)


def test_account_balance(client, stub):
    stub.add_response(
        "get_account_balance", {"AvailableBalance": "10000.00", "OnHoldBalance": "0.00"}, {}
    )
    assert mturk.account_balance(client) == Decimal("10000.00")


def test_account_balance_with_bad_credentials(client, stub):
    stub.add_client_error(
        "get_account_balance",
        service_error_code="UnrecognizedClientException",
        service_message="The security token included in the request is invalid.",
        http_status_code=400,
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.account_balance(client)
    error = caught.value
    assert error.operation == "get_account_balance"
    assert error.code == "UnrecognizedClientException"
    assert error.message == "The security token included in the request is invalid."
    assert "AWS_ACCESS_KEY_ID" in error.what_to_do
    assert "requester.mturk.com/developer" in error.what_to_do
    assert error.retryable is False


def test_account_balance_missing_is_an_error(client, stub):
    stub.add_response("get_account_balance", {}, {})
    with pytest.raises(mturk.MTurkError, match="NoBalance"):
        mturk.account_balance(client)


# --- publishing ----------------------------------------------------------------------------

TASK_1 = "https://eval.example.org/task/1/?c=12&h=101"
TASK_2 = "https://eval.example.org/task/1/?c=12&h=102"


def hit_type_params(s):
    return {
        "AutoApprovalDelayInSeconds": 259200,
        "AssignmentDurationInSeconds": 3600,
        "Reward": "0.30",
        "Title": "Rank five translations",
        "Description": "Read a sentence and rank five translations of it.",
        "Keywords": "translation, ranking",
        "QualificationRequirements": mturk.qualification_requirements(s),
    }


def create_params(token, url):
    return {
        "HITTypeId": HIT_TYPE_ID,
        "MaxAssignments": 3,
        "LifetimeInSeconds": 604800,
        "Question": mturk.external_question_xml(url),
        "RequesterAnnotation": token,
        "UniqueRequestToken": token,
    }


def test_publish_hits_creates_a_hit_type_then_one_hit_each(client, stub):
    s = settings(locales=["US"], min_approval_rate=95)
    stub.add_response("create_hit_type", {"HITTypeId": HIT_TYPE_ID}, hit_type_params(s))
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": hit(HIT_1, "es-c12-p1-101")},
        create_params("es-c12-p1-101", TASK_1),
    )
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": hit(HIT_2, "es-c12-p1-102")},
        create_params("es-c12-p1-102", TASK_2),
    )
    seen = []
    published = mturk.publish_hits(
        client,
        s,
        [(101, TASK_1), (102, TASK_2)],
        request_token_prefix="es-c12-p1",
        on_published=seen.append,
    )
    assert published == [
        mturk.PublishedHit(101, HIT_1, HIT_TYPE_ID, GROUP_ID, reused=False),
        mturk.PublishedHit(102, HIT_2, HIT_TYPE_ID, GROUP_ID, reused=False),
    ]
    assert seen == published


def test_publish_hits_omits_empty_keywords_and_requirements(client, stub):
    s = settings(keywords="")
    params = hit_type_params(s)
    del params["Keywords"]
    del params["QualificationRequirements"]
    stub.add_response("create_hit_type", {"HITTypeId": HIT_TYPE_ID}, params)
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": hit(HIT_1, "p-101")},
        create_params("p-101", TASK_1),
    )
    assert mturk.publish_hits(client, s, [(101, TASK_1)], request_token_prefix="p")[0].hit_id == (
        HIT_1
    )


def test_publish_hits_reuses_a_given_hit_type(client, stub):
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": hit(HIT_1, "p-101")},
        create_params("p-101", TASK_1),
    )
    published = mturk.publish_hits(
        client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
    )
    assert [p.hit_id for p in published] == [HIT_1]


def test_publish_nothing_makes_no_call(client, stub):
    assert mturk.publish_hits(client, settings(), [], request_token_prefix="p") == []


def test_retry_after_hit_already_exists_returns_the_hit_named_in_the_message(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        f"There is already a HIT which exists with the same Unique Request Token. HITId: {HIT_1}",
        "AWS.MechanicalTurk.HitAlreadyExists",
        create_params("p-101", TASK_1),
    )
    stub.add_response("get_hit", {"HIT": hit(HIT_1, "p-101")}, {"HITId": HIT_1})
    published = mturk.publish_hits(
        client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
    )
    assert published == [mturk.PublishedHit(101, HIT_1, HIT_TYPE_ID, GROUP_ID, reused=True)]


def test_retry_after_token_processed_finds_the_hit_by_annotation_across_pages(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        'The idempotency token "p-102" has already been processed. (1626172412406)',
        expected_params=create_params("p-102", TASK_2),
    )
    stub.add_response(
        "list_hits",
        {"HITs": [hit(HIT_3, "other-1")], "NextToken": "page-2", "NumResults": 1},
        {"MaxResults": 100},
    )
    stub.add_response(
        "list_hits",
        {"HITs": [hit(HIT_1, "p-101"), hit(HIT_2, "p-102")], "NumResults": 2},
        {"MaxResults": 100, "NextToken": "page-2"},
    )
    published = mturk.publish_hits(
        client, settings(), [(102, TASK_2)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
    )
    assert published == [mturk.PublishedHit(102, HIT_2, HIT_TYPE_ID, GROUP_ID, reused=True)]


def test_hit_id_in_the_message_of_another_hit_falls_back_to_the_annotation(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        f"A HIT already exists for this token: {HIT_3}",
        "AWS.MechanicalTurk.HitAlreadyExists",
        create_params("p-101", TASK_1),
    )
    stub.add_response("get_hit", {"HIT": hit(HIT_3, "someone-else")}, {"HITId": HIT_3})
    stub.add_response(
        "list_hits", {"HITs": [hit(HIT_1, "p-101")], "NumResults": 1}, {"MaxResults": 100}
    )
    published = mturk.publish_hits(
        client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
    )
    assert published == [mturk.PublishedHit(101, HIT_1, HIT_TYPE_ID, GROUP_ID, reused=True)]


def test_listing_hits_during_recovery_can_fail_loudly(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        'The idempotency token "p-101" has already been processed.',
        expected_params=create_params("p-101", TASK_1),
    )
    stub.add_client_error(
        "list_hits", service_error_code="ServiceFault", service_message="Try again"
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.publish_hits(
            client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
        )
    assert caught.value.operation == "list_hits"
    assert caught.value.retryable is True


def test_duplicate_token_with_no_hit_to_find_is_reported(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        'The idempotency token "p-101" has already been processed.',
        expected_params=create_params("p-101", TASK_1),
    )
    stub.add_response("list_hits", {"HITs": [], "NumResults": 0}, {"MaxResults": 100})
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.publish_hits(
            client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
        )
    assert caught.value.code == "DuplicateRequestToken"
    assert "do not publish it under another token" in caught.value.what_to_do


def test_publish_without_funds_says_to_add_funds(client, stub):
    request_error(
        stub,
        "create_hit_with_hit_type",
        "This Requester has insufficient funds in their account to complete this transaction. "
        "Please visit https://requester.mturk.com/prepayments/new to purchase Prepaid HITs.",
        expected_params=create_params("p-101", TASK_1),
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.publish_hits(
            client, settings(), [(101, TASK_1)], request_token_prefix="p", hit_type_id=HIT_TYPE_ID
        )
    error = caught.value
    assert not isinstance(error, mturk.MTurkPartialError)
    assert error.code == "RequestError"
    assert error.what_to_do.startswith("Add funds to the requester account")
    assert "sandbox: no funds are needed" in error.what_to_do


def test_publish_stopped_midway_keeps_the_hits_already_created(client, stub):
    stub.add_response(
        "create_hit_with_hit_type", {"HIT": hit(HIT_1, "p-101")}, create_params("p-101", TASK_1)
    )
    stub.add_client_error(
        "create_hit_with_hit_type",
        service_error_code="ThrottlingException",
        service_message="Rate exceeded",
        expected_params=create_params("p-102", TASK_2),
    )
    with pytest.raises(mturk.MTurkPartialError) as caught:
        mturk.publish_hits(
            client,
            settings(),
            [(101, TASK_1), (102, TASK_2)],
            request_token_prefix="p",
            hit_type_id=HIT_TYPE_ID,
        )
    error = caught.value
    assert error.completed == [mturk.PublishedHit(101, HIT_1, HIT_TYPE_ID, GROUP_ID)]
    assert error.code == "ThrottlingException"
    assert error.retryable is True
    assert "wait a minute and retry" in error.what_to_do
    assert "1 item(s) were done" in error.what_to_do


def test_unknown_qualification_type_on_hit_type(client, stub):
    s = settings(custom_qualification_type_id=QUAL_ID)
    request_error(
        stub,
        "create_hit_type",
        f"QualificationType {QUAL_ID} does not exist. (1700000000000)",
        "AWS.MechanicalTurk.QualificationTypeDoesNotExist",
        hit_type_params(s),
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.publish_hits(client, s, [(101, TASK_1)], request_token_prefix="p")
    assert caught.value.code == "AWS.MechanicalTurk.QualificationTypeDoesNotExist"
    assert "ensure_qualification_type" in caught.value.what_to_do


@pytest.mark.parametrize(
    ("hits", "prefix", "message"),
    [
        ([(101, TASK_1)], "p" * 62, "1 to 64 characters"),
        ([(101, TASK_1)], "", "1 to 64 characters"),
        ([(101, "http://eval.example.org/t")], "p", "HTTPS"),
        ([(101, TASK_1), (101, TASK_2)], "p", "listed twice"),
    ],
)
def test_publish_checks_everything_before_the_first_call(client, stub, hits, prefix, message):
    with pytest.raises(ValueError, match=message):
        mturk.publish_hits(client, settings(), hits, request_token_prefix=prefix)


def test_token_of_exactly_64_characters_is_accepted(client, stub):
    token = "p" * 60 + "-101"
    stub.add_response(
        "create_hit_with_hit_type", {"HIT": hit(HIT_1, token)}, create_params(token, TASK_1)
    )
    mturk.publish_hits(
        client,
        settings(),
        [(101, TASK_1)],
        request_token_prefix="p" * 60,
        hit_type_id=HIT_TYPE_ID,
    )


# --- expiring and extending ----------------------------------------------------------------


def test_expire_hit_sets_expiry_in_the_past(client, stub):
    stub.add_response(
        "update_expiration_for_hit",
        {},
        {"HITId": HIT_1, "ExpireAt": datetime(2015, 1, 1, tzinfo=UTC)},
    )
    assert mturk.expire_hit(client, HIT_1) is None


def test_expire_unknown_hit(client, stub):
    request_error(
        stub,
        "update_expiration_for_hit",
        f"Hit {HIT_1} does not exist. (1657421793250 s)",
        "AWS.MechanicalTurk.HITDoesNotExist",
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.expire_hit(client, HIT_1)
    assert "sandbox or production" in caught.value.what_to_do


def test_extend_hit(client, stub):
    now = datetime(2025, 3, 1, tzinfo=UTC)
    until = now + timedelta(days=3)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": HIT_1, "ExpireAt": until})
    mturk.extend_hit(client, HIT_1, until, now=now)


def test_extend_hit_refuses_the_past_and_naive_datetimes(client, stub):
    now = datetime(2025, 3, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match="use expire_hit"):
        mturk.extend_hit(client, HIT_1, now, now=now)
    with pytest.raises(ValueError, match="aware"):
        mturk.extend_hit(client, HIT_1, datetime(2030, 1, 1))


# --- assignments ---------------------------------------------------------------------------


def remote_item(assignment_id, status, worker=WORKER):
    return {
        "AssignmentId": assignment_id,
        "WorkerId": worker,
        "HITId": HIT_1,
        "AssignmentStatus": status,
        "AcceptTime": CREATED,
        "SubmitTime": CREATED + timedelta(minutes=7),
        "Answer": "<QuestionFormAnswers/>",
    }


def test_list_assignments_reads_every_page(client, stub):
    statuses = ["Submitted", "Approved", "Rejected"]
    stub.add_response(
        "list_assignments_for_hit",
        {
            "Assignments": [remote_item("3A1", "Submitted"), remote_item("3A2", "Approved")],
            "NextToken": "next-page",
            "NumResults": 2,
        },
        {"HITId": HIT_1, "AssignmentStatuses": statuses, "MaxResults": 100},
    )
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": [remote_item("3A3", "Rejected", "A2OTHER")], "NumResults": 1},
        {
            "HITId": HIT_1,
            "AssignmentStatuses": statuses,
            "MaxResults": 100,
            "NextToken": "next-page",
        },
    )
    found = mturk.list_assignments(client, HIT_1)
    assert [(a.assignment_id, a.status, a.worker_id) for a in found] == [
        ("3A1", "Submitted", WORKER),
        ("3A2", "Approved", WORKER),
        ("3A3", "Rejected", "A2OTHER"),
    ]
    assert found[0] == mturk.RemoteAssignment(
        assignment_id="3A1",
        worker_id=WORKER,
        hit_id=HIT_1,
        status="Submitted",
        accept_time=CREATED,
        submit_time=CREATED + timedelta(minutes=7),
        answer="<QuestionFormAnswers/>",
    )


def test_list_assignments_for_some_statuses(client, stub):
    stub.add_response(
        "list_assignments_for_hit",
        {"Assignments": [], "NumResults": 0},
        {"HITId": HIT_1, "AssignmentStatuses": ["Submitted"], "MaxResults": 100},
    )
    assert mturk.list_assignments(client, HIT_1, statuses=["Submitted"]) == []
    with pytest.raises(ValueError, match="statuses"):
        mturk.list_assignments(client, HIT_1, statuses=["Accepted"])


def test_list_assignments_service_fault_is_retryable(client, stub):
    stub.add_client_error(
        "list_assignments_for_hit",
        service_error_code="ServiceFault",
        service_message="Service unavailable",
        http_status_code=500,
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.list_assignments(client, HIT_1)
    assert caught.value.operation == "list_assignments_for_hit"
    assert caught.value.retryable is True
    assert "retry later" in caught.value.what_to_do


def remote(assignment_id, status):
    return mturk.RemoteAssignment(assignment_id, WORKER, HIT_1, status, None, None, "")


def test_reconcile():
    local = {
        "a-started-sub": "started",
        "a-expired-sub": "expired",
        "a-sub-sub": "submitted",
        "a-appr-sub": "approved",
        "a-rej-sub": "rejected",
        "a-sub-appr": "submitted",
        "a-appr-appr": "approved",
        "a-rej-appr": "rejected",
        "a-sub-rej": "submitted",
        "a-appr-rej": "approved",
        "a-returned-rej": "returned",
        "a-sub-missing": "submitted",
        "a-started-missing": "started",
        "a-expired-missing": "expired",
    }
    items = [
        remote("a-started-sub", "Submitted"),
        remote("a-expired-sub", "Submitted"),
        remote("a-sub-sub", "Submitted"),
        remote("a-appr-sub", "Submitted"),
        remote("a-rej-sub", "Submitted"),
        remote("a-sub-appr", "Approved"),
        remote("a-appr-appr", "Approved"),
        remote("a-rej-appr", "Approved"),
        remote("a-sub-rej", "Rejected"),
        remote("a-appr-rej", "Rejected"),
        remote("a-returned-rej", "Rejected"),
        remote("z-unknown", "Submitted"),
    ]
    changes = mturk.reconcile(local, items)
    A = mturk.Action
    assert [(c.assignment_id, c.action, c.local_status, c.remote_status) for c in changes] == [
        ("a-appr-rej", A.CONFLICT, "approved", "Rejected"),
        ("a-appr-sub", A.SEND_APPROVAL, "approved", "Submitted"),
        ("a-expired-sub", A.MARK_SUBMITTED, "expired", "Submitted"),
        ("a-rej-appr", A.CONFLICT, "rejected", "Approved"),
        ("a-rej-sub", A.SEND_REJECTION, "rejected", "Submitted"),
        ("a-returned-rej", A.MARK_REJECTED, "returned", "Rejected"),
        ("a-started-sub", A.MARK_SUBMITTED, "started", "Submitted"),
        ("a-sub-appr", A.MARK_APPROVED, "submitted", "Approved"),
        ("a-sub-missing", A.NOT_ON_MTURK, "submitted", None),
        ("a-sub-rej", A.MARK_REJECTED, "submitted", "Rejected"),
        ("z-unknown", A.UNKNOWN_REMOTE, None, "Submitted"),
    ]
    by_id = {c.assignment_id: c for c in changes}
    assert "override_rejection=True" in by_id["a-appr-rej"].note
    assert "cannot be rejected" in by_id["a-rej-appr"].note
    assert by_id["z-unknown"].remote == remote("z-unknown", "Submitted")
    assert by_id["a-sub-missing"].remote is None


def test_reconcile_in_agreement_is_empty():
    assert mturk.reconcile({"a": "approved"}, [remote("a", "Approved")]) == []
    assert mturk.reconcile({}, []) == []


def test_reconcile_refuses_unknown_statuses():
    with pytest.raises(ValueError, match="Unknown local status"):
        mturk.reconcile({"a": "done"}, [])
    with pytest.raises(ValueError, match="Unknown MTurk assignment status"):
        mturk.reconcile({"a": "submitted"}, [remote("a", "Accepted")])


def test_local_statuses_match_the_assignment_model():
    from judgments.models import AssignmentStatus

    assert set(assignments_module.LOCAL_STATUSES) == set(AssignmentStatus.values)


def test_approve(client, stub):
    stub.add_response("approve_assignment", {}, {"AssignmentId": ASSIGNMENT})
    stub.add_response(
        "approve_assignment",
        {},
        {"AssignmentId": ASSIGNMENT, "RequesterFeedback": "Thank you!", "OverrideRejection": True},
    )
    assert mturk.approve(client, ASSIGNMENT) is None
    mturk.approve(client, ASSIGNMENT, " Thank you! ", override_rejection=True)


def test_approve_twice_says_to_synchronise(client, stub):
    request_error(
        stub,
        "approve_assignment",
        "This operation can be called with a status of: Submitted (1700000000000)",
        "AWS.MechanicalTurk.InvalidAssignmentState",
        {"AssignmentId": ASSIGNMENT},
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.approve(client, ASSIGNMENT)
    assert caught.value.code == "AWS.MechanicalTurk.InvalidAssignmentState"
    assert "synchronise the campaign" in caught.value.what_to_do


def test_reject(client, stub):
    stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": ASSIGNMENT, "RequesterFeedback": "Failed 3 of 4 control items."},
    )
    mturk.reject(client, ASSIGNMENT, "Failed 3 of 4 control items.")


def test_reject_needs_feedback_within_1024_characters(client, stub):
    with pytest.raises(ValueError, match="needs feedback"):
        mturk.reject(client, ASSIGNMENT, "  ")
    with pytest.raises(ValueError, match="1025 characters; MTurk allows 1024"):
        mturk.reject(client, ASSIGNMENT, "x" * 1025)
    with pytest.raises(ValueError, match="MTurk allows 1024"):
        mturk.approve(client, ASSIGNMENT, "x" * 1025)
    stub.add_response(
        "reject_assignment", {}, {"AssignmentId": ASSIGNMENT, "RequesterFeedback": "é" * 1024}
    )
    mturk.reject(client, ASSIGNMENT, "é" * 1024)


def bonus_params(amount="0.50", token="bonus-c12-w7"):
    return {
        "WorkerId": WORKER,
        "BonusAmount": amount,
        "AssignmentId": ASSIGNMENT,
        "Reason": "High agreement with the experts.",
        "UniqueRequestToken": token,
    }


def test_send_bonus(client, stub):
    stub.add_response("send_bonus", {}, bonus_params())
    result = mturk.send_bonus(
        client,
        WORKER,
        ASSIGNMENT,
        Decimal("0.5"),
        "High agreement with the experts.",
        "bonus-c12-w7",
    )
    assert result is mturk.BonusResult.SENT


def test_send_bonus_twice_is_already_sent(client, stub):
    request_error(
        stub,
        "send_bonus",
        'The idempotency token "bonus-c12-w7" has already been processed. (1626172412406)',
        expected_params=bonus_params(),
    )
    result = mturk.send_bonus(
        client, WORKER, ASSIGNMENT, "0.50", "High agreement with the experts.", "bonus-c12-w7"
    )
    assert result is mturk.BonusResult.ALREADY_SENT


def test_send_bonus_without_funds(client, stub):
    request_error(
        stub,
        "send_bonus",
        "This Requester has insufficient funds in their account to complete this transaction.",
        "AWS.MechanicalTurk.InsufficientFunds",
        bonus_params(),
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.send_bonus(
            client, WORKER, ASSIGNMENT, "0.50", "High agreement with the experts.", "bonus-c12-w7"
        )
    assert caught.value.code == "AWS.MechanicalTurk.InsufficientFunds"
    assert caught.value.what_to_do.startswith("Add funds")


@pytest.mark.parametrize(
    ("amount", "reason", "token", "message"),
    [
        ("0", "r", "t", r"more than \$0.00"),
        ("0.001", "r", "t", "whole cents"),
        ("0.50", " ", "t", "needs a reason"),
        ("0.50", "r", "", "1 to 64"),
        ("0.50", "r", "t" * 65, "1 to 64"),
    ],
)
def test_send_bonus_refuses(client, stub, amount, reason, token, message):
    with pytest.raises(ValueError, match=message):
        mturk.send_bonus(client, WORKER, ASSIGNMENT, amount, reason, token)


# --- workers -------------------------------------------------------------------------------


def test_block_worker(client, stub):
    stub.add_response("create_worker_block", {}, {"WorkerId": WORKER, "Reason": "Random clicking."})
    mturk.block_worker(client, WORKER, "Random clicking.")
    with pytest.raises(ValueError, match="needs a reason"):
        mturk.block_worker(client, WORKER, "")


def test_notify_workers_in_batches_of_100(client, stub):
    workers = [f"A{i:05d}" for i in range(150)]
    stub.add_response(
        "notify_workers",
        {
            "NotifyWorkersFailureStatuses": [
                {
                    "NotifyWorkersFailureCode": "HardFailure",
                    "NotifyWorkersFailureMessage": "No previous work for this requester.",
                    "WorkerId": "A00007",
                }
            ]
        },
        {"Subject": "New HITs", "MessageText": "We published more.", "WorkerIds": workers[:100]},
    )
    stub.add_response(
        "notify_workers",
        {},
        {"Subject": "New HITs", "MessageText": "We published more.", "WorkerIds": workers[100:]},
    )
    failures = mturk.notify_workers(client, workers + workers[:5], "New HITs", "We published more.")
    assert failures == [
        mturk.NotifyFailure("A00007", "HardFailure", "No previous work for this requester.")
    ]


def test_notify_workers_stopped_midway_lists_who_was_emailed(client, stub):
    workers = [f"A{i:05d}" for i in range(101)]
    stub.add_response(
        "notify_workers",
        {},
        {"Subject": "s", "MessageText": "m", "WorkerIds": workers[:100]},
    )
    stub.add_client_error(
        "notify_workers",
        service_error_code="ThrottlingException",
        service_message="Rate exceeded",
        expected_params={"Subject": "s", "MessageText": "m", "WorkerIds": workers[100:]},
    )
    with pytest.raises(mturk.MTurkPartialError) as caught:
        mturk.notify_workers(client, workers, "s", "m")
    assert caught.value.completed == workers[:100]
    assert caught.value.retryable is True


def test_notify_workers_checks_lengths(client, stub):
    with pytest.raises(ValueError, match="subject"):
        mturk.notify_workers(client, [WORKER], "s" * 201, "m")
    with pytest.raises(ValueError, match="message"):
        mturk.notify_workers(client, [WORKER], "s", "m" * 4097)
    assert mturk.notify_workers(client, [], "s", "m") == []


def qualification_type(type_id, name, status="Active"):
    return {
        "QualificationTypeId": type_id,
        "Name": name,
        "Description": "Passed the ranking test.",
        "QualificationTypeStatus": status,
        "CreationTime": CREATED,
    }


LIST_QUALS = {
    "Query": "evalsite c12 passed",
    "MustBeRequestable": False,
    "MustBeOwnedByCaller": True,
    "MaxResults": 100,
}


def test_ensure_qualification_type_finds_the_exact_name_across_pages(client, stub):
    stub.add_response(
        "list_qualification_types",
        {
            "QualificationTypes": [qualification_type("3OTHER", "evalsite c12 passed (old)")],
            "NextToken": "more",
            "NumResults": 1,
        },
        LIST_QUALS,
    )
    stub.add_response(
        "list_qualification_types",
        {"QualificationTypes": [qualification_type(QUAL_ID, "evalsite c12 passed")]},
        {**LIST_QUALS, "NextToken": "more"},
    )
    found = mturk.ensure_qualification_type(
        client, "evalsite c12 passed", "Passed the ranking test."
    )
    assert found == QUAL_ID


def test_ensure_qualification_type_creates_a_missing_one(client, stub):
    stub.add_response("list_qualification_types", {"QualificationTypes": []}, LIST_QUALS)
    stub.add_response(
        "create_qualification_type",
        {"QualificationType": qualification_type(QUAL_ID, "evalsite c12 passed")},
        {
            "Name": "evalsite c12 passed",
            "Description": "Passed the ranking test.",
            "QualificationTypeStatus": "Active",
        },
    )
    found = mturk.ensure_qualification_type(
        client, "evalsite c12 passed", "Passed the ranking test."
    )
    assert found == QUAL_ID


def test_ensure_qualification_type_reactivates_an_inactive_one(client, stub):
    stub.add_response(
        "list_qualification_types",
        {"QualificationTypes": [qualification_type(QUAL_ID, "evalsite c12 passed", "Inactive")]},
        LIST_QUALS,
    )
    stub.add_response(
        "update_qualification_type",
        {"QualificationType": qualification_type(QUAL_ID, "evalsite c12 passed")},
        {"QualificationTypeId": QUAL_ID, "QualificationTypeStatus": "Active"},
    )
    found = mturk.ensure_qualification_type(
        client, "evalsite c12 passed", "Passed the ranking test."
    )
    assert found == QUAL_ID


def test_ensure_qualification_type_errors(client, stub):
    with pytest.raises(ValueError, match="name and a description"):
        mturk.ensure_qualification_type(client, "x", " ")
    stub.add_client_error(
        "list_qualification_types",
        service_error_code="AccessDeniedException",
        service_message="User is not authorized to perform: mechanicalturk:ListQualificationTypes",
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.ensure_qualification_type(client, "evalsite c12 passed", "Passed the test.")
    assert caught.value.operation == "list_qualification_types"
    assert "AmazonMechanicalTurkFullAccess" in caught.value.what_to_do


def test_grant_qualification(client, stub):
    stub.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": QUAL_ID,
            "WorkerId": WORKER,
            "IntegerValue": 1,
            "SendNotification": False,
        },
    )
    stub.add_response(
        "associate_qualification_with_worker",
        {},
        {
            "QualificationTypeId": QUAL_ID,
            "WorkerId": WORKER,
            "IntegerValue": 0,
            "SendNotification": True,
        },
    )
    mturk.grant_qualification(client, QUAL_ID, WORKER)
    mturk.grant_qualification(client, QUAL_ID, WORKER, value=0, send_notification=True)


def test_grant_unknown_qualification_type(client, stub):
    request_error(
        stub,
        "associate_qualification_with_worker",
        f"QualificationType {QUAL_ID} does not exist.",
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.grant_qualification(client, QUAL_ID, WORKER)
    assert "sandbox and production have different ids" in caught.value.what_to_do


# --- errors without an answer from MTurk ---------------------------------------------------


def test_translate_missing_credentials():
    error = translate("create_hit_type", NoCredentialsError())
    assert error.code == "NoCredentials"
    assert "AWS_ACCESS_KEY_ID" in error.what_to_do
    assert str(error).startswith("MTurk create_hit_type failed (NoCredentials):")


def test_translate_network_failure_is_retryable():
    error = translate("get_hit", EndpointConnectionError(endpoint_url=mturk.SANDBOX_ENDPOINT))
    assert error.code == "ConnectionError"
    assert error.retryable is True


def test_translate_param_validation_is_a_bug_report():
    error = translate("get_hit", ParamValidationError(report="Invalid length for HITId"))
    assert error.code == "ParamValidation"
    assert "bug" in error.what_to_do
    assert error.retryable is False


def test_translate_refuses_non_botocore_exceptions():
    with pytest.raises(TypeError):
        translate("get_hit", RuntimeError("boom"))
