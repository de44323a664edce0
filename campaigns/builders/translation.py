"""HIT assembly for crowd translation campaigns: pure, no Django.

Sources: Callison-Burch (2009), section 5.1 [000]: a HIT shows ten consecutive source sentences
of one document, each with a text box, and five workers translate every sentence; Zaidan and
Callison-Burch (2011) [004] show the sentences as images. METHODS.md section 6.

The layout (issue 15 item 1):

* **Runs.** Each document's segments, in order, are cut into runs of at most
  ``segments_per_hit`` consecutive segments, exactly as post-editing cuts them
  (:func:`campaigns.builders.post_editing.run_lengths`: a 12-sentence document with 10 a HIT
  becomes 6 + 6, not 10 + 2, so the pay per sentence stays even).
* **One HIT per run**, taken by the campaign's redundancy of distinct workers (five
  translators per sentence in 000). Every worker of a HIT sees the same sentences in the same
  (document) order: a translation needs the sentences before it, so nothing is shuffled.
* **Runs are numbered** 1, 2, ... over the campaign in document order; the number is the
  slots' ``group`` and HIT numbers follow it.
* **No randomness**: the same segments give the same HITs whatever the campaign's seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from campaigns.builders.post_editing import run_lengths

__all__ = ["TSegment", "TSlot", "TranslationRun", "build_translation_runs"]


@dataclass(frozen=True)
class TSegment:
    segment_id: int
    document_id: int
    document_position: int
    position: int
    source: str


@dataclass(frozen=True)
class TSlot:
    position: int  # 1-based in its HIT
    segment_id: int
    shown_text: str  # the source sentence (kept server-side when shown as an image)


@dataclass(frozen=True)
class TranslationRun:
    number: int  # 1-based over the campaign: the HIT's slots' group
    document_id: int
    slots: tuple[TSlot, ...]


def build_translation_runs(
    segments: Iterable[TSegment], *, segments_per_hit: int
) -> list[TranslationRun]:
    """The campaign's translation HITs, one per run, in document order (see the module).

    A segment with an empty source has nothing to translate and is left out (the importers
    refuse such rows; this keeps a hand-made campaign from showing an empty box)."""
    documents: dict[int, list[TSegment]] = {}
    ordered = sorted(segments, key=lambda s: (s.document_position, s.document_id, s.position))
    for segment in ordered:
        if segment.source.strip():
            documents.setdefault(segment.document_id, []).append(segment)
    runs: list[TranslationRun] = []
    for document_id, document_segments in documents.items():
        start = 0
        for length in run_lengths(len(document_segments), segments_per_hit):
            run = document_segments[start : start + length]
            start += length
            runs.append(
                TranslationRun(
                    number=len(runs) + 1,
                    document_id=document_id,
                    slots=tuple(
                        TSlot(position=i, segment_id=s.segment_id, shown_text=s.source)
                        for i, s in enumerate(run, start=1)
                    ),
                )
            )
    return runs
