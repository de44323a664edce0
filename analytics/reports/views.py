"""The report and "judgments still needed" as admin pages, with the report's CSV and JSON
downloads (issue 17 items 3 and 4).

Admin pages (``admin.site.admin_view``: a staff login, else the login page) for the campaigns
the user may read (``analytics.access.readable_campaigns``: shared with them and the view or
change permission); any other campaign is a 404, as if it did not exist. Thin: the report is
``analytics.reports.loading.campaign_report``, the estimate
``analytics.reports.still_needed.still_needed``, both shaped by the API's serializers
(``analytics.api.reports``), so the page, the downloads and the API say the same.
"""

from __future__ import annotations

import json

from django.contrib import admin
from django.core.serializers.json import DjangoJSONEncoder
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.text import slugify
from django.views.decorators.http import require_GET
from rest_framework.exceptions import ValidationError

from analytics.access import readable_campaigns
from analytics.api.reports import report_data, still_needed_data
from analytics.reports.cost import PROLIFIC_FEE_RATE
from analytics.reports.export import report_csv
from analytics.reports.still_needed import estimate_methods
from campaigns.kinds import settings_accessors
from campaigns.models import Campaign

__all__ = ["campaign_report", "campaign_report_download", "campaign_still_needed"]

DOWNLOADS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


def _campaign(request: HttpRequest, campaign_id: int) -> Campaign:
    return get_object_or_404(
        readable_campaigns(request.user).select_related(*settings_accessors()), pk=campaign_id
    )


def _context(request: HttpRequest, campaign: Campaign, title: str) -> dict:
    return {
        **admin.site.each_context(request),
        "title": f"{title}: {campaign.name}",
        "subtitle": None,
        "opts": Campaign._meta,
        "campaign": campaign,
        "change_url": reverse("admin:campaigns_campaign_change", args=[campaign.pk]),
    }


def _stem(campaign: Campaign) -> str:
    return slugify(campaign.name) or f"campaign-{campaign.pk}"


@require_GET
def campaign_report(request: HttpRequest, campaign_id: int) -> TemplateResponse:
    campaign = _campaign(request, campaign_id)
    return TemplateResponse(
        request,
        "analytics/report.html",
        {
            **_context(request, campaign, "Report"),
            "report": report_data(campaign),
            "prolific_fee_percent": f"{PROLIFIC_FEE_RATE * 100:.2f}",
            "csv_url": reverse("campaign-report-download", args=[campaign.pk, "csv"]),
            "json_url": reverse("campaign-report-download", args=[campaign.pk, "json"]),
            "still_needed_url": reverse("campaign-still-needed", args=[campaign.pk]),
        },
    )


@require_GET
def campaign_report_download(request: HttpRequest, campaign_id: int, fmt: str) -> HttpResponse:
    if fmt not in DOWNLOADS:
        raise Http404("The report downloads as csv or json.")
    campaign = _campaign(request, campaign_id)
    data = report_data(campaign)
    if fmt == "csv":
        body = report_csv(data)
    else:
        body = json.dumps(data, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type=DOWNLOADS[fmt])
    response["Content-Disposition"] = content_disposition_header(
        True, f"{_stem(campaign)}-report.{fmt}"
    )
    return response


@require_GET
def campaign_still_needed(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The estimate, by the method ``?method=`` names (the kind's default without it; a small
    GET form offers the kind's methods); a method the kind has not is a 400 naming it."""
    campaign = _campaign(request, campaign_id)
    try:
        estimate = still_needed_data(campaign, request.GET.get("method") or None)
    except ValidationError as error:
        return HttpResponseBadRequest(
            "\n".join(
                f"{name}: {' '.join(map(str, messages))}" for name, messages in error.detail.items()
            ),
            content_type="text/plain; charset=utf-8",
        )
    return TemplateResponse(
        request,
        "analytics/still_needed.html",
        {
            **_context(request, campaign, "Judgments still needed"),
            "estimate": estimate,
            "method_choices": [
                {"value": value, "label": label, "selected": value == estimate["method_id"]}
                for value, label in estimate_methods(campaign)
            ],
            "report_url": reverse("campaign-report", args=[campaign.pk]),
            "api_url": reverse("api:campaign-still-needed", args=[campaign.pk]),
        },
    )
