"""Fresh results at a million judgments: recomputes that cost what is new.

A full direct-assessment recompute reads every judgment of the campaign and computes every
statistic from scratch. Judgments are append-only, so a Celery worker process keeps the
arrays it read (:class:`~analytics.incremental.direct_assessment.CachedDACampaign`, narrow
columns) and each later recompute of the campaign reads only the judgments added since, the
rejected assignments and excluded workers (small); then
(:mod:`analytics.incremental.analysis`) it recomputes the per-worker statistics (reliability,
score spread, z-score basis) of the workers whose rows changed only, taking every other
worker's from its previous run, and computes what needs every worker at once (z-scores,
system scores, significance, rank ranges, clusters, recommendations) as a full recompute does;
it stores only the worker rows that changed (:mod:`analytics.incremental.store`). The stored
results equal a full recompute's over the same judgments (tests/analytics/
test_incremental.py compares them), except two statistics carried over between the runs that
compute them, each with its stamp:

- inter-annotator agreement, computed at most every ``ANALYTICS_AGREEMENT_SECONDS`` (60): the
  costliest statistic at a million judgments (about 0.5 CPU s), and no decision waits on it.
  The Celery task's runs (:mod:`analytics.incremental.turns`) defer it: a run where it is due
  stores the fresh scores with the earlier agreement, then computes its own (in the wait
  before the next run), which the next run shows; while submissions keep coming it waits for
  a pause in them, for at most ``turns.AGREEMENT_PATIENCE`` times that interval (it holds up
  the next run);
- significance (the pairwise rank-sum p-values and their marks, the clusters and rank
  ranges), computed at most every ``ANALYTICS_SIGNIFICANCE_SECONDS`` (10) while every
  variant's systems keep their order (a change of order computes it at once, so clusters and
  rank ranges never contradict the order shown); system scores themselves are fresh.

Such a run costs about 0.3 CPU s at a million judgments (1.1-1.2 s before these changes;
a full recompute more, with its load), so these campaigns are scheduled with their own,
shorter coalescing window, ``ANALYTICS_INCREMENTAL_COUNTDOWN`` (default 0 s:
``analytics.actions.recompute_countdown``).

The stored results say which judgments they reflect: ``CampaignResult.n_judgments`` and
``computed_at`` (when they were read, as before) and ``details["as_of"]``:
``{"judgment_id": the highest judgment id read, "n_judgments", "read_at", "incremental":
whether only new rows were read, "rows_read", "workers_recomputed": workers whose per-worker
statistics were computed again (every worker on a full read), "agreement" and
"significance": {"judgment_id", "n_judgments", "read_at"} of the run that computed the
agreement, resp. the significance, shown}``.

One worker process at a time recomputes a campaign, run after run while submissions come
(:mod:`analytics.incremental.turns`), so one process keeps its cache.

Memory: the cache is per worker process and bounded by ``ANALYTICS_CACHE_MIB`` (least
recently recomputed campaigns are dropped first; a campaign bigger than the budget is not
kept). A million judgments take about 53 MiB (``CachedDACampaign.nbytes`` after a first read
of the 1M bench campaign: its columns, slots, outputs, items and links; ids as int32, scores as
float32 while every one is exact, no given-z column unless a row has one; 58 MiB with float64
scores), plus the last run's z-scores and scored-row mask (9 MB).

Used by ``analytics.tasks.recompute_campaign_results`` when ``ANALYTICS_INCREMENTAL`` is on (the
default) for the kinds that support it (direct assessment); every other path (the admin's
exclusions, other kinds) recomputes in full as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from analytics.incremental.analysis import analyse, carry, carry_significance
from analytics.incremental.direct_assessment import CachedDACampaign, Refresh
from analytics.incremental.store import store_changes
from analytics.kinds import statistics_of
from analytics.kinds.direct_assessment.actions import da_config_for
from analytics.kinds.direct_assessment.loading import LoadSummary
from analytics.models import CampaignResult
from campaigns.models import Campaign

__all__ = [
    "agreement_age",
    "cache_budget_bytes",
    "cached_campaigns",
    "clear_cache",
    "compute_deferred_agreement",
    "recompute",
    "supports",
]

logger = logging.getLogger(__name__)

_cache: OrderedDict[int, CachedDACampaign] = OrderedDict()
# Celery's prefork children run one task at a time; the lock is for threaded pools.
_lock = threading.Lock()


def supports(campaign: Campaign) -> bool:
    """Whether the campaign's kind is recomputed incrementally."""
    statistics = statistics_of(campaign)
    return statistics is not None and statistics.incremental


def cache_budget_bytes() -> int:
    return int(settings.ANALYTICS_CACHE_MIB) * 2**20


def cached_campaigns() -> dict[int, int]:
    """The campaigns this process keeps, with their bytes (least recently used first)."""
    return {campaign_id: entry.nbytes for campaign_id, entry in _cache.items()}


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def _evict(keep: int) -> None:
    """Drop least recently used campaigns until the cache fits its budget; the campaign just
    used stays only if it fits alone."""
    budget = cache_budget_bytes()
    while _cache and sum(entry.nbytes for entry in _cache.values()) > budget:
        campaign_id, _ = _cache.popitem(last=False)
        if campaign_id != keep:
            logger.info("Dropped campaign %s's arrays from the recompute cache", campaign_id)


def recompute(
    campaign: Campaign, *, full_reload: bool = False, defer_agreement: bool = False
) -> CampaignResult:
    """Recompute and store a direct-assessment campaign's results from the cached arrays
    brought up to date (``full_reload``: read everything again). Idempotent.

    ``defer_agreement``: when the agreement is due and an earlier one can be shown meanwhile,
    (``ANALYTICS_AGREEMENT_SECONDS`` above 0: with 0 every run shows its own), the results
    are stored with the earlier one and this run's agreement is left for
    :func:`compute_deferred_agreement` (the caller calls it after this returns, before the
    next run: ``analytics.incremental.turns``), so that the fresh scores do not wait for the
    costliest statistic; the next run shows it."""
    if not supports(campaign):
        raise ValueError(f"campaign {campaign.pk} ({campaign.kind}) is not recomputed here")
    with _lock:
        # When the judgments are read, taken before reading: see CampaignResult.computed_at.
        computed_at = timezone.now()
        started = time.perf_counter()
        started_cpu = time.process_time()
        entry = _cache.pop(campaign.pk, None) or CachedDACampaign(campaign.pk)
        _cache[campaign.pk] = entry  # the most recently used, last
        try:
            refresh = entry.refresh(full=full_reload)
            _give_back_freed_memory()
            loaded = entry.loaded()
        except Exception:
            _cache.pop(campaign.pk, None)  # never keep a half-read cache
            raise
        read_seconds = time.perf_counter() - started
        summary = loaded.summary()  # what the store needs; the rows are let go in the analysis
        as_of = _as_of(refresh, summary, computed_at)
        carried = entry.carried
        if (
            refresh.full
            or entry.carried_at is None
            or (started - entry.carried_at >= settings.ANALYTICS_AGREEMENT_SECONDS)
        ):
            carried = None  # agreement is due
        significance = entry.significance
        if (
            refresh.full
            or entry.significance_at is None
            or (started - entry.significance_at >= settings.ANALYTICS_SIGNIFICANCE_SECONDS)
        ):
            significance = None  # significance is due
        defer = False
        # Deferred only where carrying it over is allowed (not with agreement on every run).
        if (
            carried is None
            and defer_agreement
            and not refresh.full
            and settings.ANALYTICS_AGREEMENT_SECONDS > 0
        ):
            carried, defer = entry.carried, entry.carried is not None
        entry.deferred = None  # a deferred agreement not computed in time is dropped
        changed_workers, unchanged_rows = entry.changed_since_analysis()
        analysis, last, agreement_computed, significance_computed, deferred = analyse(
            loaded,
            da_config_for(campaign),
            carried,
            entry.last,
            changed_workers,
            unchanged_rows,
            significance,
            defer_agreement=defer,
            segment_items=entry.segment_items(),
        )
        del loaded  # (its judgments were released while the scored ones were taken)
        _give_back_freed_memory()
        entry.analysed(last)
        if deferred is not None:
            entry.deferred = (deferred, _stamp(as_of), started)
        if agreement_computed:
            entry.carried, entry.carried_at = carry(analysis, _stamp(as_of)), started
        if significance_computed:
            entry.significance = carry_significance(analysis, _stamp(as_of))
            entry.significance_at = started
        as_of["agreement"] = entry.carried.as_of
        as_of["significance"] = entry.significance.as_of
        as_of["workers_recomputed"] = int(changed_workers.shape[0])
        seconds = time.perf_counter() - started
        _evict(keep=campaign.pk)
    result, written = store_changes(
        campaign, summary, analysis, computed_at, compute_seconds=seconds, as_of=as_of
    )
    logger.info(
        "Recomputed campaign %s from %s: %d judgments (%d read, up to id %d) in %.3fs "
        "(reading %.3fs), %.3f CPU s with the store; %d workers recomputed, %d worker rows "
        "written; significance %s",
        campaign.pk,
        f"a full read ({refresh.reason})" if refresh.full else "the cached arrays",
        summary.n_read,
        refresh.n_new,
        refresh.last_id,
        seconds,
        read_seconds,
        time.process_time() - started_cpu,
        as_of["workers_recomputed"],
        written,
        "computed" if significance_computed else "carried over",
    )
    return result


def agreement_age(campaign_id: int) -> float | None:
    """Seconds since the run that computed the agreement the campaign's results show started
    (None: this process has no agreement of the campaign)."""
    entry = _cache.get(campaign_id)
    if entry is None or entry.carried_at is None:
        return None
    return time.perf_counter() - entry.carried_at


def compute_deferred_agreement(campaign_id: int) -> bool:
    """Compute the agreement the campaign's last run deferred (``recompute`` with
    ``defer_agreement``), for the next run to show; False when there was none."""
    with _lock:
        entry = _cache.get(campaign_id)
        if entry is None or entry.deferred is None:
            return False
        deferred, stamp, started = entry.deferred
        entry.deferred = None
        _give_back_freed_memory()
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        # The cache holds the rows that run read (any later run drops what is deferred).
        entry.carried, entry.carried_at = deferred.compute(entry.judgments(), stamp), started
        del deferred  # the run's scored judgments go
    logger.info(
        "Computed campaign %s's agreement over %d judgments after storing its scores in "
        "%.3fs, %.3f CPU s",
        campaign_id,
        stamp["n_judgments"],
        time.perf_counter() - started_wall,
        time.process_time() - started_cpu,
    )
    return True


def _give_back_freed_memory() -> None:
    """Return the C heap's free memory to the system (glibc's malloc_trim), between the
    read, the analysis and the store: numpy's freed arrays stay in the heap otherwise, and a
    worker process kept ~80 MiB more between runs at a million judgments (282 -> 190 MiB)
    and peaked higher (a deferred agreement, 302 -> 297 MiB)."""
    if _libc is not None:
        _libc.malloc_trim(0)


try:
    import ctypes

    _libc = ctypes.CDLL("libc.so.6")
except OSError:
    _libc = None


def _stamp(as_of: dict) -> dict:
    return {key: as_of[key] for key in ("judgment_id", "n_judgments", "read_at")}


def _as_of(refresh: Refresh, summary: LoadSummary, computed_at: datetime) -> dict:
    return {
        "judgment_id": refresh.last_id,
        "n_judgments": summary.n_read,
        "read_at": computed_at.isoformat(),
        "incremental": not refresh.full,
        "rows_read": refresh.n_new,
    }
