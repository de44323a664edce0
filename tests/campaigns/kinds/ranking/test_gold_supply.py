"""The gold step of a ranking campaign's checklist says exactly what the build will say: both
read campaigns/kinds/ranking/gold.py. A requester's report: the checklist called gold done
as soon as the gold best system was chosen, and the build then refused, asking for what was
already done; the real cause (no segment had an alternative reference) was said by neither."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from campaigns.actions import HitBuildError, build_hits
from campaigns.checklist import campaign_checklist
from campaigns.kinds.ranking.checklist import GOLD_BLOCKER
from campaigns.models import GoldAnswer, HitSlot, Output, SlotRole
from tests.campaigns.test_actions import ranking_campaign

pytestmark = pytest.mark.django_db

ANSWERS = "give gold answers per segment (Gold answers: add them, or import a file of them)"


def steps(campaign) -> dict:
    checklist = campaign_checklist(campaign, can_change=True, can_publish_mturk=False)
    return {step.key: step for step in checklist.steps}


def build_error(campaign) -> str:
    with pytest.raises(HitBuildError) as caught:
        build_hits(campaign)
    assert not campaign.hits.exists()
    return str(caught.value)


def assert_refused(campaign, message: str) -> None:
    """The checklist blocks the gold step with ``message``, blocks the build, and the build
    refuses with the same ``message``."""
    shown = steps(campaign)
    assert (shown["quality"].state, shown["quality"].todo) == ("blocked", message)
    assert shown["build"].state == "blocked"
    assert shown["build"].todo == GOLD_BLOCKER
    assert build_error(campaign) == message


def lindenbaum_campaign(segments: int = 20, **fields):
    """20 segments of 6 systems, one reference each (the documented TSV's `reference` only),
    gold rate 10%, and sys0 renamed Lindenbaum and chosen as the gold best system."""
    campaign = ranking_campaign(systems=6, segments=segments, **fields)
    lindenbaum = campaign.systems.get(name="sys0")
    lindenbaum.name = "Lindenbaum"
    lindenbaum.save()
    settings = campaign.ranking_settings
    settings.gold_best_system = lindenbaum
    settings.save()
    return campaign


def add_alternative_references(campaign, positions) -> None:
    for segment in campaign.segments.filter(position__in=positions):
        segment.references = [segment.references[0], segment.references[0].replace("is", "was")]
        segment.save()


def test_no_gold_answers_and_no_best_system():
    campaign = ranking_campaign(systems=6, segments=20)
    assert_refused(
        campaign,
        "The gold rate is 10% but the campaign has no gold answers and no gold best system. "
        "Give gold answers per segment (Gold answers: add them, or import a file of them), or "
        "choose the gold best system in the ranking settings so that gold translations are "
        "chosen from the segments' alternative references (Paul et al. 2013), or set the gold "
        "rate to 0.",
    )


def test_the_best_system_is_chosen_but_no_segment_has_an_alternative_reference():
    # The requester's case: the checklist said done, the build asked for a best system.
    campaign = lindenbaum_campaign()
    assert_refused(
        campaign,
        "The gold rate is 10% and gold translations are to be chosen from alternative "
        'references (gold best system "Lindenbaum"), but none of the campaign\'s 20 segments '
        "has an alternative reference: each has only its main reference (alternative "
        "references are the reference_2, ... columns of a segment file). Give gold answers per "
        "segment (Gold answers: add them, or import a file of them), or set the gold rate to 0.",
    )
    assert steps(campaign)["quality"].summary == (
        "Gold rate 10% of the ranking sets; gold translations chosen from alternative "
        'references (best system "Lindenbaum").'
    )


def test_the_best_system_has_no_output_where_there_are_alternative_references():
    campaign = lindenbaum_campaign()
    add_alternative_references(campaign, [1, 2, 3])
    Output.objects.filter(
        segment__campaign=campaign, segment__position__in=[1, 2, 3], system__name="Lindenbaum"
    ).delete()
    assert_refused(
        campaign,
        "The gold rate is 10% and gold translations are to be chosen from alternative "
        'references, but the gold best system "Lindenbaum" has no output for any of the 3 '
        "segments with an alternative reference, so nothing says a gold translation is better. "
        "Choose a gold best system that translated them, or " + ANSWERS + ", or set the gold "
        "rate to 0.",
    )


def test_no_alternative_reference_is_closer_to_the_reference_than_the_best_output():
    campaign = lindenbaum_campaign()
    add_alternative_references(campaign, [1, 2])
    for output in Output.objects.filter(segment__campaign=campaign, system__name="Lindenbaum"):
        output.text = output.segment.references[0]  # nothing can be closer than the reference
        output.save()
    assert_refused(
        campaign,
        "The gold rate is 10% and gold translations are to be chosen from alternative "
        "references, but in none of the 2 segments with an alternative reference and an output "
        "of the gold best system is an alternative reference closer to the main reference than "
        'the output of "Lindenbaum", so none is known to be better than it (Paul et al. 2013). '
        "Give gold answers per segment (Gold answers: add them, or import a file of them), or "
        "set the gold rate to 0.",
    )


def test_best_and_worst_gold_from_references_needs_a_worst_system():
    campaign = lindenbaum_campaign()
    add_alternative_references(campaign, [1, 2, 3])
    campaign.ranking_settings.gold_scheme = "best_worst"
    campaign.ranking_settings.save()
    assert_refused(
        campaign,
        "The gold rate is 10% with the best-and-worst gold scheme, whose gold sets show a "
        "known-worst output, and no gold worst system is chosen for the gold translations "
        "chosen from alternative references. Choose the gold worst system in the ranking "
        "settings, or choose the best-only gold scheme, or " + ANSWERS + ", or set the gold "
        "rate to 0.",
    )


def test_best_and_worst_gold_needs_outputs_of_the_worst_system():
    campaign = lindenbaum_campaign()
    add_alternative_references(campaign, [1, 2, 3])
    settings = campaign.ranking_settings
    settings.gold_scheme = "best_worst"
    settings.gold_worst_system = campaign.systems.get(name="sys5")
    settings.save()
    Output.objects.filter(
        segment__campaign=campaign, segment__position__in=[1, 2, 3], system__name="sys5"
    ).delete()
    assert_refused(
        campaign,
        "The gold rate is 10% with the best-and-worst gold scheme, and the gold worst system "
        '"sys5" has no output for any of the 3 segments whose alternative reference could be '
        "gold, so no gold set can show a known-worst output. Choose a gold worst system that "
        "translated them, or choose the best-only gold scheme, or "
        + ANSWERS
        + ", or set the gold rate "
        "to 0.",
    )


def test_the_same_system_cannot_be_best_and_worst():
    campaign = lindenbaum_campaign()
    settings = campaign.ranking_settings
    settings.gold_worst_system = settings.gold_best_system
    with pytest.raises(ValidationError) as caught:
        settings.full_clean()
    assert caught.value.message_dict["gold_worst_system"] == [
        "The gold worst system cannot also be the gold best system: choose another one, or none."
    ]
    settings.save()  # as an older campaign may hold it
    assert_refused(
        campaign,
        'The gold rate is 10%, and "Lindenbaum" is both the gold best and the gold worst '
        "system. Choose two different systems in the ranking settings, or set the gold rate "
        "to 0.",
    )


def test_best_and_worst_gold_answers_need_their_worst_outputs():
    campaign = ranking_campaign(systems=6, segments=20, gold_scheme="best_worst")
    for segment in campaign.segments.order_by("position")[:4]:
        outputs = list(segment.outputs.order_by("system__name"))
        worst = outputs[-1] if segment.position % 2 else None
        GoldAnswer.objects.create(segment=segment, best_output=outputs[0], worst_output=worst)
    assert_refused(
        campaign,
        "The gold rate is 10% with the best-and-worst gold scheme, and 2 of the 4 gold answers "
        'give no worst output: segment "2" of document "'
        + campaign.documents.get().external_id
        + '", segment "4" of document "'
        + campaign.documents.get().external_id
        + '". Give each its worst output (Gold answers), or choose the best-only gold scheme in '
        "the ranking settings, or set the gold rate to 0.",
    )


def test_the_qualification_test_needs_units_of_its_own_and_one_more():
    campaign = ranking_campaign(
        systems=6, segments=20, qualification_required=True, qualification_sets=3
    )
    for segment in campaign.segments.order_by("position")[:3]:
        GoldAnswer.objects.create(segment=segment, best_output=segment.outputs.first())
    assert_refused(
        campaign,
        "The qualification test needs 3 gold sets of its own ('Qualification sets') plus at "
        "least one for the gold sets, and the campaign has 3 gold answers. Add gold answers, or "
        "lower 'Qualification sets', or turn the qualification test off.",
    )
    # Without on-the-fly gold the test's own three are enough.
    campaign.ranking_settings.gold_rate = 0
    campaign.ranking_settings.save()
    assert steps(campaign)["quality"].state == "done"
    build_hits(campaign)
    assert campaign.hits.filter(is_qualification=True).count() == 1


def test_a_qualification_test_without_gold_rate_says_so():
    campaign = ranking_campaign(
        systems=6, segments=20, qualification_required=True, qualification_sets=3, gold_rate=0
    )
    assert_refused(
        campaign,
        "The qualification test needs 3 gold sets ('Qualification sets') but the campaign has "
        "no gold answers and no gold best system. Give gold answers per segment (Gold answers: "
        "add them, or import a file of them), or choose the gold best system in the ranking "
        "settings so that gold translations are chosen from the segments' alternative "
        "references (Paul et al. 2013), or turn the qualification test off.",
    )


def test_gold_from_alternative_references_is_done_with_the_sets_it_makes():
    campaign = lindenbaum_campaign(gold_count=3)
    add_alternative_references(campaign, range(1, 21))
    quality = steps(campaign)["quality"]
    assert quality.state == "done"
    assert quality.summary == (
        "Gold rate 10% of the ranking sets; gold translations chosen from alternative "
        'references (best system "Lindenbaum"); the rate makes 5 gold sets from 3 gold units.'
    )
    assert quality.todo == (
        "Each gold unit is shown in 1 or 2 gold sets, so a worker who takes several HITs may "
        "meet the same gold set again. To show each fewer times, raise 'Gold count' or give "
        "gold answers for more segments, or lower the gold rate."
    )
    assert steps(campaign)["build"].state == "next"
    build_hits(campaign)
    gold = HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.GOLD)
    assert gold.count() == 5  # the count the checklist gave
    assert len({slot.segment_id for slot in gold}) == 3


def test_enough_gold_answers_leave_no_note():
    campaign = ranking_campaign(systems=6, segments=20)
    for segment in campaign.segments.order_by("position")[:6]:
        GoldAnswer.objects.create(segment=segment, best_output=segment.outputs.first())
    quality = steps(campaign)["quality"]
    assert (quality.state, quality.todo) == ("done", "")
    assert quality.summary == (
        "Gold rate 10% of the ranking sets; 6 gold answers given; the rate makes 5 gold sets "
        "from 6 gold units."
    )
    assert quality.lines == [
        (
            "Gold answers (6)",
            f"/admin/campaigns/goldanswer/?segment__campaign__id__exact={campaign.pk}",
        ),
        (
            "Import gold answers (doc_id, seg_id, best_system, worst_system)",
            f"/admin/campaigns/campaign/{campaign.pk}/gold-answers/import/",
        ),
    ]


def test_the_gold_step_reads_a_fixed_number_of_queries():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.kinds.ranking.checklist import blockers, quality

    counts = []
    for segments in (10, 30):
        campaign = lindenbaum_campaign(segments)
        add_alternative_references(campaign, range(1, segments + 1))
        with CaptureQueriesContext(connection) as queries:
            quality(campaign, None)
            blockers(campaign, None)
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 8


def test_the_automatic_choice_is_remembered_until_what_it_reads_changes(monkeypatch):
    from django.core.cache import cache

    from campaigns.kinds.ranking import gold
    from campaigns.kinds.ranking.gold import gold_supply

    campaign = lindenbaum_campaign(gold_count=1)
    add_alternative_references(campaign, [1])
    chosen = []
    real = gold.choose_gold_units
    monkeypatch.setattr(
        gold, "choose_gold_units", lambda *args, **kwargs: chosen.append(1) or real(*args, **kwargs)
    )
    cache.clear()
    settings = campaign.ranking_settings
    first = gold_supply(campaign, settings)
    assert gold_supply(campaign, settings) == first
    assert len(chosen) == 1  # the page's second look, and the build, take the kept choice
    segment = campaign.segments.get(position=1)
    segment.references = [segment.references[0], "Sentence 1 was a reference with words."]
    segment.save()
    again = gold_supply(campaign, settings)
    assert len(chosen) == 2
    assert [unit.text for unit in again.units] == ["Sentence 1 was a reference with words."]
