"""The submit endpoint under hostile input (issue 11, items 2 and 5): poisoned client times are
refused within a window of the server's time, impossible dates and bodies nested too deeply
are a 400 rather than a 500, and no JSON payload or body at all gets a 5xx (hypothesis)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from datetime import timezone as fixed_zone

import pytest
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgments.actions import SubmissionError, record_judgment
from judgments.actions.timing import (
    CLIENT_CLOCK_TOLERANCE,
    MAX_CLIENT_DURATION,
    MAX_CLIENT_DURATION_MS,
)
from judgments.models import Judgment
from tests.factories import AssignmentFactory, HitFactory, HitSlotFactory
from tests.judgments.test_views import task_url

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def submit_url(assignment) -> str:
    return task_url(assignment, "judgments:task-submit")


def post(assignment, body: str | bytes):
    return Client().post(submit_url(assignment), data=body, content_type="application/json")


def fresh_assignment():
    hit = HitFactory()
    for position in (1, 2):
        HitSlotFactory(hit=hit, position=position)
    return AssignmentFactory(hit=hit)


def answer(**timing):
    return {"position": 1, "score": 50, **timing}


# --- The attacks, replayed -------------------------------------------------------------------


def test_year_one_with_an_offset_is_refused_not_stored_as_1_bc(assignment):
    """0001-01-01T00:30:00+01:00 is 1 BC in UTC: it broke every later export."""
    response = post(assignment, json.dumps(answer(client_started_at="0001-01-01T00:30:00+01:00")))
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "client_started_at"
    assert body["error"].startswith(
        "client_started_at 0001-01-01T00:30:00+01:00 is too far from the server's time ("
    )
    assert (
        "Check the date, time and time zone of your computer, then reload the page."
        in (body["error"])
    )
    assert not Judgment.objects.exists()


@pytest.mark.parametrize(
    "value", ["2025-13-01T00:00:00Z", "2025-01-32T00:00:00Z", "2025-02-30T00:00:00+01:00"]
)
def test_an_impossible_date_is_a_400_not_a_500(assignment, value):
    response = post(assignment, json.dumps(answer(client_started_at=value)))
    assert (response.status_code, response.json()) == (
        400,
        {
            "ok": False,
            "error": "client_started_at must be a date and time with a time zone, for example "
            f'2025-05-01T12:00:00.000Z (got the text "{value}").',
            "field": "client_started_at",
        },
    )
    assert not Judgment.objects.exists()


def test_an_offset_of_minus_23_hours_is_stored_in_utc(assignment):
    """Python parses -23:00, PostgreSQL refuses it: the time is stored in UTC."""
    moment = timezone.now().replace(microsecond=0)
    sent = moment.astimezone(fixed_zone(timedelta(hours=-23))).isoformat()
    assert sent.endswith("-23:00")
    response = post(assignment, json.dumps(answer(client_started_at=sent)))
    assert response.status_code == 200, response.content
    stored = Judgment.objects.get().client_started_at
    assert stored == moment and stored.utcoffset() == timedelta(0)


def test_an_offset_of_minus_23_hours_outside_the_window_is_refused(assignment):
    response = post(assignment, json.dumps(answer(client_started_at="2025-01-01T00:00:00-23:00")))
    assert (response.status_code, response.json()["field"]) == (400, "client_started_at")
    assert not Judgment.objects.exists()


def test_a_body_nested_100000_deep_is_a_400_not_a_500(assignment):
    for body in ("[" * 100_000, "[" * 100_000 + "]" * 100_000, '{"a":' * 100_000):
        response = post(assignment, body)
        assert response.status_code == 400
        assert response.json()["error"].startswith("The answer could not be read: send JSON")
    assert not Judgment.objects.exists()


def test_a_body_past_the_upload_limit_is_a_json_413_and_stores_nothing(assignment, settings):
    """Django refuses to read a body past DATA_UPLOAD_MAX_MEMORY_SIZE; the worker's page gets
    the endpoints' JSON error saying so, not Django's HTML error page."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    body = json.dumps(answer(note="a" * (1024 * 1024)))

    response = post(assignment, body)

    assert (response.status_code, response.json()) == (
        413,
        {"ok": False, "error": "The answer is too large: send at most 1 MB.", "field": None},
    )
    assert not Judgment.objects.exists()


@pytest.mark.parametrize(
    ("endpoint", "method", "allowed"),
    [
        ("judgments:task-submit", "get", "POST"),
        ("judgments:task-submit", "put", "POST"),
        ("judgments:task-item", "post", "GET"),
        ("judgments:task-item", "delete", "GET"),
    ],
)
def test_a_wrong_method_is_a_json_405_naming_the_right_one(assignment, endpoint, method, allowed):
    response = getattr(Client(), method)(task_url(assignment, endpoint))

    assert (response.status_code, response["Allow"], response.json()) == (
        405,
        allowed,
        {"ok": False, "error": f"Send this request with {allowed}.", "field": None},
    )
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"


# --- The window, exactly --------------------------------------------------------------------


@pytest.fixture
def open_assignment():
    hit = HitFactory()
    for position in (1, 2):
        HitSlotFactory(hit=hit, position=position)
    return AssignmentFactory(hit=hit, expires_at=NOW + timedelta(hours=1))


def record(assignment, **timing):
    return record_judgment(assignment.pk, assignment.worker_id, answer(**timing), now=NOW)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


EARLIEST = NOW - MAX_CLIENT_DURATION - CLIENT_CLOCK_TOLERANCE
LATEST = NOW + CLIENT_CLOCK_TOLERANCE


def test_the_window_is_eight_days_two_hours_back_and_26_hours_ahead():
    assert (EARLIEST, LATEST) == (
        datetime(2026, 2, 21, 10, 0, tzinfo=UTC),
        datetime(2026, 3, 2, 14, 0, tzinfo=UTC),
    )


@pytest.mark.parametrize("moment", [EARLIEST, LATEST, NOW])
def test_the_window_takes_its_edges(open_assignment, moment):
    result = record(open_assignment, client_started_at=iso(moment))
    assert result.judgment.client_started_at == moment


@pytest.mark.parametrize(
    "moment", [EARLIEST - timedelta(microseconds=1), LATEST + timedelta(microseconds=1)]
)
def test_a_time_just_outside_the_window_is_refused_with_the_window(open_assignment, moment):
    with pytest.raises(SubmissionError) as error:
        record(open_assignment, client_started_at=iso(moment))
    assert error.value.field == "client_started_at"
    assert error.value.message == (
        f"client_started_at {iso(moment)} is too far from the server's time "
        "(2026-03-01T12:00:00Z): send a time between 2026-02-21T10:00:00Z and "
        "2026-03-02T14:00:00Z. Check the date, time and time zone of your computer, then "
        "reload the page."
    )
    assert not Judgment.objects.exists()


def test_a_wrong_time_zone_on_the_workers_computer_is_still_accepted(open_assignment):
    """Local time right, zone wrong (UTC+14 taken for UTC-12): 26 hours ahead in UTC."""
    sent = (NOW + timedelta(hours=26)).isoformat()
    result = record(open_assignment, client_started_at=sent)
    assert result.judgment.client_started_at == NOW + timedelta(hours=26)


def test_client_duration_is_bounded_to_seven_days(open_assignment):
    assert MAX_CLIENT_DURATION_MS == 604_800_000
    with pytest.raises(SubmissionError) as error:
        record(open_assignment, client_duration_ms=MAX_CLIENT_DURATION_MS + 1)
    assert (error.value.field, error.value.message) == (
        "client_duration_ms",
        "client_duration_ms must be the milliseconds the item was open, a whole number from 0 "
        "to 604800000 (got 604800001); if the page was open longer, reload it.",
    )
    assert not Judgment.objects.exists()
    result = record(open_assignment, client_duration_ms=MAX_CLIENT_DURATION_MS)
    assert result.judgment.client_duration_ms == MAX_CLIENT_DURATION_MS


# --- No 5xx for anything ---------------------------------------------------------------------

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities too: json.dumps writes them, json.loads reads them
    | st.text(max_size=30)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
OFFSETS = st.one_of(
    st.just("Z"),
    st.just(""),
    st.builds(
        "{}{:02d}:{:02d}".format,
        st.sampled_from("+-"),
        st.integers(0, 99),
        st.integers(0, 99),
    ),
)
DATE_TEXTS = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}".format,
    st.integers(0, 9999),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
    OFFSETS,
)
NEAR_NOW = st.builds(
    lambda seconds, hours: (
        (timezone.now() + timedelta(seconds=seconds)).astimezone(fixed_zone(timedelta(hours=hours)))
    ).isoformat(),
    st.integers(-30 * 86400, 30 * 86400),
    st.integers(-23, 23),
)
TIMES = DATE_TEXTS | NEAR_NOW | JSON_VALUES | st.datetimes().map(datetime.isoformat)
NUMBERS = st.integers(-5, 5) | st.integers() | st.floats() | JSON_VALUES
PAYLOADS = st.one_of(
    JSON_VALUES,
    st.fixed_dictionaries(
        {"position": NUMBERS, "score": NUMBERS},
        optional={
            "client_started_at": TIMES,
            "client_duration_ms": NUMBERS,
            "ranks": JSON_VALUES,
            "set": NUMBERS,
            "extra": JSON_VALUES,
        },
    ),
)
NO_5XX = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@NO_5XX
@given(payload=PAYLOADS)
def test_no_json_payload_gets_a_5xx(payload):
    assignment = fresh_assignment()
    response = post(assignment, json.dumps(payload))
    assert response.status_code in (200, 400, 409), (payload, response.content)
    body = response.json()
    if response.status_code == 200:
        # What was stored reads back (the export path) and lies in the window.
        judgment = Judgment.objects.get(assignment=assignment)
        if judgment.client_started_at is not None:
            assert judgment.client_started_at.utcoffset() == timedelta(0)
            assert abs(judgment.client_started_at - timezone.now()) < timedelta(days=9)
    else:
        assert body["ok"] is False and body["error"]


@NO_5XX
@given(body=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_no_body_at_all_gets_a_5xx(body):
    assignment = fresh_assignment()
    response = post(assignment, body)
    assert response.status_code in (200, 400, 409), (body, response.content)
