"""The assignment's statement (judgments.actions.hot_sql.load_assignment) gives back the
assignment, its HIT, its campaign and every kind's settings exactly as the ORM reads them: on
PostgreSQL each model travels as one JSON column (hot_sql._JsonColumns), and decimals (whole
or not), booleans, text, keys, aware datetimes (microseconds, NULL) and JSON documents (floats
included) must come out as the same Python values, types and time zones as psycopg2's own
columns.

The PostgreSQL cases need PostgreSQL (``postgres_required``: skipped locally without it,
failed in CI); the SQLite path reads plain columns and is checked on every backend.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import connection, models
from django.test.utils import isolate_apps

from campaigns.kinds import registry
from campaigns.models import Campaign, Hit
from judgments.actions import hot_sql
from judgments.models import Assignment
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory

pytestmark = pytest.mark.django_db

KINDS_WITH_SETTINGS = [kind.kind for kind in registry if kind.settings_model is not None]


def _typed_fields(instance) -> dict:
    """Each concrete field's value with its type (Decimal('1') and 1 differ here) and, for a
    datetime, its time zone's offset."""
    return {
        field.attname: (type(value).__name__, value, getattr(value, "tzinfo", None))
        for field in instance._meta.concrete_fields
        for value in [getattr(instance, field.attname)]
    }


def _settings_values(model) -> dict:
    """Values other than the defaults for every decimal (one with a fraction, one whole) and
    boolean, so that a JSON round trip that changed a type or a digit would show."""
    values = {}
    for number, field in enumerate(model._meta.concrete_fields):
        if field.primary_key or field.is_relation:
            continue
        if isinstance(field, models.DecimalField):
            whole = number % 2 == 0
            values[field.attname] = (
                Decimal(1) if whole else Decimal(1) / Decimal(10**field.decimal_places)
            )
        elif isinstance(field, models.BooleanField):
            values[field.attname] = not field.get_default()
    return values


@pytest.mark.parametrize("kind", KINDS_WITH_SETTINGS)
def test_every_kinds_settings_read_with_the_assignment_equal_the_orms(kind):
    implementation = registry[kind]
    campaign = CampaignFactory(kind=kind, **_settings_values(implementation.settings_model))
    assignment = AssignmentFactory(hit=HitFactory(campaign=campaign))

    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)

    fresh = Campaign.objects.get(pk=campaign.pk)
    expected = getattr(fresh, implementation.settings_accessor)
    got = getattr(loaded.campaign, implementation.settings_accessor)
    assert _typed_fields(got) == _typed_fields(expected)
    assert got.campaign is loaded.campaign
    # Every other kind's settings read as missing, as select_related would cache them.
    for other in registry:
        if other.settings_model is not None and other.kind != kind:
            with pytest.raises(other.settings_model.DoesNotExist):
                getattr(loaded.campaign, other.settings_accessor)


def test_the_assignment_its_hit_and_campaign_equal_the_orms():
    campaign = CampaignFactory(
        reward=Decimal("0.10"),
        qualification_pass_mark=Decimal("0.800"),
        mturk_locales=[{"Country": "US", "weight": 0.1, "nested": [1.5, None, "x<&>"]}],
    )
    hit = HitFactory(campaign=campaign, reward=Decimal("1.00"))
    served = datetime(2026, 11, 27, 8, 31, 28, 122442, tzinfo=UTC)
    assignment = AssignmentFactory(
        hit=hit, current_served_at=served, submitted_at=None, review_feedback='\u00e9 "q" \\ \u4e2d'
    )

    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)

    assert _typed_fields(loaded) == _typed_fields(Assignment.objects.get(pk=assignment.pk))
    assert _typed_fields(loaded.hit) == _typed_fields(Hit.objects.get(pk=hit.pk))
    assert _typed_fields(loaded.campaign) == _typed_fields(Campaign.objects.get(pk=campaign.pk))
    assert loaded.current_served_at == served
    assert loaded.campaign.mturk_locales[0]["weight"] == 0.1
    assert loaded.hit.campaign is loaded.campaign


def test_on_postgresql_each_model_is_one_json_column(postgres_required):
    select = hot_sql._assignment_select(connection)
    packed = [select.assignment, select.hit, select.campaign] + [
        columns for _, columns in select.settings
    ]
    assert [type(columns) for columns in packed] == [hot_sql._JsonColumns] * (
        3 + len(KINDS_WITH_SETTINGS)
    )
    # One column each, in that order, then the slots' JSON.
    assert [columns.start for columns in packed] == list(range(len(packed)))
    assert select.slots_index == len(packed)


@isolate_apps("judgments")  # a model of the test's own, not in the app registry
def test_a_field_json_would_change_keeps_its_own_columns(postgres_required):
    class Dated(models.Model):
        day = models.DateField()  # JSON would give the text "2026-11-27"

        class Meta:
            app_label = "judgments"
            managed = False

    assert hot_sql._json_columns(Dated, "t", 0, connection) is None
    assert isinstance(hot_sql._packed_or_columns(Dated, "t", 0, connection), hot_sql._Columns)
