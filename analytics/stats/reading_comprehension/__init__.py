"""Pure statistics for reading-comprehension evaluation of MT; numpy/scipy, no Django.

Sources: Callison-Burch (2009), "Fast, Cheap, and Creative" (EMNLP), section 5.3, Table 3 and
Appendix A [000]; /work/shared/METHODS.md section 4; issue 14 items 3 and 4.  000's procedure:
workers write questions with sample answers on the human translation, others select the good,
non-redundant ones, others answer them after reading one system's translation (the system
chosen at random, never two translations of one article per worker, the reference translation
as a control), and others grade every answer against the sample answer; the score is "the
percentage of questions that were answered correctly for each system" (000 Table 3:
reference 0.94 ... jhu-tromble 0.50).  000 gives no intervals, no significance test, no
grader agreement and no rule for combining grades; the choices made here are in each module's
docstring.

Inputs: grades, one row per (answer, grader, correct yes/no), and :class:`Answers`, one row per
answer (answer, question, article, system, worker).  Steps (each usable alone):

- :func:`aggregate_grades` -> :class:`GradeVerdicts`: yes/no counts, majority verdict and tie
  flag per answer, and the score each answer contributes (a tie scores 0.5 by default;
  ``tie="incorrect" | "correct" | "exclude"``).
- :func:`score_answers` -> :class:`ScoredAnswers`: the answers with their scores (NaN when
  ungraded); :meth:`ScoredAnswers.subset` drops rows (e.g. suspect questions).
- :func:`system_scores` -> :class:`SystemScores`: share correct over answers (000's figure)
  and the mean of per-question shares, percentile bootstrap intervals over articles (or
  questions), a stratified permutation test between every pair of systems
  (:func:`pairwise_permutation`), WMT-style clusters and rank ranges
  (:mod:`analytics.stats.significance`).
- :func:`article_breakdown`, :func:`question_breakdown` -> :class:`Breakdown`: share correct
  per (article | question, system); :func:`question_difficulty`: share correct on the
  reference per question, suspect questions flagged.
- :func:`grader_agreement` -> :class:`GraderAgreement`: Fleiss' kappa at the modal number of
  graders and Gwet's generalisation to unequal numbers (:func:`gwet_fleiss_kappa`).
"""

from analytics.stats.reading_comprehension.agreement import (
    FleissResult,
    GraderAgreement,
    fleiss_kappa,
    grader_agreement,
    gwet_fleiss_kappa,
)
from analytics.stats.reading_comprehension.answers import Answers, ScoredAnswers, score_answers
from analytics.stats.reading_comprehension.breakdown import (
    Breakdown,
    QuestionDifficulty,
    article_breakdown,
    question_breakdown,
    question_difficulty,
)
from analytics.stats.reading_comprehension.grades import (
    TIE_POLICIES,
    GradeVerdicts,
    TiePolicy,
    aggregate_grades,
    tie_score,
)
from analytics.stats.reading_comprehension.system import (
    UNITS,
    PairwisePermutation,
    SystemScores,
    Unit,
    pairwise_permutation,
    system_scores,
)

__all__ = [
    "TIE_POLICIES",
    "UNITS",
    "Answers",
    "Breakdown",
    "FleissResult",
    "GradeVerdicts",
    "GraderAgreement",
    "PairwisePermutation",
    "QuestionDifficulty",
    "ScoredAnswers",
    "SystemScores",
    "TiePolicy",
    "Unit",
    "aggregate_grades",
    "article_breakdown",
    "fleiss_kappa",
    "grader_agreement",
    "gwet_fleiss_kappa",
    "pairwise_permutation",
    "question_breakdown",
    "question_difficulty",
    "score_answers",
    "system_scores",
    "tie_score",
]
