"""Celery tasks: syncing assignments with MTurk.

``sync_mturk_campaigns`` is the beat entry ``campaigns.tasks.sync_mturk_campaigns`` (every five
minutes, ``settings.CELERY_BEAT_SCHEDULE``): it enqueues one ``sync_mturk_campaign`` per
campaign worth reading, so one slow or failing campaign never holds up the others. Both are
idempotent (``campaigns.platforms.review.sync_campaign`` changes nothing when we already agree
with MTurk), so beat firing while a previous run is still going is harmless.
"""

from __future__ import annotations

import logging

from celery import shared_task

from campaigns.models import Campaign
from campaigns.platforms import review

__all__ = ["sync_mturk_campaign", "sync_mturk_campaigns"]

logger = logging.getLogger(__name__)


@shared_task(name="campaigns.tasks.sync_mturk_campaign")
def sync_mturk_campaign(campaign_id: int) -> int | None:
    """Reconcile one campaign's assignments with MTurk; the number of assignments changed or
    reviews sent, or None when the campaign is gone. Errors and conflicts are stored as the
    campaign's platform events."""
    if not Campaign.objects.filter(pk=campaign_id).exists():
        logger.info("Campaign %s is gone; nothing to sync with MTurk", campaign_id)
        return None
    report = review.sync_campaign(campaign_id)
    logger.info("MTurk sync of campaign %s: %s", campaign_id, report.summary())
    return report.changed


@shared_task(name="campaigns.tasks.sync_mturk_campaigns")
def sync_mturk_campaigns() -> int:
    """Periodic sweep (celery beat): enqueue the sync of every campaign with MTurk HITs that
    is active or paused, or finished within the last 30 days; return how many."""
    campaign_ids = review.campaigns_to_sync()
    for campaign_id in campaign_ids:
        sync_mturk_campaign.delay(campaign_id)
    return len(campaign_ids)
