"""evalsite.prepared_statements: the worker endpoints' hot SQL as prepared statements on
PostgreSQL (planned once per connection), plain statements elsewhere or when turned off.

The PostgreSQL tests need PostgreSQL (``postgres_required``: skipped locally without it, failed
in CI); they read ``pg_prepared_statements``, the server's own list for the connection.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from evalsite import prepared_statements
from judgments.actions import record_judgment
from judgments.actions.hot_sql import _assignment_select
from judgments.models import Judgment
from tests.factories import AssignmentFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db


def _prepared_on_server() -> list[tuple[str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'evalsite_%%' "
            "ORDER BY name"
        )
        return cursor.fetchall()


def _run(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        prepared_statements.execute(cursor, connection, sql, params)
        return cursor.fetchall()


def test_numbered_parameters_and_a_stable_name():
    name, numbered, count = prepared_statements._statement(
        "SELECT a FROM t WHERE b = %s AND c LIKE 'x%%' AND d IN (%s, %s)"
    )
    assert numbered == "SELECT a FROM t WHERE b = $1 AND c LIKE 'x%%' AND d IN ($2, $3)"
    assert count == 3
    assert name.startswith("evalsite_") and len(name) == len("evalsite_") + 16
    again, _, _ = prepared_statements._statement(
        "SELECT a FROM t WHERE b = %s AND c LIKE 'x%%' AND d IN (%s, %s)"
    )
    assert again == name


def test_prepared_once_then_executed_by_name_in_one_statement_each(postgres_required):
    sql = "SELECT %s::int + %s::int, 'a%%b'"
    name, _, _ = prepared_statements._statement(sql)
    with CaptureQueriesContext(connection) as queries:
        first = _run(sql, [2, 3])
        second = _run(sql, [10, 20])
    assert first == [(5, "a%b")]
    assert second == [(30, "a%b")]
    # One statement a call: PREPARE travels with the first execution.
    assert [query["sql"].split(" (")[0].split(" AS ")[0] for query in queries] == [
        f"PREPARE {name}",
        f"EXECUTE {name}",
    ]
    assert [found for found, _ in _prepared_on_server()].count(name) == 1


def test_an_error_of_the_execution_leaves_the_statement_prepared(postgres_required):
    sql = "SELECT 10 / %s::int"
    name, _, _ = prepared_statements._statement(sql)
    with pytest.raises(Exception, match="division by zero"), transaction.atomic():
        _run(sql, [0])
    assert name in {found for found, _ in _prepared_on_server()}
    assert _run(sql, [5]) == [(2,)]


@pytest.mark.django_db(transaction=True)
def test_a_statement_prepared_behind_its_back_is_run_by_name(postgres_required):
    sql = "SELECT %s::int * 7"
    name, numbered, _ = prepared_statements._statement(sql)
    with connection.cursor() as cursor:
        cursor.execute(f"PREPARE {name} AS {numbered}")
    # Outside a transaction the duplicate is taken as prepared and the call still answers.
    assert _run(sql, [6]) == [(42,)]
    assert _run(sql, [7]) == [(49,)]


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_a_duplicate_is_the_callers_error_once(postgres_required):
    sql = "SELECT %s::int * 11"
    name, numbered, _ = prepared_statements._statement(sql)
    with connection.cursor() as cursor:
        cursor.execute(f"PREPARE {name} AS {numbered}")
    with pytest.raises(Exception, match="already exists"), transaction.atomic():
        _run(sql, [2])
    with transaction.atomic():
        assert _run(sql, [3]) == [(33,)]


@pytest.mark.django_db(transaction=True)
def test_a_new_connection_prepares_again(postgres_required):
    sql = "SELECT %s::text || 'x'"
    name = prepared_statements._statement(sql)[0]
    assert _run(sql, ["a"]) == [("ax",)]
    connection.close()
    with CaptureQueriesContext(connection) as queries:
        assert _run(sql, ["b"]) == [("bx",)]
    assert queries[0]["sql"].startswith(f"PREPARE {name} AS ")


def test_turned_off_or_on_sqlite_the_statement_is_sent_as_it_is(settings):
    settings.EVALSITE_PREPARED_STATEMENTS = False
    with CaptureQueriesContext(connection) as queries:
        assert _run("SELECT %s + %s", [1, 2]) == [(3,)]
    assert queries[0]["sql"] == "SELECT 1 + 2"


def test_a_submission_runs_the_hot_statements_prepared(postgres_required):
    hit = HitFactory()
    for position in (1, 2, 3):
        HitSlotFactory(hit=hit, position=position)
    assignment = AssignmentFactory(hit=hit)
    record_judgment(assignment.pk, assignment.worker_id, {"position": 1, "score": 40})
    with CaptureQueriesContext(connection) as queries:
        record_judgment(assignment.pk, assignment.worker_id, {"position": 2, "score": 60})
    assert Judgment.objects.filter(assignment=assignment).count() == 2
    # The second submission's reads and its write ran by name, none as text to plan (the
    # savepoint is the test's transaction's: see store_unlocked).
    # (The assignment's statement reads the HIT's slots too.)
    assert [query["sql"].split(" ")[0] for query in queries] == [
        "EXECUTE",
        "SAVEPOINT",
        "EXECUTE",
        "RELEASE",
    ]
    name = prepared_statements._statement(_assignment_select(connection).sql)[0]
    assert name in {found for found, _ in _prepared_on_server()}


def test_a_refused_write_still_raises_integrity_error_for_the_caller(postgres_required):
    sql = "INSERT INTO judgments_judgment (id) VALUES (%s)"  # NOT NULL columns missing
    with pytest.raises(IntegrityError), transaction.atomic():
        _run(sql, [1])
