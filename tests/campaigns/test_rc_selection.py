"""Reading comprehension's pure rules (campaigns/builders/reading_comprehension.py), worked by
hand: the selection of questions (keep threshold, redundancy, greedy by good votes), with
000's Appendix A as the main example, and the layout of answering and grading HITs."""

from decimal import Decimal

import pytest

from campaigns.builders.reading_comprehension import (
    DROPPED_REDUNDANT,
    DROPPED_VOTES,
    KEPT,
    AnsweringHit,
    GradingSlot,
    Outcome,
    RCAnswer,
    Vote,
    answering_hits,
    grading_slots,
    redundant_pairs,
    repeated_positions,
    select_questions,
)

# 000 Appendix A (the Heather Locklear article): nine questions, three authors of three, of
# which "4 questions were selected" and "5 questions were excluded as being redundant". The
# paper does not give the votes; three voters A, B and C are made up here so that the rule
# gives the paper's outcome.
LOCKLEAR = {
    1: "What was Heather Locklear arrested for?",
    2: "Why did the bystander call emergency services?",
    3: "Where was she taken for testing?",
    4: "Why was Heather Locklear arrested in Santa Barbara?",
    5: "Where did the witness see her acting abnormally?",
    6: "Why did the policemen lead her to a specialized centre for drugs and alcohol",
    7: "Why was Heather Locklear arrested?",
    8: "Where was Ms. Locklear two months ago?",
    9: "For what was she cured for two months ago?",
}
# (good?, repeats) per voter and question.
BALLOTS = {
    "A": {
        1: (True, {4, 7}),
        2: (True, set()),
        3: (True, {6}),
        4: (True, set()),
        5: (True, set()),
        6: (False, {4}),
        7: (True, {4}),
        8: (True, set()),
        9: (True, {8}),
    },
    "B": {
        1: (True, set()),
        2: (True, set()),
        3: (False, {4}),
        4: (True, {1}),
        5: (True, set()),
        6: (True, {3}),
        7: (False, {4}),
        8: (True, set()),
        9: (True, {8}),
    },
    "C": {
        1: (False, set()),
        2: (True, set()),
        3: (True, {4, 6}),
        4: (True, set()),
        5: (False, {2}),
        6: (True, {4}),
        7: (True, {1}),
        8: (True, {9}),
        9: (False, set()),
    },
}


def ballots(data=BALLOTS):
    return [
        Vote(voter, number, good, frozenset(repeats))
        for voter, ballot in data.items()
        for number, (good, repeats) in ballot.items()
    ]


def test_appendix_a_keeps_four_questions_and_drops_five_as_redundant():
    outcomes = select_questions(
        list(LOCKLEAR),
        ballots(),
        keep_threshold=Decimal("0.500"),
        redundancy_threshold=Decimal("0.500"),
    )
    # Good votes: 3 for questions 2, 4 and 8; 2 for the others (all above half). Greedy
    # order: 2, 4, 8 (3 votes each, by number), then 1, 3, 5, 6, 7, 9. Redundant pairs (more
    # than half of the 3 voters): 1-4 (A, B), 1-7 (A, C), 3-4 (B, C), 3-6 (A, B, C),
    # 4-6 (A, C), 4-7 (A, B), 8-9 (A, B, C); 2-5 is marked by C only (1 of 3), so 5 stays.
    assert outcomes == {
        1: Outcome(1, 2, 3, DROPPED_REDUNDANT, 4),
        2: Outcome(2, 3, 3, KEPT),
        3: Outcome(3, 2, 3, DROPPED_REDUNDANT, 4),
        4: Outcome(4, 3, 3, KEPT),
        5: Outcome(5, 2, 3, KEPT),
        6: Outcome(6, 2, 3, DROPPED_REDUNDANT, 4),
        7: Outcome(7, 2, 3, DROPPED_REDUNDANT, 4),
        8: Outcome(8, 3, 3, KEPT),
        9: Outcome(9, 2, 3, DROPPED_REDUNDANT, 8),
    }
    kept = [LOCKLEAR[n] for n, o in outcomes.items() if o.status == KEPT]
    # The paper's four selected questions.
    assert kept == [
        "Why did the bystander call emergency services?",
        "Why was Heather Locklear arrested in Santa Barbara?",
        "Where did the witness see her acting abnormally?",
        "Where was Ms. Locklear two months ago?",
    ]


def test_appendix_a_redundant_pairs():
    pairs = redundant_pairs(list(LOCKLEAR), ballots(), Decimal("0.5"))
    assert pairs == {frozenset(p) for p in ((1, 4), (1, 7), (3, 4), (3, 6), (4, 6), (4, 7), (8, 9))}
    # More than 2/3 needs all three voters: only 3-6 and 8-9 remain.
    assert redundant_pairs(list(LOCKLEAR), ballots(), Decimal("0.667")) == {
        frozenset((3, 6)),
        frozenset((8, 9)),
    }


def test_a_stricter_keep_threshold_drops_questions_by_votes():
    # 2 of 3 = 0.6667 is not more than 0.667: only the unanimous questions 2, 4 and 8 stay,
    # and a question dropped by votes blocks nothing (9 was redundant with 8 only).
    outcomes = select_questions(
        list(LOCKLEAR),
        ballots(),
        keep_threshold=Decimal("0.667"),
        redundancy_threshold=Decimal("0.5"),
    )
    assert {n: o.status for n, o in outcomes.items()} == {
        1: DROPPED_VOTES,
        2: KEPT,
        3: DROPPED_VOTES,
        4: KEPT,
        5: DROPPED_VOTES,
        6: DROPPED_VOTES,
        7: DROPPED_VOTES,
        8: KEPT,
        9: DROPPED_VOTES,
    }
    assert outcomes[5] == Outcome(5, 2, 3, DROPPED_VOTES)


def test_keeping_needs_more_than_the_threshold():
    # Half the votes is not more than half; a question without votes is never kept.
    votes = [
        Vote("A", 1, True),
        Vote("B", 1, False),
        Vote("A", 2, True),
        Vote("B", 2, True),
    ]
    outcomes = select_questions([1, 2, 3], votes, keep_threshold="0.5", redundancy_threshold="0.5")
    assert outcomes == {
        1: Outcome(1, 1, 2, DROPPED_VOTES),
        2: Outcome(2, 2, 2, KEPT),
        3: Outcome(3, 0, 0, DROPPED_VOTES),
    }
    # Threshold 0: any good vote keeps a question.
    only_one = select_questions([1], votes[:2], keep_threshold=0, redundancy_threshold=0.5)
    assert only_one[1] == Outcome(1, 1, 2, KEPT)


def test_greedy_keeps_the_question_with_more_good_votes_then_the_earlier_one():
    # 1 and 2 repeat each other (both voters say so); 2 has more good votes, so 2 is kept.
    votes = [
        Vote("A", 1, True, frozenset({2})),
        Vote("B", 1, False),
        Vote("C", 1, True),
        Vote("A", 2, True),
        Vote("B", 2, True, frozenset({1})),
        Vote("C", 2, True, frozenset({1})),
    ]
    outcomes = select_questions([1, 2], votes, keep_threshold=0.5, redundancy_threshold=0.5)
    assert outcomes[1] == Outcome(1, 2, 3, DROPPED_REDUNDANT, 2)
    assert outcomes[2] == Outcome(2, 3, 3, KEPT)
    # Equal good votes: the earlier number is taken first.
    tied = [Vote(v, n, True, frozenset({3 - n})) for v in "AB" for n in (1, 2)]
    outcomes = select_questions([1, 2], tied, keep_threshold=0.5, redundancy_threshold=0.5)
    assert outcomes[1].status == KEPT
    assert outcomes[2] == Outcome(2, 2, 2, DROPPED_REDUNDANT, 1)


def test_redundancy_is_not_transitive_through_a_dropped_question():
    # 1-2 and 2-3 are redundant, 1-3 not; 1 and 3 have 3 good votes, 2 has 2: 1 is taken,
    # 2 is dropped for 1, and 3 is taken (it repeats only 2, which was not kept).
    votes = []
    for voter in "ABC":
        votes += [
            Vote(voter, 1, True, frozenset({2})),
            Vote(voter, 2, voter != "C", frozenset({3})),
            Vote(voter, 3, True),
        ]
    outcomes = select_questions([1, 2, 3], votes, keep_threshold=0.5, redundancy_threshold=0.5)
    assert [outcomes[n].status for n in (1, 2, 3)] == [KEPT, DROPPED_REDUNDANT, KEPT]
    assert outcomes[2].redundant_with == 1


def test_redundancy_counts_only_voters_who_voted_on_both():
    # C voted on question 1 only: the pair 1-2 has two common voters, one of whom marks it.
    votes = [
        Vote("A", 1, True, frozenset({2})),
        Vote("A", 2, True),
        Vote("B", 1, True),
        Vote("B", 2, True),
        Vote("C", 1, True),
    ]
    assert redundant_pairs([1, 2], votes, 0.4) == {frozenset((1, 2))}  # 1 of 2 > 0.4
    assert redundant_pairs([1, 2], votes, 0.5) == set()  # 1 of 2 is not more than half


@pytest.mark.parametrize(
    ("votes", "message"),
    [
        ([Vote("A", 4, True)], "a vote on question 4, which is not among [1, 2]"),
        ([Vote("A", 1, True), Vote("A", 1, False)], "voter 'A' voted twice on question 1"),
        ([Vote("A", 1, True, frozenset({1}))], "only other questions of the article"),
        ([Vote("A", 1, True, frozenset({3}))], "only other questions of the article"),
    ],
)
def test_bad_votes_are_refused(votes, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        select_questions([1, 2], votes, keep_threshold=0.5, redundancy_threshold=0.5)


def test_repeated_positions_keeps_other_positions_of_the_hit_only():
    assert repeated_positions({"redundant_with": [3, 1]}, 2, [1, 2, 3]) == frozenset({1, 3})
    assert repeated_positions({"redundant_with": [2, 4, "1", True, 1]}, 2, [1, 2, 3]) == {1}
    assert repeated_positions({}, 1, [1, 2]) == frozenset()
    assert repeated_positions({"redundant_with": "1"}, 2, [1, 2]) == frozenset()
    assert repeated_positions(None, 1, [1, 2]) == frozenset()


def test_answering_hits_one_per_system_then_the_control():
    assert answering_hits([7, 3], answers_per_system=5, answers_on_reference=3) == [
        AnsweringHit(7, 5),
        AnsweringHit(3, 5),
        AnsweringHit(None, 3),
    ]
    assert answering_hits([7], answers_per_system=2, answers_on_reference=0) == [AnsweringHit(7, 2)]
    assert answering_hits([], answers_per_system=5, answers_on_reference=0) == []
    with pytest.raises(ValueError, match="answers_per_system must be at least 1"):
        answering_hits([1], answers_per_system=0, answers_on_reference=1)


def test_grading_slots_group_answers_by_question_in_the_given_order():
    answers = [
        RCAnswer(101, 4, "a clinic in Arizona"),
        RCAnswer(102, 2, "he was worried about her"),
        RCAnswer(103, 4, "Arizona hospital"),
        RCAnswer(104, 2, "concerned for her life"),
    ]
    assert grading_slots(answers, [2, 4, 5]) == [
        GradingSlot(1, 2, 102, "he was worried about her"),
        GradingSlot(2, 2, 104, "concerned for her life"),
        GradingSlot(3, 4, 101, "a clinic in Arizona"),
        GradingSlot(4, 4, 103, "Arizona hospital"),
    ]
    with pytest.raises(ValueError, match="an answer to question 4"):
        grading_slots(answers, [2])
