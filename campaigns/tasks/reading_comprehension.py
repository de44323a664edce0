"""Celery task: move a reading-comprehension campaign's articles through their stages.

Thin, as the other tasks: an id in, an early return when the campaign is gone, one call into
``campaigns.kinds.reading_comprehension.stages.advance`` (idempotent, under the campaign's
lock, nothing while the campaign is paused), so a task run twice, or beside the recompute that
also advances, builds nothing twice. The admin's "Advance stages now" runs it.
"""

from __future__ import annotations

import logging

from celery import shared_task

from campaigns.kinds.reading_comprehension.stages import advance
from campaigns.models import Campaign

__all__ = ["advance_reading_comprehension"]

logger = logging.getLogger(__name__)


@shared_task(name="campaigns.tasks.advance_reading_comprehension")
def advance_reading_comprehension(campaign_id: int) -> list[str] | None:
    """The stage changes made (one line each), or None when the campaign is gone."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        logger.info("Campaign %s is gone; no reading-comprehension stage to advance", campaign_id)
        return None
    return advance(campaign)
