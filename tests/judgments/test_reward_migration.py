"""Migrations campaigns 0021 and judgments 0009: assignments made before them get the reward
they were most likely taken at, MTurk HITs the reward they were published with; imported
judgments keep none. Both reverse."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [
    ("campaigns", "0020_output_system_id_covering_index"),
    ("judgments", "0008_handout_frontier"),
]
AFTER = [
    ("campaigns", "0021_mturk_hit_reward_and_verification_reward"),
    ("judgments", "0009_assignment_reward"),
]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_schema(transactional_db):
    try:
        yield _migrate(BEFORE)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_assignments_get_the_reward_they_were_taken_at(old_schema):
    apps = old_schema
    Campaign = apps.get_model("campaigns", "Campaign")
    Hit = apps.get_model("campaigns", "Hit")
    MTurkHit = apps.get_model("campaigns", "MTurkHit")
    Worker = apps.get_model("judgments", "Worker")
    Assignment = apps.get_model("judgments", "Assignment")
    campaign = Campaign.objects.create(name="old", kind="direct_assessment", reward="0.50")
    plain, own, published = (
        Hit.objects.create(campaign=campaign, task="assess", number=1),
        Hit.objects.create(campaign=campaign, task="assess", number=2, reward="0.20"),
        Hit.objects.create(campaign=campaign, task="assess", number=3),
    )
    MTurkHit.objects.create(
        hit=published, mturk_hit_id="3OLD", hit_type_id="T", sandbox=False, max_assignments=3
    )
    later = timezone.now() + timedelta(hours=1)
    taken = {}
    for name, hit, platform in (
        ("plain", plain, "direct"),
        ("own", own, "prolific"),
        ("published", published, "mturk"),
        ("imported", plain, "imported"),
    ):
        worker = Worker.objects.create(platform=platform, external_id=name)
        taken[name] = Assignment.objects.create(
            campaign=campaign, hit=hit, worker=worker, expires_at=later, status="submitted"
        ).pk

    apps = _migrate(AFTER)

    stored = dict(apps.get_model("judgments", "Assignment").objects.values_list("pk", "reward"))
    assert {name: stored[pk] for name, pk in taken.items()} == {
        "plain": Decimal("0.50"),
        "own": Decimal("0.20"),
        "published": Decimal("0.50"),
        "imported": None,
    }
    assert apps.get_model("campaigns", "MTurkHit").objects.get().reward == Decimal("0.50")

    # Reversible: the columns go, and come back filled the same way.
    apps = _migrate(BEFORE)
    fields = {f.name for f in apps.get_model("judgments", "Assignment")._meta.get_fields()}
    assert "reward" not in fields
    apps = _migrate(AFTER)
    assert apps.get_model("judgments", "Assignment").objects.get(pk=taken["own"]).reward == (
        Decimal("0.20")
    )
