"""Read-only endpoints (stub: filled in by the API endpoints work)."""

from __future__ import annotations

from rest_framework.routers import DefaultRouter

router = DefaultRouter()
