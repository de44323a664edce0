"""Gold units for ranking campaigns: pure, no Django.

Source: Paul, Sumita, Bentivogli and Federico 2013, "Crowd-based MT Evaluation for non-English
Target Languages" (``papers/002``), section 4.2; ``METHODS.md`` section 5 summarises it.

A *gold unit* is a ranking set with a known answer: one output of a segment's set is replaced
by a *gold translation* that must be ranked best ("best-only"), and in the "best+worst" scheme
the set also holds a known-worst output that must be ranked among the worst
(:mod:`campaigns.builders.ranking` lays the sets out and says which ranks are expected). This
module produces the :class:`GoldUnit` records that builder consumes, in two ways:

* **Automatic choice** (:func:`choose_gold_units`, 002 section 4.2). From each segment's
  paraphrased (alternative) references ``references[1:]`` take the one "similar to the main
  reference" and better than "the best MT output": by edit distance, "minimal distance to the
  main reference and maximal distance to the MT output" of the best system (002 used the
  ORACLE-best system, the one trained on the most data). The paper gives no formula, so:

  - *distance*: Levenshtein distance over units (words; characters for languages written
    without spaces, as :func:`campaigns.degradation.split_units` splits them, since 002
    includes Japanese and Chinese), **normalised** by the longer of the two texts, so in
    ``[0, 1]``. Raw counts grow with sentence length, and the top-K choice compares scores
    *across* segments: with raw counts the longest sentences would always win, whatever
    their quality. ``normalise=False`` gives raw counts.
  - *score* = ``distance(candidate, best output) - distance(candidate, main reference)``:
    high when the candidate is near the reference and far from the best output, the two
    criteria weighted equally. A segment's candidate is its highest-scoring alternative
    reference; the ``count`` segments with the highest scores become gold units (30 in 002,
    "the top-30 sentence IDs with the best gold translation distance scores").
  - *eligibility*, from 002's two requirements ("similar to the main reference", and "better
    than the best MT output") and "not too trivial": a candidate must be strictly closer to
    the main reference than the best output is (otherwise nothing says it is better), and
    must not be the main reference itself (the worker sees the reference on the same screen,
    so a copy of it is trivial). A candidate identical to the best output is excluded by the
    first rule. Segments without alternative references or without an output of the best
    system have no candidate.

  "The best system" is the one with the highest score in ``system_scores`` when that is given
  (e.g. the campaign's results so far), else ``best_system_id`` (a requester's choice, or
  002's ORACLE-best). The known-worst output of a best+worst unit is the output of the system
  with the lowest score, else of ``worst_system_id`` (002's ORACLE-worst, the 10k system).
  Ties in the score are broken by segment id, so the choice needs no seed.

* **Requester-given gold** (:func:`gold_units_from_marks`): the requester marks, per segment,
  the expected best output (or writes a gold translation) and optionally the known-worst
  output.

The edit distance is implemented here with numpy (:func:`edit_distance`): neither
python-Levenshtein nor rapidfuzz is a dependency, and sacrebleu's TER adds shifts and a beam
search, which is not 002's "edit distance".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from campaigns.degradation import split_units

__all__ = [
    "DEFAULT_GOLD_COUNT",
    "ORIGIN_ALTERNATIVE_REFERENCE",
    "ORIGIN_REQUESTER",
    "GoldCandidate",
    "GoldMark",
    "GoldUnit",
    "SegmentReferences",
    "choose_gold_units",
    "edit_distance",
    "gold_candidates",
    "gold_units_from_marks",
    "normalised_edit_distance",
]

DEFAULT_GOLD_COUNT = 30  # 002 section 4.2: "the top-30 sentence IDs"

ORIGIN_ALTERNATIVE_REFERENCE = "alternative_reference"
ORIGIN_REQUESTER = "requester"


@dataclass(frozen=True)
class GoldUnit:
    """What a gold ranking set needs to know about one segment.

    ``text`` is the gold translation shown in the gold slot. ``best_output_id`` is set when
    the gold translation *is* an existing output (a requester marked it best); it is ``None``
    for a gold translation that is no output (an alternative reference). ``worst_output_id``
    is the segment's known-worst output (needed by the best+worst scheme, ignored by
    best-only). ``score`` is the automatic choice's score, ``None`` for requester gold.
    """

    segment_id: int
    text: str
    best_output_id: int | None = None
    worst_output_id: int | None = None
    origin: str = ORIGIN_ALTERNATIVE_REFERENCE
    score: float | None = None


@dataclass(frozen=True)
class SegmentReferences:
    """A segment's references, main reference first (as ``Segment.references``)."""

    segment_id: int
    references: Sequence[str]


@dataclass(frozen=True)
class GoldMark:
    """A requester's answer for one segment: the expected best output, or a gold text of
    their own (exactly one of the two), and optionally the known-worst output."""

    segment_id: int
    best_output_id: int | None = None
    gold_text: str | None = None
    worst_output_id: int | None = None


@dataclass(frozen=True)
class GoldCandidate:
    """The best alternative reference of one segment, with its distances (for audits)."""

    segment_id: int
    reference_index: int  # index in the segment's references (>= 1)
    text: str
    distance_to_reference: float
    distance_to_best: float
    best_to_reference: float  # the best output's own distance to the main reference
    score: float


class OutputLike(Protocol):
    """Any record with these attributes (e.g. :class:`campaigns.builders.ranking.RankingOutput`)."""

    @property
    def output_id(self) -> int: ...
    @property
    def system_id(self) -> int: ...
    @property
    def segment_id(self) -> int: ...
    @property
    def text(self) -> str: ...


# --- edit distance -----------------------------------------------------------------------


def _codes(a: Sequence[str], b: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    vocabulary: dict[str, int] = {}
    a_codes = np.array([vocabulary.setdefault(u, len(vocabulary)) for u in a], dtype=np.int64)
    b_codes = np.array([vocabulary.setdefault(u, len(vocabulary)) for u in b], dtype=np.int64)
    return a_codes, b_codes


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two unit sequences: the fewest insertions, deletions and
    substitutions (each costing 1) that turn ``a`` into ``b``.

    Dynamic programming one row at a time with numpy. Row ``i`` is first computed without
    insertions, ``x[j] = min(prev[j] + 1, prev[j - 1] + (a[i] != b[j]))``; insertions along
    the row then give ``row[j] = min over k <= j of x[k] + (j - k)``, which is
    ``j + cumulative minimum of (x[k] - k)``: one vectorised pass per row.
    """
    if len(a) < len(b):
        a, b = b, a  # rows over the longer sequence, columns over the shorter
    if not b:
        return len(a)
    a_codes, b_codes = _codes(a, b)
    columns = np.arange(len(b) + 1, dtype=np.int64)
    row = columns.copy()  # distance from the empty prefix of a
    for i, code in enumerate(a_codes, start=1):
        x = np.empty_like(row)
        x[0] = i
        x[1:] = np.minimum(row[1:] + 1, row[:-1] + (b_codes != code))
        row = np.minimum.accumulate(x - columns) + columns
    return int(row[-1])


def normalised_edit_distance(a: Sequence[str], b: Sequence[str]) -> float:
    """:func:`edit_distance` divided by the longer length: 0 for equal sequences, 1 for
    sequences with nothing in common (or one of them empty); 0 when both are empty."""
    longest = max(len(a), len(b))
    return edit_distance(a, b) / longest if longest else 0.0


# --- automatic choice (002 section 4.2) ----------------------------------------------------


def _pick_system(
    scores: Mapping[int, float] | None, given: int | None, *, best: bool, what: str
) -> int | None:
    if scores:
        target = max(scores.values()) if best else min(scores.values())
        tied = sorted(system for system, score in scores.items() if score == target)
        if len(tied) > 1:
            raise ValueError(
                f"systems {tied} tie for the {what} score; name the {what} system instead"
            )
        return tied[0]
    return given


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def gold_candidates(
    segments: Iterable[SegmentReferences],
    outputs: Iterable[OutputLike],
    *,
    best_system_id: int,
    language: str,
    normalise: bool = True,
) -> list[GoldCandidate]:
    """Each segment's best eligible alternative reference (see the module docstring), in
    order of decreasing score (ties: segment id, then reference index)."""
    best_output: dict[int, str] = {}
    for output in outputs:
        if output.system_id == best_system_id:
            if output.segment_id in best_output:
                raise ValueError(
                    f"system {best_system_id} has two outputs for segment {output.segment_id}"
                )
            best_output[output.segment_id] = output.text
    distance = normalised_edit_distance if normalise else edit_distance
    candidates = []
    for segment in segments:
        references = list(segment.references)
        if len(references) < 2 or segment.segment_id not in best_output:
            continue
        main = split_units(references[0], language)
        best = split_units(best_output[segment.segment_id], language)
        best_to_reference = float(distance(best, main))
        chosen: GoldCandidate | None = None
        for index, text in enumerate(references[1:], start=1):
            if _same_text(text, references[0]):
                continue  # a copy of the reference shown on the same screen: too trivial
            units = split_units(text, language)
            to_reference = float(distance(units, main))
            if to_reference >= best_to_reference:
                continue  # not closer to the reference than the best output: not better
            to_best = float(distance(units, best))
            score = to_best - to_reference
            if chosen is None or score > chosen.score:
                chosen = GoldCandidate(
                    segment_id=segment.segment_id,
                    reference_index=index,
                    text=text,
                    distance_to_reference=to_reference,
                    distance_to_best=to_best,
                    best_to_reference=best_to_reference,
                    score=score,
                )
        if chosen is not None:
            candidates.append(chosen)
    candidates.sort(key=lambda c: (-c.score, c.segment_id, c.reference_index))
    return candidates


def choose_gold_units(
    segments: Iterable[SegmentReferences],
    outputs: Iterable[OutputLike],
    *,
    language: str,
    count: int = DEFAULT_GOLD_COUNT,
    system_scores: Mapping[int, float] | None = None,
    best_system_id: int | None = None,
    worst_system_id: int | None = None,
    require_worst: bool = False,
    normalise: bool = True,
) -> list[GoldUnit]:
    """The ``count`` best gold units chosen automatically (002 section 4.2), best first.

    ``system_scores`` (higher is better; e.g. results so far) decides the best and the worst
    system; without it ``best_system_id`` is required and ``worst_system_id`` optional.
    ``worst_output_id`` of each unit is the worst system's output of the segment, if it has
    one; with ``require_worst`` (for best+worst campaigns) segments without such an output
    are passed over. Fewer than ``count`` units come back when fewer segments qualify.
    """
    if count < 0:
        raise ValueError("count must be zero or more")
    outputs = list(outputs)
    best = _pick_system(system_scores, best_system_id, best=True, what="best")
    worst = _pick_system(system_scores, worst_system_id, best=False, what="worst")
    if best is None:
        raise ValueError("give system_scores or best_system_id: gold must beat the best system")
    if worst == best:
        raise ValueError("the best and the worst system are the same system")
    if require_worst and worst is None:
        raise ValueError("best+worst gold needs a worst system: give system_scores or its id")
    worst_output: dict[int, int] = {
        o.segment_id: o.output_id for o in outputs if worst is not None and o.system_id == worst
    }
    units = []
    for candidate in gold_candidates(
        segments, outputs, best_system_id=best, language=language, normalise=normalise
    ):
        if len(units) == count:
            break
        worst_id = worst_output.get(candidate.segment_id)
        if require_worst and worst_id is None:
            continue
        units.append(
            GoldUnit(
                segment_id=candidate.segment_id,
                text=candidate.text,
                worst_output_id=worst_id,
                origin=ORIGIN_ALTERNATIVE_REFERENCE,
                score=candidate.score,
            )
        )
    return units


# --- requester-given gold ------------------------------------------------------------------


def gold_units_from_marks(
    marks: Iterable[GoldMark], outputs: Iterable[OutputLike]
) -> list[GoldUnit]:
    """Gold units from a requester's marks, in segment order. Raises ``ValueError`` on a mark
    that names an output of another segment, both or neither of a best output and a gold
    text, a worst output equal to the best, or two marks for one segment."""
    by_id = {o.output_id: o for o in outputs}
    units: dict[int, GoldUnit] = {}
    problems: defaultdict[str, list[int]] = defaultdict(list)
    for mark in marks:
        segment = mark.segment_id
        if segment in units:
            problems["segments marked twice"].append(segment)
            continue
        if (mark.best_output_id is None) == (mark.gold_text is None or not mark.gold_text.strip()):
            problems["marks that need exactly one of a best output and a gold text"].append(segment)
            continue
        best = by_id.get(mark.best_output_id) if mark.best_output_id is not None else None
        if mark.best_output_id is not None and (best is None or best.segment_id != segment):
            problems["best outputs that are not outputs of their segment"].append(segment)
            continue
        if mark.worst_output_id is not None:
            worst = by_id.get(mark.worst_output_id)
            if worst is None or worst.segment_id != segment:
                problems["worst outputs that are not outputs of their segment"].append(segment)
                continue
            if mark.worst_output_id == mark.best_output_id:
                problems["marks whose best and worst output are the same"].append(segment)
                continue
        units[segment] = GoldUnit(
            segment_id=segment,
            text=best.text if best is not None else str(mark.gold_text),
            best_output_id=mark.best_output_id,
            worst_output_id=mark.worst_output_id,
            origin=ORIGIN_REQUESTER,
        )
    if problems:
        raise ValueError(
            "; ".join(f"{what}: segments {sorted(ids)[:10]}" for what, ids in problems.items())
        )
    return [units[segment] for segment in sorted(units)]
