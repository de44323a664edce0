"""The HIT's slots read with the assignment (PostgreSQL: one JSON column of the assignment's
statement, judgments.actions.hot_sql.JsonHitSlots) equal the slots' own query (SQLite's path,
hot_sql.HitSlots): the same keys in position order, the same answered set, and the same slot
and segment for every unanswered slot, text with markup and references included.

Needs PostgreSQL (``postgres_required``: skipped locally without it, failed in CI).
"""

from __future__ import annotations

import pytest

from judgments.actions import hot_sql
from judgments.actions.state import _progress
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    SegmentFactory,
)

pytestmark = pytest.mark.django_db


def _fields(instance) -> dict:
    return {
        field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields
    }


def test_slots_read_with_the_assignment_equal_the_slots_query(postgres_required):
    hit = HitFactory()
    slots = []
    for position in (3, 1, 2, 4):  # created out of order: both read in position order
        segment = SegmentFactory(
            document__campaign=hit.campaign,
            source=f"<b>Source</b> & {position} \u00e9\u4e2d",
            references=[f"Ref {position}", {"nested": [position]}],
        )
        slots.append(
            HitSlotFactory(
                hit=hit,
                position=position,
                segment=segment,
                output__segment=segment,
                shown_text=f"<script>x</script> {position}",
            )
        )
    assignment = AssignmentFactory(hit=hit)
    answered = next(slot for slot in slots if slot.position == 1)
    JudgmentFactory(assignment=assignment, slot=answered, score=50)

    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert isinstance(from_json, hot_sql.JsonHitSlots)
    from_query = hot_sql.load_slots(loaded)  # read once: the second call queries
    assert isinstance(from_query, hot_sql.HitSlots)

    assert (
        from_json.keys
        == from_query.keys
        == [
            (slot.pk, slot.position, slot.group) for slot in sorted(slots, key=lambda s: s.position)
        ]
    )
    assert from_json.answered == from_query.answered == {answered.pk}
    for slot in slots:
        if slot.pk == answered.pk:
            continue
        json_slot, query_slot = from_json.slot(slot.pk), from_query.slot(slot.pk)
        assert _fields(json_slot) == _fields(query_slot) == _fields(slot)
        assert _fields(json_slot.segment) == _fields(query_slot.segment) == _fields(slot.segment)
        assert json_slot.hit is loaded.hit


def test_a_submission_answers_the_next_slot_of_the_json_progress(postgres_required):
    hit = HitFactory()
    for position in (1, 2):
        HitSlotFactory(hit=hit, position=position)
    assignment = AssignmentFactory(hit=hit)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    progress = _progress(loaded)
    assert isinstance(progress.slots, hot_sql.JsonHitSlots)
    assert [unit.key for unit in progress.units] == [1, 2]
    assert progress.next.key == 1


def test_slots_past_the_first_unanswered_ones_are_read_in_one_query(
    postgres_required, monkeypatch, django_assert_num_queries
):
    # Only the first SLOTS_WITH_COLUMNS unanswered slots come with their columns; a page
    # showing more (a ranking page of many sets) reads all the others in one query.
    monkeypatch.setattr(hot_sql, "SLOTS_WITH_COLUMNS", 2)
    monkeypatch.setattr(hot_sql, "_assignment_selects", {})
    hit = HitFactory()
    slots = [HitSlotFactory(hit=hit, position=position) for position in (1, 2, 3, 4, 5)]
    assignment = AssignmentFactory(hit=hit)
    JudgmentFactory(assignment=assignment, slot=slots[0], score=10)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert sorted(from_json._columns) == [slots[1].pk, slots[2].pk]
    with django_assert_num_queries(1):
        read = [from_json.slot(slot.pk) for slot in slots[1:]]
    for slot, got in zip(slots[1:], read, strict=True):
        assert _fields(got) == _fields(slot)
        assert _fields(got.segment) == _fields(slot.segment)
        assert got.hit is loaded.hit


def test_a_da_hit_sends_the_columns_of_the_two_next_slots_only(postgres_required):
    # A DA page shows one item: a submission answers it and shows the next, so the columns
    # of two unanswered slots come with the assignment (spec.slots_per_page 1), not 32.
    hit = HitFactory(task="assess")
    slots = [HitSlotFactory(hit=hit, position=position) for position in range(1, 8)]
    assignment = AssignmentFactory(hit=hit)
    JudgmentFactory(assignment=assignment, slot=slots[0], score=10)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert sorted(from_json._columns) == [slots[1].pk, slots[2].pk]
    assert from_json.keys == [(slot.pk, slot.position, slot.group) for slot in slots]
    assert from_json.answered == {slots[0].pk}
    assert _fields(from_json.slot(slots[1].pk).segment) == _fields(slots[1].segment)


def test_a_ranking_hit_sends_the_columns_of_up_to_32_next_slots(postgres_required):
    # Ranking's spec says nothing of its page (sets per page are the campaign's): the default.
    hit = HitFactory(task="rank")
    slots = [HitSlotFactory(hit=hit, position=position) for position in range(1, 36)]
    assignment = AssignmentFactory(hit=hit)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert hot_sql.SLOTS_WITH_COLUMNS == 32
    assert sorted(from_json._columns) == [slot.pk for slot in slots[:32]]


def test_a_slot_without_a_segment_comes_with_no_segment(postgres_required):
    hit = HitFactory(task="assess")
    slot = HitSlotFactory(hit=hit, position=1, segment=None)
    assignment = AssignmentFactory(hit=hit)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert list(from_json._columns) == [slot.pk]
    read = from_json.slot(slot.pk)
    assert _fields(read) == _fields(slot)
    assert read.segment is None


def test_a_hit_without_slots_or_answers_reads_as_empty(postgres_required):
    # PostgreSQL aggregates no rows into NULL: no keys, nothing answered, no columns.
    assignment = AssignmentFactory(hit=HitFactory())
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    assert isinstance(from_json, hot_sql.JsonHitSlots)
    assert (from_json.keys, from_json.answered, from_json._columns) == ([], set(), {})


def test_nothing_answered_yet_sends_the_first_slots_columns(postgres_required):
    hit = HitFactory(task="assess")
    slots = [HitSlotFactory(hit=hit, position=position, group=1) for position in (2, 1, 3)]
    assignment = AssignmentFactory(hit=hit)
    loaded = hot_sql.load_assignment(assignment.pk, assignment.worker_id, lock=False)
    from_json = hot_sql.load_slots(loaded)
    in_order = sorted(slots, key=lambda slot: slot.position)
    assert from_json.keys == [(slot.pk, slot.position, 1) for slot in in_order]
    assert from_json.answered == set()
    assert sorted(from_json._columns) == sorted(slot.pk for slot in in_order[:2])


def test_a_slot_and_its_segment_fit_one_json_build_array():
    # PostgreSQL's json_build_array takes at most 100 arguments: a slot sent with columns is
    # one call over the slot's and its segment's columns (hot_sql._slots_json).
    assert len(hot_sql._SLOT_FIELDS) + len(hot_sql._SEGMENT_FIELDS) <= 100
