"""Approve, reject, bonuses (never paid twice), blocks and e-mails
(``campaigns.platforms.review``), against botocore's Stubber with the exact parameters of every
MTurk call and what is stored when MTurk refuses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from campaigns.platforms import review
from judgments.models import Assignment, AssignmentStatus, Bonus, BonusStatus, Worker
from tests.campaigns.platforms.mturk.support import request_error
from tests.campaigns.platforms.review_support import (
    INVALID_STATE,
    INVALID_STATE_CODE,
    INVALID_STATE_HELP,
    WORKER_1,
    WORKER_2,
    bonus_params,
    events,
    mturk_assignment,
    mturk_worker,
    published_hit,
    sent_to_mturk,
)
from tests.factories import AssignmentFactory, CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db


# --- Approve and reject ----------------------------------------------------------------------


def test_approve_calls_mturk_first_and_stores_only_what_it_confirmed(
    mturk_stub, announced, django_capture_on_commit_callbacks
):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    confirmed = mturk_assignment(hit, "3D01")
    refused = mturk_assignment(hit, "3D02")
    direct = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    started = mturk_assignment(hit, "3D03", AssignmentStatus.STARTED)
    mturk_stub.add_response(
        "approve_assignment", {}, {"AssignmentId": "3D01", "RequesterFeedback": "Thanks!"}
    )
    request_error(
        mturk_stub,
        "approve_assignment",
        INVALID_STATE,
        INVALID_STATE_CODE,
        {"AssignmentId": "3D02", "RequesterFeedback": "Thanks!"},
    )
    with django_capture_on_commit_callbacks(execute=True):
        result = review.approve_assignments(
            Assignment.objects.filter(campaign=campaign), " Thanks! "
        )

    assert result.done == [
        f"assignment {confirmed.pk} (worker AW3D01, MTurk 3D01)",
        f"assignment {direct.pk} (worker {direct.worker.external_id})",
    ]
    assert [str(f) for f in result.failed] == [
        f"assignment {refused.pk} (worker AW3D02, MTurk 3D02): {INVALID_STATE} "
        f"({INVALID_STATE_CODE}) What to do: {INVALID_STATE_HELP}"
    ]
    assert result.skipped == [
        (
            f"assignment {started.pk} (worker AW3D03, MTurk 3D03)",
            "Not submitted (started): review it once the worker has submitted.",
        )
    ]
    rows = {
        a.pk: (a.status, a.platform_status, a.review_feedback, a.reviewed_at is not None)
        for a in Assignment.objects.filter(campaign=campaign)
    }
    assert rows[confirmed.pk] == ("approved", "Approved", "Thanks!", True)
    assert rows[refused.pk] == ("submitted", "", "", False)
    assert rows[direct.pk] == ("approved", "", "Thanks!", True)
    assert rows[started.pk] == ("started", "", "", False)
    assert events(campaign) == [
        (
            "error",
            "approve",
            INVALID_STATE_CODE,
            f"assignment {refused.pk} (worker AW3D02, MTurk 3D02): {INVALID_STATE}",
            INVALID_STATE_HELP,
        )
    ]
    assert announced == [[campaign.pk]]


@pytest.mark.parametrize("on_mturk", ["Rejected", "Approved"])
def test_approving_a_rejection(mturk_stub, on_mturk):
    """Rejected on MTurk: the approval overrides it. Approved there already (auto-approval
    before our rejection arrived): our row is aligned, MTurk is not called."""
    row = mturk_assignment(
        published_hit(CampaignFactory()),
        "3E01",
        AssignmentStatus.REJECTED,
        platform_status=on_mturk,
    )
    if on_mturk == "Rejected":
        mturk_stub.add_response(
            "approve_assignment", {}, {"AssignmentId": "3E01", "OverrideRejection": True}
        )
    result = review.approve_assignments([row])
    row.refresh_from_db()
    assert (len(result.done), row.status, row.platform_status) == (1, "approved", "Approved")


def test_reject_sends_the_feedback_and_refuses_paid_work(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    submitted = mturk_assignment(hit, "3F01")
    paid = mturk_assignment(hit, "3F02", AssignmentStatus.APPROVED, platform_status="Approved")
    mturk_stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": "3F01", "RequesterFeedback": "Failed 9 of 10 control items."},
    )
    result = review.reject_assignments(
        Assignment.objects.filter(campaign=campaign).order_by("pk"),
        "Failed 9 of 10 control items.",
    )
    submitted.refresh_from_db()
    paid.refresh_from_db()
    assert (submitted.status, submitted.review_feedback, submitted.platform_status) == (
        "rejected",
        "Failed 9 of 10 control items.",
        "Rejected",
    )
    assert paid.status == "approved"
    assert result.skipped == [
        (
            f"assignment {paid.pk} (worker AW3F02, MTurk 3F02)",
            "Approved on MTurk, which paid the worker: a paid assignment cannot be rejected. To "
            "leave the worker's judgments out of the scores, exclude them in the campaign's "
            "results panel.",
        )
    ]


@pytest.mark.parametrize(
    ("feedback", "message"),
    [
        ("  ", "A rejection needs feedback"),
        ("é" * 1025, "The feedback has 1025 characters; MTurk allows 1024."),
    ],
)
def test_reject_checks_the_feedback_before_any_call(mturk_stub, feedback, message):
    row = mturk_assignment(published_hit(CampaignFactory()), "3G01")
    with pytest.raises(ValueError, match=message):
        review.reject_assignments([row], feedback)
    row.refresh_from_db()
    assert row.status == "submitted"


def test_rejecting_a_direct_link_assignment_changes_its_status_only(mturk_stub):
    row = AssignmentFactory(status=AssignmentStatus.APPROVED)
    result = review.reject_assignments([row], "Random clicking.")
    row.refresh_from_db()
    assert (len(result.done), row.status, row.review_feedback) == (
        1,
        "rejected",
        "Random clicking.",
    )
    assert mturk_stub.environments == []


# --- Bonuses ---------------------------------------------------------------------------------


def test_bonus_is_written_before_the_call_and_marked_sent_when_mturk_confirms(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H01", AssignmentStatus.APPROVED)
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row))
    result = review.send_bonuses(
        [row], "0.5", " Excellent agreement with the experts. ", "alice (admin)"
    )
    bonus = Bonus.objects.get()
    assert sent == [bonus_params(row, bonus)]
    assert (bonus.amount, bonus.status, bonus.created_by, bonus.last_error) == (
        Decimal("0.50"),
        BonusStatus.SENT,
        "alice (admin)",
        "",
    )
    assert bonus.sent_at is not None
    assert result.done == [f"assignment {row.pk} (worker AW3H01, MTurk 3H01)"]


def test_a_failed_bonus_is_retried_with_the_same_token_and_never_paid_twice(mturk_stub):
    campaign = CampaignFactory()
    row = mturk_assignment(published_hit(campaign), "3H02", AssignmentStatus.APPROVED)
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_client_error(
        "send_bonus",
        service_error_code="ThrottlingException",
        service_message="Rate exceeded",
        expected_params=bonus_params(row),
    )
    first = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    bonus = Bonus.objects.get()
    params = bonus_params(row, bonus)
    assert sent == [params]
    throttled = (
        "MTurk is throttling this account: wait a minute and retry. Retrying is safe: HIT "
        "creation and bonuses carry a unique request token, so nothing is done twice."
    )
    label = f"assignment {row.pk} (worker AW3H02, MTurk 3H02)"
    assert [str(f) for f in first.failed] == [
        f"{label}: Rate exceeded (ThrottlingException) What to do: {throttled}"
    ]
    assert (bonus.status, bonus.sent_at, bonus.last_error) == (
        BonusStatus.PENDING,
        None,
        f"{label}: Rate exceeded (ThrottlingException) What to do: {throttled}",
    )
    assert events(campaign) == [
        ("error", "bonus", "ThrottlingException", f"{label}: Rate exceeded", throttled)
    ]

    # The first call had in fact gone through: MTurk recognises the token and pays nothing.
    request_error(
        mturk_stub,
        "send_bonus",
        f'The idempotency token "evalsite-bonus-{bonus.pk}" has already been processed.',
        expected_params=params,
    )
    second = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    assert sent == [params, params]  # the same token again
    assert second.done == [f"{label} (MTurk had already paid it: confirmed, not paid again)"]
    assert Bonus.objects.count() == 1
    bonus.refresh_from_db()
    assert (bonus.status, bonus.last_error) == (BonusStatus.SENT, "")


def test_a_second_identical_bonus_is_refused_unless_forced(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H03", AssignmentStatus.APPROVED)
    paid = Bonus.objects.create(
        assignment=row,
        worker=row.worker,
        amount=Decimal("0.50"),
        reason="Excellent agreement with the experts.",
        status=BonusStatus.SENT,
        sent_at=datetime(2025, 3, 2, 9, 30, tzinfo=UTC),
    )
    refused = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.")
    assert refused.skipped == [
        (
            f"assignment {row.pk} (worker AW3H03, MTurk 3H03)",
            "A bonus of $0.50 with this reason was already paid on 2025-03-02 09:30: tick "
            "'pay again' (--force) to pay another.",
        )
    ]
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row))
    forced = review.send_bonuses([row], "0.50", "Excellent agreement with the experts.", force=True)
    assert len(forced.done) == 1
    second = Bonus.objects.exclude(pk=paid.pk).get()
    assert second.status == BonusStatus.SENT
    assert sent == [bonus_params(row, second)]  # a new payment: a new token


def test_an_old_unconfirmed_bonus_is_not_retried_without_force(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3H04", AssignmentStatus.APPROVED)
    pending = Bonus.objects.create(
        assignment=row, worker=row.worker, amount=Decimal("1.00"), reason="Thanks."
    )
    Bonus.objects.filter(pk=pending.pk).update(created_at=timezone.now() - timedelta(days=2))
    result = review.send_bonuses([row], "1.00", "Thanks.")
    assert result.skipped[0][1].startswith("A payment of this bonus was attempted on ")
    mturk_stub.add_response("send_bonus", {}, bonus_params(row, pending, "1.00", "Thanks."))
    forced = review.send_bonuses([row], "1.00", "Thanks.", force=True)
    assert len(forced.done) == 1
    pending.refresh_from_db()
    assert pending.status == BonusStatus.SENT


def test_bonuses_are_mturk_only_and_need_valid_input(mturk_stub):
    direct = AssignmentFactory(status=AssignmentStatus.APPROVED)
    result = review.send_bonuses([direct], "0.50", "Thanks.")
    assert result.skipped == [
        (
            f"assignment {direct.pk} (worker {direct.worker.external_id})",
            "Bonuses are paid through MTurk only: pay a Prolific worker's bonus on Prolific and "
            "a direct-link worker outside evalsite.",
        )
    ]
    with pytest.raises(ValueError, match="whole cents"):
        review.send_bonuses([direct], "0.005", "Thanks.")
    with pytest.raises(ValueError, match="needs a reason"):
        review.send_bonuses([direct], "0.50", " ")
    assert Bonus.objects.count() == 0


# --- Block and notify ------------------------------------------------------------------------


def test_block_in_the_environment_the_worker_worked_in(mturk_stub):
    campaign = CampaignFactory(mturk_sandbox=True)
    hit = published_hit(campaign, sandbox=False)
    worker = mturk_worker(WORKER_1)
    mturk_assignment(hit, "3J01", worker=worker)
    direct = WorkerFactory()
    mturk_stub.add_response(
        "create_worker_block", {}, {"WorkerId": WORKER_1, "Reason": "Random clicking."}
    )
    result = review.block_workers(
        Worker.objects.filter(pk__in=[worker.pk, direct.pk]), "Random clicking."
    )
    worker.refresh_from_db()
    assert mturk_stub.environments == [False]
    assert (worker.blocked_reason, worker.blocked_at is not None) == ("Random clicking.", True)
    assert result.done == [f"worker {WORKER_1}"]
    assert result.skipped == [
        (
            f"worker {direct.external_id}",
            "Blocking is an MTurk feature: to give this worker no further work, exclude them "
            "from the campaign (Campaign workers).",
        )
    ]


def test_a_refused_block_leaves_the_worker_unblocked(mturk_stub):
    campaign = CampaignFactory()
    worker = mturk_worker(WORKER_1)
    mturk_assignment(published_hit(campaign), "3J02", worker=worker)
    mturk_stub.add_client_error(
        "create_worker_block",
        service_error_code="UnrecognizedClientException",
        service_message="The security token included in the request is invalid.",
        http_status_code=400,
        expected_params={"WorkerId": WORKER_1, "Reason": "Random clicking."},
    )
    result = review.block_workers([worker], "Random clicking.")
    worker.refresh_from_db()
    assert (worker.blocked_at, worker.blocked_reason) == (None, "")
    assert result.failed[0].item == f"worker {WORKER_1} (sandbox)"
    assert result.failed[0].what_to_do.startswith("Check the AWS credentials evalsite runs with")
    assert events(campaign)[0][:4] == (
        "error",
        "block",
        "UnrecognizedClientException",
        f"worker {WORKER_1} (sandbox): The security token included in the request is invalid.",
    )


def test_notify_reports_the_workers_mturk_could_not_reach(mturk_stub):
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    first, second = mturk_worker(WORKER_1), mturk_worker(WORKER_2)
    mturk_assignment(hit, "3K01", worker=first)
    mturk_assignment(hit, "3K02", worker=second)
    mturk_stub.add_response(
        "notify_workers",
        {
            "NotifyWorkersFailureStatuses": [
                {
                    "NotifyWorkersFailureCode": "HardFailure",
                    "NotifyWorkersFailureMessage": "No previous work for this requester.",
                    "WorkerId": WORKER_2,
                }
            ]
        },
        {
            "Subject": "New HITs",
            "MessageText": "We published more.",
            "WorkerIds": [WORKER_1, WORKER_2],
        },
    )
    result = review.notify_workers([first, second], "New HITs", "We published more.")
    assert result.done == [f"worker {WORKER_1} (sandbox)"]
    hard = (
        "MTurk e-mails a worker only after you approved or rejected their work, and never one "
        "who opted out: reach them another way."
    )
    assert [str(f) for f in result.failed] == [
        f"worker {WORKER_2} (sandbox): No previous work for this requester. (HardFailure) "
        f"What to do: {hard}"
    ]
    assert events(campaign) == [
        (
            "error",
            "notify",
            "HardFailure",
            f"MTurk could not e-mail: {WORKER_2} (HardFailure: No previous work for this "
            "requester.)",
            hard,
        )
    ]


def test_notify_failing_altogether_reports_every_worker(mturk_stub):
    campaign = CampaignFactory()
    worker = mturk_worker(WORKER_1)
    mturk_assignment(published_hit(campaign), "3K03", worker=worker)
    mturk_stub.add_client_error(
        "notify_workers",
        service_error_code="ServiceFault",
        service_message="Service unavailable",
        http_status_code=500,
        expected_params={"Subject": "s", "MessageText": "m", "WorkerIds": [WORKER_1]},
    )
    result = review.notify_workers([worker], "s", "m")
    assert [(f.item, f.code) for f in result.failed] == [
        (f"worker {WORKER_1} (sandbox)", "ServiceFault")
    ]
    assert events(campaign)[0][:4] == (
        "error",
        "notify",
        "ServiceFault",
        "1 worker(s) not e-mailed: Service unavailable",
    )
    with pytest.raises(ValueError, match="subject must be 1 to 200"):
        review.notify_workers([worker], "x" * 201, "m")
