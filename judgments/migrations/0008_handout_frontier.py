"""Where a campaign's hand-out starts looking (issue 16): ``HandOutFrontier``, written by the
hand-out, and ``HitReopened``, written by the triggers below whenever a HIT may have a place
free again (see the models). The triggers only ever insert into judgments_hitreopened, so they
take no lock a hand-out holds.
"""

import django.db.models.deletion
from django.db import migrations, models

# Written out, not built: a migration keeps meaning what it meant when it was written. The
# live statuses are those of judgments.models.LIVE_ASSIGNMENT_STATUSES at the time.
_BY_ASSIGNMENT = (
    "INSERT INTO judgments_hitreopened (campaign_id, number) "
    "SELECT h.campaign_id, h.number FROM campaigns_hit h WHERE h.id = OLD.hit_id;"
)
_BY_HIT = (
    "INSERT INTO judgments_hitreopened (campaign_id, number) VALUES (NEW.campaign_id, NEW.number);"
)
_BY_CAMPAIGN = "INSERT INTO judgments_hitreopened (campaign_id, number) VALUES (NEW.id, 0);"

POSTGRESQL = [
    "CREATE FUNCTION evalsite_reopened_by_assignment() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN " + _BY_ASSIGNMENT + " RETURN NULL; END $$",
    "CREATE FUNCTION evalsite_reopened_by_hit() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN " + _BY_HIT + " RETURN NULL; END $$",
    # A build inserts thousands of HITs in a few statements: one row per campaign and statement.
    "CREATE FUNCTION evalsite_reopened_by_new_hits() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN INSERT INTO judgments_hitreopened (campaign_id, number) "
    "SELECT campaign_id, MIN(number) FROM added GROUP BY campaign_id; RETURN NULL; END $$",
    "CREATE FUNCTION evalsite_reopened_by_campaign() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN " + _BY_CAMPAIGN + " RETURN NULL; END $$",
    """CREATE TRIGGER evalsite_assignment_left AFTER UPDATE OF status ON judgments_assignment
    FOR EACH ROW WHEN (OLD.status IN ('started', 'submitted', 'approved')
        AND NEW.status NOT IN ('started', 'submitted', 'approved'))
    EXECUTE FUNCTION evalsite_reopened_by_assignment()""",
    """CREATE TRIGGER evalsite_assignment_deleted AFTER DELETE ON judgments_assignment
    FOR EACH ROW WHEN (OLD.status IN ('started', 'submitted', 'approved'))
    EXECUTE FUNCTION evalsite_reopened_by_assignment()""",
    """CREATE TRIGGER evalsite_hit_added AFTER INSERT ON campaigns_hit
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT
    EXECUTE FUNCTION evalsite_reopened_by_new_hits()""",
    """CREATE TRIGGER evalsite_hit_changed AFTER UPDATE ON campaigns_hit
    FOR EACH ROW WHEN (OLD.places IS DISTINCT FROM NEW.places
        OR OLD.is_qualification IS DISTINCT FROM NEW.is_qualification
        OR OLD.number IS DISTINCT FROM NEW.number
        OR OLD.campaign_id IS DISTINCT FROM NEW.campaign_id)
    EXECUTE FUNCTION evalsite_reopened_by_hit()""",
    """CREATE TRIGGER evalsite_campaign_more_places
    AFTER UPDATE OF redundancy ON campaigns_campaign
    FOR EACH ROW WHEN (NEW.redundancy > OLD.redundancy)
    EXECUTE FUNCTION evalsite_reopened_by_campaign()""",
    """CREATE TRIGGER evalsite_mturk_hit_withdrawn AFTER DELETE ON campaigns_mturkhit
    FOR EACH ROW EXECUTE FUNCTION evalsite_reopened_by_assignment()""",
]
_TRIGGERS = {
    "evalsite_assignment_left": "judgments_assignment",
    "evalsite_assignment_deleted": "judgments_assignment",
    "evalsite_hit_added": "campaigns_hit",
    "evalsite_hit_changed": "campaigns_hit",
    "evalsite_campaign_more_places": "campaigns_campaign",
    "evalsite_mturk_hit_withdrawn": "campaigns_mturkhit",
}
POSTGRESQL_REVERSE = [
    *(f"DROP TRIGGER IF EXISTS {name} ON {table}" for name, table in _TRIGGERS.items()),
    "DROP FUNCTION IF EXISTS evalsite_reopened_by_assignment()",
    "DROP FUNCTION IF EXISTS evalsite_reopened_by_hit()",
    "DROP FUNCTION IF EXISTS evalsite_reopened_by_new_hits()",
    "DROP FUNCTION IF EXISTS evalsite_reopened_by_campaign()",
]
# SQLite has row triggers only.
SQLITE = [
    """CREATE TRIGGER evalsite_assignment_left AFTER UPDATE OF status ON judgments_assignment
    FOR EACH ROW WHEN OLD.status IN ('started', 'submitted', 'approved')
        AND NEW.status NOT IN ('started', 'submitted', 'approved')
    BEGIN """
    + _BY_ASSIGNMENT
    + " END",
    """CREATE TRIGGER evalsite_assignment_deleted AFTER DELETE ON judgments_assignment
    FOR EACH ROW WHEN OLD.status IN ('started', 'submitted', 'approved') BEGIN """
    + _BY_ASSIGNMENT
    + " END",
    "CREATE TRIGGER evalsite_hit_added AFTER INSERT ON campaigns_hit FOR EACH ROW BEGIN "
    + _BY_HIT
    + " END",
    """CREATE TRIGGER evalsite_hit_changed AFTER UPDATE ON campaigns_hit
    FOR EACH ROW WHEN OLD.places IS NOT NEW.places
        OR OLD.is_qualification IS NOT NEW.is_qualification
        OR OLD.number IS NOT NEW.number OR OLD.campaign_id IS NOT NEW.campaign_id
    BEGIN """
    + _BY_HIT
    + " END",
    """CREATE TRIGGER evalsite_campaign_more_places
    AFTER UPDATE OF redundancy ON campaigns_campaign
    FOR EACH ROW WHEN NEW.redundancy > OLD.redundancy BEGIN """
    + _BY_CAMPAIGN
    + " END",
    "CREATE TRIGGER evalsite_mturk_hit_withdrawn AFTER DELETE ON campaigns_mturkhit "
    "FOR EACH ROW BEGIN " + _BY_ASSIGNMENT + " END",
]
SQLITE_REVERSE = [f"DROP TRIGGER IF EXISTS {name}" for name in _TRIGGERS]


def _run(statements: dict[str, list[str]]):
    def run(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        if vendor not in statements:
            raise RuntimeError(f"no hand-out triggers for the {vendor} database")
        for statement in statements[vendor]:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0020_output_system_id_covering_index"),
        ("judgments", "0007_judgment_redundant_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="HandOutFrontier",
            fields=[
                (
                    "campaign",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to="campaigns.campaign",
                    ),
                ),
                ("number", models.PositiveIntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name="HitReopened",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.IntegerField()),
                (
                    "campaign",
                    models.ForeignKey(
                        db_constraint=False,
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="campaigns.campaign",
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["campaign", "id"], name="hit_reopened_campaign")],
            },
        ),
        migrations.RunPython(
            _run({"postgresql": POSTGRESQL, "sqlite": SQLITE}),
            _run({"postgresql": POSTGRESQL_REVERSE, "sqlite": SQLITE_REVERSE}),
            elidable=False,
        ),
    ]
