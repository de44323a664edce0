"""Ending HITs now and keeping them open longer: MTurk first, our rows only after MTurk
confirmed each HIT."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from campaigns.models import MTurkHit, PlatformEventKind
from campaigns.platforms import clients, events, mturk
from campaigns.platforms.mturk import MTurkError
from campaigns.platforms.mturk.errors import HIT_DOES_NOT_EXIST

MAX_EXTEND_DAYS = 365  # MTurk keeps a HIT for at most a year (LifetimeInSeconds' limit)


@dataclass
class BatchResult:
    """MTurk HITs changed (``done``), left alone with a reason, and refused by MTurk."""

    operation: str
    done: list[MTurkHit] = field(default_factory=list)
    skipped: list[tuple[MTurkHit, str]] = field(default_factory=list)
    failed: list[tuple[MTurkHit, MTurkError]] = field(default_factory=list)
    not_attempted: int = 0  # left untouched after an error that would hit every HIT

    def message(self) -> str:
        verb = {"expire": "Ended", "extend": "Extended"}[self.operation]
        parts = [f"{verb} {len(self.done)} MTurk HIT(s)."]
        if self.skipped:
            reasons = sorted({reason for _, reason in self.skipped})
            parts.append(f"{len(self.skipped)} left as they were ({'; '.join(reasons)}).")
        for row, error in self.failed:
            parts.append(
                f"MTurk refused HIT {row.mturk_hit_id} ({error.code}): {error.message} "
                f"What to do: {error.what_to_do}"
            )
        if self.not_attempted:
            parts.append(
                f"{self.not_attempted} HIT(s) were not tried after that error; run the action "
                "again once it is fixed."
            )
        return " ".join(parts)


def _per_hit(
    operation: str,
    rows: Iterable[MTurkHit],
    client: Any,
    skip: Callable[[MTurkHit], str | None],
    call: Callable[[Any, MTurkHit], None],
    store: Callable[[MTurkHit], None],
) -> BatchResult:
    """Run ``call`` on MTurk for each HIT, ``store`` locally only after MTurk confirmed it.

    An error about one HIT (MTurk does not know it) is recorded and the rest go on; any other
    error (credentials, throttling, the network) would strike every HIT, so the batch stops.
    """
    result = BatchResult(operation)
    mturk_clients = clients.MTurkClients(client)
    if isinstance(rows, QuerySet):
        rows = rows.select_related("hit")  # the campaign id of each event, without a query
    rows = list(rows)
    for index, row in enumerate(rows):
        reason = skip(row)
        if reason:
            result.skipped.append((row, reason))
            continue
        try:
            call(mturk_clients.get(row.sandbox), row)
        except MTurkError as error:
            result.failed.append((row, error))
            events.record_error(row.hit.campaign_id, operation, error)
            if error.code != HIT_DOES_NOT_EXIST:
                result.not_attempted = len(rows) - index - 1
                break
            continue
        with transaction.atomic():
            store(row)
        result.done.append(row)
    by_campaign: dict[int, int] = {}
    for row in result.done:
        by_campaign[row.hit.campaign_id] = by_campaign.get(row.hit.campaign_id, 0) + 1
    for campaign_id, count in by_campaign.items():
        events.record_event(
            campaign_id,
            PlatformEventKind.INFO,
            operation,
            f"{'Ended' if operation == 'expire' else 'Extended'} {count} MTurk HIT(s).",
        )
    return result


def expire(rows: Iterable[MTurkHit], client: Any = None) -> BatchResult:
    """End HITs now: no new worker can accept them; accepted assignments may still be
    submitted. HITs already ended by a requester are left alone."""
    now = timezone.now()

    def store(row: MTurkHit) -> None:
        row.expired_by_requester_at = now
        row.expires_at = now
        row.save(update_fields=["expired_by_requester_at", "expires_at"])

    return _per_hit(
        "expire",
        rows,
        client,
        skip=lambda row: "already ended" if row.expired_by_requester_at else None,
        call=lambda client, row: mturk.expire_hit(client, row.mturk_hit_id),
        store=store,
    )


def extend(rows: Iterable[MTurkHit], until: datetime, client: Any = None) -> BatchResult:
    """Keep HITs open until ``until`` (a HIT a requester ended opens again). MTurk cannot
    shorten a HIT's life, so HITs already open longer are left alone."""
    now = timezone.now()
    if timezone.is_naive(until):
        raise ValueError("until must be an aware datetime (with a time zone).")
    if until <= now:
        raise ValueError("The new expiry must be in the future; to end HITs now, expire them.")
    if until > now + timedelta(days=MAX_EXTEND_DAYS):
        raise ValueError(f"MTurk keeps a HIT for at most {MAX_EXTEND_DAYS} days.")

    def skip(row: MTurkHit) -> str | None:
        if row.expired_by_requester_at is None and row.expires_at and row.expires_at >= until:
            return "already open until then or later"
        return None

    def store(row: MTurkHit) -> None:
        row.expires_at = until
        row.expired_by_requester_at = None
        row.save(update_fields=["expires_at", "expired_by_requester_at"])

    return _per_hit(
        "extend",
        rows,
        client,
        skip=skip,
        call=lambda client, row: mturk.extend_hit(client, row.mturk_hit_id, until, now=now),
        store=store,
    )


def days_from_now(days: Any) -> datetime:
    """The expiry ``days`` whole days from now (1 to 365), for the admin and the command."""
    try:
        count = int(str(days).strip())
    except ValueError:
        raise ValueError(
            f"Give the number of days as a whole number, e.g. 7; got {days!r}."
        ) from None
    if not 1 <= count <= MAX_EXTEND_DAYS:
        raise ValueError(f"Give between 1 and {MAX_EXTEND_DAYS} days; got {count}.")
    return timezone.now() + timedelta(days=count)
