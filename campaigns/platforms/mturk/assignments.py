"""Assignments on MTurk: listing them, reconciling them with ours, reviewing and paying them.

:func:`list_assignments` reads every page of ``ListAssignmentsForHIT`` (MTurk returns
submitted, approved and rejected assignments only: an accepted but unsubmitted one is not
listed). :func:`reconcile` is pure: it compares those with our rows and says what to do, the
caller does it. :func:`approve`, :func:`reject` and :func:`send_bonus` review and pay.

``RequesterFeedback`` "can be up to 1024 characters, including multi-byte characters"
(``AWSMturkAPI-legacy/ApiReference_RejectAssignmentOperation``). ``ApproveAssignment`` can
override a rejection "submitted within the previous 30 days" (boto3's documentation).
``SendBonus`` with a ``UniqueRequestToken`` already used in the last 24 hours returns "an error
with a message containing the request ID" (``ApiReference_GrantBonusOperation``):
:func:`send_bonus` reports that as :attr:`BonusResult.ALREADY_SENT`, so a retried payment is
never paid twice and never looks like a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from .errors import call, is_duplicate_request, translate
from .hits import MAX_TOKEN
from .settings import dollars, dollars_param

MAX_FEEDBACK = 1024
REMOTE_STATUSES = ("Submitted", "Approved", "Rejected")

# Our statuses (judgments.models.AssignmentStatus values; the tests check they match). This
# module stays free of Django so it can be used and tested without a database.
STARTED = "started"
SUBMITTED = "submitted"
APPROVED = "approved"
REJECTED = "rejected"
EXPIRED = "expired"
RETURNED = "returned"
LOCAL_STATUSES = (STARTED, SUBMITTED, APPROVED, REJECTED, EXPIRED, RETURNED)
_NOT_REVIEWED = (STARTED, SUBMITTED, EXPIRED, RETURNED)


@dataclass(frozen=True)
class RemoteAssignment:
    """One assignment as MTurk lists it. ``answer`` is MTurk's QuestionFormAnswers XML."""

    assignment_id: str
    worker_id: str
    hit_id: str
    status: str  # Submitted | Approved | Rejected
    accept_time: datetime | None
    submit_time: datetime | None
    answer: str
    approval_time: datetime | None = None
    rejection_time: datetime | None = None
    auto_approval_time: datetime | None = None

    @classmethod
    def from_api(cls, item: Mapping[str, Any]) -> RemoteAssignment:
        return cls(
            assignment_id=item["AssignmentId"],
            worker_id=item.get("WorkerId", ""),
            hit_id=item.get("HITId", ""),
            status=item.get("AssignmentStatus", ""),
            accept_time=item.get("AcceptTime"),
            submit_time=item.get("SubmitTime"),
            answer=item.get("Answer", ""),
            approval_time=item.get("ApprovalTime"),
            rejection_time=item.get("RejectionTime"),
            auto_approval_time=item.get("AutoApprovalTime"),
        )


def list_assignments(
    client: Any, hit_id: str, *, statuses: Sequence[str] = REMOTE_STATUSES
) -> list[RemoteAssignment]:
    """Every assignment of one HIT with one of ``statuses``, across all result pages."""
    unknown = set(statuses) - set(REMOTE_STATUSES)
    if unknown or not statuses:
        raise ValueError(f"statuses must be among {', '.join(REMOTE_STATUSES)}.")
    found: list[RemoteAssignment] = []
    try:
        pages = client.get_paginator("list_assignments_for_hit").paginate(
            HITId=hit_id,
            AssignmentStatuses=list(statuses),
            PaginationConfig={"PageSize": 100},
        )
        for page in pages:
            found.extend(RemoteAssignment.from_api(item) for item in page.get("Assignments", []))
    except (ClientError, BotoCoreError) as exc:
        raise translate("list_assignments_for_hit", exc) from exc
    return found


class Action(StrEnum):
    """What :func:`reconcile` asks the caller to do about one assignment."""

    MARK_SUBMITTED = "mark_submitted"  # MTurk has the submission; record it
    MARK_APPROVED = "mark_approved"  # approved on MTurk (auto-approval or the website)
    MARK_REJECTED = "mark_rejected"  # rejected on MTurk (on the website)
    SEND_APPROVAL = "send_approval"  # we approved, MTurk still waits: call approve()
    SEND_REJECTION = "send_rejection"  # we rejected, MTurk still waits: call reject()
    CONFLICT = "conflict"  # MTurk decided the opposite of us: a person must look
    UNKNOWN_REMOTE = "unknown_remote"  # MTurk has an assignment we have no row for
    NOT_ON_MTURK = "not_on_mturk"  # we have a submission MTurk never received


@dataclass(frozen=True)
class AssignmentChange:
    assignment_id: str
    action: Action
    local_status: str | None
    remote_status: str | None
    remote: RemoteAssignment | None
    note: str


_NOTES = {
    Action.MARK_SUBMITTED: "MTurk received the submission.",
    Action.MARK_APPROVED: "Approved on MTurk (auto-approval or the requester website).",
    Action.MARK_REJECTED: "Rejected on MTurk (the requester website).",
    Action.SEND_APPROVAL: "Approved here but still waiting on MTurk: send the approval.",
    Action.SEND_REJECTION: "Rejected here but still waiting on MTurk: send the rejection.",
    Action.UNKNOWN_REMOTE: (
        "MTurk has this submission but evalsite has no assignment with this id: the worker "
        "may have submitted without going through our task page."
    ),
    Action.NOT_ON_MTURK: (
        "Submitted here but MTurk has no submission: the worker's browser never posted to "
        "MTurk, so MTurk will not pay them unless they submit there (or you pay a bonus)."
    ),
}
_APPROVED_THERE_REJECTED_HERE = (
    "MTurk approved and paid it (usually auto-approval before our rejection reached MTurk); a "
    "paid assignment cannot be rejected. Keep our rejection for the scores or mark it approved."
)
_REJECTED_THERE_APPROVED_HERE = (
    "MTurk rejected it but we approved it: send the approval with override_rejection=True "
    "(possible within 30 days of submission)."
)


def _decide(local: str, remote: str) -> Action | None:
    if remote == "Submitted":
        return {
            SUBMITTED: None,
            APPROVED: Action.SEND_APPROVAL,
            REJECTED: Action.SEND_REJECTION,
        }.get(local, Action.MARK_SUBMITTED)
    if remote == "Approved":
        if local == APPROVED:
            return None
        return Action.CONFLICT if local == REJECTED else Action.MARK_APPROVED
    if remote == "Rejected":
        if local == REJECTED:
            return None
        return Action.CONFLICT if local == APPROVED else Action.MARK_REJECTED
    raise ValueError(f"Unknown MTurk assignment status {remote!r}.")


def reconcile(
    local: Mapping[str, str], remote: Iterable[RemoteAssignment]
) -> list[AssignmentChange]:
    """What to change so our assignments agree with MTurk's, sorted by assignment id.

    ``local`` maps MTurk assignment ids to our status for the same HITs ``remote`` lists.
    Assignments already in agreement, and ours that are still open (started, expired,
    returned) with nothing on MTurk, produce nothing. Pure: no call, no database.
    """
    for assignment_id, status in local.items():
        if status not in LOCAL_STATUSES:
            raise ValueError(f"Unknown local status {status!r} for assignment {assignment_id}.")
    by_id = {item.assignment_id: item for item in remote}
    changes: list[AssignmentChange] = []
    for assignment_id, item in by_id.items():
        status = local.get(assignment_id)
        if status is None:
            action: Action | None = Action.UNKNOWN_REMOTE
        else:
            action = _decide(status, item.status)
        if action is None:
            continue
        note = _NOTES.get(action, "")
        if action is Action.CONFLICT:
            note = (
                _APPROVED_THERE_REJECTED_HERE
                if item.status == "Approved"
                else _REJECTED_THERE_APPROVED_HERE
            )
        changes.append(AssignmentChange(assignment_id, action, status, item.status, item, note))
    for assignment_id, status in local.items():
        if assignment_id not in by_id and status not in (STARTED, EXPIRED, RETURNED):
            changes.append(
                AssignmentChange(
                    assignment_id,
                    Action.NOT_ON_MTURK,
                    status,
                    None,
                    None,
                    _NOTES[Action.NOT_ON_MTURK],
                )
            )
    return sorted(changes, key=lambda change: change.assignment_id)


def _feedback(feedback: str | None, *, required: bool) -> str | None:
    text = (feedback or "").strip()
    if not text:
        if required:
            raise ValueError(
                "A rejection needs feedback: the worker sees it and it costs them approval "
                "rate, so say what was wrong."
            )
        return None
    if len(text) > MAX_FEEDBACK:
        raise ValueError(f"The feedback has {len(text)} characters; MTurk allows {MAX_FEEDBACK}.")
    return text


def approve(
    client: Any,
    assignment_id: str,
    feedback: str | None = None,
    *,
    override_rejection: bool = False,
) -> None:
    """Approve a submitted assignment: MTurk pays the reward and charges its fee."""
    params: dict[str, Any] = {"AssignmentId": assignment_id}
    text = _feedback(feedback, required=False)
    if text:
        params["RequesterFeedback"] = text
    if override_rejection:
        params["OverrideRejection"] = True
    call(client, "approve_assignment", **params)


def reject(client: Any, assignment_id: str, feedback: str) -> None:
    """Reject a submitted assignment with feedback the worker will read (required)."""
    text = _feedback(feedback, required=True)
    call(client, "reject_assignment", AssignmentId=assignment_id, RequesterFeedback=text)


class BonusResult(StrEnum):
    SENT = "sent"
    ALREADY_SENT = "already_sent"  # the same token was paid within the last 24 hours


def send_bonus(
    client: Any,
    worker_id: str,
    assignment_id: str,
    amount: Any,
    reason: str,
    token: str,
) -> BonusResult:
    """Pay a bonus once per ``token`` (1 to 64 characters, stable across retries).

    The worker reads ``reason``. MTurk charges its fee on bonuses too (see ``costs``).
    """
    value = dollars(amount, "The bonus")
    text = (reason or "").strip()
    if not text:
        raise ValueError("A bonus needs a reason: the worker reads it and may not expect money.")
    if not token or len(token) > MAX_TOKEN:
        raise ValueError(f"The bonus token must be 1 to {MAX_TOKEN} characters.")
    try:
        client.send_bonus(
            WorkerId=worker_id,
            BonusAmount=dollars_param(value),
            AssignmentId=assignment_id,
            Reason=text,
            UniqueRequestToken=token,
        )
    except ClientError as exc:
        if is_duplicate_request(exc):
            return BonusResult.ALREADY_SENT
        raise translate("send_bonus", exc) from exc
    except BotoCoreError as exc:
        raise translate("send_bonus", exc) from exc
    return BonusResult.SENT
