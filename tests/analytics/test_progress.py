"""One progress computation (analytics.progress) for the admin's panels, the API and the
worker's entry page (issue 17: lowering the redundancy mid-campaign showed "500 of 200
judgments", and the API's places were HITs x redundancy whatever each HIT's own places)."""

from __future__ import annotations

import pytest
from django.db.models import Q

from analytics.kinds.direct_assessment.panel import da_results_context
from analytics.kinds.ranking.panel import ranking_results_context
from analytics.progress import SETS, CampaignProgress, campaign_progress
from campaigns.models import TaskKind
from judgments.models import AssignmentStatus, Judgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
)

pytestmark = pytest.mark.django_db

SLOTS = 4


def _hit(campaign, places=None, slots=SLOTS, groups=None):
    hit = HitFactory(campaign=campaign, places=places)
    for i in range(slots):
        HitSlotFactory(hit=hit, group=(groups[i] if groups else 0))
    return hit


def _judge(hit, status=AssignmentStatus.SUBMITTED, n_slots=None, **values):
    assignment = AssignmentFactory(hit=hit, status=status)
    slots = list(hit.slots.order_by("position"))[: n_slots or None]
    Judgment.objects.bulk_create(
        Judgment(
            campaign=hit.campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            **({"score": 50.0} | values),
        )
        for slot in slots
    )
    return assignment


def test_lowering_redundancy_caps_each_hit_and_explains_the_rest():
    campaign = CampaignFactory(redundancy=5)
    first, second = _hit(campaign), _hit(campaign)
    for _ in range(5):
        _judge(first)  # 5 workers x 4 slots = 20 judgments on the first HIT
    _judge(second, status=AssignmentStatus.STARTED, n_slots=1)
    _judge(second, status=AssignmentStatus.EXPIRED)  # its place is open again: not counted
    assert campaign_progress(campaign) == CampaignProgress(
        hits=2,
        places=10,
        places_taken=6,
        places_done=5,
        units_needed=40,
        units_in=21,
    )

    campaign.redundancy = 2
    campaign.save()
    progress = campaign_progress(campaign)
    # Each HIT needs 4 x 2 = 8: the first counts 8 of its 20 (12 beyond, in 3 assignments),
    # the second 1.
    assert progress == CampaignProgress(
        hits=2,
        places=4,
        places_taken=3,
        places_done=2,
        units_needed=16,
        units_in=9,
        units_beyond=12,
        assignments_beyond=3,
    )
    assert progress.percent == pytest.approx(100 * 9 / 16)
    assert progress.share_done == 0.5
    assert progress.places_open == 1
    assert progress.explanation == (
        "12 judgments in 3 assignments beyond their HITs' places are not counted here: they "
        "were handed out before the redundancy (or a HIT's places) was lowered. They stay "
        "stored and count in the scores."
    )

    # The admin's panel shows the same, never more than needed.
    panel = da_results_context(campaign, include_unreliable=False)["progress"]
    assert (panel.done, panel.needed, panel.percent) == (9, 16, pytest.approx(56.25))
    assert panel.note == progress.explanation


def test_a_hits_own_places_count_instead_of_the_redundancy():
    campaign = CampaignFactory(redundancy=5)
    _hit(campaign, places=3)
    _hit(campaign)
    _hit(campaign, places=1, slots=2)
    qualification = HitFactory(campaign=campaign, is_qualification=True)
    HitSlotFactory(hit=qualification)
    _judge(qualification)  # outside the redundancy: nowhere in the progress
    progress = campaign_progress(campaign)
    assert (progress.hits, progress.places, progress.units_needed) == (3, 9, 12 + 20 + 2)
    assert progress.units_in == 0


def test_a_campaign_without_hits_has_no_share():
    progress = campaign_progress(CampaignFactory())
    assert progress == CampaignProgress()
    assert progress.share_done is None
    assert progress.percent == 0.0
    assert progress.explanation == ""


def test_ranking_counts_sets_per_assignment():
    campaign = CampaignFactory(kind=TaskKind.RANKING, redundancy=3)
    hit = _hit(campaign, slots=6, groups=[1, 1, 1, 2, 2, 2])
    _judge(hit, rank=1)  # both sets
    _judge(hit, n_slots=3, rank=2)  # the first set
    _judge(hit, n_slots=3, score=None)  # no rank given: not judged
    progress = campaign_progress(campaign, unit=SETS, judged=Q(rank__isnull=False))
    assert (progress.units_needed, progress.units_in) == (6, 3)
    campaign.redundancy = 1
    campaign.save()
    panel = ranking_results_context(campaign, include_untrusted=False)["progress"]
    assert (panel.done, panel.needed) == (2, 2)
    assert panel.note.startswith("1 ranking set in 2 assignments beyond")


def test_api_share_never_passes_one_after_lowering(client, django_user_model):
    campaign = CampaignFactory(redundancy=5)
    hit = _hit(campaign)
    for _ in range(5):
        _judge(hit)
    campaign.redundancy = 2
    campaign.save()
    admin = django_user_model.objects.create_superuser("boss", password="pw")
    client.force_login(admin)
    progress = client.get(f"/api/campaigns/{campaign.pk}/").json()["progress"]
    assert progress["done_assignments"] == 5
    assert progress["places"] == 2
    assert progress["places_done"] == 2
    assert progress["share_done"] == 1.0
    assert progress["judgments"] == 20
    assert progress["judgments_needed"] == 8
    assert progress["judgments_counted"] == 8
    assert progress["beyond_places"]["assignments"] == 3
    assert progress["beyond_places"]["judgments"] == 12
    assert "redundancy" in progress["beyond_places"]["note"]
