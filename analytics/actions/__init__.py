"""Actions on stored statistics, shared by the signal receiver, the Celery tasks and the admin.

This package: scheduling, the dispatch by campaign kind, the sweep and direct assessment
here; ranking (gold trust, the untrusted cut-off, auto-takedown, scores by every method) in
:mod:`analytics.actions.ranking`, whose public names are re-exported.

Live, for every kind with statistics (DESIGN.md "Live, not nightly"):

- Every committed submission sends ``judgments.signals.judgments_recorded``; the receiver
  (:func:`on_judgments_recorded`, connected in ``AnalyticsConfig.ready``) calls
  :func:`schedule_recompute`.
- :func:`schedule_recompute` coalesces: ``cache.add`` of a per-campaign flag succeeds for the
  first submission of a burst only, and only that one enqueues the recompute task, with a
  countdown (``ANALYTICS_RECOMPUTE_COUNTDOWN`` seconds, default 5), so 100 quick submissions
  queue one recompute, not 100.
- :func:`recompute_campaign` clears the flag *before* loading: a judgment committed after the
  clear schedules another run, and one committed before it is in the load, so the last run of
  a burst always reflects every judgment. It loads the campaign (``analytics.loading``), runs
  the pure statistics and stores the results (:func:`store_results`, one transaction); a
  ranking campaign goes to :func:`~analytics.actions.ranking.recompute_ranking`, which also
  marks untrusted workers and may pause the campaign.
- :func:`recompute_stale_campaigns` (the periodic sweep, celery beat) repairs what a lost
  message missed: it schedules campaigns whose stored result no longer matches the data.

Without a broker (the embedded default, ``CELERY_TASK_ALWAYS_EAGER``) the task runs inline
when it is enqueued, i.e. in the submitting request's ``on_commit``: every submission then
recomputes its whole campaign before the response goes out. That is about 0.15 s of
statistics per 100,000 judgments plus the load, fine at development scale; production runs
Celery workers and gets the coalescing.

Settings (environment variables of the same names, see evalsite/settings.py):
``ANALYTICS_RECOMPUTE_COUNTDOWN`` (seconds a burst is gathered before its recompute, default 5;
a flag whose task never ran lives countdown + 120 s, after which a new submission or the sweep
enqueues again) and ``ANALYTICS_RECOMPUTE_QUEUE`` (the Celery queue of the recompute task;
default: Celery's default queue).

Which judgments count in direct assessment (METHODS.md section 2): the worker table is
computed over every scored judgment of each worker; system scores leave out workers the
requester excluded (``CampaignWorker.excluded``) and assignments with status "rejected"
(their judgments stay stored), then take reliable workers only (stored as
``include_unreliable=False``) or every remaining worker (``include_unreliable=True``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import json_safe as _finite
from analytics.actions.ranking import (
    AUTO_PAUSE_PREFIX,
    analyse_loaded_ranking,
    apply_takedown,
    load_prior_trust,
    load_references,
    mark_untrusted,
    ranking_config_for,
    recompute_ranking,
    store_ranking_results,
)
from analytics.loading import LoadedCampaign, load_da_judgments, subset
from analytics.models import (
    CampaignResult,
    RankingReference,
    RankingResult,
    RankingWorkerStat,
    Recommendation,
    SystemScore,
    WorkerStat,
    variant_key,
)
from analytics.stats.direct_assessment import (
    DAConfig,
    DAReport,
    WorkerQC,
    WorkerReliability,
    analyse_campaign,
    worker_reliability,
)
from campaigns.models import Campaign, TaskKind
from judgments.models import AssignmentStatus, CampaignWorker, Judgment, Worker

__all__ = [
    "AUTO_PAUSE_PREFIX",
    "CampaignAnalysis",
    "analyse_loaded",
    "analyse_loaded_ranking",
    "apply_takedown",
    "clear_recompute_flag",
    "da_config_for",
    "load_prior_trust",
    "load_references",
    "mark_untrusted",
    "on_exclusions_changed",
    "on_judgments_recorded",
    "ranking_config_for",
    "recommend",
    "recompute_campaign",
    "recompute_countdown",
    "recompute_flag_key",
    "recompute_flag_timeout",
    "recompute_queue",
    "recompute_ranking",
    "recompute_stale_campaigns",
    "schedule_recompute",
    "set_workers_excluded",
    "set_workers_trusted",
    "stale_campaigns",
    "stale_da_campaigns",
    "stale_ranking_campaigns",
    "store_ranking_results",
    "store_results",
]

logger = logging.getLogger(__name__)

FLAG_MARGIN_SECONDS = 120.0

# "Reject only clear random clicking" (001): an unreliable worker is flagged for rejection
# only if also fast: their mean seconds per judgment is below this share of the median of
# the reliable workers' means (2013 Figure 4: random clickers are the fast ones), or below
# FAST_SECONDS_FALLBACK when no reliable worker has timings yet.
FAST_SHARE_OF_RELIABLE_MEDIAN = 0.5
FAST_SECONDS_FALLBACK = 3.0


# --- Settings ------------------------------------------------------------------------------


def recompute_countdown() -> float:
    return float(settings.ANALYTICS_RECOMPUTE_COUNTDOWN)


def recompute_flag_timeout() -> float:
    return recompute_countdown() + FLAG_MARGIN_SECONDS


def recompute_queue() -> str | None:
    return settings.ANALYTICS_RECOMPUTE_QUEUE or None


def da_config_for(campaign: Campaign, *, include_unreliable: bool = False) -> DAConfig:
    """The campaign's quality-control settings as the statistics' configuration."""
    return DAConfig(
        alpha=float(campaign.da_settings.reliability_alpha),
        reliability_test=campaign.da_settings.reliability_test,
        include_unreliable=include_unreliable,
    )


# --- Coalesced scheduling ------------------------------------------------------------------


def recompute_flag_key(campaign_id: int) -> str:
    return f"evalsite:recompute:{campaign_id}"


def clear_recompute_flag(campaign_id: int) -> None:
    cache.delete(recompute_flag_key(campaign_id))


def schedule_recompute(campaign_id: int) -> bool:
    """Enqueue a recompute of the campaign unless one is already pending; True if enqueued.

    The flag is set with ``cache.add`` (atomic on Redis), so of a burst of submissions only
    the first enqueues; the task clears the flag when it starts. If enqueueing fails the flag
    is removed again, so the next submission retries.
    """
    from analytics.tasks import recompute_campaign_results  # tasks import this module

    key = recompute_flag_key(campaign_id)
    if not cache.add(key, timezone.now().isoformat(), timeout=recompute_flag_timeout()):
        return False
    options: dict[str, Any] = {"countdown": recompute_countdown()}
    queue = recompute_queue()
    if queue:
        options["queue"] = queue
    try:
        recompute_campaign_results.apply_async(args=[campaign_id], **options)
    except Exception:
        cache.delete(key)
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


@dataclass(frozen=True, eq=False)
class CampaignAnalysis:
    """Everything stored for a campaign, computed from a :class:`LoadedCampaign` (no I/O).

    ``workers``: reliability over every loaded judgment (the worker table). ``reports``:
    :class:`DAReport` over the scored rows, keyed by ``include_unreliable``.
    ``recommendations``: one :class:`Recommendation` value per worker, aligned to
    ``workers.workers``.
    """

    config: DAConfig
    workers: WorkerReliability
    reports: dict[bool, DAReport]
    recommendations: list[str]
    n_rejected_by_worker: np.ndarray


def recommend(records: Iterable[WorkerQC], min_pairs: int) -> list[str]:
    """The recommendation for each worker (one Python step per worker, not per judgment).

    Reliable: approve. Too few pairs for the test: wait. Unreliable and fast (see
    ``FAST_SHARE_OF_RELIABLE_MEDIAN``): consider rejecting. Otherwise unreliable but not clearly
    random: approve (pay) and leave out of the scores, as the 2014 paper does.
    """
    records = list(records)
    reliable_seconds = [
        r.mean_seconds for r in records if r.reliable and r.mean_seconds is not None
    ]
    threshold = (
        FAST_SHARE_OF_RELIABLE_MEDIAN * float(np.median(reliable_seconds))
        if reliable_seconds
        else FAST_SECONDS_FALLBACK
    )
    out = []
    for record in records:
        if record.reliable:
            out.append(Recommendation.APPROVE)
        elif record.p_value is None and record.n_pairs < min_pairs:
            out.append(Recommendation.WAIT)
        elif record.mean_seconds is not None and record.mean_seconds < threshold:
            out.append(Recommendation.REJECT)
        else:
            out.append(Recommendation.PAY)
    return [str(value) for value in out]


def analyse_loaded(loaded: LoadedCampaign, config: DAConfig) -> CampaignAnalysis:
    """Run the statistics on a loaded campaign: pure, no database."""
    judgments = loaded.judgments
    workers = worker_reliability(
        judgments,
        test=config.reliability_test,
        alpha=config.alpha,
        min_pairs=config.min_pairs,
        assumption_a_test=config.assumption_a_test,
    )
    scored = subset(judgments, loaded.scored)
    reports = {
        include: analyse_campaign(scored, replace(config, include_unreliable=include))
        for include in (False, True)
    }
    n_rejected = np.bincount(
        judgments.worker_index[loaded.rejected], minlength=judgments.n_workers
    ).astype(np.int64)
    return CampaignAnalysis(
        config=config,
        workers=workers,
        reports=reports,
        recommendations=recommend(workers.records(), config.min_pairs),
        n_rejected_by_worker=n_rejected,
    )


def recompute_campaign(campaign: Campaign) -> CampaignResult | RankingResult | None:
    """Load, compute and store one campaign's results (by its kind); None if there is nothing
    to compute (a kind without statistics, or a ranking campaign without rankings yet).
    Idempotent."""
    clear_recompute_flag(campaign.pk)  # before loading: see the module docstring
    if campaign.kind == TaskKind.RANKING:
        return recompute_ranking(campaign)
    if campaign.kind != TaskKind.DIRECT_ASSESSMENT:
        return None
    computed_at = timezone.now()
    started = time.perf_counter()
    loaded = load_da_judgments(campaign.pk)
    analysis = analyse_loaded(loaded, da_config_for(campaign))
    seconds = time.perf_counter() - started
    result = store_results(campaign, loaded, analysis, computed_at, compute_seconds=seconds)
    logger.info(
        "Recomputed campaign %s: %d judgments, %d workers in %.3fs",
        campaign.pk,
        loaded.n_read,
        analysis.workers.workers.shape[0],
        seconds,
    )
    return result


# --- Storing -------------------------------------------------------------------------------


def _variant_details(report: DAReport) -> dict[str, Any]:
    return _finite(
        {
            "systems": report.systems.system,
            "p_greater": report.p_greater,
            "marks": report.marks,
            "clusters": report.clusters,
            "n_workers_included": int(np.count_nonzero(report.included_workers)),
            "agreement": asdict(report.agreement_included),
        }
    )


def _system_rows(campaign: Campaign, report: DAReport, include: bool) -> list[SystemScore]:
    s = report.systems
    return [
        SystemScore(
            campaign=campaign,
            system_id=int(s.system[i]),
            include_unreliable=include,
            position=i + 1,
            n=int(s.n[i]),
            # NaN (stored empty) for a system judged with given z-scores only (imports).
            mean_score=_finite(float(s.mean_score[i])),
            mean_z=float(s.mean_z[i]),
            cluster=int(report.clusters[i]),
            rank_best=int(report.rank_best[i]),
            rank_worst=int(report.rank_worst[i]),
        )
        for i in range(len(s))
    ]


def _worker_rows(
    campaign: Campaign, loaded: LoadedCampaign, analysis: CampaignAnalysis
) -> list[WorkerStat]:
    excluded = np.isin(analysis.workers.workers, loaded.excluded_workers)
    return [
        WorkerStat(
            campaign=campaign,
            worker_id=qc.worker,
            n_judgments=qc.n_judgments,
            test=qc.test,
            p_value=qc.p_value,
            reliable=qc.reliable,
            reason=qc.reason[:200],
            n_pairs=qc.n_pairs,
            n_bad_ref_pairs=qc.n_bad_ref_pairs,
            n_repeat_pairs=qc.n_repeat_pairs,
            mean_seconds=qc.mean_seconds,
            assumption_a_p=qc.assumption_a_p,
            assumption_a_holds=qc.assumption_a_holds,
            excluded=bool(excluded[i]),
            n_rejected_judgments=int(analysis.n_rejected_by_worker[i]),
            recommendation=analysis.recommendations[i],
        )
        for i, qc in enumerate(analysis.workers.records())
    ]


def store_results(
    campaign: Campaign,
    loaded: LoadedCampaign,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    *,
    compute_seconds: float = 0.0,
) -> CampaignResult:
    """Replace the campaign's stored results in one transaction.

    The campaign's CampaignResult row is locked first, so concurrent stores of one campaign
    take turns; a store whose data was read before the stored result's is dropped (the newer
    result stays). Two first-ever stores racing on the unique row: the loser retries once.
    """
    for attempt in (1, 2):
        try:
            return _store(campaign, loaded, analysis, computed_at, compute_seconds)
        except IntegrityError:
            if attempt == 2 or not CampaignResult.objects.filter(campaign=campaign).exists():
                raise
    raise AssertionError("unreachable")


def _store(
    campaign: Campaign,
    loaded: LoadedCampaign,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    compute_seconds: float,
) -> CampaignResult:
    fields = {
        "computed_at": computed_at,
        "n_judgments": loaded.n_read,
        "n_scored_judgments": int(np.count_nonzero(loaded.scored)),
        "n_rejected_judgments": loaded.n_rejected_read,
        "n_workers": int(analysis.workers.workers.shape[0]),
        "n_unmatched_controls": loaded.judgments.n_unmatched_controls,
        "reliability_test": analysis.config.reliability_test,
        "reliability_alpha": campaign.da_settings.reliability_alpha,
        "assumption_a_share": _finite(analysis.workers.assumption_a_share),
        "compute_seconds": compute_seconds,
        "details": {
            variant_key(include): _variant_details(report)
            for include, report in analysis.reports.items()
        },
    }
    with transaction.atomic():
        result = CampaignResult.objects.select_for_update().filter(campaign=campaign).first()
        if result is not None and result.computed_at > computed_at:
            logger.info("Campaign %s already has newer results; not storing", campaign.pk)
            return result
        WorkerStat.objects.filter(campaign=campaign).delete()
        SystemScore.objects.filter(campaign=campaign).delete()
        WorkerStat.objects.bulk_create(_worker_rows(campaign, loaded, analysis), batch_size=1000)
        SystemScore.objects.bulk_create(
            [
                row
                for include, report in analysis.reports.items()
                for row in _system_rows(campaign, report, include)
            ],
            batch_size=1000,
        )
        if result is None:
            result = CampaignResult.objects.create(campaign=campaign, **fields)
        else:
            for name, value in fields.items():
                setattr(result, name, value)
            result.save()
    return result


# --- The periodic sweep --------------------------------------------------------------------


def stale_da_campaigns():
    """Direct-assessment campaigns whose stored results no longer match their data.

    Stale: judgments but no result; a different number of scored judgments than the result
    reflects, or one newer than it; a different number of judgments in rejected assignments;
    a worker excluded or re-admitted since; other reliability settings. One query.
    """
    # What load_da_judgments reads: a raw score or a given z (imported standardised files).
    scored = (
        Judgment.objects.filter(campaign=OuterRef("pk"))
        .filter(Q(score__isnull=False) | Q(given_z__isnull=False))
        .order_by()
    )
    per_campaign = scored.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = Subquery(per_campaign.annotate(t=Max("submitted_at")).values("t"))
    n_rejected_now = Coalesce(
        Subquery(
            per_campaign.filter(assignment__status=AssignmentStatus.REJECTED)
            .annotate(n=Count("pk"))
            .values("n")
        ),
        0,
    )
    excluded_now = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    exclusion_changed = Exists(
        WorkerStat.objects.filter(campaign=OuterRef("pk"))
        .annotate(excluded_now=Exists(excluded_now))
        .exclude(excluded=F("excluded_now"))
    )
    return (
        Campaign.objects.filter(kind=TaskKind.DIRECT_ASSESSMENT)
        .alias(
            n_now=n_now,
            newest=newest,
            n_rejected_now=n_rejected_now,
            exclusion_changed=exclusion_changed,
        )
        .filter(
            Q(da_result__isnull=True, n_now__gt=0)
            | Q(da_result__isnull=False)
            & (
                ~Q(da_result__n_judgments=F("n_now"))
                | Q(da_result__computed_at__lt=F("newest"))
                | ~Q(da_result__n_rejected_judgments=F("n_rejected_now"))
                | Q(exclusion_changed=True)
                | ~Q(da_result__reliability_test=F("da_settings__reliability_test"))
                | ~Q(da_result__reliability_alpha=F("da_settings__reliability_alpha"))
            )
        )
        .order_by("pk")
    )


def _membership_changed(stat_model, stored: str, current: str) -> Exists:
    """A stored worker row whose flag (``stored``) differs from the membership's (``current``)
    now: the requester excluded, re-admitted, distrusted or trusted a worker since."""
    now_set = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), **{current: True}
    )
    return Exists(
        stat_model.objects.filter(campaign=OuterRef("pk"))
        .annotate(flag_now=Exists(now_set))
        .exclude(**{stored: F("flag_now")})
    )


def stale_ranking_campaigns():
    """Ranking campaigns whose stored results no longer match their data: rankings but no
    result; another number of ranked outputs, or one newer than the result; another number
    in rejected assignments; a worker excluded, re-admitted, marked untrusted or trusted
    again since; other gold settings; references edited since. One query."""
    ranked = Judgment.objects.filter(campaign=OuterRef("pk"), rank__isnull=False).order_by()
    per_campaign = ranked.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = Subquery(per_campaign.annotate(t=Max("submitted_at")).values("t"))
    n_rejected_now = Coalesce(
        Subquery(
            per_campaign.filter(
                assignment__status=AssignmentStatus.REJECTED,
                assignment__hit__is_qualification=False,
            )
            .annotate(n=Count("pk"))
            .values("n")
        ),
        0,
    )
    references_edited = Exists(
        RankingReference.objects.filter(
            campaign=OuterRef("pk"), updated_at__gt=OuterRef("ranking_result__computed_at")
        )
    )
    return (
        Campaign.objects.filter(kind=TaskKind.RANKING)
        .alias(
            n_now=n_now,
            newest=newest,
            n_rejected_now=n_rejected_now,
            exclusion_changed=_membership_changed(RankingWorkerStat, "excluded", "excluded"),
            trust_changed=_membership_changed(RankingWorkerStat, "flagged", "untrusted"),
            references_edited=references_edited,
        )
        .filter(
            Q(ranking_result__isnull=True, n_now__gt=0)
            | Q(ranking_result__isnull=False)
            & (
                ~Q(ranking_result__n_judgments=F("n_now"))
                | Q(ranking_result__computed_at__lt=F("newest"))
                | ~Q(ranking_result__n_rejected_judgments=F("n_rejected_now"))
                | Q(exclusion_changed=True)
                | Q(trust_changed=True)
                | Q(references_edited=True)
                | ~Q(ranking_result__gold_scheme=F("ranking_settings__gold_scheme"))
                | ~Q(ranking_result__trust_min_gold=F("ranking_settings__trust_min_gold"))
                | ~Q(ranking_result__trust_min_accuracy=F("ranking_settings__trust_min_accuracy"))
            )
        )
        .order_by("pk")
    )


def stale_campaigns():
    """Every campaign whose stored results no longer match its data (direct assessment and
    ranking; see :func:`stale_da_campaigns` and :func:`stale_ranking_campaigns`). One query."""
    return Campaign.objects.filter(
        Q(pk__in=stale_da_campaigns().values("pk"))
        | Q(pk__in=stale_ranking_campaigns().values("pk"))
    ).order_by("pk")


def recompute_stale_campaigns() -> list[int]:
    """Schedule a recompute of every stale campaign (coalesced with live scheduling: a
    campaign whose recompute is already pending is not enqueued twice). Returns the ids of
    the stale campaigns."""
    ids = list(stale_campaigns().values_list("pk", flat=True))
    for campaign_id in ids:
        schedule_recompute(campaign_id)
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
    until they have seen more gold units (``analytics.actions.ranking``). Returns how many
    workers changed."""
    from judgments.actions import set_untrusted

    changed = set_untrusted(campaign, worker_ids, reason, untrusted=not trusted)
    if changed:
        recompute_campaign(campaign)
    return changed
