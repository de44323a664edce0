"""The worker list says when the stored statistics beside the live counts were computed, and
over how many of the worker's judgments (issue 17: it mixed live judgment counts with
statistics computed earlier without saying when)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from analytics.models import CampaignResult, WorkerStat
from judgments.models import Judgment
from tests.analytics.api.test_endpoints import get
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, JudgmentFactory

pytestmark = pytest.mark.django_db


def _iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_judgments_after_the_computation_show_as_live_only(cast, small):
    """Two of the careful worker's judgments are stored after the statistics were computed
    (moved after computed_at): the live count is 26, the statistics reflect 24 of them."""
    result = CampaignResult.objects.get(campaign=cast.campaign)
    later = result.computed_at + timedelta(seconds=5)
    moved = Judgment.objects.filter(assignment=small.careful).order_by("pk")[:2]
    Judgment.objects.filter(pk__in=[j.pk for j in moved]).update(submitted_at=later)

    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/")
    by_id = {row["external_id"]: row for row in data["results"]}
    careful, random_ = by_id["careful"], by_id["random"]
    assert careful["n_judgments"] == 26
    assert careful["statistics"] == {"computed_at": _iso(result.computed_at), "n_judgments": 24}
    # What the stored row itself counted when it was computed: all 26 (it read them before
    # the move), which is why the statistics' count is by time, not read from the row.
    assert (
        WorkerStat.objects.get(campaign=cast.campaign, worker=small.careful.worker).n_judgments
        == 26
    )
    assert random_["n_judgments"] == 26
    assert random_["statistics"] == {"computed_at": _iso(result.computed_at), "n_judgments": 26}
    # The detail endpoint says the same.
    one = get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/{small.careful.worker_id}/")
    assert one["statistics"] == careful["statistics"]


def test_before_the_first_computation_the_statistics_are_null(cast):
    """A campaign whose statistics were never computed: computed_at and the count are null,
    the live count is there."""
    campaign = CampaignFactory(owner=cast.users["owner"])
    hit = HitFactory(campaign=campaign)
    JudgmentFactory(assignment=AssignmentFactory(hit=hit))
    data = get(cast, f"/api/campaigns/{campaign.pk}/workers/", role="owner")
    (row,) = data["results"]
    assert row["n_judgments"] == 1
    assert row["statistics"] == {"computed_at": None, "n_judgments": None}
