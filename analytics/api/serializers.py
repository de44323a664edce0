"""What the API's read-only endpoints return, field by field.

The figures come from annotations and attached values (``analytics.api.queries``), never from
a query per row; the serializers only shape them. Every field has a type drf-spectacular can
read, so the OpenAPI schema describes each response exactly. Analysts see slot roles and
system names: it is the workers' pages that must never carry them (DESIGN.md).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers

from analytics.models import RankingMethod, RankingScore, SystemScore
from campaigns.models import AssessmentMode, Campaign, Hit, System
from judgments.models import Assignment, CountrySource, Judgment, Worker

# --- Errors ----------------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, for a person to read.")


# What a 400 carries: the parameter names with their problems.
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
    "example": {"include_unreliable": ["Must be a valid boolean."]},
}

ERROR_RESPONSES = {
    400: OpenApiResponse(
        VALIDATION_ERROR_SCHEMA, "A query parameter is not valid; the message names it."
    ),
    401: OpenApiResponse(
        ErrorSerializer,
        "No credentials, or not valid ones: a missing, revoked or unknown token, an inactive "
        "account, or a worker's link token (workers are not API users).",
    ),
    404: OpenApiResponse(
        ErrorSerializer,
        "No campaign with this id that you may read (also when it exists), no such row in "
        "it, or no such page.",
    ),
}


# --- Query parameters --------------------------------------------------------------------------


class ScoreParamsSerializer(serializers.Serializer):
    """Which stored variant of the scores to read."""

    include_unreliable = serializers.BooleanField(
        default=False,
        help_text="Direct assessment: scores over every worker instead of the reliable ones "
        "only (the default, as in the 2014 paper). Excluded workers and rejected assignments "
        "count in neither.",
    )
    include_untrusted = serializers.BooleanField(
        default=False,
        help_text="Ranking: scores over every worker instead of the trusted ones only (the "
        "default: workers who failed their gold units are left out, 002 section 4).",
    )
    method = serializers.ChoiceField(
        choices=RankingMethod.choices,
        required=False,
        help_text="Ranking: one scoring method only; systems are then ordered by it.",
    )


class SignificanceParamsSerializer(ScoreParamsSerializer):
    method = serializers.ChoiceField(
        choices=[
            (value, label)
            for value, label in RankingMethod.choices
            if value != RankingMethod.TRUESKILL
        ],
        required=False,
        help_text="Ranking: whose bootstrap p-values to show (default expected_wins, WMT13's "
        "official method). TrueSkill has no bootstrap, so no p-values.",
    )


class SegmentParamsSerializer(ScoreParamsSerializer):
    method = None  # segment scores are counted, not scored by a method
    system = serializers.IntegerField(
        required=False, help_text="Only this system's rows (a system id of the campaign)."
    )


# --- Campaigns ---------------------------------------------------------------------------------


class AssignmentCountsSerializer(serializers.Serializer):
    """Assignments by status (annotations ``assignments_<status>``)."""

    started = serializers.IntegerField(source="assignments_started")
    submitted = serializers.IntegerField(source="assignments_submitted")
    approved = serializers.IntegerField(source="assignments_approved")
    rejected = serializers.IntegerField(source="assignments_rejected")
    expired = serializers.IntegerField(source="assignments_expired")
    returned = serializers.IntegerField(source="assignments_returned")


class ProgressSerializer(serializers.Serializer):
    hits = serializers.IntegerField(
        source="n_hits", help_text="Regular HITs (qualification tests aside)."
    )
    qualification_hits = serializers.IntegerField(source="n_qualification_hits")
    assignments = AssignmentCountsSerializer(
        source="*", help_text="Every assignment of the campaign by status."
    )
    judgments = serializers.IntegerField(source="n_judgments")
    done_assignments = serializers.IntegerField(
        source="n_done", help_text="Submitted or approved assignments on regular HITs."
    )
    places = serializers.SerializerMethodField(help_text="Regular HITs x redundancy.")
    share_done = serializers.SerializerMethodField(
        help_text="done_assignments / places; null while the campaign has no HIT."
    )

    def get_places(self, campaign: Campaign) -> int:
        return campaign.n_hits * campaign.redundancy

    def get_share_done(self, campaign: Campaign) -> float | None:
        places = self.get_places(campaign)
        return campaign.n_done / places if places else None


class CostSerializer(serializers.Serializer):
    currency = serializers.CharField()
    reward = serializers.DecimalField(
        max_digits=12, decimal_places=2, help_text="Reward per assignment."
    )
    paid_assignments = serializers.IntegerField(
        help_text="Submitted or approved assignments (submitted ones are approved and paid "
        "automatically unless rejected), except those on HITs in MTurk's sandbox, which pays "
        "nobody."
    )
    rewards = serializers.DecimalField(
        max_digits=14, decimal_places=2, help_text="reward x paid_assignments."
    )
    bonuses = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="Bonuses MTurk confirmed as paid (none on sandbox HITs).",
    )
    mturk_fees = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="MTurk's fee on the rewards and bonuses of HITs on the production "
        "marketplace, per assignment and per bonus, rounded to the cent (0 elsewhere).",
    )
    total = serializers.DecimalField(max_digits=14, decimal_places=2)
    on_mturk = serializers.BooleanField(help_text="Some HIT was published on MTurk.")
    on_mturk_production = serializers.BooleanField(
        help_text="Some HIT was published on MTurk's production marketplace (not the sandbox)."
    )


class ResultsSummarySerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(source="results_computed_at")
    n_judgments = serializers.IntegerField(source="results_n_judgments")
    n_scored_judgments = serializers.IntegerField(source="results_n_scored_judgments")
    n_workers = serializers.IntegerField(source="results_n_workers")


class CampaignSerializer(serializers.ModelSerializer):
    # Declared: a read-only ModelSerializer field loses allow_blank, and the schema must say
    # that campaigns other than direct assessment have no mode ("").
    assessment_mode = serializers.ChoiceField(choices=AssessmentMode.choices, allow_blank=True)
    owner = serializers.CharField(
        source="owner_username", allow_null=True, help_text="The owning requester's username."
    )
    progress = ProgressSerializer(source="*")
    cost = CostSerializer()
    results = serializers.SerializerMethodField(
        help_text="The stored statistics' summary; null until they have been computed."
    )

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "kind",
            "status",
            "status_reason",
            "assessment_mode",
            "source_language",
            "target_language",
            "owner",
            "imported_from",
            "redundancy",
            "reward",
            "created_at",
            "progress",
            "cost",
            "results",
        ]
        read_only_fields = fields

    @extend_schema_field(ResultsSummarySerializer(allow_null=True))
    def get_results(self, campaign: Campaign) -> dict[str, Any] | None:
        if campaign.results_computed_at is None:
            return None
        return ResultsSummarySerializer(campaign).data


# --- Systems and scores ------------------------------------------------------------------------


class DAScoreSerializer(serializers.ModelSerializer):
    mean_score = serializers.FloatField(
        allow_null=True,
        help_text="Null when some of the system's judgments were imported as z-scores only.",
    )
    rank_range = serializers.CharField(help_text="'3' or '2–4' (WMT's rank range).")

    class Meta:
        model = SystemScore
        fields = [
            "include_unreliable",
            "position",
            "n",
            "mean_score",
            "mean_z",
            "cluster",
            "rank_best",
            "rank_worst",
            "rank_range",
        ]
        read_only_fields = fields


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


class SystemSerializer(serializers.ModelSerializer):
    direct_assessment = serializers.SerializerMethodField(
        help_text="Direct assessment: the system's score in the chosen variant; null for "
        "other kinds or while not computed."
    )
    ranking = serializers.SerializerMethodField(
        help_text="Ranking: one row per scoring method (win ratios with and without ties, "
        "Expected Wins, Bradley-Terry, TrueSkill) in the chosen variant; empty for other kinds."
    )

    class Meta:
        model = System
        fields = ["id", "name", "is_reference", "direct_assessment", "ranking"]
        read_only_fields = fields

    @extend_schema_field(DAScoreSerializer(allow_null=True))
    def get_direct_assessment(self, system: System) -> dict[str, Any] | None:
        scores = getattr(system, "da_variant", [])
        return DAScoreSerializer(scores[0]).data if scores else None

    @extend_schema_field(RankingScoreSerializer(many=True))
    def get_ranking(self, system: System) -> list[dict[str, Any]]:
        return RankingScoreSerializer(getattr(system, "ranking_variant", []), many=True).data


class SignificanceSystemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.FloatField(
        allow_null=True, help_text="Mean z (direct assessment) or the method's score."
    )
    cluster = serializers.IntegerField(allow_null=True)


class SignificanceSerializer(serializers.Serializer):
    kind = serializers.CharField()
    variant = serializers.CharField(help_text="reliable / trusted (the default) or all.")
    method = serializers.CharField(
        allow_null=True, help_text="Ranking: the method whose p-values these are."
    )
    test = serializers.CharField(
        help_text="How the p-values were obtained (one-sided Wilcoxon rank-sum on z-scores, "
        "or the bootstrap share of resamples where the row system does not win)."
    )
    computed_at = serializers.DateTimeField(allow_null=True)
    systems = SignificanceSystemSerializer(many=True, help_text="Best first.")
    p_values = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        help_text="p_values[i][j]: p-value of 'system i is better than system j' (null on "
        "the diagonal).",
    )
    marks = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True)),
        help_text="'*', '**', '***' for p below 0.05, 0.01, 0.001 (2014 Tables 4-5).",
    )


class SegmentScoreSerializer(serializers.Serializer):
    segment_id = serializers.IntegerField()
    document_external_id = serializers.CharField()
    segment_external_id = serializers.CharField()
    system_id = serializers.IntegerField()
    system = serializers.CharField()
    n = serializers.IntegerField(
        help_text="Direct assessment: judgments (outputs and repeats). Ranking: pairwise "
        "comparisons with other systems' outputs."
    )
    mean_score = serializers.FloatField(allow_null=True, help_text="Direct assessment.")
    mean_z = serializers.FloatField(allow_null=True, help_text="Direct assessment.")
    wins = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    ties = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    losses = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    n_ranked = serializers.IntegerField(allow_null=True, help_text="Ranking: outputs ranked.")
    mean_rank = serializers.FloatField(allow_null=True, help_text="Ranking: 1 = best.")


# --- Workers -----------------------------------------------------------------------------------


class WorkerReliabilitySerializer(serializers.Serializer):
    reliable = serializers.BooleanField()
    p_value = serializers.FloatField(allow_null=True)
    test = serializers.CharField()
    n_pairs = serializers.IntegerField()
    n_bad_ref_pairs = serializers.IntegerField()
    n_repeat_pairs = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    recommendation = serializers.CharField()


class WorkerTrustSerializer(serializers.Serializer):
    status = serializers.CharField()
    gold_seen = serializers.IntegerField()
    gold_correct = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True)
    flagged = serializers.BooleanField()
    in_scores = serializers.BooleanField()


class WorkerTimingSerializer(serializers.Serializer):
    n_timed = serializers.IntegerField(help_text="Judgments with a duration.")
    mean_seconds = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)
    total_seconds = serializers.FloatField(allow_null=True)


def _prefixed(worker: Worker, prefix: str, serializer: type[serializers.Serializer]) -> dict:
    return {name: getattr(worker, f"{prefix}_{name}") for name in serializer().fields}


class WorkerSerializer(serializers.ModelSerializer):
    country_source = serializers.ChoiceField(choices=CountrySource.choices, allow_blank=True)
    excluded = serializers.BooleanField(help_text="Excluded by the requester from every score.")
    untrusted = serializers.BooleanField(help_text="Marked untrusted (ranking gold units).")
    qualification_passed = serializers.BooleanField(allow_null=True)
    years_source_language = serializers.IntegerField(allow_null=True)
    years_target_language = serializers.IntegerField(allow_null=True)
    n_assignments = serializers.IntegerField()
    n_judgments = serializers.IntegerField(source="timing.n_judgments")
    reliability = serializers.SerializerMethodField(
        help_text="Direct assessment: the worker's reliability test; null otherwise."
    )
    trust = serializers.SerializerMethodField(
        help_text="Ranking: the worker's gold units and trust; null otherwise."
    )
    timing = WorkerTimingSerializer(
        help_text="Seconds per judgment: the browser's measure, else the server's."
    )

    class Meta:
        model = Worker
        fields = [
            "id",
            "platform",
            "external_id",
            "native_language",
            "country",
            "country_source",
            "years_source_language",
            "years_target_language",
            "qualification_passed",
            "blocked_at",
            "excluded",
            "untrusted",
            "n_assignments",
            "n_judgments",
            "reliability",
            "trust",
            "timing",
        ]
        read_only_fields = fields

    @extend_schema_field(WorkerReliabilitySerializer(allow_null=True))
    def get_reliability(self, worker: Worker) -> dict[str, Any] | None:
        if worker.reliability_id is None:
            return None
        return _prefixed(worker, "reliability", WorkerReliabilitySerializer)

    @extend_schema_field(WorkerTrustSerializer(allow_null=True))
    def get_trust(self, worker: Worker) -> dict[str, Any] | None:
        if worker.trust_id is None:
            return None
        return _prefixed(worker, "trust", WorkerTrustSerializer)


# --- HITs, assignments, judgments -------------------------------------------------------------


class HitSerializer(serializers.ModelSerializer):
    slots = serializers.IntegerField(source="n_slots")
    assignments = AssignmentCountsSerializer(source="*")
    mturk_hit_id = serializers.CharField(allow_null=True)

    class Meta:
        model = Hit
        fields = [
            "id",
            "number",
            "task",
            "is_qualification",
            "created_at",
            "slots",
            "assignments",
            "mturk_hit_id",
        ]
        read_only_fields = fields


class AssignmentSerializer(serializers.ModelSerializer):
    hit = serializers.IntegerField(source="hit.number", help_text="The HIT's number.")
    worker_external_id = serializers.CharField(source="worker.external_id")
    worker_platform = serializers.CharField(source="worker.platform")
    n_judgments = serializers.IntegerField()

    class Meta:
        model = Assignment
        fields = [
            "id",
            "hit",
            "hit_id",
            "worker_id",
            "worker_external_id",
            "worker_platform",
            "status",
            "platform_assignment_id",
            "platform_hit_id",
            "platform_status",
            "started_at",
            "submitted_at",
            "reviewed_at",
            "expires_at",
            "n_judgments",
        ]
        read_only_fields = fields


class JudgmentSerializer(serializers.ModelSerializer):
    campaign = serializers.IntegerField(source="campaign_id")
    assignment = serializers.IntegerField(source="assignment_id")
    hit = serializers.IntegerField(source="hit_number", help_text="The HIT's number.")
    slot_position = serializers.IntegerField()
    slot_group = serializers.IntegerField()
    role = serializers.CharField(help_text="The slot's role (system, repeat, bad_reference ...).")
    system_id = serializers.IntegerField(allow_null=True)
    system = serializers.CharField(
        source="system_name",
        allow_null=True,
        help_text="The system of the output judged (for a repeat or bad reference: of the "
        "output behind it); null for slots without an output (e.g. a gold translation).",
    )
    document_external_id = serializers.CharField(allow_null=True)
    segment_external_id = serializers.CharField(allow_null=True)
    worker = serializers.IntegerField(source="worker_id")
    worker_external_id = serializers.CharField()
    assignment_status = serializers.CharField()

    class Meta:
        model = Judgment
        fields = [
            "id",
            "campaign",
            "assignment",
            "hit",
            "slot_position",
            "slot_group",
            "role",
            "system_id",
            "system",
            "document_external_id",
            "segment_external_id",
            "worker",
            "worker_external_id",
            "assignment_status",
            "score",
            "given_z",
            "rank",
            "text",
            "yes_no",
            "yes_no_second",
            "client_duration_ms",
            "server_duration_ms",
            "submitted_at",
        ]
        read_only_fields = fields
