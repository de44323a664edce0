"""analytics.stats.translation: BLEU worked by hand and checked against sacrebleu's own
corpus_bleu, 004's percentage of baseline (Table 1's arithmetic), the Detect-MT majority, the
flag rate and the exclusion at exactly 30%, the kept translation's ties, the ranking scores
(000's better-or-equal share) worked by hand."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
import sacrebleu

from analytics.stats.translation import (
    Candidate,
    DetectOutcome,
    best_system,
    choose_correction,
    consensus,
    corpus_score,
    flag_rates,
    flag_translation,
    mt_similarity,
    percent_of_baseline,
    ranking_scores,
    select_translation,
    sentence_similarity,
    workers_to_exclude,
)
from analytics.stats.translation.flags import FlagRate

# --- BLEU worked by hand ---------------------------------------------------------------------
#
# Segment 1: hypothesis "the cat sat on a mat", reference "the cat sat on the mat".
#   1-grams 5/6 (all but "a"), 2-grams 3/5 (the cat, cat sat, sat on), 3-grams 2/4 (the cat
#   sat, cat sat on), 4-grams 1/3 (the cat sat on); 6 words each: BP = 1.
#   BLEU = (5/6 * 3/5 * 2/4 * 1/3) ** (1/4) = (1/12) ** (1/4) = 0.537285 -> 53.73.
# Segment 2: hypothesis "a dog ran", references "a dog ran away" and "a dog ran" (two
#   references: the closest length, 3, is BP's reference length).
# Corpus of both: 1-grams (5+3)/(6+3) = 8/9, 2-grams (3+2)/(5+2) = 5/7, 3-grams (2+1)/(4+1) =
#   3/5, 4-grams (1+0)/(3+0) = 1/3; hypothesis 9 words, reference 6 + 3 = 9: BP = 1.
#   BLEU = (8/9 * 5/7 * 3/5 * 1/3) ** (1/4) = (8/63) ** (1/4) = 0.596949 -> 59.69.
# With only "a dog ran away" for segment 2 the reference length is 10: BP = exp(1 - 10/9).

HYP = ["the cat sat on a mat", "a dog ran"]
REFS = [["the cat sat on the mat"], ["a dog ran away", "a dog ran"]]


def test_bleu_of_one_sentence_by_hand():
    score = corpus_score(HYP[:1], REFS[:1])
    assert score.bleu == pytest.approx(100 * float(Fraction(1, 12)) ** 0.25)
    assert round(score.bleu, 2) == 53.73
    assert score.n_segments == 1


def test_corpus_bleu_with_multiple_references_by_hand_and_by_sacrebleu():
    score = corpus_score(HYP, REFS)
    by_hand = 100 * float(Fraction(8, 9) * Fraction(5, 7) * Fraction(3, 5) * Fraction(1, 3)) ** 0.25
    assert score.bleu == pytest.approx(by_hand)
    assert round(score.bleu, 2) == 59.69
    # sacrebleu's own corpus_bleu, references as streams (None: no second reference).
    theirs = sacrebleu.corpus_bleu(HYP, [["the cat sat on the mat", "a dog ran away"],
                                         [None, "a dog ran"]])  # fmt: skip
    assert score.bleu == pytest.approx(theirs.score)
    assert score.chrf == pytest.approx(
        sacrebleu.corpus_chrf(
            HYP, [["the cat sat on the mat", "a dog ran away"], [None, "a dog ran"]]
        ).score  # fmt: skip
    )
    assert "nrefs:var" in score.bleu_signature and "version:2." in score.bleu_signature


def test_brevity_penalty_with_one_reference():
    score = corpus_score(HYP, [REFS[0], ["a dog ran away"]])
    p = float(Fraction(8, 9) * Fraction(5, 7) * Fraction(3, 5) * Fraction(1, 3)) ** 0.25
    import math

    assert score.bleu == pytest.approx(100 * math.exp(1 - 10 / 9) * p)


def test_segments_without_references_are_left_out():
    assert corpus_score(["x"], [[]]) is None
    score = corpus_score(HYP + ["zzz"], REFS + [[]])
    assert score.n_segments == 2 and score.bleu == pytest.approx(corpus_score(HYP, REFS).bleu)


# --- 004's percentage of baseline -------------------------------------------------------------


def test_percent_of_baseline_reproduces_004_table_1():
    nist = {"ISI": 33.10, "JHU": 32.77, "Joshua": 26.65}
    assert best_system(nist) == "ISI"
    percent = percent_of_baseline(nist, "ISI")
    # 32.77 / 33.10 = 0.990030... -> 99.00% (004 Table 1); 26.65 / 33.10 -> 80.51%.
    assert percent["ISI"] == 100.0
    assert round(percent["JHU"], 2) == 99.00
    assert round(percent["Joshua"], 2) == 80.51
    # Table 2, MTurk-Edited: 14.23 / 14.16 = 100.49%, 11.68 / 14.16 = 82.49%.
    edited = percent_of_baseline({"ISI": 14.16, "JHU": 14.23, "Joshua": 11.68}, "ISI")
    assert (round(edited["JHU"], 2), round(edited["Joshua"], 2)) == (100.49, 82.49)
    # Another baseline, a missing score, a baseline of 0.
    assert round(percent_of_baseline(nist, "Joshua")["ISI"], 2) == 124.20
    assert percent_of_baseline({"A": None, "B": 10.0}, "B")["A"] is None
    assert percent_of_baseline({"A": 5.0, "B": 0.0}, "B")["A"] is None


# --- Similarity to MT outputs -----------------------------------------------------------------


def test_mt_similarity_takes_the_closest_system():
    outputs = {"sysA": "the cat sat on the mat", "sysB": "a cat is sitting on a mat"}
    best = mt_similarity("the cat sat on the mat", outputs)
    assert best.system == "sysA" and best.score == pytest.approx(100.0)
    far = mt_similarity("a cat is sitting on the mat", outputs, "bleu")
    assert far.system == "sysB"
    assert far.score == pytest.approx(
        sacrebleu.sentence_bleu("a cat is sitting on the mat", ["a cat is sitting on a mat"]).score
    )
    assert mt_similarity("x", {}) is None


# --- Detect-MT and flags ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "human", "places", "decided", "flagged"),
    [
        (2, 1, 3, True, True),
        (2, 0, 3, True, True),  # the third vote cannot change it
        (1, 1, 3, False, False),
        (0, 2, 3, True, False),
        (1, 0, 3, False, False),
        (2, 2, 4, True, False),  # a tie is not flagged
        (1, 2, 4, True, False),  # at best 2-2 with the last vote
        (3, 0, 5, True, True),
        (0, 0, 0, False, False),  # no Detect-MT HIT
    ],
)
def test_detect_outcome_strict_majority(machine, human, places, decided, flagged):
    outcome = DetectOutcome(machine, human, places)
    assert (outcome.decided, outcome.flagged) == (decided, flagged)


def test_flag_translation_similarity_and_denominator():
    pending = DetectOutcome(1, 0, 3)
    # At exactly the threshold: flagged, and decided whatever the votes.
    at = flag_translation(90.0, Decimal("90.00"), pending)
    assert (at.similar, at.flagged, at.decided, at.settled) == (True, True, True, True)
    below = flag_translation(89.99, Decimal("90.00"), pending)
    assert (below.flagged, below.decided, below.settled) == (False, False, False)
    # No Detect-MT HIT: the similarity decides alone; with no MT output nothing decides.
    alone = flag_translation(40.0, Decimal("90"), DetectOutcome())
    assert (alone.flagged, alone.decided, alone.settled) == (False, True, True)
    nothing = flag_translation(None, Decimal("90"), DetectOutcome())
    assert (nothing.decided, nothing.settled) == (False, True)
    voted = flag_translation(None, Decimal("90"), DetectOutcome(2, 1, 3))
    assert (voted.detected, voted.flagged, voted.decided) == (True, True, True)


def _flags(n_flagged: int, n_clean: int, n_pending: int = 0):
    flagged = flag_translation(None, 90, DetectOutcome(2, 1, 3))
    clean = flag_translation(None, 90, DetectOutcome(0, 3, 3))
    pending = flag_translation(None, 90, DetectOutcome(0, 1, 3))
    return [flagged] * n_flagged + [clean] * n_clean + [pending] * n_pending


def test_exclusion_at_exactly_30_percent():
    flags = {
        "w30": _flags(3, 7, 5),
        "w29": _flags(2, 5),
        "w100": _flags(1, 0, 9),
        "w33": _flags(1, 2),
    }
    workers = [w for w, fs in flags.items() for _ in fs]
    rates = flag_rates(workers, [f for fs in flags.values() for f in fs])
    # Pending translations count in neither: 3 of 10 decided, not 3 of 15.
    assert rates["w30"] == FlagRate(n_translations=15, n_decided=10, n_flagged=3)
    assert rates["w30"].rate == 0.3
    assert rates["w29"].rate == pytest.approx(2 / 7)
    # 0.3 as a float times 10 is 3.0000000000000004: the comparison is exact.
    assert workers_to_exclude(rates, 0.3) == ["w30", "w33"]
    assert workers_to_exclude(rates, Decimal("0.300")) == ["w30", "w33"]
    # One decided flag is 100% but under the three decided translations needed.
    assert "w100" not in workers_to_exclude(rates, 0.3)
    assert workers_to_exclude(rates, 0.3, min_decided=1) == ["w30", "w100", "w33"]
    assert workers_to_exclude(rates, Decimal("0.301")) == ["w33"]


# --- The kept translation ---------------------------------------------------------------------


def test_consensus_is_the_mean_chrf_to_the_others():
    texts = ["the cat sat", "the cat sat", "a dog ran"]
    scores = consensus(texts)
    other = sentence_similarity("the cat sat", "a dog ran")
    assert scores[0] == pytest.approx((100 + other) / 2)
    assert consensus(["alone"]) == [None]


def test_selection_ties_go_to_the_earliest_translation():
    candidates = [Candidate(5, "the cat sat"), Candidate(3, "the cat sat"), Candidate(9, "x y z")]
    kept, scores = select_translation(candidates, "consensus")
    assert kept == 3  # 5 and 3 tie at (100 + chrF("the cat sat", "x y z")) / 2
    assert scores[0] == scores[1] > scores[2]
    assert select_translation([Candidate(4, "only")], "consensus")[0] == 4
    assert select_translation(candidates, "requester")[0] is None
    assert select_translation([], "consensus")[0] is None


def test_detect_mt_selection_prefers_fewest_machine_votes_then_consensus():
    candidates = [
        Candidate(1, "the cat sat", machine_share=1 / 3),
        Candidate(2, "the cat sat", machine_share=0.0),
        Candidate(3, "a dog ran", machine_share=None),  # no vote: counts as 0
        Candidate(4, "the cat sat down", machine_share=2 / 3),
    ]
    kept, _ = select_translation(candidates, "detect_mt")
    # 2 and 3 share 0 machine votes; between them 2 is closer to 3 than 3 to 2? a tie of two:
    # chrF("the cat sat", "a dog ran") vs chrF("a dog ran", "the cat sat"); the earliest wins a tie.
    two = sentence_similarity("the cat sat", "a dog ran")
    three = sentence_similarity("a dog ran", "the cat sat")
    assert kept == (2 if two >= three else 3)
    with pytest.raises(ValueError):
        select_translation(candidates, "best")


def test_ranking_scores_by_hand():
    # Ballot 1: 10 first, 11 and 12 tied second. Ballot 2: 11, 10, 12. Ballot 3: 10 alone.
    #   10: beats 11 and 12 (2 of 2), then loses to 11, beats 12 (1 of 2): 3 of 4.
    #   11: loses to 10, ties 12 (1 of 2), then beats both (2 of 2): 3 of 4.
    #   12: loses to 10, ties 11 (1 of 2), then loses to both (0 of 2): 1 of 4.
    # A ballot of one compares nothing; the rows' order does not matter.
    ballot = [2, 1, 1, 3, 2, 1, 2]
    item = [10, 10, 11, 10, 11, 12, 12]
    rank = [2, 1, 2, 1, 1, 2, 3]
    scores = ranking_scores(ballot, item, rank)
    assert {i: (s.better_or_equal, s.comparisons) for i, s in scores.items()} == {
        10: (3, 4),
        11: (3, 4),
        12: (1, 4),
    }
    assert scores[12].score == 0.25
    assert ranking_scores([], [], []) == {}
    assert ranking_scores([1], [5], [1]) == {}


def test_ranking_selection_prefers_the_best_ranked_then_consensus():
    candidates = [
        Candidate(1, "the cat sat", ranking=0.5),
        Candidate(2, "a dog ran", ranking=0.75),
        Candidate(3, "the cat sat down", ranking=None),  # not ranked: cannot win
    ]
    assert select_translation(candidates, "best_ranked")[0] == 2
    # A tie of rankings: the consensus among the tied, then the earliest.
    tied = [Candidate(4, "the cat sat", ranking=1.0), Candidate(5, "the cat sat", ranking=1.0)]
    assert select_translation(tied, "best_ranked")[0] == 4
    # Nothing ranked yet: the consensus over all; the scores are the consensus either way.
    unranked = [Candidate(c.id, c.text) for c in candidates]
    kept, scores = select_translation(unranked, "best_ranked")
    assert (kept, scores) == select_translation(unranked, "consensus")
    assert select_translation(candidates, "best_ranked")[1] == consensus(
        [c.text for c in candidates]
    )


def test_choose_correction():
    assert choose_correction([]) is None
    assert choose_correction([(7, "one")]) == 7
    assert choose_correction([(8, "the cat sat."), (6, "the cat sat."), (9, "a cat sits.")]) == 6
