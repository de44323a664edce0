"""Which 70 outputs each HIT shows as system items (:class:`_Selection`): coverage in the
fewest HITs, equal shares, one output per segment in a HIT where possible, and at least 10
outputs per HIT that can be made into bad references."""

from __future__ import annotations

import heapq
import random
from collections import Counter, defaultdict

from campaigns.builders.direct_assessment.constants import BAD_REFERENCES_PER_HIT
from campaigns.builders.direct_assessment.plans import DAOutput
from campaigns.builders.direct_assessment.shares import _share, _system_ranks, hit_count
from campaigns.builders.problems import BuildProblem

# How many swap partners (other HITs) to try when moving a segment shown twice in a HIT:
# a preference, which must stay cheap on campaigns of thousands of HITs.
_REPAIR_TRIES = 64


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
