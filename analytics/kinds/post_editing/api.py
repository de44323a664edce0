"""Post-editing in the analysts' API: its query parameter, the fields it fills in the shared
endpoints (a campaign's mode and TER signature, a system's HTER, a worker's profile), segment
HTER, the stored paired Wilcoxon significance and the system-table exports. Its own endpoints
(every edit with its TER and verification outcome) are in :mod:`.edits`.

The shared endpoints (``analytics.api``) reach these through the kind
(``analytics.kinds.post_editing.kind.PostEditing``).
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
    position_in,
    sorted_table,
    stored_matrix,
)
from analytics.api.serializers import prefixed
from analytics.kinds.post_editing.actions import (
    post_editing_config_for,
    variant_segments,
    verification,
)
from analytics.kinds.post_editing.loading import load_post_editing
from analytics.models import (
    PostEditingResult,
    PostEditingSystemScore,
    flag_variant_key,
)
from campaigns.kinds.post_editing.models import PostEditingMode
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

__all__ = [
    "HTER_TEST",
    "HTERScoreSerializer",
    "WorkerProfileSerializer",
    "annotate_workers",
    "campaign_fields",
    "post_editing_segment_scores",
    "post_editing_significance",
    "post_editing_system_table",
    "query_fields",
    "system_fields",
    "system_queryset",
    "worker_fields",
]

# --- Query parameters ------------------------------------------------------------------------


def query_fields(endpoint: str) -> dict[str, serializers.Field]:
    """``include_flagged`` wherever scores are read (``AnalyticsKind.query_fields``)."""
    help_text = (
        "Post-editing: HTER over every editor instead of leaving out those flagged for doing "
        "nothing or copying the reference (the default). Excluded workers, rejected "
        "assignments and the gold editor count in neither."
    )
    if endpoint == "export":
        help_text += " Ignored for other kinds."
    return {"include_flagged": serializers.BooleanField(default=False, help_text=help_text)}


# --- Campaigns -------------------------------------------------------------------------------


def campaign_fields() -> dict[str, tuple[serializers.Field, Combinable]]:
    """The campaign's post-editing mode and the TER signature of its stored results; "" for
    other kinds (and before the first recompute)."""
    return {
        "post_editing_mode": (
            serializers.ChoiceField(
                choices=PostEditingMode.choices,
                allow_blank=True,
                help_text="Post-editing: what editors see beside the MT output (the reference, "
                "000, or the source, 003); empty for other kinds.",
            ),
            Coalesce(F("post_editing_settings__mode"), Value("")),
        ),
        "ter_signature": (
            serializers.CharField(
                allow_blank=True,
                help_text="Post-editing: sacrebleu's signature of the TER the stored HTER was "
                "computed with; empty for other kinds and before the first computation.",
            ),
            Coalesce(F("post_editing_result__ter_signature"), Value("")),
        ),
    }


# --- Systems and scores ----------------------------------------------------------------------


class HTERScoreSerializer(serializers.ModelSerializer):
    rank_range = serializers.CharField()
    verified_share = serializers.FloatField(
        allow_null=True, help_text="Share of the system's edits with at least one vote."
    )

    class Meta:
        model = PostEditingSystemScore
        fields = [
            "include_flagged",
            "position",
            "corpus",
            "corpus_ci_low",
            "corpus_ci_high",
            "mean",
            "mean_ci_low",
            "mean_ci_high",
            "edits",
            "ref_length",
            "n_outputs",
            "n_from_reference",
            "n_edits",
            "n_passed",
            "n_verified",
            "verified_share",
            "cluster",
            "rank_best",
            "rank_worst",
            "rank_range",
        ]
        read_only_fields = fields


@extend_schema_field(HTERScoreSerializer(allow_null=True))
class SystemHTERField(serializers.Field):
    """A system's stored HTER in the chosen variant (prefetched as ``post_editing_variant``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, system: System) -> dict[str, Any] | None:
        scores = getattr(system, "post_editing_variant", [])
        return HTERScoreSerializer(scores[0]).data if scores else None


def system_fields() -> dict[str, serializers.Field]:
    return {
        "post_editing": SystemHTERField(
            help_text="Post-editing: the system's HTER (corpus: total edits / total reference "
            "words; mean: of segment HTER; lower is better) with bootstrap intervals, rank "
            "range and cluster in the chosen variant; null for other kinds or while not "
            "computed."
        )
    }


def system_queryset(
    systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
) -> tuple[QuerySet[System], Combinable]:
    """Systems with their HTER of the variant (``post_editing_variant``), and its position
    (by mean HTER, lowest first)."""
    variant = PostEditingSystemScore.objects.filter(
        campaign=campaign, include_flagged=params["include_flagged"]
    )
    systems = systems.prefetch_related(
        Prefetch("hter_scores", variant, to_attr="post_editing_variant")
    )
    return systems, position_in(variant)


# --- Workers ---------------------------------------------------------------------------------

# The stored profile's fields the API shows (PostEditingWorkerStat), as ``pe_profile_<field>``.
PROFILE_FIELDS = (
    "n_edits",
    "n_votes",
    "mean_ter_to_mt",
    "mean_ter_to_reference",
    "share_unchanged",
    "share_copied",
    "did_nothing",
    "copied_reference",
    "n_passed",
    "n_failed",
    "n_unverified",
    "n_gold_segments",
    "gold_distance",
    "weight",
    "gold",
    "in_scores",
)


class WorkerProfileSerializer(serializers.Serializer):
    n_edits = serializers.IntegerField()
    n_votes = serializers.IntegerField(help_text="Verification votes given.")
    mean_ter_to_mt = serializers.FloatField(
        allow_null=True, help_text="Mean TER of the edits against the MT output (0: unchanged)."
    )
    mean_ter_to_reference = serializers.FloatField(
        allow_null=True, help_text="Mean TER of the edits against the reference."
    )
    share_unchanged = serializers.FloatField(allow_null=True)
    share_copied = serializers.FloatField(allow_null=True)
    did_nothing = serializers.BooleanField()
    copied_reference = serializers.BooleanField()
    n_passed = serializers.IntegerField()
    n_failed = serializers.IntegerField()
    n_unverified = serializers.IntegerField()
    n_gold_segments = serializers.IntegerField()
    gold_distance = serializers.FloatField(allow_null=True)
    weight = serializers.FloatField(
        allow_null=True, help_text="003's worker weight (only with gold edits)."
    )
    gold = serializers.BooleanField(help_text="The campaign's gold (professional) editor.")
    in_scores = serializers.BooleanField()


def annotate_workers(workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
    """Each worker's stored profile in the campaign (a LEFT JOIN), as ``pe_profile_<field>``."""
    return workers.annotate(
        pe_profile_row=FilteredRelation(
            "post_editing_stats", condition=Q(post_editing_stats__campaign=campaign)
        ),
    ).annotate(
        pe_profile_id=F("pe_profile_row__id"),
        **{f"pe_profile_{name}": F(f"pe_profile_row__{name}") for name in PROFILE_FIELDS},
    )


@extend_schema_field(WorkerProfileSerializer(allow_null=True))
class ProfileField(serializers.Field):
    """The worker's post-editing profile in the campaign; null without a stored row."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, worker: Worker) -> dict[str, Any] | None:
        if getattr(worker, "pe_profile_id", None) is None:
            return None
        return prefixed(worker, "pe_profile", WorkerProfileSerializer)


def worker_fields() -> dict[str, serializers.Field]:
    return {
        "post_editing": ProfileField(
            help_text="Post-editing: the worker's profile (distance of the edits to the MT "
            "output and to the reference, did-nothing and copied-the-reference flags, "
            "verification outcomes); null otherwise."
        )
    }


# --- Segment scores --------------------------------------------------------------------------


def post_editing_segment_scores(campaign: Campaign, *, include_flagged: bool) -> SegmentTable:
    """HTER, edits and passed edits per output (segment, system) of a post-editing campaign,
    from the stored TER numbers (no TER is computed here): the edits the stored system scores
    count (crowd edits, not rejected or excluded; by default not of the workers the stored
    result flagged), chosen as the recompute chooses. Nine queries at most."""
    config = post_editing_config_for(campaign)
    loaded = load_post_editing(campaign.pk, config.signature, config.gold_editor)
    rows = loaded.crowd
    result = PostEditingResult.objects.filter(campaign=campaign).first()
    if not include_flagged and result is not None:
        flagged = np.array(result.details.get("flagged_workers", []), dtype=np.int64)
        rows = rows & ~np.isin(loaded.edit_worker, flagged)
    passed = verification(loaded)[3]
    output_rows, seg, _ = variant_segments(loaded, rows, passed)
    return sorted_table(
        TaskKind.POST_EDITING,
        campaign.pk,
        seg.segment,
        seg.system,
        seg.n_edits,
        {"hter": seg.hter, "n_passed": seg.n_passed},
    )


# --- Pairwise significance -------------------------------------------------------------------

HTER_TEST = (
    "one-sided paired Wilcoxon signed-rank test on segment HTER (row system lower, i.e. "
    "better, than the column system)"
)


def post_editing_significance(campaign: Campaign, *, include_flagged: bool) -> StoredSignificance:
    """The stored p-values of "row system has lower segment HTER than column system", best
    first by the stored positions, with each system's mean HTER (two queries)."""
    variant = flag_variant_key(include_flagged)
    result = PostEditingResult.objects.filter(campaign=campaign).first()
    if result is None:
        return StoredSignificance(variant=variant, test=HTER_TEST)
    details = result.variant(include_flagged)
    ids = [int(pk) for pk in details.get("systems", [])]
    stored = {
        system: (position, mean, cluster)
        for system, position, mean, cluster in PostEditingSystemScore.objects.filter(
            campaign=campaign, include_flagged=include_flagged
        )
        .order_by()
        .values_list("system_id", "position", "mean", "cluster")
    }
    return StoredSignificance(
        variant=variant,
        test=HTER_TEST,
        computed_at=result.computed_at,
        systems=ids,
        p_values=stored_matrix(details.get("p_better"), len(ids)),
        scores={system: row[1] for system, row in stored.items()},
        clusters=[stored.get(pk, (0, None, None))[2] for pk in ids],
        order=sorted(range(len(ids)), key=lambda i: (stored.get(ids[i], (len(ids) + 1,))[0], i)),
    )


# --- System tables (exports) -----------------------------------------------------------------

# In the order of HTERSystemRow's fields.
HTER_FIELDS = (
    "rank_best",
    "rank_worst",
    "system__name",
    "corpus",
    "corpus_ci_low",
    "corpus_ci_high",
    "mean",
    "mean_ci_low",
    "mean_ci_high",
    "n_outputs",
    "n_edits",
    "n_verified",
    "cluster",
)
HTER_VARIANTS = {False: "flagged editors left out", True: "every editor"}
WRITERS = {
    "csv": lambda rows, caption: formats.hter_systems_csv(rows),
    "tsv": lambda rows, caption: formats.hter_systems_tsv(rows),
    "latex": lambda rows, caption: formats.hter_systems_latex(rows, caption),
}


def post_editing_system_table(
    campaign: Campaign, options: dict[str, Any], fmt: str
) -> tuple[str, str]:
    """The stored HTER of the variant in ``fmt`` with a caption (LaTeX) naming the TER
    signature, and the file name's suffix ("-all" for every editor)."""
    include = options["include_flagged"]
    result = PostEditingResult.objects.filter(campaign=campaign).first()
    if result is None:
        raise NotComputed(
            f"The statistics of campaign {campaign.pk} have not been computed yet: it has no "
            "edit, or the first computation is still queued."
        )
    rows = [
        formats.HTERSystemRow(*values)
        for values in PostEditingSystemScore.objects.filter(
            campaign=campaign, include_flagged=include
        )
        .order_by("position")
        .values_list(*HTER_FIELDS)
    ]
    pair = f"{campaign.source_language}-{campaign.target_language}"
    caption = (
        f"{campaign.name} ({pair}, post-editing), {HTER_VARIANTS[include]}: HTER, lower is "
        "better (total edits / total reference words, with its 95% bootstrap interval; Mean: "
        "mean segment HTER); # is the rank range; rules separate significance clusters "
        f"(paired Wilcoxon on segment HTER). TER: {result.ter_signature}."
    )
    return WRITERS[fmt](rows, caption), "-all" if include else ""
