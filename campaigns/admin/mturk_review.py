"""Campaign admin: "Sync with MTurk now", the requester's on-demand twin of the periodic sync.

A campaign with a few hundred HITs is synced inside the request, so the requester sees what
changed at once; a larger one is queued for a Celery worker (each HIT is one MTurk call or
more), and its outcome appears on the campaign page as platform events.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from campaigns.models import Campaign
from campaigns.platforms import review

# Above this many MTurk HITs the sync goes to a Celery worker instead of the admin request.
SYNC_INLINE_MAX_HITS = 200
# Conflicts named one by one in the messages; the rest are on the campaign page.
LISTED_NOTES = 10


class MTurkReviewCampaignAdminMixin:
    """Campaign actions for the MTurk sync; ``review_actions`` are added to the admin's
    actions and ``review_urls()`` to its URLs."""

    review_actions: tuple[str, ...] = ("sync_with_mturk",)

    def review_urls(self) -> list:
        return []

    def has_mturk_review_permission(self, request: HttpRequest) -> bool:
        # A sync sends reviews MTurk still waits for (money): requesters who may change
        # campaigns only.
        return request.user.has_perm("campaigns.change_campaign")

    @admin.action(description="Sync with MTurk now", permissions=["mturk_review"])
    def sync_with_mturk(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        campaigns = (
            Campaign.objects.filter(pk__in=queryset.order_by().values("pk"))
            .annotate(n_mturk_hits=Count("hits__mturk"))
            .order_by("pk")
        )
        for campaign in campaigns:
            if not campaign.n_mturk_hits:
                self.message_user(
                    request,
                    f"{campaign}: no HIT is published on MTurk, so there is nothing to sync. "
                    "Publish it to MTurk first.",
                    messages.WARNING,
                )
            elif campaign.n_mturk_hits > SYNC_INLINE_MAX_HITS:
                # Imported here: the admin's module loads in every web worker, Celery only
                # when a sync is queued (issue 16 item 4).
                from campaigns.tasks.review import sync_mturk_campaign

                sync_mturk_campaign.delay(campaign.pk)
                self.message_user(
                    request,
                    f"{campaign}: the sync of its {campaign.n_mturk_hits} MTurk HITs is queued; "
                    "errors and conflicts will appear among its platform events.",
                    messages.INFO,
                )
            else:
                self._report_sync(request, campaign, review.sync_campaign(campaign.pk))

    def _report_sync(
        self, request: HttpRequest, campaign: Campaign, report: review.SyncReport
    ) -> None:
        level = messages.WARNING if report.failed or report.notes else messages.SUCCESS
        self.message_user(request, f"{campaign}: {report.summary()}", level)
        for failure in report.failed:
            self.message_user(request, f"{campaign}, {failure}", messages.ERROR)
        for note in report.notes[:LISTED_NOTES]:
            self.message_user(
                request, f"{campaign}: {note.message} {note.what_to_do}", messages.WARNING
            )
        if len(report.notes) > LISTED_NOTES:
            self.message_user(
                request,
                f"{campaign}: {len(report.notes) - LISTED_NOTES} more difference(s) need a "
                "person; they are listed among the campaign's platform events.",
                messages.WARNING,
            )
