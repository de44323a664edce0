"""Equal shares per system and the number of HITs: each HIT gives every system ``70 // m`` or
``70 // m + 1`` system slots, and :func:`hit_count` is the fewest HITs that show every output."""

from __future__ import annotations

from campaigns.builders.direct_assessment.constants import SYSTEM_OUTPUTS_PER_HIT

# --- shares and number of HITs -----------------------------------------------------------


def _system_ranks(counts: dict[int, int]) -> dict[int, int]:
    # Larger systems take the extra slots first: they are the ones that need them.
    ordered = sorted(counts, key=lambda system: (-counts[system], system))
    return {system: rank for rank, system in enumerate(ordered)}


def _share(rank: int, hit: int, system_count: int) -> int:
    """Slots of the system of ``rank`` in HIT ``hit``: the extra slots go round the systems."""
    base, extra = divmod(SYSTEM_OUTPUTS_PER_HIT, system_count)
    first = hit * extra
    return base + sum(1 for j in range(extra) if (first + j) % system_count == rank)


def _slots_in_first_hits(rank: int, hits: int, system_count: int) -> int:
    base, extra = divmod(SYSTEM_OUTPUTS_PER_HIT, system_count)
    handed_out = hits * extra
    return hits * base + handed_out // system_count + (rank < handed_out % system_count)


def minimum_outputs_per_system(system_count: int) -> int:
    """Outputs each system needs so that a HIT can show ``SYSTEM_OUTPUTS_PER_HIT`` distinct
    outputs in equal shares (18 with 4 systems)."""
    base, extra = divmod(SYSTEM_OUTPUTS_PER_HIT, system_count)
    return base + (1 if extra else 0)


def hit_count(outputs_per_system: dict[int, int]) -> int:
    """The number of HITs :func:`build_direct_assessment_hits` makes: the fewest in which every
    system, at its equal share per HIT, shows each of its outputs at least once."""
    if not outputs_per_system:
        raise ValueError("no outputs")
    ranks = _system_ranks(outputs_per_system)
    system_count = len(ranks)
    total = sum(outputs_per_system.values())
    hits = max(1, -(-total // SYSTEM_OUTPUTS_PER_HIT))
    while any(
        _slots_in_first_hits(ranks[system], hits, system_count) < count
        for system, count in outputs_per_system.items()
    ):
        hits += 1
    return hits
