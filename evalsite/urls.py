from django.contrib import admin
from django.urls import include, path

from evalsite import views

admin.site.site_header = "evalsite"
admin.site.site_title = "evalsite"
admin.site.index_title = "Campaigns, workers and results"

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    # Campaign dashboards (analytics.dashboards): admin pages, so before the admin's own.
    path("admin/", include("analytics.dashboards.urls")),
    # Campaign reports and judgments still needed (analytics.reports): admin pages too.
    path("admin/", include("analytics.reports.urls")),
    path("admin/", admin.site.urls),
    path("work/", include("judgments.urls")),
    path("api/", include("analytics.api.urls")),
]
