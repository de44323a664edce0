"""System scores from (system, segment) pairs numbered once per analysis (``Segments``, shared
by the two variants of the incremental recompute) equal those numbered for each variant, to
the last bit; and a worked example."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.direct_assessment import DAJudgments
from analytics.stats.direct_assessment.scores import Segments, system_scores_and_samples


def random_judgments(seed: int, *, shared_items: bool = False) -> DAJudgments:
    """Whole assignments of one worker each: system outputs, repeats, bad references and
    references, some outputs judged several times; ``shared_items``: item ids reused by two
    systems (the keyed numbering)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {name: [] for name in DAJudgments.__dataclass_fields__}
    slot = 0
    for assignment in range(int(rng.integers(5, 40))):
        worker = int(rng.integers(1, 12)) * 7
        first = slot
        for _ in range(int(rng.integers(4, 12))):
            system = int(rng.integers(0, 4)) + 100
            item = int(rng.integers(0, 25)) + (0 if shared_items else 1000 * system)
            role = rng.choice(["system", "system", "repeat", "bad_reference", "reference"])
            pair = first if role != "system" and slot > first else -1
            if pair >= 0:
                role = str(role)
            else:
                role = "system"
            rows["worker"].append(worker)
            rows["assignment"].append(assignment + 1)
            rows["slot"].append(slot + 1)
            rows["role"].append(role)
            rows["system"].append(system if role in ("system", "repeat") else -1)
            rows["item"].append(item)
            rows["pair_slot"].append(pair + 1 if pair >= 0 else -1)
            rows["score"].append(float(rng.integers(0, 101)))
            rows["seconds"].append(1.0)
            slot += 1
    rows.pop("scale_max")
    rows.pop("given_z")
    return DAJudgments(**rows)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("averaging", ["segments", "judgments"])
@pytest.mark.parametrize("unit", ["segments", "judgments", None])
def test_shared_numbering_gives_the_same_scores_and_samples_bit_for_bit(seed, averaging, unit):
    judgments = random_judgments(seed, shared_items=seed % 3 == 0)
    rng = np.random.default_rng(seed + 100)
    z = rng.normal(0, 1, len(judgments))
    segments = Segments.of(judgments)
    masks = [None, np.ones(judgments.n_workers, dtype=bool), rng.random(judgments.n_workers) < 0.6]
    for include in masks:
        want = system_scores_and_samples(
            judgments, z, include_workers=include, averaging=averaging, unit=unit
        )
        got = system_scores_and_samples(
            judgments,
            z,
            include_workers=include,
            averaging=averaging,
            unit=unit,
            segments=segments,
        )
        for name in ("system", "n", "mean_score", "mean_z", "n_segments"):
            np.testing.assert_array_equal(getattr(got[0], name), getattr(want[0], name))
        if unit is None:
            assert got[1] is None and want[1] is None
        else:
            assert len(got[1]) == len(want[1])
            for a, b in zip(got[1], want[1], strict=True):
                np.testing.assert_array_equal(a, b)


def test_worked_example_with_a_worker_left_out():
    """Worker 1 judges system 5's item 50 twice (80, 60) and system 6's item 60 once (40);
    worker 2 judges item 50 once (20) and item 61 of system 6 once (10). Without worker 2,
    system 5: one segment, mean 70; system 6: one segment, 40. With everyone: system 5's
    segment 50 averages 80, 60, 20 -> 53.33..., system 6: segments 60 (40) and 61 (10) -> 25."""
    j = DAJudgments(
        worker=[1, 1, 1, 2, 2],
        assignment=[1, 1, 1, 2, 2],
        slot=[1, 2, 3, 4, 5],
        role=["system"] * 5,
        system=[5, 5, 6, 5, 6],
        item=[50, 50, 60, 50, 61],
        pair_slot=[-1] * 5,
        score=[80.0, 60.0, 40.0, 20.0, 10.0],
        seconds=[1.0] * 5,
    )
    z = j.score / 10
    segments = Segments.of(j)
    assert segments.pair_system.tolist() == [5, 6, 6]
    assert segments.code.tolist() == [0, 0, 1, 0, 2]
    only_first = np.array([True, False])
    scores, samples = system_scores_and_samples(j, z, include_workers=only_first, segments=segments)
    assert scores.system.tolist() == [5, 6]
    assert scores.mean_score.tolist() == [70.0, 40.0]
    assert scores.n.tolist() == [2, 1]
    assert [s.tolist() for s in samples] == [[7.0], [4.0]]
    everyone, _ = system_scores_and_samples(j, z, segments=segments)
    assert everyone.system.tolist() == [5, 6]
    assert everyone.mean_score.tolist() == [160.0 / 3, 25.0]
    assert everyone.n_segments.tolist() == [1, 2]


def test_segments_of_other_judgments_or_workers_are_refused():
    j = random_judgments(1)
    other = random_judgments(2)
    segments = Segments.of(other)
    z = np.zeros(len(j))
    if len(other) != len(j):
        with pytest.raises(ValueError, match="segments are of other judgments"):
            system_scores_and_samples(j, z, segments=segments)
    own = Segments.of(j)
    with pytest.raises(ValueError, match="include_workers must have shape"):
        system_scores_and_samples(
            j, z, include_workers=np.ones(j.n_workers + 1, dtype=bool), segments=own
        )


@pytest.mark.parametrize("seed", range(6))
def test_segments_from_items_numbered_elsewhere_give_the_same_results(seed):
    """Items numbered in first-seen order, with extra items that have no row here (an
    incremental cache's items: rows cut, other subsets): pair numbers in (system, item) order
    give ``Segments.of``'s results, bit for bit."""
    judgments = random_judgments(seed)
    rng = np.random.default_rng(seed + 7)
    z = rng.normal(0, 1, len(judgments))
    extra_items = np.array([10**6 + 3, 50, 999_999])  # no row here
    extra_systems = np.array([100, -1, 103])
    seen, first = np.unique(judgments.item, return_index=True)
    item_ids = np.concatenate([extra_items, seen[np.argsort(first)]])
    item_system = np.full(item_ids.shape[0], -1, dtype=np.int64)
    item_system[: extra_items.shape[0]] = extra_systems
    outputs = judgments.system >= 0
    code_of = {int(item): code for code, item in enumerate(item_ids)}
    item_code = np.array([code_of[int(item)] for item in judgments.item], dtype=np.int32)
    item_system[item_code[outputs]] = judgments.system[outputs]
    order = np.lexsort((item_ids, item_system))
    pair_of_item = np.empty(order.shape[0], dtype=np.int32)
    pair_of_item[order] = np.arange(order.shape[0])
    segments = Segments.of_items(judgments, item_code, pair_of_item, item_system[order])
    assert segments is not None
    for include in (None, rng.random(judgments.n_workers) < 0.5):
        want = system_scores_and_samples(judgments, z, include_workers=include)
        got = system_scores_and_samples(judgments, z, include_workers=include, segments=segments)
        for name in ("system", "n", "mean_score", "mean_z", "n_segments"):
            np.testing.assert_array_equal(getattr(got[0], name), getattr(want[0], name))
        for a, b in zip(got[1], want[1], strict=True):
            np.testing.assert_array_equal(a, b)
    # An output row under another system than its item's, or without an item: not usable.
    wrong = item_system[order].copy()
    wrong[pair_of_item[item_code[outputs][0]]] += 1
    assert Segments.of_items(judgments, item_code, pair_of_item, wrong) is None
    missing = item_code.copy()
    missing[np.flatnonzero(outputs)[0]] = -1
    assert Segments.of_items(judgments, missing, pair_of_item, item_system[order]) is None
