"""Grades to verdicts: the majority of the graders of each answer (000 section 5.3, "Grading").

000's grading stage shows a grader the human translation, one question, its sample answer and
every answer given to it, and the grader marks each answer correct or not; 000 then "calculated
the percentage of questions that were answered correctly for each system" without saying how
redundant grades were combined.  METHODS.md section 4 and issue 14 item 3 fix it: majority
over graders, ties reported.

Input: one row per grade, ``answer`` (id), ``grader`` (worker id) and ``correct`` (the yes/no
mark).  A grader marks an answer once (the submission is unique per assignment and slot); two
rows for the same (answer, grader) would count one person twice, so they are an error here and
the loader must pick one.

Per answer: ``yes`` and ``no`` counts, ``correct`` = yes > no, ``tie`` = yes == no, and the
``score`` the answer contributes to the share correct:

- majority yes: 1.0; majority no: 0.0;
- a tie, by ``tie`` policy (000 is silent):

  - ``"half"`` (the default): 0.5.  A split panel is evidence of neither verdict; 0.5 is the
    mean of the graders' marks on a 1-1 or 2-2 split, i.e. the chance that a grader drawn at
    random from the panel calls it correct.  It keeps every graded answer in the denominator,
    so a system's n is its number of graded answers whatever the policy, and it biases no
    system: counting ties as incorrect would push down the systems whose output yields more
    half-right answers (typically the weaker ones, making gaps look larger), and dropping them
    removes exactly the borderline answers, unevenly across systems.
  - ``"incorrect"`` (0.0, the conservative reading of "answered correctly", as post-editing's
    verification fails ties), ``"correct"`` (1.0), or ``"exclude"`` (NaN: the answer leaves the
    scores as if ungraded; it still counts in grader agreement).

  With an odd number of graders per answer (3 is the usual panel) ties only come from
  incomplete panels; the policy matters only then.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["TIE_POLICIES", "GradeVerdicts", "TiePolicy", "aggregate_grades", "tie_score"]

TiePolicy = Literal["half", "incorrect", "correct", "exclude"]
TIE_POLICIES: tuple[TiePolicy, ...] = ("half", "incorrect", "correct", "exclude")
_TIE_SCORES: dict[str, float] = {
    "half": 0.5,
    "incorrect": 0.0,
    "correct": 1.0,
    "exclude": float("nan"),
}


def tie_score(tie: TiePolicy) -> float:
    """What a tied answer scores under ``tie`` (NaN: excluded from the scores)."""
    if tie not in _TIE_SCORES:
        raise ValueError(f"tie must be one of {TIE_POLICIES}, got {tie!r}")
    return _TIE_SCORES[tie]


def column(values: ArrayLike, dtype: type, name: str) -> NDArray:
    """A read-only 1-D copy of ``values`` as ``dtype`` (the tables' columns)."""
    arr = np.array(values, dtype=dtype, copy=True)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class GradeVerdicts:
    """Per graded answer, aligned to ``answers`` (sorted distinct ids of the answers with at
    least one grade): the counts, the majority verdict and the score (module docstring)."""

    answers: NDArray[np.int64]
    yes: NDArray[np.int64]
    no: NDArray[np.int64]
    correct: NDArray[np.bool_]  # majority yes; False for ties
    tie: NDArray[np.bool_]
    score: NDArray[np.float64]  # 1.0, 0.0, or the tie score (NaN under "exclude")
    tie_policy: TiePolicy

    def __len__(self) -> int:
        return int(self.answers.shape[0])

    @property
    def n_graders(self) -> NDArray[np.int64]:
        return self.yes + self.no

    @property
    def counts(self) -> NDArray[np.int64]:
        """(answers x 2) rating counts, columns [no, yes]: the table for Fleiss' kappa."""
        return np.stack([self.no, self.yes], axis=1)


def aggregate_grades(
    answer: ArrayLike, grader: ArrayLike, correct: ArrayLike, *, tie: TiePolicy = "half"
) -> GradeVerdicts:
    """Majority verdict per answer from one row per (answer, grader, correct yes/no).

    Raises ValueError when the columns differ in length or a grader graded an answer twice.
    """
    tie_value = tie_score(tie)
    a = column(answer, np.int64, "answer")
    g = column(grader, np.int64, "grader")
    yes_mark = column(correct, bool, "correct")
    if not (a.shape == g.shape == yes_mark.shape):
        raise ValueError("answer, grader and correct must have the same length")
    keys = np.stack([a, g], axis=1)
    uniq, count = np.unique(keys, axis=0, return_counts=True)
    if uniq.shape[0] != keys.shape[0]:
        dup = uniq[np.flatnonzero(count > 1)[0]]
        raise ValueError(f"grader {dup[1]} graded answer {dup[0]} more than once")
    answers, idx = np.unique(a, return_inverse=True)
    idx = idx.reshape(-1)
    n = answers.shape[0]
    yes = np.bincount(idx, weights=yes_mark, minlength=n).astype(np.int64)
    no = np.bincount(idx, minlength=n).astype(np.int64) - yes
    is_tie = yes == no
    score = np.where(is_tie, tie_value, (yes > no).astype(np.float64))
    for arr in (answers, yes, no, score):
        arr.setflags(write=False)
    return GradeVerdicts(
        answers=answers,
        yes=yes,
        no=no,
        correct=yes > no,
        tie=is_tie,
        score=score,
        tie_policy=tie,
    )
