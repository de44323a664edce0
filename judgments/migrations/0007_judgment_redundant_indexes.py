"""Three of the judgments' eleven indexes repeated others (issue 16 item 1: every index is
written by each submission's INSERT): slot had two (the foreign key's and a Meta index), and
campaign's and assignment's own indexes lead (campaign, worker), (campaign, submitted_at) and
the unique (assignment, slot), which answer the same lookups and the cascades of a deleted
campaign or assignment.

Django's own operations for ``db_index=False`` drop and re-add the foreign keys, and re-adding
one validates every row under a lock that holds up submissions (seconds at a million
judgments). So the state changes as Django's operations say, and the database only loses the
three indexes, on PostgreSQL CONCURRENTLY (outside a transaction, as 0006 builds its index).
"""

import django.db.models.deletion
from django.db import migrations, models

# (index name, its columns): the names Django gave them (the same on every database).
INDEXES = [
    ("judgments_j_slot_id_dc3c9c_idx", "slot_id"),
    ("judgments_judgment_assignment_id_0f42a956", "assignment_id"),
    ("judgments_judgment_campaign_id_c85d6df2", "campaign_id"),
]


def drop_indexes(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    for name, _ in INDEXES:
        schema_editor.execute(f'DROP INDEX {concurrently}IF EXISTS "{name}"')


def create_indexes(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    for name, column in INDEXES:
        schema_editor.execute(
            f'CREATE INDEX {concurrently}IF NOT EXISTS "{name}" ON "judgments_judgment" ("{column}")'
        )


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("campaigns", "0019_translation_ranked_translations"),
        ("judgments", "0006_judgment_campaign_columns_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(
                    model_name="judgment",
                    name="judgments_j_slot_id_dc3c9c_idx",
                ),
                migrations.AlterField(
                    model_name="judgment",
                    name="assignment",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="judgments",
                        to="judgments.assignment",
                    ),
                ),
                migrations.AlterField(
                    model_name="judgment",
                    name="campaign",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="judgments",
                        to="campaigns.campaign",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(drop_indexes, create_indexes, elidable=False),
            ],
        ),
    ]
