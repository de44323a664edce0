"""Gold units for ranking (002 section 4.2; METHODS.md 5): edit distance, the automatic
choice of gold translations, requester-given gold.

Plain pytest, no database: the module is pure.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.builders.ranking import BEST_WORST, ROLE_GOLD, RankingOutput, build_ranking_hits
from campaigns.gold import (
    ORIGIN_ALTERNATIVE_REFERENCE,
    ORIGIN_REQUESTER,
    GoldMark,
    GoldUnit,
    SegmentReferences,
    choose_gold_units,
    edit_distance,
    gold_candidates,
    gold_units_from_marks,
    normalised_edit_distance,
)

# --- edit distance -----------------------------------------------------------------------


def reference_levenshtein(a: list[str], b: list[str]) -> int:
    """The textbook full-table dynamic programme, to check the vectorised one against."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        table[i][0] = i
    for j in range(len(b) + 1):
        table[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
                table[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
            )
    return table[-1][-1]


def test_edit_distance_known_values() -> None:
    assert edit_distance(list("kitten"), list("sitting")) == 3  # k->s, e->i, +g
    assert edit_distance([], []) == 0
    assert edit_distance(["a", "b"], []) == 2
    assert edit_distance([], ["a"]) == 1
    assert edit_distance("the cat sat".split(), "the cat sat".split()) == 0
    # Word level: "sat" -> "was", then insert "sitting".
    assert edit_distance("the cat sat".split(), "the cat was sitting".split()) == 2
    assert normalised_edit_distance("a b c d".split(), "a x c d".split()) == 0.25
    assert normalised_edit_distance([], []) == 0.0
    assert normalised_edit_distance(["a"], []) == 1.0


words = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=12)


@settings(max_examples=200, deadline=None)
@given(words, words, words)
def test_edit_distance_is_levenshtein(a: list[str], b: list[str], c: list[str]) -> None:
    d = edit_distance(a, b)
    assert d == reference_levenshtein(a, b)
    assert d == edit_distance(b, a)
    assert abs(len(a) - len(b)) <= d <= max(len(a), len(b))
    assert edit_distance(a, c) <= d + edit_distance(b, c)  # triangle inequality
    assert 0.0 <= normalised_edit_distance(a, b) <= 1.0


# --- automatic choice: a hand-made example -------------------------------------------------
#
# Best system 1, worst system 3. Word-level distances, normalised by the longer text.
#
# Segment 1. Main reference "the cat sat on the mat" (6 words); best output
# "a cat sat on a mat": 2 substitutions (the->a twice), so 2/6 = 0.333 from the reference.
#   alternative 1 "the cat sat on the mat": the main reference itself -> excluded (trivial).
#   alternative 2 "the cat was sitting on the mat" (7 words): to the reference sat->was and
#     +sitting = 2 -> 2/7; to the best output the->a twice, sat->was, +sitting = 4 -> 4/7;
#     score 4/7 - 2/7 = 2/7 = 0.286.
#   alternative 3 "the cat sat on the rug": to the reference mat->rug = 1 -> 1/6; to the
#     best output the->a twice and mat->rug = 3 -> 3/6; score 3/6 - 1/6 = 1/3 = 0.333.
#   Both are closer to the reference than the best output (2/7, 1/6 < 2/6): alternative 3
#   wins with 1/3.
# Segment 2. Main "i like green tea" and the best output is that very sentence (distance 0):
#   no alternative can be closer to the reference than the best output -> no candidate.
# Segment 3. Main "he went home early" (4); best output "he go home": went->go and -early = 2
#   -> 2/4 = 0.5.
#   "he went home early today" (5): to the reference +today = 1 -> 1/5; to the best output
#     went->go, +early, +today = 3 -> 3/5; score 3/5 - 1/5 = 0.4.
#   "he returned home early": to the reference went->returned = 1 -> 1/4; to the best output
#     returned->go, +early = 2 -> 2/4; score 0.25.
#   "he went home early today" wins with 0.4.
# Segment 4. No alternative references -> no candidate.
# Segment 5. System 1 has no output -> no candidate.
#
# Ranking: segment 3 (0.4), then segment 1 (0.333).

SEGMENTS = [
    SegmentReferences(
        1,
        [
            "the cat sat on the mat",
            "the cat sat on the mat",
            "the cat was sitting on the mat",
            "the cat sat on the rug",
        ],
    ),
    SegmentReferences(2, ["i like green tea", "i love green tea"]),
    SegmentReferences(
        3, ["he went home early", "he went home early today", "he returned home early"]
    ),
    SegmentReferences(4, ["only one reference"]),
    SegmentReferences(5, ["no best output here", "no best output there"]),
]

OUTPUTS = [
    RankingOutput(11, 1, 1, "a cat sat on a mat"),
    RankingOutput(12, 2, 1, "the cat is on the mat"),
    RankingOutput(13, 3, 1, "cat mat"),
    RankingOutput(21, 1, 2, "i like green tea"),
    RankingOutput(22, 2, 2, "i like tea"),
    RankingOutput(23, 3, 2, "green"),
    RankingOutput(31, 1, 3, "he go home"),
    RankingOutput(32, 2, 3, "he went house"),
    RankingOutput(33, 3, 3, "home"),
    RankingOutput(41, 1, 4, "only a reference"),
    RankingOutput(52, 2, 5, "no output here"),
    RankingOutput(53, 3, 5, "nothing"),
]


def test_candidates_worked_by_hand() -> None:
    candidates = gold_candidates(SEGMENTS, OUTPUTS, best_system_id=1, language="en")
    assert [(c.segment_id, c.reference_index, c.text) for c in candidates] == [
        (3, 1, "he went home early today"),
        (1, 3, "the cat sat on the rug"),
    ]
    seg3, seg1 = candidates
    assert seg3.distance_to_reference == pytest.approx(1 / 5)
    assert seg3.distance_to_best == pytest.approx(3 / 5)
    assert seg3.best_to_reference == pytest.approx(2 / 4)
    assert seg3.score == pytest.approx(0.4)
    assert seg1.distance_to_reference == pytest.approx(1 / 6)
    assert seg1.distance_to_best == pytest.approx(3 / 6)
    assert seg1.best_to_reference == pytest.approx(2 / 6)
    assert seg1.score == pytest.approx(1 / 3)


def test_raw_distances_tie_where_normalised_ones_do_not() -> None:
    # Raw counts: the best output of segment 1 is 2 from the reference, so alternative 2
    # (also 2) is no longer closer and drops out; alternative 3 scores 3 - 1 = 2. Segment
    # 3's "today" scores 3 - 1 = 2 as well: a tie, broken by segment id. (Normalised,
    # segment 3 leads: its sentences are shorter, each edit weighs more.)
    candidates = gold_candidates(
        SEGMENTS, OUTPUTS, best_system_id=1, language="en", normalise=False
    )
    assert [(c.segment_id, c.reference_index, c.score) for c in candidates] == [
        (1, 3, 2.0),
        (3, 1, 2.0),
    ]


def test_choose_gold_units_top_k_with_worst_outputs() -> None:
    units = choose_gold_units(
        SEGMENTS, OUTPUTS, language="en", best_system_id=1, worst_system_id=3, count=30
    )
    assert [(u.segment_id, u.text, u.best_output_id, u.worst_output_id) for u in units] == [
        (3, "he went home early today", None, 33),
        (1, "the cat sat on the rug", None, 13),
    ]
    assert {u.origin for u in units} == {ORIGIN_ALTERNATIVE_REFERENCE}
    assert [u.score for u in units] == pytest.approx([0.4, 1 / 3])
    top = choose_gold_units(SEGMENTS, OUTPUTS, language="en", best_system_id=1, count=1)
    assert [(u.segment_id, u.worst_output_id) for u in top] == [(3, None)]


def test_best_and_worst_system_from_scores() -> None:
    scores = {1: 0.71, 2: 0.55, 3: 0.20}
    units = choose_gold_units(SEGMENTS, OUTPUTS, language="en", system_scores=scores)
    assert [(u.segment_id, u.worst_output_id) for u in units] == [(3, 33), (1, 13)]
    # Scores win over a named system. With system 2 best (and 1 worst):
    #   segment 1: best "the cat is on the mat" is 1/6 from the reference (sat -> is); the
    #     alternatives are 2/7 and 1/6 from it: neither is closer -> none;
    #   segment 2: best "i like tea" is 1/4 away, "i love green tea" too -> none;
    #   segment 3: best "he went house" is 2/4 away (home -> house, - early); "he went home
    #     early today": 1/5 from the reference, 3/5 from the best (house -> home, + early,
    #     + today), score 0.4; "he returned home early": 1/4 and 3/4 (went -> returned,
    #     house -> home, + early), score 0.5 -> wins;
    #   segment 5: best "no output here" is 1/4 away, "no best output there" too -> none.
    units = choose_gold_units(
        SEGMENTS,
        OUTPUTS,
        language="en",
        system_scores={1: 0.1, 2: 0.9, 3: 0.5},
        best_system_id=3,
    )
    assert [(u.segment_id, u.text, u.worst_output_id) for u in units] == [
        (3, "he returned home early", 31)
    ]
    assert units[0].score == pytest.approx(0.5)
    with pytest.raises(ValueError, match="tie"):
        choose_gold_units(SEGMENTS, OUTPUTS, language="en", system_scores={1: 0.5, 2: 0.5})


def test_require_worst_skips_segments_without_a_worst_output() -> None:
    outputs = [o for o in OUTPUTS if o.output_id != 33]  # segment 3 loses its worst output
    units = choose_gold_units(
        SEGMENTS, outputs, language="en", best_system_id=1, worst_system_id=3, require_worst=True
    )
    assert [u.segment_id for u in units] == [1]
    with pytest.raises(ValueError, match="worst system"):
        choose_gold_units(SEGMENTS, OUTPUTS, language="en", best_system_id=1, require_worst=True)
    with pytest.raises(ValueError, match="best_system_id"):
        choose_gold_units(SEGMENTS, OUTPUTS, language="en")
    with pytest.raises(ValueError, match="same system"):
        choose_gold_units(SEGMENTS, OUTPUTS, language="en", best_system_id=1, worst_system_id=1)


def test_character_languages_are_compared_by_characters() -> None:
    # Japanese has no spaces. By characters: main 私は学生です (6), alternative 私は学生だ (5):
    # です -> だ is one substitution and one deletion, 2/6.
    segments = [SegmentReferences(1, ["私は学生です", "私は学生だ"])]
    # Best output 私は先生です: 学 -> 先, 1/6 from the reference; the alternative (2/6) is not
    # closer: no candidate.
    outputs = [RankingOutput(1, 1, 1, "私は先生です")]
    assert gold_candidates(segments, outputs, best_system_id=1, language="ja") == []
    # Best output 私は先生でした (7): 学 -> 先, す -> し, + た = 3/7 from the reference. The
    # alternative is 2/6 from the reference (closer) and 4/7 from the best output
    # (学 -> 先, だ -> で, + し, + た).
    outputs = [RankingOutput(1, 1, 1, "私は先生でした")]
    (candidate,) = gold_candidates(segments, outputs, best_system_id=1, language="ja")
    assert candidate.distance_to_reference == pytest.approx(2 / 6)
    assert candidate.best_to_reference == pytest.approx(3 / 7)
    assert candidate.distance_to_best == pytest.approx(4 / 7)
    assert candidate.score == pytest.approx(4 / 7 - 2 / 6)
    # By words (as if English), each text is a single unit: every distance is 1, so the
    # alternative is not closer than the best output.
    assert gold_candidates(segments, outputs, best_system_id=1, language="en") == []


# --- requester-given gold ------------------------------------------------------------------


def test_gold_units_from_marks() -> None:
    marks = [
        GoldMark(3, best_output_id=32, worst_output_id=33),
        GoldMark(1, gold_text="a cat is sitting on the mat"),
    ]
    assert gold_units_from_marks(marks, OUTPUTS) == [
        GoldUnit(1, "a cat is sitting on the mat", None, None, ORIGIN_REQUESTER),
        GoldUnit(3, "he went house", 32, 33, ORIGIN_REQUESTER),
    ]


@pytest.mark.parametrize(
    ("mark", "message"),
    [
        (GoldMark(1, best_output_id=31), "best outputs"),  # an output of segment 3
        (GoldMark(1, best_output_id=11, worst_output_id=11), "same"),
        (GoldMark(1, best_output_id=11, worst_output_id=33), "worst outputs"),
        (GoldMark(1), "exactly one"),
        (GoldMark(1, best_output_id=11, gold_text="both"), "exactly one"),
        (GoldMark(1, gold_text="  "), "exactly one"),
    ],
)
def test_bad_marks_are_refused(mark: GoldMark, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        gold_units_from_marks([mark], OUTPUTS)


def test_two_marks_for_one_segment_are_refused() -> None:
    with pytest.raises(ValueError, match="twice"):
        gold_units_from_marks([GoldMark(1, best_output_id=11), GoldMark(1, gold_text="x")], OUTPUTS)


# --- into the builder ----------------------------------------------------------------------


def test_chosen_units_make_gold_sets() -> None:
    outputs = [o for o in OUTPUTS if o.segment_id in (1, 2, 3)]
    units = choose_gold_units(SEGMENTS, outputs, language="en", best_system_id=1, worst_system_id=3)
    hits = build_ranking_hits(
        outputs,
        seed=1,
        outputs_per_set=3,
        sets_per_hit=1,
        gold_rate=0.25,
        gold_scheme=BEST_WORST,
        gold_units=units,
    )
    gold = [slot for hit in hits for slot in hit if slot.role == ROLE_GOLD]
    # 3 coverage sets; 4 HITs of 1 set hold round(1.0) = 1 gold set.
    assert len(hits) == 4 and len(gold) == 1
    assert gold[0].shown_text in {u.text for u in units}
    assert (gold[0].expected_rank_min, gold[0].expected_rank_max) == (1, 1)
