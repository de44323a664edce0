"""What the builder refuses, and why: the HIT size rule shared with the settings form,
systems short of outputs, and the checks of the build's input."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from campaigns.builders.direct_assessment.constants import (
    BAD_REFERENCES_PER_HIT,
    HIT_SIZE,
    REFERENCES_PER_HIT,
    REPEATS_PER_HIT,
    SYSTEM_OUTPUTS_PER_HIT,
)
from campaigns.builders.direct_assessment.plans import DAOutput
from campaigns.builders.direct_assessment.shares import minimum_outputs_per_system
from campaigns.builders.problems import BuildProblem
from campaigns.degradation import MODES, OPTIONS


def hit_size_problem(items_per_hit: int | None) -> str:
    """Why the builder cannot make HITs of ``items_per_hit`` items, and what to do; '' when it
    can. The one rule that the settings form (DirectAssessmentSettings.clean) and the build
    (campaigns.kinds.direct_assessment) both apply: the builder lays out the 2014 design
    exactly (10 sets of 10, Table 2), so a HIT has ``HIT_SIZE`` items."""
    if items_per_hit == HIT_SIZE:
        return ""
    return (
        f"Direct-assessment HITs follow the 2014 design of {HIT_SIZE} items (10 sets of 10: "
        f"{SYSTEM_OUTPUTS_PER_HIT} system outputs, {BAD_REFERENCES_PER_HIT} bad references, "
        f"{REPEATS_PER_HIT} repeats and {REFERENCES_PER_HIT} references, each control at least "
        f"40 items from the output it checks), so 'Items per hit' must be {HIT_SIZE}, not "
        f"{items_per_hit}."
    )


def short_systems_problem(outputs_per_system: dict[int, int]) -> BuildProblem | None:
    """The systems with fewer outputs than a HIT's equal share needs
    (:func:`minimum_outputs_per_system`), as the problem to tell the requester; None when
    every system has enough. The builder raises it; the campaign page's checklist shows it
    before a build is tried."""
    needed = minimum_outputs_per_system(len(outputs_per_system))
    short = {system: n for system, n in outputs_per_system.items() if n < needed}
    if not short:
        return None
    m = len(outputs_per_system)
    return BuildProblem(
        f"a direct-assessment HIT needs {needed} outputs per system when there are {m} "
        f"systems ({SYSTEM_OUTPUTS_PER_HIT} outputs in equal shares); the campaign has fewer "
        "for {systems} (outputs in brackets): add segments with outputs of "
        + ("this system" if len(short) == 1 else "these systems")
        + f", or leave {'it' if len(short) == 1 else 'them'} out of the import ('Items per "
        f"hit' is fixed at {HIT_SIZE}, the 2014 design the builder follows)",
        systems=short,
        counts=short,
    )


# --- validation --------------------------------------------------------------------------


def _validate(outputs: Sequence[DAOutput], mode: str, degradation: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    if degradation not in OPTIONS:
        raise ValueError(
            f"unknown degradation {degradation!r}; expected one of {', '.join(OPTIONS)}"
        )
    if not outputs:
        raise BuildProblem(
            "no outputs to build direct assessment HITs from: import segments with system "
            "outputs first"
        )
    duplicates = [oid for oid, n in Counter(o.output_id for o in outputs).items() if n > 1]
    if duplicates:
        raise ValueError(f"output ids appear more than once: {sorted(duplicates)[:10]}")
    no_reference = {o.segment_id for o in outputs if not o.reference.strip()}
    if no_reference:
        # Reference items (and, in adequacy, the gray text of every item) need one.
        raise BuildProblem(
            "direct assessment shows each segment's reference translation (as a reference "
            "item, and in adequacy under every output), and these segments have none: "
            "{segments}. Import the segments with a reference column (or reference files "
            "for the WMT format)",
            segments=no_reference,
        )
    problem = short_systems_problem(dict(Counter(o.system_id for o in outputs)))
    if problem is not None:
        raise problem
