"""Direct-assessment scores checked against numbers worked by hand: per-worker z-scores, system
scores (WMT's Ave raw and Ave z, segment means first), the calibrated gain, the whole pipeline
(analyse_campaign) and WMT's scores and significance test (issue 12).

Expected p-values are computed independently of the code under test: from a hand-computed
statistic through scipy's distributions (t.sf, norm.sf) or by exact enumeration written out in
the comments.  Graham et al. 2013 (LAW) and 2014 (EACL) give the definitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from analytics.stats.direct_assessment import (
    DAConfig,
    DAJudgments,
    Role,
    analyse_campaign,
    calibrated_gain,
    standardize,
    system_samples,
    system_scores,
    worker_reliability,
)
from tests.analytics.stats.direct_assessment_support import REL, Builder

# Any warning (scipy dividing by zero on degenerate samples, ...) is a failure.
# Every warning of the statistics (scipy's small-sample and division warnings) is an error here;
# a socket some earlier test left to the garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


# ------------------------------------------------------------------------------ z-scores
def test_z_scores_use_each_workers_own_mean_and_sample_sd() -> None:
    # Worker 1: 20, 40, 60, 80 -> mean 50, deviations -30, -10, 10, 30, squares sum 2000,
    # sample sd sqrt(2000/3) = 25.820 -> z = -1.1619, -0.3873, 0.3873, 1.1619.
    # Worker 2 scores 30 three times (sd 0) and worker 3 once: z = 0 for both.
    b = Builder()
    for s in (20, 40, 60, 80):
        b.add(1, "system", s, system=0)
    for _ in range(3):
        b.add(2, "system", 30.0, system=0)
    b.add(3, "system", 70.0, system=0)
    j = b.build()
    zs = standardize(j)
    sd = math.sqrt(2000 / 3)
    assert zs.z[:4] == pytest.approx([-30 / sd, -10 / sd, 10 / sd, 30 / sd], rel=REL)
    assert zs.z[4:].tolist() == [0.0, 0.0, 0.0, 0.0]
    assert zs.mean.tolist() == [50.0, 30.0, 70.0]
    assert zs.sd[0] == pytest.approx(sd, rel=REL) and zs.sd[1] == 0.0 and np.isnan(zs.sd[2])
    # Population sd (ddof = 0): sqrt(2000/4) = 22.361 -> z = -1.3416, ...
    z0 = standardize(j, ddof=0).z
    assert z0[:4] == pytest.approx(np.array([-30, -10, 10, 30]) / math.sqrt(500), rel=REL)
    assert z0[7] == 0.0  # a single score has population sd 0


def test_constant_scores_give_exact_zero_even_when_the_float_mean_is_inexact() -> None:
    # 0.1 * 3 / 3 != 0.1 in floating point; a naive sd would be ~1e-17 and z ~ +-1.
    b = Builder()
    for _ in range(3):
        b.add(1, "system", 0.1, system=0)
    assert standardize(b.build()).z.tolist() == [0.0, 0.0, 0.0]


def test_z_scores_can_leave_references_out_of_mean_and_sd() -> None:
    # 40 (output), 60 (output), 100 (reference).
    # All three: mean 66.667, deviations -26.667, -6.667, 33.333, squares sum 1866.67,
    # sd sqrt(933.33) = 30.551.
    # Without the reference (2014 footnote 4): mean 50, sd sqrt(200) = 14.142, and the
    # reference is still standardised with them: (100 - 50) / 14.142 = 3.5355.
    b = Builder()
    b.add(1, "system", 40.0, system=0)
    b.add(1, "system", 60.0, system=0)
    b.add(1, "reference", 100.0)
    j = b.build()
    mean, sd = 200 / 3, math.sqrt(((80 / 3) ** 2 + (20 / 3) ** 2 + (100 / 3) ** 2) / 2)
    assert standardize(j).z == pytest.approx((np.array([40, 60, 100]) - mean) / sd, rel=REL)
    ex = standardize(j, exclude_references=True).z
    assert ex == pytest.approx(np.array([-10, 10, 50]) / math.sqrt(200), rel=REL)


# ------------------------------------------------------------------------------ systems
def test_system_scores_count_outputs_and_repeats_only() -> None:
    # Worker 1: system 7 output 80, system 3 output 40, repeat of the system-7 output 70,
    # a bad reference 10, a reference 90.  Mean 58, deviations 22, -18, 12, -48, 32,
    # squares sum 4280, sd sqrt(1070).  Worker 2: 60 for both systems (sd 0, z 0).
    # System 7: scores 80, 70, 60 -> mean 70; z (22 + 12)/sqrt(1070)/3 over n = 3.
    # System 3: scores 40, 60 -> mean 50; z -18/sqrt(1070)/2 over n = 2.
    b = Builder()
    s = b.add(1, "system", 80.0, system=7)
    b.add(1, "system", 40.0, system=3)
    b.add(1, "repeat", 70.0, system=7, pair=s)
    b.add(1, "bad_reference", 10.0, pair=s)
    b.add(1, "reference", 90.0)
    b.add(2, "system", 60.0, system=7)
    b.add(2, "system", 60.0, system=3)
    j = b.build()
    z = standardize(j)
    sd = math.sqrt(1070)
    scores = system_scores(j, z)
    assert scores.system.tolist() == [7, 3]  # best mean z first
    assert scores.n.tolist() == [3, 2]
    assert scores.mean_score == pytest.approx([70.0, 50.0], rel=REL)
    assert scores.mean_z == pytest.approx([34 / sd / 3, -18 / sd / 2], rel=REL)
    # Worker 1 only (the mask is aligned to j.workers == [1, 2]).
    only1 = system_scores(j, z, include_workers=np.array([True, False]))
    assert only1.n.tolist() == [2, 1]
    assert only1.mean_score == pytest.approx([75.0, 40.0], rel=REL)
    assert only1.mean_z == pytest.approx([34 / sd / 2, -18 / sd], rel=REL)
    samples = system_samples(j, z.z, scores.system)
    assert samples[0] == pytest.approx([22 / sd, 12 / sd, 0.0], rel=REL)
    assert samples[1] == pytest.approx([-18 / sd, 0.0], rel=REL)
    with pytest.raises(ValueError, match="include_workers"):
        system_scores(j, z, include_workers=np.array([True]))


def test_system_ties_are_ordered_by_id() -> None:
    b = Builder()
    b.add(1, "system", 50.0, system=9)
    b.add(1, "system", 50.0, system=4)
    j = b.build()
    assert system_scores(j, standardize(j)).system.tolist() == [4, 9]


# ------------------------------------------------------------------------------ calibration
def test_calibrated_gain_reproduces_2014_table_3() -> None:
    # Fluency: CURR07 64.1, CURR12 58.2 -> delta 5.9; BEST07 53.5, BEST12 58.0 -> +4.5;
    # gain 10.4.  Adequacy: 65.0 - 56.7 = 8.3; 56.0 - 54.0 = 2.0; gain 10.3.
    gain, delta = calibrated_gain(58.0, 53.5, benchmark_on_old=64.1, benchmark_on_new=58.2)
    assert (gain, delta) == pytest.approx((10.4, 5.9), abs=1e-9)
    gain, delta = calibrated_gain(56.0, 54.0, benchmark_on_old=65.0, benchmark_on_new=56.7)
    assert (gain, delta) == pytest.approx((10.3, 8.3), abs=1e-9)


# ------------------------------------------------------------------------------ pipeline
def test_analyse_campaign_filters_unreliable_workers_unless_asked() -> None:
    b = Builder()
    strong_bad = [(90, 20), (80, 30), (70, 10), (85, 25), (75, 5)]
    b.bad_pairs(1, strong_bad, system=1)  # reliable: p = 1/32
    b.add(1, "system", 30.0, system=2)
    b.bad_pairs(2, [(50, 60)] * 5, system=2)  # unreliable: bad refs score higher
    j = b.build()
    report = analyse_campaign(j)
    assert report.reliability.reliable.tolist() == [True, False]
    assert report.included_workers.tolist() == [True, False]
    assert report.systems.n.tolist() == [5, 1]  # worker 1's outputs only
    everyone = analyse_campaign(j, DAConfig(include_unreliable=True))
    # Worker 2's outputs (50, below their mean) now count for system 2 as well.
    assert everyone.systems.system.tolist() == [1, 2]
    assert everyone.systems.n.tolist() == [5, 6]
    assert report.p_greater.shape == (2, 2) and report.clusters.shape == (2,)
    assert report.n_unmatched_controls == 0


def test_empty_campaign() -> None:
    j = DAJudgments(
        worker=[],
        assignment=[],
        slot=[],
        role=[],
        system=[],
        item=[],
        pair_slot=[],
        score=[],
        seconds=[],
    )
    report = analyse_campaign(j)
    assert len(report.systems) == 0 and report.reliability.records() == []
    assert math.isnan(report.reliability.assumption_a_share)
    assert report.agreement_all.same_judge.n_pairs == 0


# ------------------------------------------------------------------ WMT's scores (issue 12)
def _given_z_judgments(rows: list[tuple[int, int, int, float]]) -> DAJudgments:
    """(worker, system, item, z) system-output rows whose z-scores are given (imports), so
    the z that the statistics see is exactly the one written here."""
    n = len(rows)
    return DAJudgments(
        worker=[r[0] for r in rows],
        assignment=[r[0] for r in rows],
        slot=list(range(1, n + 1)),
        role=["system"] * n,
        system=[r[1] for r in rows],
        item=[r[2] for r in rows],
        pair_slot=[-1] * n,
        score=[np.nan] * n,
        seconds=[np.nan] * n,
        given_z=[r[3] for r in rows],
    )


def test_ave_raw_and_ave_z_average_segments_first_unlike_the_flat_mean() -> None:
    # System 1: segment (output) 101 judged three times: worker 1 gives 90 and, on its
    # repeat, 80; worker 2 gives 70: segment mean 80. Segment 102 judged once: 20. A bad
    # reference (5) and a reference (100) of worker 1 are QC items and never count.
    # WMT's Ave raw = (80 + 20) / 2 = 50; the flat mean = (90 + 80 + 70 + 20) / 4 = 65.
    # System 2: segments 201 (60) and 202 (40) judged once each: 50 either way.
    b = Builder()
    s = b.add(1, "system", 90.0, system=1, item=101)
    b.add(1, "repeat", 80.0, system=1, item=101, pair=s)
    b.add(1, "bad_reference", 5.0, item=101, pair=s)
    b.add(1, "reference", 100.0)
    b.add(1, "system", 20.0, system=1, item=102)
    b.add(2, "system", 70.0, system=1, item=101)
    b.add(2, "system", 60.0, system=2, item=201)
    b.add(2, "system", 40.0, system=2, item=202)
    j = b.build()
    z = j.score / 10.0  # any per-row z: averaged exactly like the raw scores
    wmt = system_scores(j, z)
    assert wmt.system.tolist() == [1, 2]  # Ave z 5.0 = 5.0: ties go to the lower id
    assert wmt.n.tolist() == [4, 2] and wmt.n_segments.tolist() == [2, 2]
    assert wmt.mean_score.tolist() == [50.0, 50.0]
    assert wmt.mean_z == pytest.approx([5.0, 5.0], rel=REL)
    flat = system_scores(j, z, averaging="judgments")
    assert flat.system.tolist() == [1, 2]
    assert flat.mean_score.tolist() == [65.0, 50.0]
    assert flat.mean_z == pytest.approx([6.5, 5.0], rel=REL)
    assert (flat.n.tolist(), flat.n_segments.tolist()) == ([4, 2], [2, 2])
    with pytest.raises(ValueError, match="averaging"):
        system_scores(j, z, averaging="systems")  # type: ignore[arg-type]


def test_the_significance_test_compares_segment_mean_z_one_sided() -> None:
    # System 1: segments 11 (z 3.0), 12 (2.0), 13 (judged twice: 1.0 and 2.0, mean 1.5).
    # System 2: segments 21 (1.0), 22 (0.5). Segment means: {3, 2, 1.5} all above {1, 0.5}:
    # U = 6, the largest of the C(5, 2) = 10 equally likely rank splits: p = 1/10 exactly;
    # the other way U = 0, p = 1.
    j = _given_z_judgments(
        [
            (1, 1, 11, 3.0),
            (1, 1, 12, 2.0),
            (1, 1, 13, 1.0),
            (2, 1, 13, 2.0),
            (2, 2, 21, 1.0),
            (1, 2, 22, 0.5),
        ]
    )
    report = analyse_campaign(j, DAConfig(include_unreliable=True))
    assert report.systems.system.tolist() == [1, 2]
    assert report.systems.mean_z == pytest.approx([6.5 / 3, 0.75], rel=REL)
    assert report.p_greater[0, 1] == pytest.approx(1 / 10, rel=REL)
    assert report.p_greater[1, 0] == pytest.approx(1.0, rel=REL)
    assert report.p_greater[0, 1] == pytest.approx(
        stats.mannwhitneyu([3.0, 2.0, 1.5], [1.0, 0.5], alternative="greater").pvalue, rel=REL
    )
    # Per judgment (the option): {3, 2, 1, 2} against {1, 0.5} has ties (1 twice, 2 twice),
    # so scipy uses its tie-corrected normal approximation.
    per_judgment = analyse_campaign(
        j, DAConfig(include_unreliable=True, significance_unit="judgments")
    )
    assert per_judgment.p_greater[0, 1] == pytest.approx(
        stats.mannwhitneyu([3.0, 2.0, 1.0, 2.0], [1.0, 0.5], alternative="greater").pvalue,
        rel=REL,
    )
    # U by hand: 3 and 2 and 2 beat both (2 each = 6), 1 beats 0.5 and ties 1 (1.5): 7.5 of
    # 8; mu = 4, ties {1, 1} and {2, 2}: sigma^2 = 8/12 * (7 - (6 + 6) / 30) = 4.4, and
    # p = P(Z > (7.5 - 4 - 0.5) / sqrt(4.4)).
    assert per_judgment.p_greater[0, 1] == pytest.approx(
        stats.norm.sf(3 / math.sqrt(4.4)), rel=1e-9
    )
    samples = system_samples(j, j.given_z, np.array([1, 2]))
    assert [s.tolist() for s in samples] == [[3.0, 2.0, 1.5], [1.0, 0.5]]


def test_score_spread_is_each_workers_sample_sd_over_every_role() -> None:
    from analytics.stats.direct_assessment.effort import score_spread

    # Worker 1: 70 everywhere (system, bad reference, reference): sd exactly 0.  Worker 2:
    # 69, 71 (sd sqrt(2)), worker 3 one score (no sd), worker 4 given z only (no raw score).
    b = Builder()
    s = b.add(1, "system", 70.0, system=1)
    b.add(1, "bad_reference", 70.0, pair=s)
    b.add(1, "reference", 70.0)
    b.add(2, "system", 69.0, system=1)
    b.add(2, "system", 71.0, system=1)
    b.add(3, "system", 50.0, system=1)
    spread = score_spread(b.build())
    assert spread.n.tolist() == [3, 2, 1]
    assert spread.sd[:2].tolist() == [0.0, pytest.approx(math.sqrt(2), rel=REL)]
    assert math.isnan(spread.sd[2])
    assert spread.mean.tolist() == [70.0, 70.0, 50.0]
    given = score_spread(_given_z_judgments([(4, 1, 1, 0.5), (4, 1, 2, -0.5)]))
    assert given.n.tolist() == [0] and math.isnan(given.sd[0])


@pytest.mark.parametrize("scale", [1.0, 0.5, 1e-3], ids=["whole", "halves", "fractions"])
def test_tie_flags_equal_a_brute_force_for_whole_and_fractional_values(scale: float) -> None:
    # Whole numbers take one sorted int64 key per (group, value); other values the lexsort.
    from analytics.stats.direct_assessment._groups import Grouped

    rng = np.random.default_rng(5)
    group = rng.integers(0, 40, 600)
    values = rng.integers(-100, 101, 600) * scale
    grouped = Grouped.build(values, group, 41)  # group 40 is empty
    expected = [
        len(set(values[group == g].tolist())) < np.count_nonzero(group == g) for g in range(41)
    ]
    assert grouped.has_ties().tolist() == expected
    assert any(expected) and not all(expected)


def test_int32_ids_are_taken_as_they_are_and_pair_across_the_int32_range() -> None:
    # A loader hands int32 ids (read-only) when they fit: no copy, and the pair keys, built
    # from assignment and slot offsets, are computed in int64 (their product is past int32).
    big = np.iinfo(np.int32).max - 10
    columns = {
        "worker": np.array([7, 7, 8, 8], dtype=np.int32),
        "assignment": np.array([1, 1, big, big], dtype=np.int32),
        "slot": np.array([5, 6, big - 1, big], dtype=np.int32),
        "system": np.array([3, -1, 3, -1], dtype=np.int32),
        "item": np.array([11, 11, 12, 12], dtype=np.int32),
        "pair_slot": np.array([-1, 5, -1, big - 1], dtype=np.int32),
    }
    for column in columns.values():
        column.setflags(write=False)
    j = DAJudgments(
        **columns,
        role=["system", "bad_reference", "system", "bad_reference"],
        score=[80.0, 20.0, 60.0, 50.0],
        seconds=[1.0, 2.0, 3.0, 4.0],
    )
    for name, column in columns.items():
        assert getattr(j, name) is column, name
    assert j.partner.tolist() == [-1, 0, -1, 2]
    pairs = j.control_pairs(Role.BAD_REFERENCE)
    assert pairs.original.tolist() == [80.0, 60.0] and pairs.control.tolist() == [20.0, 50.0]


def test_reliability_of_a_subset_retests_only_the_workers_who_lost_rows() -> None:
    from analytics.stats.direct_assessment.reliability import reliability_of_subset

    rng = np.random.default_rng(8)
    b = Builder()
    for w in range(6):
        for a in range(3):  # three assignments per worker
            pairs = [(float(rng.integers(40, 101)), float(rng.integers(0, 90))) for _ in range(6)]
            for original, bad in pairs:
                s = b.add(w, "system", original, system=0, assignment=10 * w + a)
                b.add(w, "bad_reference", bad, pair=s, assignment=10 * w + a)
    j = b.build()
    whole = worker_reliability(j, min_pairs=5)
    # Worker 1 loses one assignment (then has 12 pairs), worker 4 all of them (gone).
    rows = ~np.isin(j.assignment, [11, 40, 41, 42])
    sub = j.subset(rows)
    unchanged = ~np.isin(sub.workers, [1])
    got = reliability_of_subset(whole, sub, unchanged, min_pairs=5)
    expected = worker_reliability(sub, min_pairs=5)
    assert got.workers.tolist() == [0, 1, 2, 3, 5]
    assert got.n_bad_ref_pairs.tolist() == [18, 12, 18, 18, 18]
    for name in ("p_value", "reliable", "n_bad_ref_pairs", "n_judgments", "assumption_a_p"):
        assert np.array_equal(getattr(got, name), getattr(expected, name), equal_nan=True), name
    for test_name in expected.p_values:
        assert np.array_equal(
            got.p_values[test_name], expected.p_values[test_name], equal_nan=True
        ), test_name
        assert got.reasons[test_name].tolist() == expected.reasons[test_name].tolist()
    # Worker 1's result is a new test of its 12 pairs, not the 18 pairs' result.
    assert got.p_value[1] != whole.p_value[1]
    with pytest.raises(ValueError, match="other settings"):
        reliability_of_subset(whole, sub, unchanged, min_pairs=6)
