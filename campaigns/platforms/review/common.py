"""What every review operation shares: result objects, loading our rows (one query per
table), labels, and storing an MTurk error for the admin."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from campaigns.platforms.events import record_event
from campaigns.platforms.models import MTurkHit, PlatformEventKind
from campaigns.platforms.mturk import MTurkError
from judgments.models import Assignment, Platform

NO_MTURK_ID = (
    "This MTurk assignment has no MTurk assignment id (the worker never opened it from MTurk), "
    "so MTurk cannot review or pay it."
)


@dataclass(frozen=True)
class Failure:
    """One item MTurk refused: MTurk's code and words, and what the requester can do."""

    item: str
    message: str
    what_to_do: str
    code: str = ""

    def __str__(self) -> str:
        """``item: message (code) What to do: ...``: how the admin, the command and a bonus's
        ``last_error`` all say it."""
        code = f" ({self.code})" if self.code else ""
        advice = f" What to do: {self.what_to_do}" if self.what_to_do else ""
        return f"{self.item}: {self.message}{code}{advice}"


@dataclass
class ReviewResult:
    """What a bulk review operation did: ``done`` and ``skipped`` (item, why) and ``failed``."""

    operation: str
    done: list[str] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def ids_of(rows: Iterable[Any] | QuerySet) -> Any:
    if isinstance(rows, QuerySet):
        return rows.order_by().values("pk")
    return [row.pk for row in rows]


def load_assignments(assignments: Iterable[Assignment] | QuerySet) -> list[Assignment]:
    return list(
        Assignment.objects.filter(pk__in=ids_of(assignments))
        .select_related("campaign", "worker", "hit__mturk")
        .order_by("pk")
    )


def sandbox_of(assignment: Assignment) -> bool:
    """The environment of the HIT as published; the campaign's setting if never published."""
    try:
        return assignment.hit.mturk.sandbox
    except MTurkHit.DoesNotExist:
        return assignment.campaign.mturk_sandbox


def on_mturk(assignment: Assignment) -> bool:
    return assignment.worker.platform == Platform.MTURK


def assignment_label(assignment: Assignment) -> str:
    mturk_id = (
        f", MTurk {assignment.platform_assignment_id}" if assignment.platform_assignment_id else ""
    )
    return f"assignment {assignment.pk} (worker {assignment.worker.external_id}{mturk_id})"


def record_failure(
    result: Any, campaign_id: int, operation: str, item: str, error: MTurkError
) -> None:
    """Report an MTurk error and store it for the campaign's admin page."""
    result.failed.append(Failure(item, error.message, error.what_to_do, error.code))
    record_event(
        campaign_id,
        PlatformEventKind.ERROR,
        operation,
        f"{item}: {error.message}",
        code=error.code,
        what_to_do=error.what_to_do,
    )
