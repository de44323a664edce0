"""evalsite.subquery_counts: related rows counted per outer row in one query, zero included."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import OuterRef
from django.test.utils import CaptureQueriesContext

from campaigns.kinds import new_campaign
from campaigns.models import Campaign, System
from evalsite.subquery_counts import correlated_count, related_count

pytestmark = pytest.mark.django_db


def _campaign(name: str, systems: list[str]) -> Campaign:
    campaign = new_campaign(
        name=name,
        kind="direct_assessment",
        settings={"assessment_mode": "adequacy"},
        source_language="de",
        target_language="en",
    ).save()
    for system in systems:
        System.objects.create(campaign=campaign, name=system)
    return campaign


def test_each_row_gets_its_count_in_one_query_and_none_is_zero():
    three, none = _campaign("three", ["a", "b", "c"]), _campaign("none", [])
    with CaptureQueriesContext(connection) as queries:
        counts = dict(Campaign.objects.annotate(n=related_count(System)).values_list("pk", "n"))
    assert counts == {three.pk: 3, none.pk: 0}
    assert len(queries) == 1
    assert "COUNT(*)" in queries[0]["sql"]


def test_a_filtered_count_counts_only_the_rows_it_keeps():
    campaign = _campaign("some", ["keep-1", "keep-2", "drop"])
    kept = System.objects.filter(campaign=OuterRef("pk"), name__startswith="keep")
    row = Campaign.objects.annotate(n=correlated_count(kept, "campaign")).get(pk=campaign.pk)
    assert row.n == 2
