"""What the review workflow's tests share: the Stubber on a real boto3 client (the
``mturk_stub`` fixture), MTurk ids and times, and builders of published HITs, MTurk workers
and assignments and of MTurk's answers. Used by test_review_sync.py, test_review_actions.py,
tests/judgments/test_admin_review.py and tests/campaigns/test_mturk_review_command.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import boto3
import pytest
from botocore.stub import ANY, Stubber

from campaigns.platforms import clients
from campaigns.platforms.models import MTurkHit, PlatformEvent
from judgments.models import AssignmentStatus, Platform, Worker
from judgments.signals import exclusions_changed
from tests.factories import AssignmentFactory, HitFactory

HIT_1 = "3HIT00000000000000000000000001"
HIT_2 = "3HIT00000000000000000000000002"
WORKER_1 = "A1WORKER0000001"
WORKER_2 = "A2WORKER0000002"
ACCEPTED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
SUBMITTED = ACCEPTED + timedelta(minutes=7)
DECIDED = ACCEPTED + timedelta(days=1)
ALL_STATUSES = ["Submitted", "Approved", "Rejected"]


# --- Fixtures and builders (shared with the admin and command tests) ---------------------------


@pytest.fixture
def mturk_stub(monkeypatch):
    """A real boto3 MTurk client behind a Stubber, returned by ``clients.mturk_client``; the
    environments asked for are in ``stub.environments``."""
    client = boto3.client(
        "mturk", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    environments: list[bool] = []

    def build(sandbox: bool):
        environments.append(sandbox)
        return client

    monkeypatch.setattr(clients, "mturk_client", build)
    with Stubber(client) as stubber:
        stubber.environments = environments
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def announced():
    """The campaigns announced by ``exclusions_changed`` (their scores recompute)."""
    calls: list[list[int]] = []

    def receiver(sender, campaign_ids, **kwargs):
        calls.append(campaign_ids)

    exclusions_changed.connect(receiver, dispatch_uid="test-review-announced")
    yield calls
    exclusions_changed.disconnect(dispatch_uid="test-review-announced")


def published_hit(campaign, mturk_hit_id=HIT_1, *, sandbox=True, **fields):
    hit = HitFactory(campaign=campaign)
    MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id=mturk_hit_id,
        hit_type_id="3TYPE0000000000000000000000001",
        sandbox=sandbox,
        max_assignments=3,
        **fields,
    )
    return hit


def mturk_worker(external_id=WORKER_1):
    return Worker.objects.get_or_create(platform=Platform.MTURK, external_id=external_id)[0]


def mturk_assignment(hit, assignment_id, status=AssignmentStatus.SUBMITTED, worker=None, **fields):
    fields.setdefault("submitted_at", SUBMITTED if status != AssignmentStatus.STARTED else None)
    return AssignmentFactory(
        hit=hit,
        worker=worker or mturk_worker(f"AW{assignment_id}"),
        status=status,
        platform_assignment_id=assignment_id,
        platform_hit_id=hit.mturk.mturk_hit_id,
        **fields,
    )


def remote_item(assignment_id, status, worker=WORKER_1, hit_id=HIT_1, **times):
    item = {
        "AssignmentId": assignment_id,
        "WorkerId": worker,
        "HITId": hit_id,
        "AssignmentStatus": status,
        "AcceptTime": ACCEPTED,
        "SubmitTime": SUBMITTED,
        "Answer": "<QuestionFormAnswers/>",
    }
    item.update(times)
    return item


def list_response(stub, items, hit_id=HIT_1, next_token=None, sent_token=None):
    params = {"HITId": hit_id, "AssignmentStatuses": ALL_STATUSES, "MaxResults": 100}
    if sent_token:
        params["NextToken"] = sent_token
    response = {"Assignments": items, "NumResults": len(items)}
    if next_token:
        response["NextToken"] = next_token
    stub.add_response("list_assignments_for_hit", response, params)


INVALID_STATE = "This operation can be called with a status of: Submitted (1700000000000)"
INVALID_STATE_CODE = "AWS.MechanicalTurk.InvalidAssignmentState"
INVALID_STATE_HELP = (
    "The assignment or HIT is not in the state this action needs on MTurk (for an assignment: "
    "already approved or rejected, or not yet submitted): synchronise the campaign with MTurk "
    "and look at its current status."
)


def sent_to_mturk(stub, operation):
    """The exact parameters of every ``operation`` call (e.g. ``SendBonus``) as the client
    sent them: for values the test cannot know before the call, such as a new row's id in a
    request token (stubbed with ``ANY``, then compared here in full)."""
    sent: list[dict] = []
    stub.client.meta.events.register(
        f"provide-client-params.mturk.{operation}",
        lambda params, **kwargs: sent.append(dict(params)),
    )
    return sent


def events(campaign):
    return list(
        PlatformEvent.objects.filter(campaign=campaign)
        .order_by("pk")
        .values_list("kind", "operation", "code", "message", "what_to_do")
    )


def bonus_params(row, bonus=None, amount="0.50", reason="Excellent agreement with the experts."):
    return {
        "WorkerId": row.worker.external_id,
        "BonusAmount": amount,
        "AssignmentId": row.platform_assignment_id,
        "Reason": reason,
        "UniqueRequestToken": ANY if bonus is None else f"evalsite-bonus-{bonus.pk}",
    }
