"""The API's read-only endpoints, registered on ``router`` (mounted at /api/ by ``urls.py``).

- ``campaigns/`` and ``campaigns/{id}/``: the campaigns the user may read, with progress,
  cost and a summary of the stored results; ``campaigns/{id}/significance/``: the pairwise
  significance matrix;
- under ``campaigns/{campaign_pk}/``: ``systems/`` (every score the campaign's kind has),
  ``segments/`` (scores per segment and system, computed from the judgments once per stored
  result), ``workers/`` (reliability or trust, and timing), ``hits/``, ``assignments/`` and
  ``judgments/``;
- ``judgments/``: judgments across every campaign the user may read, filterable.

Who sees what is ``analytics.api.permissions``: every queryset starts from the user's visible
campaigns, and any URL or ``?campaign=`` naming a campaign the user cannot read answers 404,
exactly as for a campaign that does not exist, so nobody learns that it does. Anonymous
requests, bad or revoked tokens, inactive users and workers' signed links (which are not API
tokens) get 401. Every endpoint is read-only: other methods answer 405 to any authenticated
user (before any campaign is looked up, so again the same for every campaign id).

What differs by task kind (the variant parameter, the scores attached to systems, a
worker's stored row, segment scores, significance) is asked of the campaign's kind
(``analytics.kinds``); a kind without statistics gets systems without scores and empty
tables.

Every list runs the same number of queries whatever its page size (tests/analytics/api/
test_query_counts.py): rows are annotated in the page's query or completed by one grouped
query over the page (``analytics.api.queries``).
"""

from __future__ import annotations

import re
from typing import Any

from django.db.models import F, QuerySet
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

from analytics.api.filters import (
    AllJudgmentFilter,
    AssignmentFilter,
    CampaignFilter,
    HitFilter,
    JudgmentFilter,
    WorkerFilter,
)
from analytics.api.permissions import get_visible_campaign, visible_campaigns
from analytics.api.queries import (
    annotate_assignments,
    annotate_campaign_cost,
    annotate_campaign_progress,
    annotate_campaign_results,
    annotate_hits,
    annotate_judgments,
    attach_campaign_costs,
    attach_worker_timing,
    campaign_workers,
    segment_scores,
    significance_table,
)
from analytics.api.serializers import (
    ERROR_RESPONSES,
    AssignmentSerializer,
    CampaignSerializer,
    HitSerializer,
    JudgmentSerializer,
    ScoreParamsSerializer,
    SegmentParamsSerializer,
    SegmentScoreSerializer,
    SignificanceParamsSerializer,
    SignificanceSerializer,
    SystemSerializer,
    WorkerSerializer,
    campaign_annotations,
)
from analytics.kinds import statistics_of
from analytics.progress import attach_progress
from campaigns.models import Campaign, Hit, Segment, System
from judgments.models import Assignment, Judgment, Worker

router = DefaultRouter()

# Ids in URLs match anything up to the next slash, so that a malformed id ("1.5", "x") reaches
# the view and gets the API's JSON 404 rather than the site's HTML one.
ANY_ID = "[^/]+"

CAMPAIGN_PK = OpenApiParameter(
    "campaign_pk",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The campaign's id (404 if you may not read the campaign).",
)

CAMPAIGN_ID = OpenApiParameter(
    "id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The campaign's id (404 if you may not read the campaign).",
)
JUDGMENT_ID = OpenApiParameter(
    "id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The judgment's id (404 unless you may read its campaign).",
)


def read_only(
    serializer: type[serializers.Serializer],
    list_summary: str,
    retrieve_summary: str | None = None,
    parameters: list | None = None,
) -> Any:
    """The schema of a read-only viewset: its list (paginated) and retrieve responses with the
    errors every endpoint can give, its summaries and its extra query parameters."""
    actions = {
        "list": extend_schema(
            summary=list_summary,
            parameters=parameters,
            responses={200: serializer(many=True), **ERROR_RESPONSES},
        )
    }
    if retrieve_summary:
        actions["retrieve"] = extend_schema(
            summary=retrieve_summary,
            parameters=parameters,
            responses={200: serializer, **ERROR_RESPONSES},
        )
    return extend_schema_view(**actions)


def visible_campaign(request: Request, value: Any) -> Campaign:
    """The campaign a URL or parameter names, if the user may read it; 404 otherwise, also for
    a value that is not a whole number (no campaign has such an id)."""
    try:
        campaign_id = int(value)
    except (TypeError, ValueError):
        raise Http404("No campaign has this id.") from None
    return get_visible_campaign(request.user, campaign_id)


def query_params(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    """The request's query parameters validated by ``serializer_class`` (400 naming the
    parameter otherwise)."""
    serializer = serializer_class(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def include_all(campaign: Campaign, params: dict[str, Any]) -> bool:
    """The "all workers" variant: the kind's ``variant_param`` (e.g. ``include_unreliable``
    for direct assessment, ``include_untrusted`` for ranking); False for kinds without
    statistics."""
    statistics = statistics_of(campaign)
    return statistics is not None and statistics.include_all(params)


# --- Campaigns -------------------------------------------------------------------------------


@read_only(
    CampaignSerializer,
    "Campaigns you may read, with progress and cost",
    "One campaign with its progress and cost",
)
@extend_schema_view(retrieve=extend_schema(parameters=[CAMPAIGN_ID]))
class CampaignViewSet(viewsets.ReadOnlyModelViewSet):
    """Campaigns with progress (HITs, assignments by status, judgments, share done), cost so
    far in the report's words (paid, committed: rewards, bonuses, the platforms' fees) and when
    their statistics were last computed."""

    queryset = Campaign.objects.none()  # the schema's model; get_queryset restricts by user
    serializer_class = CampaignSerializer
    filterset_class = CampaignFilter
    lookup_value_regex = ANY_ID

    def get_queryset(self) -> QuerySet[Campaign]:
        if getattr(self, "swagger_fake_view", False):
            return Campaign.objects.none()
        queryset = visible_campaigns(self.request.user)
        queryset = annotate_campaign_results(annotate_campaign_cost(queryset))
        return (
            annotate_campaign_progress(queryset)
            .annotate(
                owner_username=F("owner__username"),
                # The kinds' own campaign fields (e.g. direct assessment's mode).
                **campaign_annotations(),
            )
            .order_by("-created_at", "-pk")
        )

    def paginate_queryset(self, queryset: QuerySet[Campaign]) -> list[Campaign] | None:
        page = super().paginate_queryset(queryset)
        if page is not None:
            attach_campaign_costs(page)
            attach_progress(page)
        return page

    def get_object(self) -> Campaign:
        campaign = super().get_object()
        attach_campaign_costs([campaign])
        attach_progress([campaign])
        return campaign

    @extend_schema(
        summary="Pairwise significance between the campaign's systems",
        parameters=[CAMPAIGN_ID, SignificanceParamsSerializer],
        responses={200: SignificanceSerializer, **ERROR_RESPONSES},
        filters=False,
    )
    @action(detail=True, filter_backends=[], pagination_class=None)
    def significance(self, request: Request, pk: str | None = None) -> Response:
        """Systems best first and p_values[i][j], the p-value of "system i is better than
        system j": direct assessment's one-sided Wilcoxon rank-sum tests on z-scores, or a
        ranking method's bootstrap (``?method=``, default expected_wins), with WMT's marks."""
        campaign = visible_campaign(request, pk)
        params = query_params(SignificanceParamsSerializer, request)
        table = significance_table(
            campaign, include_all=include_all(campaign, params), method=params.get("method")
        )
        return Response(SignificanceSerializer(table).data)


router.register("campaigns", CampaignViewSet, basename="campaign")


# --- Per campaign ----------------------------------------------------------------------------


class CampaignScopedMixin:
    """Resources under /api/campaigns/{campaign_pk}/.

    The campaign is looked up in ``initial`` (after authentication, before the handler runs)
    for every method the route serves, so a user who may not read it gets 404 for every URL
    under it. A method the route does not serve answers 405 to every authenticated user
    without looking at the campaign: the same answer whether it exists or not.
    """

    campaign: Campaign
    queryset: QuerySet  # an empty queryset of the model, for the schema
    lookup_value_regex = ANY_ID

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        if hasattr(self, request.method.lower()):
            self.campaign = visible_campaign(request, kwargs["campaign_pk"])

    def get_queryset(self) -> QuerySet:
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return self.campaign_queryset(self.campaign)

    def campaign_queryset(self, campaign: Campaign) -> QuerySet:
        raise NotImplementedError


class CampaignScopedViewSet(CampaignScopedMixin, viewsets.ReadOnlyModelViewSet):
    pass


def register_nested(prefix: str, viewset: type, basename: str) -> None:
    router.register(rf"campaigns/(?P<campaign_pk>{ANY_ID})/{prefix}", viewset, basename=basename)


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(
    SystemSerializer,
    "The campaign's systems with every score its kind has",
    "One system with its scores",
    [ScoreParamsSerializer],
)
class SystemViewSet(CampaignScopedViewSet):
    """Systems with their stored scores in one variant, best first. Direct assessment: n,
    mean raw score, mean z, cluster and rank range over reliable workers
    (``?include_unreliable=1``: every worker). Ranking: one row per method (win ratios with
    and without ties, Expected Wins and Bradley-Terry with bootstrap intervals, rank ranges
    and clusters; TrueSkill with sigma) over trusted workers (``?include_untrusted=1``: every
    worker), ordered by Expected Wins, or by ``?method=``, which also keeps only that method's
    rows. Systems without a stored score come last, by name."""

    queryset = System.objects.none()
    serializer_class = SystemSerializer
    filter_backends: list = []

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[System]:
        params = query_params(ScoreParamsSerializer, self.request)
        systems = System.objects.filter(campaign=campaign)
        statistics = statistics_of(campaign)
        if statistics is None:
            return systems.order_by("name", "pk")
        systems, order = statistics.system_queryset(systems, campaign, params)
        return systems.annotate(order_position=order).order_by("order_position", "name", "pk")


register_nested("systems", SystemViewSet, "campaign-system")


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(
    SegmentScoreSerializer,
    "Scores per segment and system, computed from the judgments",
    parameters=[SegmentParamsSerializer],
)
class SegmentViewSet(CampaignScopedMixin, viewsets.GenericViewSet):
    """Per segment and system, in document and segment order. Direct assessment: n, mean raw
    score and mean z of the judgments the stored system scores count (reliable workers, or
    every worker with ``?include_unreliable=1``), z standardised per worker exactly as the
    statistics do. Ranking: pairwise comparisons with the other systems in the same worker's
    ranking (wins, ties, losses) and the mean rank, over trusted workers (``?include_untrusted=1``:
    every worker). Computed once per stored result and cached; pages and ``?system=`` slice
    the cached table (``analytics.api.queries.segment_scores``)."""

    queryset = Segment.objects.none()
    serializer_class = SegmentScoreSerializer
    filter_backends: list = []

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[Segment]:
        # The rows are computed (``list``); this is only what the browsable API asks for.
        return Segment.objects.filter(campaign=campaign)

    def list(self, request: Request, campaign_pk: str | None = None) -> Response:
        params = query_params(SegmentParamsSerializer, request)
        table = segment_scores(
            self.campaign,
            include_all=include_all(self.campaign, params),
            system=params.get("system"),
        )
        page = self.paginate_queryset(table)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


register_nested("segments", SegmentViewSet, "campaign-segment")


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(
    WorkerSerializer,
    "The campaign's workers: reliability or trust, and timing",
    "One worker in the campaign",
)
class WorkerViewSet(CampaignScopedViewSet):
    """Workers with an assignment (or a membership) in the campaign: background, exclusion and
    trust flags, assignments and judgments, the stored reliability test (direct assessment) or
    gold-unit trust (ranking), and seconds per judgment (mean, median, total)."""

    queryset = Worker.objects.none()
    serializer_class = WorkerSerializer
    filterset_class = WorkerFilter

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[Worker]:
        return campaign_workers(campaign)

    def paginate_queryset(self, queryset: QuerySet[Worker]) -> list[Worker] | None:
        page = super().paginate_queryset(queryset)
        if page is not None:
            attach_worker_timing(page, self.campaign.pk)
        return page

    def get_object(self) -> Worker:
        worker = super().get_object()
        attach_worker_timing([worker], self.campaign.pk)
        return worker


register_nested("workers", WorkerViewSet, "campaign-worker")


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(HitSerializer, "The campaign's HITs with slots and assignments by status", "One HIT")
class HitViewSet(CampaignScopedViewSet):
    queryset = Hit.objects.none()
    serializer_class = HitSerializer
    filterset_class = HitFilter

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[Hit]:
        return annotate_hits(Hit.objects.filter(campaign=campaign)).order_by("number")


register_nested("hits", HitViewSet, "campaign-hit")


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(AssignmentSerializer, "The campaign's assignments", "One assignment")
class AssignmentViewSet(CampaignScopedViewSet):
    queryset = Assignment.objects.none()
    serializer_class = AssignmentSerializer
    filterset_class = AssignmentFilter

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[Assignment]:
        return annotate_assignments(Assignment.objects.filter(campaign=campaign)).order_by(
            "hit__number", "started_at", "pk"
        )


register_nested("assignments", AssignmentViewSet, "campaign-assignment")


@extend_schema(parameters=[CAMPAIGN_PK])
@read_only(JudgmentSerializer, "The campaign's judgments, filterable", "One judgment")
class CampaignJudgmentViewSet(CampaignScopedViewSet):
    """Judgments of one campaign in the order they were stored, with the slot's role and the
    system judged. Whole campaigns are better downloaded with the streamed exports."""

    queryset = Judgment.objects.none()
    serializer_class = JudgmentSerializer
    filterset_class = JudgmentFilter

    def campaign_queryset(self, campaign: Campaign) -> QuerySet[Judgment]:
        return annotate_judgments(Judgment.objects.filter(campaign=campaign)).order_by("pk")


register_nested("judgments", CampaignJudgmentViewSet, "campaign-judgment")


# --- Across campaigns ------------------------------------------------------------------------


@read_only(
    JudgmentSerializer, "Judgments of every campaign you may read, filterable", "One judgment"
)
@extend_schema_view(retrieve=extend_schema(parameters=[JUDGMENT_ID]))
class JudgmentViewSet(viewsets.ReadOnlyModelViewSet):
    """Judgments of every campaign you may read, in the order they were stored; ``?campaign=``
    narrows to one (404 if you may not read it)."""

    queryset = Judgment.objects.none()
    serializer_class = JudgmentSerializer
    filterset_class = AllJudgmentFilter
    lookup_value_regex = ANY_ID

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        campaign = request.query_params.get("campaign", "")
        # Not a whole number: the filter answers 400 for it.
        if re.fullmatch(r"-?[0-9]+", campaign) and hasattr(self, request.method.lower()):
            visible_campaign(request, campaign)

    def get_queryset(self) -> QuerySet[Judgment]:
        if getattr(self, "swagger_fake_view", False):
            return Judgment.objects.none()
        visible = visible_campaigns(self.request.user)
        return annotate_judgments(Judgment.objects.filter(campaign__in=visible)).order_by("pk")


router.register("judgments", JudgmentViewSet, basename="judgment")
