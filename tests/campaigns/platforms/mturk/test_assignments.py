"""campaigns.platforms.mturk.assignments against botocore's Stubber: listing a HIT's
assignments (with pagination), reconciling them with ours, approving, rejecting and sending
bonuses, with every call's exact parameters and the error answers MTurk gives (with their
codes). No network, no database."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from campaigns.platforms import mturk
from campaigns.platforms.mturk import assignments as assignments_module
from tests.campaigns.platforms.mturk.support import (
    ASSIGNMENT,
    CREATED,
    HIT_1,
    WORKER,
    request_error,
)


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
