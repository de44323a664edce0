"""The API's routes: the endpoints, the exports, the import endpoint, and the OpenAPI schema
with its documentation page (Swagger UI, served from drf-spectacular-sidecar's local static
files; drf-spectacular's ReDoc page is left out because it loads Google's fonts).

Both need a login, like the rest of the API (SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]): the
schema answers an anonymous request 401; the documentation page sends an anonymous browser to
the admin's login page and back. The page is drf-spectacular's "split" variant, whose start-up
script is a separate same-origin file (``?script``), so it runs under ``script-src 'self'``."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponseBase
from django.urls import include, path, reverse
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from analytics.api import exports, imports, plots, reports
from analytics.api.views import router
from analytics.kinds import registry

app_name = "api"

_swagger = SpectacularSwaggerSplitView.as_view(url_name="api:schema")


@wraps(_swagger)
def docs(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
    """The documentation page; an anonymous browser (no session, no token) logs in first."""
    if not request.user.is_authenticated and "HTTP_AUTHORIZATION" not in request.META:
        return redirect_to_login(request.get_full_path(), login_url=reverse("admin:login"))
    return _swagger(request, *args, **kwargs)


urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", docs, name="docs"),
    *exports.urlpatterns,
    *imports.urlpatterns,
    *reports.urlpatterns,
    *plots.urlpatterns,
    # Endpoints only one kind has (AnalyticsKind.api_urls), e.g. post-editing's edits.
    *(pattern for statistics in registry for pattern in statistics.api_urls()),
    path("", include(router.urls)),
]
