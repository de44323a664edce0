"""The API's routes: the endpoints, the exports, the import endpoint, and the OpenAPI schema
with its documentation pages (Swagger UI and ReDoc, served from local static files)."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

from analytics.api import exports, imports
from analytics.api.views import router

app_name = "api"

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    *exports.urlpatterns,
    *imports.urlpatterns,
    path("", include(router.urls)),
]
