"""Reading comprehension's pure rules: which questions selection keeps, and how the answering
and grading HITs of an article are laid out. No Django (campaigns/kinds/reading_comprehension/
stages.py loads the rows and stores the outcome).

Sources: Callison-Burch (2009), section 5.3 and Appendix A [000]: "other Turkers [voted] on
whether each question was a good and [indicated] if it was redundant with any other questions
in the set. We sorted questions to maximize the votes and minimized redundancies using a
simple perl script, which discarded questions below a threshold, and eliminated all
redundancies" (90 questions for 10 articles became 47; Appendix A: 4 of 9 kept, 5 excluded as
redundant). METHODS.md section 4; RC_SPEC.md.

The selection rule (000 gives neither threshold nor the script; the choices are):

* **Kept by votes** when ``good_votes / votes > keep_threshold`` (strictly more: with the
  default 0.5, a majority of voters). A question nobody voted on is not kept.
* **Redundant pair**: two questions are redundant when more than ``redundancy_threshold`` of
  the voters who voted on both marked either one as repeating the other (a voter who marks
  A as repeating B, or B as repeating A, or both, counts once).
* **Greedy**: the questions kept by votes, in order of good votes (most first; then by
  number, i.e. the order they were written), are taken one by one; a question redundant with
  one already taken is dropped as redundant (``redundant_with``: the first such question
  taken), else it is taken. Questions dropped by votes block nothing. Nothing is renumbered.

Ranking by good votes (not their share) follows RC_SPEC.md; every voter of an article votes on
all its questions, so the two orders agree in practice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

__all__ = [
    "DROPPED_REDUNDANT",
    "DROPPED_VOTES",
    "KEPT",
    "AnsweringHit",
    "GradingSlot",
    "Outcome",
    "RCAnswer",
    "Vote",
    "answering_hits",
    "grading_slots",
    "redundant_pairs",
    "repeated_positions",
    "select_questions",
]

# The statuses the rule gives (RCQuestionStatus values).
KEPT = "kept"
DROPPED_VOTES = "dropped_votes"
DROPPED_REDUNDANT = "dropped_redundant"

Threshold = Decimal | Fraction | float | int | str


@dataclass(frozen=True)
class Vote:
    """One voter's vote on one question: good or not, and the numbers of the other questions
    of the article the voter says it repeats."""

    voter: Hashable
    question: int
    good: bool
    repeats: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Outcome:
    """What selection decided for one question."""

    number: int
    good_votes: int
    votes: int
    status: str
    redundant_with: int | None = None


def _fraction(value: Threshold) -> Fraction:
    # Decimal and str convert exactly (0.5 stays 1/2): "more than half" must not depend on
    # binary rounding.
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _checked_votes(numbers: Sequence[int], votes: Iterable[Vote]) -> list[Vote]:
    known = set(numbers)
    if len(known) != len(numbers):
        raise ValueError(f"question numbers repeat: {sorted(numbers)}")
    seen: set[tuple[Hashable, int]] = set()
    checked = []
    for vote in votes:
        if vote.question not in known:
            raise ValueError(f"a vote on question {vote.question}, which is not among {numbers}")
        if (vote.voter, vote.question) in seen:
            raise ValueError(f"voter {vote.voter!r} voted twice on question {vote.question}")
        seen.add((vote.voter, vote.question))
        unknown = set(vote.repeats) - known
        if unknown or vote.question in vote.repeats:
            raise ValueError(
                f"voter {vote.voter!r} marks question {vote.question} as repeating "
                f"{sorted(vote.repeats)}: only other questions of the article can be repeated"
            )
        checked.append(vote)
    return checked


def redundant_pairs(
    numbers: Sequence[int], votes: Iterable[Vote], redundancy_threshold: Threshold
) -> set[frozenset[int]]:
    """The pairs of questions more than ``redundancy_threshold`` of their common voters call
    repeats of each other (either direction)."""
    checked = _checked_votes(numbers, votes)
    threshold = _fraction(redundancy_threshold)
    by_voter: dict[Hashable, dict[int, Vote]] = defaultdict(dict)
    for vote in checked:
        by_voter[vote.voter][vote.question] = vote
    both: dict[frozenset[int], int] = defaultdict(int)
    marked: dict[frozenset[int], int] = defaultdict(int)
    for ballot in by_voter.values():
        voted = sorted(ballot)
        for i, a in enumerate(voted):
            for b in voted[i + 1 :]:
                pair = frozenset((a, b))
                both[pair] += 1
                if b in ballot[a].repeats or a in ballot[b].repeats:
                    marked[pair] += 1
    return {pair for pair, n in both.items() if Fraction(marked[pair], n) > threshold}


def select_questions(
    numbers: Sequence[int],
    votes: Iterable[Vote],
    *,
    keep_threshold: Threshold,
    redundancy_threshold: Threshold,
) -> dict[int, Outcome]:
    """The outcome of every question in ``numbers`` (see the module's docstring)."""
    checked = _checked_votes(numbers, list(votes))
    good: dict[int, int] = dict.fromkeys(numbers, 0)
    total: dict[int, int] = dict.fromkeys(numbers, 0)
    for vote in checked:
        total[vote.question] += 1
        good[vote.question] += int(vote.good)
    keep = _fraction(keep_threshold)
    pairs = redundant_pairs(numbers, checked, redundancy_threshold)
    outcomes: dict[int, Outcome] = {}
    candidates = []
    for number in numbers:
        if total[number] and Fraction(good[number], total[number]) > keep:
            candidates.append(number)
        else:
            outcomes[number] = Outcome(number, good[number], total[number], DROPPED_VOTES)
    taken: list[int] = []
    for number in sorted(candidates, key=lambda n: (-good[n], n)):
        blocker = next((k for k in taken if frozenset((number, k)) in pairs), None)
        if blocker is None:
            taken.append(number)
            outcomes[number] = Outcome(number, good[number], total[number], KEPT)
        else:
            outcomes[number] = Outcome(
                number, good[number], total[number], DROPPED_REDUNDANT, blocker
            )
    return {number: outcomes[number] for number in numbers}


def repeated_positions(details: Any, own_position: int, positions: Iterable[int]) -> frozenset[int]:
    """The slot positions a selection judgment's ``details["redundant_with"]`` names, keeping
    only other positions of its HIT. The page sends them checked; a judgment stored another
    way (an import, an old page) must not stop the article, so anything else is left out
    rather than refused."""
    valid = set(positions) - {own_position}
    named = details.get("redundant_with") if isinstance(details, Mapping) else None
    if not isinstance(named, list | tuple):
        return frozenset()
    return frozenset(
        p for p in named if isinstance(p, int) and not isinstance(p, bool) and p in valid
    )


@dataclass(frozen=True)
class AnsweringHit:
    """One answering HIT of an article: the system whose translation it shows (None: the
    human translation, the control) and how many workers answer on it."""

    system: int | None
    places: int


def answering_hits(
    systems: Sequence[int], *, answers_per_system: int, answers_on_reference: int
) -> list[AnsweringHit]:
    """One HIT per system with ``answers_per_system`` places, in the order given, then the
    human translation's with ``answers_on_reference`` places (none when 0). 000: "each
    system's translation was displayed an average of 5 times per article"; "as a control, we
    had three Turkers answer ... using the reference translation"."""
    if answers_per_system < 1:
        raise ValueError("answers_per_system must be at least 1")
    if answers_on_reference < 0:
        raise ValueError("answers_on_reference cannot be negative")
    hits = [AnsweringHit(system, answers_per_system) for system in systems]
    if answers_on_reference:
        hits.append(AnsweringHit(None, answers_on_reference))
    return hits


@dataclass(frozen=True)
class RCAnswer:
    """One answer to grade: its judgment, the number of the question it answers and the
    answer's text, given in the order the answers are to be shown within their question."""

    judgment: int
    question: int
    text: str


@dataclass(frozen=True)
class GradingSlot:
    position: int
    group: int  # the question's number
    judgment: int
    text: str


def grading_slots(answers: Iterable[RCAnswer], question_order: Sequence[int]) -> list[GradingSlot]:
    """The grading HIT's slots: every answer once, grouped by question (``question_order``),
    the answers of a question in the order given. 000: graders saw "one question, the sample
    answer, and ... all answers to it"."""
    by_question: dict[int, list[RCAnswer]] = {number: [] for number in question_order}
    for answer in answers:
        if answer.question not in by_question:
            raise ValueError(
                f"an answer to question {answer.question}, which is not among {question_order}"
            )
        by_question[answer.question].append(answer)
    slots: list[GradingSlot] = []
    for number in question_order:
        for answer in by_question[number]:
            slots.append(GradingSlot(len(slots) + 1, number, answer.judgment, answer.text))
    return slots
