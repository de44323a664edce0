"""Direct assessment's stored statistics: reliability, recommendations and system scores.

:func:`recompute_direct_assessment` is what ``analytics.actions.recompute_campaign`` runs for a
direct-assessment campaign (through the kind's ``recompute``): it loads the campaign
(``analytics.kinds.direct_assessment.loading``), runs the pure statistics
(:func:`analyse_loaded`) and stores the results (:func:`store_results`, one transaction).
:func:`stale_da_campaigns` is the kind's part of the periodic sweep.

Which judgments count (METHODS.md section 2): the worker table is computed over every scored
judgment of each worker; system scores leave out workers the requester excluded
(``CampaignWorker.excluded``) and assignments with status "rejected" (their judgments stay
stored), then take reliable workers only (stored as ``include_unreliable=False``) or every
remaining worker (``include_unreliable=True``). A campaign whose settings count every worker
(``workers_counted = everyone``: imported judgments that were filtered already or that hold
no bad references) stores every remaining worker in both variants.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import held_back_count, newest_submitted_at
from analytics.actions.common import json_safe as _finite
from analytics.kinds.direct_assessment.loading import (
    LoadedCampaign,
    LoadSummary,
    load_da_judgments,
)
from analytics.loading import return_freed_memory
from analytics.models import CampaignResult, Recommendation, SystemScore, WorkerStat, variant_key
from analytics.stats.direct_assessment import (
    DAConfig,
    DAJudgments,
    DAReport,
    WorkerQC,
    WorkerReliability,
    analyse_variants,
    worker_reliability,
)
from analytics.stats.direct_assessment._heap import in_thread
from analytics.stats.direct_assessment.effort import (
    MIN_JUDGMENTS_FOR_SPREAD,
    ScoreSpread,
    score_spread,
)
from analytics.stats.direct_assessment.reliability import reliability_of_subset
from campaigns.kinds.direct_assessment.models import WorkersCounted
from campaigns.models import Campaign, TaskKind
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "CampaignAnalysis",
    "analyse_loaded",
    "da_config_for",
    "recommend",
    "recommendations",
    "recompute_direct_assessment",
    "scored_reliability",
    "stale_da_campaigns",
    "store_results",
    "workers_losing_rows",
]

logger = logging.getLogger(__name__)

# "Reject only clear random clicking" (001): an unreliable worker is flagged for rejection
# if also fast: their mean seconds per judgment is below this share of the median of
# the reliable workers' means (2013 Figure 4: random clickers are the fast ones), or below
# FAST_SECONDS_FALLBACK when no reliable worker has timings yet. Besides, any worker is
# flagged whose scores hardly vary or who is faster than the campaign's absolute floor
# (issue 12: clearly not working, whatever the reliability test says).
FAST_SHARE_OF_RELIABLE_MEDIAN = 0.5
FAST_SECONDS_FALLBACK = 3.0


# --- Settings ------------------------------------------------------------------------------


def da_config_for(campaign: Campaign, *, include_unreliable: bool = False) -> DAConfig:
    """The campaign's quality-control and scoring settings as the statistics' configuration.

    A campaign that counts every worker (filtered or QC-less imports) has
    ``include_unreliable`` True whatever is asked: its default table is every worker's.
    """
    settings = campaign.da_settings
    return DAConfig(
        alpha=float(settings.reliability_alpha),
        reliability_test=settings.reliability_test,
        include_unreliable=include_unreliable
        or settings.workers_counted == WorkersCounted.EVERYONE,
        averaging=settings.score_averaging,
        significance_unit=settings.significance_unit,
        min_score_sd=float(settings.min_score_sd),
        min_seconds_per_item=float(settings.min_seconds_per_item),
    )


# --- Computing -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CampaignAnalysis:
    """Everything stored for a campaign, computed from a :class:`LoadedCampaign` (no I/O).

    ``workers``: reliability over every loaded judgment (the worker table). ``reports``:
    :class:`DAReport` over the scored rows, keyed by ``include_unreliable``.
    ``recommendations``: one :class:`Recommendation` value per worker, aligned to
    ``workers.workers``, and ``reasons`` why rejection is recommended ("" otherwise).
    """

    config: DAConfig
    workers: WorkerReliability
    reports: dict[bool, DAReport]
    recommendations: list[str]
    n_rejected_by_worker: np.ndarray
    reasons: list[str]


def _not_working(record: WorkerQC, n_raw: int, sd: float, mean: float, config: DAConfig) -> str:
    """Why a worker is clearly not working, whatever the reliability test says; "" if not."""
    if config.min_score_sd > 0 and n_raw >= MIN_JUDGMENTS_FOR_SPREAD and sd < config.min_score_sd:
        if sd == 0:
            return f"the same score ({mean:g}) on all {n_raw} items"
        return f"scores hardly vary: sd {sd:.2f} over {n_raw} items, below {config.min_score_sd:g}"
    seconds = record.mean_seconds
    if config.min_seconds_per_item > 0 and seconds is not None:
        if seconds < config.min_seconds_per_item:
            return (
                f"too fast: {seconds:.1f} s per item on average, below the floor of "
                f"{config.min_seconds_per_item:g} s"
            )
    return ""


def recommend(records: Iterable[WorkerQC], min_pairs: int) -> list[str]:
    """The reliability test's recommendation for each worker, without the checks of effort
    (:func:`recommendations` with no score spread and no speed floor)."""
    return recommendations(records, min_pairs)[0]


def recommendations(
    records: Iterable[WorkerQC],
    min_pairs: int,
    spread: ScoreSpread | None = None,
    config: DAConfig | None = None,
) -> tuple[list[str], list[str]]:
    """The recommendation for each worker and why rejection is recommended ("" otherwise),
    one Python step per worker, not per judgment.

    With ``spread`` (aligned to the records) and ``config``: clearly not working (scores that
    hardly vary, or faster than the campaign's absolute floor): consider rejecting, whatever
    the test says. Then: reliable: approve. Too few pairs for the test: wait. Unreliable and
    fast (see ``FAST_SHARE_OF_RELIABLE_MEDIAN``): consider rejecting. Otherwise unreliable but
    not clearly random: approve (pay) and leave out of the scores, as the 2014 paper does.
    """
    records = list(records)
    reliable_seconds = [
        r.mean_seconds for r in records if r.reliable and r.mean_seconds is not None
    ]
    median = float(np.median(reliable_seconds)) if reliable_seconds else None
    threshold = FAST_SHARE_OF_RELIABLE_MEDIAN * median if median else FAST_SECONDS_FALLBACK
    out, reasons = [], []
    for i, record in enumerate(records):
        reason = ""
        if spread is not None and config is not None:
            reason = _not_working(
                record, int(spread.n[i]), float(spread.sd[i]), float(spread.mean[i]), config
            )
        if reason:
            value = Recommendation.REJECT
        elif record.reliable:
            value = Recommendation.APPROVE
        elif record.p_value is None and record.n_pairs < min_pairs:
            value = Recommendation.WAIT
        elif record.mean_seconds is not None and record.mean_seconds < threshold:
            value = Recommendation.REJECT
            p = "untested" if record.p_value is None else f"p = {record.p_value:.3f}"
            basis = (
                f"half the reliable workers' median of {median:.1f} s"
                if median
                else f"{FAST_SECONDS_FALLBACK:g} s (no reliable worker timed yet)"
            )
            reason = (
                f"unreliable ({p}) and fast: {record.mean_seconds:.1f} s per item, under {basis}"
            )
        else:
            value = Recommendation.PAY
        out.append(str(value))
        reasons.append(reason)
    return out, reasons


def analyse_loaded(
    loaded: LoadedCampaign, config: DAConfig, *, release: bool = False
) -> CampaignAnalysis:
    """Run the statistics on a loaded campaign: pure, no database.

    What needs every judgment (the worker table, recommendations, rejected counts) comes
    first; then the scored rows are taken. ``release``: the caller is done with
    ``loaded.judgments`` (it kept :meth:`LoadedCampaign.summary` for storing): every
    column is let go as the scored rows are copied (:meth:`DAJudgments.subset`), so the
    two copies are never held at once.
    """
    judgments = loaded.judgments
    # The raw scores' spread (a pass of its own over every judgment) is computed in a second
    # thread meanwhile (numpy's array loops let go of the GIL).
    spread = in_thread(score_spread, judgments)
    workers = worker_reliability(
        judgments,
        test=config.reliability_test,
        alpha=config.alpha,
        min_pairs=config.min_pairs,
        assumption_a_test=config.assumption_a_test,
    )
    n_rejected = np.bincount(
        judgments.worker_index[loaded.rejected], minlength=judgments.n_workers
    ).astype(np.int64)
    values, reasons = recommendations(workers.records(), config.min_pairs, spread.result(), config)
    lost_rows = workers_losing_rows(judgments, loaded.scored)
    scored = judgments.subset(loaded.scored, release=release)
    del judgments
    # config.include_unreliable is True for a campaign that counts every worker
    # (da_config_for): then both variants count everyone. What does not depend on
    # include_unreliable (reliability, z-scores, unfiltered agreement) is computed once.
    reports = analyse_variants(
        scored, config, reliability=scored_reliability(workers, lost_rows, scored, config)
    )
    return CampaignAnalysis(
        config=config,
        workers=workers,
        reports=reports,
        recommendations=values,
        n_rejected_by_worker=n_rejected,
        reasons=reasons,
    )


def workers_losing_rows(judgments: DAJudgments, scored: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per worker of ``judgments``: has the worker a row outside the ``scored`` rows?"""
    return (
        np.bincount(judgments.worker_index[~scored], minlength=judgments.n_workers).astype(bool)
        if not scored.all()
        else np.zeros(judgments.n_workers, dtype=bool)
    )


def scored_reliability(
    workers: WorkerReliability,
    lost_rows: NDArray[np.bool_],
    scored: DAJudgments,
    config: DAConfig,
) -> WorkerReliability:
    """Worker reliability over the scored rows from ``workers`` (over every row): a worker
    with no rejected or excluded row keeps its results, the others are tested again on their
    scored rows (``reliability_of_subset``). ``lost_rows``: :func:`workers_losing_rows`,
    aligned to ``workers.workers``."""
    at = np.searchsorted(workers.workers, scored.workers)
    return reliability_of_subset(
        workers,
        scored,
        ~lost_rows[at],
        test=config.reliability_test,
        alpha=config.alpha,
        min_pairs=config.min_pairs,
        assumption_a_test=config.assumption_a_test,
    )


def recompute_direct_assessment(campaign: Campaign) -> CampaignResult:
    """Load, compute and store one direct-assessment campaign's results. Idempotent."""
    computed_at = timezone.now()
    started = time.perf_counter()
    loaded = load_da_judgments(campaign.pk)
    summary = loaded.summary()
    # The judgments are let go while the scored ones are taken (memory: issue 16).
    analysis = analyse_loaded(loaded, da_config_for(campaign), release=True)
    del loaded
    seconds = time.perf_counter() - started
    result = store_results(campaign, summary, analysis, computed_at, compute_seconds=seconds)
    n_workers = int(analysis.workers.workers.shape[0])
    del analysis
    return_freed_memory()
    logger.info(
        "Recomputed campaign %s: %d judgments, %d workers in %.3fs",
        campaign.pk,
        summary.n_read,
        n_workers,
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
            "rank_best": report.rank_best,
            "rank_worst": report.rank_worst,
            "averaging": report.config.averaging,
            "significance_unit": report.config.significance_unit,
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
            n_segments=int(s.n_segments[i]),
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
    campaign: Campaign, loaded: LoadSummary, analysis: CampaignAnalysis
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
            recommendation_reason=analysis.reasons[i][:200],
        )
        for i, qc in enumerate(analysis.workers.records())
    ]


def store_results(
    campaign: Campaign,
    loaded: LoadedCampaign | LoadSummary,
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
    summary = loaded.summary() if isinstance(loaded, LoadedCampaign) else loaded
    for attempt in (1, 2):
        try:
            return _store(campaign, summary, analysis, computed_at, compute_seconds)
        except IntegrityError:
            if attempt == 2 or not CampaignResult.objects.filter(campaign=campaign).exists():
                raise
    raise AssertionError("unreachable")


def _store(
    campaign: Campaign,
    loaded: LoadSummary,
    analysis: CampaignAnalysis,
    computed_at: datetime,
    compute_seconds: float,
) -> CampaignResult:
    fields = {
        "computed_at": computed_at,
        "n_judgments": loaded.n_read,
        "n_scored_judgments": loaded.n_scored,
        "n_rejected_judgments": loaded.n_rejected_read,
        "n_workers": int(analysis.workers.workers.shape[0]),
        "n_unmatched_controls": loaded.n_unmatched_controls,
        "reliability_test": analysis.config.reliability_test,
        "reliability_alpha": campaign.da_settings.reliability_alpha,
        "score_averaging": campaign.da_settings.score_averaging,
        "significance_unit": campaign.da_settings.significance_unit,
        "workers_counted": campaign.da_settings.workers_counted,
        "min_score_sd": campaign.da_settings.min_score_sd,
        "min_seconds_per_item": campaign.da_settings.min_seconds_per_item,
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
        WorkerStat.objects.bulk_create(_worker_rows(campaign, loaded, analysis), batch_size=1000)
        return store_scores_and_result(campaign, analysis, result, fields)


def store_scores_and_result(
    campaign: Campaign,
    analysis: CampaignAnalysis,
    result: CampaignResult | None,
    fields: dict[str, Any],
) -> CampaignResult:
    """Inside the caller's transaction (the result row locked): replace the campaign's system
    scores with the analysis's and write ``fields`` to its result row (made if ``result`` is
    None). Shared by the full store and the incremental one (analytics.incremental.store)."""
    SystemScore.objects.filter(campaign=campaign).delete()
    SystemScore.objects.bulk_create(
        [
            row
            for include, report in analysis.reports.items()
            for row in _system_rows(campaign, report, include)
        ],
        batch_size=1000,
    )
    if result is None:
        return CampaignResult.objects.create(campaign=campaign, **fields)
    for name, value in fields.items():
        setattr(result, name, value)
    result.save()
    return result


# --- The periodic sweep --------------------------------------------------------------------


def stale_da_campaigns() -> QuerySet[Campaign]:
    """Direct-assessment campaigns whose stored results no longer match their data.

    Stale: judgments but no result; a different number of scored judgments than the result
    reflects, or one newer than it; a different number of judgments in rejected (or
    unconfirmed MTurk) assignments; a worker excluded or re-admitted since; other reliability,
    recommendation or scoring settings. One query.
    """
    # What load_da_judgments reads: a raw score or a given z (imported standardised files).
    scored = (
        Judgment.objects.filter(campaign=OuterRef("pk"))
        .filter(Q(score__isnull=False) | Q(given_z__isnull=False))
        .order_by()
    )
    per_campaign = scored.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = newest_submitted_at(scored)
    # Rejected or unconfirmed MTurk assignments, as the loader masks them (issue 11).
    n_rejected_now = held_back_count(scored)
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
                | ~Q(da_result__score_averaging=F("da_settings__score_averaging"))
                | ~Q(da_result__significance_unit=F("da_settings__significance_unit"))
                | ~Q(da_result__workers_counted=F("da_settings__workers_counted"))
                | ~Q(da_result__min_score_sd=F("da_settings__min_score_sd"))
                | ~Q(da_result__min_seconds_per_item=F("da_settings__min_seconds_per_item"))
            )
        )
        .order_by("pk")
    )
