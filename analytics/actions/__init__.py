"""Actions on stored statistics, shared by the signal receiver, the Celery tasks and the admin.

This package: scheduling, the dispatch to the campaign's kind, the sweep and the requester's
decisions about workers. What is computed and stored for each kind is the kind's
(``analytics.kinds``: direct assessment in ``analytics.kinds.direct_assessment.actions``,
ranking, with gold trust, the untrusted cut-off and auto-takedown, in
``analytics.kinds.ranking.actions``).

Live, for every kind with statistics (DESIGN.md "Live, not nightly"):

- Every committed submission sends ``judgments.signals.judgments_recorded``; the receiver
  (:func:`on_judgments_recorded`, connected in ``AnalyticsConfig.ready``) calls
  :func:`schedule_recompute`.
- :func:`schedule_recompute` coalesces: ``cache.add`` of a per-campaign flag succeeds for the
  first submission of a burst only, and only that one enqueues the recompute task, with a
  countdown (``ANALYTICS_RECOMPUTE_COUNTDOWN`` seconds, default 5), so 100 quick submissions
  queue one recompute, not 100. A campaign recomputed incrementally (``analytics.incremental``:
  ``ANALYTICS_INCREMENTAL`` on and a kind that supports it, direct assessment) waits
  ``ANALYTICS_INCREMENTAL_COUNTDOWN`` seconds instead (default 0): its runs cost what is new,
  not the whole campaign, and the flag still coalesces every submission that arrives while a
  run is queued or reading, so under load runs follow each other back to back and a judgment
  is reflected within about two runs (issue 16 item 3, bench/freshness.py).
- :func:`recompute_campaign` clears the flag *before* loading: a judgment committed after the
  clear schedules another run, and one committed before it is in the load, so the last run of
  a burst always reflects every judgment. The campaign's kind then loads the campaign, runs
  the pure statistics and stores the results in one transaction (``AnalyticsKind.recompute``;
  ranking also marks untrusted workers and may pause the campaign).
- :func:`recompute_stale_campaigns` (the periodic sweep, celery beat, every
  ``ANALYTICS_SWEEP_SECONDS``, default 15) repairs what a lost message missed: it schedules
  campaigns whose stored result no longer matches the data (each kind's ``stale_campaigns``).
  A stale campaign whose flag says a recompute is pending, but whose flag is older than the
  countdown plus ``ANALYTICS_RECOMPUTE_GRACE`` seconds (default 10), lost its recompute (the
  worker holding the message was killed: with late acks Redis gives the message back only
  after its visibility timeout, an hour): the sweep enqueues it again at once, marked
  ``only_if_stale`` so that a duplicate that finds the results fresh costs one query. A lost
  recompute is so repaired within countdown + grace + one sweep interval (30 s by default).
  When nothing is stale the sweep is one query (see ``bench/sweep_cost.py``).
- Cache failures (Redis down) never fail a submission or a recompute: the flag's reads and
  writes go through :mod:`evalsite.cachesafe`; without the cache every submission enqueues
  (no coalescing) and the sweep repairs whatever could not be enqueued.

Without a broker (the embedded default, ``CELERY_TASK_ALWAYS_EAGER``) the task runs inline
when it is enqueued, i.e. in the submitting request's ``on_commit``: every submission then
recomputes its whole campaign before the response goes out. That is about 0.15 s of
statistics per 100,000 judgments plus the load, fine at development scale; production runs
Celery workers and gets the coalescing.

The Celery tasks (``analytics.tasks``) call this module; this module does not import them:
:func:`schedule_recompute` enqueues the task registered under :data:`RECOMPUTE_TASK` in the
Celery app's task registry (:func:`evalsite.celery.task_named` imports ``analytics.tasks``,
which registers it, on the first enqueue), so the dependency goes one way, tasks -> actions,
and a web worker imports Celery only when it first enqueues.

Settings (environment variables of the same names, see evalsite/settings.py):
``ANALYTICS_RECOMPUTE_COUNTDOWN`` (seconds a burst is gathered before its recompute, default 5;
a flag whose task never ran lives countdown + 120 s, after which a new submission or the sweep
enqueues again), ``ANALYTICS_INCREMENTAL_COUNTDOWN`` (the same for incremental recomputes,
default 0) and ``ANALYTICS_RECOMPUTE_QUEUE`` (the Celery queue of the recompute task;
default: Celery's default queue).
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Iterable
from datetime import datetime
from functools import reduce
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from analytics.actions.common import AUTO_PAUSE_PREFIX
from analytics.kinds import registry, statistics_of
from campaigns.models import Campaign
from evalsite.cachesafe import cache_add, cache_delete, cache_get, cache_incr, cache_set
from judgments.models import CampaignWorker, Worker

__all__ = [
    "AUTO_PAUSE_PREFIX",
    "RECOMPUTE_TASK",
    "clear_recompute_flag",
    "enqueue_recompute",
    "is_stale",
    "on_exclusions_changed",
    "on_judgments_recorded",
    "recompute_campaign",
    "recompute_countdown",
    "recompute_flag_key",
    "recompute_flag_timeout",
    "recompute_queue",
    "recompute_grace",
    "recompute_pending",
    "recompute_runs",
    "recompute_stale_campaigns",
    "repair_lost_recompute",
    "schedule_recompute",
    "set_workers_excluded",
    "set_workers_trusted",
    "stale_campaigns",
]

logger = logging.getLogger(__name__)

FLAG_MARGIN_SECONDS = 120.0
# The Celery task that recomputes one campaign (defined in analytics.tasks under this name).
RECOMPUTE_TASK = "analytics.tasks.recompute_campaign_results"


# --- Settings ------------------------------------------------------------------------------


def _recomputed_incrementally(campaign_id: int) -> bool:
    """Whether the campaign's recomputes are incremental (one indexed query, made only by the
    submission that enqueues)."""
    if not settings.ANALYTICS_INCREMENTAL:
        return False
    kind = Campaign.objects.filter(pk=campaign_id).values_list("kind", flat=True).first()
    statistics = registry.get(kind) if kind is not None else None
    return statistics is not None and statistics.incremental


def recompute_countdown(campaign_id: int | None = None) -> float:
    """Seconds a burst of submissions is gathered before the campaign's recompute:
    ``ANALYTICS_INCREMENTAL_COUNTDOWN`` for a campaign recomputed incrementally, else (or
    without a campaign) ``ANALYTICS_RECOMPUTE_COUNTDOWN``."""
    if campaign_id is not None and _recomputed_incrementally(campaign_id):
        return float(settings.ANALYTICS_INCREMENTAL_COUNTDOWN)
    return float(settings.ANALYTICS_RECOMPUTE_COUNTDOWN)


def recompute_flag_timeout() -> float:
    return (
        max(
            recompute_countdown(),
            float(settings.ANALYTICS_INCREMENTAL_COUNTDOWN) + incremental_spacing(),
        )
        + FLAG_MARGIN_SECONDS
    )


def incremental_spacing() -> float:
    """Seconds between the starts of two incremental recomputes of a campaign, at least."""
    return settings.ANALYTICS_INCREMENTAL_SPACING_MS / 1000


def recompute_started_key(campaign_id: int) -> str:
    return f"evalsite:recompute-started:{campaign_id}"


def recompute_runs_key(campaign_id: int) -> str:
    return f"evalsite:recompute-runs:{campaign_id}"


# The run counter outlives any pending task by far (a task older than this runs anyway).
RUNS_TIMEOUT = 24 * 3600.0


def note_recompute_started(campaign_id: int, now: datetime | None = None) -> None:
    """Called by an incremental recompute as it starts, before it reads: the next one of the
    campaign is enqueued to start no sooner than :func:`incremental_spacing` after this, and
    the campaign's run count (:func:`recompute_runs`) goes up by one."""
    cache_set(
        recompute_started_key(campaign_id),
        (now or timezone.now()).isoformat(),
        incremental_spacing() + FLAG_MARGIN_SECONDS,
    )
    cache_incr(recompute_runs_key(campaign_id), RUNS_TIMEOUT)


def recompute_runs(campaign_id: int) -> int:
    """How many incremental recomputes of the campaign have started (a counter in the cache;
    0 when unknown). A task sent with the count of its time is done once the count is
    higher: a run started after its submission committed (``analytics.incremental.turns``)."""
    value = cache_get(recompute_runs_key(campaign_id))
    return value if isinstance(value, int) else 0


def recompute_pending(campaign_id: int) -> bool:
    """Whether a submission (or the sweep) asked for a recompute of the campaign since the
    last run started (its flag is set)."""
    return cache_get(recompute_flag_key(campaign_id)) is not None


def _incremental_countdown(campaign_id: int, now: datetime) -> float:
    """The incremental window, or longer: until the spacing since the last run's start is
    over. (Read only by the submission that enqueues: one cache read per run.)"""
    countdown = float(settings.ANALYTICS_INCREMENTAL_COUNTDOWN)
    value = cache_get(recompute_started_key(campaign_id))
    if isinstance(value, str):
        try:
            started = datetime.fromisoformat(value)
        except ValueError:
            return countdown
        wait = incremental_spacing() - (now - started).total_seconds()
        countdown = max(countdown, min(wait, incremental_spacing()))
    return countdown


def recompute_queue() -> str | None:
    return settings.ANALYTICS_RECOMPUTE_QUEUE or None


# --- Coalesced scheduling ------------------------------------------------------------------


def recompute_flag_key(campaign_id: int) -> str:
    return f"evalsite:recompute:{campaign_id}"


def clear_recompute_flag(campaign_id: int) -> None:
    cache_delete(recompute_flag_key(campaign_id))


def recompute_grace() -> float:
    """Seconds past the countdown after which a pending flag means the recompute was lost."""
    return float(getattr(settings, "ANALYTICS_RECOMPUTE_GRACE", 10))


def enqueue_recompute(campaign_id: int, countdown: float, **kwargs: Any) -> None:
    """Send the recompute task of the campaign (no flag: see :func:`schedule_recompute`)."""
    _enqueue(campaign_id, countdown, **kwargs)


def _enqueue(campaign_id: int, countdown: float, **kwargs: Any) -> None:
    options: dict[str, Any] = {"countdown": countdown}
    queue = recompute_queue()
    if queue:
        options["queue"] = queue
    if kwargs:
        options["kwargs"] = kwargs
    from evalsite.celery import task_named  # Celery only once a recompute is sent

    task_named(RECOMPUTE_TASK).apply_async(args=[campaign_id], **options)


def schedule_recompute(campaign_id: int) -> bool:
    """Enqueue a recompute of the campaign unless one is already pending; True if enqueued.

    The flag is set with ``cache.add`` (atomic on Redis), so of a burst of submissions only
    the first enqueues; the task clears the flag when it starts. A campaign recomputed
    incrementally waits its own window, and no less than what is left of
    ``ANALYTICS_INCREMENTAL_SPACING_MS`` since its last run started. If enqueueing fails the flag
    is removed again, so the next submission retries. When the cache is down the recompute
    is enqueued without a flag (no coalescing, but nothing is missed).
    """
    key = recompute_flag_key(campaign_id)
    now = timezone.now()
    if cache_add(key, now.isoformat(), timeout=recompute_flag_timeout()) is False:
        return False
    try:
        if _recomputed_incrementally(campaign_id):
            # The run count now: a run that starts later reads this submission's judgment,
            # and the task then has nothing left to do (analytics.incremental.turns).
            runs = cache_get(recompute_runs_key(campaign_id))
            extra = {"runs_before": runs} if isinstance(runs, int) else {}
            _enqueue(campaign_id, _incremental_countdown(campaign_id, now), **extra)
        else:
            _enqueue(campaign_id, recompute_countdown(campaign_id))
    except Exception:
        clear_recompute_flag(campaign_id)
        raise
    return True


def _flag_age(campaign_id: int) -> float | None:
    """Seconds since the pending flag of the campaign was set; None without a (readable)
    flag."""
    value = cache_get(recompute_flag_key(campaign_id))
    if not isinstance(value, str):
        return None
    try:
        since = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (timezone.now() - since).total_seconds()


def repair_lost_recompute(campaign_id: int) -> bool:
    """Enqueue the campaign's recompute again, at once, if its pending flag is older than the
    countdown plus the grace (the message was lost); True if enqueued. The task then skips the
    work when a run meanwhile made the results fresh (``only_if_stale``)."""
    age = _flag_age(campaign_id)
    if age is None:
        return False
    limit = recompute_countdown(campaign_id) + recompute_grace()
    if _recomputed_incrementally(campaign_id):
        limit += incremental_spacing()  # its countdown may have waited for the spacing too
    if age <= limit:
        return False
    key = recompute_flag_key(campaign_id)
    cache_set(key, timezone.now().isoformat(), recompute_flag_timeout())
    logger.warning(
        "The recompute of campaign %d queued %.0f s ago never started (lost with a worker?); "
        "enqueued again",
        campaign_id,
        age,
    )
    try:
        _enqueue(campaign_id, 0.0, only_if_stale=True)
    except Exception:
        clear_recompute_flag(campaign_id)
        raise
    return True


def on_judgments_recorded(sender: Any, campaign_id: int, **kwargs: Any) -> None:
    """Receiver of ``judgments_recorded`` (sent after the commit): schedule a recompute."""
    schedule_recompute(campaign_id)


def on_exclusions_changed(sender: Any, campaign_ids: list[int], **kwargs: Any) -> None:
    """Receiver of ``exclusions_changed`` (sent after the commit): schedule recomputes."""
    for campaign_id in campaign_ids:
        schedule_recompute(campaign_id)


# --- Computing -----------------------------------------------------------------------------


def is_stale(campaign: Campaign) -> bool:
    """Whether the campaign's stored results no longer match its data (one query)."""
    return stale_campaigns().filter(pk=campaign.pk).exists()


def recompute_campaign(campaign: Campaign) -> models.Model | None:
    """Load, compute and store one campaign's results (by its kind: ``AnalyticsKind.
    recompute``); None if there is nothing to compute (a kind without statistics, or a ranking
    campaign without rankings yet). Idempotent."""
    clear_recompute_flag(campaign.pk)  # before loading: see the module docstring
    statistics = statistics_of(campaign)
    if statistics is None:
        return None
    return statistics.recompute(campaign)


# --- The periodic sweep --------------------------------------------------------------------


def stale_campaigns() -> QuerySet[Campaign]:
    """Every campaign whose stored results no longer match its data (the union of each kind's
    ``stale_campaigns``, e.g. direct assessment's and ranking's). One query."""
    parts = [Q(pk__in=statistics.stale_campaigns().values("pk")) for statistics in registry]
    if not parts:
        return Campaign.objects.none()
    return Campaign.objects.filter(reduce(operator.or_, parts)).order_by("pk")


def recompute_stale_campaigns() -> list[int]:
    """Schedule a recompute of every stale campaign (coalesced with live scheduling: a
    campaign whose recompute is already pending is not enqueued twice). Returns the ids of
    the stale campaigns. A campaign whose pending recompute was lost is enqueued again
    (:func:`repair_lost_recompute`)."""
    ids = list(stale_campaigns().values_list("pk", flat=True))
    for campaign_id in ids:
        if not schedule_recompute(campaign_id):
            repair_lost_recompute(campaign_id)
    if ids:
        logger.info("Sweep: %d campaign(s) with stale results: %s", len(ids), ids)
    return ids


# --- Requester decisions -------------------------------------------------------------------


def set_workers_excluded(
    campaign: Campaign, worker_ids: Iterable[int], excluded: bool, reason: str = ""
) -> int:
    """Exclude workers from (or re-admit them to) a campaign's scores and hand-outs, then
    recompute the campaign's results at once. Their judgments stay stored. Returns how many
    workers changed."""
    from judgments.actions import set_excluded

    ids = sorted({int(pk) for pk in worker_ids})
    workers = list(Worker.objects.filter(pk__in=ids).values_list("pk", flat=True))
    with transaction.atomic():
        existing = set(
            CampaignWorker.objects.filter(campaign=campaign, worker_id__in=workers).values_list(
                "worker_id", flat=True
            )
        )
        CampaignWorker.objects.bulk_create(
            [
                CampaignWorker(campaign=campaign, worker_id=pk)
                for pk in workers
                if pk not in existing
            ],
            ignore_conflicts=True,
        )
        changed = set_excluded(
            CampaignWorker.objects.filter(campaign=campaign, worker_id__in=workers),
            excluded,
            reason,
        )
    if changed:
        recompute_campaign(campaign)
    return changed


def set_workers_trusted(
    campaign: Campaign, worker_ids: Iterable[int], trusted: bool, reason: str = ""
) -> int:
    """Trust workers of a ranking campaign again (``trusted``) or mark them untrusted by hand,
    then recompute at once. A worker trusted again is not marked untrusted automatically
    until they have seen more gold units (``analytics.kinds.ranking.actions``). Returns how many
    workers changed."""
    from judgments.actions import set_untrusted

    changed = set_untrusted(campaign, worker_ids, reason, untrusted=not trusted)
    if changed:
        recompute_campaign(campaign)
    return changed
