"""Reading comprehension's own API endpoints (``AnalyticsKind.api_urls``).

- ``campaigns/<id>/questions/``: every question with its article, number, text, sample
  answer, origin, selection status and votes, its difficulty (share correct on the human
  translation and on MT, suspect) and its share correct per system in the chosen variant
  (``?without_suspect=1``); ``?status=`` narrows.
- ``campaigns/<id>/answers/``: every answer, page by page, in submission order, with its
  question, article, system, worker, the grades given to it (who, correct or not, counted or
  not), the votes and the verdict; ``?question=``, ``?article=``, ``?system=``,
  ``?reference=`` (true: the human translation's answers) and ``?verdict=`` narrow.
- ``campaigns/<id>/articles/``: every article's stage and progress, its questions, and its
  share correct per system in the chosen variant.
- ``campaigns/<id>/export/answers.csv`` and ``.../answers.jsonl``: every answer with its
  question, sample answer, article, system, worker, votes and verdict, streamed.

Who may read: as every endpoint (``analytics.api.permissions``): a campaign the user may not
read is a 404. A campaign of another kind has no questions, answers or articles: empty
lists and files. The votes and verdicts come from the judgments, loaded once per request
(``analytics.kinds.reading_comprehension.loading``), with the recompute's rules (excluded
workers and rejected assignments do not count); the shares from the stored results.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.http import StreamingHttpResponse
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics import export_formats as formats
from analytics.api.exports import ERRORS, ExportView, _attachment
from analytics.api.pagination import PageNumberPagination
from analytics.api.permissions import get_visible_campaign
from analytics.api.serializers import ERROR_RESPONSES
from analytics.kinds.reading_comprehension.actions import (
    AnswerOutcomes,
    answer_outcomes,
    counted_grade_rows,
)
from analytics.kinds.reading_comprehension.loading import (
    REFERENCE,
    LoadedReadingComprehension,
    load_reading_comprehension,
)
from analytics.kinds.reading_comprehension.progress import article_progress
from analytics.kinds.reading_comprehension.serializers import (
    ANSWERS_PARAMETERS,
    ANSWERS_RESPONSE,
    ARTICLES_RESPONSE,
    QUESTIONS_RESPONSE,
    AnswersParams,
    QuestionsParams,
    VariantParams,
)
from analytics.models import (
    REFERENCE_LABEL,
    ReadingComprehensionBreakdown,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionResult,
)
from campaigns.kinds.reading_comprehension.models import RCQuestion
from campaigns.models import Campaign, HitTask
from judgments.models import Judgment

__all__ = ["ANSWER_COLUMNS", "VERDICTS", "answer_rows", "urlpatterns", "verdicts"]

logger = logging.getLogger(__name__)

VERDICTS = ("ungraded", "correct", "incorrect", "tie")  # codes 0..3


def verdicts(outcomes: AnswerOutcomes) -> np.ndarray:
    """Per answer the code of its verdict in :data:`VERDICTS`."""
    graded = ~np.isnan(outcomes.score)
    return np.select(
        [~graded, outcomes.tie, outcomes.yes > outcomes.no], [0, 3, 1], default=2
    ).astype(np.int64)


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _system(system_id: int | None, name: str | None) -> tuple[int | None, str, bool]:
    """(id, name, is the human translation) of an answering HIT's system."""
    if system_id is None:
        return None, REFERENCE_LABEL, True
    return system_id, name or "", False


def _computed_at(campaign: Campaign) -> Any:
    return (
        ReadingComprehensionResult.objects.filter(campaign=campaign)
        .values_list("computed_at", flat=True)
        .first()
    )


def _cells(rows) -> dict[Any, list[dict[str, Any]]]:
    cells: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        system_id, name, is_reference = _system(row.system_id, getattr(row.system, "name", ""))
        cells[row.question_id if row.question_id is not None else row.document_id].append(
            {
                "system_id": system_id,
                "system": name,
                "is_reference": is_reference,
                "correct": row.correct,
                "n_answers": row.n_answers,
                "n_ties": row.n_ties,
                "share": row.share,
            }
        )
    return cells


def _variant_rows(campaign: Campaign, without_suspect: bool, *, questions: bool, ids: list):
    rows = ReadingComprehensionBreakdown.objects.filter(
        campaign=campaign, without_suspect=without_suspect, question__isnull=not questions
    ).select_related("system")
    field = "question_id__in" if questions else "document_id__in"
    return rows.filter(**{field: ids}).order_by("is_reference", "system__name", "pk")


# --- Questions -------------------------------------------------------------------------------


class QuestionsView(APIView):
    """A reading-comprehension campaign's questions with their selection and scores."""

    @extend_schema(
        operation_id="campaign_rc_questions",
        summary="Reading comprehension: the questions, their votes, difficulty and scores",
        description="Every question of the campaign in article and number order (?page=, "
        "?page_size=): its text and sample answer, where it came from (written by a worker, "
        "imported, added by the requester), its selection status and votes (good votes of "
        "votes; the kept question it repeats when dropped as redundant), its answers, the "
        "share correct on the human translation (its difficulty: suspect below one half) and "
        "on MT, and the share correct per system in the chosen variant (the human "
        "translation included, with a null system_id). Campaigns of other kinds have none.",
        parameters=[
            OpenApiParameter("campaign_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            QuestionsParams,
        ],
        responses={200: QUESTIONS_RESPONSE, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        params = QuestionsParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        without = params.validated_data["without_suspect"]
        questions = (
            RCQuestion.objects.filter(campaign=campaign)
            .select_related("document", "redundant_with")
            .order_by("document__position", "document_id", "number")
        )
        if params.validated_data.get("status"):
            questions = questions.filter(status=params.validated_data["status"])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(questions, request, view=self)
        ids = [question.pk for question in page]
        stats = {
            stat.question_id: stat
            for stat in ReadingComprehensionQuestionStat.objects.filter(
                campaign=campaign, question_id__in=ids
            ).order_by()
        }
        cells = _cells(_variant_rows(campaign, without, questions=True, ids=ids))
        results = []
        for question in page:
            stat = stats.get(question.pk)
            results.append(
                {
                    "id": question.pk,
                    "article": question.document.external_id,
                    "number": question.number,
                    "text": question.text,
                    "sample_answer": question.sample_answer,
                    "origin": question.origin,
                    "status": question.status,
                    "good_votes": question.good_votes,
                    "votes": question.votes,
                    "redundant_with": getattr(question.redundant_with, "number", None),
                    "n_answers": stat.n_answers if stat else 0,
                    "n_graded": stat.n_graded if stat else 0,
                    "n_ties": stat.n_ties if stat else 0,
                    "reference_share": stat.reference_share if stat else None,
                    "reference_answers": stat.reference_answers if stat else 0,
                    "mt_share": stat.mt_share if stat else None,
                    "mt_answers": stat.mt_answers if stat else 0,
                    "suspect": bool(stat and stat.suspect),
                    "systems": cells.get(question.pk, []),
                }
            )
        response = paginator.get_paginated_response(results)
        response.data = {"computed_at": _computed_at(campaign), **response.data}
        return response


# --- Articles --------------------------------------------------------------------------------


class ArticlesView(APIView):
    """A reading-comprehension campaign's articles: stage, progress and shares."""

    @extend_schema(
        operation_id="campaign_rc_articles",
        summary="Reading comprehension: each article's stage, progress and share correct",
        description="Every article in document order (not paginated: a campaign has tens of "
        "articles): its stage (authoring, selection, review, answering, grading, done), the "
        "HITs of that stage done and their places filled (now, not as of the last "
        "computation), its questions by status, and its share correct per system in the "
        "chosen variant (the human translation with a null system_id). Campaigns of other "
        "kinds have none.",
        parameters=[
            OpenApiParameter("campaign_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            VariantParams,
        ],
        responses={200: ARTICLES_RESPONSE, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        params = VariantParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        articles = article_progress(campaign)
        cells = _cells(
            _variant_rows(
                campaign,
                params.validated_data["without_suspect"],
                questions=False,
                ids=[article.document_id for article in articles],
            )
        )
        return Response(
            {
                "computed_at": _computed_at(campaign),
                "results": [
                    {
                        "article": article.article,
                        "stage": article.stage,
                        "hits_done": article.hits_done,
                        "hits": article.hits,
                        "places_done": article.places_done,
                        "places": article.places,
                        "questions": {
                            str(status): n for status, n in sorted(article.questions.items())
                        },
                        "systems": cells.get(article.document_id, []),
                    }
                    for article in articles
                ],
            }
        )


# --- Answers ---------------------------------------------------------------------------------


def _answer_rows_of(loaded: LoadedReadingComprehension, params: dict[str, Any]) -> np.ndarray:
    rows = np.arange(loaded.n_answers)
    if params.get("question") is not None:
        rows = rows[loaded.answer_question[rows] == params["question"]]
    if params.get("system") is not None:
        rows = rows[loaded.answer_system[rows] == params["system"]]
    if params.get("reference") is not None:
        rows = rows[(loaded.answer_system[rows] == REFERENCE) == params["reference"]]
    return rows


class AnswersView(APIView):
    """A reading-comprehension campaign's answers with their grades."""

    @extend_schema(
        operation_id="campaign_rc_answers",
        summary="Reading comprehension: every answer with its grades and verdict",
        description="Every answer in submission order (?page=, ?page_size=), with its "
        "question, article, system (the human translation with a null system_id), worker and "
        "text, every grade given to it (grader, correct or not, counted or not: grades of "
        "excluded workers and rejected assignments do not count, nor the earlier of two "
        "grades by one grader), the counted yes and no votes and the verdict (the majority; "
        "tie when split, ungraded without a counted grade), its score (1, 0, or one half for "
        "a tie) and whether the answer counts in the scores. Campaigns of other kinds have "
        "none.",
        parameters=[
            OpenApiParameter("campaign_id", OpenApiTypes.INT, OpenApiParameter.PATH),
            *ANSWERS_PARAMETERS,
        ],
        responses={200: ANSWERS_RESPONSE, **ERROR_RESPONSES},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        params = AnswersParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        loaded = load_reading_comprehension(campaign.pk)
        outcomes = answer_outcomes(loaded)
        codes = verdicts(outcomes)
        rows = _answer_rows_of(loaded, params.validated_data)
        if params.validated_data.get("article"):
            article = params.validated_data["article"]
            articles = list(
                campaign.documents.filter(external_id=article).values_list("pk", flat=True)
            )
            rows = rows[np.isin(loaded.answer_article[rows], articles)]
        if params.validated_data.get("verdict"):
            rows = rows[codes[rows] == VERDICTS.index(params.validated_data["verdict"])]
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(rows.tolist(), request, view=self)
        ids = [int(loaded.answer_id[i]) for i in page]
        texts = {
            row[0]: row[1:]
            for row in Judgment.objects.filter(id__in=ids)
            .order_by()
            .values_list(
                "id",
                "worker__external_id",
                "slot__hit__document__external_id",
                "slot__rc_question__question__number",
                "slot__hit__system_id",
                "slot__hit__system__name",
                "text",
                "assignment__status",
            )
        }
        grades = _grades_of(loaded, page)
        results = []
        for i in page:
            pk = int(loaded.answer_id[i])
            worker, article, number, system_id, name, text, status = texts[pk]
            system_id, name, is_reference = _system(system_id, name)
            results.append(
                {
                    "judgment_id": pk,
                    "worker_external_id": worker,
                    "article": article,
                    "question_id": int(loaded.answer_question[i]),
                    "question_number": number,
                    "system_id": system_id,
                    "system": name,
                    "is_reference": is_reference,
                    "answer": text,
                    "assignment_status": status,
                    "grades": grades.get(i, []),
                    "yes_votes": int(outcomes.yes[i]),
                    "no_votes": int(outcomes.no[i]),
                    "verdict": VERDICTS[codes[i]],
                    "score": _number(outcomes.score[i]),
                    "counted": bool(outcomes.counted[i]),
                }
            )
        response = paginator.get_paginated_response(results)
        response.data = {"computed_at": _computed_at(campaign), **response.data}
        return response


def _grades_of(loaded: LoadedReadingComprehension, page: list[int]) -> dict[int, list[dict]]:
    """The grades of the page's answers (by answer row), in submission order (one query)."""
    counted = np.zeros(loaded.n_grades, dtype=bool)
    counted[counted_grade_rows(loaded)] = True
    rows = np.flatnonzero(np.isin(loaded.grade_answer, page))
    workers = dict(
        Judgment.objects.filter(id__in=loaded.grade_id[rows].tolist())
        .order_by()
        .values_list("id", "worker__external_id")
    )
    out: dict[int, list[dict]] = defaultdict(list)
    for g in rows.tolist():
        mark = loaded.grade_correct[g]
        out[int(loaded.grade_answer[g])].append(
            {
                "judgment_id": int(loaded.grade_id[g]),
                "worker_external_id": workers.get(int(loaded.grade_id[g]), ""),
                "correct": None if np.isnan(mark) else bool(mark),
                "counted": bool(counted[g]),
            }
        )
    return out


# --- The answers export ----------------------------------------------------------------------

# (column, field read by the texts query); the computed columns follow.
TEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("judgment_id", "id"),
    ("hit", "slot__hit__number"),
    ("worker_platform", "worker__platform"),
    ("worker_external_id", "worker__external_id"),
    ("assignment_id", "assignment_id"),
    ("assignment_status", "assignment__status"),
    ("article", "slot__hit__document__external_id"),
    ("question_number", "slot__rc_question__question__number"),
    ("question", "slot__rc_question__question__text"),
    ("sample_answer", "slot__rc_question__question__sample_answer"),
    ("system", "slot__hit__system__name"),
    ("answer", "text"),
    ("client_duration_ms", "client_duration_ms"),
    ("submitted_at", "submitted_at"),
)
COMPUTED_COLUMNS = ("is_reference", "yes_votes", "no_votes", "verdict", "score", "counted")
ANSWER_COLUMNS: tuple[str, ...] = tuple(name for name, _ in TEXT_FIELDS) + COMPUTED_COLUMNS
SYSTEM_COLUMN = 10


def answer_rows(campaign: Campaign) -> Iterator[tuple[Any, ...]]:
    """Every answer as a tuple in :data:`ANSWER_COLUMNS` order, by judgment id; the texts
    streamed as the judgments export streams them (a server-side cursor in a transaction on
    PostgreSQL)."""
    loaded = load_reading_comprehension(campaign.pk)
    outcomes = answer_outcomes(loaded)
    codes = verdicts(outcomes)
    index = {pk: i for i, pk in enumerate(loaded.answer_id.tolist())}
    queryset = (
        Judgment.objects.filter(campaign=campaign, slot__hit__task=HitTask.RC_ANSWER)
        .order_by("id")
        .values_list(*(field for _, field in TEXT_FIELDS), "slot__hit__system_id")
    )

    def rows() -> Iterator[tuple[Any, ...]]:
        for row in queryset.iterator(chunk_size=2000):
            *texts, system_id = row
            is_reference = system_id is None
            if is_reference:
                texts[SYSTEM_COLUMN] = REFERENCE_LABEL
            i = index.get(row[0])
            if i is None:  # an answer that arrived after the numbers were read
                yield (*texts, is_reference, None, None, None, None, None)
                continue
            yield (
                *texts,
                is_reference,
                int(outcomes.yes[i]),
                int(outcomes.no[i]),
                VERDICTS[codes[i]],
                _number(outcomes.score[i]),
                bool(outcomes.counted[i]),
            )

    if connection.vendor == "postgresql":
        with transaction.atomic():
            yield from rows()
    else:
        yield from rows()


def _answer_file(campaign: Campaign, name: str, write: Any) -> Iterator[bytes]:
    try:
        yield from write(ANSWER_COLUMNS, answer_rows(campaign))
    except formats.ExportStopped as stopped:
        logger.error(
            "Export %s of campaign %s stopped after %s rows; the response is aborted.",
            name,
            campaign.pk,
            stopped.rows,
            exc_info=stopped.__cause__ or stopped,
        )
        raise


ANSWERS_DESCRIPTION = (
    "Every answer of a reading-comprehension campaign, one row each, in submission order (any "
    "size; streamed). Columns, in order: " + ", ".join(ANSWER_COLUMNS) + ". system: the "
    f"system whose translation was read ({REFERENCE_LABEL} for the control, is_reference "
    "true); yes_votes / no_votes: the counted grades (not of excluded workers or rejected "
    "assignments); verdict: correct, incorrect, tie (graders split) or ungraded; score: 1, 0, "
    "0.5 for a tie, empty when ungraded; counted: the answer counts in the scores."
)


class AnswersCSV(ExportView):
    @extend_schema(
        operation_id="campaign_export_answers_csv",
        summary="Reading comprehension: every answer with its verdict as CSV",
        description=ANSWERS_DESCRIPTION + " CSV as the judgments export writes it.",
        tags=["exports"],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="A CSV file."),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            _answer_file(campaign, "answers.csv", formats.csv_chunks),
            content_type="text/csv; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-answers.csv")


class AnswersJSONL(ExportView):
    @extend_schema(
        operation_id="campaign_export_answers_jsonl",
        summary="Reading comprehension: every answer with its verdict as JSON Lines",
        description=ANSWERS_DESCRIPTION + " JSON Lines: one object per line, keys as the columns.",
        tags=["exports"],
        responses={
            (200, "application/jsonl"): OpenApiResponse(
                OpenApiTypes.STR, description="A JSON Lines file."
            ),
            **ERRORS,
        },
    )
    def get(self, request: Request, campaign_id: int) -> StreamingHttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = StreamingHttpResponse(
            _answer_file(campaign, "answers.jsonl", formats.jsonl_chunks),
            content_type="application/jsonl; charset=utf-8",
        )
        return _attachment(response, f"{self.file_stem(campaign)}-answers.jsonl")


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/questions/",
        QuestionsView.as_view(),
        name="campaign-rc-questions",
    ),
    path(
        "campaigns/<int:campaign_id>/answers/",
        AnswersView.as_view(),
        name="campaign-rc-answers",
    ),
    path(
        "campaigns/<int:campaign_id>/articles/",
        ArticlesView.as_view(),
        name="campaign-rc-articles",
    ),
    path(
        "campaigns/<int:campaign_id>/export/answers.csv",
        AnswersCSV.as_view(),
        name="export-answers-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/export/answers.jsonl",
        AnswersJSONL.as_view(),
        name="export-answers-jsonl",
    ),
]
