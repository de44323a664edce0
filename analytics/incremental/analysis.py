"""Direct assessment's statistics in two cadences: everything but agreement on every run,
agreement at most every ``ANALYTICS_AGREEMENT_SECONDS``.

Inter-annotator agreement (2013 Tables 1-3: every pair of judgments of one output, with their
kappas) is about half of a recompute's statistics at a million judgments, and it is the one
figure no decision waits on: the worker table, the recommendations, the system scores, their
significance, rank ranges and clusters decide pay and rankings, and they are computed on every
run, by the same functions ``analyse_loaded`` runs, over every judgment read (so they equal a
full recompute's, exactly). A run between two agreement runs carries the last agreement over;
the stored results say over which judgments it was computed
(``details["as_of"]["agreement"]``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from analytics.kinds.direct_assessment.actions import (
    CampaignAnalysis,
    analyse_loaded,
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
    worker_reliability,
)
from analytics.stats.direct_assessment.effort import score_spread
from analytics.stats.direct_assessment.report import analyse_campaign

__all__ = ["AgreementCarried", "analyse", "analyse_carrying_agreement"]


@dataclass(frozen=True)
class AgreementCarried:
    """The agreement of a full analysis, per variant (``include_unreliable``), and over which
    judgments it was computed (``as_of``: the stamp of that run)."""

    config: DAConfig
    agreements: dict[bool, tuple[Agreement, Agreement]]  # (all, included) per variant
    as_of: dict


def analyse(
    loaded: LoadedCampaign, config: DAConfig, carried: AgreementCarried | None
) -> tuple[CampaignAnalysis, bool]:
    """The analysis of ``loaded``: in full when nothing can be carried over (``carried`` is
    None or was computed with other settings), else carrying its agreement over. Returns the
    analysis and whether it was full. ``loaded.judgments`` is released on the way (its columns
    let go as the scored rows are copied: ``DAJudgments.subset``); the caller keeps
    ``loaded.summary()`` for storing."""
    if carried is None or carried.config != config:
        return analyse_loaded(loaded, config, release=True), True
    return analyse_carrying_agreement(loaded, config, carried, release=True), False


def carry(analysis: CampaignAnalysis, as_of: dict) -> AgreementCarried:
    """What a full analysis leaves for the runs after it."""
    return AgreementCarried(
        config=analysis.config,
        agreements={
            include: (report.agreement_all, report.agreement_included)
            for include, report in analysis.reports.items()
        },
        as_of=as_of,
    )


def analyse_carrying_agreement(
    loaded: LoadedCampaign, config: DAConfig, carried: AgreementCarried, *, release: bool = False
) -> CampaignAnalysis:
    """``analyse_loaded`` without computing agreement: the reports take ``carried``'s. Every
    other figure is computed by the same functions in the same order, so it equals the full
    analysis's exactly (tests/analytics/test_incremental.py). ``release``: as in
    ``analyse_loaded``."""
    judgments = loaded.judgments
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
    values, reasons = recommendations(
        workers.records(), config.min_pairs, score_spread(judgments), config
    )
    lost_rows = workers_losing_rows(judgments, loaded.scored)
    scored = judgments.subset(loaded.scored, release=release)
    del judgments
    first = _report(
        scored,
        config,
        None,
        carried.agreements[False],
        scored_reliability(workers, lost_rows, scored, config),
    )
    reports = {
        False: first,
        True: _report(
            scored, replace(config, include_unreliable=True), first, carried.agreements[True]
        ),
    }
    return CampaignAnalysis(
        config=config,
        workers=workers,
        reports=reports,
        recommendations=values,
        n_rejected_by_worker=n_rejected,
        reasons=reasons,
    )


def _report(
    judgments: DAJudgments,
    cfg: DAConfig,
    reuse: DAReport | None,
    agreements: tuple[Agreement, Agreement],
    reliability: WorkerReliability | None = None,
) -> DAReport:
    """``analyse_campaign``'s report with the given agreements instead of computed ones."""
    return analyse_campaign(
        judgments, cfg, reuse=reuse, agreements=agreements, reliability=reliability
    )
