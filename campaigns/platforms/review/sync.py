"""Reconciling a campaign's assignments with MTurk: the periodic task's and the admin's sync.

A HIT is read (one ``ListAssignmentsForHIT`` call or more) unless nothing about it can change
any more on MTurk (:func:`settled_hit_ids`), which is when either

* it is full and decided: our MTurk assignments on it that MTurk approved or rejected, where
  our row says the same, number ``max_assignments``, and no other one of ours is still open
  (started, submitted, or decided here but not yet on MTurk); abandoned ones (returned,
  expired) take no place on MTurk; or
* it is long over and was read after that: its expiry, plus the campaign's assignment
  duration (a worker who accepted just before the expiry may still submit), plus its
  auto-approval delay (MTurk then approves what nobody reviewed), plus a day's margin, has
  passed, and its ``last_synced_at`` is later than that moment.

Only a requester can still change such a HIT (overriding a rejection on MTurk's website); a
decision taken through evalsite updates our rows at once. Saving is minimal too: only rows
whose status or MTurk fields changed are written field by field; the others only get their
``platform_synced_at`` stamped, in one UPDATE.

The sync is also where MTurk confirms the assignments opened through our MTurk entry page
(issue 11): anyone can open it with made-up ids, so their judgments count in no score until
MTurk lists the assignment (``judgments.models.held_back_from_scores``). Here rather than at
the accept or at our submit, because MTurk shows an assignment only once it is submitted there
(``ListAssignmentsForHIT`` and ``GetAssignment`` alike: Submitted, Approved or Rejected), which
the worker's browser does after our completion page. A row MTurk lists gets its
``platform_status``; when that confirms rows, the campaign is announced so that its scores are
recomputed at once (the stale sweep sees it too: it counts the held-back judgments).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from campaigns.models import Campaign, CampaignStatus
from campaigns.platforms import mturk
from campaigns.platforms.clients import MTurkClients
from campaigns.platforms.events import record_event
from campaigns.platforms.models import MTurkHit, PlatformEvent, PlatformEventKind
from campaigns.platforms.mturk import Action, MTurkError
from campaigns.platforms.review.common import Failure, assignment_label
from judgments.actions import announce_exclusions
from judgments.models import Assignment, AssignmentStatus

# A finished campaign is still synced this long: MTurk auto-approves a submission at most 30
# days after it arrives and lets a rejection be overridden within 30 days, so after that
# nothing on MTurk can change.
FINISHED_SYNC_WINDOW = timedelta(days=30)
# A submission this recent that MTurk does not list yet is not a conflict: the worker's
# browser may still be posting it to MTurk.
NOT_ON_MTURK_GRACE = timedelta(minutes=15)
# The same sync error is stored once a day, not every five minutes by the beat task.
ERROR_REPEAT_WINDOW = timedelta(hours=24)
# After a HIT's expiry, assignment duration and auto-approval delay, MTurk has settled it; the
# sync reads it once more after this margin (clock differences, MTurk's own delays), then no
# longer.
SETTLED_MARGIN = timedelta(days=1)
# The fields reconcile may change; a row none of them changed is not written field by field.
SYNCED_FIELDS = ("status", "submitted_at", "reviewed_at", "platform_status")
# Rows per UPDATE: keeps each statement's parameters under every database's limit.
UPDATE_BATCH = 500


@dataclass(frozen=True)
class SyncNote:
    """A difference the sync cannot settle alone (conflict, unknown or missing submission)."""

    assignment_id: str
    action: Action
    message: str
    what_to_do: str


_MARKED_LABELS = {
    Action.MARK_SUBMITTED: "marked submitted",
    Action.MARK_APPROVED: "marked approved",
    Action.MARK_REJECTED: "marked rejected",
}


@dataclass
class SyncReport:
    """One campaign's sync: HITs read, rows changed per action, reviews sent, notes, errors."""

    campaign_id: int
    hits_synced: int = 0
    hits_settled: int = 0  # not read: nothing about them can change on MTurk any more
    marked: dict[Action, list[str]] = field(default_factory=lambda: defaultdict(list))
    sent: list[str] = field(default_factory=list)
    # MTurk ids of assignments opened from our MTurk page that MTurk listed for the first time
    # (their judgments now count in the scores).
    confirmed: list[str] = field(default_factory=list)
    notes: list[SyncNote] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return sum(len(ids) for ids in self.marked.values()) + len(self.sent)

    def summary(self) -> str:
        marks = ", ".join(
            f"{len(self.marked[action])} {label}"
            for action, label in _MARKED_LABELS.items()
            if self.marked.get(action)
        )
        settled = (
            f" ({self.hits_settled} settled HIT(s) not read again)" if self.hits_settled else ""
        )
        confirmed = (
            f"; {len(self.confirmed)} confirmed by MTurk (now in the scores)"
            if self.confirmed
            else ""
        )
        return (
            f"{self.hits_synced} HIT(s) synced{settled}; "
            f"{marks or 'no assignment changed'}{confirmed}; "
            f"{len(self.sent)} review(s) sent to MTurk; "
            f"{len(self.notes)} need a person; {len(self.failed)} error(s)."
        )


def campaigns_to_sync(now: datetime | None = None) -> list[int]:
    """Ids of the campaigns the periodic sync reads: those with MTurk HITs that are active or
    paused, or finished with HITs that were live within the last 30 days (or edited then)."""
    cutoff = (now or timezone.now()) - FINISHED_SYNC_WINDOW
    hits = MTurkHit.objects.filter(hit__campaign=OuterRef("pk"))
    recent = hits.filter(
        Q(expires_at__gte=cutoff)
        | Q(expires_at__isnull=True, published_at__gte=cutoff)
        | Q(expired_by_requester_at__gte=cutoff)
    )
    return list(
        Campaign.objects.filter(Exists(hits))
        .filter(
            Q(status__in=(CampaignStatus.ACTIVE, CampaignStatus.PAUSED))
            | (Q(status=CampaignStatus.FINISHED) & (Q(updated_at__gte=cutoff) | Exists(recent)))
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


_MARKED_STATUS = {
    Action.MARK_SUBMITTED: AssignmentStatus.SUBMITTED,
    Action.MARK_APPROVED: AssignmentStatus.APPROVED,
    Action.MARK_REJECTED: AssignmentStatus.REJECTED,
}


def _in_agreement(prefix: str = "") -> Q:
    """An MTurk assignment decided here and on MTurk alike (approved or rejected)."""
    return Q(
        **{f"{prefix}status": AssignmentStatus.APPROVED, f"{prefix}platform_status": "Approved"}
    ) | Q(**{f"{prefix}status": AssignmentStatus.REJECTED, f"{prefix}platform_status": "Rejected"})


def settled_hit_ids(campaign_id: int, now: datetime | None = None) -> set[int]:
    """Our HIT ids (``MTurkHit.hit_id``) of the campaign's MTurk HITs that the sync no longer
    reads: full and decided, or long over and read since (module docstring). Two queries:
    the campaign's durations, and its MTurk HITs with their assignments counted."""
    now = now or timezone.now()
    campaign = Campaign.objects.filter(pk=campaign_id).values(
        "assignment_duration_seconds", "auto_approval_delay_seconds"
    )
    durations = campaign.first()
    if durations is None:
        return set()
    settle_after = (
        timedelta(
            seconds=durations["assignment_duration_seconds"]
            + durations["auto_approval_delay_seconds"]
        )
        + SETTLED_MARGIN
    )
    ours = Q(hit__assignments__platform_assignment_id__gt="")
    abandoned = Q(
        hit__assignments__status__in=(AssignmentStatus.RETURNED, AssignmentStatus.EXPIRED)
    )
    rows = (
        MTurkHit.objects.filter(hit__campaign_id=campaign_id)
        .annotate(
            decided=Count("hit__assignments", filter=ours & _in_agreement("hit__assignments__")),
            held=Count("hit__assignments", filter=ours & ~abandoned),
        )
        .values_list("hit_id", "max_assignments", "decided", "held", "expires_at", "last_synced_at")
    )
    settled: set[int] = set()
    for hit_id, max_assignments, decided, held, expires_at, last_synced_at in rows:
        full_and_decided = decided >= max_assignments and decided == held
        settled_at = expires_at + settle_after if expires_at else None
        long_over = (
            settled_at is not None
            and settled_at < now
            and last_synced_at is not None
            and last_synced_at > settled_at
        )
        if full_and_decided or long_over:
            settled.add(hit_id)
    return settled


def sync_campaign(campaign_id: int, client: Any = None) -> SyncReport:
    """Read every MTurk assignment of the campaign's HITs that may still change (module
    docstring) and make ours agree (module docstring of ``mturk.assignments``): record what
    MTurk decided, send what MTurk still waits for, store conflicts for a person. Running it
    twice changes nothing the second time (besides the sync times)."""
    report = SyncReport(campaign_id)
    settled = settled_hit_ids(campaign_id)
    report.hits_settled = len(settled)
    hits = list(
        MTurkHit.objects.filter(hit__campaign_id=campaign_id)
        .exclude(hit_id__in=settled)
        .order_by("pk")
    )
    mturk_clients = MTurkClients(client)
    remote: dict[int, list[mturk.RemoteAssignment]] = {}
    for mturk_hit in hits:
        try:
            remote[mturk_hit.hit_id] = mturk.list_assignments(
                mturk_clients.get(mturk_hit.sandbox), mturk_hit.mturk_hit_id
            )
        except MTurkError as error:
            report.failed.append(
                Failure(
                    f"HIT {mturk_hit.mturk_hit_id}", error.message, error.what_to_do, error.code
                )
            )
    seen = _stored_events(campaign_id)
    for failure in report.failed:
        _record_once(seen, campaign_id, PlatformEventKind.ERROR, "sync", failure)
    if not remote:
        return report
    with transaction.atomic():
        now = timezone.now()
        rows = list(
            # of=("self",): the worker is read for labels, and its row must stay unlocked
            # (on PostgreSQL a join would lock it too, holding up workers' own requests).
            Assignment.objects.select_for_update(of=("self",))
            .filter(campaign_id=campaign_id, hit_id__in=list(remote))
            .exclude(platform_assignment_id="")
            .select_related("worker")
            .order_by("pk")
        )
        before = {row.pk: _synced_values(row) for row in rows}
        unconfirmed = {row.pk for row in rows if row.turk_submit_to and not row.platform_status}
        to_send = _apply(report, rows, remote, now)
        report.confirmed = [
            row.platform_assignment_id
            for row in rows
            if row.pk in unconfirmed and row.platform_status
        ]
        changed = [row for row in rows if _synced_values(row) != before[row.pk]]
        Assignment.objects.bulk_update(
            changed, [*SYNCED_FIELDS, "platform_synced_at"], batch_size=UPDATE_BATCH
        )
        unchanged = [row.pk for row in rows if _synced_values(row) == before[row.pk]]
        for start in range(0, len(unchanged), UPDATE_BATCH):
            batch = unchanged[start : start + UPDATE_BATCH]
            Assignment.objects.filter(pk__in=batch).update(platform_synced_at=now)
        MTurkHit.objects.filter(hit_id__in=list(remote)).update(last_synced_at=now)
        for note in report.notes:
            _record_once(
                seen,
                campaign_id,
                PlatformEventKind.CONFLICT,
                "sync",
                Failure(note.assignment_id, note.message, note.what_to_do, str(note.action)),
            )
        if (
            report.marked.get(Action.MARK_APPROVED)
            or report.marked.get(Action.MARK_REJECTED)
            or report.confirmed
        ):
            announce_exclusions([campaign_id])
    report.hits_synced = len(remote)
    sandbox_of_hit = {mturk_hit.hit_id: mturk_hit.sandbox for mturk_hit in hits}
    _send_pending(report, to_send, mturk_clients, sandbox_of_hit, seen)
    return report


def _synced_values(row: Assignment) -> tuple[Any, ...]:
    return tuple(getattr(row, name) for name in SYNCED_FIELDS)


def _apply(
    report: SyncReport,
    rows: list[Assignment],
    remote: dict[int, list[mturk.RemoteAssignment]],
    now: datetime,
) -> list[tuple[Assignment, Action]]:
    """Apply reconcile's changes to ``rows`` in memory (saved by the caller in one bulk
    update); return the reviews MTurk still waits for."""
    by_hit: dict[int, dict[str, Assignment]] = defaultdict(dict)
    for row in rows:
        by_hit[row.hit_id][row.platform_assignment_id] = row
    to_send: list[tuple[Assignment, Action]] = []
    for hit_id, listed in remote.items():
        ours = by_hit[hit_id]
        listed_status = {item.assignment_id: item.status for item in listed}
        for row in ours.values():
            row.platform_synced_at = now
            if row.platform_assignment_id in listed_status:
                row.platform_status = listed_status[row.platform_assignment_id]
        local = {assignment_id: row.status for assignment_id, row in ours.items()}
        for change in mturk.reconcile(local, listed):
            row = ours.get(change.assignment_id)
            action = change.action
            if action in _MARKED_STATUS:
                item = change.remote
                row.status = _MARKED_STATUS[action]
                row.submitted_at = row.submitted_at or item.submit_time or now
                if action != Action.MARK_SUBMITTED:
                    decided = item.approval_time or item.rejection_time
                    row.reviewed_at = decided or now
                report.marked[action].append(change.assignment_id)
            elif action in (Action.SEND_APPROVAL, Action.SEND_REJECTION):
                to_send.append((row, action))
            elif (
                action == Action.NOT_ON_MTURK
                and row.submitted_at
                and (now - row.submitted_at < NOT_ON_MTURK_GRACE)
            ):
                continue  # the worker's browser may still be posting it
            else:
                report.notes.append(_note(change, row))
    return to_send


def _note(change: mturk.AssignmentChange, row: Assignment | None) -> SyncNote:
    if row is None:
        item = change.remote
        message = (
            f"MTurk assignment {change.assignment_id} by worker {item.worker_id} on HIT "
            f"{item.hit_id} is {item.status} on MTurk, and evalsite has no assignment with "
            "this id."
        )
    else:
        there = change.remote_status or "not submitted"
        message = (
            f"Assignment {row.pk} (MTurk {change.assignment_id}, worker "
            f"{row.worker.external_id}) is {row.status} here and {there} on MTurk."
        )
    return SyncNote(change.assignment_id, change.action, message, change.note)


def _send_pending(
    report: SyncReport,
    to_send: list[tuple[Assignment, Action]],
    mturk_clients: MTurkClients,
    sandbox_of_hit: dict[int, bool],
    seen: set[tuple[str, str, str, str]],
) -> None:
    """Send the approvals and rejections decided here that MTurk never received (with the
    feedback stored with them); each confirmed one is recorded as MTurk's status."""
    confirmed: dict[str, list[int]] = defaultdict(list)
    for row, action in to_send:
        approving = action == Action.SEND_APPROVAL
        operation = "approve" if approving else "reject"
        label = assignment_label(row)
        sandbox_client = mturk_clients.get(sandbox_of_hit[row.hit_id])
        try:
            if approving:
                mturk.approve(sandbox_client, row.platform_assignment_id, row.review_feedback)
            else:
                mturk.reject(sandbox_client, row.platform_assignment_id, row.review_feedback)
        except ValueError as problem:
            failure = Failure(
                label,
                str(problem),
                f"{operation.capitalize()} it again from the Assignments admin with feedback "
                "of at most 1024 characters.",
            )
        except MTurkError as error:
            failure = Failure(label, error.message, error.what_to_do, error.code)
        else:
            confirmed["Approved" if approving else "Rejected"].append(row.pk)
            report.sent.append(row.platform_assignment_id)
            continue
        report.failed.append(failure)
        _record_once(seen, report.campaign_id, PlatformEventKind.ERROR, operation, failure)
    now = timezone.now()
    for status, pks in confirmed.items():
        Assignment.objects.filter(pk__in=pks).update(platform_status=status, platform_synced_at=now)


def _stored_events(campaign_id: int) -> set[tuple[str, str, str, str]]:
    """Events already stored that the sync must not repeat: every conflict (it stays a fact
    until a person resolves it) and the errors of the last day."""
    since = timezone.now() - ERROR_REPEAT_WINDOW
    return set(
        PlatformEvent.objects.filter(campaign_id=campaign_id)
        .filter(
            Q(kind=PlatformEventKind.CONFLICT)
            | Q(kind=PlatformEventKind.ERROR, created_at__gte=since)
        )
        .values_list("kind", "operation", "code", "message")
    )


def _record_once(
    seen: set[tuple[str, str, str, str]],
    campaign_id: int,
    kind: str,
    operation: str,
    failure: Failure,
) -> None:
    message = (
        failure.message
        if kind == PlatformEventKind.CONFLICT
        else f"{failure.item}: {failure.message}"
    )
    key = (str(kind), operation, failure.code[:100], message)
    if key in seen:
        return
    seen.add(key)
    record_event(
        campaign_id, kind, operation, message, code=failure.code, what_to_do=failure.what_to_do
    )
