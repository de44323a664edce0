"""Storing a reading-comprehension campaign's results: the share correct per system of both
variants, the per-article and per-question breakdowns, each question's difficulty, the
workers and the result row with what does not fit a row, in one transaction
(:func:`store_reading_comprehension_results`, run by
``analytics.kinds.reading_comprehension.actions.recompute_reading_comprehension``)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import IntegrityError, transaction

from analytics.actions.common import json_safe
from analytics.kinds.reading_comprehension.loading import REFERENCE
from analytics.models import (
    ReadingComprehensionBreakdown,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionResult,
    ReadingComprehensionSystemScore,
    ReadingComprehensionWorkerStat,
    suspect_variant_key,
)
from campaigns.models import Campaign

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from analytics.kinds.reading_comprehension.actions import RCAnalysis, RCVariant
    from analytics.kinds.reading_comprehension.loading import LoadedReadingComprehension
    from analytics.stats.reading_comprehension import Breakdown, FleissResult

__all__ = ["store_reading_comprehension_results", "system_id", "system_positions"]

logger = logging.getLogger(__name__)


def _float(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def system_id(value: int) -> int | None:
    """A system of the statistics as stored: None for the human translation."""
    return None if int(value) == REFERENCE else int(value)


def system_positions(share: NDArray[np.float64], question_mean: NDArray[np.float64]):
    """Position of each system, 1 = highest share correct (then highest question mean; ties
    in the arrays' order: the human translation first, then by id)."""
    order = np.lexsort((np.arange(share.shape[0]), -question_mean, -share))
    out = np.empty(order.shape[0], dtype=np.int64)
    out[order] = np.arange(1, order.shape[0] + 1)
    return out


def _system_rows(campaign: Campaign, variant: RCVariant, without: bool) -> list:
    s = variant.systems
    if s is None:
        return []
    position = system_positions(s.share, s.question_mean)
    return [
        ReadingComprehensionSystemScore(
            campaign=campaign,
            system_id=system_id(s.systems[i]),
            is_reference=bool(s.is_reference[i]),
            without_suspect=without,
            position=int(position[i]),
            n_answers=int(s.n_answers[i]),
            n_ties=int(s.n_ties[i]),
            n_questions=int(s.n_questions[i]),
            n_articles=int(s.n_articles[i]),
            n_readings=int(s.n_readings[i]),
            n_workers=int(s.n_workers[i]),
            correct=float(s.correct[i]),
            share=float(s.share[i]),
            share_ci_low=_float(s.share_ci_low[i]),
            share_ci_high=_float(s.share_ci_high[i]),
            question_mean=float(s.question_mean[i]),
            question_mean_ci_low=_float(s.question_mean_ci_low[i]),
            question_mean_ci_high=_float(s.question_mean_ci_high[i]),
            cluster=int(s.clusters[i]),
            rank_best=int(s.rank_best[i]),
            rank_worst=int(s.rank_worst[i]),
        )
        for i in range(s.systems.shape[0])
    ]


def _tie_table(variant: RCVariant, groups: NDArray, group_col: NDArray, table: Breakdown):
    """(groups x systems) count of tied answers among the variant's scored answers."""
    scored = variant.scored
    ties = scored.scored & scored.tie
    g = np.searchsorted(table.groups, group_col[ties])
    s = np.searchsorted(table.systems, scored.system[ties])
    m = table.systems.shape[0]
    n = groups.shape[0]
    return np.bincount(g * m + s, minlength=n * m).reshape(n, m)


def _breakdown_rows(campaign: Campaign, variant: RCVariant, without: bool) -> list:
    rows = []
    scored = variant.scored
    for table, column, per_question in (
        (variant.articles, scored.article, False),
        (variant.questions, scored.question, True),
    ):
        ties = _tie_table(variant, table.groups, column, table)
        for g, s in zip(*np.nonzero(table.n_answers), strict=True):
            rows.append(
                ReadingComprehensionBreakdown(
                    campaign=campaign,
                    document_id=int(table.article[g]),
                    question_id=int(table.groups[g]) if per_question else None,
                    system_id=system_id(table.systems[s]),
                    is_reference=int(table.systems[s]) == REFERENCE,
                    without_suspect=without,
                    correct=float(table.correct[g, s]),
                    n_answers=int(table.n_answers[g, s]),
                    n_ties=int(ties[g, s]),
                )
            )
    return rows


def _question_rows(campaign: Campaign, analysis: RCAnalysis) -> list:
    q = analysis.question
    return [
        ReadingComprehensionQuestionStat(
            campaign=campaign,
            question_id=int(question),
            n_answers=int(q["n_answers"][i]),
            n_counted=int(q["n_counted"][i]),
            n_graded=int(q["n_graded"][i]),
            n_ties=int(q["n_ties"][i]),
            correct=float(q["correct"][i]),
            reference_share=_float(q["reference_share"][i]),
            reference_answers=int(q["reference_answers"][i]),
            mt_share=_float(q["mt_share"][i]),
            mt_answers=int(q["mt_answers"][i]),
            suspect=bool(q["suspect"][i]),
        )
        for i, question in enumerate(analysis.question_ids.tolist())
    ]


def _worker_rows(campaign: Campaign, analysis: RCAnalysis) -> list:
    w = analysis.worker
    return [
        ReadingComprehensionWorkerStat(
            campaign=campaign,
            worker_id=int(worker),
            n_questions_written=int(w["n_questions_written"][i]),
            n_votes=int(w["n_votes"][i]),
            n_answers=int(w["n_answers"][i]),
            n_answers_graded=int(w["n_answers_graded"][i]),
            answers_correct=float(w["answers_correct"][i]),
            share_correct=_float(w["share_correct"][i]),
            n_grades=int(w["n_grades"][i]),
            n_grades_compared=int(w["n_grades_compared"][i]),
            n_grades_agreeing=int(w["n_grades_agreeing"][i]),
            agreement=_float(w["agreement"][i]),
            excluded=bool(w["excluded"][i]),
            n_rejected_judgments=int(w["n_rejected"][i]),
            in_scores=bool(w["in_scores"][i]),
        )
        for i, worker in enumerate(analysis.workers.tolist())
    ]


def _fleiss(result: FleissResult) -> dict[str, Any]:
    return {
        "n_items": result.n_items,
        "n_ratings": result.n_ratings,
        "pr_a": result.pr_a,
        "pr_e": result.pr_e,
        "kappa": result.kappa,
        "category_shares": list(result.category_shares),
    }


def _variant_details(variant: RCVariant) -> dict[str, Any]:
    s = variant.systems
    scored = variant.scored
    graded = scored.scored
    return {
        "n_answers": int(np.count_nonzero(graded)),
        "n_questions": int(np.unique(scored.question[graded]).shape[0]),
        "n_articles": int(np.unique(scored.article[graded]).shape[0]),
        "systems": [] if s is None else [system_id(pk) for pk in s.systems],
        "p_better": [] if s is None else s.p_better,
        "p_exact": [] if s is None else s.p_exact,
    }


def _details(analysis: RCAnalysis) -> dict[str, Any]:
    config = analysis.config
    details: dict[str, Any] = {
        suspect_variant_key(without): _variant_details(variant)
        for without, variant in analysis.variants.items()
    }
    agreement = analysis.agreement
    details["agreement"] = (
        None
        if agreement is None
        else {
            "graders_per_answer": [list(pair) for pair in agreement.graders_per_answer],
            "modal_graders": agreement.modal_graders,
            "fleiss": _fleiss(agreement.fleiss),
            "generalised": _fleiss(agreement.generalised),
        }
    )
    details["test"] = {
        "tie_policy": config.tie,
        "unit": config.unit,
        "samples": config.n_samples,
        "permutations": config.n_permutations,
        "seed": config.seed,
        "level": config.level,
        "alpha": config.alpha,
        "suspect_below": config.suspect_below,
        "test": "stratified permutation over readings",
    }
    details["suspect_questions"] = analysis.suspect_questions
    return json_safe(details)


def store_reading_comprehension_results(
    campaign: Campaign,
    loaded: LoadedReadingComprehension | None,
    analysis: RCAnalysis | None,
    computed_at: datetime,
    *,
    compute_seconds: float = 0.0,
) -> tuple[ReadingComprehensionResult | None, bool]:
    """Replace the campaign's stored results in one transaction; ``(result, stored)``. With
    ``analysis`` None (nothing to compute) the stored results are removed.

    As the other kinds: the result row is locked first, a store of data read before the
    stored result's is dropped (``stored`` False, the newer result returned), and two
    first-ever stores racing on the unique row retry once.
    """
    for attempt in (1, 2):
        try:
            return _store(campaign, loaded, analysis, computed_at, compute_seconds)
        except IntegrityError:
            exists = ReadingComprehensionResult.objects.filter(campaign=campaign).exists()
            if attempt == 2 or not exists:
                raise
    raise AssertionError("unreachable")


RESULT_TABLES = (
    ReadingComprehensionWorkerStat,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionBreakdown,
    ReadingComprehensionSystemScore,
)


def _store(campaign, loaded, analysis, computed_at, compute_seconds):
    with transaction.atomic():
        result = (
            ReadingComprehensionResult.objects.select_for_update().filter(campaign=campaign).first()
        )
        if result is not None and result.computed_at > computed_at:
            logger.info("Campaign %s already has newer reading-comprehension results", campaign.pk)
            return result, False
        for table in RESULT_TABLES:
            table.objects.filter(campaign=campaign).delete()
        if analysis is None:
            ReadingComprehensionResult.objects.filter(campaign=campaign).delete()
            return None, True
        default = analysis.variants[False]
        outcomes = analysis.outcomes
        counted_grades = int(np.sum(analysis.verdicts.n_graders))
        agreement = analysis.agreement
        fields = {
            "computed_at": computed_at,
            "n_judgments": loaded.n_read,
            "n_scored_judgments": int(np.count_nonzero(outcomes.counted)) + counted_grades,
            "n_rejected_judgments": loaded.n_rejected_read,
            "n_workers": int(analysis.workers.shape[0]),
            "n_answers": loaded.n_answers,
            "n_grades": loaded.n_grades,
            "n_graded_answers": int(np.count_nonzero(default.scored.scored)),
            "n_ties": int(np.count_nonzero(default.scored.scored & default.scored.tie)),
            "n_questions": int(np.unique(default.scored.question[default.scored.scored]).size),
            "n_suspect": int(analysis.suspect_questions.shape[0]),
            "tie_policy": analysis.config.tie,
            "fleiss_kappa": None if agreement is None else _float(agreement.fleiss.kappa),
            "compute_seconds": compute_seconds,
            "details": _details(analysis),
        }
        ReadingComprehensionWorkerStat.objects.bulk_create(
            _worker_rows(campaign, analysis), batch_size=1000
        )
        ReadingComprehensionQuestionStat.objects.bulk_create(
            _question_rows(campaign, analysis), batch_size=1000
        )
        ReadingComprehensionBreakdown.objects.bulk_create(
            [
                row
                for without, variant in analysis.variants.items()
                for row in _breakdown_rows(campaign, variant, without)
            ],
            batch_size=1000,
        )
        ReadingComprehensionSystemScore.objects.bulk_create(
            [
                row
                for without, variant in analysis.variants.items()
                for row in _system_rows(campaign, variant, without)
            ],
            batch_size=1000,
        )
        if result is None:
            result = ReadingComprehensionResult.objects.create(campaign=campaign, **fields)
        else:
            for name, value in fields.items():
                setattr(result, name, value)
            result.save()
    return result, True
