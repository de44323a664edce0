"""Campaign admin: publishing to MTurk (stub, filled in by the MTurk publishing work)."""

from __future__ import annotations


class MTurkCampaignAdminMixin:
    """Campaign actions and pages for MTurk; ``mturk_actions`` are added to the admin's
    actions and ``mturk_urls()`` to its URLs."""

    mturk_actions: tuple[str, ...] = ()

    def mturk_urls(self) -> list:
        return []
