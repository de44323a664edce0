"""Direct assessment's statistics brought up to date from the last run's: what is per worker is
recomputed for the workers whose rows changed only, agreement and significance at most every
``ANALYTICS_AGREEMENT_SECONDS`` and ``ANALYTICS_SIGNIFICANCE_SECONDS``.

Per worker (:mod:`analytics.stats.direct_assessment.worker_splice`): the worker table's
reliability and score spread (over every judgment), and, over the scored judgments, the
reliability that decides who counts and each worker's z-score basis (mean and sd). Each depends
on the worker's own rows alone, so a run recomputes them for the workers with new (or re-read)
rows and for the workers whose rows changed status (an assignment rejected, a worker excluded or
re-admitted), and takes every other worker's from the last run (:class:`LastAnalysis`). What
needs every worker at once (the recommendations' median, the z-scores of every row, the system
scores) is computed on every run over every judgment, by the functions a full recompute runs:
so every stored figure equals a full recompute's, exactly (tests/analytics/
test_incremental.py compares them through appends, late commits, rejections, exclusions, new
workers and new settings), but the two carried over below.

Inter-annotator agreement (2013 Tables 1-3: every pair of judgments of one output, with their
kappas) is the one figure no decision waits on: it is computed at most every
``ANALYTICS_AGREEMENT_SECONDS`` (with the other statistics of that run) and carried over in
between. Significance (pairwise rank-sum tests on every pair of systems, their marks, the
clusters and rank ranges) is computed at most every ``ANALYTICS_SIGNIFICANCE_SECONDS`` and
whenever a variant's systems change order (so clusters and rank ranges always follow the
order shown). The stored results say over which judgments each was computed
(``details["as_of"]["agreement"]`` and ``["significance"]``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from analytics.kinds.direct_assessment.actions import (
    CampaignAnalysis,
    recommendations,
    scored_reliability,
    workers_losing_rows,
)
from analytics.kinds.direct_assessment.loading import LoadedCampaign
from analytics.stats.direct_assessment import (
    Agreement,
    DAConfig,
    DAJudgments,
    DAReport,
    WorkerReliability,
    ZScores,
    standardize,
    worker_reliability,
)
from analytics.stats.direct_assessment.effort import ScoreSpread, score_spread
from analytics.stats.direct_assessment.report import (
    configured_agreement,
    configured_system_scores,
    included_workers,
)
from analytics.stats.direct_assessment.scores import (
    Segments,
    SystemScores,
)
from analytics.stats.direct_assessment.worker_splice import (
    WorkerChanges,
    reliability_spliced,
    spread_spliced,
    zscores_spliced,
)
from analytics.stats.significance import (
    pairwise_rank_sum,
    significance_marks,
    system_rank_ranges,
    wmt_clusters,
)

__all__ = [
    "AgreementCarried",
    "DeferredAgreement",
    "LastAnalysis",
    "SignificanceCarried",
    "analyse",
    "carry",
]

if TYPE_CHECKING:
    from numpy.typing import NDArray


@dataclass(frozen=True)
class AgreementCarried:
    """The agreement of a run that computed it, per variant (``include_unreliable``), and over
    which judgments it was computed (``as_of``: the stamp of that run)."""

    config: DAConfig
    agreements: dict[bool, tuple[Agreement, Agreement]]  # (all, included) per variant
    as_of: dict


@dataclass(frozen=True, eq=False)
class Significance:
    """One variant's significance: for ``systems`` (best first), the pairwise p-values, their
    marks, the clusters and rank ranges (aligned to ``systems``)."""

    systems: NDArray[np.int64]
    p_greater: NDArray[np.float64]
    marks: NDArray[np.object_]
    clusters: NDArray[np.int64]
    rank_best: NDArray[np.int64]
    rank_worst: NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class SignificanceCarried:
    """The significance of a run that computed it, per variant (``include_unreliable``), and
    over which judgments (``as_of``: the stamp of that run)."""

    config: DAConfig
    variants: dict[bool, Significance]
    as_of: dict


@dataclass(frozen=True, eq=False)
class LastAnalysis:
    """What a run leaves for the next: its per-worker results and which rows were scored.

    ``workers`` and ``spread``: over every judgment (aligned to ``workers.workers``);
    ``report``: the first variant's report over the scored judgments (its ``reliability`` and
    ``zscores`` are aligned to its workers); ``scored``: per loaded row, was it scored."""

    config: DAConfig
    workers: WorkerReliability
    spread: ScoreSpread
    report: DAReport
    scored: NDArray[np.bool_]

    @property
    def scored_workers(self) -> NDArray[np.integer]:
        return self.report.reliability.workers

    @property
    def zscores(self) -> ZScores:
        return self.report.zscores


def carry(analysis: CampaignAnalysis, as_of: dict) -> AgreementCarried:
    """The agreement a run computed, for the runs after it."""
    return AgreementCarried(
        config=analysis.config,
        agreements={
            include: (report.agreement_all, report.agreement_included)
            for include, report in analysis.reports.items()
        },
        as_of=as_of,
    )


def analyse(
    loaded: LoadedCampaign,
    config: DAConfig,
    carried: AgreementCarried | None,
    last: LastAnalysis | None,
    changed_workers: NDArray[np.integer],
    unchanged_rows: int,
    significance: SignificanceCarried | None = None,
    defer_agreement: bool = False,
    segment_items: tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int64]] | None = None,
) -> tuple[CampaignAnalysis, LastAnalysis, bool, bool, DeferredAgreement | None]:
    """The analysis of ``loaded``, as ``analyse_loaded`` computes it (bar a carried-over
    agreement or significance). Returns it, what the next run takes, whether agreement was
    computed and whether significance was computed (for both variants).

    ``carried``: the agreement to carry over, or None to compute it (also computed when it was
    computed with other settings). ``last``: the previous run's results, or None to compute
    every worker (also when its settings differ). ``changed_workers``: ids of the workers with
    a row read since ``last`` (new or re-read); ``unchanged_rows``: how many of the loaded rows,
    from the first, are the rows ``last`` was computed on. ``significance``: the significance
    to carry over, or None to compute it; a variant whose systems' order changed since (or
    with other settings) computes it anyway. ``defer_agreement`` (with ``carried`` given):
    the analysis shows ``carried`` and the agreement of these judgments is returned to be
    computed after the results are stored (:class:`DeferredAgreement`), else None.
    ``segment_items``: the cache's item numbering (``CachedDACampaign.segment_items``, per
    loaded row), for the system scores' segments (``Segments.of_items``).
    ``loaded.judgments`` is let go on the way
    (:meth:`DAJudgments.subset` with ``release``); the caller keeps ``loaded.summary()`` for
    storing.
    """
    if carried is not None and carried.config != config:
        carried = None
    if last is not None and last.config != config:
        last = None
    if significance is not None and significance.config != config:
        significance = None
    judgments = loaded.judgments
    settings = {
        "test": config.reliability_test,
        "alpha": config.alpha,
        "min_pairs": config.min_pairs,
        "assumption_a_test": config.assumption_a_test,
    }
    scored_rows = loaded.scored
    if last is None:
        workers = worker_reliability(judgments, **settings)
        spread = score_spread(judgments)
    else:
        changes = WorkerChanges.of(judgments, last.workers.workers, changed_workers)
        workers = reliability_spliced(last.workers, changes, **settings)
        spread = spread_spliced(last.spread, changes)
        del changes
        # Workers whose rows changed status (rejected, excluded, re-admitted) since last.
        kept = min(unchanged_rows, last.scored.shape[0])
        moved = scored_rows[:kept] != last.scored[:kept]
        # The scored rows before the first that changed status are the last run's first
        # scored rows, in the same order (their z-scores are taken over where unchanged).
        first_moved = int(np.argmax(moved)) if moved.any() else kept
        same_scored_rows = int(np.count_nonzero(scored_rows[:first_moved]))
        if moved.any():
            changed_workers = np.union1d(changed_workers, judgments.worker[:kept][moved])
    n_rejected = np.bincount(
        judgments.worker_index[loaded.rejected], minlength=judgments.n_workers
    ).astype(np.int64)
    values, reasons = recommendations(workers.records(), config.min_pairs, spread, config)
    lost_rows = workers_losing_rows(judgments, scored_rows)
    scored = judgments.subset(scored_rows, release=True)
    del judgments
    if last is None:
        reliability = scored_reliability(workers, lost_rows, scored, config)
        z = standardize(
            scored, exclude_references=config.exclude_references_from_z, ddof=config.ddof
        )
    else:
        changes = WorkerChanges.of(scored, last.scored_workers, changed_workers)
        reliability = reliability_spliced(last.report.reliability, changes, **settings)
        z = zscores_spliced(last.zscores, changes, same_scored_rows)
        del changes
    deferred = None
    if carried is None:
        agreements = _agreements(scored, z, config, reliability.reliable)
    else:
        agreements = carried.agreements
        if defer_agreement:
            deferred = DeferredAgreement(scored_rows, z, config, reliability.reliable)
    configs = {
        include: replace(config, include_unreliable=config.include_unreliable or include)
        for include in (False, True)
    }
    # The (system, segment) pairs are numbered once for both variants (the same results).
    segments = None
    if segment_items is not None and segment_items[0].shape == scored_rows.shape:
        item_code, pair_of_item, pair_system = segment_items
        segments = Segments.of_items(scored, item_code[scored_rows], pair_of_item, pair_system)
        del item_code, pair_of_item, pair_system
    if segments is None:
        segments = Segments.of(scored)
    scores = {
        include: _scores(scored, configs[include], reliability, z, segments) for include in configs
    }
    del segments
    # Carried over only while every variant's systems are in the same order (one stamp).
    if significance is not None and not all(
        np.array_equal(significance.variants[include].systems, scores[include][1].system)
        for include in configs
    ):
        significance = None
    reports = {
        include: _report(
            scored,
            configs[include],
            reliability,
            z,
            *scores[include],
            agreements[include],
            None if significance is None else significance.variants[include],
        )
        for include in configs
    }
    analysis = CampaignAnalysis(
        config=config,
        workers=workers,
        reports=reports,
        recommendations=values,
        n_rejected_by_worker=n_rejected,
        reasons=reasons,
    )
    kept_for_next = LastAnalysis(
        config=config, workers=workers, spread=spread, report=reports[False], scored=scored_rows
    )
    return analysis, kept_for_next, carried is None, significance is None, deferred


@dataclass(frozen=True, eq=False)
class DeferredAgreement:
    """What a run needs to compute its agreement after storing its results: which of its
    loaded rows were scored, its z-scores, settings and reliable workers (held until
    :meth:`compute`; not the scored judgments themselves, 45 MB at a million judgments that
    would stay through the store: they are taken again from the same rows)."""

    scored_rows: NDArray[np.bool_]
    z: ZScores
    config: DAConfig
    reliable: NDArray[np.bool_]

    def compute(self, loaded: DAJudgments, as_of: dict) -> AgreementCarried:
        """The agreement ``analyse`` would have computed in that run, for the runs after it;
        ``loaded``: the judgments that run loaded (the same rows, let go on the way)."""
        if len(loaded) != self.scored_rows.shape[0]:
            raise ValueError("the judgments are not those the run loaded")
        scored = loaded.subset(self.scored_rows, release=True)
        return AgreementCarried(
            config=self.config,
            agreements=_agreements(scored, self.z, self.config, self.reliable),
            as_of=as_of,
        )


def carry_significance(analysis: CampaignAnalysis, as_of: dict) -> SignificanceCarried:
    """The significance a run computed, for the runs after it."""
    return SignificanceCarried(
        config=analysis.config,
        variants={
            include: Significance(
                systems=report.systems.system,
                p_greater=report.p_greater,
                marks=report.marks,
                clusters=report.clusters,
                rank_best=report.rank_best,
                rank_worst=report.rank_worst,
            )
            for include, report in analysis.reports.items()
        },
        as_of=as_of,
    )


def _scores(
    judgments: DAJudgments,
    cfg: DAConfig,
    reliability: WorkerReliability,
    z: ZScores,
    segments: Segments,
) -> tuple[NDArray[np.bool_], SystemScores, list[NDArray[np.float64]] | None]:
    """The included workers, system scores and significance samples, as ``analyse_campaign``
    computes them."""
    included = included_workers(judgments, reliability, cfg)
    systems, samples = configured_system_scores(judgments, z, cfg, included, segments)
    return included, systems, samples


def _report(
    judgments: DAJudgments,
    cfg: DAConfig,
    reliability: WorkerReliability,
    z: ZScores,
    included: NDArray[np.bool_],
    systems: SystemScores,
    samples: list[NDArray[np.float64]] | None,
    agreements: tuple[Agreement, Agreement],
    carried: Significance | None,
) -> DAReport:
    """``analyse_campaign``'s report from the given reliability, z-scores, system scores and
    agreements, its significance ``carried`` over (aligned to the same systems) or computed.
    The steps and their arguments are ``analyse_campaign``'s (tests/analytics/
    test_incremental.py compares the stored results with a full recompute's)."""
    if carried is not None:
        p, marks = carried.p_greater, carried.marks
        clusters, best, worst = carried.clusters, carried.rank_best, carried.rank_worst
    else:
        p = pairwise_rank_sum(samples)
        clusters = wmt_clusters(
            systems.mean_z, p, alpha=cfg.significance_alpha, method=cfg.cluster_method
        )
        best, worst = system_rank_ranges(
            systems.mean_z, p, clusters, alpha=cfg.significance_alpha, method=cfg.cluster_method
        )
        marks = significance_marks(p)
    return DAReport(
        config=cfg,
        reliability=reliability,
        zscores=z,
        included_workers=included,
        systems=systems,
        p_greater=p,
        marks=marks,
        clusters=clusters,
        rank_best=best,
        rank_worst=worst,
        agreement_all=agreements[0],
        agreement_included=agreements[1],
        n_unmatched_controls=judgments.n_unmatched_controls,
    )


def _agreements(
    judgments: DAJudgments, z: ZScores, config: DAConfig, reliable: NDArray[np.bool_]
) -> dict[bool, tuple[Agreement, Agreement]]:
    """Per variant (``include_unreliable``), the (all, included) agreement, as
    ``analyse_campaign`` computes them when it computes the z-scores itself (the second
    variant includes everyone)."""

    everyone = configured_agreement(judgments, z, config, None)
    if config.include_unreliable or reliable.all():
        included = everyone
    else:
        included = configured_agreement(judgments, z, config, reliable)
    return {False: (everyone, included), True: (everyone, everyone)}
