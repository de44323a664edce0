"""An upper bound, not the product: evalsite's own SQL for a direct-assessment submission with
the leanest Python around it and no Django request cycle.

``POST /work/a/<token>/submit`` runs here: the signed link checked as evalsite checks it, the
same prepared read as evalsite's (the assignment, its HIT, campaign and kind settings, and the
HIT's slots as JSON: ``judgments.actions.hot_sql``), the item-order, range and deadline checks
of a DA item, the same one-statement write (the assignment's UPDATE gating the judgment's
INSERT), then ``judgments_recorded`` as evalsite sends it (so the Celery worker recomputes as
it does for evalsite). No model instance, form, middleware, URL resolver or template. Every
other request (the worker's link, the item) goes to evalsite's Django application.

What the figure means: how fast evalsite's submissions could be on this machine if its Python
cost nothing beyond this, with the database work as it is. It handles only what the bench
sends (one-item pages of direct assessment); it is not a second implementation to deploy."""

from __future__ import annotations

import json
import os
import re
import threading
from datetime import UTC, datetime

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
django.setup()

import psycopg2  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.db import connection as django_connection  # noqa: E402

from campaigns.models import HitSlot, Segment  # noqa: E402
from evalsite import prepared_statements  # noqa: E402
from judgments import tokens  # noqa: E402
from judgments.actions import hot_sql  # noqa: E402
from judgments.actions.submission import _announce  # noqa: E402

evalsite_application = get_wsgi_application()

_SUBMIT = re.compile(r"^/work/a/([^/]+)/submit$")
_READ = hot_sql._assignment_select(django_connection)
_, _READ_NUMBERED, _ = prepared_statements._statement(_READ.sql)
_ASSIGNMENT_COLUMNS = _READ.assignment.attnames
_INSERT_COLUMNS, _INSERT_FIELDS = hot_sql._judgment_insert(django_connection)
_VALUES = [f.attname for f in _INSERT_FIELDS if f.attname != "assignment_id"]
_SLOT_NAMES = [f.attname for f in HitSlot._meta.concrete_fields] + [
    f"segment.{f.attname}" for f in Segment._meta.concrete_fields
]
_SLOT_PK = _SLOT_NAMES.index("id")
_SHOWN_TEXT, _SOURCE = _SLOT_NAMES.index("shown_text"), _SLOT_NAMES.index("segment.source")


def _write(extra_sets: str, first: int) -> str:
    """The one-statement write; ``extra_sets`` are stamped too (the last item's), with their
    values from parameter ``first`` on."""
    values = ", ".join(
        "(SELECT id FROM stamped)"
        if f.attname == "assignment_id"
        else f"${_VALUES.index(f.attname) + first}"
        for f in _INSERT_FIELDS
    )
    return (
        "WITH stamped AS (UPDATE judgments_assignment SET last_activity_at = $1, "  # noqa: S608
        f"current_served_at = $2{extra_sets} WHERE id = $3 AND status = 'started' "
        "AND expires_at > $1 AND current_served_at IS NOT DISTINCT FROM $4 RETURNING id) "
        f"INSERT INTO judgments_judgment ({_INSERT_COLUMNS}) VALUES ({values}) RETURNING id"
    )


_STATEMENTS = {
    "lean_read": _READ_NUMBERED,
    "lean_next": _write("", 5),
    "lean_last": _write(", status = 'submitted', submitted_at = $1", 5),
}
_local = threading.local()


def _connection():
    connection = getattr(_local, "connection", None)
    if connection is None:
        connection = psycopg2.connect(os.environ["DATABASE_URL"])
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")
            for name, sql in _STATEMENTS.items():
                cursor.execute(f"PREPARE {name} AS {sql}")
        _local.connection = connection
    return connection


def _answer(start_response, status: str, body: dict) -> list[bytes]:
    data = json.dumps(body, ensure_ascii=False).encode()
    start_response(
        status,
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Cache-Control", "no-store"),
        ],
    )
    return [data]


def _error(start_response, status: str, message: str) -> list[bytes]:
    return _answer(start_response, status, {"ok": False, "error": message, "field": None})


def application(environ, start_response):
    match = _SUBMIT.match(environ["PATH_INFO"]) if environ["REQUEST_METHOD"] == "POST" else None
    if match is None:
        return evalsite_application(environ, start_response)
    try:
        assignment_id, worker_id = tokens._unsign(tokens.ASSIGNMENT_LINK_SALT, match[1], 2)
    except tokens.BadToken:
        return _error(start_response, "404 Not Found", "This task link is not valid.")
    try:
        payload = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        position, score = payload["position"], payload["score"]
        if type(position) is not int or not 0 <= float(score) <= 100:
            raise ValueError
    except (ValueError, TypeError, KeyError):
        return _error(start_response, "400 Bad Request", "Send {position, score (0-100)}.")
    now = datetime.now(UTC)
    with _connection().cursor() as cursor:
        cursor.execute("EXECUTE lean_read (%s, %s)", (assignment_id, worker_id))
        row = cursor.fetchone()
        if row is None:
            return _error(start_response, "404 Not Found", "This task link is not valid.")
        assignment = dict(zip(_ASSIGNMENT_COLUMNS, json.loads(row[0]), strict=True))
        ids, positions, _groups, answered, shown = row[_READ.slots_index]
        answered = set(answered or ())
        todo = [(pk, at) for pk, at in zip(ids, positions, strict=True) if pk not in answered]
        if position in {at for pk, at in zip(ids, positions, strict=True) if pk in answered}:
            return _answer(start_response, "200 OK", {"ok": True, "already_recorded": True})
        expires = datetime.fromisoformat(assignment["expires_at"])
        if assignment["status"] != "started" or expires <= now:
            return _error(start_response, "410 Gone", "This task has expired.")
        if not todo or todo[0][1] != position:
            return _error(start_response, "400 Bad Request", "Answer the next item first.")
        served = assignment["current_served_at"]
        served_at = None if served is None else datetime.fromisoformat(served)
        following = todo[1] if len(todo) > 1 else None
        values = {
            "campaign_id": assignment["campaign_id"],
            "worker_id": worker_id,
            "slot_id": todo[0][0],
            "score": float(score),
            "given_z": None,
            "rank": None,
            "text": "",
            "yes_no": None,
            "yes_no_second": None,
            "details": "{}",
            "client_started_at": None,
            "client_duration_ms": None,
            "served_at": served_at,
            "submitted_at": now,
            "server_duration_ms": None
            if served_at is None
            else max(round((now - served_at).total_seconds() * 1000), 0),
        }
        statement = "lean_next" if following else "lean_last"
        parameters = [now, now if following else None, assignment_id, served_at]
        parameters += [values[name] for name in _VALUES]
        try:
            cursor.execute(
                f"EXECUTE {statement} ({', '.join(['%s'] * len(parameters))})", parameters
            )
        except psycopg2.IntegrityError:
            # The assignment changed since it was read (evalsite then decides again under a
            # lock; the bench's workers never race themselves).
            return _error(start_response, "409 Conflict", "The task changed meanwhile: reload.")
        stored = [pk for (pk,) in cursor.fetchall()]
    _announce(assignment["campaign_id"], worker_id, stored)
    item = None
    if following:
        columns = next((c for c in shown or () if c[_SLOT_PK] == following[0]), None)
        item = {
            "position": following[1],
            "text": None if columns is None else columns[_SHOWN_TEXT],
            "source": None if columns is None else columns[_SOURCE],
        }
    return _answer(
        start_response,
        "200 OK",
        {
            "ok": True,
            "next": item,
            "done": following is None,
            "progress": {"done": len(answered) + 1, "total": len(ids)},
        },
    )
