"""What a worker's browser receives of a HIT's units: the shared part.

Each kind's page presents its units (``judgments.kinds.TaskPage.present_unit``), and both
places that show a unit to a worker use it: the task page's JSON endpoints
(``judgments.views``: the current item or page of ranking sets) and MTurk's preview of a HIT
nobody has accepted yet (``judgments.entry.mturk``: the HIT's first unit, read-only, found by
:func:`first_unit`). So the rule that a worker sees a unit's texts and nothing else (never a
slot's role, a system name, an output's own text behind its shown text, or a gold answer) is
written once per kind, in its page.
"""

from __future__ import annotations

from campaigns.models import Hit, HitSlot
from judgments.actions import ShownUnit
from judgments.kinds import task_spec


def first_unit(hit: Hit) -> tuple[ShownUnit, int] | None:
    """The HIT's first unit, as its task page would show it first (units as its task spec
    cuts them: a slot, or the lowest group's slots), with its slots' segments loaded, and the
    HIT's number of units; None for a HIT without slots or of a kind nothing presents. Two
    queries."""
    spec = task_spec(hit.task)
    if spec is None:
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
