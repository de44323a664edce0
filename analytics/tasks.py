"""Celery tasks of the analytics app: ids in, one domain call (analytics.actions).

This module imports ``analytics.actions``, never the other way round: ``schedule_recompute``
enqueues :func:`recompute_campaign_results` by its registered name
(``analytics.actions.RECOMPUTE_TASK``), and ``AnalyticsConfig.ready`` imports this module so
that the task is registered in every process (web and worker alike).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from analytics import actions, incremental
from analytics.incremental.turns import recompute_in_turn
from campaigns.models import Campaign
from evalsite.cachesafe import cache_set

# When the sweep last ran in a worker: /healthz reports it (evalsite.views.healthz).
SWEEP_HEARTBEAT_KEY = "evalsite:sweep:heartbeat"

logger = logging.getLogger(__name__)


@shared_task(name=actions.RECOMPUTE_TASK)
def recompute_campaign_results(
    campaign_id: int, only_if_stale: bool = False, runs_before: int | None = None
) -> int | None:
    """Recompute one campaign's stored statistics (its kind's, ``analytics.kinds``; for ranking
    this also marks untrusted workers and may pause the campaign); return the judgments they
    reflect, or None when there is nothing to compute.

    Enqueued by ``analytics.actions.schedule_recompute`` (coalesced, with a countdown) and by
    the sweep. Idempotent: running it twice stores the same results. ``only_if_stale`` (the
    sweep's repair of a lost recompute, ``analytics.actions.repair_lost_recompute``): skip the
    work when the stored results already match the data (a duplicate of a run that was only
    late, not lost).

    With ``ANALYTICS_INCREMENTAL`` (the default), a direct-assessment campaign is recomputed
    from the arrays this worker process kept from its previous recompute, reading only what is
    new (``analytics.incremental``; the same results as a full recompute). A cache that
    missed a judgment is found by its own periodic count and read again in full. One process
    at a time recomputes a campaign, run after run while submissions come
    (``analytics.incremental.turns``); ``runs_before``: the campaign's run count when the task
    was sent (the task has nothing to do once a later run started).
    """
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        logger.info("Campaign %s is gone; nothing to recompute", campaign_id)
        return None
    if only_if_stale and not actions.is_stale(campaign):
        actions.clear_recompute_flag(campaign.pk)
        logger.info("Campaign %s is up to date; the repair recompute was not needed", campaign_id)
        return None
    if settings.ANALYTICS_INCREMENTAL and incremental.supports(campaign):
        result = recompute_in_turn(campaign, runs_before)
    else:
        result = actions.recompute_campaign(campaign)
    return None if result is None else result.n_judgments


@shared_task
def recompute_stale_campaigns() -> int:
    """Periodic sweep (celery beat, every ``ANALYTICS_SWEEP_SECONDS``): schedule every
    campaign whose results are stale, enqueue again the recomputes that were lost, and leave
    the heartbeat ``/healthz`` reads."""
    stale = actions.recompute_stale_campaigns()
    cache_set(SWEEP_HEARTBEAT_KEY, timezone.now().isoformat(), None)
    return len(stale)
