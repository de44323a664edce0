"""The dashboards' admin pages, included from evalsite/urls.py under /admin/ (before the
admin's own URLs): ``campaign-dashboard`` and ``campaign-plot``, each behind the admin's
staff login (``admin.site.admin_view``)."""

from django.contrib import admin
from django.urls import path

from analytics.dashboards import views

urlpatterns = [
    path(
        "campaigns/campaign/<int:campaign_id>/dashboard/",
        admin.site.admin_view(views.campaign_dashboard),
        name="campaign-dashboard",
    ),
    path(
        "campaigns/campaign/<int:campaign_id>/dashboard/plots/<slug:plot>/",
        admin.site.admin_view(views.campaign_plot),
        name="campaign-plot",
    ),
]
