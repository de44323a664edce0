"""HIT assembly for direct assessment (slider) campaigns: pure, seedable, no Django.

Source: Graham, Baldwin, Moffat and Zobel, "Is Machine Translation Getting Better over Time?"
(EACL 2014, section 3 and Table 2, ``papers/001``), whose HIT design comes from Graham et al.
(LAW 2013, section 4, same file). ``METHODS.md`` section 2 summarises it.

A HIT is 100 items in 10 sets of 10 (2014 section 3, "HIT structure"): 70 distinct system
outputs "made up of roughly equal proportions of translations for each evaluated system",
10 bad references "each based on one of the 70 system outputs", 10 exact repeats and 10
reference translations. Table 2 says what each set holds; sets ``S_t`` and ``S_t+5``
(``t = 0..4`` here, 0-based) are paired::

    S_t                                   S_t+5
    bad reference of output a             output a
    output b                              repeat of b
    reference of output c's segment       output c
    output d                              bad reference of output d     } "above in
    output e                              repeat of e                   }  reverse"
    output f                              reference of output f's seg.  }
    4 other outputs                       4 other outputs

Items are shuffled within each set and the sets keep their order, so the two members of every
pair lie in sets five apart: their positions differ by at least 41 (40 items in between, the
paper's "minimum of 40 intervening assessments") and at most 59 (tested, both bounds reached).

On the repeat row read "in reverse": a repeat is an exact copy, so which of its two showings
carries the ``repeat`` label is bookkeeping only. We label the *later* showing, so a repeat
always follows the output it repeats (``controls_position < position``), as the 2013 paper's
"ask again" and ``HitSlot.controls`` ("a repeat to the first showing") mean, and as the
"initial vs repeat" comparison of Assumption A needs. The content of each set is exactly
Table 2's; only the label moves, so ``S_t`` holds 8 ``system`` slots, a bad reference and a
reference, and ``S_t+5`` 6 ``system`` slots, a bad reference, a reference and 2 repeats.

Choices this module makes, and why (all tested in
``tests/campaigns/test_direct_assessment_layout.py``):

* **Equal shares per system.** Each HIT gives every system ``70 // m`` or ``70 // m + 1``
  system slots (``m`` systems; the extra slots rotate over the systems, larger systems first).
  A system needs at least as many outputs as its share, otherwise a HIT could not hold 70
  *distinct* outputs: ``ValueError``.
* **Coverage in the fewest HITs, re-use spread evenly.** The number of HITs is the smallest
  for which every system's slots over all HITs are at least its number of outputs
  (:func:`hit_count`). A system's share of a HIT always comes from its least-shown outputs,
  those not shown yet first, so every output is shown before any is re-used, and each
  system's outputs end up shown ``n`` or ``n + 1`` times (by induction: at the start of a HIT
  they are at two adjacent levels, and taking distinct outputs from the lower level first
  keeps them so). That is how the last HIT is completed when counts do not divide evenly
  (with re-used outputs, drawn in equal shares from every system and evenly within each),
  and how a system with fewer outputs than the others keeps its share in every HIT. Only the
  bad-reference rule below may break this evenness, in campaigns with very many one-word
  outputs.
* **One output per segment in a HIT when possible.** The paper rates each translation "in
  isolation from other translations"; showing a worker several systems' translations of the
  same sentence (and, in adequacy, the same gray reference again) invites comparison and lets
  them recognise it, so WMT avoids a source twice in one HIT. We place outputs along one
  shuffled segment order, each system starting at a different offset (so that the systems
  walk through different segments at the same time), take among equally used outputs those
  on segments the HIT does not show yet (then the least-shown segments), and afterwards swap
  outputs of the same system between HITs to undo what remains.
  Guarantee: when every system has an output for each of ``L`` segments and
  ``L >= m * (70 // m + 2)``, no HIT shows a segment twice. (Neighbouring walkers start at
  least ``floor(L / m)`` segments apart. After ``h`` HITs a system has taken
  ``S(h) = h * (70 // m) + floor or ceil of h * (70 % m) / m`` slots, so for any two systems
  ``S_i(h + 1) - S_j(h) <= 70 // m + 2 <= floor(L / m)``: in HIT ``h`` a walker's chunk ends
  before the next walker's chunk starts. And with ``L - 70 >= 2m`` free segments a system
  that re-uses its outputs always finds one on a free segment.) Below that bound it is a
  preference that the swaps usually but not always meet (e.g. exactly 70 segments, where
  every HIT needs all of them); a campaign with fewer than 70 segments must show segments
  more than once in a HIT, and the swaps spread those repeats out. It is never a reason to
  leave an output out or to add a HIT.
* **Bad references only from outputs that can be degraded** (:func:`can_degrade`: two words at
  least), so every HIT needs 10 such outputs among its 70. A HIT short of them gets them, in
  this order, by swapping outputs of the same system with a HIT that has more than 10; by
  showing a degradable output instead of a re-used non-degradable one (most-shown out,
  least-shown in); by moving a non-degradable output into another HIT in place of a re-used
  output there; or by first raising another HIT above 10 so that one of those works. All keep
  coverage and shares. When nothing works (the campaign has too few outputs of two words or
  more for its HITs): ``ValueError``.
* **Repeats balance what is scored.** Repeats count as outputs for system scores (METHODS.md),
  so the 10 repeats go to the systems with the fewest outputs in the HIT first.
* **References are paired with outputs that differ from them** where possible, so that a
  reference item is not merely a repeat (the reference evaluated as a pseudo-system).

Randomness comes from ``random.Random(seed)`` only: the same input and seed give the same
HITs whatever the order of the input list; another seed gives other HITs.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from campaigns.builders.problems import BuildProblem
from campaigns.degradation import ADEQUACY, DELETE, MODES, OPTIONS, can_degrade, degrade

__all__ = [
    "BAD_REFERENCES_PER_HIT",
    "HIT_SIZE",
    "PAIR_DISTANCE_MAX",
    "PAIR_DISTANCE_MIN",
    "REFERENCES_PER_HIT",
    "REPEATS_PER_HIT",
    "ROLE_BAD_REFERENCE",
    "ROLE_REFERENCE",
    "ROLE_REPEAT",
    "ROLE_SYSTEM",
    "SET_COUNT",
    "SET_SIZE",
    "SYSTEM_OUTPUTS_PER_HIT",
    "DAOutput",
    "SlotPlan",
    "build_direct_assessment_hits",
    "hit_count",
    "hit_size_problem",
    "minimum_outputs_per_system",
    "short_systems_problem",
]

# 2014 section 3: a HIT of 100 in 10 sets of 10, 70 outputs + 10 + 10 + 10 controls.
HIT_SIZE = 100
SET_SIZE = 10
SET_COUNT = 10
SYSTEM_OUTPUTS_PER_HIT = 70
BAD_REFERENCES_PER_HIT = 10
REPEATS_PER_HIT = 10
REFERENCES_PER_HIT = 10
PAIRED_SET_OFFSET = 5  # Table 2 pairs S_t with S_t+5
# Members of a pair are in sets five apart: last of S_t to first of S_t+5 is 41 positions,
# first of S_t to last of S_t+5 is 59.
PAIR_DISTANCE_MIN = PAIRED_SET_OFFSET * SET_SIZE - SET_SIZE + 1
PAIR_DISTANCE_MAX = PAIRED_SET_OFFSET * SET_SIZE + SET_SIZE - 1

# Slot roles, spelled as campaigns.models.SlotRole (this module may not import Django).
ROLE_SYSTEM = "system"
ROLE_BAD_REFERENCE = "bad_reference"
ROLE_REPEAT = "repeat"
ROLE_REFERENCE = "reference"

# How many swap partners (other HITs) to try when moving a segment shown twice in a HIT:
# a preference, which must stay cheap on campaigns of thousands of HITs.
_REPAIR_TRIES = 64


@dataclass(frozen=True)
class DAOutput:
    """One system's translation of one segment, as the builder needs it.

    ``reference`` is the segment's (main) reference; ``alternative_references`` the segment's
    further references, if any. The ``replace`` degradation takes its phrase from the
    references (main and alternative) of *other* segments (:class:`_OtherSegmentsReferences`),
    never from the segment's own: they say the same thing, so the phrase would keep the
    meaning (issue 17; WMT takes another segment's reference).
    """

    output_id: int
    system_id: int
    segment_id: int
    text: str
    reference: str
    alternative_references: Sequence[str] = ()


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


# --- choosing the 70 outputs of each HIT -------------------------------------------------


class _Selection:
    """Which outputs each HIT shows as system items: coverage first, equal shares, distinct
    segments where possible, at least 10 degradable outputs per HIT."""

    def __init__(self, outputs: list[DAOutput], degradable: list[bool], rng: random.Random) -> None:
        self.outputs = outputs
        self.degradable = degradable
        self.rng = rng
        self.system_of = [o.system_id for o in outputs]
        self.segment_of = [o.segment_id for o in outputs]
        self.by_system: dict[int, list[int]] = defaultdict(list)
        for i, s in enumerate(self.system_of):
            self.by_system[s].append(i)
        counts = Counter(self.system_of)
        self.systems = sorted(counts)
        self.ranks = _system_ranks(dict(counts))
        self.hit_total = hit_count(dict(counts))
        self.shares = [
            {s: _share(self.ranks[s], h, len(self.systems)) for s in self.systems}
            for h in range(self.hit_total)
        ]
        self.hits: list[list[int]] = []

    # Stage 1: greedy, HIT by HIT.
    def choose(self) -> None:
        """Fill each HIT system by system with the system's least-shown outputs.

        Evenness is the rule: a system's share always comes from its outputs shown least so
        far (not shown yet first), so every output is covered before any is re-used, and by
        induction its outputs end up shown ``n`` or ``n + 1`` times (at the start of a HIT
        they are at two adjacent levels; picking distinct outputs from the lower level first
        keeps them so). Among equally used outputs: first those in the walking order on a
        segment the HIT does not show yet, then the least-shown segments.
        """
        rng, n = self.rng, len(self.outputs)
        segments = sorted(set(self.segment_of))
        rng.shuffle(segments)
        segment_rank = {segment: rank for rank, segment in enumerate(segments)}
        walkers = list(self.systems)
        rng.shuffle(walkers)
        # Each system walks the same shuffled segment order from its own offset, so at any
        # moment the systems are at different segments (a diagonal, as in a Latin square).
        offset = {s: i * len(segments) // len(walkers) for i, s in enumerate(walkers)}
        tiebreak = [rng.random() for _ in range(n)]
        pending: dict[int, list[int]] = {s: list(items) for s, items in self.by_system.items()}
        for s, items in pending.items():
            items.sort(
                key=lambda i, s=s: (
                    (segment_rank[self.segment_of[i]] - offset[s]) % len(segments),
                    tiebreak[i],
                )
            )
        self._pending = pending
        self._cursor = dict.fromkeys(self.systems, 0)  # pending[s][:cursor[s]] all shown
        self._uses = [0] * n
        self._tiebreak = tiebreak
        for h in range(self.hit_total):
            self.hits.append(self._fill(self.shares[h]))
        assert all(self._uses), "every output is shown before any is re-used"

    def _fill(self, share: dict[int, int]) -> list[int]:
        """The outputs of one HIT (see :meth:`choose`)."""
        rng, pending, cursor = self.rng, self._pending, self._cursor
        uses, tiebreak = self._uses, self._tiebreak
        chosen: list[int] = []
        in_hit: set[int] = set()
        segments_in_hit: Counter[int] = Counter()
        taken = Counter[int]()

        def take(i: int) -> None:
            chosen.append(i)
            in_hit.add(i)
            segments_in_hit[self.segment_of[i]] += 1
            taken[self.system_of[i]] += 1
            uses[i] += 1

        def next_new_on_free_segment(s: int, start: int) -> tuple[int, int]:
            items = pending[s]
            while cursor[s] < len(items) and uses[items[cursor[s]]]:
                cursor[s] += 1
            for at in range(max(start, cursor[s]), len(items)):
                i = items[at]
                if not uses[i] and not segments_in_hit[self.segment_of[i]]:
                    return i, at + 1
            return -1, len(items)

        order = [s for s in self.systems if share[s]]
        rng.shuffle(order)
        # A: outputs not shown yet, in walking order, on free segments; one system at a time
        # round the table so that no system takes all the free segments first.
        scan = dict.fromkeys(order, 0)
        active = list(order)
        while active:
            still = []
            for s in active:
                i, scan[s] = next_new_on_free_segment(s, scan[s])
                if i >= 0:
                    take(i)
                    if taken[s] < share[s]:
                        still.append(s)
            active = still
        # B: the rest of each share, least used first, then least-shown segment. (Keys are
        # computed once per system: its outputs are on distinct segments.)
        for s in order:
            missing = share[s] - taken[s]
            if missing:
                candidates = [i for i in self.by_system[s] if i not in in_hit]
                for i in heapq.nsmallest(
                    missing,
                    candidates,
                    key=lambda i: (uses[i], segments_in_hit[self.segment_of[i]], tiebreak[i]),
                ):
                    take(i)
        return chosen

    # Bookkeeping shared by the repairs.
    def _index(self) -> None:
        self.members = [set(hit) for hit in self.hits]
        self.segments = [Counter(self.segment_of[i] for i in hit) for hit in self.hits]
        self.degradable_count = [sum(self.degradable[i] for i in hit) for hit in self.hits]
        self.occurrences = Counter(i for hit in self.hits for i in hit)

    def _put(self, h: int, old: int, new: int) -> None:
        """Show ``new`` instead of ``old`` in HIT ``h``."""
        hit = self.hits[h]
        hit[hit.index(old)] = new
        self.members[h].discard(old)
        self.members[h].add(new)
        self.segments[h][self.segment_of[old]] -= 1
        self.segments[h][self.segment_of[new]] += 1
        self.degradable_count[h] += self.degradable[new] - self.degradable[old]
        self.occurrences[old] -= 1
        self.occurrences[new] += 1

    def _segment_gain(self, h: int, x: int, h2: int, z: int) -> int:
        """How many fewer same-segment pairs HITs ``h`` and ``h2`` hold once ``x`` (in ``h``)
        and ``z`` (in ``h2``) change places; negative if more."""
        sx, sz = self.segment_of[x], self.segment_of[z]
        if sx == sz:
            return 0
        here, there = self.segments[h], self.segments[h2]
        return (here[sx] - 1 - here[sz]) + (there[sz] - 1 - there[sx])

    def _swap_ok(self, h: int, x: int, h2: int, z: int, min_gain: int | None) -> bool:
        """Whether ``x`` (in ``h``) and ``z`` (in ``h2``, same system) may change places: both
        HITs keep 70 distinct outputs, 10 degradable ones (``h`` loses none if it has fewer),
        and the same-segment pairs drop by ``min_gain`` at least (``None``: no matter)."""
        if z in self.members[h] or x in self.members[h2]:
            return False
        need = BAD_REFERENCES_PER_HIT
        if self.degradable_count[h] - self.degradable[x] + self.degradable[z] < min(
            need, self.degradable_count[h]
        ):
            return False
        if self.degradable_count[h2] - self.degradable[z] + self.degradable[x] < need:
            return False
        return min_gain is None or self._segment_gain(h, x, h2, z) >= min_gain

    def _swap(self, h: int, x: int, h2: int, z: int) -> None:
        self._put(h, x, z)
        self._put(h2, z, x)

    def _other_hits(self, h: int, limit: int | None = _REPAIR_TRIES) -> list[int]:
        """The other HITs in random order, at most ``limit`` of them."""
        others = [h2 for h2 in range(len(self.hits)) if h2 != h]
        self.rng.shuffle(others)
        return others[:limit]

    # Stage 2: every HIT needs 10 outputs that can be made into bad references.
    def ensure_degradable(self) -> None:
        for h in range(len(self.hits)):
            while self.degradable_count[h] < BAD_REFERENCES_PER_HIT:
                if not (
                    self._swap_in_degradable(h)
                    or self._reuse_degradable(h)
                    or self._relocate_degradable(h)
                    or self._raise_elsewhere(h)
                ):
                    raise BuildProblem(
                        f"HIT {h + 1} needs {BAD_REFERENCES_PER_HIT} outputs with at least two "
                        f"words to make its bad references from, and only "
                        f"{self.degradable_count[h]} of its outputs have them: too many "
                        f"one-word outputs in this campaign. Add segments with longer outputs"
                    )

    def _swap_in_degradable(self, h: int) -> bool:
        candidates = [x for x in self.hits[h] if not self.degradable[x]]
        self.rng.shuffle(candidates)
        for min_gain in (0, None):  # first without showing segments more often
            for x in candidates:
                # Every other HIT: this runs only for a HIT short of degradable outputs.
                for h2 in self._other_hits(h, limit=None):
                    if self.degradable_count[h2] <= BAD_REFERENCES_PER_HIT:
                        continue
                    for z in self.hits[h2]:
                        if (
                            self.degradable[z]
                            and self.system_of[z] == self.system_of[x]
                            and self._swap_ok(h, x, h2, z, min_gain)
                        ):
                            self._swap(h, x, h2, z)
                            return True
        return False

    def _raise_elsewhere(self, h: int) -> bool:
        """Show one more degradable output in another HIT (:meth:`_reuse_degradable`), so that
        a swap or a relocation can then bring one to ``h``: first from a system that could
        lend one to ``h`` directly, else from any system (the other HIT can then give up one
        of its re-used degradable outputs of another system). Each such step shows one more
        degradable output in total, so repeating the moves ends."""
        helpful = {
            self.system_of[x]
            for x in self.hits[h]
            if not self.degradable[x]
            and any(
                self.degradable[z] and z not in self.members[h]
                for z in self.by_system[self.system_of[x]]
            )
        }
        others = self._other_hits(h, None)
        return any(self._reuse_degradable(h2, systems=helpful, avoid=h) for h2 in others) or any(
            self._reuse_degradable(h2) for h2 in others
        )

    def _reuse_degradable(
        self, h: int, systems: set[int] | None = None, avoid: int | None = None
    ) -> bool:
        """Replace an output that is also shown in another HIT (so coverage holds) by a
        degradable output of the same system (so shares hold). The pair that keeps re-use
        most even wins: the most-shown output out, the least-shown in (if the first is shown
        more often than the second, every output stays within one showing of the others),
        then one on a segment the HIT does not show. Only from ``systems`` if given, and
        only an output that HIT ``avoid`` does not show, if given."""
        segments = self.segments[h]
        best: tuple[tuple[int, bool, int, int], int, int] | None = None
        for x in self.hits[h]:
            if self.degradable[x] or self.occurrences[x] < 2:
                continue
            if systems is not None and self.system_of[x] not in systems:
                continue
            for z in self.by_system[self.system_of[x]]:
                if (
                    self.degradable[z]
                    and z not in self.members[h]
                    and (avoid is None or z not in self.members[avoid])
                ):
                    key = (
                        self.occurrences[z] - self.occurrences[x],
                        segments[self.segment_of[z]] > 0,
                        x,
                        z,
                    )
                    if best is None or key < best[0]:
                        best = (key, x, z)
        if best is None:
            return False
        self._put(h, best[1], best[2])
        return True

    def _relocate_degradable(self, h: int) -> bool:
        """When every non-degradable output of HIT ``h`` is shown only there: move one, ``x``,
        to another HIT in place of an output ``y`` of the same system shown more than once,
        and show a degradable output ``z`` of that system in ``h`` instead. Coverage and
        shares hold; ``y`` loses a showing and ``z`` gains one (most-shown ``y`` and
        least-shown ``z`` first, to keep re-use even)."""
        best: tuple[tuple[int, int, int, int], int, int, int, int] | None = None
        for x in self.hits[h]:
            if self.degradable[x]:
                continue
            system = self.system_of[x]
            options = [
                z for z in self.by_system[system] if self.degradable[z] and z not in self.members[h]
            ]
            if not options:
                continue
            z = min(options, key=lambda z: (self.occurrences[z], z))
            for h2 in range(len(self.hits)):
                if h2 == h or x in self.members[h2]:
                    continue
                for y in self.hits[h2]:
                    if (
                        y != z
                        and self.system_of[y] == system
                        and self.occurrences[y] > 1
                        and self.degradable_count[h2] - self.degradable[y] >= BAD_REFERENCES_PER_HIT
                    ):
                        key = (self.occurrences[z] - self.occurrences[y], x, y, h2)
                        if best is None or key < best[0]:
                            best = (key, x, z, h2, y)
        if best is None:
            return False
        _, x, z, h2, y = best
        self._put(h2, y, x)
        self._put(h, x, z)
        return True

    # Stage 3: undo what remains of segments shown twice in a HIT, by swaps of outputs of
    # the same system between HITs that strictly lower the number of same-segment pairs (with
    # fewer than 70 segments this spreads the unavoidable repeats out).
    def separate_segments(self) -> None:
        for _ in range(4):
            improved = False
            for h in range(len(self.hits)):
                for x in list(self.hits[h]):
                    if x in self.members[h] and self.segments[h][self.segment_of[x]] >= 2:
                        improved |= self._move_away(h, x)
            if not improved:
                return

    def _move_away(self, h: int, x: int) -> bool:
        system = self.system_of[x]
        for h2 in self._other_hits(h):
            for z in self.hits[h2]:
                if self.system_of[z] == system and self._swap_ok(h, x, h2, z, min_gain=1):
                    self._swap(h, x, h2, z)
                    return True
        return False

    def run(self) -> list[list[int]]:
        self.choose()
        self._index()
        self.ensure_degradable()
        self.separate_segments()
        return self.hits


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
    module docstring for the choices made. Raises ``ValueError`` on input that cannot make
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
