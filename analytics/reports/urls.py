"""The report's and "judgments still needed"'s admin pages, included from evalsite/urls.py
under /admin/ (before the admin's own URLs): ``campaign-report`` (args: campaign id),
``campaign-report-download`` (campaign id, "csv" or "json") and ``campaign-still-needed``
(campaign id), each behind the admin's staff login (``admin.site.admin_view``)."""

from django.contrib import admin
from django.urls import path

from analytics.reports import views

urlpatterns = [
    path(
        "campaigns/campaign/<int:campaign_id>/report/",
        admin.site.admin_view(views.campaign_report),
        name="campaign-report",
    ),
    path(
        "campaigns/campaign/<int:campaign_id>/report.<slug:fmt>",
        admin.site.admin_view(views.campaign_report_download),
        name="campaign-report-download",
    ),
    path(
        "campaigns/campaign/<int:campaign_id>/still-needed/",
        admin.site.admin_view(views.campaign_still_needed),
        name="campaign-still-needed",
    ),
]
