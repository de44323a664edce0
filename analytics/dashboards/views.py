"""The admin's dashboard of one campaign and its plots as SVG or PNG (thin views).

Both are admin pages (``admin.site.admin_view``: a staff login, else the login page) with the
object-level rule of every admin result page (``analytics.access``): the campaign must be
shared with the user (owner, a collaborator's grant, or a superuser) and the user needs
campaigns.view_campaign or change_campaign. Anyone else gets 404, as if the campaign did not
exist. Workers are not users: their links never log in here.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header, urlencode
from django.utils.text import slugify
from django.views.decorators.http import require_GET
from rest_framework.exceptions import ValidationError

from analytics.access import readable_campaigns
from analytics.dashboards.catalogue import (
    PlotNotAvailable,
    options_for,
    options_query,
    plot_bytes,
    plots_for,
    switches_for,
)
from analytics.dashboards.options import DEFAULT, PlotOptions, errors_text
from analytics.plots import FORMATS
from campaigns.kinds import settings_accessors
from campaigns.models import Campaign

__all__ = ["campaign_dashboard", "campaign_plot", "plot_filename"]


def _campaign(request: HttpRequest, campaign_id: int) -> Campaign:
    return get_object_or_404(
        readable_campaigns(request.user).select_related(*settings_accessors()), pk=campaign_id
    )


def plot_filename(campaign: Campaign, name: str, fmt: str, options: PlotOptions = DEFAULT) -> str:
    """The download's name: the campaign, the plot, and the switches when not the default
    (e.g. ``wmt-de-en-system-scores-all-bradley_terry.svg``)."""
    switches = f"-{options.key()}" if options.key() else ""
    return f"{slugify(campaign.name) or f'campaign-{campaign.pk}'}-{name}{switches}.{fmt}"


def _bad_request(error: ValidationError) -> HttpResponse:
    return HttpResponseBadRequest(errors_text(error), content_type="text/plain; charset=utf-8")


@require_GET
def campaign_dashboard(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Every plot of the campaign's kind, inline (the SVG endpoint as an image), each with
    its SVG and PNG download; a small GET form switches the variant (the kind's "every
    worker" parameter) and, for ranking, the scoring method, and every plot URL and download
    keeps them."""
    campaign = _campaign(request, campaign_id)
    try:
        options = options_for(campaign, request.GET)
    except ValidationError as error:
        return _bad_request(error)
    query = urlencode(options_query(campaign, options))
    plots = []
    for plot in plots_for(campaign):
        url = reverse("campaign-plot", args=[campaign.pk, plot.name])
        svg_url = f"{url}?{urlencode({'format': 'svg'})}{'&' + query if query else ''}"
        png_url = f"{url}?{urlencode({'format': 'png'})}{'&' + query if query else ''}"
        plots.append(
            {
                "name": plot.name,
                "title": plot.title,
                "description": plot.description,
                "svg_url": svg_url,
                "png_url": png_url,
                "svg_filename": plot_filename(campaign, plot.name, "svg", options),
                "png_filename": plot_filename(campaign, plot.name, "png", options),
            }
        )
    opts = Campaign._meta
    return TemplateResponse(
        request,
        "analytics/dashboard.html",
        {
            **admin.site.each_context(request),
            "title": f"Dashboard: {campaign.name}",
            "subtitle": None,
            "opts": opts,
            "campaign": campaign,
            "plots": plots,
            "switches": switches_for(campaign, options),
            "change_url": reverse("admin:campaigns_campaign_change", args=[campaign.pk]),
        },
    )


@require_GET
def campaign_plot(request: HttpRequest, campaign_id: int, plot: str) -> HttpResponse:
    """One plot, ``?format=svg`` (the default) or ``png``, with the dashboard's switches (the
    API's parameter names); named for saving (inline, so that the dashboard can show it)."""
    campaign = _campaign(request, campaign_id)
    fmt = request.GET.get("format", "svg")
    if fmt not in FORMATS:
        return HttpResponseBadRequest(
            f"format: must be one of {', '.join(FORMATS)}, not '{fmt}'.",
            content_type="text/plain; charset=utf-8",
        )
    try:
        options = options_for(campaign, request.GET)
    except ValidationError as error:
        return _bad_request(error)
    try:
        content, content_type = plot_bytes(campaign, plot, fmt, options)
    except PlotNotAvailable as error:
        return HttpResponse(str(error), status=404, content_type="text/plain; charset=utf-8")
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(
        False, plot_filename(campaign, plot, fmt, options)
    )
    return response
