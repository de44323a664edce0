"""PostgreSQL: an index of the outputs by system that also holds their ids.

The direct-assessment loader reads one campaign's outputs (id and system) through its systems.
The outputs' rows are wide (their text), so PostgreSQL read them through a bitmap heap scan
of the system_id index: at a million judgments (140,000 outputs) about 0.2 s of the server's
time, on the second connection the loader reads its side tables on (issue 16 item 2). With
the system's outputs' ids in the index it is an index-only scan: 0.04-0.07 s (EXPLAIN
ANALYZE on the bench's 1M campaign). Outputs are written once, when a campaign is built, so
the visibility map is soon all set. About 24 bytes an output.

(The slots were tried the same way, (hit_id) INCLUDE (id, role, output_id, controls_id):
PostgreSQL keeps its sequential scan and hash join, which read 70% of the table anyway, and
forced onto the index it gained 10-20%: not kept.)

Raw SQL run only on PostgreSQL, as judgments 0006 builds its covering index: INCLUDE is
PostgreSQL's, the index is no part of the migration state. CONCURRENTLY, outside a
transaction, so that building it on a live table blocks no writes.
"""

from django.db import migrations

INDEX_NAME = "output_system_id_covering"
CREATE = (
    f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {INDEX_NAME} ON campaigns_output "
    "(system_id) INCLUDE (id)"
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
        ("campaigns", "0019_translation_ranked_translations"),
    ]

    operations = [
        migrations.RunPython(create_index, drop_index, elidable=False),
    ]
