"""Choosing the systems of each ranking set so that every pair of systems is compared about
equally often: a greedy choice, then a local search on the pair counts (see the package
docstring for the measured balance)."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from campaigns.builders.ranking.plans import BEST_WORST, RankingOutput
from campaigns.gold import GoldUnit

# Local search on pair counts: at most this many passes over all sets, ending after this many
# passes without a more even state.
_MAX_PASSES = 40
_STALE_PASSES = 8
# ... and on large campaigns (where the greedy choice is already even) about this many set
# visits in all, but at least _MIN_PASSES passes, so that building stays fast.
_VISIT_BUDGET = 150_000
_MIN_PASSES = 4
# The steeper cost's exponent is clipped (no overflow); moves within this of zero are ties.
_STEEP_CLIP = 60.0
# The steeper phase runs only when the counts still differ by more than this.
_STEEP_FROM = 2
_TOLERANCE = 1e-9


# --- choosing the systems of each set ----------------------------------------------------------


_COVERAGE, _EXTRA, _GOLD = "coverage", "extra", "gold"


@dataclass
class _Set:
    """A set before layout: its segment, the systems whose outputs it shows, and for a gold
    set its unit. ``pool`` maps each system of the segment to its output."""

    segment_id: int
    kind: str  # coverage, extra or gold
    systems: list[int]
    pool: dict[int, RankingOutput]
    gold: GoldUnit | None = None
    fixed: frozenset[int] = frozenset()  # systems the set must keep (known-worst output)
    excluded: int | None = None  # the gold output's own system: not shown again

    @property
    def outputs(self) -> list[RankingOutput]:
        return [self.pool[s] for s in self.systems]


class _Balancer:
    """Pair and appearance counts over all sets: the greedy choice of a set's systems, then
    a local search that evens the pair counts out.

    The local search lowers the sum of squared pair counts (the total number of pairs is fixed
    by the sets, so the sum of squares is least when the counts are equal) by two kinds of move
    inside one segment, both keeping every output covered: *replace* a system of a set by
    another system of the segment (if the one taken out is shown in another coverage set of
    the segment, or the set is an extra or a gold set, and is not its known-worst output),
    and *exchange* two systems between two coverage sets of the segment. Each segment's sets
    are polished as soon as they are made (strict descent); then passes over all sets take,
    per set, the best move that does not raise the sum (sideways moves let the search cross
    plateaus), keep the most even state seen (smallest max - min, then sum of squares), and
    stop when the counts differ by at most 1, after ``_STALE_PASSES`` passes without a
    better state, or after half of ``_MAX_PASSES`` passes (fewer on large campaigns: about
    ``_VISIT_BUDGET`` set visits in all, at least ``_MIN_PASSES`` passes). If the counts
    still differ by more than ``_STEEP_FROM``, a second phase does the same with a steeper
    cost, ``f(c) = 2^(c - m) + 2^(m - c)`` per pair (``m`` the mean count), which weighs the
    extremes far more than the sum of squares does (that one can leave a single pair at 0).

    With ``c`` a pair count, a move that takes ``x`` out of a set (the other members ``T``)
    and puts ``y`` in changes the sum of squares by ``2 * (sum_T c(y, t) - sum_T c(x, t)) +
    2 |T|`` (the steeper cost likewise, from ``f(c + 1) - f(c)`` and ``f(c - 1) - f(c)``):
    each move is scored in closed form, vectorised over all its candidates.
    """

    def __init__(self, systems: list[int], rng: random.Random) -> None:
        self.rng = rng
        self.index = {s: i for i, s in enumerate(systems)}
        self.pairs = np.zeros((len(systems), len(systems)), dtype=np.int64)
        self.shown = np.zeros(len(systems), dtype=np.int64)
        self._steep = False  # which cost the local search lowers (see improve)
        self._mean = 0.0

    def _ids(self, systems: Sequence[int]) -> np.ndarray:
        return np.array([self.index[s] for s in systems], dtype=np.int64)

    def _pick(self, scores: np.ndarray) -> int:
        """The position of the least score, ties broken by the seeded generator."""
        ties = np.flatnonzero(scores == scores.min())
        return int(ties[self.rng.randrange(len(ties))])

    def count(self, systems: Sequence[int], step: int) -> None:
        ids = self._ids(systems)
        self.shown[ids] += step
        self.pairs[np.ix_(ids, ids)] += step
        self.pairs[ids, ids] -= step  # no pair of a system with itself

    def choose(
        self,
        available: Sequence[int],
        size: int,
        *,
        fixed: Sequence[int] = (),
        uncovered: set[int] | None = None,
        min_uncovered: int = 0,
    ) -> list[int]:
        """``size`` distinct systems from ``available``, ``fixed`` ones first, at least
        ``min_uncovered`` of them from ``uncovered``; then count their pairs. Each next
        system has the fewest comparisons with those already chosen, then the fewest
        showings, then a seeded random tie break."""
        chosen = list(fixed)
        uncovered = uncovered or set()
        # Systems the set must take go in first, so that the free choices see them.
        need = min_uncovered - sum(1 for s in chosen if s in uncovered)
        for _ in range(need):
            chosen.append(self._cheapest(sorted(uncovered - set(chosen)), chosen))
        while len(chosen) < size:
            chosen.append(self._cheapest([s for s in available if s not in chosen], chosen))
        self.count(chosen, 1)
        return chosen

    def _cheapest(self, pool: list[int], chosen: list[int]) -> int:
        ids = self._ids(pool)
        compared = self.pairs[np.ix_(ids, self._ids(chosen))].sum(axis=1) if chosen else 0
        # Comparisons first, showings second (showings < total + 1 <= the weight).
        weight = int(self.shown.sum()) + 1
        return pool[self._pick(compared * weight + self.shown[ids])]

    # Local search.
    def polish(self, sets: list[_Set]) -> None:
        """Strict descent on one segment's coverage sets, right after they are made."""
        cover: Counter[int] = Counter(s for item in sets for s in item.systems)
        for _ in range(_MAX_PASSES):
            improved = False
            for item in sets:
                improved |= self._replace(item, cover, sideways=False)
                for other in sets:
                    if other is not item:
                        improved |= self._exchange(item, other, sideways=False)
            if not improved:
                return

    def improve(self, sets: list[_Set]) -> None:
        """Passes over all sets with sideways moves, first on the sum of squares, then (if
        the counts still differ by more than ``_STEEP_FROM``) on the steeper cost; ends in
        the most even state seen."""
        by_segment: dict[int, list[_Set]] = defaultdict(list)
        cover: dict[int, Counter[int]] = defaultdict(Counter)
        for item in sets:
            by_segment[item.segment_id].append(item)
            if item.kind == _COVERAGE:
                cover[item.segment_id].update(item.systems)
        order = list(sets)
        best_key = self.spread()
        best_state = [list(item.systems) for item in sets]
        budget = min(_MAX_PASSES, max(_MIN_PASSES, _VISIT_BUDGET // max(1, len(sets))))
        for steep in (False, True):
            self._steep = steep
            if steep and best_key[0] <= _STEEP_FROM:
                break
            if steep:
                counts = self.pairs[np.triu_indices(len(self.shown), k=1)]
                self._mean = float(counts.mean())
            stale = 0
            for _ in range(budget // 2):
                if best_key[0] <= 1 or stale >= _STALE_PASSES:
                    break
                self.rng.shuffle(order)
                for item in order:
                    self._replace(item, cover[item.segment_id], sideways=True)
                    if item.kind == _COVERAGE:
                        siblings = by_segment[item.segment_id]
                        # Each pair of sets once a pass: with the sets after this one.
                        for other in siblings[siblings.index(item) + 1 :]:
                            if other.kind == _COVERAGE:
                                self._exchange(item, other, sideways=True)
                key = self.spread()
                if key < best_key:
                    best_key, stale = key, 0
                    best_state = [list(item.systems) for item in sets]
                else:
                    stale += 1
        self._steep = False
        for item, systems in zip(sets, best_state, strict=True):
            if item.systems != systems:
                self.count(item.systems, -1)
                item.systems[:] = systems
                self.count(item.systems, 1)

    def spread(self) -> tuple[int, int]:
        """(max - min, sum of squares) of the pair counts over all pairs of systems."""
        if len(self.shown) < 2:
            return (0, 0)
        counts = self.pairs[np.triu_indices(len(self.shown), k=1)]
        return (int(counts.max() - counts.min()), int((counts * counts).sum()))

    def _up(self, counts: np.ndarray) -> np.ndarray:
        """Cost change of each pair count going up by one: ``2c + 1`` for the sum of
        squares; for the steeper cost ``f(c) = 2^(c - m) + 2^(m - c)`` (``m`` the mean
        count) ``2^(c - m) - 2^(m - c - 1)``."""
        if not self._steep:
            return 2 * counts + 1
        e = np.clip(counts - self._mean, -_STEEP_CLIP, _STEEP_CLIP)
        return np.exp2(e) - np.exp2(-e - 1)

    def _down(self, counts: np.ndarray) -> np.ndarray:
        """Cost change of each pair count going down by one: ``1 - 2c``, or
        ``2^(m - c) - 2^(c - m - 1)``."""
        if not self._steep:
            return 1 - 2 * counts
        e = np.clip(counts - self._mean, -_STEEP_CLIP, _STEEP_CLIP)
        return np.exp2(-e) - np.exp2(e - 1)

    def _apply(self, item: _Set, out: int, into: int) -> None:
        self.count(item.systems, -1)
        item.systems[item.systems.index(out)] = into
        self.count(item.systems, 1)

    def _replace(self, item: _Set, cover: Counter[int], *, sideways: bool) -> bool:
        """Take the best replacement of a system ``x`` of ``item`` by a system ``y`` of the
        segment if it lowers the cost (or keeps it, with ``sideways``). With ``T`` the other
        members: the pairs ``(y, t)`` go up, the pairs ``(x, t)`` down."""
        movable = [
            x
            for x in item.systems
            if x not in item.fixed and (item.kind != _COVERAGE or cover[x] >= 2)
        ]
        candidates = [y for y in item.pool if y not in item.systems and y != item.excluded]
        if not movable or not candidates:
            return False
        members, xs, ys = self._ids(item.systems), self._ids(movable), self._ids(candidates)
        up = self._up(self.pairs[np.ix_(ys, members)])  # (y, member)
        down = self._down(self.pairs[np.ix_(xs, members)])  # (x, member)
        down[np.arange(len(movable)), [item.systems.index(x) for x in movable]] = 0
        # sum over T of up(y, t) = all members but x; sum over T of down(x, t).
        at_x = [item.systems.index(x) for x in movable]
        delta = (up.sum(axis=1)[None, :] - up[:, at_x].T) + down.sum(axis=1)[:, None]

        def apply(i: int, j: int) -> None:
            self._apply(item, movable[i], candidates[j])
            if item.kind == _COVERAGE:
                cover[movable[i]] -= 1
                cover[candidates[j]] += 1

        return self._take(delta, sideways, apply)

    def _exchange(self, a: _Set, b: _Set, *, sideways: bool) -> bool:
        """Take the best exchange of ``x`` (in ``a`` only) and ``y`` (in ``b`` only) if it
        lowers the cost (or keeps it). With ``A`` / ``B`` the systems in only one of the two
        sets: the pairs (y, A - x) and (x, B - y) go up, (x, A - x) and (y, B - y) down;
        pairs with members of both sets do not change."""
        only_a = [s for s in a.systems if s not in b.systems]
        only_b = [s for s in b.systems if s not in a.systems]
        if not only_a or not only_b:
            return False
        xs, ys = self._ids(only_a), self._ids(only_b)
        ix = np.arange(len(only_a))
        iy = np.arange(len(only_b))
        up_ya = self._up(self.pairs[np.ix_(ys, xs)])  # (y, a member)
        up_xb = self._up(self.pairs[np.ix_(xs, ys)])  # (x, b member)
        down_xa = self._down(self.pairs[np.ix_(xs, xs)])
        down_xa[ix, ix] = 0
        down_yb = self._down(self.pairs[np.ix_(ys, ys)])
        down_yb[iy, iy] = 0
        delta = (
            (up_ya.sum(axis=1)[None, :] - up_ya.T)  # sum over A - x of up(y, .)
            + down_xa.sum(axis=1)[:, None]
            + (up_xb.sum(axis=1)[:, None] - up_xb)  # sum over B - y of up(x, .)
            + down_yb.sum(axis=1)[None, :]
        )

        def apply(i: int, j: int) -> None:
            self._apply(a, only_a[i], only_b[j])
            self._apply(b, only_b[j], only_a[i])

        return self._take(delta, sideways, apply)

    def _take(self, delta: np.ndarray, sideways: bool, apply: Callable[[int, int], None]) -> bool:
        best = float(delta.min())
        if best > _TOLERANCE or (best >= -_TOLERANCE and not sideways):
            return False
        near = np.where(delta <= best + _TOLERANCE, 0, 1)  # ties within rounding
        i, j = divmod(self._pick(near.ravel()), delta.shape[1])
        apply(i, j)
        return best < -_TOLERANCE


def _gold_set(
    unit: GoldUnit,
    outputs: dict[int, RankingOutput],
    size: int,
    scheme: str,
    balancer: _Balancer,
) -> _Set:
    """A gold unit's set: the gold slot plus ``size - 1`` outputs of other systems (the
    known-worst one among them in best+worst)."""
    by_id = {o.output_id: o for o in outputs.values()}
    excluded = by_id[unit.best_output_id].system_id if unit.best_output_id is not None else None
    fixed = [by_id[unit.worst_output_id].system_id] if scheme == BEST_WORST else []
    available = [s for s in sorted(outputs) if s != excluded]
    systems = balancer.choose(available, size - 1, fixed=fixed)
    return _Set(
        unit.segment_id,
        _GOLD,
        systems,
        outputs,
        gold=unit,
        fixed=frozenset(fixed),
        excluded=excluded,
    )


def _coverage_sets(
    segment_id: int, outputs: dict[int, RankingOutput], size: int, balancer: _Balancer
) -> list[_Set]:
    """The ``ceil(k / size)`` sets of one segment that show all of its ``k`` outputs."""
    available = sorted(outputs)
    count = -(-len(available) // size)
    uncovered = set(available)
    sets = []
    for j in range(count):
        later = count - j - 1
        need = max(0, len(uncovered) - later * size)
        systems = balancer.choose(available, size, uncovered=uncovered, min_uncovered=need)
        uncovered -= set(systems)
        sets.append(_Set(segment_id, _COVERAGE, systems, outputs))
    assert not uncovered
    balancer.polish(sets)
    return sets
