"""build_hits stores the pure builder's plans as Hits and HitSlots."""

from collections import Counter

import pytest
from django.core.exceptions import ValidationError

from campaigns.actions import HitBuildError, build_hits
from campaigns.models import GoldAnswer, HitSlot, MTurkHit, SlotRole, TaskKind
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
    campaign = CampaignFactory(**{"kind": TaskKind.DIRECT_ASSESSMENT, **fields})
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


def test_hits_published_on_mturk_are_never_rebuilt():
    campaign = da_campaign()
    build_hits(campaign)
    MTurkHit.objects.create(
        hit=campaign.hits.first(),
        mturk_hit_id="3PUBLISHEDHIT",
        hit_type_id="3TYPE",
        sandbox=True,
        max_assignments=5,
    )
    before = layout(campaign)
    with pytest.raises(HitBuildError, match="published on MTurk, so they cannot be rebuilt"):
        build_hits(campaign)
    assert layout(campaign) == before


def test_clear_errors_when_hits_cannot_be_built():
    empty = CampaignFactory()
    with pytest.raises(HitBuildError) as caught:
        build_hits(empty)
    assert str(caught.value) == "The campaign has no system outputs yet. Import segments first."

    translation = CampaignFactory(kind=TaskKind.TRANSLATION)
    with pytest.raises(HitBuildError) as caught:
        build_hits(translation)
    assert str(caught.value).startswith("The campaign has no source sentences yet.")

    odd = da_campaign(systems=1, segments=1, items_per_hit=50)
    with pytest.raises(HitBuildError, match="follow the 2014 design of 100 items"):
        build_hits(odd)
    assert odd.hits.count() == 0


def ranking_campaign(systems: int = 6, segments: int = 20, **fields):
    fields = {"kind": TaskKind.RANKING, **fields}
    campaign = da_campaign(systems=systems, segments=segments, **fields)
    return campaign


def test_ranking_sets_show_one_segment_in_different_systems_and_gold_from_answers():
    campaign = ranking_campaign(outputs_per_set=5, sets_per_hit=3)
    for segment in campaign.segments.order_by("position")[:5]:
        best = segment.outputs.order_by("system__name").first()
        GoldAnswer.objects.create(segment=segment, best_output=best)

    hits = build_hits(campaign)

    slots = list(HitSlot.objects.filter(hit__campaign=campaign).select_related("output", "hit"))
    assert hits == campaign.hits.count() and not any(s.hit.is_qualification for s in slots)
    sets: dict[tuple[int, int], list[HitSlot]] = {}
    for slot in slots:
        sets.setdefault((slot.hit_id, slot.group), []).append(slot)
    assert {len(members) for members in sets.values()} == {5}
    assert len({group for _, group in sets}) == 3
    for members in sets.values():
        assert len({slot.segment_id for slot in members}) == 1
        systems = [slot.output.system_id for slot in members if slot.output is not None]
        assert len(systems) == len(set(systems))
    gold = [slot for slot in slots if slot.role == SlotRole.GOLD]
    assert gold, "a 10% gold rate gives gold sets"
    assert {(slot.expected_rank_min, slot.expected_rank_max) for slot in gold} == {(1, 1)}
    golden_segments = set(
        GoldAnswer.objects.filter(segment__campaign=campaign).values_list("segment_id", flat=True)
    )
    assert {slot.segment_id for slot in gold} <= golden_segments
    shown = {slot.output_id for slot in slots if slot.role == SlotRole.SYSTEM}
    assert len(shown) == 6 * 20  # every output is ranked at least once


def test_ranking_gold_is_chosen_from_alternative_references_when_the_best_system_is_named():
    campaign = ranking_campaign(systems=5, segments=12, outputs_per_set=4, gold_count=3)
    for segment in campaign.segments.all():
        segment.references = [segment.references[0], segment.references[0].replace("is", "was")]
        segment.save()
    campaign.ranking_settings.gold_best_system = campaign.systems.get(name="sys0")
    campaign.ranking_settings.save()

    build_hits(campaign)

    gold = HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.GOLD)
    assert gold.exists()
    assert all(slot.shown_text == slot.segment.references[1] for slot in gold)
    assert len({slot.segment_id for slot in gold}) <= 3


def test_ranking_qualification_test_is_one_extra_hit_of_training_sets():
    campaign = ranking_campaign(
        outputs_per_set=4, qualification_required=True, qualification_sets=3
    )
    for segment in campaign.segments.order_by("position")[:8]:
        outputs = list(segment.outputs.order_by("system__name"))
        GoldAnswer.objects.create(segment=segment, best_output=outputs[0], worst_output=outputs[-1])

    regular = build_hits(campaign)

    qualification = campaign.hits.get(is_qualification=True)
    assert campaign.hits.count() == regular + 1
    assert qualification.number == regular + 1
    roles = Counter(qualification.slots.values_list("role", flat=True))
    assert roles == {SlotRole.TRAINING: 3 * 4}
    assert qualification.slots.filter(expected_rank_min=1).count() == 3
    training_segments = set(qualification.slots.values_list("segment_id", flat=True))
    gold_segments = set(
        HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.GOLD).values_list(
            "segment_id", flat=True
        )
    )
    assert not training_segments & gold_segments  # no answer seen in the test comes back


def test_ranking_without_gold_answers_says_what_to_do():
    campaign = ranking_campaign()
    with pytest.raises(HitBuildError) as caught:
        build_hits(campaign)
    # The checklist's own message (campaigns/kinds/ranking/gold.py), word for word.
    assert str(caught.value) == (
        "The gold rate is 10% but the campaign has no gold answers and no gold best system. "
        "Give gold answers per segment (Gold answers: add them, or import a file of them), or "
        "choose the gold best system in the ranking settings so that gold translations are "
        "chosen from the segments' alternative references (Paul et al. 2013), or set the gold "
        "rate to 0."
    )
    campaign.ranking_settings.gold_rate = 0
    campaign.ranking_settings.save()
    assert build_hits(campaign) > 0
    assert not HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.GOLD).exists()


def test_ranking_set_size_cannot_exceed_the_number_of_systems():
    campaign = ranking_campaign(systems=4, segments=2, outputs_per_set=5)
    with pytest.raises(ValidationError) as caught:
        campaign.ranking_settings.full_clean()
    assert caught.value.message_dict["outputs_per_set"] == [
        "A ranking set shows outputs of different systems, and this campaign has 4; use at most 4."
    ]
