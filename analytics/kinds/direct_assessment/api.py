"""Direct assessment in the analysts' API: its query parameters, the fields it fills in the
shared endpoints (a campaign's assessment mode, a system's score, a worker's reliability),
segment scores, the stored significance and the system-table exports.

The shared endpoints (``analytics.api``) reach these through the kind
(``analytics.kinds.direct_assessment.kind.DirectAssessment``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db.models import F, FilteredRelation, Prefetch, Q, QuerySet, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics import export_formats as formats
from analytics.api.errors import NotComputed
from analytics.api.queries.tables import (
    SegmentTable,
    StoredSignificance,
    group_pairs,
    position_in,
    sorted_table,
    stored_matrix,
)
from analytics.api.serializers import prefixed
from analytics.kinds.direct_assessment.actions import da_config_for
from analytics.kinds.direct_assessment.loading import load_da_judgments, subset
from analytics.models import CampaignResult, SystemScore, variant_key
from analytics.stats.direct_assessment import standardize, worker_reliability
from analytics.stats.direct_assessment.scores import OUTPUT_ROLES
from campaigns.models import AssessmentMode, Campaign, Output, System, TaskKind
from judgments.models import Worker

__all__ = [
    "DA_TEST",
    "DAScoreSerializer",
    "WorkerReliabilitySerializer",
    "annotate_workers",
    "campaign_fields",
    "da_segment_scores",
    "da_significance",
    "da_system_table",
    "query_fields",
    "system_fields",
    "system_queryset",
    "worker_fields",
]

# --- Query parameters ------------------------------------------------------------------------


def query_fields(endpoint: str) -> dict[str, serializers.Field]:
    """``include_unreliable`` wherever scores are read (``AnalyticsKind.query_fields``)."""
    if endpoint == "export":
        help_text = (
            "Direct assessment: scores over every worker instead of reliable workers "
            "only (excluded workers and rejected assignments never count). Ignored for ranking."
        )
    else:
        help_text = (
            "Direct assessment: scores over every worker instead of the reliable ones "
            "only (the default, as in the 2014 paper). Excluded workers and rejected "
            "assignments count in neither."
        )
    return {"include_unreliable": serializers.BooleanField(default=False, help_text=help_text)}


# --- Campaigns -------------------------------------------------------------------------------


def campaign_fields() -> dict[str, tuple[serializers.Field, Combinable]]:
    """The campaign's assessment mode: "" for other kinds (the API's contract)."""
    # Not a ModelSerializer field (a read-only one loses allow_blank): the schema must say
    # that campaigns other than direct assessment have no mode ("").
    field = serializers.ChoiceField(choices=AssessmentMode.choices, allow_blank=True)
    return {"assessment_mode": (field, Coalesce(F("da_settings__assessment_mode"), Value("")))}


# --- Systems and scores ----------------------------------------------------------------------


class DAScoreSerializer(serializers.ModelSerializer):
    mean_score = serializers.FloatField(
        allow_null=True,
        help_text="Null when some of the system's judgments were imported as z-scores only.",
    )
    rank_range = serializers.CharField(
        help_text="'3' or '2–4': WMT's rank range, 1 + the systems that significantly beat "
        "this one to n - the systems it significantly beats."
    )

    class Meta:
        model = SystemScore
        fields = [
            "include_unreliable",
            "position",
            "n",
            "n_segments",
            "mean_score",
            "mean_z",
            "cluster",
            "rank_best",
            "rank_worst",
            "rank_range",
        ]
        read_only_fields = fields


@extend_schema_field(DAScoreSerializer(allow_null=True))
class SystemScoreField(serializers.Field):
    """A system's stored score in the chosen variant (prefetched as ``da_variant``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, system: System) -> dict[str, Any] | None:
        scores = getattr(system, "da_variant", [])
        return DAScoreSerializer(scores[0]).data if scores else None


def system_fields() -> dict[str, serializers.Field]:
    return {
        "direct_assessment": SystemScoreField(
            help_text="Direct assessment: the system's score in the chosen variant; null for "
            "other kinds or while not computed."
        )
    }


def system_queryset(
    systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
) -> tuple[QuerySet[System], Combinable]:
    """Systems with their score of the variant (``da_variant``), and its position."""
    variant = SystemScore.objects.filter(
        campaign=campaign, include_unreliable=params["include_unreliable"]
    )
    systems = systems.prefetch_related(Prefetch("scores", variant, to_attr="da_variant"))
    return systems, position_in(variant)


# --- Workers ---------------------------------------------------------------------------------


# The stored reliability row's fields the API shows (WorkerStat), as ``reliability_<field>``.
RELIABILITY_FIELDS = (
    "reliable",
    "p_value",
    "test",
    "n_pairs",
    "n_bad_ref_pairs",
    "n_repeat_pairs",
    "reason",
    "recommendation",
    "recommendation_reason",
)


class WorkerReliabilitySerializer(serializers.Serializer):
    reliable = serializers.BooleanField()
    p_value = serializers.FloatField(allow_null=True)
    test = serializers.CharField()
    n_pairs = serializers.IntegerField()
    n_bad_ref_pairs = serializers.IntegerField()
    n_repeat_pairs = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    recommendation = serializers.CharField()
    recommendation_reason = serializers.CharField(
        allow_blank=True,
        help_text="Why rejection is recommended (the same score on every item, too fast, "
        "unreliable and fast); empty for the other recommendations.",
    )


def annotate_workers(workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
    """Each worker's stored reliability row in the campaign (a LEFT JOIN), as
    ``reliability_<field>``."""
    return workers.annotate(
        reliability=FilteredRelation(
            "campaign_stats", condition=Q(campaign_stats__campaign=campaign)
        ),
    ).annotate(
        reliability_id=F("reliability__id"),
        **{f"reliability_{name}": F(f"reliability__{name}") for name in RELIABILITY_FIELDS},
    )


@extend_schema_field(WorkerReliabilitySerializer(allow_null=True))
class ReliabilityField(serializers.Field):
    """The worker's reliability test in the campaign; null without a stored row."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, worker: Worker) -> dict[str, Any] | None:
        if worker.reliability_id is None:
            return None
        return prefixed(worker, "reliability", WorkerReliabilitySerializer)


def worker_fields() -> dict[str, serializers.Field]:
    return {
        "reliability": ReliabilityField(
            help_text="Direct assessment: the worker's reliability test; null otherwise."
        )
    }


# --- Segment scores --------------------------------------------------------------------------


def da_segment_scores(campaign: Campaign, *, include_unreliable: bool) -> SegmentTable:
    """n, mean raw score and mean z per (segment, system) of a direct-assessment campaign.

    The rows and z-scores are those of the stored system scores
    (``analytics.kinds.direct_assessment.actions``): the scored judgments (no rejected
    assignment, no excluded worker), standardised per worker over all of them with the
    campaign's settings, then system outputs and repeats of reliable workers only or of every
    worker. A system's stored mean z is the n-weighted mean of its segments' mean z. Eight
    queries.

    The reliable workers are those of the stored system scores, which
    ``analyse_campaign`` tests over the scored judgments; ``WorkerStat.reliable`` is the
    worker table's test over every judgment, rejected assignments included, and can differ
    from it, so the test is run here on the same scored rows rather than read from there.
    ``analytics.api.queries.segment_scores`` runs this once per stored result, not per page.
    """
    loaded = load_da_judgments(campaign.pk)
    output_segment = dict(
        Output.objects.filter(system__campaign_id=campaign.pk)
        .order_by()
        .values_list("id", "segment_id")
    )
    config = da_config_for(campaign, include_unreliable=include_unreliable)
    scored = subset(loaded.judgments, loaded.scored)
    z = standardize(scored, exclude_references=config.exclude_references_from_z, ddof=config.ddof)
    include = None
    # config.include_unreliable: asked for, or the campaign counts every worker.
    if not config.include_unreliable:
        include = worker_reliability(
            scored,
            test=config.reliability_test,
            alpha=config.alpha,
            min_pairs=config.min_pairs,
            assumption_a_test=config.assumption_a_test,
        ).reliable
    rows = np.isin(scored.role, OUTPUT_ROLES) & (scored.system >= 0)
    rows &= scored.worker_mask_to_rows(include)
    item = scored.item[rows]
    # Output ids to segment ids: one lookup per distinct output, then a vectorised take.
    outputs = np.unique(item)
    segment_of = np.array([output_segment.get(int(o), -1) for o in outputs], dtype=np.int64)
    segment = segment_of[np.searchsorted(outputs, item)] if item.size else item
    seg, sys, inverse = group_pairs(segment, scored.system[rows])
    k = seg.shape[0]
    n = np.bincount(inverse, minlength=k).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.bincount(inverse, weights=scored.score[rows], minlength=k) / n
        mean_z = np.bincount(inverse, weights=z.z[rows], minlength=k) / n
    return sorted_table(
        TaskKind.DIRECT_ASSESSMENT,
        campaign.pk,
        seg,
        sys,
        n,
        {"mean_score": mean_score, "mean_z": mean_z},
    )


# --- Pairwise significance -------------------------------------------------------------------

DA_TESTS = {
    "segments": "one-sided Wilcoxon rank-sum (Mann-Whitney U) on segment-mean z-scores",
    "judgments": "one-sided Wilcoxon rank-sum (Mann-Whitney U) on per-judgment z-scores",
}
DA_TEST = DA_TESTS["segments"]  # WMT's official test, the default


def da_significance(campaign: Campaign, *, include_unreliable: bool) -> StoredSignificance:
    """``CampaignResult.details``: the one-sided Wilcoxon rank-sum p-values of "row system
    beats column system" on z-scores, best first by mean z (two queries)."""
    variant = variant_key(include_unreliable)
    result = CampaignResult.objects.filter(campaign=campaign).first()
    if result is None:
        return StoredSignificance(variant=variant, test=DA_TEST)
    details = result.variant(include_unreliable)
    # Results stored before issue 12 carry no unit: they tested per-judgment z.
    test = DA_TESTS.get(details.get("significance_unit", "judgments"), DA_TEST)
    ids = [int(pk) for pk in details.get("systems", [])]
    scores = dict(
        SystemScore.objects.filter(campaign=campaign, include_unreliable=include_unreliable)
        .order_by()
        .values_list("system_id", "mean_z")
    )
    return StoredSignificance(
        variant=variant,
        test=test,
        computed_at=result.computed_at,
        systems=ids,
        p_values=stored_matrix(details.get("p_greater"), len(ids)),
        scores=scores,
        clusters=[int(c) for c in details.get("clusters", [])] or [None] * len(ids),
        order=list(range(len(ids))),
    )


# --- System tables (exports) -----------------------------------------------------------------

# In the order of DASystemRow's fields.
DA_FIELDS = (
    "rank_best",
    "rank_worst",
    "system__name",
    "mean_z",
    "mean_score",
    "n",
    "cluster",
    "n_segments",
)
DA_VARIANTS = {False: "reliable workers only", True: "every worker"}
AVERAGING_WORDS = {
    "segments": "means of segment means, as WMT",
    "judgments": "flat means over judgments",
}
WRITERS = {
    "csv": lambda rows, caption: formats.da_systems_csv(rows),
    "tsv": lambda rows, caption: formats.da_systems_tsv(rows),
    "latex": lambda rows, caption: formats.da_systems_latex(rows, caption),
}


def _stored_result(campaign: Campaign) -> CampaignResult:
    result = CampaignResult.objects.filter(campaign=campaign).first()
    if result is None:
        raise NotComputed(
            f"The statistics of campaign {campaign.pk} have not been computed yet: it has no "
            "scored judgment, or the first computation is still queued."
        )
    return result


def _da_rows(campaign: Campaign, include_unreliable: bool) -> list[formats.DASystemRow]:
    scores = SystemScore.objects.filter(campaign=campaign, include_unreliable=include_unreliable)
    return [
        formats.DASystemRow(*values)
        for values in scores.order_by("position").values_list(*DA_FIELDS)
    ]


def da_system_table(campaign: Campaign, options: dict[str, Any], fmt: str) -> tuple[str, str]:
    """The stored system scores of the variant in ``fmt``, with WMT's caption (LaTeX), and
    the file name's suffix ("-all" for every worker)."""
    include = options["include_unreliable"]
    pair = f"{campaign.source_language}-{campaign.target_language}"
    # How the stored table was averaged (results stored before issue 12 say nothing: flat).
    result = _stored_result(campaign)
    averaging = result.variant(include).get("averaging", "judgments")
    text = WRITERS[fmt](
        _da_rows(campaign, include),
        f"{campaign.name} ({pair}, direct assessment, "
        f"{campaign.da_settings.assessment_mode}), "
        f"{DA_VARIANTS[include]}: systems by mean standardised score (Ave z); Ave % is "
        f"the mean raw score ({AVERAGING_WORDS[averaging]}), # the "
        "rank range (WMT's: 1 + systems significantly better to n - systems significantly "
        "worse); rules separate significance clusters.",
    )
    return text, "-all" if include else ""
