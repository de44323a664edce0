"""Direct assessment's statistics brought up to date from the last run's: what is per worker is
recomputed for the workers whose rows changed only, agreement at most every
``ANALYTICS_AGREEMENT_SECONDS``.

Per worker (:mod:`analytics.stats.direct_assessment.worker_splice`): the worker table's
reliability and score spread (over every judgment), and, over the scored judgments, the
reliability that decides who counts and each worker's z-score basis (mean and sd). Each depends
on the worker's own rows alone, so a run recomputes them for the workers with new (or re-read)
rows and for the workers whose rows changed status (an assignment rejected, a worker excluded or
re-admitted), and takes every other worker's from the last run (:class:`LastAnalysis`). What
needs every worker at once (the recommendations' median, the z-scores of every row, the system
scores, the significance tests, rank ranges and clusters) is computed on every run over every
judgment, by the functions a full recompute runs: so every stored figure equals a full
recompute's, exactly (tests/analytics/test_incremental.py compares them through appends, late
commits, rejections, exclusions, new workers and new settings).

Inter-annotator agreement (2013 Tables 1-3: every pair of judgments of one output, with their
kappas) is the one figure no decision waits on: it is computed at most every
``ANALYTICS_AGREEMENT_SECONDS`` (with the other statistics of that run) and carried over in
between; the stored results say over which judgments it was computed
(``details["as_of"]["agreement"]``).
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
    agreement,
    worker_reliability,
)
from analytics.stats.direct_assessment.effort import ScoreSpread, score_spread
from analytics.stats.direct_assessment.report import analyse_campaign
from analytics.stats.direct_assessment.worker_splice import (
    WorkerChanges,
    reliability_spliced,
    spread_spliced,
    zscores_spliced,
)

__all__ = ["AgreementCarried", "LastAnalysis", "analyse", "carry"]

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
) -> tuple[CampaignAnalysis, LastAnalysis, bool]:
    """The analysis of ``loaded``, as ``analyse_loaded`` computes it (bar a carried-over
    agreement). Returns it, what the next run takes, and whether agreement was computed.

    ``carried``: the agreement to carry over, or None to compute it (also computed when it was
    computed with other settings). ``last``: the previous run's results, or None to compute
    every worker (also when its settings differ). ``changed_workers``: ids of the workers with
    a row read since ``last`` (new or re-read); ``unchanged_rows``: how many of the loaded rows,
    from the first, are the rows ``last`` was computed on. ``loaded.judgments`` is let go on
    the way (:meth:`DAJudgments.subset` with ``release``); the caller keeps
    ``loaded.summary()`` for storing.
    """
    if carried is not None and carried.config != config:
        carried = None
    if last is not None and last.config != config:
        last = None
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
        if moved.any():
            changed_workers = np.union1d(changed_workers, judgments.worker[:kept][moved])
    n_rejected = np.bincount(
        judgments.worker_index[loaded.rejected], minlength=judgments.n_workers
    ).astype(np.int64)
    values, reasons = recommendations(workers.records(), config.min_pairs, spread, config)
    lost_rows = workers_losing_rows(judgments, scored_rows)
    scored = judgments.subset(scored_rows, release=True)
    del judgments
    agreements = carried.agreements if carried is not None else None
    if last is None:
        first = analyse_campaign(
            scored,
            config,
            reliability=scored_reliability(workers, lost_rows, scored, config),
            agreements=None if agreements is None else agreements[False],
        )
    else:
        changes = WorkerChanges.of(scored, last.scored_workers, changed_workers)
        reliability = reliability_spliced(last.report.reliability, changes, **settings)
        z = zscores_spliced(last.zscores, changes)
        del changes
        # analyse_campaign takes reliability and z-scores from a report over these judgments
        # (``reuse``); its other figures are computed here.
        computed = replace(last.report, config=config, reliability=reliability, zscores=z)
        first = analyse_campaign(
            scored,
            config,
            reuse=computed,
            agreements=(
                _agreements(scored, z, config, reliability.reliable)
                if agreements is None
                else agreements[False]
            ),
        )
    reports = {
        False: first,
        True: analyse_campaign(
            scored,
            replace(config, include_unreliable=True),
            reuse=first,
            agreements=None if agreements is None else agreements[True],
        ),
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
        config=config, workers=workers, spread=spread, report=first, scored=scored_rows
    )
    return analysis, kept_for_next, agreements is None


def _agreements(
    judgments: DAJudgments, z: ZScores, config: DAConfig, reliable: NDArray[np.bool_]
) -> tuple[Agreement, Agreement]:
    """(all, included) agreement of the first variant, as ``analyse_campaign`` computes them
    when it computes the z-scores itself."""

    def agree(mask: NDArray[np.bool_] | None) -> Agreement:
        return agreement(
            judgments,
            z,
            include_workers=mask,
            categories=config.kappa_categories,
            z_categories=config.kappa_z_categories,
            chance=config.kappa_chance,
        )

    everyone = agree(None)
    if config.include_unreliable or reliable.all():
        return everyone, everyone
    return everyone, agree(reliable)
