"""Streamed exports (stub: filled in by the exports work)."""

from __future__ import annotations

urlpatterns: list = []
