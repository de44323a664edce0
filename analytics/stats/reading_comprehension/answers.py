"""The answers table and its scores: one row per answer a worker gave in the answering stage.

000 section 5.3 ("Taking the test"): a worker reads one system's translation of an article
and answers each of the article's selected questions in a few words; the system shown is
chosen at random and nobody sees two translations of the same article; the reference (human)
translation takes part as a control system.  One row per answer: ``answer`` (id, unique),
``question``, ``article`` (each question belongs to one article), ``system`` (the reference
is a system id like any other; the analysis functions take its id) and ``worker`` (who
answered).

A *reading* is one worker's answers to one article under one system, the (worker, article,
system) triple; the design makes it a (worker, article) pair.  It is the unit the system was
randomised over, which is what the significance test permutes
(:mod:`~analytics.stats.reading_comprehension.system`).

:func:`score_answers` joins the answers with :class:`~.grades.GradeVerdicts`: per answer the
score (1, 0, the tie score; NaN when the answer has no grade or its tie is excluded).  The
scores are the only thing the statistics read, so a requester's own graded answers (000's
DLPT-style ready-made tests) can be given as a :class:`ScoredAnswers` directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.reading_comprehension.grades import GradeVerdicts, TiePolicy, column

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["Answers", "ScoredAnswers", "score_answers"]

_ID_COLUMNS = ("answer", "question", "article", "system", "worker")


def _check_ids(obj: Answers) -> None:
    for name in _ID_COLUMNS:
        object.__setattr__(obj, name, column(getattr(obj, name), np.int64, name))
    n = obj.answer.shape[0]
    for name in _ID_COLUMNS:
        if getattr(obj, name).shape[0] != n:
            raise ValueError(f"{name} has length {getattr(obj, name).shape[0]}, expected {n}")
    ids, count = np.unique(obj.answer, return_counts=True)
    if ids.shape[0] != n:
        raise ValueError(f"answer {ids[np.flatnonzero(count > 1)[0]]} appears more than once")
    pairs = np.unique(np.stack([obj.question, obj.article], axis=1), axis=0)
    q, count = np.unique(pairs[:, 0], return_counts=True)
    if q.shape[0] != pairs.shape[0]:
        bad = q[np.flatnonzero(count > 1)[0]]
        arts = pairs[pairs[:, 0] == bad, 1]
        raise ValueError(f"question {bad} is in more than one article: {arts.tolist()}")


@dataclass(frozen=True, eq=False)
class Answers:
    """One row per answer (module docstring); ValueError on repeated answer ids or a
    question in two articles."""

    answer: NDArray[np.int64]
    question: NDArray[np.int64]
    article: NDArray[np.int64]
    system: NDArray[np.int64]
    worker: NDArray[np.int64]

    def __post_init__(self) -> None:
        _check_ids(self)

    def __len__(self) -> int:
        return int(self.answer.shape[0])


@dataclass(frozen=True, eq=False)
class ScoredAnswers(Answers):
    """Answers with ``score`` per row in [0, 1] (NaN = not scored: no grade, or an excluded
    tie), and optionally ``tie`` (the answer's graders were split), ``n_graders`` and the
    ``tie_policy`` that scored the ties."""

    score: NDArray[np.float64]
    tie: NDArray[np.bool_] | None = None
    n_graders: NDArray[np.int64] | None = None
    tie_policy: TiePolicy | None = None  # how ``score`` counts ties, when it came from grades

    def __post_init__(self) -> None:
        _check_ids(self)
        n = self.answer.shape[0]
        score = column(self.score, np.float64, "score")
        if score.shape[0] != n:
            raise ValueError(f"score has length {score.shape[0]}, expected {n}")
        if ((score < 0) | (score > 1)).any():  # NaN compares False: allowed
            raise ValueError("scores must be in [0, 1] (or NaN for unscored answers)")
        object.__setattr__(self, "score", score)
        tie = np.zeros(n, dtype=bool) if self.tie is None else self.tie
        n_graders = np.zeros(n, dtype=np.int64) if self.n_graders is None else self.n_graders
        object.__setattr__(self, "tie", column(tie, bool, "tie"))
        object.__setattr__(self, "n_graders", column(n_graders, np.int64, "n_graders"))
        if self.tie.shape[0] != n or self.n_graders.shape[0] != n:
            raise ValueError(f"tie and n_graders must have length {n}")

    @property
    def scored(self) -> NDArray[np.bool_]:
        """Rows that count in the scores (not NaN)."""
        return ~np.isnan(self.score)

    def subset(self, mask: ArrayLike) -> ScoredAnswers:
        """The rows where ``mask`` (boolean, one per row) is true: e.g. without the questions
        :func:`~.breakdown.question_difficulty` flags, or without some workers."""
        m = np.asarray(mask, dtype=bool).reshape(-1)
        if m.shape[0] != len(self):
            raise ValueError(f"mask has length {m.shape[0]}, expected {len(self)}")
        return ScoredAnswers(
            answer=self.answer[m],
            question=self.question[m],
            article=self.article[m],
            system=self.system[m],
            worker=self.worker[m],
            score=self.score[m],
            tie=self.tie[m],
            n_graders=self.n_graders[m],
            tie_policy=self.tie_policy,
        )


def score_answers(answers: Answers, verdicts: GradeVerdicts) -> ScoredAnswers:
    """Each answer's score from its verdict; NaN for answers nobody graded.

    Raises ValueError for a verdict on an answer that is not in ``answers`` (a grade of an
    unknown or deleted answer: the loader and the answer table disagree).
    """
    n = len(answers)
    order = np.argsort(answers.answer, kind="stable")
    sorted_ids = answers.answer[order]
    pos = np.searchsorted(sorted_ids, verdicts.answers)
    known = pos < n
    known[known] = sorted_ids[pos[known]] == verdicts.answers[known]
    if not known.all():
        bad = verdicts.answers[np.flatnonzero(~known)[0]]
        raise ValueError(f"answer {bad} has grades but is not among the answers")
    rows = order[pos]
    score = np.full(n, np.nan)
    tie = np.zeros(n, dtype=bool)
    n_graders = np.zeros(n, dtype=np.int64)
    score[rows] = verdicts.score
    tie[rows] = verdicts.tie
    n_graders[rows] = verdicts.n_graders
    return ScoredAnswers(
        answer=answers.answer,
        question=answers.question,
        article=answers.article,
        system=answers.system,
        worker=answers.worker,
        score=score,
        tie=tie,
        n_graders=n_graders,
        tie_policy=verdicts.tie_policy,
    )
