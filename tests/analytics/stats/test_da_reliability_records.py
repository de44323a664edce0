"""WorkerReliability.records(): the plain Python values stored per worker (WorkerStat), built
column by column (tolist) rather than element by element: exact values and exact types."""

from __future__ import annotations

import numpy as np

from analytics.stats.direct_assessment import WorkerQC, WorkerReliability


def _reliability(test: str = "wilcoxon") -> WorkerReliability:
    nan = float("nan")
    reason = np.array(["", "too few bad-reference pairs (3 < 5)", ""], dtype=object)
    p_values = {
        "wilcoxon": np.array([0.01, nan, 0.5]),
        "paired_t": np.array([0.02, nan, 0.4]),
        "welch": np.array([0.03, nan, 0.3]),
        "mann_whitney": np.array([0.04, nan, 0.2]),
    }
    return WorkerReliability(
        # int32 ids (a loader's narrow ids) come out as Python ints all the same.
        workers=np.array([7, 11, 2**31 - 1], dtype=np.int32),
        test=test,
        alpha=0.05,
        min_pairs=5,
        p_value=p_values[test],
        reliable=p_values[test] < 0.05,
        reason=reason,
        p_values=p_values,
        reasons={name: reason for name in p_values},
        n_bad_ref_pairs=np.array([10, 3, 6], dtype=np.int64),
        n_repeat_pairs=np.array([9, 0, 7], dtype=np.int64),
        n_judgments=np.array([100, 31, 77], dtype=np.int64),
        mean_seconds=np.array([4.25, nan, 0.1 + 0.2]),
        assumption_a_test="paired_t",
        assumption_a_p=np.array([0.7, nan, 0.01]),
        assumption_a_holds=np.array([True, False, False]),
    )


def test_records_give_plain_values_none_for_nan() -> None:
    records = _reliability().records()
    assert records == [
        WorkerQC(
            worker=7,
            test="wilcoxon",
            p_value=0.01,
            reliable=True,
            reason="",
            n_pairs=10,
            n_bad_ref_pairs=10,
            n_repeat_pairs=9,
            n_judgments=100,
            mean_seconds=4.25,
            assumption_a_p=0.7,
            assumption_a_holds=True,
        ),
        WorkerQC(
            worker=11,
            test="wilcoxon",
            p_value=None,
            reliable=False,
            reason="too few bad-reference pairs (3 < 5)",
            n_pairs=3,
            n_bad_ref_pairs=3,
            n_repeat_pairs=0,
            n_judgments=31,
            mean_seconds=None,
            assumption_a_p=None,
            # Not tested (no p): None, whatever the holds array says.
            assumption_a_holds=None,
        ),
        WorkerQC(
            worker=2**31 - 1,
            test="wilcoxon",
            p_value=0.5,
            reliable=False,
            reason="",
            n_pairs=6,
            n_bad_ref_pairs=6,
            n_repeat_pairs=7,
            n_judgments=77,
            # The very float64 value, not a rounded one.
            mean_seconds=0.1 + 0.2,
            assumption_a_p=0.01,
            assumption_a_holds=False,
        ),
    ]
    for record in records:
        assert type(record.worker) is int and type(record.n_pairs) is int
        assert type(record.n_judgments) is int and type(record.reliable) is bool
        assert record.p_value is None or type(record.p_value) is float
        assert record.mean_seconds is None or type(record.mean_seconds) is float
        assert record.assumption_a_holds is None or type(record.assumption_a_holds) is bool


def test_records_of_a_two_sample_test_count_both_kinds_of_pairs() -> None:
    records = _reliability("welch").records()
    assert [r.n_pairs for r in records] == [19, 3, 13]
    assert [r.p_value for r in records] == [0.03, None, 0.3]
    assert [r.test for r in records] == ["welch"] * 3


def test_records_of_no_workers() -> None:
    empty = _reliability().take(np.zeros(0, dtype=np.intp))
    assert empty.records() == []
