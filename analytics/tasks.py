"""Celery tasks of the analytics app: ids in, one domain call (analytics.actions).

This module imports ``analytics.actions``, never the other way round: ``schedule_recompute``
enqueues :func:`recompute_campaign_results` by its registered name
(``analytics.actions.RECOMPUTE_TASK``), and ``AnalyticsConfig.ready`` imports this module so
that the task is registered in every process (web and worker alike).
"""

from __future__ import annotations

import logging

from celery import shared_task

from analytics import actions
from campaigns.models import Campaign

logger = logging.getLogger(__name__)


@shared_task(name=actions.RECOMPUTE_TASK)
def recompute_campaign_results(campaign_id: int) -> int | None:
    """Recompute one campaign's stored statistics (its kind's, ``analytics.kinds``; for ranking
    this also marks untrusted workers and may pause the campaign); return the judgments they
    reflect, or None when there is nothing to compute.

    Enqueued by ``analytics.actions.schedule_recompute`` (coalesced, with a countdown) and by
    the sweep. Idempotent: running it twice stores the same results.
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        logger.info("Campaign %s is gone; nothing to recompute", campaign_id)
        return None
    result = actions.recompute_campaign(campaign)
    return None if result is None else result.n_judgments


@shared_task
def recompute_stale_campaigns() -> int:
    """Periodic sweep (celery beat): schedule every campaign whose results are stale."""
    return len(actions.recompute_stale_campaigns())
