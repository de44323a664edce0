"""What the publishing tests share: the Stubber on a real boto3 client behind
``campaigns.platforms.clients.mturk_client`` (``stubbed_mturk``, the ``mturk_stub`` fixture),
the HTTPS base URL, MTurk ids, campaigns ready to publish, and the exact parameters of every
MTurk call. Used by the test_publishing_*.py modules, tests/campaigns/test_admin_mturk.py and
tests/campaigns/test_mturk_hits_command.py."""

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

from campaigns.models import MTurkHit, TaskKind
from tests.factories import CampaignFactory, HitFactory

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
