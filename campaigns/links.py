"""How workers reach a campaign without MTurk, and what a requester takes back out.

- direct links: per-worker links made in bulk (:func:`create_direct_links`), each a signed
  token for a new pseudonymous worker (never a password), and the one open link
  (:func:`open_link_url`) where every visitor gets a pseudonymous id;
- Prolific: the study URL with Prolific's placeholders (:func:`prolific_study_url`) and the
  approvals export (:func:`prolific_approvals`), whose decisions follow the same rule as the
  completion codes (``judgments.entry.prolific.quality_control_failures``);
- the worker background export (:func:`background_rows`).

The admin (``campaigns.admin.links``) and the management commands ``worker_links`` and
``prolific`` call these functions; nothing here is written twice.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from django.conf import settings
from django.core.management.base import CommandError
from django.db import transaction
from django.urls import reverse
from django_countries import countries

from campaigns import names
from campaigns.models import Campaign, CampaignStatus
from judgments.actions import FINISHED_ASSIGNMENT_STATUSES
from judgments.actions.membership import pseudonymous_external_id
from judgments.entry.pages import worker_url
from judgments.entry.prolific import quality_control_failures
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Platform,
    Worker,
)

MAX_LINKS = 10_000
LABEL_MAX_LENGTH = Worker._meta.get_field("label").max_length
# The pseudonym of a worker who came by a direct link, as judgments.actions makes it for the
# open link ("anon-" and 16 hex digits), so that both kinds look alike in exports.
# Workers created per INSERT: keeps one statement's parameters well under every database's
# limit, and gives the command's progress bar something to count.
CREATE_BATCH = 500


def absolute_url(path: str) -> str:
    """``path`` on the site's public address (``PUBLIC_BASE_URL``), for links that leave the
    site: in a CSV, an e-mail or Prolific's study settings."""
    return settings.PUBLIC_BASE_URL.rstrip("/") + path


def campaign_by_name_or_id(value: str) -> Campaign:
    """A campaign named ``value``, else numbered ``value``; Campaign.DoesNotExist if none,
    Campaign.MultipleObjectsReturned (listing their ids and owners) if several campaigns have
    the name: names are unique per owner only (issue 11 item 8)."""
    return names.campaign_by_name_or_id(value)


def open_output(
    name: str | None, stack: ExitStack, default: TextIO, *, nothing_done: str = ""
) -> TextIO:
    """Where a command writes: ``default`` (its standard output) without ``name``, else the
    file ``name`` opened for UTF-8 CSV and closed with ``stack``. A path that cannot be written
    is a CommandError that says so (``nothing_done`` appended, e.g. "Nothing was created."),
    raised before the command does any work."""
    if not name:
        return default
    try:
        return stack.enter_context(open(name, "w", encoding="utf-8", newline=""))
    except OSError as error:
        ending = f" {nothing_done}" if nothing_done else ""
        raise CommandError(
            f"Cannot write {name}: {error}. Choose a writable path.{ending}"
        ) from error


def safe_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet will not run as a formula: text typed by workers (or
    anyone) starting with = + - @ or a tab/return gets a leading apostrophe (OWASP's advice
    against CSV injection). Other values pass unchanged."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_csv(out: TextIO, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """Write ``header`` and ``rows`` as CSV (RFC 4180, UTF-8 text); the number of rows."""
    writer = csv.writer(out)
    writer.writerow(header)
    count = 0
    for row in rows:
        writer.writerow([safe_cell(value) for value in row])
        count += 1
    return count


class CsvLine:
    """A file-like object whose ``write`` returns what it was given: lets ``csv.writer``
    produce one line at a time for a streamed response (Django's documented recipe)."""

    def write(self, value: str) -> str:
        return value


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    writer = csv.writer(CsvLine())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow([safe_cell(value) for value in row])


def _iso(moment: datetime | None) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds") if moment else ""


# --- Direct links -----------------------------------------------------------------------------


class LinkRequestError(ValueError):
    """A request for links that cannot be met as asked; the message says what to change."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


@dataclass(frozen=True)
class WorkerLinkRow:
    worker_id: int
    label: str
    link: str


LINK_COLUMNS = ("worker_id", "label", "link")


def open_link_url(campaign: Campaign) -> str:
    """The one link for everybody: the campaign's entry page, whose Start button gives each
    visitor a pseudonymous worker id."""
    return absolute_url(reverse("judgments:campaign-entry", args=[campaign.pk]))


def parse_labels(text: str) -> list[str]:
    """One label per non-blank line, trimmed; LinkRequestError naming the first line that is
    too long for ``Worker.label``."""
    labels = []
    for number, line in enumerate(text.splitlines(), start=1):
        label = " ".join(line.split())
        if not label:
            continue
        if len(label) > LABEL_MAX_LENGTH:
            raise LinkRequestError(
                f"Line {number} has {len(label)} characters; a label has at most "
                f"{LABEL_MAX_LENGTH}. Shorten it (a name or an e-mail address is enough).",
                field="labels",
            )
        labels.append(label)
    return labels


def planned_labels(count: int | None, labels: Sequence[str]) -> list[str]:
    """The label of every link to make: the given labels, then blank ones up to ``count``.

    With labels only, one link per label; with a count only, that many unlabelled links;
    with both, the count is the total and must leave room for every label.
    """
    if count is None and not labels:
        raise LinkRequestError(
            "Give the number of links to make, or the labels (one per line) of the people "
            "they are for."
        )
    if count is not None and not 1 <= count <= MAX_LINKS:
        raise LinkRequestError(
            f"Make from 1 to {MAX_LINKS:,} links at a time (asked for {count:,}).", field="count"
        )
    if len(labels) > MAX_LINKS:
        raise LinkRequestError(
            f"Make at most {MAX_LINKS:,} links at a time; the labels list {len(labels):,} "
            "people. Split the list.",
            field="labels",
        )
    if count is not None and count < len(labels):
        raise LinkRequestError(
            f"You gave {len(labels)} labels but asked for {count} links. Leave the number "
            "empty to make one link per label, or raise it.",
            field="count",
        )
    total = len(labels) if count is None else count
    return [*labels, *([""] * (total - len(labels)))]


def check_campaign_takes_links(campaign: Campaign) -> None:
    if campaign.status == CampaignStatus.FINISHED:
        raise LinkRequestError(
            f'Campaign "{campaign}" has finished, so its links would only say so. Activate it '
            "again first if you want more work done."
        )


def status_note(campaign: Campaign) -> str:
    """What the requester should know about links to ``campaign`` in its present status."""
    if campaign.status == CampaignStatus.DRAFT:
        return (
            "The campaign is a draft: the links open once you activate it (action "
            '"Activate: hand out HITs"). Until then they say the campaign has not opened.'
        )
    if campaign.status == CampaignStatus.PAUSED:
        return "The campaign is paused: its links say so until you activate it again."
    if campaign.status == CampaignStatus.FINISHED:
        return "The campaign has finished: its links only say so."
    return ""


def create_direct_links(
    campaign: Campaign,
    labels: Sequence[str],
    *,
    on_progress: Callable[[int], None] | None = None,
) -> list[WorkerLinkRow]:
    """One new pseudonymous worker (``platform=direct``) per label ('' for none) and their
    absolute link to ``campaign``, all created in one transaction with bulk inserts.

    The link carries a signed token naming the worker and the campaign (never a password);
    it is the same every time it is made, so a lost CSV can be made again from the worker
    ids. ``on_progress`` is called with the number of workers created by each insert.
    """
    check_campaign_takes_links(campaign)
    created: list[Worker] = []
    with transaction.atomic():
        for start in range(0, len(labels), CREATE_BATCH):
            batch = labels[start : start + CREATE_BATCH]
            pseudonyms: set[str] = set()
            while len(pseudonyms) < len(batch):
                pseudonyms.add(pseudonymous_external_id())
            created += Worker.objects.bulk_create(
                Worker(platform=Platform.DIRECT, external_id=pseudonym, label=label)
                for pseudonym, label in zip(pseudonyms, batch, strict=True)
            )
            if on_progress is not None:
                on_progress(len(batch))
    return [
        WorkerLinkRow(worker.pk, worker.label, absolute_url(worker_url(worker.pk, campaign.pk)))
        for worker in created
    ]


def link_rows(links: Iterable[WorkerLinkRow]) -> Iterator[tuple[int, str, str]]:
    return ((row.worker_id, row.label, row.link) for row in links)


# --- Prolific ---------------------------------------------------------------------------------

# Prolific replaces these placeholders in a study URL with the participant's, the study's and
# the session's ids (Prolific's "Study link" settings, "URL parameters").
PROLIFIC_PLACEHOLDERS = (
    ("PROLIFIC_PID", "{{%PROLIFIC_PID%}}"),
    ("STUDY_ID", "{{%STUDY_ID%}}"),
    ("SESSION_ID", "{{%SESSION_ID%}}"),
)
PROLIFIC_COLUMNS = (
    "participant_id",
    "study_id",
    "session_id",
    "status",
    "submitted_at",
    "decision",
    "reason",
)


def prolific_study_url(campaign: Campaign) -> str:
    """The URL to paste into the Prolific study's settings. The placeholders are written as
    Prolific documents them (not percent-encoded), or Prolific would not replace them."""
    query = "&".join(f"{name}={placeholder}" for name, placeholder in PROLIFIC_PLACEHOLDERS)
    path = reverse("judgments:prolific-start", args=[campaign.pk])
    return f"{absolute_url(path)}?{query}"


@dataclass(frozen=True)
class ProlificSubmission:
    """One Prolific submission (one session) and what to do with it on Prolific."""

    participant_id: str
    study_id: str
    session_id: str
    status: str
    submitted_at: datetime | None
    decision: str
    reason: str

    def as_row(self) -> tuple[str, ...]:
        return (
            self.participant_id,
            self.study_id,
            self.session_id,
            self.status,
            _iso(self.submitted_at),
            self.decision,
            self.reason,
        )


def approval_decision(status: str, failure: str | None) -> tuple[str, str]:
    """The decision on one submission and its reason, from the status of the assignment it
    stands for and the worker's quality-control failure, if any.

    ``approve`` or ``reject`` for finished work (the rule of the completion codes);
    ``wait`` while the participant is still working; ``none`` when they left (expired or
    returned), which Prolific shows as timed out or returned: nothing to approve or reject.
    """
    if status in FINISHED_ASSIGNMENT_STATUSES:
        return ("reject", failure) if failure else ("approve", "")
    if status == AssignmentStatus.STARTED:
        return "wait", "Still working on the task."
    if status == AssignmentStatus.RETURNED:
        return "none", "Returned the task without finishing it."
    return "none", "Did not finish the task in time (expired)."


@dataclass(frozen=True)
class _Held:
    worker_id: int
    participant_id: str
    is_test: bool
    status: str
    submitted_at: datetime | None
    session_id: str
    study_id: str


def _sessions(held: list[_Held]) -> list[tuple[_Held, str, str]]:
    """One worker's submissions: (the assignment that decides it, session id, study id), in
    the order they were handed out.

    A session that started with the qualification test continues into the HIT handed out
    right after it (the task page sends a participant who passed on to their first HIT, which
    therefore has no session id of its own): that HIT is the submission. A test is its own
    submission only when no HIT continued its session, e.g. when the participant failed it.
    """
    result: list[tuple[_Held, str, str] | None] = []
    open_test: int | None = None  # index in result of a test whose session may continue
    has_regular = any(not row.is_test for row in held)
    for row in held:
        if row.is_test:
            if row.session_id:
                open_test = len(result)
                result.append((row, row.session_id, row.study_id))
            elif not has_regular:
                result.append((row, "", row.study_id))
        elif not row.session_id and open_test is not None:
            test = result[open_test]
            result[open_test] = None
            open_test = None
            result.append((row, test[1], test[2] or row.study_id))
        else:
            result.append((row, row.session_id, row.study_id))
    return [entry for entry in result if entry is not None]


def prolific_approvals(campaign: Campaign) -> list[ProlificSubmission]:
    """Every Prolific submission in ``campaign`` with its decision (three queries in all),
    ordered by participant id and then as handed out."""
    held = [
        _Held(*values)
        for values in Assignment.objects.filter(
            campaign=campaign, worker__platform=Platform.PROLIFIC
        )
        .order_by("worker__external_id", "started_at", "pk")
        .values_list(
            "worker_id",
            "worker__external_id",
            "hit__is_qualification",
            "status",
            "submitted_at",
            "platform_assignment_id",
            "platform_hit_id",
        )
    ]
    failures = quality_control_failures(campaign, {row.worker_id for row in held})
    by_worker: dict[int, list[_Held]] = {}
    for row in held:
        by_worker.setdefault(row.worker_id, []).append(row)
    submissions = []
    for worker_id, rows in by_worker.items():
        did_a_task = any(not row.is_test for row in rows)
        for row, session_id, study_id in _sessions(rows):
            failure = failures.get(worker_id)
            if row.is_test and failure is None and row.status in FINISHED_ASSIGNMENT_STATUSES:
                # Passed the test, but the submission is the HIT after it.
                decision, reason = (
                    ("none", "Passed the qualification test but did no task in this session.")
                    if did_a_task
                    else ("wait", "Passed the qualification test; no task started after it yet.")
                )
            else:
                decision, reason = approval_decision(row.status, failure)
            submissions.append(
                ProlificSubmission(
                    participant_id=row.participant_id,
                    study_id=study_id,
                    session_id=session_id,
                    status=row.status,
                    submitted_at=row.submitted_at,
                    decision=decision,
                    reason=reason,
                )
            )
    return submissions


def participant_ids_to_approve(submissions: Iterable[ProlificSubmission]) -> list[str]:
    """The participant ids for Prolific's bulk approval box (one per line), each once."""
    return list(dict.fromkeys(s.participant_id for s in submissions if s.decision == "approve"))


def decision_counts(submissions: Iterable[ProlificSubmission]) -> dict[str, int]:
    counts = {"approve": 0, "reject": 0, "wait": 0, "none": 0}
    for submission in submissions:
        counts[submission.decision] += 1
    return counts


# --- Worker background ------------------------------------------------------------------------

BACKGROUND_COLUMNS = (
    "campaign",
    "worker_id",
    "platform",
    "external_id",
    "label",
    "native_language",
    "country",
    "country_name",
    "country_source",
    "years_source_language",
    "years_target_language",
    "answered_at",
)


def background_rows(campaigns: Iterable[Campaign]) -> Iterator[tuple[Any, ...]]:
    """One row per worker who joined one of ``campaigns`` (answered the form or not), from one
    streamed query. The native language and country are the worker's latest answers (or the
    country MTurk's locale requirement implies); the years and ``answered_at`` are this
    campaign's."""
    rows = (
        CampaignWorker.objects.filter(campaign__in=[campaign.pk for campaign in campaigns])
        .order_by("campaign_id", "worker_id")
        .values_list(
            "campaign__name",
            "worker_id",
            "worker__platform",
            "worker__external_id",
            "worker__label",
            "worker__native_language",
            "worker__country",
            "worker__country_source",
            "years_source_language",
            "years_target_language",
            "background_at",
        )
    )
    for (
        campaign,
        worker_id,
        platform,
        external_id,
        label,
        native_language,
        country,
        country_source,
        years_source,
        years_target,
        answered_at,
    ) in rows.iterator(chunk_size=2000):
        yield (
            campaign,
            worker_id,
            platform,
            external_id,
            label,
            native_language,
            country,
            countries.name(country) if country else "",
            country_source,
            "" if years_source is None else years_source,
            "" if years_target is None else years_target,
            _iso(answered_at),
        )
