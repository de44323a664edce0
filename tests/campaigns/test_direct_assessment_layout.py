"""HIT layout for direct assessment (Graham et al. 2014 section 3 and Table 2; METHODS.md 2).

Plain pytest, no database: the builder is pure.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.builders.direct_assessment import (
    HIT_SIZE,
    PAIR_DISTANCE_MAX,
    PAIR_DISTANCE_MIN,
    ROLE_BAD_REFERENCE,
    ROLE_REFERENCE,
    ROLE_REPEAT,
    ROLE_SYSTEM,
    DAOutput,
    SlotPlan,
    build_direct_assessment_hits,
    hit_count,
)
from campaigns.builders.problems import BuildProblem
from campaigns.degradation import ADEQUACY, FLUENCY, can_degrade, split_units

WORDS = "the a cat dog sat ran on under mat house big small red green quickly".split()


def make_outputs(
    segments_by_system: dict[int, list[int]],
    *,
    seed: int = 0,
    one_word_share: float = 0.0,
    text_of: dict[tuple[int, int], str] | None = None,
) -> list[DAOutput]:
    """Outputs for the given systems and segments, with made-up texts (1 to 20 words)."""
    rng = random.Random(seed)
    all_segments = sorted({seg for segs in segments_by_system.values() for seg in segs})
    references = {seg: " ".join(rng.choices(WORDS, k=rng.randint(3, 20))) for seg in all_segments}
    outputs = []
    output_id = 1000
    for system in sorted(segments_by_system):
        for seg in segments_by_system[system]:
            length = 1 if rng.random() < one_word_share else rng.randint(2, 20)
            text = (text_of or {}).get((system, seg)) or " ".join(rng.choices(WORDS, k=length))
            outputs.append(DAOutput(output_id, system, seg, text, references[seg]))
            output_id += 1
    return outputs


def grid(systems: int, segments: int, **kwargs) -> list[DAOutput]:  # type: ignore[no-untyped-def]
    """Every system translates every segment."""
    return make_outputs({s: list(range(segments)) for s in range(1, systems + 1)}, **kwargs)


def build(outputs: list[DAOutput], mode: str = FLUENCY, seed: int = 1, **kwargs):  # type: ignore[no-untyped-def]
    return build_direct_assessment_hits(outputs, mode=mode, language="en", seed=seed, **kwargs)


def roles(hit: list[SlotPlan]) -> Counter[str]:
    return Counter(slot.role for slot in hit)


def system_slots(hit: list[SlotPlan]) -> list[SlotPlan]:
    return [slot for slot in hit if slot.role == ROLE_SYSTEM]


def check_hit(hit: list[SlotPlan], outputs: list[DAOutput], mode: str) -> None:
    """Everything the 2014 HIT structure promises, for one HIT."""
    by_id = {o.output_id: o for o in outputs}
    by_position = {slot.position: slot for slot in hit}

    # 100 slots in order, 10 sets of 10 consecutive positions.
    assert [slot.position for slot in hit] == list(range(1, HIT_SIZE + 1))
    assert all(slot.set_index == (slot.position - 1) // 10 for slot in hit)

    # 70 system outputs (all distinct), 10 bad references, 10 repeats, 10 references.
    assert roles(hit) == {
        ROLE_SYSTEM: 70,
        ROLE_BAD_REFERENCE: 10,
        ROLE_REPEAT: 10,
        ROLE_REFERENCE: 10,
    }
    assert len({slot.output_id for slot in system_slots(hit)}) == 70

    # Each control points to the system slot of its output, in the set five away.
    controlled = []
    for slot in hit:
        if slot.role == ROLE_SYSTEM:
            assert slot.controls_position is None
            continue
        target = by_position[slot.controls_position]
        controlled.append(target.position)
        assert target.role == ROLE_SYSTEM
        assert target.output_id == slot.output_id
        assert target.segment_id == slot.segment_id
        assert abs(target.set_index - slot.set_index) == 5
        assert PAIR_DISTANCE_MIN <= abs(target.position - slot.position) <= PAIR_DISTANCE_MAX
        if slot.role == ROLE_REPEAT:
            assert slot.controls_position < slot.position  # a repeat follows its first showing
    assert len(controlled) == len(set(controlled)) == 30  # 30 outputs with one control each

    # Table 2, per pair of sets (S_t, S_t+5).
    def pairs(role: str, control_set: int, output_set: int) -> int:
        """Control slots of ``role`` in ``control_set`` whose output is in ``output_set``."""
        return sum(
            1
            for slot in hit
            if slot.role == role
            and slot.set_index == control_set
            and by_position[slot.controls_position].set_index == output_set  # type: ignore[index]
        )

    for t in range(5):
        early, late = t, t + 5

        assert pairs(ROLE_BAD_REFERENCE, early, late) == 1  # bad reference | its output
        assert pairs(ROLE_BAD_REFERENCE, late, early) == 1  # ... in reverse
        assert pairs(ROLE_REFERENCE, early, late) == 1  # reference | its output
        assert pairs(ROLE_REFERENCE, late, early) == 1  # ... in reverse
        assert pairs(ROLE_REPEAT, late, early) == 2  # output | repeat, and in reverse
        assert pairs(ROLE_REPEAT, early, late) == 0
        for set_index in (early, late):
            members = [slot for slot in hit if slot.set_index == set_index]
            assert len(members) == 10
            plain = [
                slot
                for slot in members
                if slot.role == ROLE_SYSTEM and slot.position not in controlled
            ]
            assert len(plain) == 4  # "4 system outputs"
        assert roles([s for s in hit if s.set_index == early]) == {
            ROLE_SYSTEM: 8, ROLE_BAD_REFERENCE: 1, ROLE_REFERENCE: 1,
        }  # fmt: skip
        assert roles([s for s in hit if s.set_index == late]) == {
            ROLE_SYSTEM: 6, ROLE_BAD_REFERENCE: 1, ROLE_REFERENCE: 1, ROLE_REPEAT: 2,
        }  # fmt: skip

    # What is shown.
    for slot in hit:
        output = by_id[slot.output_id]
        assert slot.system_id == output.system_id
        assert slot.segment_id == output.segment_id
        if slot.role in (ROLE_SYSTEM, ROLE_REPEAT):
            assert slot.shown_text == output.text
            assert slot.degradation is None
        elif slot.role == ROLE_REFERENCE:
            assert slot.shown_text == output.reference
            assert slot.degradation is None
        else:
            assert can_degrade(output.text, mode, "en")
            assert slot.shown_text != output.text
            assert slot.degradation in ({"insert"} if mode == FLUENCY else {"delete", "replace"})
        if mode == FLUENCY:
            assert slot.reference_text is None
        else:
            assert slot.reference_text == output.reference

    # Equal shares per system (over the systems of the campaign).
    shares = Counter(slot.system_id for slot in system_slots(hit))
    systems = {o.system_id for o in outputs}
    counts = [shares[s] for s in systems]
    assert max(counts) - min(counts) <= 1


def check_campaign(hits: list[list[SlotPlan]], outputs: list[DAOutput], mode: str) -> None:
    for hit in hits:
        check_hit(hit, outputs, mode)
    # Every output is shown as a system item somewhere, in the fewest HITs that allow it.
    shown = {slot.output_id for hit in hits for slot in system_slots(hit)}
    assert shown == {o.output_id for o in outputs}
    assert len(hits) == hit_count(Counter(o.system_id for o in outputs))


# --- the layout --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [FLUENCY, ADEQUACY])
def test_layout_follows_table_2(mode: str) -> None:
    outputs = grid(7, 100)
    hits = build(outputs, mode=mode)
    assert len(hits) == 10
    check_campaign(hits, outputs, mode)


def test_pair_distance_bounds_are_41_and_59_and_both_occur() -> None:
    # Sets five apart: the last of S_t (10t + 10) and the first of S_t+5 (10t + 51) are 41
    # apart, 40 items in between: the paper's "minimum of 40 intervening assessments".
    assert (PAIR_DISTANCE_MIN, PAIR_DISTANCE_MAX) == (41, 59)
    outputs = grid(10, 300)
    hits = build(outputs)
    distances = [
        abs(slot.position - slot.controls_position)
        for hit in hits
        for slot in hit
        if slot.controls_position is not None
    ]
    assert min(distances) == 41
    assert max(distances) == 59


def test_fluency_shows_no_reference_and_adequacy_does() -> None:
    outputs = grid(3, 80)
    assert all(slot.reference_text is None for hit in build(outputs, FLUENCY) for slot in hit)
    by_id = {o.output_id: o for o in outputs}
    for hit in build(outputs, ADEQUACY):
        for slot in hit:
            assert slot.reference_text == by_id[slot.output_id].reference


def test_reference_items_show_the_reference_of_their_output() -> None:
    outputs = grid(2, 100)
    by_id = {o.output_id: o for o in outputs}
    for hit in build(outputs, ADEQUACY):
        for slot in hit:
            if slot.role == ROLE_REFERENCE:
                assert slot.shown_text == by_id[slot.output_id].reference


def test_references_are_paired_with_outputs_that_differ_from_them() -> None:
    # System 3 is the reference evaluated as a pseudo-system: a reference item paired with
    # one of its outputs would just be a repeat.
    outputs = grid(3, 100)
    outputs = [
        DAOutput(o.output_id, o.system_id, o.segment_id, o.reference, o.reference)
        if o.system_id == 3
        else o
        for o in outputs
    ]
    for hit in build(outputs):
        for slot in hit:
            if slot.role == ROLE_REFERENCE:
                assert slot.system_id != 3


# --- shares, coverage and completion ------------------------------------------------------


@pytest.mark.parametrize(("systems", "shares"), [(1, {70}), (7, {10}), (15, {4, 5}), (8, {8, 9})])
def test_system_shares_per_hit(systems: int, shares: set[int]) -> None:
    outputs = grid(systems, 150)
    for hit in build(outputs):
        counts = Counter(slot.system_id for slot in system_slots(hit))
        assert set(counts.values()) == shares
        assert len(counts) == systems


def test_repeats_go_to_the_systems_with_fewest_outputs_in_the_hit() -> None:
    # 15 systems: 10 have 5 slots, 5 have 4; with 10 repeats every system ends with 5 or 6
    # judged items (system slots and repeats), never one system with 4 and another with 6.
    outputs = grid(15, 120)
    for hit in build(outputs):
        judged = Counter(slot.system_id for slot in hit if slot.role in (ROLE_SYSTEM, ROLE_REPEAT))
        assert max(judged.values()) - min(judged.values()) <= 1


def test_last_hit_is_completed_by_reusing_outputs_evenly() -> None:
    # One system, 75 outputs: two HITs. The first shows 70; the second the 5 left plus 65
    # re-used ones, each shown at most twice over the campaign.
    outputs = grid(1, 75)
    hits = build(outputs)
    assert len(hits) == 2
    check_campaign(hits, outputs, FLUENCY)
    first = {slot.output_id for slot in system_slots(hits[0])}
    second = {slot.output_id for slot in system_slots(hits[1])}
    assert len(first) == 70
    assert {o.output_id for o in outputs} - first <= second
    uses = Counter(slot.output_id for hit in hits for slot in system_slots(hit))
    assert set(uses.values()) == {1, 2}
    assert sum(1 for n in uses.values() if n == 2) == 65


def test_smaller_system_keeps_its_share_by_reusing_its_outputs_evenly() -> None:
    # 100 outputs of system 1, 40 of system 2, over the same 100 segments: 35 slots each per
    # HIT, three HITs (105 >= 100); system 2's 40 outputs fill 105 slots, each 2 or 3 times.
    outputs = make_outputs(
        {1: list(range(100)), 2: list(range(0, 100, 5)) + list(range(1, 100, 5))}
    )
    hits = build(outputs)
    assert len(hits) == 3
    check_campaign(hits, outputs, FLUENCY)
    uses = Counter(
        slot.output_id for hit in hits for slot in system_slots(hit) if slot.system_id == 2
    )
    assert len(uses) == 40
    assert set(uses.values()) == {2, 3}


def test_hit_count_is_the_fewest_that_cover_every_system() -> None:
    assert hit_count({1: 70}) == 1
    assert hit_count({1: 71}) == 2
    assert hit_count({1: 100, 2: 100}) == 3  # 35 + 35 per HIT: 3 * 35 = 105 >= 100
    assert hit_count({s: 70 for s in range(15)}) == 15  # 4 or 5 each: 15 HITs give 70 each
    assert hit_count({1: 10, 2: 10, 3: 10, 4: 10, 5: 10, 6: 10, 7: 10}) == 1


# --- same segment, different systems -----------------------------------------------------


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=1, max_value=15), st.integers(min_value=0, max_value=40), st.integers()
)
def test_no_segment_twice_in_a_hit_when_there_are_enough_segments(
    systems: int, surplus: int, seed: int
) -> None:
    # The bound proved in the module docstring: L >= m * (70 // m + 2).
    segments = systems * (70 // systems + 2) + surplus
    outputs = grid(systems, segments, seed=seed % 1000)
    for hit in build(outputs, seed=seed):
        segments_shown = Counter(slot.segment_id for slot in system_slots(hit))
        assert max(segments_shown.values()) == 1


def test_fewer_than_70_segments_repeat_segments_but_cover_everything() -> None:
    outputs = grid(3, 40)
    hits = build(outputs)
    check_campaign(hits, outputs, FLUENCY)
    for hit in hits:
        shown = Counter(slot.segment_id for slot in system_slots(hit))
        assert len(shown) == 40  # every segment appears, none more than twice
        assert max(shown.values()) == 2


# --- bad references ----------------------------------------------------------------------


def test_short_segments_are_never_bad_references() -> None:
    outputs = grid(5, 100, one_word_share=0.5, seed=3)
    one_word = {o.output_id for o in outputs if len(split_units(o.text, "en")) < 2}
    assert len(one_word) > 150
    hits = build(outputs, ADEQUACY)
    check_campaign(hits, outputs, ADEQUACY)
    sources = {slot.output_id for hit in hits for slot in hit if slot.role == ROLE_BAD_REFERENCE}
    assert sources and not sources & one_word


def test_a_hit_short_of_degradable_outputs_borrows_them_from_another_hit() -> None:
    # System 1's 140 outputs: the first 70 segments have one word, the last 70 two or more.
    # A naive split would leave HIT 1 with no degradable output at all.
    text_of = {(1, seg): "word" for seg in range(70)}
    outputs = make_outputs({1: list(range(140))}, text_of=text_of)
    hits = build(outputs)
    check_campaign(hits, outputs, FLUENCY)


def test_degradable_outputs_are_reused_when_a_hit_lacks_them() -> None:
    # 80 outputs, only 12 with two words: two HITs of 70, each needs 10 of those 12, so
    # most of them must be shown in both HITs (in place of re-used one-word outputs).
    text_of = {(1, seg): "word" for seg in range(68)}
    outputs = make_outputs({1: list(range(80))}, text_of=text_of)
    for seed in range(10):
        hits = build(outputs, seed=seed)
        check_campaign(hits, outputs, FLUENCY)


def test_not_enough_degradable_outputs_for_the_hits_is_an_error() -> None:
    # 140 outputs fill two HITs exactly (no slot to re-use anything), but only 19 of them
    # have two words: one HIT gets at most 9.
    text_of = {(1, seg): "word" for seg in range(121)}
    outputs = make_outputs({1: list(range(140))}, text_of=text_of)
    with pytest.raises(ValueError, match="only 9 of its outputs have them"):
        build(outputs)


def test_too_few_degradable_outputs_is_an_error() -> None:
    outputs = grid(1, 80, one_word_share=1.0)
    outputs[:9] = [
        DAOutput(o.output_id, o.system_id, o.segment_id, "two words", o.reference)
        for o in outputs[:9]
    ]
    with pytest.raises(ValueError, match="only 9 outputs"):
        build(outputs)


def test_replace_option_takes_phrases_from_other_references() -> None:
    outputs = grid(2, 100)
    hits = build(outputs, ADEQUACY, degradation="replace")
    check_campaign(hits, outputs, ADEQUACY)
    methods = Counter(slot.degradation for hit in hits for slot in hit if slot.degradation)
    assert methods["replace"] > 0


def test_character_language_campaign() -> None:
    rng = random.Random(0)
    chars = "我们今天天气很好你他说了一个的是在有"
    outputs = [
        DAOutput(
            i, 1 + i % 3, i // 3, "".join(rng.choices(chars, k=rng.randint(2, 30))), "参考译文。"
        )
        for i in range(300)
    ]
    hits = build_direct_assessment_hits(outputs, mode=FLUENCY, language="zh-Hans", seed=5)
    by_id = {o.output_id: o for o in outputs}
    for hit in hits:
        for slot in hit:
            if slot.role == ROLE_BAD_REFERENCE:
                source = split_units(by_id[slot.output_id].text, "zh-Hans")
                assert len(split_units(slot.shown_text, "zh-Hans")) == len(source) + 2


# --- determinism -------------------------------------------------------------------------


def test_same_seed_same_hits_whatever_the_input_order() -> None:
    outputs = grid(4, 90)
    shuffled = list(outputs)
    random.Random(9).shuffle(shuffled)
    assert build(outputs, ADEQUACY, seed=7, degradation="replace") == build(
        shuffled, ADEQUACY, seed=7, degradation="replace"
    )


def test_different_seed_different_hits() -> None:
    outputs = grid(4, 90)
    assert build(outputs, seed=1) != build(outputs, seed=2)


# --- refused input -----------------------------------------------------------------------


def test_system_with_fewer_outputs_than_its_share_is_an_error() -> None:
    outputs = make_outputs({1: list(range(100)), 2: list(range(4))})
    with pytest.raises(BuildProblem) as caught:
        build(outputs)
    assert str(caught.value) == (
        "a direct-assessment HIT needs 35 outputs per system when there are 2 systems (70 "
        "outputs in equal shares); the campaign has fewer for [2] (outputs in brackets): add "
        "segments with outputs of this system, or leave it out of the import ('Items per hit' "
        "is fixed at 100, the 2014 design the builder follows)"
    )
    assert caught.value.counts == {2: 4}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mode": "accuracy"}, "unknown mode"),
        ({"degradation": "shuffle"}, "unknown degradation"),
    ],
)
def test_unknown_options_are_errors(change: dict[str, str], message: str) -> None:
    arguments = {"mode": FLUENCY, "language": "en", "seed": 0, **change}
    with pytest.raises(ValueError, match=message):
        build_direct_assessment_hits(grid(1, 80), **arguments)  # type: ignore[arg-type]


def test_bad_outputs_are_errors() -> None:
    outputs = grid(1, 80)
    with pytest.raises(ValueError, match="no outputs"):
        build([])
    with pytest.raises(ValueError, match="more than once"):
        build(outputs + outputs[:1])
    no_reference = [DAOutput(1, 1, 1, "a b", " ")] + outputs
    with pytest.raises(ValueError, match="these segments have none: \\[1\\]"):
        build(no_reference)


# --- the invariants over random campaigns ------------------------------------------------


@st.composite
def campaigns(draw: st.DrawFn) -> tuple[int, int, int]:
    """(systems, segment pool, seed) of a random campaign: 1 to 15 systems, each with enough
    outputs for its share, over a common pool of segments with holes (not every system
    translates every segment); see random_campaign."""
    systems = draw(st.integers(min_value=1, max_value=15))
    needed = -(-70 // systems)
    pool = draw(st.integers(min_value=needed, max_value=max(needed, 1500 // systems)))
    seed = draw(st.integers(min_value=0, max_value=10**6))
    return systems, pool, seed


def random_campaign(systems: int, pool: int, seed: int) -> list[DAOutput]:
    rng = random.Random(seed)
    needed = -(-70 // systems)
    segments_by_system = {
        s: sorted(rng.sample(range(pool), rng.randint(needed, pool))) for s in range(1, systems + 1)
    }
    return make_outputs(segments_by_system, seed=seed, one_word_share=0.1)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(campaigns(), st.sampled_from([FLUENCY, ADEQUACY]), st.sampled_from(["delete", "replace"]))
def test_layout_invariants_for_random_campaigns(
    campaign: tuple[int, int, int], mode: str, degradation: str
) -> None:
    outputs = random_campaign(*campaign)
    seed = campaign[2]
    hits = build(outputs, mode, seed=seed, degradation=degradation)
    check_campaign(hits, outputs, mode)
    # Re-use is spread evenly over each system's outputs: each shown n or n + 1 times.
    uses: dict[int, Counter[int]] = defaultdict(Counter)
    for hit in hits:
        for slot in system_slots(hit):
            uses[slot.system_id][slot.output_id] += 1
    for counts in uses.values():
        assert max(counts.values()) - min(counts.values()) <= 1
    assert build(outputs, mode, seed=seed, degradation=degradation) == hits
