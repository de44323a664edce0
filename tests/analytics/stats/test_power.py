"""analytics.stats.power against hand-worked numbers (issue 17 item 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.stats.power import (
    noether_total_n,
    normal_sample_factor,
    probability_of_superiority,
    rank_sum_size,
    replicate_difference,
    simulated_rank_sum_power,
    simulated_rank_sum_size,
    simulated_rank_sum_sizing,
    units_needed,
    z_sum,
)

# z_{0.95} + z_{0.80} = 1.6448536 + 0.8416212 (standard normal table).
Z_SUM = 2.4864748605


def test_z_sum_is_the_critical_value_plus_the_powers_quantile():
    assert z_sum(0.05, 0.8) == pytest.approx(Z_SUM, abs=1e-9)
    # Two-sided 5% is one-sided 2.5%: 1.959964 + 0.841621.
    assert z_sum(0.025, 0.8) == pytest.approx(2.8015852, abs=1e-6)


def test_probability_of_superiority_counts_ties_half():
    # x = 3: beats 1 only (1); x = 5: beats 1, ties 5 (1.5); x = 7: beats all three (3).
    assert probability_of_superiority([3, 5, 7], [1, 5, 6]) == pytest.approx(5.5 / 9)
    assert probability_of_superiority([1, 5, 6], [3, 5, 7]) == pytest.approx(3.5 / 9)
    assert math.isnan(probability_of_superiority([], [1.0]))


def test_noether_sample_size_for_p_of_six_tenths():
    # N = 2.48647^2 / (12 * 1/2 * 1/2 * 0.1^2) = 6.182557 / 0.03 = 206.085.
    assert noether_total_n(0.6) == pytest.approx(Z_SUM**2 / 0.03)
    assert noether_total_n(0.6) == pytest.approx(206.0852, abs=1e-3)
    # Unequal shares: c = 1/4 gives 12 * 3/16 = 2.25 instead of 3, so N is 4/3 as large.
    assert noether_total_n(0.6, share=0.25) == pytest.approx(206.0852 * 4 / 3, abs=1e-3)


def test_noether_sample_size_for_a_half_standard_deviation_shift():
    # Normal scores shifted by 0.5 sd: p = Phi(0.5 / sqrt 2) = Phi(0.353553) = 0.638163;
    # N = 6.182557 / (3 * 0.138163^2) = 107.96, 54 per system (the t-test's 49.5 divided by
    # the rank-sum test's efficiency 3/pi gives 51.8: Noether is slightly conservative).
    p = 0.6381631950
    assert noether_total_n(p) == pytest.approx(107.96, abs=0.01)


def test_no_difference_needs_no_finite_number():
    assert noether_total_n(0.5) == math.inf
    assert noether_total_n(0.4) == math.inf
    assert noether_total_n(float("nan")) == math.inf


def test_rank_sum_size_per_system_and_more_needed():
    # x beats y in 60% of pairs: 2, 4, 6, 8, 10 each beat 1, 2, 3, 4, 5 of y: U = 15 of 25.
    x = [2, 4, 6, 8, 10]
    y = [1, 3, 5, 7, 9]
    assert probability_of_superiority(x, y) == pytest.approx(0.6)
    size = rank_sum_size(x, y)
    # ceil(206.085 / 2) = 104 each; 99 more of each.
    assert (size.per_system, size.more_x, size.more_y) == (104, 99, 99)
    assert (size.n_x, size.n_y) == (5, 5)
    # The reverse order has nothing to find.
    backwards = rank_sum_size(y, x)
    assert (backwards.per_system, backwards.more_x, backwards.more_y) == (None, None, None)


def test_simulated_power_of_fully_separated_samples_by_hand():
    """x always 1, y always 0. n = 2: U = 4, mean 2, tie term 2 (2^3 - 2) = 12, s = sqrt(4/12
    (5 - 12/12)) = 1.1547, z = (4 - 2 - 0.5) / 1.1547 = 1.299, p = 0.097: never significant.
    n = 3: U = 9, mean 4.5, tie term 48, s = sqrt(9/12 (7 - 48/30)) = 2.0125, z = 1.9876,
    p = 0.0234: always significant. So 3 per system, whatever the seed."""
    assert simulated_rank_sum_power([1.0], [0.0], 2, seed=5) == 0.0
    assert simulated_rank_sum_power([1.0], [0.0], 3, seed=5) == 1.0
    assert simulated_rank_sum_size([1.0, 1.0], [0.0], seed=11) == 3


def test_simulation_with_a_fixed_seed_agrees_with_noether():
    """Normal samples 0.3 sd apart (200 each, seed 7): Noether asks 183 per system from the
    observed p = 0.57505; 400 simulations (seed 0) reach power 0.8 at 170. The simulated
    number is reproducible, and within 10% of Noether's (which is slightly conservative)."""
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.3, 1.0, 200), rng.normal(0.0, 1.0, 200)
    size = rank_sum_size(x, y)
    assert size.p_superiority == pytest.approx(0.57505)
    assert size.per_system == 183
    simulated = simulated_rank_sum_size(x, y, seed=0)
    assert simulated == 170
    assert simulated_rank_sum_size(x, y, seed=0) == simulated
    assert abs(simulated - size.per_system) / size.per_system < 0.10
    # At Noether's n the simulated power is at least the target.
    assert simulated_rank_sum_power(x, y, size.per_system, seed=0) >= 0.8


def test_simulation_gives_up_past_max_n():
    assert simulated_rank_sum_size([0.0, 1.0], [0.0, 1.0], max_n=64, n_simulations=50) is None


def test_bootstrap_factor_by_hand():
    # d = 0.05, se = 0.04: (2.486475 x 0.8)^2 = 1.989180^2 = 3.956837.
    factor = normal_sample_factor(0.05, 0.04)
    assert factor == pytest.approx((Z_SUM * 0.8) ** 2)
    assert factor == pytest.approx(3.956837, abs=1e-6)
    # 300 ranking sets now: ceil(300 x 3.956837) = ceil(1187.05) = 1188.
    assert units_needed(300, factor) == 1188
    # Already enough: never fewer than now.
    assert units_needed(300, normal_sample_factor(0.5, 0.04)) == 300
    assert normal_sample_factor(0.0, 0.04) == math.inf
    assert normal_sample_factor(-0.1, 0.04) == math.inf
    assert units_needed(300, math.inf) is None


def test_replicate_difference_is_the_mean_and_sd_of_the_replicates():
    samples = np.array([[0.6, 0.5], [0.7, 0.5], [0.5, 0.5], [np.nan, 0.4]])
    mean, sd = replicate_difference(samples, 0, 1)
    # Differences 0.1, 0.2, 0.0 (the NaN replicate left out): mean 0.1, sd 0.1.
    assert mean == pytest.approx(0.1)
    assert sd == pytest.approx(0.1)


def test_bad_levels_are_refused():
    with pytest.raises(ValueError, match="alpha"):
        z_sum(0.0, 0.8)
    with pytest.raises(ValueError, match="power"):
        noether_total_n(0.6, power=1.0)
    with pytest.raises(ValueError, match="share"):
        noether_total_n(0.6, share=1.0)


def test_simulation_and_noether_on_fully_separated_samples_by_hand():
    """x always 1, y always 0 (P(x > y) = 1). Noether: N = (1.644854 + 0.841621)^2 /
    (12 x 1/4 x (1 - 1/2)^2) = 6.182557 / 0.75 = 8.2434, so ceil(4.12) = 5 per system.
    The simulation: every simulated campaign is fully separated, and the asymptotic test
    with the tie correction is significant from n = 3 on (by hand in
    test_simulated_power_of_fully_separated_samples_by_hand), so 3 per system: the formula,
    which ignores the ties, asks more."""
    noether = rank_sum_size([1.0, 1.0], [0.0, 0.0])
    assert (noether.p_superiority, noether.per_system) == (1.0, 5)
    simulated = simulated_rank_sum_sizing([1.0, 1.0], [0.0, 0.0])
    assert (simulated.p_superiority, simulated.per_system) == (1.0, 3)
    assert (simulated.n_x, simulated.more_x, simulated.more_y) == (2, 1, 1)
    # Searching from Noether's half (2) or from 1 finds the same n.
    assert simulated_rank_sum_size([1.0], [0.0], start=2) == 3
    assert simulated_rank_sum_size([1.0], [0.0], start=4) == 3


def test_simulated_sizing_without_a_difference_or_past_its_bound():
    alike = simulated_rank_sum_sizing([0.0, 1.0], [0.0, 1.0])
    assert (alike.p_superiority, alike.per_system, alike.more_x) == (0.5, None, None)
    # A small difference needs more than the bound: no n, but p above 1/2 says why.
    far = simulated_rank_sum_sizing([0.0, 1.0, 2.0], [0.0, 1.0, 1.9], max_n=8, n_simulations=50)
    assert far.per_system is None and far.p_superiority > 0.5
