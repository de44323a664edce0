"""The three win ratios of METHODS.md section 1, with their counts, and leaving a system (the
human reference) out of the scores, worked by hand (issue 12).

Ballots (system: rank; 1 = best), systems A=1, B=2, C=3 and the reference R=9:

    b1 (worker 1, set 10): A 1, B 2, C 3, R 1
    b2 (worker 2, set 11): A 2, B 2, C 1, R 1
    b3 (worker 1, set 12): A 1, B 3, C 2, R 2

Pairs:  b1: A>B, A>C, A=R, B>C, R>B, R>C
        b2: A=B, C>A, R>A, C>B, R>B, C=R
        b3: A>B, A>C, A>R, C>B, R>B, C=R

With R: A 5 wins, 2 ties, 2 losses (9); B 1, 1, 7 (9); C 3, 2, 4 (9); R 5, 3, 1 (9).
Without R (its six comparisons leave every other system's counts): A 4, 1, 1 (6);
B 1, 1, 4 (6); C 3, 0, 3 (6).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analytics.stats.ranking import (
    RankingConfig,
    RankingJudgments,
    analyse_ranking,
    expected_wins,
    pair_counts,
    win_ratios,
)

BALLOTS = [
    (1, 10, {1: 1, 2: 2, 3: 3, 9: 1}),
    (2, 11, {1: 2, 2: 2, 3: 1, 9: 1}),
    (1, 12, {1: 1, 2: 3, 3: 2, 9: 2}),
]


def judgments() -> RankingJudgments:
    return RankingJudgments.from_ballots(
        {"worker": w, "ranking_set": s, "ranks": r} for w, s, r in BALLOTS
    )


def exact(values) -> list[float]:
    return [float(Fraction(v)) for v in values]


def counts_of(scores) -> list[tuple[int, int, int, int]]:
    return [
        (int(w), int(t), int(lo), int(n))
        for w, t, lo, n in zip(
            scores.wins, scores.ties, scores.losses, scores.comparisons, strict=True
        )
    ]


def test_the_three_win_ratios_differ_and_carry_their_counts():
    counts = pair_counts(judgments().pairs)
    geq = win_ratios(counts, "better_or_equal")
    gt = win_ratios(counts, "better")
    wmt12 = win_ratios(counts, "decisive")
    assert geq.systems.tolist() == [1, 2, 3, 9]
    # (wins, ties, losses, all comparisons), the same for every rule.
    for scores in (geq, gt, wmt12):
        assert counts_of(scores) == [(5, 2, 2, 9), (1, 1, 7, 9), (3, 2, 4, 9), (5, 3, 1, 9)]
    # "better than or equal" (000, WMT08): (wins + ties) / all.
    assert geq.score.tolist() == pytest.approx(exact(["7/9", "2/9", "5/9", "8/9"]), abs=1e-15)
    # "better than" (002): wins / all.
    assert gt.score.tolist() == pytest.approx(exact(["5/9", "1/9", "3/9", "5/9"]), abs=1e-15)
    # WMT12's "> others": wins / (wins + losses).
    assert wmt12.score.tolist() == pytest.approx(exact(["5/7", "1/8", "3/7", "5/6"]), abs=1e-15)
    assert (geq.method, gt.method, wmt12.method) == (
        "win_ratio_better_or_equal",
        "win_ratio_better",
        "win_ratio_decisive",
    )


def test_only_ties_leave_wmt12s_ratio_undefined():
    # One ballot where both systems tie: 1 comparison, 0 decisive.
    tied = RankingJudgments.from_ballots([{"worker": 1, "ranking_set": 1, "ranks": {4: 2, 5: 2}}])
    counts = pair_counts(tied.pairs)
    assert win_ratios(counts, "better_or_equal").score.tolist() == [1.0, 1.0]
    assert win_ratios(counts, "better").score.tolist() == [0.0, 0.0]
    assert np.isnan(win_ratios(counts, "decisive").score).all()
    with pytest.raises(ValueError, match="better_or_equal, better, decisive"):
        win_ratios(counts, "ties_as_half")


def test_expected_wins_is_unchanged():
    # WMT13 (Koehn 2012): mean over the 3 opponents of wins / (wins + losses) against each.
    # A: B 2/2, C 2/3, R 1/2 -> 13/18; B: A 0/2, C 1/3, R 0/3 -> 1/9; C: A 1/3, B 2/3, R 0/2
    # -> 1/3; R: A 1/2, B 3/3, C 1/1 -> 5/6.
    scores = expected_wins(pair_counts(judgments().pairs))
    assert scores.score.tolist() == pytest.approx(exact(["13/18", "1/9", "1/3", "5/6"]), abs=1e-15)


def test_leaving_the_reference_out_changes_every_other_systems_denominator():
    report = analyse_ranking(
        judgments(),
        RankingConfig(exclude_systems=(9,), bootstrap_samples=10, trueskill=False),
    )
    assert report.systems.tolist() == [1, 2, 3]
    assert report.n_comparisons == 9  # 18 pairs, of which R is in 9
    assert counts_of(report.win_ratio_better_or_equal) == [(4, 1, 1, 6), (1, 1, 4, 6), (3, 0, 3, 6)]
    assert report.win_ratio_better_or_equal.score.tolist() == pytest.approx(
        exact(["5/6", "2/6", "3/6"]), abs=1e-15
    )
    assert report.win_ratio_better.score.tolist() == pytest.approx(
        exact(["4/6", "1/6", "3/6"]), abs=1e-15
    )
    assert report.win_ratio_decisive.score.tolist() == pytest.approx(
        exact(["4/5", "1/5", "3/6"]), abs=1e-15
    )
    # Expected Wins over the 2 opponents left: A (1 + 2/3)/2, B (0 + 1/3)/2, C (1/3 + 2/3)/2.
    assert report.expected_wins.score.tolist() == pytest.approx(
        exact(["5/6", "1/6", "1/2"]), abs=1e-15
    )
    assert report.bradley_terry.systems.tolist() == [1, 2, 3]
    kept = analyse_ranking(judgments(), RankingConfig(bootstrap_samples=10, trueskill=False))
    assert kept.systems.tolist() == [1, 2, 3, 9] and kept.n_comparisons == 18
    assert counts_of(kept.win_ratio_better) == [
        (5, 2, 2, 9),
        (1, 1, 7, 9),
        (3, 2, 4, 9),
        (5, 3, 1, 9),
    ]
