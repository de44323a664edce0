"""Campaign admin: syncing assignments with MTurk (stub, filled in by the review work)."""

from __future__ import annotations


class MTurkReviewCampaignAdminMixin:
    """Campaign actions for the MTurk sync; ``review_actions`` are added to the admin's
    actions and ``review_urls()`` to its URLs."""

    review_actions: tuple[str, ...] = ()

    def review_urls(self) -> list:
        return []
