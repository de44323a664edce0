"""build_hits stores the pure builder's plans as Hits and HitSlots."""

from collections import Counter

import pytest

from campaigns.actions import HitBuildError, build_hits
from campaigns.models import HitSlot, SlotRole, TaskKind
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db


def da_campaign(systems: int = 4, segments: int = 28, **fields):
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, **fields)
    document = DocumentFactory(campaign=campaign)
    system_rows = [SystemFactory(campaign=campaign, name=f"sys{i}") for i in range(systems)]
    for position in range(1, segments + 1):
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position} ist ein deutscher Satz mit mehreren Wörtern.",
            references=[f"Sentence {position} is a reference with several words in it."],
        )
        for system in system_rows:
            OutputFactory(
                segment=segment,
                system=system,
                text=f"Sentence {position} from {system.name} has quite a few words.",
            )
    return campaign


def layout(campaign) -> list[tuple]:
    return list(
        HitSlot.objects.filter(hit__campaign=campaign)
        .order_by("hit__number", "position")
        .values_list(
            "hit__number", "position", "group", "role", "output_id", "shown_text", "controls_id"
        )
    )


def test_direct_assessment_hits_have_the_2014_structure_and_linked_controls():
    campaign = da_campaign()
    assert build_hits(campaign) == 2  # 112 outputs, 70 system items per HIT

    for hit in campaign.hits.all():
        slots = list(hit.slots.select_related("controls"))
        assert [slot.position for slot in slots] == list(range(1, 101))
        assert Counter(slot.role for slot in slots) == {
            SlotRole.SYSTEM: 70,
            SlotRole.BAD_REFERENCE: 10,
            SlotRole.REPEAT: 10,
            SlotRole.REFERENCE: 10,
        }
        assert Counter(slot.group for slot in slots) == {group: 10 for group in range(10)}
        for slot in slots:
            if slot.role == SlotRole.SYSTEM:
                assert slot.controls is None
                assert slot.shown_text == slot.output.text
            else:
                assert slot.controls.hit_id == hit.pk
                assert slot.controls.role == SlotRole.SYSTEM
                assert slot.controls.output_id == slot.output_id
            if slot.role == SlotRole.REPEAT:
                assert slot.shown_text == slot.output.text
            if slot.role == SlotRole.REFERENCE:
                assert slot.shown_text == slot.segment.reference
            if slot.role == SlotRole.BAD_REFERENCE:
                assert slot.shown_text != slot.output.text
    covered = set(
        HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.SYSTEM).values_list(
            "output_id", flat=True
        )
    )
    assert len(covered) == 112


def test_rebuilding_with_the_same_seed_gives_the_same_hits():
    campaign = da_campaign(hit_seed=7)
    build_hits(campaign)
    first = [row[:6] for row in layout(campaign)]
    build_hits(campaign)
    assert [row[:6] for row in layout(campaign)] == first
    campaign.hit_seed = 8
    campaign.save()
    build_hits(campaign)
    assert [row[:6] for row in layout(campaign)] != first


def test_hits_that_a_worker_started_are_never_rebuilt():
    campaign = da_campaign()
    build_hits(campaign)
    AssignmentFactory(hit=campaign.hits.first())
    before = layout(campaign)
    with pytest.raises(HitBuildError, match="Workers have already started this campaign's HITs"):
        build_hits(campaign)
    assert layout(campaign) == before


def test_clear_errors_when_hits_cannot_be_built():
    empty = CampaignFactory()
    with pytest.raises(HitBuildError) as caught:
        build_hits(empty)
    assert str(caught.value) == "The campaign has no system outputs yet. Import segments first."

    ranking = CampaignFactory(kind=TaskKind.RANKING, assessment_mode="")
    with pytest.raises(HitBuildError) as caught:
        build_hits(ranking)
    assert str(caught.value) == "Building HITs for Ranking campaigns is not available yet."

    odd = da_campaign(systems=1, segments=1, items_per_hit=50)
    with pytest.raises(HitBuildError, match="follow the 2014 design of 100 items"):
        build_hits(odd)
    assert odd.hits.count() == 0
