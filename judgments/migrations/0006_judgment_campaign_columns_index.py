"""PostgreSQL: one index that holds every column a campaign's statistics load, by campaign then id.

The direct-assessment loader reads one campaign's judgments ordered by id (worker, assignment,
slot, score, durations, given z). Without this index PostgreSQL walked the primary key over the
whole table and filtered out the other campaigns' rows (at 1M judgments of one campaign among
1.4M: 0.55 s of the 1.1 s the COPY took); with it the COPY is an index-only scan of that one
campaign's rows, already in id order, without touching the table (judgments are append-only,
so the visibility map is nearly all set once autovacuum has passed). About 80 bytes a judgment.

Raw SQL run only on PostgreSQL: INCLUDE is PostgreSQL's, and the index is not a model index
(``Meta.indexes`` cannot say INCLUDE for some columns only), so it is no part of the migration
state and ``makemigrations`` never sees it. CONCURRENTLY, outside a transaction, so that
building it on a live table does not block submissions.
"""

from django.db import migrations

INDEX_NAME = "judgment_campaign_id_columns"
CREATE = (
    f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX_NAME} ON judgments_judgment "
    "(campaign_id, id) INCLUDE (worker_id, assignment_id, slot_id, score, "
    "client_duration_ms, server_duration_ms, given_z)"
)
DROP = f"DROP INDEX CONCURRENTLY IF EXISTS {INDEX_NAME}"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("judgments", "0005_judgment_given_z"),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index, elidable=False),
    ]
