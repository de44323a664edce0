"""campaigns.platforms.mturk.workers against botocore's Stubber: blocking and notifying workers
(in batches of 100), finding or creating qualification types (across pages) and granting them,
with every call's exact parameters and the error answers MTurk gives. No network, no
database."""

from __future__ import annotations

import pytest

from campaigns.platforms import mturk
from tests.campaigns.platforms.mturk.support import CREATED, QUAL_ID, WORKER, request_error


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
