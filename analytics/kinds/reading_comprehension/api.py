"""Reading comprehension in the analysts' API: its query parameter, the fields it fills in the
shared endpoints (a campaign's share correct on the human translation and grading kappa, a
system's share correct, a worker's row), the stored permutation-test significance and the
system-table exports (000 Table 3: System, % correct). Its own endpoints (questions, answers,
articles, the answers export) are in :mod:`.routes`.

The human translation (the control) is no System row: the systems endpoint lists the MT
systems with their scores and the campaign carries the control's share
(``reference_share_correct``); the significance answer and the system tables include it by
name (:data:`analytics.models.REFERENCE_LABEL`), with a null id in the significance answer.

Segment scores: none. A reading-comprehension answer is about a question on a whole article,
not about a sentence, so there is nothing to put per (segment, system); the per-article and
per-question tables are the kind's own endpoints.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, FilteredRelation, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.expressions import Combinable
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.api.errors import NotComputed
from analytics.api.queries.tables import (
    SegmentTable,
    StoredSignificance,
    position_in,
    stored_matrix,
)
from analytics.api.serializers import prefixed
from analytics.kinds.reading_comprehension.tables import RCSystemRow, write_system_table
from analytics.models import (
    REFERENCE_LABEL,
    ReadingComprehensionResult,
    ReadingComprehensionSystemScore,
    suspect_variant_key,
)
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

__all__ = [
    "RC_TEST",
    "RCScoreSerializer",
    "RCWorkerSerializer",
    "annotate_workers",
    "campaign_fields",
    "query_fields",
    "rc_segment_scores",
    "rc_significance",
    "rc_system_table",
    "system_fields",
    "system_queryset",
    "worker_fields",
]

# --- Query parameters ------------------------------------------------------------------------


def query_fields(endpoint: str) -> dict[str, serializers.Field]:
    """``without_suspect`` wherever scores are read (``AnalyticsKind.query_fields``)."""
    help_text = (
        "Reading comprehension: leave out the suspect questions (those under half answered "
        "correctly on the human translation) instead of counting every question (the default, "
        "000's figure). Excluded workers and rejected assignments count in neither."
    )
    if endpoint == "export":
        help_text += " Ignored for other kinds."
    return {"without_suspect": serializers.BooleanField(default=False, help_text=help_text)}


# --- Campaigns -------------------------------------------------------------------------------


def campaign_fields() -> dict[str, tuple[serializers.Field, Combinable]]:
    """The control's share correct (every question) and the graders' Fleiss kappa; null for
    other kinds and before the first computation."""
    reference = ReadingComprehensionSystemScore.objects.filter(
        campaign=OuterRef("pk"), is_reference=True, without_suspect=False
    ).order_by()
    return {
        "reference_share_correct": (
            serializers.FloatField(
                allow_null=True,
                help_text="Reading comprehension: the share of questions answered correctly on "
                "the human translation (the control; it is no system, so the systems endpoint "
                "leaves it out), every question counted; null for other kinds and before the "
                "first computation.",
            ),
            Subquery(reference.values("share")[:1]),
        ),
        "grading_kappa": (
            serializers.FloatField(
                allow_null=True,
                help_text="Reading comprehension: Fleiss' kappa of the graders' correct / "
                "incorrect marks (answers graded by the usual number of graders); null for "
                "other kinds and while no answer has two grades.",
            ),
            F("rc_result__fleiss_kappa"),
        ),
    }


# --- Systems and scores ----------------------------------------------------------------------


class RCScoreSerializer(serializers.ModelSerializer):
    rank_range = serializers.CharField()

    class Meta:
        model = ReadingComprehensionSystemScore
        fields = [
            "without_suspect",
            "position",
            "share",
            "share_ci_low",
            "share_ci_high",
            "question_mean",
            "question_mean_ci_low",
            "question_mean_ci_high",
            "correct",
            "n_answers",
            "n_ties",
            "n_questions",
            "n_articles",
            "n_readings",
            "n_workers",
            "cluster",
            "rank_best",
            "rank_worst",
            "rank_range",
        ]
        read_only_fields = fields


@extend_schema_field(RCScoreSerializer(allow_null=True))
class SystemShareField(serializers.Field):
    """A system's stored share correct in the chosen variant (prefetched as ``rc_variant``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, system: System) -> dict[str, Any] | None:
        scores = getattr(system, "rc_variant", [])
        return RCScoreSerializer(scores[0]).data if scores else None


def system_fields() -> dict[str, serializers.Field]:
    return {
        "reading_comprehension": SystemShareField(
            help_text="Reading comprehension: the share of questions answered correctly on the "
            "system's translation (correct / graded answers, a tie counting one half) with its "
            "bootstrap interval over articles, the mean of per-question shares, rank range and "
            "cluster (permutation tests; the human translation takes part as the control) in "
            "the chosen variant; null for other kinds or while not computed."
        )
    }


def system_queryset(
    systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
) -> tuple[QuerySet[System], Combinable]:
    """Systems with their share correct of the variant (``rc_variant``), and their position
    (by share, best first; the control holds a position too)."""
    variant = ReadingComprehensionSystemScore.objects.filter(
        campaign=campaign, without_suspect=params["without_suspect"]
    )
    systems = systems.prefetch_related(Prefetch("rc_scores", variant, to_attr="rc_variant"))
    return systems, position_in(variant)


# --- Workers ---------------------------------------------------------------------------------

WORKER_FIELDS = (
    "n_questions_written",
    "n_votes",
    "n_answers",
    "n_answers_graded",
    "answers_correct",
    "share_correct",
    "n_grades",
    "n_grades_compared",
    "n_grades_agreeing",
    "agreement",
    "in_scores",
)


class RCWorkerSerializer(serializers.Serializer):
    n_questions_written = serializers.IntegerField()
    n_votes = serializers.IntegerField(help_text="Selection judgments (one per question).")
    n_answers = serializers.IntegerField()
    n_answers_graded = serializers.IntegerField()
    answers_correct = serializers.FloatField(help_text="Their graded answers' scores summed.")
    share_correct = serializers.FloatField(allow_null=True)
    n_grades = serializers.IntegerField()
    n_grades_compared = serializers.IntegerField(
        help_text="Grades on answers whose other graders were not split."
    )
    n_grades_agreeing = serializers.IntegerField()
    agreement = serializers.FloatField(
        allow_null=True, help_text="Share of the compared grades agreeing with the others."
    )
    in_scores = serializers.BooleanField()


def annotate_workers(workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
    """Each worker's stored row in the campaign (a LEFT JOIN), as ``rc_<field>``."""
    return workers.annotate(
        rc_row=FilteredRelation("rc_stats", condition=Q(rc_stats__campaign=campaign)),
    ).annotate(
        rc_id=F("rc_row__id"),
        **{f"rc_{name}": F(f"rc_row__{name}") for name in WORKER_FIELDS},
    )


@extend_schema_field(RCWorkerSerializer(allow_null=True))
class RCWorkerField(serializers.Field):
    """The worker's reading-comprehension row in the campaign; null without a stored row."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, worker: Worker) -> dict[str, Any] | None:
        if getattr(worker, "rc_id", None) is None:
            return None
        return prefixed(worker, "rc", RCWorkerSerializer)


def worker_fields() -> dict[str, serializers.Field]:
    return {
        "reading_comprehension": RCWorkerField(
            help_text="Reading comprehension: the worker's questions, votes, answers (share "
            "judged correct) and grades (agreement with the other graders' majority); null "
            "otherwise."
        )
    }


# --- Segment scores and significance ---------------------------------------------------------


def rc_segment_scores(campaign: Campaign) -> SegmentTable:
    """None: answers are about articles, not sentences (module docstring)."""
    return SegmentTable.empty(TaskKind.READING_COMPREHENSION)


RC_TEST = (
    "one-sided stratified permutation test over readings (a worker's answers to one article), "
    "relabelled within articles; exact when there are at most 10000 labellings (row system "
    "answers a higher share correctly than the column system)"
)


def rc_significance(campaign: Campaign, *, without_suspect: bool) -> StoredSignificance:
    """The stored p-values of "row system has a higher share correct than column system",
    best first by the stored positions, the human translation included (null id, named);
    two queries."""
    variant = suspect_variant_key(without_suspect)
    result = ReadingComprehensionResult.objects.filter(campaign=campaign).first()
    if result is None:
        return StoredSignificance(variant=variant, test=RC_TEST)
    details = result.variant(without_suspect)
    ids = list(details.get("systems", []))
    stored = {
        system: (position, share, cluster)
        for system, position, share, cluster in ReadingComprehensionSystemScore.objects.filter(
            campaign=campaign, without_suspect=without_suspect
        )
        .order_by()
        .values_list("system_id", "position", "share", "cluster")
    }
    return StoredSignificance(
        variant=variant,
        test=RC_TEST,
        computed_at=result.computed_at,
        systems=ids,
        p_values=stored_matrix(details.get("p_better"), len(ids)),
        scores={system: row[1] for system, row in stored.items()},
        clusters=[stored.get(pk, (0, None, None))[2] for pk in ids],
        order=sorted(range(len(ids)), key=lambda i: (stored.get(ids[i], (len(ids) + 1,))[0], i)),
        names={None: REFERENCE_LABEL},
    )


# --- System tables (exports) -----------------------------------------------------------------

SYSTEM_FIELDS = (
    "rank_best",
    "rank_worst",
    "system__name",
    "is_reference",
    "share",
    "share_ci_low",
    "share_ci_high",
    "question_mean",
    "correct",
    "n_answers",
    "n_ties",
    "n_readings",
    "cluster",
)
VARIANTS = {False: "every question", True: "suspect questions left out"}


def rc_system_table(campaign: Campaign, options: dict[str, Any], fmt: str) -> tuple[str, str]:
    """The stored share correct of the variant in ``fmt`` with a caption (LaTeX), and the
    file name's suffix ("-without-suspect" for the other variant)."""
    without = options["without_suspect"]
    result = ReadingComprehensionResult.objects.filter(campaign=campaign).first()
    if result is None:
        raise NotComputed(
            f"The statistics of campaign {campaign.pk} have not been computed yet: it has no "
            "judgment, or the first computation is still queued."
        )
    rows = [
        RCSystemRow(
            rank_best=values[0],
            rank_worst=values[1],
            system=REFERENCE_LABEL if values[3] else values[2],
            is_reference=values[3],
            share=values[4],
            share_ci_low=values[5],
            share_ci_high=values[6],
            question_mean=values[7],
            correct=values[8],
            n_answers=values[9],
            n_ties=values[10],
            n_readings=values[11],
            cluster=values[12],
        )
        for values in ReadingComprehensionSystemScore.objects.filter(
            campaign=campaign, without_suspect=without
        )
        .order_by("position")
        .values_list(*SYSTEM_FIELDS)
    ]
    pair = f"{campaign.source_language}-{campaign.target_language}"
    ties = {"half": "a tie counting one half", "incorrect": "a tie counting as incorrect"}
    caption = (
        f"{campaign.name} ({pair}, reading comprehension), {VARIANTS[without]}: the share of "
        "questions answered correctly on each system's translation (correct / graded answers, "
        f"the majority of the graders deciding, {ties.get(result.tie_policy, 'ties as set')}; "
        "95% bootstrap interval over articles); the human translation is the control; # is the "
        "rank range; rules separate significance clusters (permutation tests over readings)."
    )
    return write_system_table(rows, caption, fmt), "-without-suspect" if without else ""
