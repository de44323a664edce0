"""Server-side prepared statements for the worker endpoints' hot SQL on PostgreSQL (issue 16).

psycopg2 sends every statement as text, so PostgreSQL parses and plans it anew each time. For
the statement that loads a task link's assignment (the assignment, its HIT, its campaign and
every kind's settings: eight relations) planning took 2.8 ms against 0.3 ms of execution
(EXPLAIN (ANALYZE, SUMMARY) on the submissions bench's campaign, under load): most of the
database's CPU per submission. A prepared statement is planned once per connection (after
five custom plans PostgreSQL keeps a generic plan when it is no worse), then each execution
costs its execution alone (0.015 ms of planning in the same measurement).

:func:`execute` prepares a statement the first time a database connection runs it, in the same
round trip as its first execution (``PREPARE name AS …; EXECUTE name (…)``: one statement for
Django's query counting, one network round trip), and executes it by name afterwards. The
statements prepared on a connection are remembered per psycopg2 connection object, so a
reconnect starts afresh. A prepared statement outlives a rolled-back transaction and an
error of its own execution (PostgreSQL's PREPARE is not transactional), so only an error of
PREPARE itself leaves it unprepared; a duplicate name (the bookkeeping out of step, e.g. a
statement prepared by hand) is taken as prepared and the statement is run again by name
when no transaction was aborted by it.

Off (plain statements) on other databases, and with ``EVALSITE_PREPARED_STATEMENTS`` false:
behind a connection pooler in transaction mode (PgBouncer's ``pool_mode = transaction``)
a later request may run on a server connection that never saw the PREPARE.
"""

from __future__ import annotations

import hashlib
import re
import weakref
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import DatabaseError

# PostgreSQL's SQLSTATE for "prepared statement already exists".
_DUPLICATE_PREPARED_STATEMENT = "42P05"
_PLACEHOLDER = re.compile(r"%(s|%)")

# SQL text -> (statement name, the SQL with $1..$n placeholders, number of parameters)
_statements: dict[str, tuple[str, str, int]] = {}
# psycopg2 connection -> names of the statements prepared on it
_prepared: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def enabled(connection) -> bool:
    return connection.vendor == "postgresql" and getattr(
        settings, "EVALSITE_PREPARED_STATEMENTS", True
    )


def _statement(sql: str) -> tuple[str, str, int]:
    """The statement's name (from a hash of its text, so the same text always has the same
    name) and its text with numbered parameters instead of psycopg2's ``%s``."""
    known = _statements.get(sql)
    if known is None:
        count = 0

        def number(match: re.Match) -> str:
            nonlocal count
            if match.group(1) == "%":
                return "%%"  # a literal percent sign, still escaped for psycopg2
            count += 1
            return f"${count}"

        numbered = _PLACEHOLDER.sub(number, sql)
        name = "evalsite_" + hashlib.sha1(sql.encode(), usedforsecurity=False).hexdigest()[:16]
        known = _statements[sql] = (name, numbered, count)
    return known


def execute(cursor, connection, sql: str, params: Sequence[Any]) -> None:
    """``cursor.execute(sql, params)``, as a prepared statement on PostgreSQL (see the module's
    docstring). ``connection`` is the cursor's Django connection; ``sql`` uses ``%s`` for each
    of ``params`` and is one statement."""
    if not enabled(connection):
        cursor.execute(sql, params)
        return
    name, numbered, count = _statement(sql)
    if len(params) != count:
        raise ValueError(f"{count} parameters expected, {len(params)} given")
    run = f"EXECUTE {name}" + (f" ({', '.join(['%s'] * count)})" if count else "")
    connection.ensure_connection()
    raw = connection.connection
    prepared = _prepared.get(raw)
    if prepared is None:
        prepared = _prepared[raw] = set()
    if name in prepared:
        cursor.execute(run, params)
        return
    try:
        cursor.execute(f"PREPARE {name} AS {numbered}; {run}", params)
    except DatabaseError as error:
        code = getattr(error.__cause__, "pgcode", None) or ""
        if code == _DUPLICATE_PREPARED_STATEMENT:
            prepared.add(name)
            if connection.in_atomic_block:
                raise  # the transaction is aborted: the caller's error handling decides
            cursor.execute(run, params)
            return
        if not code.startswith("42"):
            # Class 42 (syntax, undefined objects) is PREPARE's own; any other error comes
            # from the execution, after the statement was prepared.
            prepared.add(name)
        raise
    prepared.add(name)
