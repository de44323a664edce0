"""HITs on MTurk against botocore's Stubber: the ExternalQuestion, the validated HitSettings and
the qualification requirements they give (campaigns.platforms.mturk.settings), then publishing,
expiring and extending HITs (campaigns.platforms.mturk.hits) with every call's exact parameters,
the error answers MTurk gives (with their codes) and pagination. No network, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from campaigns.platforms import mturk
from tests.campaigns.platforms.mturk.support import (
    CREATED,
    GROUP_ID,
    HIT_1,
    HIT_2,
    HIT_3,
    HIT_TYPE_ID,
    QUAL_ID,
    request_error,
)


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
