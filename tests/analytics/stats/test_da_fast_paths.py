"""The direct-assessment recompute's fast paths (issue 16) give exactly what the plain numpy
operations they replace give: dense ids numbered without a sort, radix stable orders, a subset
derived from its parent, the distinct-judge grouping kept per judgments."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.direct_assessment import (
    DAConfig,
    DAJudgments,
    Role,
    agreement,
    analyse_campaign,
    standardize,
    system_samples,
    system_scores,
)
from analytics.stats.direct_assessment._codes import factorise, stable_order
from analytics.stats.direct_assessment.judgments import freeze
from analytics.stats.significance import pairwise_rank_sum


@pytest.mark.parametrize(
    "values",
    [
        [7, 3, 3, 9, 7, 5],  # dense
        [10**12, 5, 10**12, 7],  # sparse: np.unique
        [-4, 2, -4, 0],  # negative ids
        [42],
        [],
    ],
)
def test_factorise_equals_np_unique(values) -> None:
    values = np.array(values, dtype=np.int64)
    ids, codes = factorise(values)
    want_ids, want_codes = np.unique(values, return_inverse=True)
    np.testing.assert_array_equal(ids, want_ids)
    np.testing.assert_array_equal(codes, want_codes.reshape(-1))
    assert ids.dtype == np.int64


def test_factorise_by_hand() -> None:
    ids, codes = factorise(np.array([105, 101, 105, 103]))
    assert ids.tolist() == [101, 103, 105]
    assert codes.tolist() == [2, 0, 2, 1]


@pytest.mark.parametrize("span", [3, 70_000, 2**33, 2**50])
def test_stable_order_equals_a_stable_argsort(span: int) -> None:
    keys = np.random.default_rng(span % 1000).integers(-5, span, 5000)
    np.testing.assert_array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


def test_stable_order_keeps_ties_in_input_order() -> None:
    # Keys past 16 bits take two radix passes; equal keys keep their positions' order.
    keys = np.array([70_000, 5, 70_000, 5, 1])
    assert stable_order(keys).tolist() == [4, 1, 3, 0, 2]
    assert stable_order(np.zeros(0, dtype=np.int64)).tolist() == []


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_stable_order_of_keys_in_order_is_the_identity(dtype) -> None:
    # Non-decreasing keys (ties included, past 16 bits and negative) need no sort.
    keys = np.array([-3, -3, 0, 7, 7, 7, 70_000, 2**30], dtype=dtype)
    order = stable_order(keys)
    assert order.dtype == np.intp
    assert order.tolist() == list(range(8))
    np.testing.assert_array_equal(order, np.argsort(keys, kind="stable"))
    assert stable_order(np.array([4], dtype=dtype)).tolist() == [0]
    # One key out of order: sorted as before.
    keys[3] = -4
    np.testing.assert_array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


def campaign(seed: int = 3) -> DAJudgments:
    """Three workers, two HITs each of (system, bad reference, repeat, reference) sets over two
    systems; the same outputs met by several workers (distinct-judge pairs)."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in DAJudgments.__dataclass_fields__}
    del rows["scale_max"], rows["given_z"]
    slot = 1000
    for worker in (11, 12, 13):
        for hit in range(2):
            assignment = worker * 10 + hit
            for output in range(6):
                system, item = output % 2, 500 + output + 6 * hit
                slot += 1
                base = slot
                for role, pair in (
                    (Role.SYSTEM, -1),
                    (Role.BAD_REFERENCE, base),
                    (Role.REPEAT, base),
                    (Role.REFERENCE, base),
                ):
                    rows["worker"].append(worker)
                    rows["assignment"].append(assignment)
                    rows["slot"].append(base if role == Role.SYSTEM else slot)
                    rows["role"].append(int(role))
                    rows["system"].append(system if role in (Role.SYSTEM, Role.REPEAT) else -1)
                    rows["item"].append(item)
                    rows["pair_slot"].append(pair)
                    rows["score"].append(float(rng.integers(0, 101)))
                    rows["seconds"].append(float(rng.integers(1, 30)))
                    slot += 1
    return DAJudgments(**rows)


def test_read_only_arrays_of_the_right_type_are_kept_without_a_copy() -> None:
    j = campaign()
    score = freeze(np.array(j.score))
    kept = DAJudgments(**{**_columns(j), "score": score})
    assert kept.score is score
    writable = np.array(j.score)
    copied = DAJudgments(**{**_columns(j), "score": writable})
    assert copied.score is not writable
    assert copied.given_z.strides == (0,)  # no given z: NaN without an array of them
    assert np.isnan(copied.given_z).all() and copied.given_z.shape == (len(j),)


def _columns(j: DAJudgments) -> dict:
    return {
        name: getattr(j, name)
        for name in (
            "worker",
            "assignment",
            "slot",
            "role",
            "system",
            "item",
            "pair_slot",
            "score",
            "seconds",
        )
    }


@pytest.mark.parametrize("release", [False, True])
def test_a_subset_equals_judgments_built_from_its_rows(release: bool) -> None:
    j = campaign()
    # Worker 12's second HIT rejected, worker 13 excluded: whole assignments.
    rows = ~((j.assignment == 121) | (j.worker == 13))
    built = DAJudgments(**{k: v[rows] for k, v in _columns(j).items()})
    sub = j.subset(rows, release=release)
    for name in [*_columns(j), "partner", "workers", "worker_index"]:
        np.testing.assert_array_equal(getattr(sub, name), getattr(built, name), err_msg=name)
    assert sub.n_unmatched_controls == built.n_unmatched_controls == 0
    assert sub.workers.tolist() == [11, 12]
    if release:
        assert len(j) == 0  # the parent let its columns go
    else:
        assert len(j) == 4 * 6 * 2 * 3


_LAZY = {"assignment", "slot", "pair_slot", "seconds"}


@pytest.mark.parametrize("release", [False, True])
def test_a_subset_of_int32_ids_takes_four_columns_on_first_use(release: bool) -> None:
    # The loaders and an incremental recompute's cache give int32 id columns: the scored
    # copy leaves out the two columns no statistic reads from it until one is asked for.
    columns = _columns(campaign())
    narrow = {
        name: freeze(values.astype(np.int32)) if values.dtype == np.int64 else values
        for name, values in columns.items()
    }
    j = DAJudgments(**narrow)
    rows = ~((j.assignment == 121) | (j.worker == 13))
    built = DAJudgments(**{k: v[rows] for k, v in columns.items()})
    sub = j.subset(rows, release=release)
    assert _LAZY.isdisjoint(vars(sub))
    assert "worker" in vars(sub)
    # What the statistics read is there, and the same as built from the rows.
    np.testing.assert_array_equal(sub.partner, built.partner)
    assert analyse_campaign(sub).systems.mean_z.tolist() == (
        analyse_campaign(built).systems.mean_z.tolist()
    )
    # The analysis counted the unmatched controls (pair_slot) and timed every worker
    # (seconds): those two were taken; the id columns still are not.
    assert {"assignment", "slot"}.isdisjoint(vars(sub))
    np.testing.assert_array_equal(sub.seconds, built.seconds)
    np.testing.assert_array_equal(sub.pair_slot, built.pair_slot)
    # Asked for, each is taken then, once, and equals the rows' values.
    assert sub.assignment.tolist() == built.assignment.tolist()
    assert sub.assignment is sub.assignment
    assert "_taken_on_use" in vars(sub)
    assert sub.slot.tolist() == built.slot.tolist()
    assert "_taken_on_use" not in vars(sub)
    assert sub.slot.dtype == np.int32 and not sub.slot.flags.writeable
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        sub.nothing  # noqa: B018


def test_a_subset_of_int64_ids_copies_every_column_at_once() -> None:
    # int64 ids (judgments built by hand, or ids beyond int32) are let go as the subset is
    # taken (release): the subset holds its own narrow copy, not the wide parent columns.
    j = campaign()
    sub = j.subset(j.worker != 13, release=True)
    assert {"assignment", "slot", "pair_slot"} <= set(vars(sub))
    # Durations are float64 either way: held, at most the rows the subset leaves out.
    assert set(vars(sub)["_taken_on_use"]) == {"seconds"}


def _narrow_judgments() -> tuple[DAJudgments, dict]:
    """A campaign with int32 id columns (as the loaders and the cache give), and its columns."""
    columns = _columns(campaign())
    narrow = {
        name: freeze(values.astype(np.int32)) if values.dtype == np.int64 else values
        for name, values in columns.items()
    }
    return DAJudgments(**narrow), columns


@pytest.mark.parametrize("release", [False, True])
def test_a_subset_of_a_subset_takes_nothing_from_its_parent(release: bool) -> None:
    # The workers tested again are a subset of the scored rows: their rows are read from the
    # arrays the scored rows would take theirs from, which stay untaken (a million rows:
    # 7 MB of ids and 8 MB of durations at a recompute's peak).
    j, columns = _narrow_judgments()
    rows = ~((j.assignment == 121) | (j.worker == 13))
    sub = j.subset(rows)
    inner = np.isin(sub.worker, [11, 14])
    subsub = sub.subset(inner, release=release)
    assert _LAZY.isdisjoint(vars(subsub))
    if release:  # the parent let go of its columns, and of the arrays it held
        assert len(sub) == 0 and "_taken_on_use" not in vars(sub)
    else:
        assert _LAZY.isdisjoint(vars(sub))
    built = DAJudgments(**{k: v[rows] for k, v in columns.items()})
    built_inner = DAJudgments(**{k: v[rows][inner] for k, v in columns.items()})
    for name in sorted(_LAZY):
        np.testing.assert_array_equal(getattr(subsub, name), getattr(built_inner, name))
    np.testing.assert_array_equal(subsub.partner, built_inner.partner)
    if not release:  # the parent was left whole: its own rows, taken now
        for name in sorted(_LAZY):
            np.testing.assert_array_equal(getattr(sub, name), getattr(built, name))


def test_rows_of_reads_rows_without_taking_the_column() -> None:
    j, columns = _narrow_judgments()
    rows = j.worker != 12
    sub = j.subset(rows)
    built = DAJudgments(**{k: v[rows] for k, v in columns.items()})
    at = np.array([0, 5, 17, len(sub) - 1])
    mask = np.isin(sub.worker, [13])
    for where in (at, mask):
        read = sub.rows_of(where, ["worker", "slot", "seconds", "pair_slot"])
        for name, values in read.items():
            np.testing.assert_array_equal(values, getattr(built, name)[where])
    assert _LAZY.isdisjoint(vars(sub))
    assert read["slot"].dtype == np.int32


def test_a_subset_does_not_follow_a_mask_changed_after_it() -> None:
    j, columns = _narrow_judgments()
    rows = j.worker != 12
    want = columns["slot"][rows].tolist()
    sub = j.subset(rows)
    rows[:] = True  # the caller's mask, used for something else afterwards
    assert sub.slot.tolist() == want


def test_pairs_within_counts_every_within_group_pair() -> None:
    from analytics.stats.direct_assessment.agreement import _pairs_within

    sizes = np.array([0, 1, 2, 3, 7, 100_000], dtype=np.int64)
    assert _pairs_within(sizes) == 0 + 0 + 1 + 3 + 21 + 4_999_950_000
    assert _pairs_within(np.zeros(0, dtype=np.int64)) == 0


def test_a_subset_that_cuts_a_pair_leaves_the_control_unmatched() -> None:
    j = campaign()
    rows = np.ones(len(j), dtype=bool)
    rows[0] = False  # the first system row: its three controls lose their partner
    built = DAJudgments(**{k: v[rows] for k, v in _columns(j).items()})
    sub = j.subset(rows)
    np.testing.assert_array_equal(sub.partner, built.partner)
    assert sub.n_unmatched_controls == built.n_unmatched_controls == 3


def test_the_statistics_of_a_subset_equal_those_of_the_same_rows_built_anew() -> None:
    j = campaign()
    rows = j.worker != 13
    built = DAJudgments(**{k: v[rows] for k, v in _columns(j).items()})
    sub = j.subset(rows)
    a, b = analyse_campaign(sub), analyse_campaign(built)
    np.testing.assert_array_equal(a.systems.mean_z, b.systems.mean_z)
    np.testing.assert_array_equal(a.p_greater, b.p_greater)
    assert a.agreement_all == b.agreement_all


def test_agreement_over_included_workers_equals_agreement_over_their_rows_alone() -> None:
    """The distinct-judge grouping is made once per judgments and restricted to the included
    workers: the same figures as grouping their rows alone (a worker's whole rows kept)."""
    j = campaign(seed=8)
    z = standardize(j)
    include = np.array([True, False, True])
    rows = j.worker_mask_to_rows(include)
    alone = DAJudgments(**{k: v[rows] for k, v in _columns(j).items()})
    for chance in ("uniform", "pooled"):
        restricted = agreement(j, z.z, include_workers=include, chance=chance)
        grouped_alone = agreement(alone, z.z[rows], chance=chance)
        # Same pairs and differences; the z-percentile edges come from the included rows in
        # both (z is the same per row).
        assert restricted == grouped_alone
    everyone = agreement(j, z)
    assert everyone.distinct_judges.n_pairs == 3 * 12  # 12 outputs, 3 workers each: 3 pairs
    assert everyone.same_judge.n_pairs == 3 * 12


def test_scores_and_samples_from_one_segment_table_equal_the_separate_calls() -> None:
    j = campaign(seed=5)
    z = standardize(j)
    everyone = np.ones(j.n_workers, dtype=bool)
    scores = system_scores(j, z, include_workers=everyone)
    samples = system_samples(j, z.z, scores.system, include_workers=everyone)
    report = analyse_campaign(j, DAConfig(include_unreliable=True))
    np.testing.assert_array_equal(report.systems.system, scores.system)
    np.testing.assert_array_equal(report.systems.mean_z, scores.mean_z)
    np.testing.assert_array_equal(report.systems.n_segments, [6, 6])
    assert [len(s) for s in samples] == [6, 6]
    np.testing.assert_array_equal(report.p_greater, pairwise_rank_sum(samples))


def test_segment_means_when_an_item_id_is_shared_by_two_systems() -> None:
    """Items are output ids (one system each) in a campaign; a caller may still number
    segments across systems: then (system, item) pairs are told apart by their key."""
    j = DAJudgments(
        worker=[1, 1, 2, 2],
        assignment=[1, 1, 2, 2],
        slot=[1, 2, 3, 4],
        role=["system"] * 4,
        system=[5, 6, 5, 6],
        item=[9, 9, 9, 9],
        pair_slot=[-1] * 4,
        score=[10.0, 20.0, 30.0, 60.0],
        seconds=[1.0] * 4,
    )
    z = np.array([0.5, -0.5, 1.0, 2.0])
    scores = system_scores(j, z)
    # Equal mean z (0.75): the lower system id first.
    assert scores.system.tolist() == [5, 6]
    assert scores.mean_score.tolist() == [20.0, 40.0]
    assert scores.mean_z.tolist() == [0.75, 0.75]
    assert scores.n_segments.tolist() == [1, 1]


@pytest.mark.parametrize("seed", range(5))
def test_repeat_pair_moments_equal_the_sorted_ones_bit_for_bit(seed: int) -> None:
    """Groups of two (repeat pairs): the moments from comparing each pair's two values are
    those of the general path (a stable sort), to the last bit, ties and zeros included."""
    from analytics.stats.direct_assessment.agreement import _Groups

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 3000))
    x = rng.integers(0, 101, 2 * n).astype(np.float64)
    if seed % 2:
        x = x + rng.normal(0, 1e-3, 2 * n) * (x > 50)  # fractions among the whole numbers
    group = np.repeat(np.arange(n), 2)
    general = _Groups(group, n).diff_moments(x)
    paired = _Groups(group, n, pairs=True).diff_moments(x)
    assert np.array(paired).view(np.int64).tolist() == np.array(general).view(np.int64).tolist()
