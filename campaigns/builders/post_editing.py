"""HIT assembly for post-editing campaigns: pure, seedable, no Django.

Sources: Callison-Burch (2009), section 5.2 [000]: a HIT shows a run of ten consecutive
segments of one document, the reference beside a text box holding the MT output, and five
Turkers edit every machine-translated segment; Zaidan and Callison-Burch (2010) [003]: up to
15 segments a HIT, the source shown instead of the reference. METHODS.md section 3.

The layout (issue 13 item 2):

* **Runs.** Each document's segments, in order, are cut into runs of at most
  ``segments_per_hit`` consecutive segments. A document longer than one HIT is cut into
  ``ceil(n / segments_per_hit)`` runs of nearly equal length (longer runs first) rather than
  full runs and a short remainder: the papers are silent, and equal runs keep the pay per
  segment even (a 12-segment document becomes 6 + 6, not 10 + 2).
* **One HIT per system and run, a Latin square.** A run of ``m`` segments with ``S`` systems
  gives ``S`` HITs; HIT ``j`` shows, at position ``i``, the output of system
  ``order[(i + j) mod S]``, where ``order`` is the run's own seeded permutation of the
  systems. Over the run's ``S`` HITs every (segment, system) output is shown exactly once, so
  handing every HIT to ``redundancy`` distinct workers gives every output that many distinct
  editors; each system appears ``floor(m / S)`` or ``ceil(m / S)`` times in a HIT; and each
  position holds each system once over the run. A segment without an output of the system its
  cell asks for leaves that cell out (the HIT is one slot shorter); a HIT left empty is
  dropped.
* **A worker edits one output of a segment.** All HITs of a run share the run's number (the
  slots' ``group``); the hand-out never gives a worker a second HIT of a run they hold, since
  they would remember their first edit (campaigns/kinds/post_editing/kind.py).
* **Same seed, same HITs**: one generator seeded with the campaign's seed, runs in document
  order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from campaigns.builders.problems import BuildProblem

__all__ = [
    "PEOutput",
    "PESegment",
    "PESlot",
    "build_post_editing_hits",
    "run_lengths",
]


@dataclass(frozen=True)
class PESegment:
    segment_id: int
    document_id: int
    document_position: int
    position: int


@dataclass(frozen=True)
class PEOutput:
    output_id: int
    system_id: int
    segment_id: int
    text: str


@dataclass(frozen=True)
class PESlot:
    position: int  # 1-based in its HIT
    run: int  # 1-based, campaign-wide: the slots' group
    segment_id: int
    output_id: int
    system_id: int
    shown_text: str


def run_lengths(n_segments: int, segments_per_hit: int) -> list[int]:
    """Lengths of the runs a document of ``n_segments`` is cut into: the fewest runs of at
    most ``segments_per_hit``, of nearly equal length, longer ones first."""
    if segments_per_hit < 1:
        raise BuildProblem(
            "'Segments per hit' (segments_per_hit) must be at least 1: change it in the "
            "post-editing settings"
        )
    if n_segments <= 0:
        return []
    runs = math.ceil(n_segments / segments_per_hit)
    base, extra = divmod(n_segments, runs)
    return [base + 1] * extra + [base] * (runs - extra)


def build_post_editing_hits(
    segments: Iterable[PESegment],
    outputs: Iterable[PEOutput],
    *,
    segments_per_hit: int,
    seed: int,
) -> list[list[PESlot]]:
    """The campaign's edit HITs, each a list of slots in position order (see the module)."""
    by_segment: dict[int, dict[int, PEOutput]] = {}
    systems: set[int] = set()
    for output in outputs:
        cell = by_segment.setdefault(output.segment_id, {})
        if output.system_id in cell:
            raise BuildProblem(
                "{segments} has two outputs of {systems}: a post-editing HIT shows one output "
                "per system and segment. Remove one of them",
                segments=[output.segment_id],
                systems=[output.system_id],
            )
        cell[output.system_id] = output
        systems.add(output.system_id)
    if not systems:
        raise ValueError("The campaign has no system outputs yet. Import segments first.")
    all_systems = np.array(sorted(systems), dtype=np.int64)

    documents: dict[int, list[PESegment]] = {}
    for segment in sorted(segments, key=lambda s: (s.document_position, s.position)):
        if segment.segment_id in by_segment:  # a segment without outputs has nothing to edit
            documents.setdefault(segment.document_id, []).append(segment)

    rng = np.random.default_rng(seed)
    hits: list[list[PESlot]] = []
    run_number = 0
    for document_segments in documents.values():
        start = 0
        for length in run_lengths(len(document_segments), segments_per_hit):
            run = document_segments[start : start + length]
            start += length
            run_number += 1
            hits.extend(_run_hits(run, run_number, by_segment, all_systems, rng))
    return hits


def _run_hits(
    run: Sequence[PESegment],
    run_number: int,
    by_segment: dict[int, dict[int, PEOutput]],
    all_systems: np.ndarray,
    rng: np.random.Generator,
) -> list[list[PESlot]]:
    present = {system for segment in run for system in by_segment[segment.segment_id]}
    order = [int(s) for s in rng.permutation(all_systems) if int(s) in present]
    n_systems = len(order)
    hits = []
    for j in range(n_systems):
        slots: list[PESlot] = []
        for i, segment in enumerate(run):
            output = by_segment[segment.segment_id].get(order[(i + j) % n_systems])
            if output is None:
                continue
            slots.append(
                PESlot(
                    position=len(slots) + 1,
                    run=run_number,
                    segment_id=segment.segment_id,
                    output_id=output.output_id,
                    system_id=output.system_id,
                    shown_text=output.text,
                )
            )
        if slots:
            hits.append(slots)
    return hits
