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

from analytics.kinds import registry
from campaigns.models import Campaign, Hit, System
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


class KindQueryParams(serializers.Serializer):
    """Query parameters of the campaign's kind (``AnalyticsKind.query_fields``) for
    ``endpoint``, every registered kind's (validated for every campaign; each kind reads its
    own), before the endpoint's own declared ones."""

    endpoint = ""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields: dict[str, serializers.Field] = {}
        for statistics in registry:
            fields.update(statistics.query_fields(self.endpoint))
        return {**fields, **super().get_fields()}


class ScoreParamsSerializer(KindQueryParams):
    """Which stored variant of the scores to read (and, for kinds with several scoring
    methods, which method)."""

    endpoint = "scores"


class SignificanceParamsSerializer(KindQueryParams):
    endpoint = "significance"


class SegmentParamsSerializer(KindQueryParams):
    endpoint = "segments"
    system = serializers.IntegerField(
        required=False, help_text="Only this system's rows (a system id of the campaign)."
    )


def with_kind_fields(
    fields: dict[str, serializers.Field], after: str, extra: dict[str, serializers.Field]
) -> dict[str, serializers.Field]:
    """``fields`` with ``extra`` (the kinds' fields) inserted after the field ``after``."""
    out: dict[str, serializers.Field] = {}
    for name, field in fields.items():
        out[name] = field
        if name == after:
            out.update(extra)
    return out


# --- Campaigns ---------------------------------------------------------------------------------


class AssignmentCountsSerializer(serializers.Serializer):
    """Assignments by status (annotations ``assignments_<status>``)."""

    started = serializers.IntegerField(source="assignments_started")
    submitted = serializers.IntegerField(source="assignments_submitted")
    approved = serializers.IntegerField(source="assignments_approved")
    rejected = serializers.IntegerField(source="assignments_rejected")
    expired = serializers.IntegerField(source="assignments_expired")
    returned = serializers.IntegerField(source="assignments_returned")


class BeyondPlacesSerializer(serializers.Serializer):
    assignments = serializers.IntegerField()
    judgments = serializers.IntegerField()
    note = serializers.CharField(help_text="Why they are left out; empty when there are none.")


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
    # From analytics.progress (attached by the view as ``campaign.progress_detail``): the same
    # computation as the admin's panels and the worker's entry page (issue 17).
    places = serializers.SerializerMethodField(
        help_text="Places over the regular HITs: each HIT's own number of workers, else the "
        "campaign's redundancy now."
    )
    places_done = serializers.SerializerMethodField(
        help_text="Submitted or approved assignments, each HIT counting at most its places."
    )
    share_done = serializers.SerializerMethodField(
        help_text="places_done / places (never above 1); null while the campaign has no HIT."
    )
    judgments_needed = serializers.SerializerMethodField(
        help_text="The sum over regular HITs of slots x places."
    )
    judgments_counted = serializers.SerializerMethodField(
        help_text="Judgments in assignments holding a place (started, submitted, approved), "
        "each HIT counting at most slots x places."
    )
    beyond_places = serializers.SerializerMethodField(
        help_text="Work beyond the HITs' places (handed out before the redundancy was "
        "lowered): kept and scored, left out of the progress."
    )

    def get_places(self, campaign: Campaign) -> int:
        return campaign.progress_detail.places

    def get_places_done(self, campaign: Campaign) -> int:
        return campaign.progress_detail.places_done

    def get_share_done(self, campaign: Campaign) -> float | None:
        return campaign.progress_detail.share_done

    def get_judgments_needed(self, campaign: Campaign) -> int:
        return campaign.progress_detail.units_needed

    def get_judgments_counted(self, campaign: Campaign) -> int:
        return campaign.progress_detail.units_in

    @extend_schema_field(BeyondPlacesSerializer)
    def get_beyond_places(self, campaign: Campaign) -> dict[str, Any]:
        progress = campaign.progress_detail
        return {
            "assignments": progress.assignments_beyond,
            "judgments": progress.units_beyond,
            "note": progress.explanation,
        }


class CostSerializer(serializers.Serializer):
    # (No docstring: it would become the schema's description.) The campaign report's figures
    # and words (analytics.reports.cost): "paid" means approved and sent, as on the report;
    # the submitted assignments awaiting review are "committed", not "paid".
    currency = serializers.CharField()
    reward = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        help_text="The campaign's reward per assignment now: what new assignments of HITs "
        "without a reward of their own are offered. Work already taken keeps the reward it "
        "was taken at, and HITs on MTurk the reward they were published with.",
    )
    approved_assignments = serializers.IntegerField(
        help_text="Approved assignments: paid (the report's line 'Approved (paid)')."
    )
    awaiting_review_assignments = serializers.IntegerField(
        help_text="Submitted assignments not yet approved or rejected: paid when approved, "
        "or automatically after the auto-approval delay unless rejected (the report's line "
        "'Submitted, awaiting review')."
    )
    committed_assignments = serializers.IntegerField(
        help_text="approved_assignments + awaiting_review_assignments. Qualification tests "
        "included; work on MTurk's sandbox counted at no cost; imported judgments not counted."
    )
    rewards = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="The rewards of the committed assignments, each at the reward it was taken "
        "at (not the campaign's reward of today).",
    )
    bonuses_sent = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="Bonuses MTurk confirmed as paid (none on sandbox HITs).",
    )
    mturk_fees = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="MTurk's fee on the committed rewards and the bonuses sent, on the production "
        "marketplace, per assignment and per bonus, rounded to the cent.",
    )
    prolific_fees = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="Prolific's service fee (33.33%, VAT not included) on the committed rewards "
        "and the bonuses sent of Prolific participants, rounded to the cent per submission.",
    )
    paid = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="Spent: approved assignments and bonuses sent, with their fees (the report's "
        "'Paid so far').",
    )
    committed = serializers.DecimalField(
        max_digits=14,
        decimal_places=2,
        help_text="paid + the assignments awaiting review with their fees (the report's "
        "'Committed'): rewards + bonuses_sent + mturk_fees + prolific_fees. The report "
        "(campaigns/{id}/report/) adds work in progress and places still to fill.",
    )
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
    # (No docstring: it would become the schema's description.) The kinds' own fields
    # (AnalyticsKind.campaign_fields, annotated by campaign_annotations(), e.g. direct
    # assessment's assessment_mode) follow the campaign's status.
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

    def get_fields(self) -> dict[str, serializers.Field]:
        extra = {
            name: field
            for statistics in registry
            for name, (field, _) in statistics.campaign_fields().items()
        }
        return with_kind_fields(super().get_fields(), "status_reason", extra)

    @extend_schema_field(ResultsSummarySerializer(allow_null=True))
    def get_results(self, campaign: Campaign) -> dict[str, Any] | None:
        if campaign.results_computed_at is None:
            return None
        return ResultsSummarySerializer(campaign).data


def campaign_annotations() -> dict[str, Any]:
    """The annotations of the campaign list that the kinds' campaign fields read."""
    return {
        name: annotation
        for statistics in registry
        for name, (_, annotation) in statistics.campaign_fields().items()
    }


# --- Systems and scores ------------------------------------------------------------------------


class SystemSerializer(serializers.ModelSerializer):
    # (No docstring: it would become the schema's description.) The kinds' score fields
    # (AnalyticsKind.system_fields): the scores of the campaign's kind in the chosen variant,
    # empty or null in the other kinds' fields.
    class Meta:
        model = System
        fields = ["id", "name", "is_reference"]
        read_only_fields = fields

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        for statistics in registry:
            fields.update(statistics.system_fields())
        return fields


class SignificanceSystemSerializer(serializers.Serializer):
    id = serializers.IntegerField(
        allow_null=True,
        help_text="The system's id; null for reading comprehension's human translation (the "
        "control), which is no system.",
    )
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
        "comparisons with other systems' outputs. Post-editing: edits of the output."
    )
    mean_score = serializers.FloatField(allow_null=True, help_text="Direct assessment.")
    mean_z = serializers.FloatField(allow_null=True, help_text="Direct assessment.")
    wins = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    ties = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    losses = serializers.IntegerField(allow_null=True, help_text="Ranking.")
    n_ranked = serializers.IntegerField(allow_null=True, help_text="Ranking: outputs ranked.")
    mean_rank = serializers.FloatField(allow_null=True, help_text="Ranking: 1 = best.")
    hter = serializers.FloatField(
        allow_null=True,
        help_text="Post-editing: the output's HTER (its best passed edit's TER, else its TER "
        "against the reference).",
    )
    n_passed = serializers.IntegerField(
        allow_null=True,
        help_text="Post-editing: edits that passed verification (or have no vote yet).",
    )


# --- Workers -----------------------------------------------------------------------------------


class WorkerTimingSerializer(serializers.Serializer):
    n_timed = serializers.IntegerField(help_text="Judgments with a duration.")
    mean_seconds = serializers.FloatField(allow_null=True)
    median_seconds = serializers.FloatField(allow_null=True)
    total_seconds = serializers.FloatField(allow_null=True)


class WorkerStatisticsSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the campaign's stored statistics (the kind's row of the worker: "
        "reliability, trust, profile) were computed; null before the first computation.",
    )
    n_judgments = serializers.IntegerField(
        allow_null=True,
        help_text="The worker's judgments in the campaign stored by then: what the stored "
        "statistics could reflect (the kind's row says which of them count). Below the live "
        "n_judgments while a recompute is pending; null before the first computation.",
    )


def prefixed(worker: Worker, prefix: str, serializer: type[serializers.Serializer]) -> dict:
    """The annotations ``<prefix>_<field>`` of ``worker``, for each field of ``serializer``
    (a kind's stored row of the worker, ``AnalyticsKind.annotate_workers``)."""
    return {name: getattr(worker, f"{prefix}_{name}") for name in serializer().fields}


class WorkerSerializer(serializers.ModelSerializer):
    country_source = serializers.ChoiceField(choices=CountrySource.choices, allow_blank=True)
    excluded = serializers.BooleanField(help_text="Excluded by the requester from every score.")
    untrusted = serializers.BooleanField(help_text="Marked untrusted (ranking gold units).")
    qualification_passed = serializers.BooleanField(allow_null=True)
    years_source_language = serializers.IntegerField(allow_null=True)
    years_target_language = serializers.IntegerField(allow_null=True)
    n_assignments = serializers.IntegerField()
    n_judgments = serializers.IntegerField(
        source="timing.n_judgments",
        help_text="The worker's judgments in the campaign now (live, like timing).",
    )
    timing = WorkerTimingSerializer(
        help_text="Seconds per judgment: the browser's measure, else the server's."
    )
    statistics = WorkerStatisticsSerializer(
        help_text="When the stored statistics of the worker were computed, and over how many "
        "of their judgments (n_judgments and timing are live)."
    )

    class Meta:
        model = Worker
        fields = [
            "id",
            "platform",
            "external_id",
            "label",
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
            "timing",
            "statistics",
        ]
        read_only_fields = fields

    def get_fields(self) -> dict[str, serializers.Field]:
        # The kinds' stored rows of the worker (AnalyticsKind.worker_fields), e.g. direct
        # assessment's reliability and ranking's trust, before the timing.
        extra: dict[str, serializers.Field] = {}
        for statistics in registry:
            extra.update(statistics.worker_fields())
        return with_kind_fields(super().get_fields(), "n_judgments", extra)


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
    task = serializers.CharField(
        help_text="What the HIT asked (rank, assess, post_edit, verify_edit, rc_author, "
        "rc_select, rc_answer, rc_grade, translate, detect_mt): a reading-comprehension "
        "campaign's stage."
    )
    slot_position = serializers.IntegerField()
    slot_group = serializers.IntegerField()
    role = serializers.CharField(help_text="The slot's role (system, repeat, bad_reference ...).")
    about_judgment = serializers.IntegerField(
        allow_null=True,
        help_text="The judgment this one is about: the answer a reading-comprehension grade "
        "marks, the edit a verification checks; null otherwise.",
    )
    system_id = serializers.IntegerField(allow_null=True)
    system = serializers.CharField(
        source="system_name",
        allow_null=True,
        help_text="The system judged: of the output shown (for a repeat or bad reference: of "
        "the output behind it), or, in reading comprehension, the system whose translation "
        "the answering HIT showed. Null for slots without one: a gold translation, the human "
        "translation of reading comprehension (the control), questions, votes, grades (see "
        "about_judgment).",
    )
    document_external_id = serializers.CharField(
        allow_null=True,
        help_text="The document of the segment judged, or the article of a "
        "reading-comprehension HIT.",
    )
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
            "task",
            "slot_position",
            "slot_group",
            "role",
            "about_judgment",
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
