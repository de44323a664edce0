"""Translation HITs in the database (issue 15): the builder, the Detect-MT and correction HITs
built from translations (campaigns/kinds/translation/stages.py) and who is handed which HIT."""

from decimal import Decimal

import pytest
from django.utils import timezone

from campaigns.actions import build_hits
from campaigns.kinds import HitBuildError
from campaigns.kinds.translation.models import TranslationChoice
from campaigns.kinds.translation.stages import (
    build_correction_hits,
    build_detect_mt_hits,
    decided_runs,
)
from campaigns.models import Hit, HitSlot, HitTask, SlotRole, TaskKind
from judgments.actions import NoWorkReason, next_assignment_for
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import CampaignFactory, DocumentFactory, SegmentFactory, WorkerFactory

pytestmark = pytest.mark.django_db


def tr_campaign(doc_lengths=(4,), redundancy=2, **settings):
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION, redundancy=redundancy, **settings)
    for d, length in enumerate(doc_lengths, start=1):
        document = DocumentFactory(campaign=campaign, external_id=f"d{d}", position=d)
        for p in range(1, length + 1):
            SegmentFactory(
                document=document, external_id=str(p), position=p, source=f"Satz {d}.{p}"
            )
    return campaign


def submit(assignment, text="translation", yes_no=None):
    """Answer every slot and submit the assignment (as the page would)."""
    for slot in assignment.hit.slots.order_by("position"):
        Judgment.objects.create(
            campaign=assignment.campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            text="" if yes_no is not None else f"{text} {slot.shown_text}",
            yes_no=yes_no,
            details={"keystrokes": 12, "pastes": 0, "seconds": 3.5} if yes_no is None else {},
        )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.save()
    return assignment


def take(worker, campaign, task):
    assignment = next_assignment_for(worker, campaign).assignment
    assert assignment is not None and assignment.hit.task == task, assignment
    return assignment


# --- build_hits ---------------------------------------------------------------------------


def test_build_hits_stores_one_translation_hit_per_run():
    campaign = tr_campaign(doc_lengths=(12, 3), segments_per_hit=10)

    assert build_hits(campaign) == 3  # 12 -> 6 + 6, then 3

    hits = list(Hit.objects.filter(campaign=campaign).order_by("number"))
    assert [h.number for h in hits] == [1, 2, 3]
    assert {h.task for h in hits} == {HitTask.TRANSLATE}
    assert all(h.places is None and h.reward is None for h in hits)
    assert [h.document.external_id for h in hits] == ["d1", "d1", "d2"]
    slots = list(HitSlot.objects.filter(hit__campaign=campaign).order_by("hit__number", "position"))
    assert len(slots) == 15
    assert {s.role for s in slots} == {SlotRole.SOURCE}
    assert all(s.output_id is None and s.about_judgment_id is None for s in slots)
    assert [s.shown_text for s in slots if s.hit == hits[1]] == [
        f"Satz 1.{p}" for p in range(7, 13)
    ]
    assert [s.position for s in slots if s.hit == hits[1]] == [1, 2, 3, 4, 5, 6]
    assert [s.group for s in slots] == [1] * 6 + [2] * 6 + [3] * 3
    for slot in slots:
        assert slot.shown_text == slot.segment.source
        assert slot.segment.document_id == slot.hit.document_id


def test_same_segments_same_hits_whatever_the_seed():
    campaign = tr_campaign(doc_lengths=(5, 4), segments_per_hit=3)

    def layout():
        return list(
            HitSlot.objects.filter(hit__campaign=campaign)
            .order_by("hit__number", "position")
            .values_list("hit__number", "position", "group", "segment_id", "shown_text")
        )

    build_hits(campaign)
    first = layout()
    campaign.hit_seed = 999
    campaign.save()
    build_hits(campaign)
    assert layout() == first


def test_a_campaign_needs_source_sentences_only():
    with pytest.raises(HitBuildError, match="no source sentences yet. Import segments first"):
        build_hits(CampaignFactory(kind=TaskKind.TRANSLATION))
    # No references, no systems: enough.
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION)
    SegmentFactory(document__campaign=campaign, references=[])
    assert build_hits(campaign) == 1


# --- Detect-MT HITs -----------------------------------------------------------------------


def test_a_detect_mt_hit_per_submitted_translation_assignment():
    campaign = tr_campaign(doc_lengths=(3,), redundancy=2, detect_mt_voters=3)
    campaign.translation_settings.detect_mt_reward = Decimal("0.05")
    campaign.translation_settings.save()
    build_hits(campaign)
    translator, unfinished = WorkerFactory(), WorkerFactory()
    done = submit(take(translator, campaign, HitTask.TRANSLATE), text="hello")
    take(unfinished, campaign, HitTask.TRANSLATE)  # started, not submitted

    assert build_detect_mt_hits(campaign) == 1
    assert build_detect_mt_hits(campaign) == 0  # idempotent

    detect = Hit.objects.get(campaign=campaign, task=HitTask.DETECT_MT)
    assert (detect.number, detect.places, detect.reward) == (2, 3, Decimal("0.05"))
    assert detect.document_id == done.hit.document_id
    slots = list(detect.slots.order_by("position"))
    translations = list(Judgment.objects.filter(assignment=done).order_by("slot__position"))
    assert [s.about_judgment_id for s in slots] == [t.pk for t in translations]
    assert [s.shown_text for s in slots] == [t.text for t in translations]
    assert [s.segment_id for s in slots] == [t.slot.segment_id for t in translations]
    assert [s.group for s in slots] == [t.slot.group for t in translations]
    assert [s.position for s in slots] == [1, 2, 3]
    assert {s.role for s in slots} == {SlotRole.SYSTEM}
    assert all(s.output_id is None for s in slots)
    assert slots[0].shown_text == "hello Satz 1.1"


def test_no_detect_mt_hits_without_voters_for_imports_or_other_kinds():
    campaign = tr_campaign(doc_lengths=(2,), redundancy=1, detect_mt_voters=0)
    build_hits(campaign)
    submit(take(WorkerFactory(), campaign, HitTask.TRANSLATE))
    assert build_detect_mt_hits(campaign) == 0

    imported = tr_campaign(doc_lengths=(2,), redundancy=1, imported_from="translations")
    build_hits(imported)
    submit(take(WorkerFactory(), imported, HitTask.TRANSLATE))
    assert build_detect_mt_hits(imported) == 0

    assert build_detect_mt_hits(CampaignFactory(kind=TaskKind.RANKING)) == 0
    assert not Hit.objects.filter(task=HitTask.DETECT_MT).exists()


def test_rejected_translations_get_no_detect_mt_hit():
    campaign = tr_campaign(doc_lengths=(2,), redundancy=1)
    build_hits(campaign)
    rejected = submit(take(WorkerFactory(), campaign, HitTask.TRANSLATE))
    Assignment.objects.filter(pk=rejected.pk).update(status=AssignmentStatus.REJECTED)
    assert build_detect_mt_hits(campaign) == 0


def test_an_excluded_translator_waits_for_detect_mt_until_readmitted():
    campaign = tr_campaign(doc_lengths=(2,), redundancy=1)
    build_hits(campaign)
    translator = WorkerFactory()
    submit(take(translator, campaign, HitTask.TRANSLATE))
    CampaignWorker.objects.filter(campaign=campaign, worker=translator).update(excluded=True)

    assert build_detect_mt_hits(campaign) == 0

    CampaignWorker.objects.filter(campaign=campaign, worker=translator).update(excluded=False)
    assert build_detect_mt_hits(campaign) == 1


# --- who gets what ------------------------------------------------------------------------


def test_detect_mt_comes_first_and_never_ones_own_translation():
    campaign = tr_campaign(doc_lengths=(2, 2), redundancy=2, detect_mt_voters=2)
    build_hits(campaign)  # HITs 1 (d1) and 2 (d2)
    translator, other = WorkerFactory(), WorkerFactory()
    submit(take(translator, campaign, HitTask.TRANSLATE))
    build_detect_mt_hits(campaign)  # HIT 3, about the translator's translations
    detect = Hit.objects.get(campaign=campaign, task=HitTask.DETECT_MT)

    # Another worker is given the check before any translation HIT.
    assert take(other, campaign, HitTask.DETECT_MT).hit == detect
    # The translator never judges their own translation: a new translation HIT instead.
    assert take(translator, campaign, HitTask.TRANSLATE).hit.number == 2


def test_correction_before_translation_and_never_ones_own():
    campaign = tr_campaign(doc_lengths=(2, 2), redundancy=1, detect_mt_voters=0)
    campaign.translation_settings.correction_pass = True
    campaign.translation_settings.save()
    build_hits(campaign)
    translator, corrector = WorkerFactory(), WorkerFactory()
    done = submit(take(translator, campaign, HitTask.TRANSLATE))
    kept = dict(Judgment.objects.filter(assignment=done).values_list("slot__segment_id", "pk"))
    assert build_correction_hits(campaign, kept) == 1

    assert take(corrector, campaign, HitTask.POST_EDIT).hit.number == 3
    assert take(translator, campaign, HitTask.TRANSLATE).hit.number == 2


def test_a_detect_mt_hit_about_an_excluded_translator_is_handed_to_nobody():
    campaign = tr_campaign(doc_lengths=(2,), redundancy=1, detect_mt_voters=1)
    build_hits(campaign)
    translator, voter = WorkerFactory(), WorkerFactory()
    submit(take(translator, campaign, HitTask.TRANSLATE))
    build_detect_mt_hits(campaign)
    CampaignWorker.objects.filter(campaign=campaign, worker=translator).update(excluded=True)

    assert next_assignment_for(voter, campaign).reason == NoWorkReason.ALL_TAKEN


def test_a_detect_mt_hit_takes_its_own_number_of_voters():
    campaign = tr_campaign(doc_lengths=(2,), redundancy=1, detect_mt_voters=2)
    build_hits(campaign)
    submit(take(WorkerFactory(), campaign, HitTask.TRANSLATE))
    build_detect_mt_hits(campaign)
    voters = [WorkerFactory() for _ in range(3)]
    given = [next_assignment_for(w, campaign).assignment for w in voters]
    assert [a.hit.task for a in given[:2]] == [HitTask.DETECT_MT] * 2
    assert given[2] is None


# --- correction HITs ----------------------------------------------------------------------


def correction_campaign(**settings):
    """Two runs (d1: 2 sentences, d2: 1), two translators each, Detect-MT by 1 voter."""
    campaign = tr_campaign(doc_lengths=(2, 1), redundancy=2, detect_mt_voters=1, **settings)
    campaign.translation_settings.correction_pass = True
    campaign.translation_settings.correctors_per_translation = 2
    campaign.translation_settings.correction_reward = Decimal("0.25")
    campaign.translation_settings.save()
    build_hits(campaign)
    return campaign


def first_translations(campaign):
    """segment id -> the earliest translation's judgment id."""
    kept: dict[int, int] = {}
    for pk, segment_id in (
        Judgment.objects.filter(campaign=campaign, slot__hit__task=HitTask.TRANSLATE)
        .order_by("pk")
        .values_list("pk", "slot__segment_id")
    ):
        kept.setdefault(segment_id, pk)
    return kept


def vote_all(campaign, voter):
    """The voter answers every Detect-MT HIT offered (they come first), then stops."""
    while (assignment := next_assignment_for(voter, campaign).assignment) is not None:
        if assignment.hit.task != HitTask.DETECT_MT:
            assignment.delete()
            break
        submit(assignment, yes_no=False)


def test_correction_hits_wait_for_every_translation_and_vote_of_their_run():
    campaign = correction_campaign()
    a, b, voter = WorkerFactory(), WorkerFactory(), WorkerFactory()
    submit(take(a, campaign, HitTask.TRANSLATE))  # d1 by a
    kept = first_translations(campaign)
    # d1 has one translation of two: not decided, whatever the analytics keep for now.
    assert decided_runs(campaign) == set()
    assert build_correction_hits(campaign, kept) == 0

    submit(take(b, campaign, HitTask.TRANSLATE))  # d1 by b
    kept = first_translations(campaign)
    # Every translation is in, but b's wait for their Detect-MT HIT, then for its vote.
    assert build_correction_hits(campaign, kept) == 0
    build_detect_mt_hits(campaign)
    assert build_correction_hits(campaign, kept) == 0
    vote_all(campaign, voter)
    assert decided_runs(campaign) == {1}

    assert build_correction_hits(campaign, kept) == 1
    assert build_correction_hits(campaign, kept) == 0  # idempotent

    hit = Hit.objects.get(campaign=campaign, task=HitTask.POST_EDIT)
    assert (hit.places, hit.reward, hit.document.external_id) == (2, Decimal("0.25"), "d1")
    assert hit.number == Hit.objects.filter(campaign=campaign).count()
    slots = list(hit.slots.order_by("position"))
    d1 = list(campaign.segments.filter(document__external_id="d1").order_by("position"))
    assert [s.segment_id for s in slots] == [s.pk for s in d1]
    assert [s.about_judgment_id for s in slots] == [kept[s.pk] for s in d1]
    assert [s.shown_text for s in slots] == [Judgment.objects.get(pk=kept[s.pk]).text for s in d1]
    assert {(s.role, s.group, s.output_id) for s in slots} == {(SlotRole.SYSTEM, 1, None)}


def test_no_correction_hit_for_a_run_with_a_sentence_not_kept():
    campaign = correction_campaign()
    for worker in (WorkerFactory(), WorkerFactory()):
        submit(take(worker, campaign, HitTask.TRANSLATE))
    build_detect_mt_hits(campaign)
    vote_all(campaign, WorkerFactory())
    kept = first_translations(campaign)
    d1 = list(campaign.segments.filter(document__external_id="d1").order_by("position"))
    del kept[d1[1].pk]

    assert build_correction_hits(campaign, kept) == 0


def test_no_correction_without_the_pass_or_with_a_foreign_judgment():
    campaign = correction_campaign()
    for worker in (WorkerFactory(), WorkerFactory()):
        submit(take(worker, campaign, HitTask.TRANSLATE))
    build_detect_mt_hits(campaign)
    vote_all(campaign, WorkerFactory())
    kept = first_translations(campaign)
    d1 = list(campaign.segments.filter(document__external_id="d1").order_by("position"))
    swapped = {**kept, d1[0].pk: kept[d1[1].pk]}  # a translation of another sentence
    assert build_correction_hits(campaign, swapped) == 0

    campaign.translation_settings.correction_pass = False
    campaign.translation_settings.save()
    assert build_correction_hits(campaign, kept) == 0
    assert not Hit.objects.filter(campaign=campaign, task=HitTask.POST_EDIT).exists()


def test_the_requesters_choices_make_a_run_decided():
    campaign = correction_campaign()
    submit(take(WorkerFactory(), campaign, HitTask.TRANSLATE))  # d1: one translation of two
    kept = first_translations(campaign)
    for segment_id, judgment_id in kept.items():
        TranslationChoice.objects.create(
            campaign=campaign, segment_id=segment_id, judgment_id=judgment_id
        )

    assert build_correction_hits(campaign, kept) == 1
    hit = Hit.objects.get(campaign=campaign, task=HitTask.POST_EDIT)
    assert {s.group for s in hit.slots.all()} == {1}


def test_detect_mt_comes_before_correction():
    campaign = tr_campaign(doc_lengths=(1, 1), redundancy=1, detect_mt_voters=1)
    campaign.translation_settings.correction_pass = True
    campaign.translation_settings.save()
    build_hits(campaign)
    translator, voter, checker = WorkerFactory(), WorkerFactory(), WorkerFactory()
    submit(take(translator, campaign, HitTask.TRANSLATE))  # d1
    build_detect_mt_hits(campaign)
    vote_all(campaign, voter)
    assert build_correction_hits(campaign, first_translations(campaign)) == 1  # d1's run
    submit(take(translator, campaign, HitTask.TRANSLATE))  # d2
    build_detect_mt_hits(campaign)

    # Both a correction HIT (built first, lower number) and a Detect-MT HIT are open.
    assert take(checker, campaign, HitTask.DETECT_MT).hit.number == 5
    submit(Assignment.objects.get(worker=checker), yes_no=True)
    assert take(checker, campaign, HitTask.POST_EDIT).hit.number == 4
