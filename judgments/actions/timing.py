"""The browser's timing fields of a submission (``client_started_at``, ``client_duration_ms``):
parsed, and accepted only within a window of the server's time.

The window (issue 11): a stored ``0001-01-01T00:30:00+01:00`` is 1 BC in UTC, which Python
cannot represent, and broke every later export of the campaign. The page sends
``new Date().toISOString()`` (UTC from the worker's clock) when an item is shown and the
milliseconds the item was open, so an honest value lies between the item's opening and now,
give or take the worker's clock error. The bounds:

- :data:`CLIENT_CLOCK_TOLERANCE` (26 hours) either way: a computer set to the right local time
  in the wrong time zone is off by whole hours, up to the 26 hours between UTC-12 and UTC+14.
  A narrower window (minutes) would lock such a worker out of every answer, since the page
  sends the clock it has; 26 hours still keeps out every value that is not a real clock.
- :data:`MAX_CLIENT_DURATION` (7 days): the longest an item may have been open, so the start
  may lie that much further in the past; ``client_duration_ms`` is bounded by the same.

Any offset Python's parser takes (up to +-23:59) is accepted and the time is stored in UTC
(the window is checked first: the UTC form of some out-of-window values does not exist), so
PostgreSQL, which refuses offsets such as -23:00, only ever sees UTC. A month 13 or a day 32
(on which the parser raises) or a value outside the window is a 400 naming the field and
saying what to send; nothing is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import pgettext

from judgments.actions.specs import SubmissionError, _whole_number, json_kind

CLIENT_CLOCK_TOLERANCE = timedelta(hours=26)
MAX_CLIENT_DURATION = timedelta(days=7)
MAX_CLIENT_DURATION_MS = int(MAX_CLIENT_DURATION / timedelta(milliseconds=1))
# An ISO 8601 date and time with microseconds and an offset is 32 characters.
MAX_DATETIME_CHARS = 64


def _started_error(value: Any) -> SubmissionError:
    return SubmissionError(
        pgettext(
            "task answer",
            "client_started_at must be a date and time with a time zone, for example "
            "2025-05-01T12:00:00.000Z (got {value}).",
        ).format(value=json_kind(value)),
        field="client_started_at",
    )


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_client_started_at(value: Any, now: datetime) -> datetime | None:
    """``client_started_at`` in UTC, or None when it was left out (or null); SubmissionError
    (400, field ``client_started_at``) when it is not an ISO 8601 date and time with a real
    time zone within the window of ``now`` (see the module's docstring)."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_DATETIME_CHARS:
        raise _started_error(value)
    try:
        started = parse_datetime(value)
    except (ValueError, OverflowError):  # a well-formed but impossible date: month 13, day 32
        raise _started_error(value) from None
    if started is None or timezone.is_naive(started):
        raise _started_error(value)
    earliest = now - MAX_CLIENT_DURATION - CLIENT_CLOCK_TOLERANCE
    latest = now + CLIENT_CLOCK_TOLERANCE
    # Compared before converting: the UTC form of 0001-01-01T00:30+01:00 does not exist.
    if not earliest <= started <= latest:
        raise SubmissionError(
            pgettext(
                "task answer",
                "client_started_at {value} is too far from the server's time ({now}): send a "
                "time between {earliest} and {latest}. Check the date, time and time zone of "
                "your computer, then reload the page.",
            ).format(
                value=value[:40],
                now=_iso(now),
                earliest=_iso(earliest),
                latest=_iso(latest),
            ),
            field="client_started_at",
        )
    return started.astimezone(UTC)


def parse_client_duration_ms(payload: Mapping[str, Any]) -> int | None:
    """``client_duration_ms``: None when left out, else a whole number of milliseconds from 0
    to :data:`MAX_CLIENT_DURATION_MS` (7 days); SubmissionError (400) otherwise."""
    value = _whole_number(
        payload, "client_duration_ms", 0, pgettext("task answer", "a time in milliseconds")
    )
    if value is not None and value > MAX_CLIENT_DURATION_MS:
        raise SubmissionError(
            pgettext(
                "task answer",
                "client_duration_ms must be the milliseconds the item was open, a whole number "
                "from 0 to {maximum} (got {value}); if the page was open longer, reload it.",
            ).format(maximum=MAX_CLIENT_DURATION_MS, value=json_kind(value)),
            field="client_duration_ms",
        )
    return value


def parse_timing(payload: Mapping[str, Any], now: datetime) -> tuple[datetime | None, int | None]:
    """Both timing fields of a submission: (client_started_at in UTC, client_duration_ms)."""
    return (
        parse_client_started_at(payload.get("client_started_at"), now),
        parse_client_duration_ms(payload),
    )
