"""Reading-comprehension campaigns' stored statistics: the share of questions answered
correctly per system (000 Table 3), per article and per question, question difficulty and
grader agreement (METHODS.md section 4; issue 14 item 4).

:func:`recompute_reading_comprehension` is what ``analytics.actions.recompute_campaign`` runs
for a reading-comprehension campaign (through the kind's ``recompute``), after every burst of
``judgments_recorded`` and from the sweep (:func:`stale_reading_comprehension_campaigns`). One
run:

1. moves the articles through their stages
   (``campaigns.kinds.reading_comprehension.stages.advance``: idempotent, under the campaign's
   lock, nothing while the campaign is paused), which builds the next stage's HITs;
2. loads the answers and grades (``analytics.kinds.reading_comprehension.loading``);
3. computes with the pure statistics (:func:`analyse_loaded_reading_comprehension`,
   ``analytics.stats.reading_comprehension``);
4. stores the results in one transaction (``analytics.kinds.reading_comprehension.store``).

What counts (our choices where 000 is silent, said where they are made):

- Answers and grades of rejected (or unconfirmed MTurk) assignments and of excluded workers
  stay stored and count nowhere. A grader who graded one answer twice (possible only through
  a second assignment) counts once, with the later grade.
- An answer's verdict is the majority of its counted grades; a tie scores 0.5 (the pure
  function's default, ``analytics.stats.reading_comprehension.grades`` says why); an answer
  nobody graded yet counts nowhere.
- The human translation is scored like a system and takes part in the significance tests and
  clusters (000 Table 3 lists it first), marked as the control everywhere.
- Variants: every question (000's figure, the default), or ``without_suspect``: the
  questions whose share correct on the human translation is below one half left out (the
  control readers saw a correct text, so such a question, or its sample answer, is suspect;
  ``question_difficulty``). Questions with no control answer are never suspect.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import held_back_count, newest_submitted_at
from analytics.kinds.reading_comprehension.loading import (
    REFERENCE,
    LoadedReadingComprehension,
    load_reading_comprehension,
    positions,
)
from analytics.kinds.reading_comprehension.store import store_reading_comprehension_results
from analytics.models import ReadingComprehensionResult, ReadingComprehensionWorkerStat
from analytics.stats.reading_comprehension import (
    Answers,
    Breakdown,
    GraderAgreement,
    GradeVerdicts,
    QuestionDifficulty,
    ScoredAnswers,
    SystemScores,
    TiePolicy,
    Unit,
    aggregate_grades,
    article_breakdown,
    grader_agreement,
    question_breakdown,
    question_difficulty,
    score_answers,
    system_scores,
)
from campaigns.models import Campaign, HitTask, TaskKind
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "RC_TASKS",
    "AnswerOutcomes",
    "RCAnalysis",
    "RCConfig",
    "RCVariant",
    "analyse_loaded_reading_comprehension",
    "answer_outcomes",
    "counted_grade_rows",
    "rc_config_for",
    "recompute_reading_comprehension",
    "stale_reading_comprehension_campaigns",
]

logger = logging.getLogger(__name__)

# The HIT tasks whose judgments a result reflects: all four stages (a question written or a
# vote moves an article on as much as an answer does).
RC_TASKS = (HitTask.RC_AUTHOR, HitTask.RC_SELECT, HitTask.RC_ANSWER, HitTask.RC_GRADE)


@dataclass(frozen=True)
class RCConfig:
    """The settings of one run. The campaign has none for the statistics (its settings shape
    the stages), so these are the pure functions' defaults: ties score 0.5, 1000 bootstrap
    samples over articles, 10000 relabellings for the permutation test (every labelling when
    there are no more), seed 0, 95% intervals, clusters at 0.05, suspect below one half."""

    tie: TiePolicy = "half"
    unit: Unit = "article"
    n_samples: int = 1000
    n_permutations: int = 10_000
    seed: int = 0
    level: float = 0.95
    alpha: float = 0.05
    suspect_below: float = 0.5
    without_suspect: bool = False


def rc_config_for(campaign: Campaign, *, without_suspect: bool = False) -> RCConfig:
    return RCConfig(without_suspect=without_suspect)


# --- Computing (pure) ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AnswerOutcomes:
    """Per loaded answer (``loaded.answer_id`` order): the counted grades' yes and no votes,
    the verdict's score (1, 0, the tie score; NaN without a grade), whether the graders were
    split, and whether the answer counts in the scores."""

    yes: NDArray[np.int64]
    no: NDArray[np.int64]
    score: NDArray[np.float64]
    tie: NDArray[np.bool_]
    counted: NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class RCVariant:
    """The scores over one variant's answers: ``systems`` None while no answer is graded."""

    scored: ScoredAnswers
    systems: SystemScores | None
    articles: Breakdown
    questions: Breakdown


@dataclass(frozen=True, eq=False)
class RCAnalysis:
    """Everything one run stores. ``question_*`` arrays are aligned to ``question_ids`` (every
    question with an answer read), ``worker`` arrays to ``workers`` (everyone with a judgment
    in any stage, sorted)."""

    config: RCConfig
    outcomes: AnswerOutcomes
    verdicts: GradeVerdicts  # of the counted answers
    agreement: GraderAgreement | None
    difficulty: QuestionDifficulty
    suspect_questions: NDArray[np.int64]
    variants: dict[bool, RCVariant]
    question_ids: NDArray[np.int64]
    question: dict[str, NDArray]
    workers: NDArray[np.int64]
    worker: dict[str, NDArray]


def counted_grade_rows(loaded: LoadedReadingComprehension) -> NDArray[np.int64]:
    """Rows of the grades that count, on answers to a known question; of two grades by one
    grader of one answer, the later (higher id) only."""
    known = loaded.answer_question >= 0
    rows = np.flatnonzero(loaded.counted_grades & known[np.maximum(loaded.grade_answer, 0)])
    if rows.size == 0:
        return rows
    keys = np.stack([loaded.grade_answer[rows], loaded.grade_worker[rows]], axis=1)
    # Last occurrence of each (answer, grader): unique over the reversed rows.
    _, first_reversed = np.unique(keys[::-1], axis=0, return_index=True)
    return np.sort(rows[::-1][first_reversed])


def _outcomes(
    loaded: LoadedReadingComprehension, grade_rows: NDArray[np.int64], tie: TiePolicy
) -> tuple[AnswerOutcomes, ScoredAnswers]:
    known = np.flatnonzero(loaded.answer_question >= 0)
    verdicts = aggregate_grades(
        loaded.answer_id[loaded.grade_answer[grade_rows]],
        loaded.grade_worker[grade_rows],
        loaded.grade_correct[grade_rows] == 1,
        tie=tie,
    )
    scored_known = score_answers(
        Answers(
            answer=loaded.answer_id[known],
            question=loaded.answer_question[known],
            article=loaded.answer_article[known],
            system=loaded.answer_system[known],
            worker=loaded.answer_worker[known],
        ),
        verdicts,
    )
    n = loaded.n_answers
    at = positions(loaded.answer_id, verdicts.answers)
    yes = np.zeros(n, dtype=np.int64)
    no = np.zeros(n, dtype=np.int64)
    yes[at], no[at] = verdicts.yes, verdicts.no
    score = np.full(n, np.nan)
    score[known] = scored_known.score
    tie_rows = np.zeros(n, dtype=bool)
    tie_rows[known] = scored_known.tie
    counted = loaded.counted_answers
    outcomes = AnswerOutcomes(yes=yes, no=no, score=score, tie=tie_rows, counted=counted)
    return outcomes, scored_known.subset(counted[known])


def _variant(scored: ScoredAnswers, config: RCConfig) -> RCVariant:
    systems = None
    if scored.scored.any():
        systems = system_scores(
            scored,
            reference=REFERENCE,
            unit=config.unit,
            n_samples=config.n_samples,
            n_permutations=config.n_permutations,
            seed=config.seed,
            level=config.level,
            alpha=config.alpha,
        )
    return RCVariant(
        scored=scored,
        systems=systems,
        articles=article_breakdown(scored),
        questions=question_breakdown(scored),
    )


def _per(index: NDArray[np.int64], m: int, weights: NDArray | None = None) -> NDArray:
    return np.bincount(index, weights=weights, minlength=m)


def _share(part: NDArray, whole: NDArray) -> NDArray[np.float64]:
    return np.divide(part, whole, out=np.full(whole.shape, np.nan), where=whole > 0)


def _grade_agreement(
    loaded: LoadedReadingComprehension,
    outcomes: AnswerOutcomes,
    grade_rows: NDArray[np.int64],
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Per loaded grade: whether it can be compared with the other graders' majority (a mark,
    on a known answer, the others not split) and whether it agrees with it. The counts are
    those of the counted grades, less the grade itself when it is one of them."""
    a = np.maximum(loaded.grade_answer, 0)
    mark = loaded.grade_correct == 1
    own = np.zeros(loaded.n_grades, dtype=bool)
    own[grade_rows] = True
    others_yes = outcomes.yes[a] - (own & mark)
    others_no = outcomes.no[a] - (own & ~mark)
    comparable = (
        (loaded.grade_answer >= 0) & ~np.isnan(loaded.grade_correct) & (others_yes != others_no)
    )
    return comparable, comparable & (mark == (others_yes > others_no))


def _workers(
    loaded: LoadedReadingComprehension, outcomes: AnswerOutcomes, grade_rows: NDArray[np.int64]
) -> tuple[NDArray[np.int64], dict[str, NDArray]]:
    workers = np.unique(
        np.concatenate([loaded.answer_worker, loaded.grade_worker, loaded.other_worker])
    )
    m = workers.shape[0]
    ai = np.searchsorted(workers, loaded.answer_worker)
    gi = np.searchsorted(workers, loaded.grade_worker)
    oi = np.searchsorted(workers, loaded.other_worker)
    # A worker's own work: every graded answer of theirs, counted in the scores or not.
    graded = ~np.isnan(outcomes.score)
    comparable, agreeing = _grade_agreement(loaded, outcomes, grade_rows)
    n_graded = _per(ai[graded], m).astype(np.int64)
    correct = _per(ai[graded], m, outcomes.score[graded])
    n_compared = _per(gi[comparable], m).astype(np.int64)
    n_agreeing = _per(gi[agreeing], m).astype(np.int64)
    excluded = np.isin(workers, loaded.excluded_workers)
    return workers, {
        "n_questions_written": _per(oi[loaded.other_is_question], m).astype(np.int64),
        "n_votes": _per(oi[~loaded.other_is_question], m).astype(np.int64),
        "n_answers": _per(ai, m).astype(np.int64),
        "n_answers_graded": n_graded,
        "answers_correct": correct,
        "share_correct": _share(correct, n_graded),
        "n_grades": _per(gi, m).astype(np.int64),
        "n_grades_compared": n_compared,
        "n_grades_agreeing": n_agreeing,
        "agreement": _share(n_agreeing, n_compared),
        "excluded": excluded,
        "n_rejected": (
            _per(ai[loaded.answer_rejected], m)
            + _per(gi[loaded.grade_rejected], m)
            + _per(oi[loaded.other_rejected], m)
        ).astype(np.int64),
        "in_scores": ~excluded,
    }


def _questions(
    loaded: LoadedReadingComprehension, outcomes: AnswerOutcomes, difficulty: QuestionDifficulty
) -> tuple[NDArray[np.int64], dict[str, NDArray]]:
    known = loaded.answer_question >= 0
    ids, qi = np.unique(loaded.answer_question[known], return_inverse=True)
    qi = qi.reshape(-1)
    m = ids.shape[0]
    counted = outcomes.counted[known]
    score = outcomes.score[known]
    graded = counted & ~np.isnan(score)
    at = positions(difficulty.questions, ids)
    has = at >= 0
    pick = np.maximum(at, 0)

    def from_difficulty(values: NDArray, missing: Any) -> NDArray:
        if difficulty.questions.size == 0:
            return np.full(m, missing)
        return np.where(has, values[pick], missing)

    article = np.zeros(m, dtype=np.int64)
    article[qi] = loaded.answer_article[known]
    return ids, {
        "article": article,
        "n_answers": _per(qi, m).astype(np.int64),
        "n_counted": _per(qi[counted], m).astype(np.int64),
        "n_graded": _per(qi[graded], m).astype(np.int64),
        "n_ties": _per(qi[graded & outcomes.tie[known]], m).astype(np.int64),
        "correct": _per(qi[graded], m, score[graded]),
        "reference_share": from_difficulty(difficulty.reference_share, np.nan),
        "reference_answers": from_difficulty(difficulty.reference_answers, 0).astype(np.int64),
        "mt_share": from_difficulty(difficulty.mt_share, np.nan),
        "mt_answers": from_difficulty(difficulty.mt_answers, 0).astype(np.int64),
        "suspect": from_difficulty(difficulty.suspect, False).astype(bool),
    }


def answer_outcomes(loaded: LoadedReadingComprehension, tie: TiePolicy = "half") -> AnswerOutcomes:
    """Every loaded answer's votes and verdict (for the API's answers and the exports)."""
    return _outcomes(loaded, counted_grade_rows(loaded), tie)[0]


def analyse_loaded_reading_comprehension(
    loaded: LoadedReadingComprehension, config: RCConfig
) -> RCAnalysis:
    """Run the statistics on a loaded campaign: pure, no database (module docstring)."""
    grade_rows = counted_grade_rows(loaded)
    outcomes, scored = _outcomes(loaded, grade_rows, config.tie)
    # Agreement over the grades of the answers in the scores.
    in_scores = outcomes.counted[loaded.grade_answer[grade_rows]]
    counted_grades = grade_rows[in_scores]
    verdicts = aggregate_grades(
        loaded.answer_id[loaded.grade_answer[counted_grades]],
        loaded.grade_worker[counted_grades],
        loaded.grade_correct[counted_grades] == 1,
        tie=config.tie,
    )
    agreement = grader_agreement(verdicts) if len(verdicts) else None
    difficulty = question_difficulty(scored, REFERENCE, suspect_below=config.suspect_below)
    suspect = difficulty.questions[difficulty.suspect]
    default = _variant(scored, config)
    keep = ~np.isin(scored.question, suspect)
    without = default if keep.all() else _variant(scored.subset(keep), config)
    question_ids, question = _questions(loaded, outcomes, difficulty)
    workers, worker = _workers(loaded, outcomes, grade_rows)
    return RCAnalysis(
        config=config,
        outcomes=outcomes,
        verdicts=verdicts,
        agreement=agreement,
        difficulty=difficulty,
        suspect_questions=suspect,
        variants={False: default, True: without},
        question_ids=question_ids,
        question=question,
        workers=workers,
        worker=worker,
    )


# --- The run ---------------------------------------------------------------------------------


def recompute_reading_comprehension(campaign: Campaign) -> ReadingComprehensionResult | None:
    """Advance the stages, load, compute and store (module docstring); None, with any stored
    results removed, while the campaign has no judgment in any stage."""
    from campaigns.kinds.reading_comprehension.stages import advance

    moved = advance(campaign)
    computed_at = timezone.now()
    started = time.perf_counter()
    loaded = load_reading_comprehension(campaign.pk)
    if loaded.n_read == 0:
        store_reading_comprehension_results(campaign, None, None, computed_at)
        return None
    config = rc_config_for(campaign)
    analysis = analyse_loaded_reading_comprehension(loaded, config)
    seconds = time.perf_counter() - started
    result, _ = store_reading_comprehension_results(
        campaign, loaded, analysis, computed_at, compute_seconds=seconds
    )
    logger.info(
        "Recomputed reading-comprehension campaign %s: %d answers, %d grades in %.3fs%s",
        campaign.pk,
        loaded.n_answers,
        loaded.n_grades,
        seconds,
        f" ({len(moved)} article(s) moved on)" if moved else "",
    )
    return result


# --- The periodic sweep ----------------------------------------------------------------------


def stale_reading_comprehension_campaigns() -> QuerySet[Campaign]:
    """Reading-comprehension campaigns whose stored results no longer match their data:
    judgments in any stage but no result; another number of them, or one newer than the
    result; another number in rejected assignments; a worker excluded or re-admitted since.
    One query."""
    judged = Judgment.objects.filter(
        campaign=OuterRef("pk"), slot__hit__task__in=RC_TASKS
    ).order_by()
    per_campaign = judged.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = newest_submitted_at(judged)
    n_rejected_now = held_back_count(judged)
    excluded_now = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    exclusion_changed = Exists(
        ReadingComprehensionWorkerStat.objects.filter(campaign=OuterRef("pk"))
        .annotate(excluded_now=Exists(excluded_now))
        .exclude(excluded=F("excluded_now"))
    )
    result = "rc_result"
    return (
        Campaign.objects.filter(kind=TaskKind.READING_COMPREHENSION)
        .alias(
            n_now=n_now,
            newest=newest,
            n_rejected_now=n_rejected_now,
            exclusion_changed=exclusion_changed,
        )
        .filter(
            Q(**{f"{result}__isnull": True}, n_now__gt=0)
            | Q(**{f"{result}__isnull": False})
            & (
                ~Q(**{f"{result}__n_judgments": F("n_now")})
                | Q(**{f"{result}__computed_at__lt": F("newest")})
                | ~Q(**{f"{result}__n_rejected_judgments": F("n_rejected_now")})
                | Q(exclusion_changed=True)
            )
        )
        .order_by("pk")
    )
