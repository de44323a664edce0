"""Direct-assessment agreement checked against numbers worked by hand: kappa against Graham et
al. 2013's tables, the score categories, and same-judge (repeats) and distinct-judge
agreement, the latter also against enumerating every pair. Graham et al. 2013 (LAW) gives the
definitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.stats.direct_assessment import (
    agreement,
    equal_width_categories,
    kappa_coefficient,
    percentile_categories,
    standardize,
)
from tests.analytics.stats.direct_assessment_support import REL, Builder

# Any warning (scipy dividing by zero on degenerate samples, ...) is a failure.
# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


# ------------------------------------------------------------------------------ agreement
def test_kappa_reproduces_the_2013_tables() -> None:
    # Pr(e) = 1/k reproduces Graham et al. 2013 Table 2 (continuous, unfiltered) and Table 3.
    assert kappa_coefficient(0.597, 1 / 5) == pytest.approx(0.496, abs=5e-4)
    assert kappa_coefficient(0.646, 1 / 4) == pytest.approx(0.528, abs=5e-4)
    assert kappa_coefficient(0.852, 1 / 2) == pytest.approx(0.704, abs=5e-4)
    assert kappa_coefficient(0.718, 1 / 5) == pytest.approx(0.647, abs=5e-4)  # filtered
    assert kappa_coefficient(0.302, 1 / 5) == pytest.approx(0.1272, abs=5e-4)  # Table 3
    assert math.isnan(kappa_coefficient(0.5, 1.0))


def test_category_mappings() -> None:
    assert equal_width_categories([0, 19.9, 20, 50, 79.9, 80, 100], 5).tolist() == [
        0,
        0,
        1,
        2,
        3,
        4,
        4,
    ]
    assert equal_width_categories([0, 49.9, 50, 100], 2).tolist() == [0, 0, 1, 1]
    assert equal_width_categories([24.9, 25, 75, 100], 4).tolist() == [0, 1, 3, 3]
    # Quintile edges of 1..10 (linear interpolation at 9q): 2.8, 4.6, 6.4, 8.2.
    ref = np.arange(1, 11)
    assert percentile_categories(ref, 5, ref).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_same_judge_agreement_by_hand() -> None:
    # Repeat pairs (10, 15), (50, 45), (90, 70), (35, 41): |d| = 5, 5, 20, 6, mean 9;
    # deviations -4, -4, 11, -3, squares 162, sd sqrt(162/3) = 7.348.
    # 5 categories: (0,0) agree, (2,2) agree, (4,3) no, (1,2) no -> Pr(a) = 0.5,
    #   kappa = (0.5 - 0.2) / 0.8 = 0.375.
    # 4 categories: (0,0) yes, (2,1) no, (3,2) no, (1,1) yes -> 0.5, kappa = 0.25/0.75 = 1/3.
    # 2 categories: (0,0) yes, (1,0) no, (1,1) yes, (0,0) yes -> 0.75, kappa = 0.5.
    b = Builder()
    b.repeat_pairs(1, [(10, 15), (50, 45), (90, 70), (35, 41)])
    result = agreement(b.build()).same_judge
    assert result.n_pairs == 4
    assert result.mean_abs_diff == pytest.approx(9.0, rel=REL)
    assert result.sd_abs_diff == pytest.approx(math.sqrt(54), rel=REL)
    assert (result.kappa(5).pr_a, result.kappa(5).kappa) == pytest.approx((0.5, 0.375), rel=REL)
    assert result.kappa(4).kappa == pytest.approx(1 / 3, rel=REL)
    assert (result.kappa(2).pr_a, result.kappa(2).kappa) == pytest.approx((0.75, 0.5), rel=REL)
    # Pooled chance: the 8 categories (5 bins) are 0,0,2,2,4,3,1,2 -> p = 2/8, 1/8, 3/8, 1/8,
    # 1/8; Pr(e) = (4 + 1 + 9 + 1 + 1)/64 = 0.25; kappa = (0.5 - 0.25)/0.75 = 1/3.
    pooled = agreement(b.build(), chance="pooled").same_judge.kappa(5)
    assert (pooled.pr_e, pooled.kappa) == pytest.approx((0.25, 1 / 3), rel=REL)
    # No distinct-judge pairs: one worker only.
    assert agreement(b.build()).distinct_judges.n_pairs == 0


def test_distinct_judge_agreement_by_hand() -> None:
    # Output 1 scored by workers A, B, C: 20, 30, 60 -> pairs |10|, |40|, |30|.
    # Output 2 scored by A, B: 80, 75 -> |5|.  Worker A met output 2 again in a second HIT
    # (score 10): only the first judgment per (worker, output) counts.
    # 4 pairs: mean 85/4 = 21.25; deviations -11.25, 18.75, 8.75, -16.25,
    # squares 818.75, sd sqrt(818.75/3) = 16.52.
    # 5 categories: output 1 -> 1, 1, 3 (one agreeing pair of three); output 2 -> 4, 3 (none):
    # Pr(a) = 1/4, kappa = (0.25 - 0.2)/0.8 = 0.0625.
    b = Builder()
    b.add(1, "system", 20.0, system=0, item=1)
    b.add(1, "system", 80.0, system=0, item=2)
    b.add(1, "system", 10.0, system=0, item=2, assignment=99)
    b.add(2, "system", 30.0, system=0, item=1)
    b.add(2, "system", 75.0, system=0, item=2)
    b.add(3, "system", 60.0, system=0, item=1)
    result = agreement(b.build()).distinct_judges
    assert result.n_pairs == 4
    assert result.mean_abs_diff == pytest.approx(21.25, rel=REL)
    assert result.sd_abs_diff == pytest.approx(math.sqrt(818.75 / 3), rel=REL)
    assert result.kappa(5).pr_a == pytest.approx(0.25, rel=REL)
    assert result.kappa(5).kappa == pytest.approx(0.0625, rel=REL)
    # Filtered to workers A and B: one pair per output, |10| and |5|.
    ab = agreement(b.build(), include_workers=np.array([True, True, False])).distinct_judges
    assert (ab.n_pairs, ab.mean_abs_diff) == (2, 7.5)


@pytest.mark.parametrize("whole", [True, False], ids=["whole scores", "fractional scores"])
def test_distinct_judge_closed_form_equals_enumerating_pairs(whole: bool) -> None:
    # Whole scores take the 8-bit sort of the scores, fractional ones the float sort.
    rng = np.random.default_rng(11)
    b = Builder()
    n_workers, n_items = 12, 15
    for w in range(n_workers):
        for item in rng.choice(n_items, size=6, replace=False):
            score = float(rng.integers(0, 101)) if whole else float(rng.integers(0, 41)) * 2.5
            b.add(w, "system", score, system=0, item=int(item))
    j = b.build()
    z = standardize(j)
    got = agreement(j, z, chance="pooled").distinct_judges
    # Brute force: list every pair of rows with the same item and different workers.
    i, k = np.triu_indices(len(j), 1)
    same = (j.item[i] == j.item[k]) & (j.worker[i] != j.worker[k])
    i, k = i[same], k[same]
    d = np.abs(j.score[i] - j.score[k])
    assert got.n_pairs == d.size
    assert got.mean_abs_diff == pytest.approx(d.mean(), rel=1e-12)
    assert got.sd_abs_diff == pytest.approx(d.std(ddof=1), rel=1e-10)
    for kappa in got.kappas:
        if kappa.binning == "equal_width":
            cats = equal_width_categories(j.score, kappa.categories)
        else:
            cats = percentile_categories(z.z, kappa.categories, z.z)
        assert kappa.pr_a == pytest.approx(np.mean(cats[i] == cats[k]), rel=1e-12)
        pooled = np.bincount(np.concatenate([cats[i], cats[k]]), minlength=kappa.categories)
        p = pooled / pooled.sum()
        assert kappa.pr_e == pytest.approx(np.sum(p * p), rel=1e-12)
