"""Campaigns made before the task kinds became modules read the same afterwards.

tests/fixtures/pre_kinds/ holds two campaigns (direct assessment and ranking, with judgments,
workers and stored results) dumped by the code before the change (old schema: every kind's
settings on Campaign), and what the analysts' API and the admin's results panels answered for
them then (README.md there says how it was recorded). This test loads the dump into the
schema of that time, runs the migrations (campaigns 0008 moves the settings into each kind's
settings model), and asks the same URLs: every body must be identical, and every setting must
have arrived in the kind's settings row.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import DirectAssessmentSettings, RankingSettings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pre_kinds"
# The newest migration of each app when the recording was made.
BEFORE = [
    ("campaigns", "0007_campaign_imported_from"),
    ("judgments", "0005_judgment_given_z"),
    ("analytics", "0004_systemscore_mean_score_null"),
]
DA_FIELDS = (
    "assessment_mode",
    "items_per_hit",
    "degradation",
    "reliability_test",
    "reliability_alpha",
)
RANKING_FIELDS = (
    "outputs_per_set",
    "sets_per_hit",
    "gold_rate",
    "gold_scheme",
    "trust_min_gold",
    "trust_min_accuracy",
    "takedown_untrusted_share",
    "takedown_min_workers",
    "qualification_sets",
    "gold_count",
    "ranking_combination",
    "gold_best_system",
    "gold_worst_system",
)


def _load_into_old_schema(apps, rows: list[dict]) -> None:
    """Insert the dumped rows with the historical models of the old schema (loaddata would
    use today's models). Foreign keys are deferred to the commit, so the order is free."""
    by_model: dict[str, list] = {}
    for label in {row["model"] for row in rows}:
        for field in apps.get_model(label)._meta.concrete_fields:
            # Keep the recorded created_at/updated_at (these historical models are throwaway).
            field.auto_now = field.auto_now_add = False
    for row in rows:
        model = apps.get_model(row["model"])
        values = {}
        for name, value in row["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                continue  # no many-to-many rows in the dump (users' groups are empty)
            if field.is_relation:
                values[field.attname] = value
            else:
                values[name] = field.to_python(value)
        by_model.setdefault(row["model"], []).append(model(pk=row["pk"], **values))
    with transaction.atomic():
        for label, instances in by_model.items():
            apps.get_model(label).objects.bulk_create(instances)


def _reset_sequences() -> None:
    """After inserting explicit pks, let PostgreSQL's sequences continue after them."""
    if connection.vendor != "postgresql":
        return
    from django.apps import apps
    from django.core.management.color import no_style

    models = [m for label in ("auth", "campaigns", "judgments", "analytics")
              for m in apps.get_app_config(label).get_models()]  # fmt: skip
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


def _panel(html: str, section_id: str) -> str:
    start = html.index(f'<section id="{section_id}"')
    end = html.index("</section>", start) + len("</section>")
    return re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]*"', r'\1"', html[start:end])


@pytest.fixture
def migrated_recording(transactional_db):
    """The recording loaded at the old schema and migrated to today's. Afterwards the
    database is back at the newest migrations whatever happened."""
    rows = json.loads((FIXTURES / "db.json").read_text())
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        executor.loader.build_graph()
        _load_into_old_schema(executor.loader.project_state(BEFORE).apps, rows)
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    _reset_sequences()
    return {row["pk"]: row["fields"] for row in rows if row["model"] == "campaigns.campaign"}


def _superuser():
    return get_user_model().objects.create_superuser("checker", "", "x")


def test_every_campaign_keeps_its_kind_settings(migrated_recording):
    old = migrated_recording
    da = DirectAssessmentSettings.objects.get(campaign_id=1)
    assert {name: getattr(da, name) for name in DA_FIELDS} == {
        name: Decimal(old[1][name]) if name == "reliability_alpha" else old[1][name]
        for name in DA_FIELDS
    }
    ranking = RankingSettings.objects.get(campaign_id=2)
    decimals = {"gold_rate", "trust_min_accuracy", "takedown_untrusted_share"}
    stored = {
        name: getattr(ranking, f"{name}_id" if name.startswith("gold_") and "system" in name
                      else name)
        for name in RANKING_FIELDS
    }  # fmt: skip
    assert stored == {
        name: Decimal(old[2][name]) if name in decimals else old[2][name] for name in RANKING_FIELDS
    }
    # The values are the recording's non-defaults, so a lost one would show.
    assert (da.degradation, da.reliability_test, da.reliability_alpha) == (
        "replace",
        "paired_t",
        Decimal("0.100"),
    )
    assert (ranking.outputs_per_set, ranking.gold_scheme, ranking.ranking_combination) == (
        3,
        "best_worst",
        "schulze_peers",
    )
    # Only each campaign's own kind has settings.
    assert not RankingSettings.objects.filter(campaign_id=1).exists()
    assert not DirectAssessmentSettings.objects.filter(campaign_id=2).exists()


def test_the_api_answers_exactly_as_before(migrated_recording):
    expected = json.loads((FIXTURES / "expected.json").read_text())
    client = APIClient()
    client.force_authenticate(_superuser())
    different = []
    for url, body in expected.items():
        response = client.get(url)
        assert response.status_code == 200, url
        if "/export/" in url:
            got = (
                b"".join(response.streaming_content).decode()
                if response.streaming
                else (response.content.decode())
            )
        else:
            got = response.json()
        if got != body:
            different.append(url)
    assert different == []


def test_the_admin_results_panels_read_as_before(migrated_recording):
    expected = json.loads((FIXTURES / "admin_panels.json").read_text())
    client = Client()
    client.force_login(_superuser())
    for url, panel in expected.items():
        html = client.get(url).content.decode()
        section = "da-results" if "/campaign/1/" in url else "ranking-results"
        assert _panel(html, section) == panel, url
