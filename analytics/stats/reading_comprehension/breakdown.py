"""Per-article and per-question shares correct, and question difficulty from the control.

Issue 14 item 4 asks for the score table broken down by article and by question, and for
question difficulty as the share correct on the reference translation.  000 section 5.3 had
"three Turkers answer the reading comprehension questions using the reference translation"
as a control and reports only the overall 0.94 (Table 3).

- :func:`article_breakdown` / :func:`question_breakdown`: a (groups x systems) table of
  share correct (scores summed over the answers, ties counted by the tie policy, divided by
  the number of scored answers; NaN where the system has no scored answer in the group) with
  the counts behind it.  Summing ``correct`` and ``n_answers`` over the groups gives
  :func:`~analytics.stats.reading_comprehension.system_scores`' ``correct`` and
  ``n_answers``.
- :func:`question_difficulty`: per question the share correct among the answers given on the
  reference translation (the readers saw a correct text, so a low share means the question or
  its sample answer is poor, not the MT), beside the share over the MT systems' answers.  000
  is silent on what to do with such questions; we flag those whose reference share is below
  ``suspect_below`` (default 0.5: most control readers failed it) and leave the decision to the
  requester, who can drop them with :meth:`~.answers.ScoredAnswers.subset` and rescore.  A
  question no control reader answered has a NaN reference share and is not flagged (unknown
  is not suspect).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.reading_comprehension.answers import ScoredAnswers

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "Breakdown",
    "QuestionDifficulty",
    "article_breakdown",
    "question_breakdown",
    "question_difficulty",
]


@dataclass(frozen=True, eq=False)
class Breakdown:
    """(groups x systems) tables aligned to ``groups`` (sorted article or question ids) and
    ``systems`` (sorted ids of the systems with scored answers); ``article``: each group's
    article (the group itself for the article breakdown)."""

    groups: NDArray[np.int64]
    article: NDArray[np.int64]
    systems: NDArray[np.int64]
    correct: NDArray[np.float64]
    n_answers: NDArray[np.int64]
    share: NDArray[np.float64]

    @property
    def overall_share(self) -> NDArray[np.float64]:
        """Per group, the share over every system's answers (NaN without answers)."""
        n = self.n_answers.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, self.correct.sum(axis=1) / n, np.nan)


def _table(scored: ScoredAnswers, group_col: NDArray[np.int64]) -> Breakdown:
    keep = scored.scored
    groups, g = np.unique(group_col[keep], return_inverse=True)
    g = g.reshape(-1)
    systems, s = np.unique(scored.system[keep], return_inverse=True)
    s = s.reshape(-1)
    ng, m = groups.shape[0], systems.shape[0]
    cell = g * m + s
    correct = np.bincount(cell, weights=scored.score[keep], minlength=ng * m).reshape(ng, m)
    n = np.bincount(cell, minlength=ng * m).reshape(ng, m).astype(np.int64)
    share = np.divide(correct, n, out=np.full((ng, m), np.nan), where=n > 0)
    article = np.zeros(ng, dtype=np.int64)
    article[g] = scored.article[keep]
    return Breakdown(
        groups=groups, article=article, systems=systems, correct=correct, n_answers=n, share=share
    )


def article_breakdown(scored: ScoredAnswers) -> Breakdown:
    """Share correct per (article, system)."""
    return _table(scored, scored.article)


def question_breakdown(scored: ScoredAnswers) -> Breakdown:
    """Share correct per (question, system); ``article`` says where each question is."""
    return _table(scored, scored.question)


@dataclass(frozen=True, eq=False)
class QuestionDifficulty:
    """Per question (sorted ids of the questions with scored answers), aligned: its
    ``article``, the share correct on the reference and its number of answers, the same over
    the MT systems' answers, and ``suspect`` (reference share below ``suspect_below``)."""

    questions: NDArray[np.int64]
    article: NDArray[np.int64]
    reference_share: NDArray[np.float64]
    reference_answers: NDArray[np.int64]
    mt_share: NDArray[np.float64]
    mt_answers: NDArray[np.int64]
    suspect: NDArray[np.bool_]
    suspect_below: float


def question_difficulty(
    scored: ScoredAnswers, reference: int, *, suspect_below: float = 0.5
) -> QuestionDifficulty:
    """Share correct per question on the ``reference`` system's translation, beside the share
    on the MT systems (module docstring)."""
    table = question_breakdown(scored)
    is_ref = table.systems == reference
    ref_correct = table.correct[:, is_ref].sum(axis=1)
    ref_n = table.n_answers[:, is_ref].sum(axis=1)
    mt_correct = table.correct[:, ~is_ref].sum(axis=1)
    mt_n = table.n_answers[:, ~is_ref].sum(axis=1)
    nq = table.groups.shape[0]
    ref_share = np.divide(ref_correct, ref_n, out=np.full(nq, np.nan), where=ref_n > 0)
    mt_share = np.divide(mt_correct, mt_n, out=np.full(nq, np.nan), where=mt_n > 0)
    suspect = np.less(ref_share, suspect_below, where=ref_n > 0, out=np.zeros(nq, dtype=bool))
    return QuestionDifficulty(
        questions=table.groups,
        article=table.article,
        reference_share=ref_share,
        reference_answers=ref_n,
        mt_share=mt_share,
        mt_answers=mt_n,
        suspect=suspect,
        suspect_below=suspect_below,
    )
