"""The dashboards' plots through the API (issue 17 item 2): the same figures as the admin's
dashboard (``analytics.dashboards.catalogue``), as SVG or PNG.

Routes (under /api/, token or session authentication like every endpoint; a campaign the user
may not read is a 404, as if it did not exist):

- ``campaigns/<id>/plots/``: the campaign's plots (JSON): name, title, description and the
  URLs of the SVG and the PNG;
- ``campaigns/<id>/plots/<name>/?format=svg|png``: one plot (SVG by default); a plot the
  campaign's kind has not (e.g. worker-reliability of a ranking campaign) is a 404 naming the
  ones it has. The switches are the systems endpoint's parameters, by the same names and
  validated by the same serializer (``analytics.dashboards.options``): the kind's "every
  worker" variant (``include_unreliable``, ``include_untrusted``, ``include_flagged``,
  ``without_suspect``) and ranking's ``method``.

Errors are JSON ``{"detail": ...}`` (or ``{"<parameter>": [...]}``) whatever the Accept header,
as for the exports (``analytics.api.exports.ExportView``).
"""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import path, reverse
from django.utils.http import content_disposition_header, urlencode
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from analytics.api.exports import ERROR, ERRORS, ExportView
from analytics.api.permissions import get_visible_campaign
from analytics.api.serializers import ScoreParamsSerializer
from analytics.dashboards.catalogue import (
    PLOTS,
    PlotNotAvailable,
    options_for,
    options_query,
    plot_bytes,
    plots_for,
)
from analytics.dashboards.options import option_names
from analytics.dashboards.views import plot_filename
from analytics.plots import CONTENT_TYPES, FORMATS

__all__ = ["urlpatterns"]

PLOT_ENTRIES = inline_serializer(
    "CampaignPlot",
    {
        "name": serializers.CharField(),
        "title": serializers.CharField(),
        "description": serializers.CharField(),
        "svg": serializers.URLField(help_text="The plot as SVG (text kept as text)."),
        "png": serializers.URLField(help_text="The plot as PNG, 200 dpi."),
    },
    many=True,
)
PLOT_NAMES = ", ".join(PLOTS)


class CampaignPlots(ExportView):
    @property
    def query_parameters(self) -> tuple[str, ...]:  # type: ignore[override]
        return option_names()

    @extend_schema(
        operation_id="campaign_plots_list",
        summary="The campaign's plots",
        description="The plots of the campaign's kind, in the dashboard's order, with the "
        "URLs of each as SVG and PNG (keeping the switches asked for here). Plot names: "
        f"{PLOT_NAMES} (every kind has progress and "
        "workers-per-country; worker-reliability is direct assessment's, agreement-voters "
        "ranking's; translation campaigns have no score distributions).",
        tags=["plots"],
        parameters=[ScoreParamsSerializer],
        responses={200: PLOT_ENTRIES, **ERRORS},
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_visible_campaign(request.user, campaign_id)
        query = urlencode(options_query(campaign, options_for(campaign, request.query_params)))
        switches = f"&{query}" if query else ""
        entries = []
        for plot in plots_for(campaign):
            url = request.build_absolute_uri(
                reverse("api:campaign-plot", args=[campaign.pk, plot.name])
            )
            entries.append(
                {
                    "name": plot.name,
                    "title": plot.title,
                    "description": plot.description,
                    "svg": f"{url}?format=svg{switches}",
                    "png": f"{url}?format=png{switches}",
                }
            )
        return Response(entries)


class CampaignPlot(ExportView):
    @property
    def query_parameters(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("format", *option_names())

    @extend_schema(
        operation_id="campaign_plot",
        summary="One plot as SVG or PNG",
        description="The plot drawn from the stored results and the judgments, as on the "
        "admin's dashboard; a campaign without judgments gets a figure saying so. SVG keeps "
        "its text as <text> elements (searchable, editable; names are escaped); PNG is 200 "
        "dpi. Plots of the stored results are cached until the next recompute. The scores' "
        "plots (system-scores, score-distributions, agreement-voters) take the systems "
        "endpoint's switches: the kind's every-worker variant and ranking's method (default: "
        "the campaign's rank_by).",
        tags=["plots"],
        parameters=[
            OpenApiParameter("plot", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(PLOTS)),
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=list(FORMATS),
                default="svg",
                description="svg (the default) or png.",
            ),
            # The systems endpoint's switches, by the same names (each kind reads its own).
            ScoreParamsSerializer,
        ],
        responses={
            (200, CONTENT_TYPES["svg"]): OpenApiResponse(
                OpenApiTypes.STR, description="The plot as SVG."
            ),
            (200, CONTENT_TYPES["png"]): OpenApiResponse(
                OpenApiTypes.BINARY, description="The plot as PNG."
            ),
            **ERRORS,
            404: OpenApiResponse(
                ERROR,
                description="No campaign with this id that you may read (also when it "
                "exists), or a plot the campaign's kind does not have.",
            ),
        },
    )
    def get(self, request: Request, campaign_id: int, plot: str) -> HttpResponse:
        campaign = get_visible_campaign(request.user, campaign_id)
        fmt = request.query_params.get("format", "svg")
        if fmt not in FORMATS:
            raise ValidationError({"format": [f"Must be one of {', '.join(FORMATS)}."]})
        options = options_for(campaign, request.query_params)
        try:
            content, content_type = plot_bytes(campaign, plot, fmt, options)
        except PlotNotAvailable as error:
            raise NotFound(str(error)) from error
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = content_disposition_header(
            False, plot_filename(campaign, plot, fmt, options)
        )
        return response


urlpatterns = [
    path(
        "campaigns/<int:campaign_id>/plots/",
        CampaignPlots.as_view(),
        name="campaign-plots",
    ),
    path(
        "campaigns/<int:campaign_id>/plots/<str:plot>/",
        CampaignPlot.as_view(),
        name="campaign-plot",
    ),
]
