"""MTurk batch result CSVs of our own HITs: reconciling, not importing answers.

The requester website downloads a batch's results as a CSV (``HITId``, ``AssignmentId``,
``WorkerId``, ``AssignmentStatus``, ``AcceptTime``, ``SubmitTime``, ... ``Answer.*``). Our
HITs are ExternalQuestions: the task page posts only the assignment id and one field to MTurk,
and the answers themselves are already in our database, recorded when the worker submitted.
So this file holds nothing to import as judgments; what it does hold is MTurk's side of each
assignment. Importing it reconciles that with ours, as the periodic MTurk sync does from the
API (``campaigns.platforms.mturk.reconcile`` decides, the same rules):

- every row must be one of our assignments (``Assignment.platform_assignment_id``) of a
  campaign the importer may change, with the same worker and HIT; a row that is not (another
  requester's batch, a HIT published outside evalsite) is a problem with its line, and
  nothing is written;
- MTurk's ``AssignmentStatus`` is recorded (``Assignment.platform_status``); an assignment
  MTurk approved or rejected (the requester website, auto-approval) that we had as submitted
  becomes approved or rejected here too, so a rejection leaves its judgments out of the
  scores;
- a decision MTurk contradicts (approved there, rejected here) is kept and reported for a
  person; one we made that MTurk has not received yet is left to the sync, which sends it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone

from django.db import transaction
from django.utils import timezone as django_timezone

from campaigns.importers.context import Progress
from campaigns.importers.judgments.tables import Columns, read_table, width_problem
from campaigns.importers.judgments.target import ImportOptions
from campaigns.importers.judgments.validation import Checker
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.models import Campaign
from campaigns.platforms.mturk import Action, RemoteAssignment, reconcile
from judgments.models import Assignment, AssignmentStatus

REQUIRED = ("HITId", "AssignmentId", "WorkerId", "AssignmentStatus")
STATUSES = ("Submitted", "Approved", "Rejected")
TIMES = ("AcceptTime", "SubmitTime", "ApprovalTime", "RejectionTime")
# MTurk writes times like "Wed Nov 18 10:22:33 PST 2020" (Pacific time).
MTURK_TIME = re.compile(
    r"^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2}) ([A-Z]{2,5}) (\d{4})$"
)
MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
ZONES = {"PST": -8, "PDT": -7, "UTC": 0, "GMT": 0}
LOOKUP_CHUNK = 500

_MARKED = {
    Action.MARK_SUBMITTED: AssignmentStatus.SUBMITTED,
    Action.MARK_APPROVED: AssignmentStatus.APPROVED,
    Action.MARK_REJECTED: AssignmentStatus.REJECTED,
}
COUNT_LABELS = {
    "matched": "assignment(s) matched",
    Action.MARK_APPROVED.value: "marked approved",
    Action.MARK_REJECTED.value: "marked rejected",
    Action.MARK_SUBMITTED.value: "marked submitted",
    "unchanged": "already in agreement",
    Action.CONFLICT.value: "in conflict (kept; see the notes)",
    "waiting": "decided here, not yet on MTurk (the sync sends them)",
}


@dataclass(frozen=True)
class BatchRow:
    file: str
    line: int
    remote: RemoteAssignment


@dataclass
class Reconciliation:
    """What importing the batch changes: the campaign, per-action counts and notes."""

    campaign: Campaign
    assignment_ids: list[str]
    remote: list[RemoteAssignment]
    counts: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)


def parse_mturk_batch(
    input_file: InputFile,
    rows: list[BatchRow],
    problems: ProblemList,
    progress: Progress | None = None,
) -> None:
    name = input_file.name
    table = read_table(input_file, problems, progress=progress)
    if table is None:
        return
    if table.first is None:
        problems.add(name, None, None, "empty file: the header row is missing")
        return
    header_line, header = table.first
    columns = Columns(header)
    if not columns.report_missing(name, header_line, REQUIRED, problems):
        return
    check = Checker(name, problems)
    width = len(columns.names)
    for line, row in table.rest():
        if len(row) != width:
            width_problem(name, line, len(row), width, problems, "commas")
            continue
        assignment = check.identifier(
            line, "AssignmentId", columns.get(row, "AssignmentId"), "AssignmentId"
        )
        worker = check.identifier(line, "WorkerId", columns.get(row, "WorkerId"), "WorkerId")
        hit = check.identifier(line, "HITId", columns.get(row, "HITId"), "HITId")
        status = columns.get(row, "AssignmentStatus").strip()
        if status not in STATUSES:
            check.problem(
                line,
                "AssignmentStatus",
                f'unknown AssignmentStatus "{status}"; MTurk\'s are Submitted, Approved and '
                "Rejected",
            )
        times = {column: _time(check, line, column, columns.get(row, column)) for column in TIMES}
        if None in (assignment, worker, hit) or status not in STATUSES or False in times.values():
            continue
        rows.append(
            BatchRow(
                name,
                line,
                RemoteAssignment(
                    assignment_id=assignment,
                    worker_id=worker,
                    hit_id=hit,
                    status=status,
                    accept_time=times["AcceptTime"],
                    submit_time=times["SubmitTime"],
                    answer="",
                    approval_time=times["ApprovalTime"],
                    rejection_time=times["RejectionTime"],
                ),
            )
        )


def _time(check: Checker, line: int, column: str, value: str) -> datetime | None | bool:
    """A time of MTurk's CSV (or ISO 8601); None when empty; False after a problem."""
    text = value.strip()
    if not text:
        return None
    match = MTURK_TIME.match(text)
    if match:
        month, day, hour, minute, second, zone, year = match.groups()
        if zone in ZONES and month in MONTHS:
            try:
                local = datetime(
                    int(year), MONTHS[month], int(day), int(hour), int(minute), int(second)
                )
            except ValueError:
                pass
            else:
                return local.replace(tzinfo=timezone(timedelta(hours=ZONES[zone]))).astimezone(UTC)
    else:
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    check.problem(
        line,
        column,
        f'"{text}" is not a time as MTurk writes it (e.g. "Wed Nov 18 10:22:33 PST 2020") or '
        "ISO 8601",
    )
    return False


def check_mturk_batch(
    rows: list[BatchRow], options: ImportOptions, problems: ProblemList
) -> Reconciliation | None:
    """Match every row to one of our assignments and work out what changes (nothing is
    written); None after problems."""
    if options.standardised:
        problems.add(
            None,
            None,
            "standardised",
            "an MTurk batch file holds no scores (our answers are in the database already); "
            "standardised applies to WMT direct-assessment files",
        )
    seen: dict[str, BatchRow] = {}
    for row in rows:
        first = seen.setdefault(row.remote.assignment_id, row)
        if first is not row:
            problems.add(
                row.file,
                row.line,
                "AssignmentId",
                f"assignment {row.remote.assignment_id} is also on line {first.line}; MTurk "
                "lists an assignment once",
            )
    ours = _assignments(list(seen), options)
    campaigns: dict[int, list[BatchRow]] = defaultdict(list)
    for row in seen.values():
        remote = row.remote
        assignment = ours.get(remote.assignment_id)
        if assignment is None:
            problems.add(
                row.file,
                row.line,
                "AssignmentId",
                f"no assignment {remote.assignment_id} in evalsite (among the campaigns you "
                "may import into): the file is not a batch of our own HITs, or the worker "
                "never submitted through our task page",
            )
            continue
        if assignment.worker.external_id != remote.worker_id:
            problems.add(
                row.file,
                row.line,
                "WorkerId",
                f"assignment {remote.assignment_id} is worker {assignment.worker.external_id}'s "
                f"in evalsite, not {remote.worker_id}'s",
            )
        if assignment.platform_hit_id and assignment.platform_hit_id != remote.hit_id:
            problems.add(
                row.file,
                row.line,
                "HITId",
                f"assignment {remote.assignment_id} is on HIT {assignment.platform_hit_id} in "
                f"evalsite, not {remote.hit_id}",
            )
        campaigns[assignment.campaign_id].append(row)
    if len(campaigns) > 1:
        names = dict(Campaign.objects.filter(pk__in=list(campaigns)).values_list("pk", "name"))
        listed = "; ".join(
            f'"{names[pk]}" (first on line {found[0].line})' for pk, found in campaigns.items()
        )
        problems.add(
            None,
            None,
            None,
            f"the assignments belong to several campaigns: {listed}; import one campaign's "
            "batch at a time",
        )
    if problems or not campaigns:
        if not rows and not problems:
            problems.add(None, None, None, "nothing to import: the file lists no assignments")
        return None
    campaign = Campaign.objects.get(pk=next(iter(campaigns)))
    if not _named_campaign_matches(campaign, options, problems):
        return None
    plan = Reconciliation(campaign, list(seen), [row.remote for row in seen.values()])
    apply(plan, [ours[assignment_id] for assignment_id in seen], django_timezone.now())
    return plan


def _assignments(ids: list[str], options: ImportOptions) -> dict[str, Assignment]:
    found: dict[str, Assignment] = {}
    queryset = Assignment.objects.select_related("worker")
    if options.appendable is not None:
        queryset = queryset.filter(campaign__in=options.appendable)
    for start in range(0, len(ids), LOOKUP_CHUNK):
        for assignment in queryset.filter(
            platform_assignment_id__in=ids[start : start + LOOKUP_CHUNK]
        ):
            found[assignment.platform_assignment_id] = assignment
    return found


def _named_campaign_matches(
    campaign: Campaign, options: ImportOptions, problems: ProblemList
) -> bool:
    chosen = options.campaign.name if options.campaign is not None else options.name.strip()
    if chosen and chosen != campaign.name:
        problems.add(
            None,
            None,
            "name",
            f'the assignments are campaign "{campaign.name}"\'s, not "{chosen}"\'s',
        )
        return False
    for field_name, given in (
        ("source_language", options.source_language),
        ("target_language", options.target_language),
    ):
        if given and given != getattr(campaign, field_name):
            problems.add(
                None,
                None,
                field_name,
                f'campaign "{campaign.name}" is {campaign.source_language}-'
                f"{campaign.target_language}; leave the languages out for a batch file",
            )
            return False
    return True


def apply(plan: Reconciliation, assignments: list[Assignment], now: datetime) -> None:
    """Change ``assignments`` (in memory) as MTurk's statuses say; count what changes."""
    plan.counts.clear()
    plan.notes.clear()
    by_id = {a.platform_assignment_id: a for a in assignments}
    remote_status = {item.assignment_id: item.status for item in plan.remote}
    for assignment in assignments:
        assignment.platform_status = remote_status[assignment.platform_assignment_id]
        assignment.platform_synced_at = now
    plan.counts["matched"] = len(assignments)
    changes = reconcile({aid: a.status for aid, a in by_id.items()}, plan.remote)
    for change in changes:
        assignment = by_id[change.assignment_id]
        if change.action in _MARKED:
            item = change.remote
            assignment.status = _MARKED[change.action]
            assignment.submitted_at = assignment.submitted_at or item.submit_time or now
            if change.action != Action.MARK_SUBMITTED:
                assignment.reviewed_at = item.approval_time or item.rejection_time or now
            plan.counts[change.action.value] += 1
        elif change.action in (Action.SEND_APPROVAL, Action.SEND_REJECTION):
            plan.counts["waiting"] += 1
        elif change.action == Action.CONFLICT:
            plan.counts[Action.CONFLICT.value] += 1
            plan.notes.append(
                f"assignment {change.assignment_id} (worker {assignment.worker.external_id}) is "
                f"{change.local_status} here and {change.remote_status} on MTurk: {change.note}"
            )
    plan.counts["unchanged"] = len(assignments) - len(changes)


def write_mturk_batch(plan: Reconciliation) -> None:
    """Apply the reconciliation in one transaction, on the rows as they are now (locked)."""
    with transaction.atomic():
        rows = list(
            Assignment.objects.select_for_update()
            .filter(campaign=plan.campaign, platform_assignment_id__in=plan.assignment_ids)
            .select_related("worker")
            .order_by("pk")
        )
        apply(plan, rows, django_timezone.now())
        Assignment.objects.bulk_update(
            rows,
            ["status", "submitted_at", "reviewed_at", "platform_status", "platform_synced_at"],
            batch_size=500,
        )
