"""Importing published judgment files (stub: filled in by the judgment-import work)."""

from __future__ import annotations

urlpatterns: list = []
