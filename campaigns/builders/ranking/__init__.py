"""HIT assembly for ranking campaigns: pure, seedable, no Django.

Sources: Callison-Burch 2009 (``papers/000``, section 4: WMT08's screens of 5 outputs of the
same source sentence, ranked best to worst with ties) and Paul et al. 2013 (``papers/002``,
sections 3.4 to 4.2: "ranking sets" of a source sentence, the main reference and 4 outputs in
a random order, 3 ranking sets per HIT page, about 10% gold units, the best-only and
best+worst gold schemes). ``METHODS.md`` sections 1 and 5 summarise them.

A *ranking set* is one segment's source and main reference (the page reads both from the
segment) with ``N = outputs_per_set`` outputs of **different systems** of that segment, in a
random order. A HIT is a page of ``sets_per_hit`` sets (3 in 002). Slot positions run over
the HIT (1-based, set after set); ``set_index`` (0-based) is the set in the HIT, stored as
``HitSlot.group``.

Choices this module makes, and why (tested in ``tests/campaigns/test_ranking_layout.py``):

* **Every output is ranked at least once.** WMT08 ranked random subsets of 5 of a segment's
  systems, leaving most outputs unranked; here a segment with ``k`` outputs gets
  ``ceil(k / N)`` *coverage sets*, the fewest that show each of its outputs, so every segment
  and every output is judged. The ``ceil(k / N) * N - k`` spare places re-show outputs of the
  same segment (always in another set than their first showing), chosen by the pair balance.
  A segment with fewer than ``N`` outputs cannot fill a set: ``ValueError`` (lower
  ``outputs_per_set``); so ``N`` must not exceed the number of systems.
* **Pairs of systems are compared about equally often.** Each set contributes its
  ``N (N - 1) / 2`` system pairs to the pairwise scores (METHODS.md 1). Sets are filled one
  system at a time, greedily: the next system is the one with the fewest comparisons so far
  with the systems already in the set, then the least-shown system, then a seeded random tie
  break; a coverage set first takes the not-yet-shown systems of its segment that the later
  sets could not all show. A local search then moves systems between and into sets while
  that evens the pair counts out (:class:`_Balancer`). Greedy choice alone can end far from
  even (with ``N = 2`` the last pair of every segment is forced: 20 apart on 6 systems).
  Measured on complete data (every system translates every segment; 2..15 systems, ``N``
  2..10, 1..40 segments, 1..4 sets per HIT; several thousand random campaigns; the test's
  bounds): the pair counts differ by at most 4 from 13 segments on and by at most 5 below
  (one segment already forces 2: 4 systems in sets of 3 make a second set that repeats a
  pair of the first); by at most 3 except where ``N`` is half the number of systems, where
  each segment splits its systems in two halves, only exchanges between the halves are
  possible, and even counts would need Hadamard-like designs that exist for few sizes; with
  ``N <= 5`` and 100 segments mostly by 1 or 2. Each system is shown within 3 of every
  other. A perfectly balanced design is not attempted: the coverage rule fixes the shape of
  each segment's sets, and a difference of 4 between counts of 30 or more is small next to
  the noise of the judgments.
  All this is over the *regular* sets (coverage and extra sets): gold sets are quality
  control and are balanced separately (their systems spread evenly among gold sets). They
  cannot join the balance: best+worst pins the known-worst system, in 002 always
  the same (ORACLE-worst) one, in every gold set, which would skew its pairs (3 systems in
  sets of 3: every gold set compares the worst system with one other and never the other
  two). For the same reason system scores should leave gold sets out (the whole set: the
  pinned system's comparisons there are not a random sample), as DA leaves out QC items.
* **Gold sets.** A gold set is an *extra* set of a gold unit's segment (``campaigns.gold``)
  in which the gold translation takes the place of one output, as 002 does ("a random MT
  output was replaced in the ranking set with the gold translation"); being extra, it never
  costs an output its coverage. With ``H`` HITs of ``P`` sets the number of gold sets is
  ``G = round(gold_rate * H * P)`` (half up, in exact decimal arithmetic), and ``H`` is the
  fewest HITs whose ``H * P - G`` regular sets hold all coverage sets
  (:func:`ranking_counts`). Gold units are used in a seeded shuffled order, cycled when
  ``G`` exceeds their number (each then used ``floor(G / K)`` or ``ceil(G / K)`` times).
  HIT ``h`` holds ``floor((h' + 1) G / H) - floor(h' G / H)`` gold sets with
  ``h' = (h + offset) mod H`` for a seeded offset: every HIT has ``floor(G / H)`` or
  ``ceil(G / H)``, evenly spaced along the HITs (never bunched at the end).
  A gold set is laid out like any other (its place in the HIT and the gold slot's place in
  the set are shuffled like the rest), so neither position gives it away.
* **Expected ranks** (:func:`expected_ranks`). Best-only: the gold slot must be ranked 1.
  Best+worst: the gold slot within the top ``w`` ranks and the known-worst output within the
  bottom ``w``, ``w = min(2, N // 2)``. For ``N = 4`` this is 002's "1 or 2" and "3 or 4";
  for larger sets it keeps 002's margin of two ranks; for ``N = 2, 3`` it is 1, so that the
  two ranges stay disjoint (with ``w = 2`` and ``N = 3`` both would accept rank 2, with
  ``N = 2`` any answer would pass). Plans carry the range as ``expected_rank_min`` /
  ``expected_rank_max`` (1 = best); ``None`` where no answer is known. A requester-given
  gold unit whose gold is an existing output shows that output in the gold slot (its system
  is then not shown again in the set).
* **Completing the last HIT.** ``H * P - G`` regular sets may exceed the coverage sets (by
  fewer than ``P``): the difference is made of *extra sets*, each on one of the segments
  with the fewest sets so far (seeded choice), systems by the same pair balance, so the last
  HIT is as full as the others and the balance is not disturbed.
* **One segment per HIT where possible.** Seeing a source twice on a page (or a gold set
  next to a regular set of the same segment) lets a worker compare the two and spot the
  gold. Regular sets are dealt out across the HITs (all sets of a segment one after the
  other, each to the next HIT), then swaps of regular sets between HITs undo what remains.
  Measured: no HIT shows a segment twice once there are at least ``2 P`` segments and no
  segment has more sets than there are HITs; below that it is a preference.

Randomness comes from ``random.Random(seed)`` only: the same input and seed give the same
HITs whatever the order of the input lists; another seed gives other HITs.

:func:`build_training_sets` makes a qualification test (002 section 4.1, "training ranking
sets") from gold units with the same set structure, and :func:`split_gold_units` keeps the
test's units apart from the on-the-fly gold.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from campaigns.builders.problems import BuildProblem
from campaigns.builders.ranking.balance import (
    _EXTRA,
    _Balancer,
    _coverage_sets,
    _gold_set,
    _Set,
)
from campaigns.builders.ranking.plans import (
    _BEST_WORST_MARGIN,
    BEST_ONLY,
    BEST_WORST,
    GOLD_SCHEMES,
    MAX_OUTPUTS_PER_SET,
    MIN_OUTPUTS_PER_SET,
    ROLE_GOLD,
    ROLE_SYSTEM,
    ROLE_TRAINING,
    RankingCounts,
    RankingOutput,
    SlotPlan,
)
from campaigns.gold import GoldUnit

# Passes of swaps between HITs when separating segments.
_REPAIR_PASSES = 4

__all__ = [
    "BEST_ONLY",
    "BEST_WORST",
    "GOLD_SCHEMES",
    "MAX_OUTPUTS_PER_SET",
    "MIN_OUTPUTS_PER_SET",
    "ROLE_GOLD",
    "ROLE_SYSTEM",
    "ROLE_TRAINING",
    "RankingCounts",
    "RankingOutput",
    "SlotPlan",
    "build_ranking_hits",
    "build_training_sets",
    "expected_ranks",
    "gold_set_count",
    "ranking_counts",
    "split_gold_units",
]

# --- counts ----------------------------------------------------------------------------------


def _rate(gold_rate: float | Decimal | Fraction | int) -> Fraction:
    # str() of a float is its shortest decimal spelling, so 0.1 means 1/10 exactly.
    rate = Fraction(str(gold_rate)) if isinstance(gold_rate, float) else Fraction(gold_rate)
    if not 0 <= rate < 1:
        raise ValueError(f"gold_rate must be at least 0 and below 1, not {gold_rate}")
    return rate


def gold_set_count(total_sets: int, gold_rate: float | Decimal | Fraction | int) -> int:
    """Gold sets among ``total_sets``: ``gold_rate * total_sets`` rounded half up."""
    return math.floor(_rate(gold_rate) * total_sets + Fraction(1, 2))


def ranking_counts(
    outputs_per_segment: Sequence[int],
    *,
    outputs_per_set: int,
    sets_per_hit: int,
    gold_rate: float | Decimal | Fraction | int,
) -> RankingCounts:
    """The fewest HITs whose regular sets (all but the gold ones) hold every segment's
    ``ceil(k / N)`` coverage sets; see the module docstring."""
    coverage = sum(-(-k // outputs_per_set) for k in outputs_per_segment)
    hits = max(1, -(-coverage // sets_per_hit))
    while hits * sets_per_hit - gold_set_count(hits * sets_per_hit, gold_rate) < coverage:
        hits += 1
    sets = hits * sets_per_hit
    gold = gold_set_count(sets, gold_rate)
    return RankingCounts(hits, sets, gold, coverage, sets - gold - coverage)


def expected_ranks(
    scheme: str, outputs_per_set: int
) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """``((gold_min, gold_max), (worst_min, worst_max))`` for a set of ``outputs_per_set``;
    the worst range is ``None`` in best-only (see the module docstring)."""
    n = outputs_per_set
    if scheme == BEST_ONLY:
        return (1, 1), None
    if scheme == BEST_WORST:
        margin = min(_BEST_WORST_MARGIN, n // 2)
        return (1, margin), (n - margin + 1, n)
    raise ValueError(f"unknown gold scheme {scheme!r}; expected one of {', '.join(GOLD_SCHEMES)}")


# --- validation ------------------------------------------------------------------------------


def _validate(
    outputs: Sequence[RankingOutput],
    outputs_per_set: int,
    sets_per_hit: int,
    gold_scheme: str,
) -> None:
    if not MIN_OUTPUTS_PER_SET <= outputs_per_set <= MAX_OUTPUTS_PER_SET:
        raise BuildProblem(
            f"'Outputs per set' (outputs_per_set) must be from {MIN_OUTPUTS_PER_SET} to "
            f"{MAX_OUTPUTS_PER_SET}, not {outputs_per_set}: change it in the ranking settings"
        )
    if sets_per_hit < 1:
        raise BuildProblem(
            "'Sets per hit' (sets_per_hit) must be at least 1: change it in the ranking settings"
        )
    if gold_scheme not in GOLD_SCHEMES:
        raise ValueError(
            f"unknown gold scheme {gold_scheme!r}; expected one of {', '.join(GOLD_SCHEMES)}"
        )
    if not outputs:
        raise BuildProblem(
            "no outputs to build ranking HITs from: import segments with system outputs first"
        )
    duplicates = [oid for oid, n in Counter(o.output_id for o in outputs).items() if n > 1]
    if duplicates:
        raise ValueError(f"output ids appear more than once: {sorted(duplicates)[:10]}")
    pairs = Counter((o.system_id, o.segment_id) for o in outputs)
    twice = sorted(pair for pair, n in pairs.items() if n > 1)
    if twice:
        raise ValueError(f"(system, segment) with more than one output: {twice[:10]}")
    per_segment = Counter(o.segment_id for o in outputs)
    short = {seg: n for seg, n in per_segment.items() if n < outputs_per_set}
    if short:
        fewest = min(short.values())
        raise BuildProblem(
            f"a ranking set shows {outputs_per_set} outputs of different systems ('Outputs "
            "per set'), and {segments} "
            + ("has" if len(short) == 1 else "have")
            + f" fewer outputs (the fewest: {fewest}): lower 'Outputs per set' to "
            f"{max(fewest, MIN_OUTPUTS_PER_SET)} or import the missing outputs",
            segments=short,
        )


def _validate_units(
    units: Sequence[GoldUnit],
    by_segment: dict[int, dict[int, RankingOutput]],
    scheme: str,
) -> None:
    problems: defaultdict[str, list[int]] = defaultdict(list)
    for unit in units:
        outputs = by_segment.get(unit.segment_id)
        if outputs is None:
            problems["gold units of segments without outputs"].append(unit.segment_id)
            continue
        ids = {o.output_id: o for o in outputs.values()}
        if unit.best_output_id is not None and unit.best_output_id not in ids:
            problems["best outputs not of their segment"].append(unit.segment_id)
        if unit.worst_output_id is not None:
            if unit.worst_output_id not in ids:
                problems["worst outputs not of their segment"].append(unit.segment_id)
            elif unit.worst_output_id == unit.best_output_id:
                problems["worst output equal to the best"].append(unit.segment_id)
            elif " ".join(ids[unit.worst_output_id].text.split()) == " ".join(unit.text.split()):
                problems["worst output with the gold text"].append(unit.segment_id)
        if scheme == BEST_WORST and unit.worst_output_id is None:
            problems["best+worst gold units without a worst output"].append(unit.segment_id)
        if not unit.text.strip():
            problems["gold units without a text"].append(unit.segment_id)
    if problems:
        fields = {f"list{i}": ("segments", ids) for i, ids in enumerate(problems.values())}
        raise BuildProblem(
            "gold answers that do not fit: "
            + "; ".join(f"{what}: {{list{i}}}" for i, what in enumerate(problems))
            + ". Correct them under Gold answers",
            lists=fields,
        )


# --- placing sets in HITs ----------------------------------------------------------------------


def _gold_per_hit(gold: int, hits: int, rng: random.Random) -> list[int]:
    """Evenly spaced: floor((h' + 1) G / H) - floor(h' G / H), h' = h + a seeded offset."""
    offset = rng.randrange(hits)
    return [
        ((h + offset) % hits + 1) * gold // hits - ((h + offset) % hits) * gold // hits
        for h in range(hits)
    ]


def _separate_segments(hits: list[list[_Set]], gold_count: list[int], rng: random.Random) -> None:
    """Swap regular sets between HITs while that lowers the number of same-segment pairs
    inside HITs (regular sets only, so every HIT keeps its gold sets)."""
    segments = [Counter(s.segment_id for s in hit) for hit in hits]
    order = list(range(len(hits)))
    for _ in range(_REPAIR_PASSES):
        improved = False
        rng.shuffle(order)
        for h in order:
            for i in range(gold_count[h], len(hits[h])):
                x = hits[h][i]
                if segments[h][x.segment_id] < 2:
                    continue
                improved |= _move_away(hits, segments, gold_count, h, i, rng)
        if not improved:
            return


def _move_away(
    hits: list[list[_Set]],
    segments: list[Counter[int]],
    gold_count: list[int],
    h: int,
    i: int,
    rng: random.Random,
) -> bool:
    a = hits[h][i].segment_id
    others = [h2 for h2 in range(len(hits)) if h2 != h]
    rng.shuffle(others)
    for h2 in others:
        here, there = segments[h], segments[h2]
        if there[a]:
            continue
        for k in range(gold_count[h2], len(hits[h2])):
            b = hits[h2][k].segment_id
            if b == a:
                continue
            gain = (here[a] - 1 - here[b]) + (there[b] - 1 - there[a])
            if gain > 0:
                hits[h][i], hits[h2][k] = hits[h2][k], hits[h][i]
                here[a] -= 1
                here[b] += 1
                there[b] -= 1
                there[a] += 1
                return True
    return False


def _lay_out(
    hit: Sequence[_Set], size: int, scheme: str, role: str | None, rng: random.Random
) -> list[SlotPlan]:
    """Shuffle the sets of a HIT and the slots of each set; number the positions.
    ``role`` overrides every slot's role (training)."""
    (gold_min, gold_max), worst_range = expected_ranks(scheme, size)
    worst_min, worst_max = worst_range or (None, None)
    order = list(hit)
    rng.shuffle(order)
    slots: list[SlotPlan] = []
    for set_index, item in enumerate(order):
        members: list[tuple[str, RankingOutput | None, int | None, int | None]] = []
        for output in item.outputs:
            is_worst = (
                item.gold is not None
                and worst_range is not None
                and output.output_id == item.gold.worst_output_id
            )
            members.append(
                (
                    role or ROLE_SYSTEM,
                    output,
                    worst_min if is_worst else None,
                    worst_max if is_worst else None,
                )
            )
        if item.gold is not None:
            members.append((role or ROLE_GOLD, None, gold_min, gold_max))
        assert len(members) == size
        rng.shuffle(members)
        for slot_role, output, low, high in members:
            if output is None:
                assert item.gold is not None
                segment_id, output_id = item.gold.segment_id, item.gold.best_output_id
                system_id, text = item.excluded, item.gold.text
            else:
                segment_id, output_id = output.segment_id, output.output_id
                system_id, text = output.system_id, output.text
            slots.append(
                SlotPlan(
                    position=len(slots) + 1,
                    set_index=set_index,
                    role=slot_role,
                    segment_id=segment_id,
                    output_id=output_id,
                    system_id=system_id,
                    shown_text=text,
                    expected_rank_min=low,
                    expected_rank_max=high,
                )
            )
    return slots


def _index(outputs: Sequence[RankingOutput]) -> dict[int, dict[int, RankingOutput]]:
    """segment -> system -> output, built from the outputs sorted so that the result does
    not depend on the order of the input."""
    by_segment: dict[int, dict[int, RankingOutput]] = defaultdict(dict)
    for o in sorted(outputs, key=lambda o: (o.segment_id, o.system_id, o.output_id)):
        by_segment[o.segment_id][o.system_id] = o
    return dict(by_segment)


def _unit_key(unit: GoldUnit) -> tuple:
    return (
        unit.segment_id,
        unit.text,
        unit.best_output_id if unit.best_output_id is not None else -1,
        unit.worst_output_id if unit.worst_output_id is not None else -1,
    )


# --- the builders ------------------------------------------------------------------------------


def build_ranking_hits(
    outputs: Sequence[RankingOutput],
    *,
    seed: int,
    outputs_per_set: int = 5,
    sets_per_hit: int = 3,
    gold_rate: float | Decimal | Fraction | int = Fraction(1, 10),
    gold_scheme: str = BEST_ONLY,
    gold_units: Sequence[GoldUnit] = (),
) -> list[list[SlotPlan]]:
    """Plan the HITs of a ranking campaign (000 section 4, 002 sections 3.4 to 4.2).

    Returns one list of ``outputs_per_set * sets_per_hit`` :class:`SlotPlan` per HIT, ordered
    by position. ``gold_units`` (see :mod:`campaigns.gold`) are needed when ``gold_rate``
    asks for at least one gold set. See the module docstring for the choices made. Raises
    ``ValueError`` on input that cannot make valid HITs (sizes out of range, duplicate ids, a
    segment with fewer than ``outputs_per_set`` outputs, gold units that do not fit).
    """
    _validate(outputs, outputs_per_set, sets_per_hit, gold_scheme)
    by_segment = _index(outputs)
    counts = ranking_counts(
        [len(systems) for systems in by_segment.values()],
        outputs_per_set=outputs_per_set,
        sets_per_hit=sets_per_hit,
        gold_rate=gold_rate,
    )
    units = sorted(gold_units, key=_unit_key)
    if counts.gold_sets and not units:
        raise BuildProblem(
            f"the gold rate (gold_rate) {gold_rate} asks for {counts.gold_sets} gold sets and "
            "no gold units were given: give gold answers or set 'Gold rate' to 0"
        )
    _validate_units(units, by_segment, gold_scheme)

    rng = random.Random(seed)
    systems = sorted({o.system_id for o in outputs})
    # Gold sets are quality control, not data: they have a balance of their own (their
    # systems evenly spread), and the regular sets are balanced among themselves.
    gold_balancer = _Balancer(systems, rng)
    balancer = _Balancer(systems, rng)

    rng.shuffle(units)
    gold_sets = [
        _gold_set(
            units[i % len(units)],
            by_segment[units[i % len(units)].segment_id],
            outputs_per_set,
            gold_scheme,
            gold_balancer,
        )
        for i in range(counts.gold_sets)
    ]

    segments = sorted(by_segment)
    rng.shuffle(segments)
    regular: list[_Set] = []
    for segment in segments:
        regular.extend(_coverage_sets(segment, by_segment[segment], outputs_per_set, balancer))
    # Complete the last HIT: extra sets on the segments with the fewest sets so far.
    sets_of = Counter(s.segment_id for s in regular + gold_sets)
    tiebreak = {segment: rank for rank, segment in enumerate(segments)}
    for _ in range(counts.extra_sets):
        segment = min(segments, key=lambda seg: (sets_of[seg], tiebreak[seg]))
        systems = balancer.choose(sorted(by_segment[segment]), outputs_per_set)
        regular.append(_Set(segment, _EXTRA, systems, by_segment[segment]))
        sets_of[segment] += 1
    assert len(regular) + len(gold_sets) == counts.sets
    balancer.improve(regular)

    # Gold sets evenly over the HITs; regular sets dealt column by column, so that the sets
    # of one segment (consecutive in ``regular``) go to different HITs.
    gold_count = _gold_per_hit(counts.gold_sets, counts.hits, rng)
    hits: list[list[_Set]] = [[] for _ in range(counts.hits)]
    pending_gold = iter(gold_sets)
    for h, n in enumerate(gold_count):
        hits[h].extend(next(pending_gold) for _ in range(n))
    pending = iter(regular)
    for column in range(sets_per_hit):
        for h in range(counts.hits):
            if column >= gold_count[h]:
                hits[h].append(next(pending))
    _separate_segments(hits, gold_count, rng)
    return [_lay_out(hit, outputs_per_set, gold_scheme, None, rng) for hit in hits]


def split_gold_units(
    units: Sequence[GoldUnit], training_count: int, *, seed: int
) -> tuple[list[GoldUnit], list[GoldUnit]]:
    """``(training, on_the_fly)``: ``training_count`` units for the qualification test, the
    rest for gold sets, with no segment in both (a worker who met a segment's answer in the
    test would recognise its gold set). Seeded; input order does not matter."""
    by_segment: dict[int, list[GoldUnit]] = defaultdict(list)
    for unit in sorted(units, key=_unit_key):
        by_segment[unit.segment_id].append(unit)
    segments = sorted(by_segment)
    if not 0 <= training_count <= len(segments):
        raise BuildProblem(
            f"the qualification test takes {training_count} gold answers ('Qualification "
            f"sets') and the campaign has gold answers for {len(segments)} segments: add gold "
            "answers or lower 'Qualification sets'"
        )
    random.Random(seed).shuffle(segments)
    training = [by_segment[seg][0] for seg in segments[:training_count]]
    rest = [unit for seg in segments[training_count:] for unit in by_segment[seg]]
    return training, rest


def build_training_sets(
    outputs: Sequence[RankingOutput],
    gold_units: Sequence[GoldUnit],
    *,
    count: int,
    seed: int,
    outputs_per_set: int = 5,
    gold_scheme: str = BEST_WORST,
) -> list[SlotPlan]:
    """A qualification test (002 section 4.1): one HIT of ``count`` ranking sets, each the
    gold set of a gold unit of another segment, every slot of role ``training``; the gold
    slot and (in best+worst) the known-worst output carry their expected ranks, as in
    :func:`build_ranking_hits`. The other outputs are chosen by the same greedy pair
    balance (so the test shows the systems evenly), their places shuffled. Use units kept
    apart from the on-the-fly gold (:func:`split_gold_units`). Whether a worker passes
    (``Campaign.qualification_pass_mark``) is decided elsewhere.
    """
    _validate(outputs, outputs_per_set, 1, gold_scheme)
    by_segment = _index(outputs)
    units = sorted(gold_units, key=_unit_key)
    _validate_units(units, by_segment, gold_scheme)
    first_of_segment = list({unit.segment_id: unit for unit in reversed(units)}.values())
    first_of_segment.sort(key=_unit_key)
    if not 1 <= count <= len(first_of_segment):
        raise BuildProblem(
            f"a qualification test of {count} sets ('Qualification sets') needs gold answers "
            f"for {count} segments and {len(first_of_segment)} were given: add gold answers or "
            "lower 'Qualification sets'"
        )
    rng = random.Random(seed)
    chosen = rng.sample(first_of_segment, count)
    balancer = _Balancer(sorted({o.system_id for o in outputs}), rng)
    sets = [
        _gold_set(unit, by_segment[unit.segment_id], outputs_per_set, gold_scheme, balancer)
        for unit in chosen
    ]
    return _lay_out(sets, outputs_per_set, gold_scheme, ROLE_TRAINING, rng)
