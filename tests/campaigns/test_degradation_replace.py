"""The ``replace`` adequacy degradation (issue 17): the phrase put in place of the removed run
comes from another segment's reference, as at WMT, never from the same segment's alternative
references (which say the same thing, so the "bad" reference would keep the meaning); the
choice is deterministic by the campaign's seed."""

from __future__ import annotations

import random
import re

from campaigns.builders.direct_assessment import (
    ROLE_BAD_REFERENCE,
    DAOutput,
    build_direct_assessment_hits,
)
from campaigns.builders.direct_assessment.build import _ReferencePool
from campaigns.degradation import ADEQUACY, REPLACE, degrade_adequacy

SEGMENTS = 100
SYSTEMS = 2


def _outputs() -> list[DAOutput]:
    """Every word of a reference names its segment (``s17r0w3``: segment 17, reference 0), so
    a replacement phrase tells which segment it came from. Each segment has a main reference
    and two alternative ones; outputs are plain words."""
    rng = random.Random(3)
    outputs = []
    for system in range(1, SYSTEMS + 1):
        for segment in range(SEGMENTS):
            references = [
                " ".join(f"s{segment}r{r}w{w}" for w in range(rng.randint(6, 14))) for r in range(3)
            ]
            text = " ".join(f"out{w}" for w in range(rng.randint(6, 14)))
            outputs.append(
                DAOutput(
                    output_id=system * 1000 + segment,
                    system_id=system,
                    segment_id=segment,
                    text=text,
                    reference=references[0],
                    alternative_references=tuple(references[1:]),
                )
            )
    return outputs


def _bad_references(seed: int) -> list[tuple[int, str]]:
    hits = build_direct_assessment_hits(
        _outputs(), mode=ADEQUACY, language="en", seed=seed, degradation=REPLACE
    )
    return [
        (slot.segment_id, slot.shown_text)
        for hit in hits
        for slot in hit
        if slot.role == ROLE_BAD_REFERENCE
    ]


def test_replacement_phrase_comes_from_another_segments_reference() -> None:
    bad = _bad_references(seed=1)
    assert len(bad) == 10 * 3  # 200 outputs: 3 HITs of 10 bad references each
    foreign_segments = set()
    for segment, text in bad:
        sources = {int(m) for m in re.findall(r"\bs(\d+)r\d+w\d+\b", text)}
        # Every bad reference here is a replacement (long outputs, plenty of references)...
        assert len(sources) == 1, text
        # ... and its phrase is another segment's, never this one's alternative references.
        assert segment not in sources, (segment, text)
        foreign_segments |= sources
    # The phrases come from all over the campaign, not from a few neighbours.
    assert len(foreign_segments) >= 20


def test_same_seed_same_phrases_other_seed_others() -> None:
    assert _bad_references(seed=5) == _bad_references(seed=5)
    assert _bad_references(seed=5) != _bad_references(seed=6)


def test_pool_leaves_out_exactly_the_segments_own_references() -> None:
    outputs = [
        DAOutput(1, 1, 10, "a b", "ten", ("ten bis",)),
        DAOutput(2, 2, 10, "c d", "ten", ("ten bis",)),
        DAOutput(3, 1, 20, "e f", "twenty"),
        DAOutput(4, 1, 30, "g h", "thirty", ("thirty bis", "")),
    ]
    pool = _ReferencePool(outputs)
    assert list(pool.others(10)) == ["twenty", "thirty", "thirty bis"]
    assert list(pool.others(20)) == ["ten", "ten bis", "thirty", "thirty bis"]
    assert list(pool.others(30)) == ["ten", "ten bis", "twenty"]
    assert pool.others(30)[-1] == "twenty"
    assert pool.others(20)[1:3] == ["ten bis", "thirty"]


def test_long_pool_costs_a_few_draws_and_falls_back_to_every_reference() -> None:
    # Only the last of 5,000 references has a 2-word phrase: the random draws miss it, the
    # ordered fallback finds it.
    others = ["x"] * 4999 + ["p q"]
    bad = degrade_adequacy("a b c d", "en", random.Random(0), replace=True, other_references=others)
    assert bad.method == REPLACE
    assert bad.replacement == ("p", "q")
