"""Session 7's shortcuts in the DA agreement (issue 16 item 2) give exactly what the code they
replace gives: percentile categories counted by comparisons instead of searchsorted,
equal-width categories looked up in a table for whole-number scores, agreeing pairs from
sums of counts, and the distinct-judge pairs prepared in a second thread."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.direct_assessment import (
    DAConfig,
    DAJudgments,
    Role,
    agreement,
    analyse_campaign,
)
from analytics.stats.direct_assessment._heap import in_thread, share_one_heap
from analytics.stats.direct_assessment.agreement import (
    _categories_by_edges,
    _equal_width_binning,
    _equal_width_codes,
    _Groups,
    _small_integer_codes,
    prepare_agreement,
    z_percentile_edges,
)
from analytics.stats.direct_assessment.report import configured_agreement


@pytest.mark.parametrize(
    "edges",
    [
        [-0.5, 0.0, 0.5, 1.0],  # sorted: counted by comparisons
        [0.0, 0.0, 1.0, 1.0],  # ties between edges
        [1.0],
        [],
        [float("nan"), float("nan"), float("nan"), float("nan")],  # NaN edges: searchsorted
        [1.0, 0.0],  # unsorted: searchsorted
        list(np.linspace(-2, 2, 20)),  # more edges than are counted: searchsorted
    ],
)
def test_categories_by_edges_equal_searchsorted(edges) -> None:
    values = np.array(
        [-1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0, float("nan"), float("inf"), -float("inf")]
    )
    edges = np.array(edges, dtype=np.float64)
    got = _categories_by_edges(values, edges)
    want = np.searchsorted(edges, values, side="right")
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int8


def test_categories_by_edges_hand_worked() -> None:
    # Edges 20, 40: below 20 is 0, 20 up to 40 is 1, from 40 on is 2; NaN after every edge.
    got = _categories_by_edges([19.9, 20.0, 39.9, 40.0, float("nan")], np.array([20.0, 40.0]))
    assert got.tolist() == [0, 1, 1, 2, 2]


@pytest.mark.parametrize("k", [2, 4, 5, 7])
@pytest.mark.parametrize("scale_max", [100.0, 10.0])
def test_equal_width_table_equals_codes(k, scale_max) -> None:
    scores = np.array([0, 1, 19, 20, 39, 40, 49, 50, 99, 100], dtype=np.float64)
    scores = scores[scores <= scale_max]
    small = _small_integer_codes(scores)
    assert small.dtype == np.uint8
    got = _equal_width_binning(scores, small, k, scale_max)()
    want = _equal_width_codes(scores, k, scale_max)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_equal_width_fractions_keep_the_float_codes() -> None:
    scores = np.array([0.5, 20.0, 99.5])
    small = _small_integer_codes(scores)
    assert small.dtype == np.float64
    assert _equal_width_binning(scores, small, 5, 100.0)().tolist() == [0, 1, 4]


def test_agreeing_pairs_hand_worked() -> None:
    # Group 0: categories 1, 1, 1, 0 -> 3 agreeing pairs; group 1: 2, 2 -> 1; group 2: 0 -> 0.
    groups = _Groups(np.array([0, 0, 0, 0, 1, 1, 2]), 3)
    cats = np.array([1, 1, 1, 0, 2, 2, 0], dtype=np.int8)
    assert groups.agreeing_pairs(cats, 3) == 4


def _judgments(seed: int) -> DAJudgments:
    """Three workers judging ten outputs of two systems, with repeats and bad references."""
    rng = np.random.default_rng(seed)
    rows = []
    for worker in range(3):
        for assignment in (2 * worker, 2 * worker + 1):
            for item in range(10):
                slot = assignment * 100 + item
                rows.append((worker, assignment, slot, Role.SYSTEM, item % 2, item, -1))
                if item < 6:
                    rows.append((worker, assignment, slot + 50, Role.REPEAT, item % 2, item, slot))
                if item >= 6:
                    rows.append((worker, assignment, slot + 70, Role.BAD_REFERENCE, -1, -1, slot))
    columns = list(zip(*rows, strict=True))
    n = len(rows)
    return DAJudgments(
        worker=np.array(columns[0]),
        assignment=np.array(columns[1]),
        slot=np.array(columns[2]),
        role=np.array(columns[3], dtype=np.int8),
        system=np.array(columns[4]),
        item=np.array(columns[5]),
        pair_slot=np.array(columns[6]),
        score=rng.integers(0, 101, n).astype(np.float64),
        seconds=np.full(n, 5.0),
    )


@pytest.mark.parametrize("include_unreliable", [True, False])
def test_analysis_prepared_in_a_thread_equals_agreement_alone(include_unreliable) -> None:
    # analyse_campaign prepares the distinct-judge pairs in a second thread; the agreement of
    # fresh judgments computed in this thread alone is the same, figure for figure.
    config = DAConfig(min_pairs=2, include_unreliable=include_unreliable)
    report = analyse_campaign(_judgments(3), config)
    alone = _judgments(3)
    assert repr(report.agreement_all) == repr(
        configured_agreement(alone, report.zscores, config, None)
    )
    assert repr(report.agreement_included) == repr(
        configured_agreement(alone, report.zscores, config, report.included_workers)
    )
    prepare_agreement(alone)  # done again: nothing changes
    assert repr(report.agreement_all) == repr(
        configured_agreement(alone, report.zscores, config, None)
    )


def test_in_thread_gives_the_result_or_the_error() -> None:
    share_one_heap()
    share_one_heap()  # once per process; a second call does nothing
    assert in_thread(sum, [1, 2, 3]).result() == 6

    def fail() -> None:
        raise KeyError("in the thread")

    with pytest.raises(KeyError, match="in the thread"):
        in_thread(fail).result()


def test_agreement_with_edges_given_equals_computed() -> None:
    config = DAConfig(min_pairs=2)
    judgments = _judgments(5)
    report = analyse_campaign(judgments, config)
    mask = np.array([True, False, True])
    edges = z_percentile_edges(judgments, report.zscores, mask, (5, 3))
    # Hand check of what the edges are: the quantiles of the z-scores of workers 0 and 2.
    rows = np.isin(judgments.worker, [0, 2])
    np.testing.assert_array_equal(edges[3], np.quantile(report.zscores.z[rows], [1 / 3, 2 / 3]))
    given = agreement(
        judgments, report.zscores, include_workers=mask, z_categories=(5, 3), z_edges=edges
    )
    computed = agreement(judgments, report.zscores, include_workers=mask, z_categories=(5, 3))
    assert repr(given) == repr(computed)
