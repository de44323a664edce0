"""The pure post-editing HIT layout (campaigns/builders/post_editing.py, issue 13 item 2)."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.builders.post_editing import (
    PEOutput,
    PESegment,
    build_post_editing_hits,
    run_lengths,
)
from campaigns.builders.problems import BuildProblem


def campaign(doc_lengths, n_systems, missing=()):
    """Segments 1.. in documents of the given lengths; output id = segment * 100 + system."""
    segments, outputs = [], []
    seg = 0
    for doc, length in enumerate(doc_lengths, start=1):
        for pos in range(1, length + 1):
            seg += 1
            segments.append(PESegment(seg, doc, doc, pos))
            for system in range(1, n_systems + 1):
                if (seg, system) not in missing:
                    outputs.append(PEOutput(seg * 100 + system, system, seg, f"s{seg} by {system}"))
    return segments, outputs


@pytest.mark.parametrize(
    ("n", "k", "expected"),
    [
        (10, 10, [10]),
        (12, 10, [6, 6]),
        (21, 10, [7, 7, 7]),
        (23, 10, [8, 8, 7]),
        (3, 15, [3]),
        (16, 15, [8, 8]),
        (1, 1, [1]),
        (0, 10, []),
    ],
)
def test_run_lengths_are_the_fewest_nearly_equal_runs(n, k, expected):
    assert run_lengths(n, k) == expected


def test_run_lengths_refuse_an_empty_hit():
    with pytest.raises(ValueError, match="at least 1"):
        run_lengths(5, 0)


def test_a_run_gives_one_hit_per_system_as_a_latin_square():
    segments, outputs = campaign([4], n_systems=3)
    hits = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=7)
    assert len(hits) == 3
    # Every HIT holds the run's four segments in document order, each once.
    for hit in hits:
        assert [slot.segment_id for slot in hit] == [1, 2, 3, 4]
        assert [slot.position for slot in hit] == [1, 2, 3, 4]
        assert {slot.run for slot in hit} == {1}
    # Every (segment, system) output exactly once over the run's HITs.
    shown = Counter((slot.segment_id, slot.system_id) for hit in hits for slot in hit)
    assert shown == Counter({(s, m): 1 for s in range(1, 5) for m in range(1, 4)})
    # Each HIT gives each system floor(4/3) or ceil(4/3) segments.
    for hit in hits:
        assert sorted(Counter(slot.system_id for slot in hit).values()) == [1, 1, 2]
    # Consecutive segments of a HIT show different systems (the square's rotation).
    for hit in hits:
        systems = [slot.system_id for slot in hit]
        assert all(a != b for a, b in zip(systems, systems[1:], strict=False))
    # The text shown is the output's.
    shown_texts = {slot.shown_text for hit in hits for slot in hit}
    assert shown_texts == {f"s{s} by {m}" for s in range(1, 5) for m in range(1, 4)}


def test_documents_are_cut_into_runs_and_runs_are_numbered_campaign_wide():
    segments, outputs = campaign([12, 3], n_systems=2)
    hits = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=1)
    assert [len(hit) for hit in hits] == [6, 6, 6, 6, 3, 3]
    assert [hit[0].run for hit in hits] == [1, 1, 2, 2, 3, 3]
    assert [slot.segment_id for slot in hits[2]] == [7, 8, 9, 10, 11, 12]
    assert [slot.segment_id for slot in hits[4]] == [13, 14, 15]


def test_a_missing_output_leaves_its_cell_out():
    segments, outputs = campaign([3], n_systems=2, missing={(2, 1)})
    hits = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=3)
    assert sorted(len(hit) for hit in hits) == [2, 3]
    shown = {(slot.segment_id, slot.system_id) for hit in hits for slot in hit}
    assert shown == {(1, 1), (1, 2), (2, 2), (3, 1), (3, 2)}
    short = next(hit for hit in hits if len(hit) == 2)
    assert [slot.position for slot in short] == [1, 2]


def test_same_seed_same_hits_and_another_seed_another_order():
    segments, outputs = campaign([10, 10, 10], n_systems=5)
    first = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=42)
    again = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=42)
    other = build_post_editing_hits(segments, outputs, segments_per_hit=10, seed=43)
    assert first == again
    assert first != other


def test_no_outputs_is_an_error_that_says_what_to_do():
    segments, _ = campaign([3], n_systems=1)
    with pytest.raises(ValueError, match="no system outputs yet. Import segments first"):
        build_post_editing_hits(segments, [], segments_per_hit=10, seed=1)


def test_two_outputs_of_one_system_for_a_segment_are_refused():
    segments, outputs = campaign([1], n_systems=1)
    with pytest.raises(BuildProblem) as caught:
        build_post_editing_hits(
            segments, [*outputs, PEOutput(999, 1, 1, "again")], segments_per_hit=10, seed=1
        )
    # The ids for the builder's own use; campaigns.actions.build_hits tells it with names.
    assert str(caught.value) == (
        "[1] has two outputs of [1]: a post-editing HIT shows one output per system and "
        "segment. Remove one of them"
    )
    assert caught.value.ids_of("segments") == {1} and caught.value.ids_of("systems") == {1}


@settings(max_examples=60, deadline=None)
@given(
    doc_lengths=st.lists(st.integers(1, 30), min_size=1, max_size=4),
    n_systems=st.integers(1, 7),
    per_hit=st.integers(1, 15),
    seed=st.integers(0, 2**31),
)
def test_every_output_once_and_systems_even_within_each_hit(doc_lengths, n_systems, per_hit, seed):
    segments, outputs = campaign(doc_lengths, n_systems)
    hits = build_post_editing_hits(segments, outputs, segments_per_hit=per_hit, seed=seed)
    shown = Counter(slot.output_id for hit in hits for slot in hit)
    assert shown == Counter({o.output_id: 1 for o in outputs})
    runs: dict[int, set[frozenset[int]]] = {}
    for hit in hits:
        assert len(hit) <= per_hit
        counts = Counter(slot.system_id for slot in hit)
        assert max(counts.values()) - min(counts.values()) <= 1 or len(counts) < n_systems
        runs.setdefault(hit[0].run, set()).add(frozenset(slot.segment_id for slot in hit))
    # All HITs of a run hold the same segments (the hand-out keeps a worker to one of them).
    assert all(len(segment_sets) == 1 for segment_sets in runs.values())
