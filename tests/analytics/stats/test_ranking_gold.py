"""Gold units, trust, auto-takedown (002 section 4) and worker weights (000 section 4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analytics.stats.ranking import (
    RankingJudgments,
    expert_weights,
    gold_trust,
    gold_units,
    gold_weights,
    peer_weights,
    takedown_reason,
)

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)

GOLD = -1  # the gold translation is not a system
WORST = 3  # the known worst system (oracle-worst, 10k in 002)


def gold_set(worker: int, unit: int, gold_rank: int, worst_rank: int, order: int) -> dict:
    """A gold unit of N = 4: gold translation, systems 1 and 2, the known worst system 3."""
    others = [r for r in (1, 2, 3, 4) if r not in (gold_rank, worst_rank)] or [1, 2]
    while len(others) < 2:
        others.append(others[-1])
    return {
        "worker": worker,
        "ranking_set": 1000 + unit,
        "ranks": {GOLD: gold_rank, 1: others[0], 2: others[1], WORST: worst_rank},
        "expected": {GOLD: 1, WORST: 4},
        "order": order,
    }


def campaign() -> RankingJudgments:
    specs = []
    # Worker 0, five gold units (gold rank, worst rank):
    #   u1 (1, 4): best-only pass, best+worst pass
    #   u2 (2, 3): best-only FAIL (gold not 1), best+worst pass (gold 1-2, worst 3-4)
    #   u3 (1, 1): best-only pass, best+worst FAIL (worst not 3-4; a tie at 1)
    #   u4 (1, 2): best-only pass, best+worst FAIL
    #   u5 (1, 4): pass, pass
    # best-only 4/5 = 0.8 >= 0.7 -> trusted; best+worst 3/5 = 0.6 -> untrusted.
    for k, (g, w) in enumerate([(1, 4), (2, 3), (1, 1), (1, 2), (1, 4)]):
        specs.append(gold_set(0, k, g, w, order=k))
    # Worker 1: three gold units, all passed -> still undecided (< 4 seen), allowed.
    for k in range(3):
        specs.append(gold_set(1, 10 + k, 1, 4, order=k))
    # Worker 2: ten units, exactly 7 passed under both schemes -> 0.7 >= 0.7: trusted.
    for k in range(10):
        specs.append(gold_set(2, 20 + k, 1 if k < 7 else 3, 4, order=k))
    # Worker 3: four units, one passed -> untrusted under both.
    for k in range(4):
        specs.append(gold_set(3, 40 + k, 1 if k == 0 else 4, 4 if k == 0 else 1, order=k))
    # Worker 4: ordinary sets only -> no gold at all.
    specs.append({"worker": 4, "ranking_set": 1, "ranks": {1: 1, 2: 2}, "order": 0})
    return RankingJudgments.from_ballots(specs)


def test_gold_units_per_scheme() -> None:
    j = campaign()
    bo = gold_units(j, "best_only")
    w0 = bo.worker == 0
    assert bo.correct[w0].tolist() == [True, False, True, True, True]
    bw = gold_units(j, "best_worst")
    assert bw.correct[bw.worker == 0].tolist() == [True, True, False, False, True]
    assert len(bo) == len(bw) == 5 + 3 + 10 + 4  # worker 4 has no gold unit


def test_trust_best_only_and_best_worst() -> None:
    j = campaign()
    bo = gold_trust(j, "best_only", min_gold=4, min_accuracy=0.7)
    assert bo.workers.tolist() == [0, 1, 2, 3, 4]
    assert bo.gold_seen.tolist() == [5, 3, 10, 4, 0]
    assert bo.gold_correct.tolist() == [4, 3, 7, 1, 0]
    assert bo.status.tolist() == ["trusted", "undecided", "trusted", "untrusted", "undecided"]
    assert bo.allowed.tolist() == [True, True, True, False, True]
    assert bo.accuracy[:4].tolist() == [0.8, 1.0, 0.7, 0.25] and math.isnan(bo.accuracy[4])
    bw = gold_trust(j, "best_worst")
    assert bw.gold_correct.tolist() == [3, 3, 7, 1, 0]
    assert bw.status.tolist() == ["untrusted", "undecided", "trusted", "untrusted", "undecided"]
    with pytest.raises(ValueError):
        gold_trust(j, "median")  # type: ignore[arg-type]


def test_best_worst_generalises_by_set_size() -> None:
    # N = 5 (margin 2): gold must be 1-2, the worst 4-5.  N = 3: m = min(2, 3 // 2) = 1, so
    # only the exact best (1) and worst (3) ranks pass.
    specs = [
        {"worker": 0, "ranking_set": 1, "ranks": {-1: 2, 1: 1, 2: 3, 3: 5, 4: 4},
         "expected": {-1: 1, 3: 5}},  # gold 2 in 1-2, worst 5 in 4-5: pass
        {"worker": 0, "ranking_set": 2, "ranks": {-1: 1, 1: 2, 2: 4, 3: 3, 4: 5},
         "expected": {-1: 1, 3: 5}},  # worst 3 not in 4-5: fail
        {"worker": 0, "ranking_set": 3, "ranks": {-1: 1, 1: 2, 3: 3},
         "expected": {-1: 1, 3: 3}},  # N = 3 exact: pass
        {"worker": 0, "ranking_set": 4, "ranks": {-1: 2, 1: 1, 3: 3},
         "expected": {-1: 1, 3: 3}},  # N = 3, gold 2: fail
    ]  # fmt: skip
    j = RankingJudgments.from_ballots(specs)
    assert gold_units(j, "best_worst").correct.tolist() == [True, False, True, False]
    # margin 1 everywhere: exact best and worst only.
    assert gold_units(j, "best_worst", margin=1).correct.tolist() == [False, False, True, False]


def test_takedown_decision() -> None:
    trust = gold_trust(campaign(), "best_worst")
    # Decided: workers 0 (untrusted), 2 (trusted), 3 (untrusted) -> 2 of 3 = 67% untrusted.
    reason = takedown_reason(trust, threshold=0.5, min_workers=3)
    assert reason is not None and "2 of 3 workers" in reason and "67%" in reason
    assert takedown_reason(trust, threshold=0.5, min_workers=4) is None  # too few decided
    assert takedown_reason(trust, threshold=2 / 3, min_workers=3) is None  # not above it
    assert takedown_reason(trust, threshold=None, min_workers=0) is None  # never pause


def test_gold_weights_use_the_first_k_units() -> None:
    w = gold_weights(campaign(), "best_only", first_k=2)
    # Worker 0's first two units (by order): u1 pass, u2 fail -> 1/2.  Worker 2: first two
    # pass -> 1.  Worker 3: u1 pass, u2 fail -> 1/2.  Worker 1: 2 of 2 -> 1.  Worker 4 has
    # none: the mean of the others' weights, (0.5 + 1 + 1 + 0.5) / 4 = 0.75.
    assert w.weight.tolist() == [0.5, 1.0, 1.0, 0.5, 0.75]
    assert w.compared.tolist() == [2, 2, 2, 2, 0]
    assert w.has_evidence.tolist() == [True, True, True, True, False]
    explicit = gold_weights(campaign(), "best_only", first_k=2, default=0.0)
    assert explicit.weight[4] == 0.0


# Three workers on set 1 (systems 0, 1, 2), worker 0 again later (see test_ranking_agreement):
#   W0 + + +, W1 = + +, W2 - - -, W0 again + + -  (pairs (0,1), (0,2), (1,2))
PANEL = [
    {"worker": 0, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}, "order": 0},
    {"worker": 1, "ranking_set": 1, "ranks": {0: 1, 1: 1, 2: 2}, "order": 1},
    {"worker": 2, "ranking_set": 1, "ranks": {0: 3, 1: 2, 2: 1}, "order": 2},
    {"worker": 0, "ranking_set": 1, "ranks": {0: 1, 1: 3, 2: 2}, "order": 3},
]


def test_peer_weights_by_hand() -> None:
    j = RankingJudgments.from_ballots(PANEL)
    w = peer_weights(j)
    # W0's 6 labels, each against the other workers' labels of the same pair:
    #   (0,1) + vs {=, -}: 0/2 (twice); (0,2) + vs {+, -}: 1/2 (twice);
    #   (1,2) + vs {+, -}: 1/2; (1,2) - vs {+, -}: 1/2    -> (0 + 2 + 2) / 12 = 4 / 12
    # W1: (0,1) = vs {+, -, +}: 0/3; (0,2) + vs {+, -, +}: 2/3; (1,2) + vs {+, -, -}: 1/3
    #                                                              -> 3 / 9
    # W2: (0,1) - vs {+, =, +}: 0; (0,2) - vs {+, +, +}: 0; (1,2) - vs {+, +, -}: 1/3 -> 1 / 9
    assert w.agree.tolist() == [4, 3, 1]
    assert w.compared.tolist() == [12, 9, 9]
    assert w.weight == pytest.approx([4 / 12, 3 / 9, 1 / 9], rel=1e-12)
    only = peer_weights(j, include_workers=np.array([True, True, False]))
    # Without W2 as a peer: W0 (0,1) + vs {=}: 0 x2; (0,2) + vs {+}: 1 x2; (1,2) + vs {+}: 1,
    # (1,2) - vs {+}: 0 -> 3/6.  W2 gets the default (mean of the others).
    assert only.weight[0] == pytest.approx(3 / 6)
    assert only.weight[2] == pytest.approx((only.weight[0] + only.weight[1]) / 2)


def test_expert_weights_on_the_first_k_checkable_ballots() -> None:
    crowd = RankingJudgments.from_ballots(
        [
            # Worker 7: an unchecked set first (segment 5 has no expert), then two checkable.
            {"worker": 7, "ranking_set": 5, "ranks": {0: 1, 1: 2}, "order": 0},
            {"worker": 7, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}, "order": 1},
            {"worker": 7, "ranking_set": 2, "ranks": {0: 2, 1: 1}, "order": 2},
            {"worker": 8, "ranking_set": 1, "ranks": {0: 3, 1: 2, 2: 1}, "order": 0},
        ]
    )
    experts = RankingJudgments.from_ballots(
        [
            {"worker": 100, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 2}},  # + + =
            {"worker": 101, "ranking_set": 1, "ranks": {0: 1, 1: 2, 2: 3}},  # + + +
            {"worker": 100, "ranking_set": 2, "ranks": {0: 1, 1: 2}},  # +
        ]
    )
    w = expert_weights(crowd, experts, first_k=1)
    # Worker 7's first checkable ballot is set 1 (+ + +) against two experts each:
    #   (0,1): + vs {+, +} 2/2; (0,2): 2/2; (1,2): + vs {=, +} 1/2 -> 5 / 6.
    # Worker 8 (- - -): 0 / 6.
    assert w.agree.tolist() == [5, 0] and w.compared.tolist() == [6, 6]
    w2 = expert_weights(crowd, experts, first_k=10)
    # Adding set 2 for worker 7: (0,1) - vs {+}: 0/1 -> 5 / 7.
    assert w2.weight[0] == pytest.approx(5 / 7)
