"""A campaign's report and "judgments still needed" through the API (issue 17 items 3 and 4).

Routes (under /api/, token or session authentication like every endpoint; a campaign the user
may not read answers 404, as if it did not exist):

- ``campaigns/<id>/report/``: cost so far and projected to completion (rewards and the
  platforms' fees; approved, submitted, in progress, not started and still to come kept
  apart), time per
  assignment, the evaluation period, judgments by trusted and untrusted workers, workers per
  country (``analytics.reports.loading.campaign_report``); ``campaigns/<id>/export/report.csv``
  the same as CSV;
- ``campaigns/<id>/still-needed/``: the pairs of systems the campaign's own significance test
  does not separate yet, with an estimate of the judgments (and their cost) that would
  (``analytics.reports.still_needed``).

The serializers here are the one description of both shapes: the admin's JSON downloads use
them too (``analytics.reports.views``).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.urls import path
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.api.exports import ERRORS, ExportView
from analytics.api.permissions import get_visible_campaign
from analytics.api.serializers import ERROR_RESPONSES
from analytics.reports.export import report_csv
from analytics.reports.loading import campaign_report
from analytics.reports.still_needed import MethodNotAvailable, still_needed

__all__ = ["CampaignReportSerializer", "StillNeededSerializer", "urlpatterns"]

MONEY = {"max_digits": 14, "decimal_places": 2}


# --- The report ------------------------------------------------------------------------------


class CampaignRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="campaign_id")
    name = serializers.CharField(source="campaign_name")
    kind = serializers.CharField()


class CostLineSerializer(serializers.Serializer):
    key = serializers.ChoiceField(
        choices=[
            "approved",
            "submitted",
            "in_progress",
            "not_started",
            "to_come",
            "bonuses_sent",
            "bonuses_pending",
        ]
    )
    label = serializers.CharField(
        help_text="What the line counts; to_come's says which HITs are still to be built."
    )
    count = serializers.IntegerField(
        help_text="Assignments (places for not_started and to_come) or bonuses."
    )
    rewards = serializers.DecimalField(**MONEY, help_text="Rewards (or bonus amounts).")
    fees = serializers.DecimalField(**MONEY, help_text="The platforms' fees on them.")
    total = serializers.DecimalField(**MONEY)


class ReportCostSerializer(serializers.Serializer):
    currency = serializers.CharField()
    paid = serializers.DecimalField(
        **MONEY, help_text="Spent: approved assignments and sent bonuses, with fees."
    )
    committed = serializers.DecimalField(
        **MONEY,
        help_text="paid + submitted assignments (MTurk approves and pays those automatically "
        "after the auto-approval delay unless they are rejected).",
    )
    projected = serializers.DecimalField(
        **MONEY,
        help_text="At completion: committed + assignments in progress + places not started "
        "yet + places of HITs still to be built as work arrives (to_come: post-editing's "
        "verification of edits not in yet) + bonuses not confirmed yet; work taken at the "
        "reward it was taken at, places at the reward they will be offered at, each with its "
        "platform's fee.",
    )
    lines = CostLineSerializer(many=True, source="line_list")
    fees_by_platform = serializers.DictField(
        child=serializers.DecimalField(**MONEY), help_text="Fees of every line by platform."
    )


class TimeSerializer(serializers.Serializer):
    n = serializers.IntegerField(help_text="Done assignments (submitted or approved) timed.")
    n_untimed = serializers.IntegerField(help_text="Done assignments without any duration.")
    median_seconds = serializers.FloatField(allow_null=True, source="median")
    q1_seconds = serializers.FloatField(allow_null=True, source="q1")
    q3_seconds = serializers.FloatField(allow_null=True, source="q3")
    mean_seconds = serializers.FloatField(allow_null=True, source="mean")
    total_hours = serializers.FloatField(
        allow_null=True, help_text="Grading time: the sum over the timed assignments."
    )


class PeriodSerializer(serializers.Serializer):
    first = serializers.DateTimeField(allow_null=True, help_text="The first judgment stored.")
    last = serializers.DateTimeField(allow_null=True, help_text="The last judgment stored.")
    days = serializers.FloatField(allow_null=True)


class TrustRowSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["trusted", "untrusted", "undecided"])
    workers = serializers.IntegerField()
    judgments = serializers.IntegerField()
    share_of_judgments = serializers.FloatField(allow_null=True)


class TrustSerializer(serializers.Serializer):
    meaning = serializers.CharField(source="trust_meaning", help_text="What trusted means here.")
    rows = TrustRowSerializer(many=True, source="trust")


class CountrySerializer(serializers.Serializer):
    country = serializers.CharField(help_text="ISO 3166 code, or 'unknown'.")
    workers = serializers.IntegerField()
    judgments = serializers.IntegerField()


class TaskRewardSerializer(serializers.Serializer):
    task = serializers.CharField(help_text="The HIT task (e.g. verify_edit).")
    label = serializers.CharField()
    own_reward = serializers.DecimalField(
        **MONEY, source="own", allow_null=True, help_text="The kind's setting; null: none set."
    )
    reward = serializers.DecimalField(
        **MONEY, help_text="What one assignment of it is offered now (own, else the campaign's)."
    )


class CampaignReportSerializer(serializers.Serializer):
    campaign = CampaignRefSerializer(source="*")
    generated_at = serializers.DateTimeField()
    reward = serializers.DecimalField(
        **MONEY,
        help_text="The campaign's reward per assignment now: what new assignments of HITs "
        "without a reward of their own are offered (work taken keeps its own).",
    )
    task_rewards = TaskRewardSerializer(
        many=True,
        help_text="HIT tasks of the kind that pay their own reward (post-editing's "
        "verification, translation's and reading comprehension's stages); empty otherwise.",
    )
    redundancy = serializers.IntegerField()
    n_judgments = serializers.IntegerField()
    assignments = serializers.DictField(
        child=serializers.IntegerField(), source="assignments_by_status"
    )
    cost = ReportCostSerializer()
    time_per_assignment = TimeSerializer(source="time")
    evaluation_period = PeriodSerializer(source="period")
    trust = TrustSerializer(source="*")
    countries = CountrySerializer(many=True)


CAMPAIGN_ID = OpenApiParameter(
    "campaign_id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The campaign's id (404 if you may not read the campaign).",
)


class CampaignReportView(APIView):
    @extend_schema(
        operation_id="campaign_report",
        summary="Cost, time, evaluation period, trust and countries of a campaign",
        description="Paul et al. 2013 (section 5.1, Appendix A): cost so far and projected to "
        "completion (rewards plus MTurk's or Prolific's fee; approved, submitted, in progress, "
        "not started and still to come kept apart), time per done assignment (median and "
        "quartiles of the summed judgment durations), the evaluation period (first to last "
        "judgment), judgments and workers by trust, workers per country. Computed on each "
        "request from the campaign's rows (six queries, and two for post-editing's places to "
        "come).",
        parameters=[CAMPAIGN_ID],
        responses={200: CampaignReportSerializer, **ERROR_RESPONSES},
        tags=["reports"],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        return Response(CampaignReportSerializer(campaign_report(campaign)).data)


def report_data(campaign) -> dict[str, Any]:
    """The report as the API gives it (for the admin's JSON and CSV downloads)."""
    return CampaignReportSerializer(campaign_report(campaign)).data


class CampaignReportCSV(ExportView):
    @extend_schema(
        operation_id="campaign_export_report_csv",
        summary="The campaign's report as CSV",
        description="The report (see campaigns/{id}/report/) as one long table: columns "
        "section, item, measure, value (UTF-8, RFC 4180).",
        parameters=[CAMPAIGN_ID],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="A CSV file."),
            **ERRORS,
        },
        tags=["reports"],
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        response = HttpResponse(report_csv(report_data(campaign)), content_type="text/csv")
        response["Content-Disposition"] = content_disposition_header(
            True, f"{slugify(campaign.name) or f'campaign-{campaign.pk}'}-report.csv"
        )
        return response


# --- Judgments still needed ------------------------------------------------------------------


class PairSerializer(serializers.Serializer):
    better = serializers.CharField(help_text="The system ahead by the campaign's score.")
    worse = serializers.CharField()
    better_id = serializers.IntegerField()
    worse_id = serializers.IntegerField()
    p_value = serializers.FloatField(
        allow_null=True, help_text="The kind's one-sided test of 'better beats worse' now."
    )
    effect = serializers.FloatField(
        allow_null=True,
        help_text="Rank-sum tests: P(better > worse) + ties/2; bootstrap tests: the score "
        "difference.",
    )
    units_now = serializers.IntegerField(help_text="Observations the test has now (see unit).")
    units_needed = serializers.IntegerField(
        allow_null=True, help_text="Observations the test needs; null: no finite number."
    )
    more_judgments = serializers.IntegerField(
        allow_null=True, help_text="Judgments of these systems still needed."
    )
    more_assignments = serializers.IntegerField(
        allow_null=True, help_text="Assignments (HITs' worth of work) that would bring them."
    )
    cost = serializers.DecimalField(**MONEY, allow_null=True)
    exceeds_segments = serializers.BooleanField(
        help_text="The estimate needs more segments than the campaign has: import more."
    )
    note = serializers.CharField(allow_blank=True)


class StillNeededSerializer(serializers.Serializer):
    campaign = CampaignRefSerializer(source="*")
    computed_at = serializers.DateTimeField(
        allow_null=True, help_text="When the stored results this estimate follows were computed."
    )
    available = serializers.BooleanField(
        help_text="False for kinds without an estimate (the reason says why)."
    )
    reason = serializers.CharField(allow_blank=True)
    test = serializers.CharField(help_text="The kind's significance test.")
    method = serializers.CharField(help_text="How the judgments still needed are estimated.")
    method_id = serializers.CharField(
        allow_blank=True, help_text="The method's value (?method=), one of methods."
    )
    methods = serializers.ListField(
        child=serializers.CharField(),
        help_text="The methods the campaign's kind offers, the default first (direct "
        "assessment: noether, simulation; ranking: bootstrap).",
    )
    unit = serializers.CharField(help_text="What the test counts (segments, judgments, sets).")
    alpha = serializers.FloatField()
    power = serializers.FloatField()
    cost_per_assignment = serializers.DecimalField(**MONEY, allow_null=True)
    judgments_per_assignment = serializers.FloatField(
        allow_null=True, help_text="What one assignment brings (judgments_per_assignment_means)."
    )
    judgments_per_assignment_means = serializers.CharField(allow_blank=True)
    n_systems = serializers.IntegerField()
    n_separated = serializers.IntegerField(help_text="Pairs already significantly different.")
    pairs = PairSerializer(many=True, help_text="Pairs not significantly different yet.")


class StillNeededView(APIView):
    @extend_schema(
        operation_id="campaign_still_needed",
        summary="Judgments still needed to separate the campaign's systems",
        description="For the current data: the pairs of systems the kind's own one-sided "
        "significance test does not separate at alpha (direct assessment: Wilcoxon rank-sum "
        "on z-scores; ranking: the bootstrap of the ranking score), and how many more "
        "judgments would separate each with probability 0.8 if the difference is real "
        "(Noether's sample size formula for the rank-sum test; the normal approximation of "
        "the bootstrap p-value for ranking), with their cost at the campaign's reward and "
        "platform fee.",
        parameters=[
            CAMPAIGN_ID,
            OpenApiParameter(
                "method",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=["noether", "simulation", "bootstrap"],
                description="Direct assessment: noether (the default: Noether's sample size "
                "formula) or simulation (the seeded resampling simulation of the rank-sum "
                "test; its replicates, seed and bounds are in the answer's method). Ranking: "
                "bootstrap only. Another kind's method is a 400.",
            ),
        ],
        responses={200: StillNeededSerializer, **ERROR_RESPONSES},
        tags=["reports"],
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        unknown = sorted(set(request.query_params) - {"method"})
        if unknown:
            raise ValidationError(
                {name: ["Unknown parameter; this endpoint takes method."] for name in unknown}
            )
        return Response(still_needed_data(campaign, request.query_params.get("method")))


def still_needed_data(campaign, method: str | None = None) -> dict[str, Any]:
    """The estimate as the API answers it; raises rest_framework's ValidationError naming
    ``method`` for a method the campaign's kind has not."""
    try:
        estimate = still_needed(campaign, method)
    except MethodNotAvailable as error:
        raise ValidationError({"method": [str(error)]}) from error
    return StillNeededSerializer(estimate).data


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/report/",
        CampaignReportView.as_view(),
        name="campaign-report",
    ),
    path(
        "campaigns/<int:campaign_id>/export/report.csv",
        CampaignReportCSV.as_view(),
        name="export-report-csv",
    ),
    path(
        "campaigns/<int:campaign_id>/still-needed/",
        StillNeededView.as_view(),
        name="campaign-still-needed",
    ),
]
