"""The translation-HIT layout (campaigns/builders/translation.py): pure, no database."""

from campaigns.builders.translation import TSegment, build_translation_runs


def segments(doc_lengths, *, shuffled=False):
    """Segments of documents 1.. (ids 100*d + p), optionally listed out of order."""
    rows = [
        TSegment(
            segment_id=100 * d + p,
            document_id=d,
            document_position=d,
            position=p,
            source=f"Satz {d}.{p}",
        )
        for d, length in enumerate(doc_lengths, start=1)
        for p in range(1, length + 1)
    ]
    return list(reversed(rows)) if shuffled else rows


def test_one_run_per_hit_in_document_order():
    runs = build_translation_runs(segments((3, 2)), segments_per_hit=10)
    assert [(r.number, r.document_id) for r in runs] == [(1, 1), (2, 2)]
    assert [[s.segment_id for s in r.slots] for r in runs] == [[101, 102, 103], [201, 202]]
    assert [[s.position for s in r.slots] for r in runs] == [[1, 2, 3], [1, 2]]
    assert runs[0].slots[1].shown_text == "Satz 1.2"


def test_long_documents_are_cut_into_nearly_equal_runs():
    runs = build_translation_runs(segments((12, 10, 3)), segments_per_hit=10)
    # 12 -> 6 + 6 (not 10 + 2), 10 -> one run, 3 -> one run, as post-editing cuts them.
    assert [len(r.slots) for r in runs] == [6, 6, 10, 3]
    assert [r.number for r in runs] == [1, 2, 3, 4]
    assert [s.segment_id for s in runs[1].slots] == list(range(107, 113))
    assert [s.position for s in runs[1].slots] == [1, 2, 3, 4, 5, 6]
    assert {r.document_id for r in runs[:2]} == {1}


def test_the_order_given_does_not_matter_and_there_is_no_randomness():
    ordered = build_translation_runs(segments((7, 4)), segments_per_hit=3)
    assert build_translation_runs(segments((7, 4), shuffled=True), segments_per_hit=3) == ordered
    assert build_translation_runs(segments((7, 4)), segments_per_hit=3) == ordered


def test_documents_follow_their_position_not_their_id():
    rows = [
        TSegment(segment_id=1, document_id=9, document_position=2, position=1, source="b"),
        TSegment(segment_id=2, document_id=5, document_position=1, position=1, source="a"),
    ]
    runs = build_translation_runs(rows, segments_per_hit=10)
    assert [r.document_id for r in runs] == [5, 9]


def test_empty_sources_are_left_out_and_nothing_gives_no_runs():
    rows = segments((3,))
    rows[1] = TSegment(segment_id=102, document_id=1, document_position=1, position=2, source=" ")
    runs = build_translation_runs(rows, segments_per_hit=10)
    assert [s.segment_id for s in runs[0].slots] == [101, 103]
    assert [s.position for s in runs[0].slots] == [1, 2]
    assert build_translation_runs([], segments_per_hit=10) == []


def test_one_sentence_a_hit():
    runs = build_translation_runs(segments((3,)), segments_per_hit=1)
    assert [[s.segment_id for s in r.slots] for r in runs] == [[101], [102], [103]]
