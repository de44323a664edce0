"""Reading comprehension's results panel on a campaign's admin page: what it shows, read from
the stored results (and the articles' live stages) in a fixed number of queries, never
computed on a page view.

:func:`rc_results_context` is the template's context (``r``) of
``analytics/kinds/reading_comprehension/results_panel.html``: progress and freshness, each
article's stage and progress, the system table (share correct with its interval, answers,
rank range, cluster; the human translation marked as the control), the share correct per
article and per question, question difficulty with suspect questions marked, the graders'
agreement (kappa and ties), and the workers with the exclude / re-admit form.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from analytics.kinds.reading_comprehension.actions import RC_TASKS
from analytics.kinds.reading_comprehension.progress import article_progress
from analytics.models import (
    REFERENCE_LABEL,
    ReadingComprehensionBreakdown,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionResult,
    ReadingComprehensionSystemScore,
    ReadingComprehensionWorkerStat,
    suspect_variant_key,
)
from analytics.panels import Progress, number, workers_url
from campaigns.kinds.reading_comprehension.models import RCQuestion, RCQuestionStatus
from campaigns.models import Campaign
from judgments.models import CampaignWorker, Judgment

__all__ = ["percent", "rc_results_context", "share_cell"]


def percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def share_cell(correct: float, n: int) -> str:
    """The share with what it is made of, e.g. "62.5% (2.5/4)" (a tie adds 0.5)."""
    return f"{100 * correct / n:.1f}% ({correct:g}/{n})" if n else "–"


def _interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return "–"
    return f"{100 * low:.1f}–{100 * high:.1f}%"


def _system_row(score: ReadingComprehensionSystemScore) -> dict[str, Any]:
    return {
        "key": score.system_id,
        "rank_range": score.rank_range,
        "system": score.label,
        "is_reference": score.is_reference,
        "share": percent(score.share),
        "interval": _interval(score.share_ci_low, score.share_ci_high),
        "question_mean": percent(score.question_mean),
        "correct": f"{score.correct:g}",
        "n_answers": score.n_answers,
        "n_ties": score.n_ties,
        "n_readings": score.n_readings,
        "n_articles": score.n_articles,
        "cluster": score.cluster,
    }


def _worker_row(stat: ReadingComprehensionWorkerStat, excluded_now: set[int]) -> dict[str, Any]:
    return {
        "id": stat.worker_id,
        "worker": stat.worker.external_id,
        "platform": stat.worker.get_platform_display(),
        # Direct links: the requester's note on whom the link was for, so that the
        # worker to exclude can be found (the pseudonymous id says nothing).
        "label": stat.worker.label,
        "n_questions_written": stat.n_questions_written,
        "n_votes": stat.n_votes,
        "n_answers": stat.n_answers,
        "share_correct": percent(stat.share_correct),
        "answers_correct": f"{stat.answers_correct:g}/{stat.n_answers_graded}"
        if stat.n_answers_graded
        else "",
        "n_grades": stat.n_grades,
        "agreement": percent(stat.agreement),
        "agreeing": f"{stat.n_grades_agreeing}/{stat.n_grades_compared}"
        if stat.n_grades_compared
        else "",
        "excluded": stat.worker_id in excluded_now,
        "excluded_pending": (stat.worker_id in excluded_now) != stat.excluded,
        "n_rejected": stat.n_rejected_judgments,
    }


def _cells(rows, columns: list[Any]) -> dict[Any, list[str]]:
    """Per article (or question) the cells of ``columns`` (systems by their key)."""
    by_group: dict[Any, dict[Any, str]] = defaultdict(dict)
    for row in rows:
        group = row.question_id if row.question_id is not None else row.document_id
        by_group[group][row.system_id] = share_cell(row.correct, row.n_answers)
    return {group: [cells.get(key, "–") for key in columns] for group, cells in by_group.items()}


def _agreement(result: ReadingComprehensionResult | None) -> dict[str, Any] | None:
    stored = (result.details.get("agreement") if result else None) or None
    if stored is None:
        return None
    fleiss, generalised = stored["fleiss"], stored["generalised"]
    return {
        "modal_graders": stored["modal_graders"],
        "kappa": number(fleiss["kappa"], ".3f"),
        "pr_a": number(fleiss["pr_a"], ".3f"),
        "pr_e": number(fleiss["pr_e"], ".3f"),
        "n_items": fleiss["n_items"],
        "generalised_kappa": number(generalised["kappa"], ".3f"),
        "generalised_items": generalised["n_items"],
        "graders_per_answer": [
            {"graders": graders, "answers": answers}
            for graders, answers in stored["graders_per_answer"]
        ],
    }


def _questions(campaign: Campaign, cells: dict, stats: dict, n_columns: int) -> list[dict]:
    rows = []
    for question in RCQuestion.objects.filter(campaign=campaign).select_related("document"):
        stat = stats.get(question.pk)
        rows.append(
            {
                "article": question.document.external_id,
                "number": question.number,
                "text": question.text,
                "sample_answer": question.sample_answer,
                "status": question.get_status_display(),
                "kept": question.status == RCQuestionStatus.KEPT,
                "votes": "–"
                if question.votes is None
                else f"{question.good_votes} of {question.votes} good",
                "n_answers": stat.n_graded if stat else 0,
                "n_ties": stat.n_ties if stat else 0,
                "reference_share": percent(stat.reference_share) if stat else "–",
                "reference_answers": stat.reference_answers if stat else 0,
                "mt_share": percent(stat.mt_share) if stat else "–",
                "suspect": bool(stat and stat.suspect),
                "cells": cells.get(question.pk, ["–"] * n_columns),
            }
        )
    return rows


def rc_results_context(campaign: Campaign, without_suspect: bool) -> dict[str, Any]:
    """What the reading-comprehension panel shows (eleven queries whatever the campaign's
    size)."""
    result = ReadingComprehensionResult.objects.filter(campaign=campaign).first()
    n_now = Judgment.objects.filter(campaign=campaign, slot__hit__task__in=RC_TASKS).count()
    articles = article_progress(campaign)
    scores = list(
        ReadingComprehensionSystemScore.objects.filter(
            campaign=campaign, without_suspect=without_suspect
        )
        .select_related("system")
        .order_by("position")
    )
    columns = [score.system_id for score in scores]
    breakdown = list(
        ReadingComprehensionBreakdown.objects.filter(
            campaign=campaign, without_suspect=without_suspect
        ).order_by()
    )
    article_cells = _cells([row for row in breakdown if row.question_id is None], columns)
    question_cells = _cells([row for row in breakdown if row.question_id is not None], columns)
    stats = {
        stat.question_id: stat
        for stat in ReadingComprehensionQuestionStat.objects.filter(campaign=campaign).order_by()
    }
    excluded_now = set(
        CampaignWorker.objects.filter(campaign=campaign, excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    workers = [
        _worker_row(stat, excluded_now)
        for stat in ReadingComprehensionWorkerStat.objects.filter(campaign=campaign)
        .select_related("worker")
        .order_by("worker__external_id")
    ]
    questions = _questions(campaign, question_cells, stats, len(columns))
    n_done = sum(article.done for article in articles)
    variant = result.variant(without_suspect) if result else {}
    return {
        "campaign": campaign,
        "result": result,
        "variant_key": suspect_variant_key(without_suspect),
        "without_suspect": without_suspect,
        "reference_label": REFERENCE_LABEL,
        "progress": Progress(done=n_done, needed=len(articles)),
        "n_judgments_now": n_now,
        "pending": result is None
        or result.n_judgments != n_now
        or any(row["excluded_pending"] for row in workers),
        "articles": [
            {
                "article": article.article,
                "stage": article.stage,
                "stage_label": article.stage_label,
                "hits": f"{article.hits_done} of {article.hits}" if article.hits else "–",
                "places": f"{article.places_done} of {article.places}" if article.places else "–",
                "questions": f"{article.n_kept} kept of {article.n_questions}"
                if article.n_questions
                else "–",
                "cells": article_cells.get(article.document_id, ["–"] * len(columns)),
            }
            for article in articles
        ],
        "systems": [_system_row(score) for score in scores],
        "questions": questions,
        "n_suspect": sum(1 for row in questions if row["suspect"]),
        "n_answers_included": variant.get("n_answers"),
        "n_questions_included": variant.get("n_questions"),
        "agreement": _agreement(result),
        "test": result.details.get("test", {}) if result else {},
        "workers": workers,
        "workers_url": workers_url(campaign),
    }
