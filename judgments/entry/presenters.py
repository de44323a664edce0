"""What a worker's browser receives of a HIT's units: one presenter per task kind.

Both places that show a unit to a worker use these: the task page's JSON endpoints
(``judgments.views``: the current item or page of ranking sets) and MTurk's preview of a HIT
nobody has accepted yet (``judgments.entry.mturk``: the HIT's first unit, read-only). So the
rule that a worker sees a unit's texts and nothing else (never a slot's role, a system name,
an output's own text behind its shown text, or a gold answer) is written once, here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from campaigns.models import AssessmentMode, Campaign, Hit, HitSlot, HitTask
from judgments.actions import TASK_SPECS, ShownUnit

UnitPresenter = Callable[[ShownUnit, Campaign], dict[str, Any]]


def present_assess_item(unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
    """A direct-assessment item: its position (the only handle), the text to judge and, for
    adequacy, the main reference shown in gray. Nothing else about the slot is read."""
    slot = unit.slots[0]
    item: dict[str, Any] = {"position": slot.position, "text": slot.shown_text}
    if campaign.da_settings.assessment_mode == AssessmentMode.ADEQUACY:
        item["gray_text"] = slot.segment.reference if slot.segment else ""
    return item


def present_rank_set(unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
    """A ranking set: its group (the handle sent back), its number in the HIT, the segment's
    source and main reference, and its outputs (position and shown text only) in slot order.
    Nothing tells a gold or test set from another."""
    segment = next((slot.segment for slot in unit.slots if slot.segment), None)
    return {
        "set": unit.key,
        "number": unit.number,
        "source": segment.source if segment else "",
        "reference": segment.reference if segment else "",
        "outputs": [{"position": slot.position, "text": slot.shown_text} for slot in unit.slots],
    }


# Later task kinds add theirs here, and an answer spec in judgments.actions.TASK_SPECS.
UNIT_PRESENTERS: dict[str, UnitPresenter] = {
    HitTask.ASSESS: present_assess_item,
    HitTask.RANK: present_rank_set,
}


def first_unit(hit: Hit) -> tuple[ShownUnit, int] | None:
    """The HIT's first unit, as its task page would show it first (units as its task spec
    cuts them: a slot, or the lowest group's slots), with its slots' segments loaded, and the
    HIT's number of units; None for a HIT without slots or of a kind nothing presents. Two
    queries."""
    spec = TASK_SPECS.get(hit.task)
    if spec is None or hit.task not in UNIT_PRESENTERS:
        return None
    rows = list(
        HitSlot.objects.filter(hit=hit).order_by("position").values_list("pk", "position", "group")
    )
    units = spec.units(rows)
    if not units:
        return None
    first = units[0]
    slots = HitSlot.objects.select_related("segment").in_bulk(first.slot_ids)
    shown = ShownUnit(first.key, first.number, tuple(slots[pk] for pk in first.slot_ids))
    return shown, len(units)
