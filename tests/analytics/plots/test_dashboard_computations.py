"""The two computations the dashboards add to the stored results, on hand data: agreement
against the number of voters (000 Figure 1) and bootstrap intervals of system means."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.dashboards.intervals import bootstrap_mean_intervals
from analytics.dashboards.voters import agreement_by_voters, ballot_positions
from analytics.stats.ranking import RankingJudgments

WEIGHTINGS = {"unweighted": None}


def ballots(sets: list[list[list[int]]]) -> RankingJudgments:
    """``sets[s][b]``: the ranks ballot b of set s gives systems 0, 1, 2 (a worker per
    ballot, numbered across sets by position: worker b ranks ballot b of every set)."""
    columns: dict[str, list[int]] = {k: [] for k in ("w", "a", "s", "sys", "r")}
    assignment = 0
    for s, set_ballots in enumerate(sets):
        for b, ranks in enumerate(set_ballots):
            assignment += 1
            for system, rank in enumerate(ranks):
                columns["w"].append(b)
                columns["a"].append(assignment)
                columns["s"].append(s)
                columns["sys"].append(system)
                columns["r"].append(rank)
    return RankingJudgments(
        worker=columns["w"],
        assignment=columns["a"],
        ranking_set=columns["s"],
        segment=columns["s"],
        system=columns["sys"],
        rank=columns["r"],
    )


def test_unanimous_workers_agree_fully_with_the_oracle_at_every_k() -> None:
    j = ballots([[[1, 2, 3]] * 3, [[1, 2, 3]] * 3])
    curves = agreement_by_voters(j, WEIGHTINGS, oracle=[[0, 1, 2]])
    assert curves.against == "oracle"
    assert curves.voters == [1, 2, 3]
    assert curves.curves == {"unweighted": [1.0, 1.0, 1.0]}
    assert curves.n_sets == 2


def test_reversed_oracle_gives_zero_and_weights_are_a_curve_each() -> None:
    j = ballots([[[1, 2, 3]] * 2])
    curves = agreement_by_voters(
        j, {"unweighted": None, "weighted": np.array([1.0, 3.0])}, oracle=[[2, 1, 0]]
    )
    assert curves.curves == {"unweighted": [0.0, 0.0], "weighted": [0.0, 0.0]}


def test_held_out_worker_agreement_counts_pairs_by_hand() -> None:
    # Two ballots per set: whichever is held out, the other one is the combined ranking (k
    # goes up to one less than the ballots per set). Set 1, exact opposites: 0 of 3 pairs
    # agree. Set 2, ranks (2, 1, 3) and (3, 1, 2): (0,1) both say 1 is better, (1,2) both
    # say 1 is better, (0,2) differ: 2 of 3. Together 2 of 6, whatever the seed.
    j = ballots([[[1, 2, 3], [3, 2, 1]], [[2, 1, 3], [3, 1, 2]]])
    curves = agreement_by_voters(j, WEIGHTINGS)
    assert curves.against == "held_out"
    assert curves.voters == [1]
    assert curves.curves["unweighted"] == [pytest.approx(2 / 6)]


def test_sets_with_fewer_ballots_than_the_median_are_left_out() -> None:
    j = ballots([[[1, 2, 3]] * 3, [[1, 2, 3]] * 3, [[1, 2, 3]] * 3, [[3, 2, 1]]])
    curves = agreement_by_voters(j, WEIGHTINGS, oracle=[[0, 1, 2]])
    assert curves.n_sets == 3
    assert curves.curves["unweighted"] == [1.0, 1.0, 1.0]


def test_too_few_ballots_or_no_data_give_no_curve() -> None:
    one_each = ballots([[[1, 2, 3]], [[1, 2, 3]]])
    assert agreement_by_voters(one_each, WEIGHTINGS).voters == []
    empty = ballots([])
    assert agreement_by_voters(empty, WEIGHTINGS, oracle=[[0, 1]]).curves == {}


def test_ballot_positions_are_a_permutation_within_each_set() -> None:
    j = ballots([[[1, 2, 3]] * 4, [[1, 2, 3]] * 2])
    position = ballot_positions(j, seed=5)
    first = j.ballot_first_row
    per_set = {}
    for row in first:
        per_set.setdefault(int(j.ranking_set[row]), []).append(int(position[row]))
    assert sorted(per_set[0]) == [0, 1, 2, 3] and sorted(per_set[1]) == [0, 1]
    assert np.array_equal(position, ballot_positions(j, seed=5))


def test_bootstrap_intervals_single_segment_constant_and_missing_systems() -> None:
    system = [1, 2, 2, 2]
    value = [0.5, 0.2, 0.2, 0.2]
    low, high = bootstrap_mean_intervals(system, value, systems=[1, 2, 3])
    assert (low[0], high[0]) == (0.5, 0.5)  # one segment: no spread to resample
    assert low[1] == pytest.approx(0.2) and high[1] == pytest.approx(0.2)
    assert np.isnan(low[2]) and np.isnan(high[2])


def test_bootstrap_interval_brackets_the_mean_and_weights_give_the_flat_mean() -> None:
    rng = np.random.default_rng(0)
    value = rng.normal(0.3, 1.0, 400)
    low, high = bootstrap_mean_intervals(np.zeros(400), value, systems=[0], samples=2000)
    # About mean -/+ 1.96 sd / sqrt(n): the normal approximation within a few percent.
    half = 1.96 * value.std(ddof=1) / np.sqrt(400)
    assert low[0] == pytest.approx(value.mean() - half, abs=0.02)
    assert high[0] == pytest.approx(value.mean() + half, abs=0.02)
    # Two segments of 1 and 3 judgments with means 0 and 10: every resample's weighted mean
    # is 0, 7.5 or 10 (the flat mean over judgments is 7.5).
    low, high = bootstrap_mean_intervals([0, 0], [0.0, 10.0], [1, 3], systems=[0])
    assert low[0] == 0.0 and high[0] == 10.0
    same = bootstrap_mean_intervals([0, 0], [0.0, 10.0], [1, 3], systems=[0])
    assert (same[0][0], same[1][0]) == (low[0], high[0])  # a fixed seed: reproducible
