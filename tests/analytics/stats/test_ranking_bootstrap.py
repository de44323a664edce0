"""The ranking bootstrap: systems a replicate did not draw (issue 17), shared replicates and the
batched Bradley-Terry fit (issue 16), checked by hand and against choix."""

from __future__ import annotations

import choix
import numpy as np
import pytest

from analytics.stats.ranking import (
    RankingJudgments,
    bootstrap_counting_scores,
    bootstrap_scores,
)
from analytics.stats.ranking.bootstrap import (
    bt_batch,
    ilsr_dense_batch,
    replicate_counts,
    replicates,
)

pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

B = 1000


def two_sets() -> RankingJudgments:
    """Four systems in two ranking sets: set 1 ranks 0 > 1 > 2, set 2 ranks 3 > 0 > 1.

    A replicate draws two sets with replacement, so it is one of three kinds:
    A (set 1 twice, probability 1/4): system 3 is not in it;
    M (one of each, 1/2): the data itself;
    C (set 2 twice, 1/4): system 2 is not in it.
    "Better than or equal" win ratios (ties: none), by kind, systems 0, 1, 2, 3:
    A: 4/4, 2/4, 0/4, -      ranks 1, 2, 3, -
    M: 3/4, 1/4, 0/2, 2/2    ranks 2, 3, 4, 1
    C: 2/4, 0/4, -,   4/4    ranks 2, 3, -, 1
    """
    return RankingJudgments.from_ballots(
        [
            {"worker": 1, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}},
            {"worker": 1, "ranking_set": 2, "ranks": {3: 1, 0: 2, 1: 3}},
        ]
    )


def kinds(seed: int) -> np.ndarray:
    """Each replicate's kind from the bootstrap's own draws (sets numbered 0, 1 in id order):
    0 = A (both draws set 1), 1 = M, 2 = C."""
    draws = np.random.default_rng(seed).integers(0, 2, size=(B, 2))
    return draws.sum(axis=1)


def test_a_system_a_replicate_did_not_draw_is_left_out_of_it() -> None:
    j = two_sets()
    r = bootstrap_scores(j, "win_ratio", n_samples=B, seed=0)
    kind = kinds(0)
    n_a, n_m, n_c = (int(np.count_nonzero(kind == k)) for k in range(3))
    assert n_a > 200 and n_c > 200  # about a quarter each: both matter at the 2.5% tails

    assert r.score.tolist() == [0.75, 0.25, 0.0, 1.0]
    nan = np.nan
    np.testing.assert_array_equal(r.samples[kind == 0], [[1.0, 0.5, 0.0, nan]] * n_a)
    np.testing.assert_array_equal(r.samples[kind == 1], [[0.75, 0.25, 0.0, 1.0]] * n_m)
    np.testing.assert_array_equal(r.samples[kind == 2], [[0.5, 0.0, nan, 1.0]] * n_c)
    # System 3 wins everything it is in: a one-point interval, and rank 1 in every replicate
    # that has it. Counting the replicates without it as rank 4 gave "1-4" (issue 17).
    assert (r.ci_low[3], r.ci_high[3]) == (1.0, 1.0)
    assert (r.rank_low.tolist(), r.rank_high.tolist()) == ([1, 2, 3, 1], [2, 3, 4, 1])
    # System 2: rank 3 in A, 4 in M (C does not have it).
    assert (r.ci_low[2], r.ci_high[2]) == (0.0, 0.0)

    # p[i, j] over the replicates that have both: system 3 is above 0 and 1 in every M and C
    # replicate, above 2 in every M; nothing ever beats the order 3 > 0 > 1 > 2.
    p = r.p_greater
    assert p[3, 0] == p[3, 1] == pytest.approx(1 / (1 + n_m + n_c), rel=1e-12)
    assert p[3, 2] == pytest.approx(1 / (1 + n_m), rel=1e-12)
    assert p[0, 2] == p[1, 2] == pytest.approx(1 / (1 + n_a + n_m), rel=1e-12)
    assert p[0, 1] == pytest.approx(1 / (1 + B), rel=1e-12)
    assert p[0, 3] == p[1, 3] == 1.0 and p[2, 3] == 1.0
    assert r.clusters.tolist() == [2, 3, 4, 1]


def test_expected_wins_and_bradley_terry_leave_the_undrawn_system_out_too() -> None:
    j = two_sets()
    kind = kinds(0)
    ew = bootstrap_scores(j, "expected_wins", n_samples=B, seed=0)
    # Expected Wins in an A replicate: the mean over the two opponents it has (system 3 is
    # not one): system 0 beats 1 and 2 every time, 1 beats 2: 2/2, 1/2, 0/2. In the data
    # (M): 0 beats 1 and 2 and loses to 3: 2/3; 1: 1/3; 2: 0; 3: 2/3 (it never met 2).
    np.testing.assert_array_equal(ew.samples[kind == 0][0], [1.0, 0.5, 0.0, np.nan])
    np.testing.assert_allclose(ew.samples[kind == 1][0], [2 / 3, 1 / 3, 0.0, 2 / 3], rtol=1e-15)
    # Rank 1 wherever it is: tied with system 0 in M (ties share the best rank), alone in C.
    assert (ew.rank_low[3], ew.rank_high[3]) == (1, 1)

    bt = bootstrap_scores(j, "bradley_terry", n_samples=B, seed=0)
    assert np.isnan(bt.samples[kind == 0, 3]).all() and np.isnan(bt.samples[kind == 2, 2]).all()
    assert np.isfinite(bt.samples[kind == 1]).all()
    # Fitted on the three systems it has, θ is centred over them.
    np.testing.assert_allclose(np.nansum(bt.samples, axis=1), 0.0, atol=1e-9)
    assert (bt.rank_low[3], bt.rank_high[3]) == (1, 1)


def test_every_replicate_with_every_system_is_unchanged() -> None:
    # One set drawn every time: nothing is left out, and the counts are the data's.
    j = RankingJudgments.from_ballots(
        [{"worker": w, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}} for w in (1, 2)]
    )
    reps = replicates(j.pairs, j.systems, 50, 0)
    assert not reps.absent.any() and reps.left_out.tolist() == [0] * 50
    assert (reps.wins == reps.wins[0]).all() and reps.wins[0, 0].tolist() == [0, 2, 2]


def _campaign(seed: int, n_sets: int = 80) -> RankingJudgments:
    rng = np.random.default_rng(seed)
    specs = []
    for s in range(n_sets):
        shown = rng.choice(5, 4, replace=False)
        score = shown * 0.4 + rng.normal(0, 1, 4)
        ranks = 1 + (np.round(score)[None, :] > np.round(score)[:, None]).sum(axis=1)
        specs.append(
            {
                "worker": s % 3,
                "ranking_set": s,
                "ranks": dict(zip(shown.tolist(), ranks.tolist(), strict=True)),
            }
        )
    return RankingJudgments.from_ballots(specs)


def test_replicates_are_the_draws_of_replicate_counts_and_shared_by_every_method() -> None:
    j = _campaign(0)
    pairs = j.pairs
    reps = replicates(pairs, j.systems, 300, 7)
    chunks = list(replicate_counts(pairs, j.systems, 300, np.random.default_rng(7)))
    np.testing.assert_array_equal(reps.wins, np.concatenate([w for w, _ in chunks]))
    np.testing.assert_array_equal(reps.ties, np.concatenate([t for _, t in chunks]))
    assert replicates(pairs, j.systems, 300, 7) is reps  # drawn once per pairs and settings
    assert replicates(pairs, j.systems, 300, 8) is not reps
    bt = bootstrap_scores(pairs, n_samples=300, seed=7)
    counting = bootstrap_counting_scores(
        pairs, {"ew": ("expected_wins", "better_or_equal")}, n_samples=300, seed=7
    )
    assert bt.samples.shape == counting["ew"].samples.shape == (300, 5)


def test_batched_bradley_terry_equals_choix_per_replicate() -> None:
    j = _campaign(1)
    reps = replicates(j.pairs, j.systems, 200, 3)
    comp = reps.wins + reps.ties / 2.0
    start = np.array([0.3, -0.1, 0.0, 0.2, -0.4])
    batched = ilsr_dense_batch(comp, 0.01, start)
    for b in range(comp.shape[0]):
        one = choix.ilsr_pairwise_dense(
            comp[b], alpha=0.01, initial_params=start, max_iter=500, tol=1e-10
        )
        np.testing.assert_allclose(batched[b], one, atol=1e-9)
    # A replicate without system 4 is fitted on the other four only.
    absent = np.zeros((2, 5), dtype=bool)
    absent[1, 4] = True
    both = bt_batch(comp[:2], start, 0.01, absent)
    np.testing.assert_allclose(both[0], batched[0], atol=1e-12)
    sub = comp[1][:4, :4]
    alone = choix.ilsr_pairwise_dense(
        sub, alpha=0.01, initial_params=start[:4], max_iter=500, tol=1e-10
    )
    np.testing.assert_allclose(both[1, :4], alone, atol=1e-9)
    assert np.isnan(both[1, 4])


@pytest.mark.parametrize("n_units", [1, 2, 3, 47, 5_001])
def test_compiled_draws_are_numpys_draws_and_leave_the_generator_as_numpy_does(
    n_units: int,
) -> None:
    # The kernel draws with numpy's algorithm from its own copy of PCG64's next_uint32, so
    # the numbers and the generator's state afterwards (its half-used 64-bit word included:
    # odd counts of draws) are numpy's, call after call.
    from analytics.stats.ranking.bootstrap_kernel import replicate_totals, uniform_draws

    numpy_rng, kernel_rng = np.random.default_rng(11), np.random.default_rng(11)
    for replicates_now in (3, 1, 8, 9):
        expected = numpy_rng.integers(0, n_units, size=(replicates_now, n_units), dtype=np.int64)
        np.testing.assert_array_equal(uniform_draws(kernel_rng, n_units, replicates_now), expected)
        assert kernel_rng.bit_generator.state == numpy_rng.bit_generator.state
    # Unit u has pairs in cells u % 3 (twice: a repeated cell) and 3 + u % 2; 17 replicates
    # are more than one tile of them, and a partial one.
    unit = np.repeat(np.arange(n_units), 3)
    cell = np.stack([np.arange(n_units) % 3] * 2 + [3 + np.arange(n_units) % 2], axis=1)
    per_unit = np.zeros((n_units, 5), dtype=np.int64)
    np.add.at(per_unit, (unit, cell.reshape(-1)), 1)
    for replicates_now in (1, 17):
        draws = numpy_rng.integers(0, n_units, size=(replicates_now, n_units), dtype=np.int64)
        expected = np.stack([per_unit[row].sum(axis=0) for row in draws]).astype(np.float64)
        totals = replicate_totals(kernel_rng, replicates_now, n_units, unit, cell.reshape(-1), 5)
        assert totals.dtype == np.float64
        np.testing.assert_array_equal(totals, expected)
        assert kernel_rng.bit_generator.state == numpy_rng.bit_generator.state
    with pytest.raises(ValueError, match="n_units"):
        uniform_draws(kernel_rng, 0, 1)
    with pytest.raises(ValueError, match="PCG64"):
        uniform_draws(np.random.Generator(np.random.MT19937(1)), n_units, 1)
    with pytest.raises(ValueError, match="one value per pair"):
        replicate_totals(kernel_rng, 1, n_units, unit, cell.reshape(-1)[:-1], 5)


def test_compiled_totals_with_wide_counts_and_sums(monkeypatch) -> None:
    # Beyond 65,535 units a count may not fit 16 bits, and beyond 2**31 pairs per replicate
    # a sum may not fit 32: the kernel counts and sums wider then, to the same totals.
    from analytics.stats.ranking import bootstrap_kernel

    n_units = 300
    unit = np.arange(n_units)
    cell = np.arange(n_units) % 4
    expected = {}
    for wide_units, wide_sums in ((10**9, False), (10, False), (10, True)):
        monkeypatch.setattr(bootstrap_kernel, "_UINT16_UNITS", wide_units)
        monkeypatch.setattr(bootstrap_kernel, "_INT32_TOTAL", 1 if wide_sums else 2**31)
        rng = np.random.default_rng(3)
        totals = bootstrap_kernel.replicate_totals(rng, 20, n_units, unit, cell, 4)
        expected.setdefault("first", totals)
        np.testing.assert_array_equal(totals, expected["first"])
    draws = np.random.default_rng(3).integers(0, n_units, size=(20, n_units))
    np.testing.assert_array_equal(
        expected["first"], np.stack([np.bincount(cell[row], minlength=4) for row in draws])
    )


@pytest.mark.parametrize("unit", ["set", "ballot"])
def test_compiled_bootstrap_equals_the_numpy_one(unit: str, monkeypatch) -> None:
    # The same replicates to the last bit whichever path draws them, every method's samples,
    # intervals and p-values with them.
    from analytics.stats.ranking import bootstrap

    j = _campaign(3)
    runs = {}
    for threshold in (10**12, 1):
        monkeypatch.setattr(bootstrap, "COMPILED_FROM_DRAWS", threshold)
        monkeypatch.setattr(bootstrap, "_numba_loaded", lambda: False)
        assert bootstrap.use_compiled(500 * 80, 80) is (threshold == 1)
        pairs = j.pairs.subset(np.ones(len(j.pairs), dtype=bool))  # a fresh replicate cache
        runs[threshold] = (
            replicates(pairs, j.systems, 500, 5, unit),
            bootstrap_scores(pairs, n_samples=500, seed=5, unit=unit),
        )
    (numpy_reps, numpy_bt), (compiled_reps, compiled_bt) = runs.values()
    np.testing.assert_array_equal(compiled_reps.wins, numpy_reps.wins)
    np.testing.assert_array_equal(compiled_reps.ties, numpy_reps.ties)
    np.testing.assert_array_equal(compiled_reps.absent, numpy_reps.absent)
    np.testing.assert_array_equal(compiled_bt.samples, numpy_bt.samples)
    np.testing.assert_array_equal(compiled_bt.p_greater, numpy_bt.p_greater)


def test_compiled_bootstrap_from_the_threshold_or_once_numba_is_loaded(monkeypatch) -> None:
    from analytics.stats.ranking import bootstrap

    monkeypatch.setattr(bootstrap, "_numba_loaded", lambda: False)
    assert not bootstrap.use_compiled(bootstrap.COMPILED_FROM_DRAWS - 1, 1000)
    assert bootstrap.use_compiled(bootstrap.COMPILED_FROM_DRAWS, 1000)
    monkeypatch.setattr(bootstrap, "_numba_loaded", lambda: True)
    assert bootstrap.use_compiled(10, 10)  # the import is paid already
    assert not bootstrap.use_compiled(10, 2**32 + 1)  # numpy's 64-bit algorithm: not copied


def test_another_bit_generator_takes_the_numpy_path(monkeypatch) -> None:
    # The kernel copies PCG64 only: a generator on another bit generator still gets numpy's
    # draws from itself.
    from analytics.stats.ranking import bootstrap

    monkeypatch.setattr(bootstrap, "_numba_loaded", lambda: True)
    j = _campaign(3)
    got = list(replicate_counts(j.pairs, j.systems, 50, np.random.Generator(np.random.MT19937(4))))
    monkeypatch.setattr(bootstrap, "_numba_loaded", lambda: False)
    expected = list(
        replicate_counts(j.pairs, j.systems, 50, np.random.Generator(np.random.MT19937(4)))
    )
    np.testing.assert_array_equal(np.concatenate([w for w, _ in got]), expected[0][0])
    np.testing.assert_array_equal(np.concatenate([t for _, t in got]), expected[0][1])
