"""Planner statistics after a large batch (analytics.kinds.post_editing.planner): on
PostgreSQL the tables whose row estimate is below the batch's rows are analysed, and only
those; SQLite has nothing to refresh (no query)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from analytics.kinds.post_editing.planner import (
    SCORED_TABLES,
    WRITTEN_TABLES,
    refresh_planner_statistics,
)

pytestmark = pytest.mark.django_db

TABLES = sorted(model._meta.db_table for model in WRITTEN_TABLES + SCORED_TABLES)


def _estimates() -> dict[str, float]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples FROM pg_class WHERE relkind = 'r' AND relname = ANY(%s)",
            [TABLES],
        )
        return dict(cursor.fetchall())


def test_only_tables_believed_smaller_than_the_batch_are_analysed():
    if connection.vendor != "postgresql":
        with CaptureQueriesContext(connection) as queries:
            assert refresh_planner_statistics(10**12) == []
        assert len(queries) == 0
        return
    # Every table is believed to hold fewer than 10^12 rows: all eight are analysed, after
    # which each has an estimate (-1 before a table's first ANALYZE).
    with CaptureQueriesContext(connection) as queries:
        assert refresh_planner_statistics(10**12) == TABLES
    analysed = [q["sql"] for q in queries if q["sql"].startswith("ANALYZE")]
    assert analysed == [f'ANALYZE "{table}"' for table in TABLES]
    assert all(estimate >= 0 for estimate in _estimates().values())
    # No estimate is below 0 rows: nothing is stale, one query and no ANALYZE.
    with CaptureQueriesContext(connection) as queries:
        assert refresh_planner_statistics(0) == []
    assert len(queries) == 1
    # Only the tables below the batch's size: the largest estimate is not analysed.
    estimates = _estimates()
    largest = max(estimates.values())
    if largest > 0:
        expected = sorted(name for name, rows in estimates.items() if rows < largest)
        assert refresh_planner_statistics(int(largest)) == expected
