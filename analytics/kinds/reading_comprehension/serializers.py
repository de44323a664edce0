"""The query parameters and response shapes of reading comprehension's own endpoints
(:mod:`.routes`), for validation (400 naming the parameter) and the OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, inline_serializer
from rest_framework import serializers

from analytics.api.filters import NO_NUL_STRING
from campaigns.kinds.reading_comprehension.models import RCQuestionStatus, RCStage

__all__ = [
    "ANSWERS_PARAMETERS",
    "ANSWERS_RESPONSE",
    "ARTICLES_RESPONSE",
    "QUESTIONS_RESPONSE",
    "AnswersParams",
    "QuestionsParams",
    "VariantParams",
]

VERDICT_CHOICES = ("correct", "incorrect", "tie", "ungraded")


class VariantParams(serializers.Serializer):
    without_suspect = serializers.BooleanField(
        default=False,
        help_text="Shares with the suspect questions (under half answered correctly on the "
        "human translation) left out; default: every question.",
    )


class QuestionsParams(VariantParams):
    status = serializers.ChoiceField(
        choices=RCQuestionStatus.choices, required=False, help_text="Only questions with it."
    )


# Ids as the database holds them (and numpy compares them without overflow).
MAX_ID = 2**63 - 1


class AnswersParams(serializers.Serializer):
    """Validates the answers endpoint's parameters; documented by :data:`ANSWERS_PARAMETERS`
    (the free-text ``article`` as the shared filters document theirs: a string without NUL)."""

    question = serializers.IntegerField(required=False, min_value=-MAX_ID, max_value=MAX_ID)
    article = serializers.CharField(required=False, allow_blank=True)
    system = serializers.IntegerField(required=False, min_value=-MAX_ID, max_value=MAX_ID)
    # Null when left out (a query string is form data: DRF would read a missing one as false).
    reference = serializers.BooleanField(required=False, allow_null=True)
    verdict = serializers.ChoiceField(choices=VERDICT_CHOICES, required=False)


ID = {"type": "integer", "minimum": -MAX_ID, "maximum": MAX_ID}
ANSWERS_PARAMETERS = [
    OpenApiParameter("question", ID, description="A question's id."),
    OpenApiParameter("article", NO_NUL_STRING, description="An article's external id."),
    OpenApiParameter("system", ID, description="A system's id."),
    OpenApiParameter(
        "reference",
        OpenApiTypes.BOOL,
        description="true: only the answers on the human translation (the control); false: "
        "only those on the systems' translations.",
    ),
    OpenApiParameter("verdict", enum=VERDICT_CHOICES, description="Only answers with it."),
]


def _page(name: str, fields: dict[str, serializers.Field]) -> serializers.Serializer:
    return inline_serializer(
        name,
        {
            "computed_at": serializers.DateTimeField(allow_null=True),
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": inline_serializer(f"{name}Row", fields, many=True),
        },
    )


SYSTEM_CELL = inline_serializer(
    "RCSystemCell",
    {
        "system_id": serializers.IntegerField(
            allow_null=True, help_text="Null for the human translation."
        ),
        "system": serializers.CharField(),
        "is_reference": serializers.BooleanField(),
        "correct": serializers.FloatField(help_text="Scores summed (a tie adds one half)."),
        "n_answers": serializers.IntegerField(),
        "n_ties": serializers.IntegerField(),
        "share": serializers.FloatField(allow_null=True),
    },
    many=True,
)

QUESTIONS_RESPONSE = _page(
    "RCQuestions",
    {
        "id": serializers.IntegerField(),
        "article": serializers.CharField(),
        "number": serializers.IntegerField(),
        "text": serializers.CharField(),
        "sample_answer": serializers.CharField(),
        "origin": serializers.CharField(),
        "status": serializers.ChoiceField(choices=RCQuestionStatus.choices),
        "good_votes": serializers.IntegerField(allow_null=True),
        "votes": serializers.IntegerField(allow_null=True),
        "redundant_with": serializers.IntegerField(
            allow_null=True, help_text="The number of the kept question it repeats."
        ),
        "n_answers": serializers.IntegerField(),
        "n_graded": serializers.IntegerField(),
        "n_ties": serializers.IntegerField(),
        "reference_share": serializers.FloatField(allow_null=True),
        "reference_answers": serializers.IntegerField(),
        "mt_share": serializers.FloatField(allow_null=True),
        "mt_answers": serializers.IntegerField(),
        "suspect": serializers.BooleanField(),
        "systems": SYSTEM_CELL,
    },
)

ARTICLES_RESPONSE = inline_serializer(
    "RCArticles",
    {
        "computed_at": serializers.DateTimeField(allow_null=True),
        "results": inline_serializer(
            "RCArticle",
            {
                "article": serializers.CharField(),
                "stage": serializers.ChoiceField(choices=RCStage.choices),
                "hits_done": serializers.IntegerField(),
                "hits": serializers.IntegerField(),
                "places_done": serializers.IntegerField(),
                "places": serializers.IntegerField(),
                "questions": serializers.DictField(
                    child=serializers.IntegerField(), help_text="Questions by status."
                ),
                "systems": SYSTEM_CELL,
            },
            many=True,
        ),
    },
)

ANSWERS_RESPONSE = _page(
    "RCAnswers",
    {
        "judgment_id": serializers.IntegerField(),
        "worker_external_id": serializers.CharField(),
        "article": serializers.CharField(),
        "question_id": serializers.IntegerField(),
        "question_number": serializers.IntegerField(),
        "system_id": serializers.IntegerField(allow_null=True),
        "system": serializers.CharField(),
        "is_reference": serializers.BooleanField(),
        "answer": serializers.CharField(),
        "assignment_status": serializers.CharField(),
        "grades": inline_serializer(
            "RCGrade",
            {
                "judgment_id": serializers.IntegerField(),
                "worker_external_id": serializers.CharField(),
                "correct": serializers.BooleanField(allow_null=True),
                "counted": serializers.BooleanField(),
            },
            many=True,
        ),
        "yes_votes": serializers.IntegerField(),
        "no_votes": serializers.IntegerField(),
        "verdict": serializers.ChoiceField(choices=VERDICT_CHOICES),
        "score": serializers.FloatField(allow_null=True),
        "counted": serializers.BooleanField(),
    },
)
