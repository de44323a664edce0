"""Crowd translation in the analysts' API: the fields it fills in the shared endpoints (a
system's BLEU on each test set, a worker's flag rate and BLEU) and the system-table exports.
Its own endpoints (translations with flags, translators, the kept test set, the system table
with 004's percentage of a chosen baseline, the test-set exports) are in :mod:`.routes`.

Significance and segment scores: none (the systems are scored by corpus BLEU on test sets,
with no judgment of them by workers).
"""

from __future__ import annotations

from typing import Any

from django.db.models import F, FilteredRelation, Prefetch, Q, QuerySet
from django.db.models.expressions import Combinable
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics import export_formats as formats
from analytics.api.errors import NotComputed
from analytics.api.queries.tables import SegmentTable, StoredSignificance, position_in
from analytics.api.serializers import prefixed
from analytics.models import TranslationResult, TranslationSystemScore, TranslationTestSet
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

__all__ = [
    "annotate_workers",
    "query_fields",
    "system_fields",
    "system_queryset",
    "translation_significance",
    "translation_system_table",
    "worker_fields",
]

FINAL_ONLY_HELP = (
    "Translation: only the sentences whose kept translation is final (chosen by the "
    "requester, or every translation in and none waiting for Detect-MT votes); by default "
    "every sentence with a kept translation, provisional ones included."
)


def query_fields(endpoint: str) -> dict[str, serializers.Field]:
    """``final_only``: read by the test-set exports only (the scores have no variant)."""
    return {
        "final_only": serializers.BooleanField(
            default=False,
            help_text=FINAL_ONLY_HELP + " Read by the translation test-set exports only; "
            "ignored elsewhere and for other kinds.",
        )
    }


# --- Systems ---------------------------------------------------------------------------------


class TranslationScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = TranslationSystemScore
        fields = ["test_set", "position", "bleu", "chrf", "n_segments", "percent_of_baseline"]
        read_only_fields = fields


@extend_schema_field(TranslationScoreSerializer(many=True))
class SystemBLEUField(serializers.Field):
    """The system's stored scores on each test set (prefetched as ``translation_scores_all``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, system: System) -> list[dict[str, Any]]:
        scores = getattr(system, "translation_scores_all", [])
        return TranslationScoreSerializer(scores, many=True).data


def system_fields() -> dict[str, serializers.Field]:
    return {
        "translation": SystemBLEUField(
            help_text="Translation: the system's corpus BLEU and chrF on the professional "
            "references and on the crowd test sets (corrected: crowd; before correction: "
            "crowd_raw), with the percentage of the baseline system's BLEU on that test set "
            "(004); empty for other kinds or while not computed."
        )
    }


def system_queryset(
    systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
) -> tuple[QuerySet[System], Combinable]:
    scores = TranslationSystemScore.objects.filter(campaign=campaign).order_by("test_set")
    systems = systems.prefetch_related(
        Prefetch("translation_scores", scores, to_attr="translation_scores_all")
    )
    return systems, position_in(scores.filter(test_set=TranslationTestSet.PROFESSIONAL))


def translation_significance(campaign: Campaign, *, include_all: bool) -> StoredSignificance:
    """None: systems are scored on test sets, not judged (module docstring)."""
    return StoredSignificance(variant="all", test="")


def translation_segment_scores(campaign: Campaign) -> SegmentTable:
    return SegmentTable.empty(TaskKind.TRANSLATION)


# --- Workers ---------------------------------------------------------------------------------

WORKER_FIELDS = (
    "n_translations",
    "n_decided",
    "n_flagged",
    "flag_rate",
    "bleu",
    "chrf",
    "n_scored",
    "n_kept",
    "n_votes",
    "n_corrections",
    "auto_excluded",
)


class TranslationWorkerSerializer(serializers.Serializer):
    n_translations = serializers.IntegerField()
    n_decided = serializers.IntegerField(
        help_text="Translations whose flag is decided (the flag rate's denominator)."
    )
    n_flagged = serializers.IntegerField()
    flag_rate = serializers.FloatField(allow_null=True)
    bleu = serializers.FloatField(
        allow_null=True, help_text="Corpus BLEU against the professional references."
    )
    chrf = serializers.FloatField(allow_null=True)
    n_scored = serializers.IntegerField()
    n_kept = serializers.IntegerField()
    n_votes = serializers.IntegerField()
    n_corrections = serializers.IntegerField()
    auto_excluded = serializers.BooleanField(
        help_text="Excluded once by the recompute for the flag rate."
    )


def annotate_workers(workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
    return workers.annotate(
        tr_row=FilteredRelation(
            "translation_stats", condition=Q(translation_stats__campaign=campaign)
        ),
    ).annotate(
        tr_id=F("tr_row__id"),
        **{f"tr_{name}": F(f"tr_row__{name}") for name in WORKER_FIELDS},
    )


@extend_schema_field(TranslationWorkerSerializer(allow_null=True))
class TranslationWorkerField(serializers.Field):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, worker: Worker) -> dict[str, Any] | None:
        if getattr(worker, "tr_id", None) is None:
            return None
        return prefixed(worker, "tr", TranslationWorkerSerializer)


def worker_fields() -> dict[str, serializers.Field]:
    return {
        "translation": TranslationWorkerField(
            help_text="Translation: the worker's translations, flags and flag rate, BLEU "
            "against the professional references, votes and corrections; null for other "
            "kinds or without a stored row."
        )
    }


# --- The system table ------------------------------------------------------------------------

CSV_COLUMNS = (
    "position",
    "system",
    "test_set",
    "bleu",
    "chrf",
    "n_segments",
    "percent_of_baseline",
)


def translation_system_table(
    campaign: Campaign, options: dict[str, Any], fmt: str
) -> tuple[str, str]:
    """Every system on each test set: CSV (full precision, one row per system and test set),
    TSV (rounded, one row per system) or LaTeX (BLEU and % of baseline per test set)."""
    result = TranslationResult.objects.filter(campaign=campaign).select_related("baseline").first()
    if result is None:
        raise NotComputed(
            f"The statistics of campaign {campaign.pk} have not been computed yet: it has no "
            "judgment, or the first computation is still queued."
        )
    scores = list(
        TranslationSystemScore.objects.filter(campaign=campaign)
        .select_related("system")
        .order_by("position", "system__name", "test_set")
    )
    if fmt == "csv":
        return formats.csv_text(
            CSV_COLUMNS,
            (
                (s.position, s.system.name, s.test_set, s.bleu, s.chrf, s.n_segments,
                 s.percent_of_baseline)
                for s in scores
            ),
        ), ""  # fmt: skip
    sets = TranslationTestSet.values
    by_system: dict[str, dict[str, TranslationSystemScore]] = {}
    for s in scores:
        by_system.setdefault(s.system.name, {})[s.test_set] = s

    def cells(name: str, number: Any) -> list[str]:
        row = [name]
        for test_set in sets:
            s = by_system[name].get(test_set)
            row += [
                number(s.bleu if s else None, 2),
                number(s.percent_of_baseline if s else None, 2),
            ]
        return row

    header = ["System"] + [f"{label} {what}" for label in sets for what in ("BLEU", "%")]
    if fmt == "tsv":
        return formats._tsv(header, (cells(name, formats._rounded) for name in by_system)), ""
    baseline = result.baseline.name if result.baseline else ""
    caption = (
        f"Corpus BLEU of each system on the professional references and on the crowd test "
        f"sets, and percentage of the baseline ({baseline}) on each (004)."
    )
    rows = [
        [formats.latex_escape(row[0]), *row[1:]]
        for row in (cells(name, formats._latex_number) for name in by_system)
    ]
    return formats._latex_table(
        "l" + "rr" * len(sets),
        [formats.latex_escape(h) for h in header],
        [rows],
        caption,
    ), ""
