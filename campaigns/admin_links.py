"""Campaign admin: direct links, Prolific and background exports (stub)."""

from __future__ import annotations


class WorkerLinksAdminMixin:
    """Campaign actions and pages for direct links and Prolific; ``links_actions`` are added
    to the admin's actions and ``links_urls()`` to its URLs."""

    links_actions: tuple[str, ...] = ()

    def links_urls(self) -> list:
        return []
