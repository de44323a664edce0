"""Post-editing HITs in the database: the builder, who is handed which HIT, and the
verification HITs built from submitted edits (issue 13 items 2 and 4)."""

from collections import Counter

import pytest
from django.utils import timezone

from campaigns.actions import build_hits
from campaigns.kinds import HitBuildError
from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import Hit, HitSlot, HitTask, SlotRole, TaskKind
from judgments.actions import NoWorkReason, next_assignment_for
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db


def pe_campaign(doc_lengths=(4,), n_systems=2, redundancy=2, **settings):
    campaign = CampaignFactory(
        kind=TaskKind.POST_EDITING, redundancy=redundancy, hit_seed=5, **settings
    )
    systems = [SystemFactory(campaign=campaign, name=f"sys{i}") for i in range(n_systems)]
    for d, length in enumerate(doc_lengths, start=1):
        document = DocumentFactory(campaign=campaign, external_id=f"d{d}", position=d)
        for p in range(1, length + 1):
            segment = SegmentFactory(
                document=document, external_id=str(p), position=p, references=[f"ref {d}.{p}"]
            )
            for system in systems:
                OutputFactory(segment=segment, system=system, text=f"{system.name} {d}.{p}")
    return campaign


def submit_all(assignment, text="edited"):
    """Store an edit for every slot and submit the assignment (as the page would)."""
    for slot in assignment.hit.slots.order_by("position"):
        Judgment.objects.create(
            campaign=assignment.campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            text=f"{text} {slot.shown_text}",
        )
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.save()


def test_build_hits_stores_a_latin_square_per_run():
    campaign = pe_campaign(doc_lengths=(12,), n_systems=3, segments_per_hit=10)

    assert build_hits(campaign) == 6  # two runs of 6 segments, one HIT per system

    hits = list(Hit.objects.filter(campaign=campaign).order_by("number"))
    assert [h.task for h in hits] == [HitTask.POST_EDIT] * 6
    assert all(h.places is None for h in hits)
    slots = HitSlot.objects.filter(hit__campaign=campaign)
    assert slots.count() == 36  # every output once
    assert set(slots.values_list("role", flat=True)) == {SlotRole.SYSTEM}
    assert Counter(slots.values_list("group", flat=True)) == {1: 18, 2: 18}
    for slot in slots.select_related("output"):
        assert slot.shown_text == slot.output.text
        assert slot.segment_id == slot.output.segment_id


def test_build_hits_without_outputs_says_to_import_segments():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)
    with pytest.raises(HitBuildError, match="no system outputs yet. Import segments first"):
        build_hits(campaign)


def test_a_worker_is_never_handed_a_second_hit_of_a_run():
    campaign = pe_campaign(doc_lengths=(4, 4), n_systems=2, redundancy=2)
    build_hits(campaign)  # runs 1 and 2, two HITs each: numbers 1-2 (run 1), 3-4 (run 2)
    worker = WorkerFactory()

    first = next_assignment_for(worker, campaign).assignment
    assert first.hit.number == 1
    submit_all(first)
    second = next_assignment_for(worker, campaign).assignment
    assert second.hit.number == 3  # HIT 2 shows the same segments: skipped
    submit_all(second)

    # HITs 2 and 4 are left, both of runs the worker has edited: nothing for them.
    assert next_assignment_for(worker, campaign).reason == NoWorkReason.ALL_DONE
    assert next_assignment_for(WorkerFactory(), campaign).assignment.hit.number == 1


def test_a_run_of_s_systems_takes_s_times_redundancy_distinct_workers():
    campaign = pe_campaign(doc_lengths=(3,), n_systems=2, redundancy=2)
    build_hits(campaign)
    workers = [WorkerFactory() for _ in range(5)]
    hits_given = [next_assignment_for(w, campaign).assignment for w in workers[:4]]
    assert [a.hit.number for a in hits_given] == [1, 1, 2, 2]
    assert next_assignment_for(workers[4], campaign).reason == NoWorkReason.ALL_TAKEN
    # Every output now has two distinct editors and no worker has two outputs of a segment.
    editors = Counter()
    for assignment in hits_given:
        for output_id in assignment.hit.slots.values_list("output_id", flat=True):
            editors[output_id] += 1
    assert set(editors.values()) == {2}


def test_an_expired_edit_hit_comes_back_to_its_worker():
    campaign = pe_campaign(doc_lengths=(3,), n_systems=2, redundancy=1)
    build_hits(campaign)
    worker = WorkerFactory()
    first = next_assignment_for(worker, campaign).assignment
    Assignment.objects.filter(pk=first.pk).update(status=AssignmentStatus.EXPIRED)

    again = next_assignment_for(worker, campaign).assignment
    assert again.pk == first.pk  # reactivated, the same HIT of the same run


def test_verification_hits_are_built_once_per_submitted_edit_assignment():
    campaign = pe_campaign(doc_lengths=(3,), n_systems=2, redundancy=1, verifiers_per_edit=3)
    build_hits(campaign)
    editor, other, started_only = WorkerFactory(), WorkerFactory(), WorkerFactory()
    done = next_assignment_for(editor, campaign).assignment
    submit_all(done, text="fixed")
    open_one = next_assignment_for(started_only, campaign).assignment  # HIT 2, not submitted

    assert build_verification_hits(campaign) == 1
    assert build_verification_hits(campaign) == 0  # idempotent

    verify = Hit.objects.get(campaign=campaign, task=HitTask.VERIFY_EDIT)
    assert (verify.number, verify.places) == (3, 3)
    slots = list(verify.slots.order_by("position"))
    edits = list(Judgment.objects.filter(assignment=done).order_by("slot__position"))
    assert [s.about_judgment_id for s in slots] == [e.pk for e in edits]
    assert [s.shown_text for s in slots] == [e.text for e in edits]
    assert [s.segment_id for s in slots] == [e.slot.segment_id for e in edits]
    assert [s.output_id for s in slots] == [e.slot.output_id for e in edits]
    assert all(s.shown_text.startswith("fixed ") for s in slots)
    assert open_one.status == AssignmentStatus.STARTED

    # The editor never gets their own edit to verify; another worker gets it first.
    assert next_assignment_for(other, campaign).assignment.hit == verify
    # The editor's other choices: HIT 2 is of their run; the verification HIT holds their
    # own edits.
    assert next_assignment_for(editor, campaign).reason == NoWorkReason.ALL_DONE


def test_a_verification_hit_takes_its_own_number_of_workers():
    campaign = pe_campaign(doc_lengths=(2,), n_systems=1, redundancy=1, verifiers_per_edit=2)
    build_hits(campaign)
    editor = WorkerFactory()
    submit_all(next_assignment_for(editor, campaign).assignment)
    build_verification_hits(campaign)
    verify = Hit.objects.get(campaign=campaign, task=HitTask.VERIFY_EDIT)

    verifiers = [WorkerFactory() for _ in range(3)]
    given = [next_assignment_for(w, campaign) for w in verifiers]
    assert [g.assignment.hit for g in given[:2]] == [verify, verify]
    assert given[2].assignment is None  # two places, both taken; the edit HIT is full too


def test_rejected_and_unfinished_edits_get_no_verification_hit():
    campaign = pe_campaign(doc_lengths=(2,), n_systems=2, redundancy=1)
    build_hits(campaign)
    a, b = WorkerFactory(), WorkerFactory()
    rejected = next_assignment_for(a, campaign).assignment
    submit_all(rejected)
    Assignment.objects.filter(pk=rejected.pk).update(status=AssignmentStatus.REJECTED)
    next_assignment_for(b, campaign)  # started, nothing submitted

    assert build_verification_hits(campaign) == 0
    assert not Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT).exists()


def test_verification_builder_leaves_other_kinds_alone():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    assert build_verification_hits(campaign) == 0


def test_imported_post_edits_get_no_verification_hits():
    campaign = pe_campaign(doc_lengths=(2,), n_systems=1, redundancy=1, imported_from="post-edits")
    build_hits(campaign)
    submit_all(next_assignment_for(WorkerFactory(), campaign).assignment)

    assert build_verification_hits(campaign) == 0
    assert not Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT).exists()
