"""Ranking in the analysts' API: its query parameters, the fields it fills in the shared
endpoints (a system's scores by every method, a worker's gold-unit trust), segment scores,
the stored bootstrap significance and the system-table exports.

The shared endpoints (``analytics.api``) reach these through the kind
(``analytics.kinds.ranking.kind.Ranking``).
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
from analytics.kinds.ranking.loading import load_ranking_judgments
from analytics.kinds.ranking.panel import chosen_method
from analytics.models import (
    RankingMethod,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    trust_variant_key,
)
from campaigns.models import Campaign, System, TaskKind
from judgments.models import Worker

__all__ = [
    "BOOTSTRAP_TEST",
    "DEFAULT_SIGNIFICANCE_METHOD",
    "RankingScoreSerializer",
    "WorkerTrustSerializer",
    "annotate_workers",
    "campaign_fields",
    "chosen_method",
    "query_fields",
    "ranking_segment_scores",
    "ranking_significance",
    "ranking_system_table",
    "system_fields",
    "system_queryset",
    "worker_fields",
]

# --- Query parameters ------------------------------------------------------------------------


def query_fields(endpoint: str) -> dict[str, serializers.Field]:
    """``include_untrusted`` wherever scores are read, and ``method`` where there is one per
    method (``AnalyticsKind.query_fields``)."""
    if endpoint == "export":
        return {
            "include_untrusted": serializers.BooleanField(
                default=False,
                help_text="Ranking: scores over every worker instead of trusted (and undecided) "
                "workers only. Ignored for direct assessment.",
            ),
            "method": serializers.ChoiceField(
                choices=RankingMethod.choices,
                required=False,
                # An empty ?method= means every method, as if it were left out.
                allow_blank=True,
                help_text="Ranking: only this scoring method (default, or empty: every "
                "method). Ignored for direct assessment.",
            ),
        }
    fields: dict[str, serializers.Field] = {
        "include_untrusted": serializers.BooleanField(
            default=False,
            help_text="Ranking: scores over every worker instead of the trusted ones only (the "
            "default: workers who failed their gold units are left out, 002 section 4).",
        )
    }
    if endpoint == "scores":
        fields["method"] = serializers.ChoiceField(
            choices=RankingMethod.choices,
            required=False,
            help_text="Ranking: one scoring method only; systems are then ordered by it.",
        )
    elif endpoint == "significance":
        fields["method"] = serializers.ChoiceField(
            choices=[
                (value, label)
                for value, label in RankingMethod.choices
                if value != RankingMethod.TRUESKILL
            ],
            required=False,
            help_text="Ranking: whose bootstrap p-values to show (default: the campaign's "
            "rank_by, or expected_wins, WMT13's official method, when it ranks by TrueSkill, "
            "which has no bootstrap and so no p-values).",
        )
    # "segments": segment scores are counted, not scored by a method.
    return fields


# --- Campaigns -------------------------------------------------------------------------------


def campaign_fields() -> dict[str, tuple[serializers.Field, Combinable]]:
    """The score a ranking campaign ranks its systems by and its reference system; "" for
    other kinds (and for a ranking campaign without a reference)."""
    return {
        "rank_by": (
            serializers.ChoiceField(
                choices=RankingMethod.choices,
                allow_blank=True,
                help_text="Ranking: the score that ranks the systems; empty for other kinds.",
            ),
            Coalesce(F("ranking_settings__rank_by"), Value("")),
        ),
        "reference_system": (
            serializers.CharField(
                allow_blank=True,
                help_text="Ranking: the system that is the human reference (left out of the "
                "scores unless the campaign keeps it); empty when none is named.",
            ),
            Coalesce(F("ranking_settings__reference_system"), Value("")),
        ),
    }


# --- Systems and scores ----------------------------------------------------------------------


class RankingScoreSerializer(serializers.ModelSerializer):
    rank_range = serializers.CharField()

    class Meta:
        model = RankingScore
        fields = [
            "method",
            "include_untrusted",
            "position",
            "score",
            "ci_low",
            "ci_high",
            "sigma",
            "n",
            "wins",
            "ties",
            "losses",
            "cluster",
            "rank_best",
            "rank_worst",
            "rank_range",
        ]
        read_only_fields = fields


@extend_schema_field(RankingScoreSerializer(many=True))
class SystemScoresField(serializers.Field):
    """A system's stored scores by every method in the chosen variant (prefetched as
    ``ranking_variant``); empty for other kinds."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, system: System) -> list[dict[str, Any]]:
        return RankingScoreSerializer(getattr(system, "ranking_variant", []), many=True).data


def system_fields() -> dict[str, serializers.Field]:
    return {
        "ranking": SystemScoresField(
            help_text="Ranking: one row per scoring method (the three win ratios: ties as wins, "
            "ties not counted, ties left out as WMT12's '> others'; Expected Wins, "
            "Bradley-Terry, TrueSkill) in the chosen variant, each with its counts (n, wins, "
            "ties, losses); empty for other kinds."
        )
    }


def system_queryset(
    systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
) -> tuple[QuerySet[System], Combinable]:
    """Systems with their scores of the variant (``ranking_variant``, every method or
    ``?method=``'s), and their position by ``?method=`` or else by the campaign's chosen
    score (``rank_by``; Expected Wins unless the requester chose another)."""
    method = params.get("method")
    variant = RankingScore.objects.filter(
        campaign=campaign, include_untrusted=params["include_untrusted"]
    )
    shown = variant.filter(method=method) if method else variant
    systems = systems.prefetch_related(
        Prefetch("ranking_scores", shown.order_by("method"), to_attr="ranking_variant")
    )
    return systems, position_in(variant.filter(method=method or chosen_method(campaign)))


# --- Workers ---------------------------------------------------------------------------------

# The stored trust row's fields the API shows (RankingWorkerStat), as ``trust_<field>``.
TRUST_FIELDS = ("status", "gold_seen", "gold_correct", "accuracy", "flagged", "in_scores")


class WorkerTrustSerializer(serializers.Serializer):
    status = serializers.CharField()
    gold_seen = serializers.IntegerField()
    gold_correct = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True)
    flagged = serializers.BooleanField()
    in_scores = serializers.BooleanField()


def annotate_workers(workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
    """Each worker's stored trust row in the campaign (a LEFT JOIN), as ``trust_<field>``."""
    return workers.annotate(
        trust=FilteredRelation("ranking_stats", condition=Q(ranking_stats__campaign=campaign)),
    ).annotate(
        trust_id=F("trust__id"),
        **{f"trust_{name}": F(f"trust__{name}") for name in TRUST_FIELDS},
    )


@extend_schema_field(WorkerTrustSerializer(allow_null=True))
class TrustField(serializers.Field):
    """The worker's gold units and trust in the campaign; null without a stored row."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, worker: Worker) -> dict[str, Any] | None:
        if worker.trust_id is None:
            return None
        return prefixed(worker, "trust", WorkerTrustSerializer)


def worker_fields() -> dict[str, serializers.Field]:
    return {
        "trust": TrustField(help_text="Ranking: the worker's gold units and trust; null otherwise.")
    }


# --- Segment scores --------------------------------------------------------------------------


def ranking_segment_scores(campaign: Campaign, *, include_untrusted: bool) -> SegmentTable:
    """Pairwise wins, ties and losses and the mean rank per (segment, system) of a ranking
    campaign.

    The rows are those of the stored scores (``analytics.kinds.ranking.actions``): no
    qualification test, rejected assignment or excluded worker; by default also no untrusted
    worker (marked untrusted, or left out of the stored scores by their gold units:
    ``RankingWorkerStat.in_scores``). Comparisons are the pairs of two system outputs in one
    worker's ranking of a set (000 section 4); a gold translation takes part in none. Eight
    queries.
    """
    loaded = load_ranking_judgments(campaign.pk)
    rows = loaded.scored
    if not include_untrusted:
        left_out = np.union1d(
            np.array(
                RankingWorkerStat.objects.filter(campaign=campaign, in_scores=False)
                .order_by()
                .values_list("worker_id", flat=True),
                dtype=np.int64,
            ),
            loaded.untrusted_workers,
        )
        rows = rows & ~np.isin(loaded.judgments.worker, left_out)
    j = loaded.judgments.select(rows)
    ranked = j.system >= 0
    seg, sys, inverse = group_pairs(j.segment[ranked], j.system[ranked])
    k = seg.shape[0]
    n_ranked = np.bincount(inverse, minlength=k).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_rank = np.bincount(inverse, weights=j.rank[ranked], minlength=k) / n_ranked
    pairs = j.pairs if len(j) else None
    wins = np.zeros(k, dtype=np.int64)
    ties = np.zeros(k, dtype=np.int64)
    losses = np.zeros(k, dtype=np.int64)
    if pairs is not None and k:
        between = pairs.between_systems
        segment = np.concatenate([pairs.segment[between]] * 2)
        side = np.concatenate([pairs.system_a[between], pairs.system_b[between]])
        outcome = np.concatenate([pairs.outcome[between], -pairs.outcome[between]])
        # Every compared output was ranked, so its (segment, system) is one of the k pairs,
        # found by one searchsorted on a combined key (systems as small codes: no overflow).
        systems = np.unique(sys)
        width = systems.shape[0]
        keys = seg * width + np.searchsorted(systems, sys)
        at = np.searchsorted(keys, segment * width + np.searchsorted(systems, side))
        wins = np.bincount(at[outcome > 0], minlength=k).astype(np.int64)
        ties = np.bincount(at[outcome == 0], minlength=k).astype(np.int64)
        losses = np.bincount(at[outcome < 0], minlength=k).astype(np.int64)
    return sorted_table(
        TaskKind.RANKING,
        campaign.pk,
        seg,
        sys,
        wins + ties + losses,
        {
            "wins": wins,
            "ties": ties,
            "losses": losses,
            "n_ranked": n_ranked,
            "mean_rank": mean_rank,
        },
    )


# --- Pairwise significance -------------------------------------------------------------------

# The ranking method whose p-values the significance endpoint shows by default: Expected Wins,
# WMT13's official ranking, bootstrapped with rank ranges (analytics.kinds.ranking.actions).
DEFAULT_SIGNIFICANCE_METHOD = RankingMethod.EXPECTED_WINS
BOOTSTRAP_TEST = "bootstrap: (1 + resamples where the row system does not score higher) / (1 + B)"


def ranking_significance(
    campaign: Campaign, *, include_untrusted: bool, method: str | None
) -> StoredSignificance:
    """The bootstrap p-values of ``method`` (default :data:`DEFAULT_SIGNIFICANCE_METHOD`) in
    ``RankingResult.details``, reordered best first by the method's stored positions (two
    queries)."""
    if not method:
        chosen = chosen_method(campaign)
        method = DEFAULT_SIGNIFICANCE_METHOD if chosen == RankingMethod.TRUESKILL else chosen
    variant = trust_variant_key(include_untrusted)
    result = RankingResult.objects.filter(campaign=campaign).first()
    if result is None:
        return StoredSignificance(variant=variant, test=BOOTSTRAP_TEST, method=method)
    details = result.variant(include_untrusted)
    ids = [int(pk) for pk in details.get("systems", [])]
    stored = {
        system: (position, score, cluster)
        for system, position, score, cluster in RankingScore.objects.filter(
            campaign=campaign, method=method, include_untrusted=include_untrusted
        )
        .order_by()
        .values_list("system_id", "position", "score", "cluster")
    }
    return StoredSignificance(
        variant=variant,
        test=BOOTSTRAP_TEST,
        method=method,
        computed_at=result.computed_at,
        systems=ids,
        p_values=stored_matrix(details.get("p_greater", {}).get(method), len(ids)),
        scores={system: row[1] for system, row in stored.items()},
        clusters=[stored.get(pk, (0, None, None))[2] for pk in ids],
        order=sorted(range(len(ids)), key=lambda i: (stored.get(ids[i], (len(ids) + 1,))[0], i)),
    )


# --- System tables (exports) -----------------------------------------------------------------

RANKING_ORDER = [method.value for method in RankingMethod]
# In the order of RankingSystemRow's fields.
RANKING_FIELDS = (
    "method",
    "rank_best",
    "rank_worst",
    "system__name",
    "score",
    "ci_low",
    "ci_high",
    "sigma",
    "n",
    "wins",
    "ties",
    "losses",
    "cluster",
)
RANKING_VARIANTS = {False: "trusted workers only", True: "every worker"}
WRITERS = {
    "csv": lambda rows, captions: formats.ranking_systems_csv(rows),
    "tsv": lambda rows, captions: formats.ranking_systems_tsv(rows),
    "latex": lambda rows, captions: formats.ranking_systems_latex(rows, captions, RANKING_ORDER),
}


def _ranking_rows(
    campaign: Campaign, include_untrusted: bool, method: str | None
) -> list[formats.RankingSystemRow]:
    if not RankingResult.objects.filter(campaign=campaign).exists():
        raise NotComputed(
            f"The statistics of campaign {campaign.pk} have not been computed yet: it has no "
            "ranked judgment, or the first computation is still queued."
        )
    scores = RankingScore.objects.filter(campaign=campaign, include_untrusted=include_untrusted)
    if method:
        scores = scores.filter(method=method)
    rows = [
        formats.RankingSystemRow(*values)
        for values in scores.order_by("position").values_list(*RANKING_FIELDS)
    ]
    # Methods in their declared order (as the admin panel shows them); the sort is stable, so
    # each method's systems stay in position order.
    rows.sort(key=lambda row: RANKING_ORDER.index(row.method))
    return rows


def ranking_system_table(campaign: Campaign, options: dict[str, Any], fmt: str) -> tuple[str, str]:
    """The stored scores of the variant in ``fmt`` (every method, or ``method``'s), one
    caption per method (LaTeX), and the file name's suffix ("-all", "-<method>")."""
    include = options["include_untrusted"]
    method = options.get("method")
    pair = f"{campaign.source_language}-{campaign.target_language}"
    chosen = chosen_method(campaign)
    text = WRITERS[fmt](
        _ranking_rows(campaign, include, method),
        {
            value: f"{campaign.name} ({pair}, ranking), {label}, "
            f"{RANKING_VARIANTS[include]}: # is the rank range; rules separate "
            "significance clusters."
            + (" The campaign ranks its systems by this score." if value == chosen else "")
            for value, label in RankingMethod.choices
        },
    )
    return text, ("-all" if include else "") + (f"-{method}" if method else "")
