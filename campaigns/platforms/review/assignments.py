"""Approving, rejecting and paying bonuses for assignments (MTurk first, then our rows)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaigns.platforms import mturk
from campaigns.platforms.clients import MTurkClients
from campaigns.platforms.mturk import MTurkError
from campaigns.platforms.mturk.assignments import MAX_FEEDBACK
from campaigns.platforms.mturk.settings import dollars
from campaigns.platforms.review.common import (
    NO_MTURK_ID,
    Failure,
    ReviewResult,
    assignment_label,
    load_assignments,
    on_mturk,
    record_failure,
    sandbox_of,
)
from judgments.actions import announce_exclusions
from judgments.models import Assignment, AssignmentStatus, Bonus, BonusStatus

# MTurk recognises a repeated bonus token for 24 hours only; an older unconfirmed bonus may
# have been paid, so it is not retried without the requester's say-so.
BONUS_TOKEN_WINDOW = timedelta(hours=24)
NOT_MTURK_BONUS = (
    "Bonuses are paid through MTurk only: pay a Prolific worker's bonus on Prolific and a "
    "direct-link worker outside evalsite."
)


def clean_feedback(feedback: str | None, *, required: bool) -> str:
    """The feedback a worker reads, stripped; ValueError when missing (rejections) or over
    MTurk's 1024 characters, before anything is sent."""
    text = (feedback or "").strip()
    if required and not text:
        raise ValueError(
            "A rejection needs feedback: the worker reads it and loses pay and approval rate, "
            "so say what was wrong."
        )
    if len(text) > MAX_FEEDBACK:
        raise ValueError(f"The feedback has {len(text)} characters; MTurk allows {MAX_FEEDBACK}.")
    return text


def _store_reviews(
    confirmed: list[Assignment], status: str, feedback: str, now: datetime
) -> set[int]:
    """Write the confirmed reviews (one UPDATE per platform kind); the campaigns changed."""
    mturk_rows = [a.pk for a in confirmed if on_mturk(a)]
    elsewhere = [a.pk for a in confirmed if not on_mturk(a)]
    values = {"status": status, "reviewed_at": now, "review_feedback": feedback}
    if mturk_rows:
        Assignment.objects.filter(pk__in=mturk_rows).update(
            **values, platform_status=status.capitalize(), platform_synced_at=now
        )
    if elsewhere:
        Assignment.objects.filter(pk__in=elsewhere).update(**values)
    campaigns = {a.campaign_id for a in confirmed}
    if campaigns:
        announce_exclusions(sorted(campaigns))
    return campaigns


def _review(
    assignments: Iterable[Assignment] | QuerySet,
    status: str,
    feedback: str,
    client: Any,
) -> ReviewResult:
    approving = status == AssignmentStatus.APPROVED
    operation = "approve" if approving else "reject"
    result = ReviewResult(operation)
    mturk_clients = MTurkClients(client)
    confirmed: list[Assignment] = []
    now = timezone.now()
    rows = load_assignments(assignments)
    try:
        for assignment in rows:
            label = assignment_label(assignment)
            reason = _review_refusal(assignment, status)
            if reason:
                result.skipped.append((label, reason))
                continue
            remote = assignment.platform_status
            # MTurk already decided as we now do (the requester website, or auto-approval):
            # nothing to send, only our row to align.
            if on_mturk(assignment) and remote != status.capitalize():
                try:
                    sandbox_client = mturk_clients.get(sandbox_of(assignment))
                    if approving:
                        mturk.approve(
                            sandbox_client,
                            assignment.platform_assignment_id,
                            feedback,
                            override_rejection=remote == "Rejected",
                        )
                    else:
                        mturk.reject(sandbox_client, assignment.platform_assignment_id, feedback)
                except MTurkError as error:
                    record_failure(result, assignment.campaign_id, operation, label, error)
                    continue
            confirmed.append(assignment)
            result.done.append(label)
    finally:
        # Whatever happens later in the loop, what MTurk confirmed is written.
        _store_reviews(confirmed, status, feedback, now)
    return result


def _review_refusal(assignment: Assignment, status: str) -> str:
    """Why ``assignment`` cannot be given ``status`` (empty: it can)."""
    current = assignment.status
    mturk_worker = on_mturk(assignment)
    if current in (AssignmentStatus.STARTED, AssignmentStatus.EXPIRED, AssignmentStatus.RETURNED):
        return (
            f"Not submitted ({assignment.get_status_display().lower()}): review it once the "
            "worker has submitted."
        )
    if mturk_worker and not assignment.platform_assignment_id:
        return NO_MTURK_ID
    if status == AssignmentStatus.APPROVED:
        if current == AssignmentStatus.APPROVED and not (
            mturk_worker and assignment.platform_status == "Rejected"
        ):
            return "Already approved."
        return ""
    if current == AssignmentStatus.REJECTED:
        return "Already rejected."
    if mturk_worker and (
        current == AssignmentStatus.APPROVED or assignment.platform_status == "Approved"
    ):
        return (
            "Approved on MTurk, which paid the worker: a paid assignment cannot be rejected. To "
            "leave the worker's judgments out of the scores, exclude them in the campaign's "
            "results panel."
        )
    return ""


def approve_assignments(
    assignments: Iterable[Assignment] | QuerySet, feedback: str = "", client: Any = None
) -> ReviewResult:
    """Approve submitted (or rejected) assignments: MTurk pays the reward, then our row says
    approved. A rejection on MTurk is overridden (MTurk allows it within 30 days)."""
    return _review(
        assignments, AssignmentStatus.APPROVED, clean_feedback(feedback, required=False), client
    )


def reject_assignments(
    assignments: Iterable[Assignment] | QuerySet, feedback: str, client: Any = None
) -> ReviewResult:
    """Reject submitted assignments with feedback the worker reads (required, at most 1024
    characters). Their judgments stay stored and leave the scores."""
    return _review(
        assignments, AssignmentStatus.REJECTED, clean_feedback(feedback, required=True), client
    )


def send_bonuses(
    assignments: Iterable[Assignment] | QuerySet,
    amount: Any,
    reason: str,
    created_by: str = "",
    client: Any = None,
    *,
    force: bool = False,
) -> ReviewResult:
    """Pay each MTurk assignment's worker a bonus of ``amount`` dollars, never twice.

    The :class:`Bonus` row is written before MTurk is called and its token reused on a retry,
    so a payment MTurk already made is confirmed, not repeated. A bonus of the same amount and
    reason already paid for an assignment is refused unless ``force``; so is the retry of one
    left unconfirmed for more than a day (MTurk forgets tokens after 24 hours).
    """
    value = dollars(amount, "The bonus")
    text = (reason or "").strip()
    if not text:
        raise ValueError("A bonus needs a reason: the worker reads it with the payment.")
    result = ReviewResult("bonus")
    rows = load_assignments(assignments)
    with transaction.atomic():
        # Two requesters paying the same assignments at once: the second waits here, then
        # finds the first one's rows and reuses their tokens, so MTurk pays once.
        list(Assignment.objects.select_for_update().filter(pk__in=[a.pk for a in rows]))
        planned = _plan_bonuses(result, rows, value, text, created_by, force)
        # Written before any call: their ids are the request tokens.
        Bonus.objects.bulk_create([bonus for _, bonus in planned if bonus.pk is None])
    mturk_clients = MTurkClients(client)
    sent: list[int] = []
    errored: list[Bonus] = []
    try:
        for assignment, bonus in planned:
            label = assignment_label(assignment)
            try:
                outcome = mturk.send_bonus(
                    mturk_clients.get(sandbox_of(assignment)),
                    assignment.worker.external_id,
                    assignment.platform_assignment_id,
                    value,
                    text,
                    bonus.request_token,
                )
            except MTurkError as error:
                bonus.last_error = str(Failure(label, error.message, error.what_to_do, error.code))
                errored.append(bonus)
                record_failure(result, assignment.campaign_id, "bonus", label, error)
                continue
            sent.append(bonus.pk)
            if outcome is mturk.BonusResult.ALREADY_SENT:
                label += " (MTurk had already paid it: confirmed, not paid again)"
            result.done.append(label)
    finally:
        Bonus.objects.filter(pk__in=sent).update(
            status=BonusStatus.SENT, sent_at=timezone.now(), last_error=""
        )
        Bonus.objects.bulk_update(errored, ["last_error"])
    return result


def _plan_bonuses(
    result: ReviewResult,
    rows: list[Assignment],
    value: Decimal,
    reason: str,
    created_by: str,
    force: bool,
) -> list[tuple[Assignment, Bonus]]:
    """The bonus row to pay for each assignment: an unconfirmed one with the same amount and
    reason (its token again), else a new one; refusals go to ``result.skipped``."""
    earlier: dict[int, list[Bonus]] = defaultdict(list)
    for bonus in Bonus.objects.filter(assignment__in=[a.pk for a in rows]).order_by("pk"):
        earlier[bonus.assignment_id].append(bonus)
    now = timezone.now()
    planned: list[tuple[Assignment, Bonus]] = []
    for assignment in rows:
        refusal = _bonus_refusal(assignment, earlier[assignment.pk], value, reason, now, force)
        if refusal:
            result.skipped.append((assignment_label(assignment), refusal))
            continue
        pending = [
            b
            for b in earlier[assignment.pk]
            if b.status == BonusStatus.PENDING and b.amount == value and b.reason == reason
        ]
        bonus = pending[0] if pending else None
        if bonus is None:
            bonus = Bonus(
                assignment=assignment,
                worker=assignment.worker,
                amount=value,
                reason=reason,
                created_by=created_by[:150],
            )
        planned.append((assignment, bonus))
    return planned


def _bonus_refusal(
    assignment: Assignment,
    earlier: list[Bonus],
    value: Decimal,
    reason: str,
    now: datetime,
    force: bool,
) -> str:
    if not on_mturk(assignment):
        return NOT_MTURK_BONUS
    if not assignment.platform_assignment_id:
        return NO_MTURK_ID
    if assignment.status not in (
        AssignmentStatus.SUBMITTED,
        AssignmentStatus.APPROVED,
        AssignmentStatus.REJECTED,
    ):
        return "Not submitted: MTurk pays bonuses only for submitted work."
    same = [b for b in earlier if b.amount == value and b.reason == reason]
    paid = [b for b in same if b.status == BonusStatus.SENT]
    if paid and not force:
        return (
            f"A bonus of ${value} with this reason was already paid on "
            f"{timezone.localtime(paid[-1].sent_at):%Y-%m-%d %H:%M}: tick 'pay again' "
            "(--force) to pay another."
        )
    stale = [
        b
        for b in same
        if b.status == BonusStatus.PENDING and now - b.created_at > BONUS_TOKEN_WINDOW
    ]
    if stale and not force:
        return (
            f"A payment of this bonus was attempted on "
            f"{timezone.localtime(stale[0].created_at):%Y-%m-%d %H:%M} and never confirmed. MTurk "
            "recognises a repeated payment for 24 hours only, so it may already be paid: check "
            "the worker's bonuses on requester.mturk.com, then pay again with 'pay again' "
            "(--force) only if it was not paid."
        )
    return ""
