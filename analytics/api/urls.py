"""The API's routes: the endpoints, the exports, the import endpoint, and the OpenAPI schema
with its documentation page (Swagger UI, served from drf-spectacular-sidecar's local static
files; drf-spectacular's ReDoc page is left out because it loads Google's fonts)."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from analytics.api import exports, imports
from analytics.api.views import router

app_name = "api"

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    *exports.urlpatterns,
    *imports.urlpatterns,
    path("", include(router.urls)),
]
