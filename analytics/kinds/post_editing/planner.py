"""PostgreSQL's planner statistics after a large batch of post-edits (issue 13's import).

A first large import into a database whose post-editing tables were empty or small when
autovacuum last analysed them (a new installation; bench/hter_import.py, which deletes its
campaigns between runs) leaves the planner believing the tables hold next to nothing: the
judgments, slots and outputs the import just wrote, and the 10,000 scores the recompute just
stored. The recompute's next queries (the edits still waiting for their distance to the
reference, the loader's joins) were then planned as nested loops over "empty" tables and
took 10 to 100 s instead of well under a second, until autovacuum's ANALYZE a minute later
(measured: the first import's and the first baseline import's "statistics" phase in every
bench run, while CPU seconds stayed as in the other runs). PostgreSQL's documentation says
to run ANALYZE after a bulk load; :func:`refresh_planner_statistics` does, for the tables
whose planner row estimate is below the rows of the batch alone, and only those: on a
database whose tables are large already nothing is analysed. SQLite has no such statistics
to refresh.
"""

from __future__ import annotations

import logging

from django.db import connection

from analytics.models import PostEditOutputScore, PostEditScore
from campaigns.models import Hit, HitSlot, Output, Segment
from judgments.models import Assignment, Judgment

__all__ = ["SCORED_TABLES", "WRITTEN_TABLES", "refresh_planner_statistics"]

logger = logging.getLogger(__name__)

# What an import of post-edits writes, and what the scoring stores.
WRITTEN_TABLES = (Judgment, Assignment, HitSlot, Hit, Output, Segment)
SCORED_TABLES = (PostEditScore, PostEditOutputScore)


def refresh_planner_statistics(n_rows: int, models=WRITTEN_TABLES + SCORED_TABLES) -> list[str]:
    """ANALYZE each table of ``models`` whose planner estimate (``pg_class.reltuples``, -1
    before the first ANALYZE) is below ``n_rows``, the rows a batch just added; return the
    tables analysed. One query when none is stale; nothing on other databases."""
    if connection.vendor != "postgresql":
        return []
    tables = [model._meta.db_table for model in models]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'r' AND relname = ANY(%s) "
            "AND reltuples < %s AND pg_table_is_visible(oid)",
            [tables, n_rows],
        )
        stale = sorted(name for (name,) in cursor.fetchall())
        quote = connection.ops.quote_name
        for name in stale:
            cursor.execute(f"ANALYZE {quote(name)}")
    if stale:
        logger.info("Planner statistics refreshed after %d rows: %s", n_rows, ", ".join(stale))
    return stale
