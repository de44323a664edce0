"""Structural rules of the campaign model, enforced by the database and by clean()."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from campaigns.kinds import new_campaign
from campaigns.models import AssessmentMode, HitSlot, Output, SlotRole, TaskKind
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db


def assert_rejected_by_database(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_campaign_names_are_unique():
    CampaignFactory(name="WMT26 de-en")
    assert_rejected_by_database(lambda: CampaignFactory(name="WMT26 de-en"))


def test_direct_assessment_campaign_needs_a_mode_in_the_database():
    # The mode lives in the kind's settings row (campaigns/kinds/direct_assessment/models.py).
    assert_rejected_by_database(
        lambda: CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, assessment_mode="")
    )


def test_unknown_kind_is_rejected_by_the_database():
    assert_rejected_by_database(lambda: CampaignFactory(kind="pairwise-magic"))


def test_redundancy_zero_is_rejected_by_the_database():
    assert_rejected_by_database(lambda: CampaignFactory(redundancy=0))


def test_clean_explains_kind_dependent_rules():
    # The kind's settings are validated with the campaign (new_campaign(...).full_clean());
    # a direct-assessment mode is a required choice of its settings model.
    campaign = new_campaign(
        kind=TaskKind.DIRECT_ASSESSMENT,
        settings={"assessment_mode": "", "items_per_hit": 95},
        name="x",
        source_language="de",
        target_language="en",
    )
    with pytest.raises(ValidationError) as caught:
        campaign.full_clean()
    assert caught.value.message_dict["assessment_mode"] == [
        "Choose fluency or adequacy for direct assessment."
    ]
    # The HIT builder's own rule (campaigns.builders.direct_assessment.hit_size_problem).
    assert caught.value.message_dict["items_per_hit"] == [
        "Direct-assessment HITs follow the 2014 design of 100 items (10 sets of 10: 70 system "
        "outputs, 10 bad references, 10 repeats and 10 references, each control at least 40 "
        "items from the output it checks), so 'Items per hit' must be 100, not 95."
    ]


def test_clean_rejects_a_mode_on_a_ranking_campaign_and_bad_language_codes():
    # A ranking campaign has no mode at all: its settings model has no such field.
    with pytest.raises(TypeError, match="assessment_mode"):
        new_campaign(
            kind=TaskKind.RANKING,
            settings={"assessment_mode": AssessmentMode.FLUENCY},
            name="x",
            source_language="de",
            target_language="en",
        )
    campaign = new_campaign(
        kind=TaskKind.RANKING, name="x", source_language="German", target_language="en"
    )
    with pytest.raises(ValidationError) as caught:
        campaign.full_clean()
    assert caught.value.message_dict["source_language"] == [
        "Use a language code such as 'en', 'de', 'zh-Hans' or 'pt-BR'."
    ]


def test_ranking_set_size_is_bounded_two_to_ten():
    campaign = new_campaign(
        kind=TaskKind.RANKING,
        settings={"outputs_per_set": 11},
        name="x",
        source_language="de",
        target_language="en",
    )
    with pytest.raises(ValidationError) as caught:
        campaign.full_clean()
    assert caught.value.message_dict["outputs_per_set"] == [
        "Ensure this value is less than or equal to 10."
    ]


def test_system_names_are_unique_within_a_campaign_only():
    system = SystemFactory(name="Lindenbaum")
    SystemFactory(name="Lindenbaum")  # another campaign: fine
    assert_rejected_by_database(lambda: SystemFactory(name="Lindenbaum", campaign=system.campaign))


def test_segment_ids_and_positions_are_unique_within_a_document():
    document = DocumentFactory()
    SegmentFactory(document=document, external_id="1", position=1)
    assert_rejected_by_database(
        lambda: SegmentFactory(document=document, external_id="1", position=2)
    )
    assert_rejected_by_database(
        lambda: SegmentFactory(document=document, external_id="2", position=1)
    )


def test_one_output_per_system_and_segment():
    output = OutputFactory()
    assert_rejected_by_database(
        lambda: Output.objects.create(system=output.system, segment=output.segment, text="again")
    )


def test_output_clean_rejects_a_system_of_another_campaign():
    output = OutputFactory.build(segment=SegmentFactory(), system=SystemFactory())
    with pytest.raises(ValidationError) as caught:
        output.full_clean()
    assert caught.value.messages == ["The system and the segment belong to different campaigns."]


def test_segment_references_must_be_non_empty_texts():
    segment = SegmentFactory.build(document=DocumentFactory(), references=["fine", "  "])
    segment.campaign = segment.document.campaign
    with pytest.raises(ValidationError) as caught:
        segment.full_clean()
    assert caught.value.message_dict["references"] == [
        "References must be a list of non-empty texts."
    ]
    assert SegmentFactory.build(references=["main", "alternative"]).reference == "main"


def test_hit_numbers_and_slot_positions_are_unique():
    hit = HitFactory()
    assert_rejected_by_database(lambda: HitFactory(campaign=hit.campaign, number=hit.number))
    slot = HitSlotFactory(hit=hit, position=1)
    assert_rejected_by_database(lambda: HitSlotFactory(hit=hit, position=1))
    assert slot.role == SlotRole.SYSTEM


def test_a_slot_cannot_control_itself():
    slot = HitSlotFactory()
    slot.controls_id = slot.pk
    assert_rejected_by_database(lambda: slot.save())


def test_a_slot_may_only_control_a_slot_of_its_own_hit():
    first = HitSlotFactory()
    other = HitSlotFactory()
    repeat = HitSlot(
        hit=other.hit,
        position=99,
        role=SlotRole.REPEAT,
        output=first.output,
        segment=first.segment,
        shown_text=first.shown_text,
        controls=first,
    )
    with pytest.raises(ValidationError) as caught:
        repeat.full_clean()
    assert caught.value.message_dict["controls"] == [
        "A slot can only control a slot of its own HIT."
    ]


def test_hit_task_must_belong_to_the_campaign_kind():
    hit = HitFactory.build(campaign=CampaignFactory(), task="rank")
    with pytest.raises(ValidationError) as caught:
        hit.full_clean()
    assert caught.value.message_dict["task"] == [
        "A Direct assessment (slider) campaign has no rank HITs."
    ]
