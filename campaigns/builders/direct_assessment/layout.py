"""The layout of one HIT (Table 2): which of its 70 outputs become bad references, repeats
and references, and in which of the 10 sets each item goes, pairing ``S_t`` with ``S_t+5``."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass

from campaigns.builders.direct_assessment.constants import (
    BAD_REFERENCES_PER_HIT,
    PAIRED_SET_OFFSET,
    REFERENCES_PER_HIT,
    REPEATS_PER_HIT,
    ROLE_BAD_REFERENCE,
    ROLE_REFERENCE,
    ROLE_REPEAT,
    ROLE_SYSTEM,
)
from campaigns.builders.direct_assessment.plans import DAOutput

# --- the layout of one HIT (Table 2) -----------------------------------------------------


@dataclass
class _Item:
    role: str
    output: int
    set_index: int
    pair: int  # both members of a pair share this number; the control points to the other


def _pick_repeats(
    hit: list[int], excluded: set[int], system_of: list[int], rng: random.Random
) -> list[int]:
    """10 outputs to repeat, each going to the system with the fewest judged items so far
    (its system slots plus its repeats), so that what is scored per system stays balanced."""
    shown = Counter(system_of[i] for i in hit)
    available: dict[int, list[int]] = defaultdict(list)
    for i in hit:
        if i not in excluded:
            available[system_of[i]].append(i)
    for items in available.values():
        rng.shuffle(items)
    systems = sorted(available)
    rng.shuffle(systems)
    repeats = []
    for _ in range(REPEATS_PER_HIT):
        s = min((s for s in systems if available[s]), key=lambda s: shown[s])
        repeats.append(available[s].pop())
        shown[s] += 1
    return repeats


def _layout(
    hit: list[int], outputs: list[DAOutput], degradable: list[bool], rng: random.Random
) -> list[_Item]:
    """Give the 70 outputs their roles and sets as in Table 2."""
    system_of = [o.system_id for o in outputs]
    sources = rng.sample([i for i in hit if degradable[i]], BAD_REFERENCES_PER_HIT)
    repeats = _pick_repeats(hit, set(sources), system_of, rng)
    rest = [i for i in hit if i not in set(sources) | set(repeats)]
    rng.shuffle(rest)
    # Outputs identical to their reference (the reference as a pseudo-system) last.
    rest.sort(key=lambda i: outputs[i].text.strip() == outputs[i].reference.strip())
    referenced, ordinary = rest[:REFERENCES_PER_HIT], rest[REFERENCES_PER_HIT:]
    for group in (sources, repeats, referenced, ordinary):
        rng.shuffle(group)

    items: list[_Item] = []
    pair = 0

    def add_pair(first: tuple[str, int, int], second: tuple[str, int, int]) -> None:
        nonlocal pair
        items.append(_Item(first[0], first[1], first[2], pair))
        items.append(_Item(second[0], second[1], second[2], pair))
        pair += 1

    for t in range(PAIRED_SET_OFFSET):
        early, late = t, t + PAIRED_SET_OFFSET
        a, d = sources[2 * t], sources[2 * t + 1]
        b, e = repeats[2 * t], repeats[2 * t + 1]
        c, f = referenced[2 * t], referenced[2 * t + 1]
        add_pair((ROLE_BAD_REFERENCE, a, early), (ROLE_SYSTEM, a, late))
        add_pair((ROLE_SYSTEM, d, early), (ROLE_BAD_REFERENCE, d, late))
        add_pair((ROLE_SYSTEM, b, early), (ROLE_REPEAT, b, late))
        add_pair((ROLE_SYSTEM, e, early), (ROLE_REPEAT, e, late))
        add_pair((ROLE_REFERENCE, c, early), (ROLE_SYSTEM, c, late))
        add_pair((ROLE_SYSTEM, f, early), (ROLE_REFERENCE, f, late))
        for i in ordinary[8 * t : 8 * t + 4]:
            items.append(_Item(ROLE_SYSTEM, i, early, -1))
        for i in ordinary[8 * t + 4 : 8 * t + 8]:
            items.append(_Item(ROLE_SYSTEM, i, late, -1))
    return items
