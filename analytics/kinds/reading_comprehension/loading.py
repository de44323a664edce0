"""Glue: load one reading-comprehension campaign's answers and grades as numpy arrays.

:func:`load_reading_comprehension` runs one ``values_list`` per table, as the other kinds'
loaders do (``analytics.loading``; judgments are read three times: answers, grades, and the
questions and votes of the first two stages), and joins in numpy (sorted ids +
``searchsorted``). No text is read.

- Answers: every judgment on an answering slot (``HitTask.RC_ANSWER``), in id (submission)
  order, with the question its slot asks (``RCQuestionSlot``), the article (``hit.document``)
  and the system whose translation was read (``hit.system``; the human translation, the
  control, is :data:`REFERENCE`, since it is no System row), and per-row masks ``rejected``
  (a rejected, or unconfirmed MTurk, assignment) and ``excluded`` (the requester excluded the
  worker). Such answers stay loaded (exports list them) and count in no score.
- Grades: every judgment on a grading slot, with the answer it grades (``grade_answer``: the
  answer's row, -1 when that answer is not loaded) and the mark (1/0, NaN when missing), with
  the same masks.
- Questions and votes: who wrote questions and who voted (the worker table's first columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.loading import held_back_assignment_ids, id_array
from campaigns.models import HitTask
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["REFERENCE", "LoadedReadingComprehension", "load_reading_comprehension"]

# The human translation's system id in the arrays and the pure statistics: System ids start
# at 1 (PostgreSQL and SQLite alike), so 0 is nobody's.
REFERENCE = 0


def positions(sorted_ids: NDArray[np.int64], wanted: NDArray[np.int64]) -> NDArray[np.int64]:
    """Position of each wanted id in ``sorted_ids``, -1 where it is not there."""
    if sorted_ids.size == 0:
        return np.full(wanted.shape, -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(sorted_ids, wanted), sorted_ids.shape[0] - 1)
    return np.where(sorted_ids[pos] == wanted, pos, -1).astype(np.int64)


def _table(rows: list[tuple], width: int) -> NDArray[np.float64]:
    """Rows of numbers (NULL as NaN, booleans as 0/1) as a float matrix, converted in C."""
    return np.array(rows, dtype=np.float64).reshape(-1, width)


def _ids(column: NDArray[np.float64], missing: int) -> NDArray[np.int64]:
    return np.where(np.isnan(column), missing, column).astype(np.int64)


@dataclass(frozen=True, eq=False)
class LoadedReadingComprehension:
    """A reading-comprehension campaign's answers, grades and first-stage judgments (module
    docstring). Per-answer arrays are aligned to ``answer_id`` (sorted), per-grade ones to
    ``grade_id`` (sorted), per first-stage judgment to ``other_worker``."""

    campaign_id: int
    # Answers
    answer_id: NDArray[np.int64]
    answer_worker: NDArray[np.int64]
    answer_question: NDArray[np.int64]  # RCQuestion id; -1 for a slot without one
    answer_article: NDArray[np.int64]  # Document id
    answer_system: NDArray[np.int64]  # System id, or REFERENCE
    answer_rejected: NDArray[np.bool_]
    answer_excluded: NDArray[np.bool_]
    # Grades
    grade_id: NDArray[np.int64]
    grade_worker: NDArray[np.int64]
    grade_answer: NDArray[np.int64]  # row in the answer arrays, -1 when not loaded
    grade_correct: NDArray[np.float64]  # 1/0, NaN when missing
    grade_rejected: NDArray[np.bool_]
    grade_excluded: NDArray[np.bool_]
    # Questions written and votes (stages 1 and 2)
    other_worker: NDArray[np.int64]
    other_is_question: NDArray[np.bool_]  # True: a question written; False: a vote
    other_rejected: NDArray[np.bool_]
    excluded_workers: NDArray[np.int64]

    @property
    def n_answers(self) -> int:
        return int(self.answer_id.shape[0])

    @property
    def n_grades(self) -> int:
        return int(self.grade_id.shape[0])

    @property
    def n_read(self) -> int:
        """Judgments of the four stages read (what the stored result reflects)."""
        return self.n_answers + self.n_grades + int(self.other_worker.shape[0])

    @property
    def n_rejected_read(self) -> int:
        return int(
            np.count_nonzero(self.answer_rejected)
            + np.count_nonzero(self.grade_rejected)
            + np.count_nonzero(self.other_rejected)
        )

    @property
    def counted_answers(self) -> NDArray[np.bool_]:
        """Answers that count: to a known question, not rejected, not of an excluded worker."""
        return (self.answer_question >= 0) & ~(self.answer_rejected | self.answer_excluded)

    @property
    def counted_grades(self) -> NDArray[np.bool_]:
        """Grades that count: of a loaded answer, with a mark, not rejected or excluded (of any
        answer, counted or not: the exports show every answer's votes)."""
        return (
            (self.grade_answer >= 0)
            & ~np.isnan(self.grade_correct)
            & ~(self.grade_rejected | self.grade_excluded)
        )


def load_reading_comprehension(campaign_id: int) -> LoadedReadingComprehension:
    """Load campaign ``campaign_id``'s answers and grades (five queries)."""
    answer_rows = list(
        Judgment.objects.filter(campaign_id=campaign_id, slot__hit__task=HitTask.RC_ANSWER)
        .order_by("id")
        .values_list(
            "id",
            "worker_id",
            "assignment_id",
            "slot__rc_question__question_id",
            "slot__hit__document_id",
            "slot__hit__system_id",
        )
    )
    grade_rows = list(
        Judgment.objects.filter(campaign_id=campaign_id, slot__hit__task=HitTask.RC_GRADE)
        .order_by("id")
        .values_list("id", "worker_id", "assignment_id", "slot__about_judgment_id", "yes_no")
    )
    other_rows = [
        (worker, assignment, task == HitTask.RC_AUTHOR)
        for worker, assignment, task in Judgment.objects.filter(
            campaign_id=campaign_id, slot__hit__task__in=(HitTask.RC_AUTHOR, HitTask.RC_SELECT)
        )
        .order_by("id")
        .values_list("worker_id", "assignment_id", "slot__hit__task")
    ]
    held_back = held_back_assignment_ids(campaign_id)
    excluded_workers = id_array(
        list(
            CampaignWorker.objects.filter(campaign_id=campaign_id, excluded=True)
            .order_by("worker_id")
            .values_list("worker_id", flat=True)
        )
    )

    answers = _table(answer_rows, 6)
    answer_id = answers[:, 0].astype(np.int64)
    answer_worker = answers[:, 1].astype(np.int64)
    grades = _table(grade_rows, 5)
    grade_worker = grades[:, 1].astype(np.int64)
    others = _table(other_rows, 3)
    other_worker = others[:, 0].astype(np.int64)
    return LoadedReadingComprehension(
        campaign_id=campaign_id,
        answer_id=answer_id,
        answer_worker=answer_worker,
        answer_question=_ids(answers[:, 3], -1),
        answer_article=_ids(answers[:, 4], -1),
        answer_system=_ids(answers[:, 5], REFERENCE),
        answer_rejected=np.isin(answers[:, 2].astype(np.int64), held_back),
        answer_excluded=np.isin(answer_worker, excluded_workers),
        grade_id=grades[:, 0].astype(np.int64),
        grade_worker=grade_worker,
        grade_answer=positions(answer_id, _ids(grades[:, 3], -1)),
        grade_correct=grades[:, 4],
        grade_rejected=np.isin(grades[:, 2].astype(np.int64), held_back),
        grade_excluded=np.isin(grade_worker, excluded_workers),
        other_worker=other_worker,
        other_is_question=others[:, 2].astype(bool),
        other_rejected=np.isin(others[:, 1].astype(np.int64), held_back),
        excluded_workers=excluded_workers,
    )
