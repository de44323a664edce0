"""The entry point :func:`build_direct_assessment_hits`: validates the outputs, selects and
lays out each HIT, shuffles every set, and makes the bad references from the pool of the other
segments' references (:class:`_ReferencePool`)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence

from campaigns.builders.direct_assessment.constants import (
    BAD_REFERENCES_PER_HIT,
    ROLE_BAD_REFERENCE,
    ROLE_REFERENCE,
    ROLE_SYSTEM,
    SET_COUNT,
    SET_SIZE,
)
from campaigns.builders.direct_assessment.layout import _Item, _layout
from campaigns.builders.direct_assessment.plans import DAOutput, SlotPlan
from campaigns.builders.direct_assessment.selection import _Selection
from campaigns.builders.direct_assessment.validation import _validate
from campaigns.builders.problems import BuildProblem
from campaigns.degradation import ADEQUACY, DELETE, can_degrade, degrade


class _ReferencePool:
    """Every segment's references, grouped by segment (segments in id order, so the pool
    depends on the outputs, not on their order), each distinct non-empty text once per
    segment: where the ``replace`` degradation finds its phrases."""

    def __init__(self, outputs: Sequence[DAOutput]) -> None:
        by_segment: dict[int, list[str]] = {}
        for output in outputs:
            texts = by_segment.setdefault(output.segment_id, [])
            for text in (output.reference, *output.alternative_references):
                if text.strip() and text not in texts:
                    texts.append(text)
        self.texts: list[str] = []
        self.block: dict[int, tuple[int, int]] = {}  # segment id: its [start, end) in texts
        for segment_id in sorted(by_segment):
            start = len(self.texts)
            self.texts.extend(by_segment[segment_id])
            self.block[segment_id] = (start, len(self.texts))

    def others(self, segment_id: int) -> _OtherSegmentsReferences:
        start, end = self.block.get(segment_id, (0, 0))
        return _OtherSegmentsReferences(self.texts, start, end)


class _OtherSegmentsReferences(Sequence[str]):
    """The pool without one segment's block, as a sequence (no copy of the campaign's
    references per bad reference)."""

    def __init__(self, texts: list[str], start: int, end: int) -> None:
        self.texts, self.start, self.end = texts, start, end

    def __len__(self) -> int:
        return len(self.texts) - (self.end - self.start)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        index %= len(self)
        return self.texts[index if index < self.start else index + self.end - self.start]


def build_direct_assessment_hits(
    outputs: Sequence[DAOutput],
    *,
    mode: str,
    language: str,
    seed: int,
    degradation: str = DELETE,
) -> list[list[SlotPlan]]:
    """Plan the HITs of a direct assessment campaign (2014 section 3 and Table 2).

    ``mode`` is ``fluency`` (no reference shown) or ``adequacy`` (the reference in gray);
    ``language`` the target language code (it decides how bad references are made, see
    :mod:`campaigns.degradation`); ``degradation`` (``delete`` or ``replace``) the adequacy
    recipe. Returns one list of 100 :class:`SlotPlan` per HIT, ordered by position. See the
    package docstring for the choices made. Raises ``ValueError`` on input that cannot make
    valid HITs (unknown mode, duplicate ids, missing references, a system with fewer outputs
    than its share of a HIT, too few outputs that can be degraded).
    """
    _validate(outputs, mode, degradation)
    # Sorted so that the result depends on the outputs and the seed, not on input order.
    ordered = sorted(outputs, key=lambda o: (o.system_id, o.segment_id, o.output_id))
    degradable = [can_degrade(o.text, mode, language) for o in ordered]
    if sum(degradable) < BAD_REFERENCES_PER_HIT:
        raise BuildProblem(
            f"a HIT needs {BAD_REFERENCES_PER_HIT} bad references made from outputs with at "
            f"least two words; only {sum(degradable)} outputs have them. Add segments with "
            f"longer outputs"
        )
    rng = random.Random(seed)
    pool = _ReferencePool(ordered)
    hits = _Selection(ordered, degradable, rng).run()

    plans = []
    for hit in hits:
        items = _layout(hit, ordered, degradable, rng)
        by_set: dict[int, list[_Item]] = defaultdict(list)
        for item in items:
            by_set[item.set_index].append(item)
        position_of: dict[int, int] = {}
        placed: list[tuple[int, _Item]] = []
        for set_index in range(SET_COUNT):
            members = by_set[set_index]
            assert len(members) == SET_SIZE
            rng.shuffle(members)  # shuffled within the set; the sets keep their order
            for offset, item in enumerate(members):
                position = set_index * SET_SIZE + offset + 1
                placed.append((position, item))
                if item.role == ROLE_SYSTEM and item.pair >= 0:
                    position_of[item.pair] = position

        slots = []
        for position, item in placed:
            output = ordered[item.output]
            shown, method, controls = output.text, None, None
            if item.role != ROLE_SYSTEM:
                controls = position_of[item.pair]
            if item.role == ROLE_BAD_REFERENCE:
                bad = degrade(
                    output.text,
                    mode,
                    language,
                    rng,
                    option=degradation,
                    other_references=pool.others(output.segment_id),
                )
                shown, method = bad.text, bad.method
            elif item.role == ROLE_REFERENCE:
                shown = output.reference
            slots.append(
                SlotPlan(
                    position=position,
                    set_index=item.set_index,
                    role=item.role,
                    output_id=output.output_id,
                    system_id=output.system_id,
                    segment_id=output.segment_id,
                    shown_text=shown,
                    controls_position=controls,
                    reference_text=output.reference if mode == ADEQUACY else None,
                    degradation=method,
                )
            )
        plans.append(slots)
    return plans
