"""The builder's records: :class:`DAOutput`, what it is given, and :class:`SlotPlan`, one slot
of the HITs it returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class DAOutput:
    """One system's translation of one segment, as the builder needs it.

    ``reference`` is the segment's (main) reference; ``alternative_references`` the segment's
    further references, if any. The ``replace`` degradation takes its phrase from the
    references (main and alternative) of *other* segments (``build._OtherSegmentsReferences``),
    never from the segment's own: they say the same thing, so the phrase would keep the
    meaning (issue 17; WMT takes another segment's reference).
    """

    output_id: int
    system_id: int
    segment_id: int
    text: str
    reference: str
    alternative_references: Sequence[str] = ()


@dataclass(frozen=True)
class SlotPlan:
    """One of the 100 slots of a HIT plan.

    ``output_id`` is the output judged; for a bad reference the output it was made from, for a
    repeat the repeated output, for a reference the output whose segment's reference is shown
    (the output it is paired with). ``system_id`` and ``segment_id`` are that output's.
    ``controls_position`` is, for a control slot, the position of the slot it controls (its
    pair in the set five away), ``None`` for a system slot. ``reference_text`` is the
    reference shown in gray in adequacy mode, ``None`` in fluency mode. ``degradation`` says
    how a bad reference was made (``insert``, ``delete`` or ``replace``), else ``None``.
    """

    position: int
    set_index: int
    role: str
    output_id: int
    system_id: int
    segment_id: int
    shown_text: str
    controls_position: int | None
    reference_text: str | None
    degradation: str | None = None
