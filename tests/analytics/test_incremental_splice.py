"""Per-worker statistics spliced from earlier results (analytics.stats.direct_assessment.
worker_splice, the incremental recompute's): equal, to the last bit, to the same statistics
computed over every row, when some workers gained rows and some are new."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.direct_assessment import (
    DAJudgments,
    standardize,
    worker_reliability,
    worker_splice,
)
from analytics.stats.direct_assessment.effort import score_spread
from analytics.stats.direct_assessment.worker_splice import (
    WorkerChanges,
    reliability_spliced,
    spread_spliced,
    zscores_spliced,
)
from tests.analytics.stats.test_da_report_reuse import assert_same
from tests.analytics.stats.test_da_simulation import simulate_campaign


@pytest.fixture(scope="module")
def campaign():
    """A whole campaign and an earlier state of it: a few workers had done fewer HITs, two
    had not started."""
    judgments, _ = simulate_campaign(
        np.random.default_rng(16), n_careful=14, n_random=6, hits_per_worker=3, workers_per_hit=4
    )
    assignments = np.unique(judgments.assignment)
    workers = judgments.workers
    later = np.isin(judgments.assignment, assignments[1::7])  # whole assignments came later
    later |= np.isin(judgments.worker, workers[-2:])  # two workers are new
    earlier = judgments.subset(~later)
    changed = np.unique(judgments.worker[later])
    assert 2 < changed.shape[0] < workers.shape[0]  # some changed, some did not
    return judgments, earlier, changed


@pytest.mark.parametrize("test", ["wilcoxon", "paired_t", "welch", "mann_whitney"])
def test_reliability_spliced_equals_every_row(campaign, test):
    judgments, earlier, changed = campaign
    settings = {"test": test, "alpha": 0.05, "min_pairs": 5, "assumption_a_test": "paired_t"}
    previous = worker_reliability(earlier, **settings)
    changes = WorkerChanges.of(judgments, previous.workers, changed)
    assert np.array_equal(judgments.workers[changes.changed], changed)
    assert_same(
        reliability_spliced(previous, changes, **settings),
        worker_reliability(judgments, **settings),
    )
    with pytest.raises(ValueError, match="other settings"):
        reliability_spliced(previous, changes, **{**settings, "alpha": 0.01})


def test_spread_and_zscores_spliced_equal_every_row(campaign):
    judgments, earlier, changed = campaign
    changes = WorkerChanges.of(judgments, earlier.workers, changed)
    assert_same(spread_spliced(score_spread(earlier), changes), score_spread(judgments))
    for exclude_references in (False, True):
        for ddof in (0, 1):
            settings = {"exclude_references": exclude_references, "ddof": ddof}
            assert_same(
                zscores_spliced(standardize(earlier, **settings), changes),
                standardize(judgments, **settings),
            )


def test_nothing_changed_takes_every_worker_from_before(campaign):
    judgments, _, _ = campaign
    reliability = worker_reliability(judgments)
    z = standardize(judgments)
    changes = WorkerChanges.of(judgments, judgments.workers, np.empty(0, dtype=np.int64))
    assert changes.subset is None and not changes.changed.any()
    assert_same(reliability_spliced(reliability, changes), reliability)
    assert_same(spread_spliced(score_spread(judgments), changes), score_spread(judgments))
    assert_same(zscores_spliced(z, changes), z)


def test_without_earlier_results_every_worker_is_computed(campaign):
    judgments, _, _ = campaign
    empty = judgments.subset(np.zeros(len(judgments), dtype=bool))
    changes = WorkerChanges.of(judgments, empty.workers, np.empty(0, dtype=np.int64))
    assert changes.changed.all()
    assert_same(
        reliability_spliced(worker_reliability(empty), changes), worker_reliability(judgments)
    )


@pytest.mark.parametrize("same_rows", ["all", "half", "none"])
def test_zscores_spliced_taking_the_earlier_rows_z_equal_every_row(campaign, same_rows):
    """Rows appended after the earlier ones (whole assignments, some of new workers): the
    earlier rows' z is taken over for the unchanged workers, the rest derived again; every
    value equals standardize's over every row, to the last bit."""
    judgments, _, _ = campaign
    assignments = np.unique(judgments.assignment)
    late = np.isin(judgments.assignment, assignments[-9:])
    # The earlier rows first, then the late ones: the order of an incremental cache.
    order = np.concatenate([np.flatnonzero(~late), np.flatnonzero(late)])
    ordered = DAJudgments(
        **{
            name: getattr(judgments, name)[order]
            for name in ("worker", "assignment", "slot", "role", "system", "item", "pair_slot")
        },
        score=judgments.score[order],
        seconds=judgments.seconds[order],
    )
    earlier = ordered.subset(np.arange(len(ordered)) < np.count_nonzero(~late))
    grown = np.unique(ordered.worker[np.count_nonzero(~late) :])
    n_same = {"all": len(earlier), "half": len(earlier) // 2, "none": 0}[same_rows]
    for exclude_references in (False, True):
        settings = {"exclude_references": exclude_references, "ddof": 1}
        previous = standardize(earlier, **settings)
        changes = WorkerChanges.of(ordered, earlier.workers, grown)
        assert changes.changed.any() and not changes.changed.all()
        assert_same(zscores_spliced(previous, changes, n_same), standardize(ordered, **settings))


@pytest.mark.parametrize("few_rows", [0.0, 1.0])
def test_changed_workers_rows_by_position_equal_the_subset(campaign, monkeypatch, few_rows):
    """The changed workers' judgments, built from their rows alone (a few workers: 1.0 takes
    that path whatever their share) or by ``subset`` (0.0), are the subset's to the last value
    (columns, pair links renumbered, workers), with or without given z-scores, and the spliced
    statistics are those over every row."""
    monkeypatch.setattr(worker_splice, "_FEW_ROWS", few_rows)
    judgments, earlier, changed = campaign
    given = judgments.given_z.copy()
    given[judgments.worker == changed[0]] = 0.25  # one changed worker's rows: given z-scores
    with_given = DAJudgments(
        **{name: getattr(judgments, name) for name in worker_splice._TAKEN}, given_z=given
    )
    for every_row in (judgments, with_given):
        changes = WorkerChanges.of(every_row, earlier.workers, changed)
        expected = every_row.subset(every_row.worker_mask_to_rows(changes.changed))
        assert type(changes.subset) is DAJudgments
        for name in (*worker_splice._TAKEN, "given_z", "partner", "workers", "worker_index"):
            np.testing.assert_array_equal(
                getattr(changes.subset, name), getattr(expected, name), err_msg=name
            )
        assert changes.subset.has_given_z.any() == (every_row is with_given)
        assert_same(
            reliability_spliced(worker_reliability(earlier), changes),
            worker_reliability(every_row),
        )
