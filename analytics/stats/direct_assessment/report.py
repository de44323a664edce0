"""One call for a whole campaign: reliability, z-scores, system scores, significance, agreement.

This is what a Celery task calls after loading a campaign's :class:`DAJudgments`; every step
is also available on its own (see the package docstring).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from analytics.stats.direct_assessment._heap import share_one_heap
from analytics.stats.direct_assessment.agreement import (
    Agreement,
    ChanceModel,
    agreement,
    prepare_agreement,
    z_percentile_edges,
)
from analytics.stats.direct_assessment.judgments import DAJudgments
from analytics.stats.direct_assessment.reliability import (
    DEFAULT_MIN_PAIRS,
    AssumptionATest,
    ReliabilityTest,
    WorkerReliability,
    worker_reliability,
)
from analytics.stats.direct_assessment.scores import (
    Averaging,
    Segments,
    SystemScores,
    ZScores,
    standardize,
    system_scores_and_samples,
)
from analytics.stats.significance import (
    ClusterMethod,
    pairwise_rank_sum,
    significance_marks,
    system_rank_ranges,
    wmt_clusters,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["DAConfig", "DAReport", "analyse_campaign", "configured_agreement"]

_T = TypeVar("_T")

# The (system, segment) numbering of a report's judgments (scores.Segments), from its
# analysis to the other variant's (``reuse``), which takes it (and so lets it go).
_SEGMENTS: weakref.WeakKeyDictionary[DAJudgments, Segments] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class DAConfig:
    """Every knob of the analysis, with the papers' / WMT's defaults."""

    alpha: float = 0.05  # worker reliability threshold (2013, 2014: p < 0.05)
    reliability_test: ReliabilityTest = "wilcoxon"
    min_pairs: int = DEFAULT_MIN_PAIRS
    assumption_a_test: AssumptionATest = "paired_t"
    include_unreliable: bool = False  # system scores over every worker, not only reliable ones
    exclude_references_from_z: bool = False  # 2014 footnote 4
    ddof: int = 1
    # WMT's official system score (WMT16 on): average each (system, segment), then the
    # segment means ("Ave z", "Ave raw"); "judgments" is the flat mean of the 2014 paper.
    averaging: Averaging = "segments"
    # WMT's official significance test: the one-sided rank-sum test on the systems'
    # segment-mean z-scores; "judgments" tests the per-judgment z-scores.
    significance_unit: Averaging = "segments"
    significance_alpha: float = 0.05  # pairwise system tests, rank ranges and clusters
    # Recommendations (analytics.kinds.direct_assessment.actions.recommend): clearly not
    # working when the raw scores' sd is below min_score_sd or the mean seconds per item
    # below min_seconds_per_item (0 turns a check off). Why these defaults: the settings model.
    min_score_sd: float = 1.0
    min_seconds_per_item: float = 2.0
    cluster_method: ClusterMethod = "wmt"  # WMT's official rank ranges and clusters
    kappa_chance: ChanceModel = "uniform"
    kappa_categories: tuple[int, ...] = field(default=(5, 4, 2))
    kappa_z_categories: tuple[int, ...] = field(default=(5,))


@dataclass(frozen=True, eq=False)
class DAReport:
    """Everything the dashboards show for one campaign.

    ``systems`` is sorted best first; ``p_greater``, ``marks``, ``clusters``, ``rank_best`` and
    ``rank_worst`` are aligned to it (``p_greater[i, j]``: system i better than system j).
    ``included_workers`` is the worker mask the system scores used (aligned to
    ``reliability.workers``).  ``agreement_all`` is unfiltered, ``agreement_included`` over the
    included workers (2013 Tables 1-3, "unfiltered" vs "filtered" columns).
    """

    config: DAConfig
    reliability: WorkerReliability
    zscores: ZScores
    included_workers: NDArray[np.bool_]
    systems: SystemScores
    p_greater: NDArray[np.float64]
    marks: NDArray[np.object_]
    clusters: NDArray[np.int64]
    rank_best: NDArray[np.int64]
    rank_worst: NDArray[np.int64]
    agreement_all: Agreement
    agreement_included: Agreement
    n_unmatched_controls: int


def analyse_campaign(
    judgments: DAJudgments,
    config: DAConfig | None = None,
    *,
    reuse: DAReport | None = None,
    agreements: tuple[Agreement, Agreement] | None = None,
    reliability: WorkerReliability | None = None,
) -> DAReport:
    """Run the full direct-assessment analysis of one campaign (pure; no I/O).

    ``reuse``: a report on the same ``judgments`` whose configuration differs at most in
    ``include_unreliable`` (the other variant of the stored results). Worker reliability, the
    z-scores and the unfiltered agreement do not depend on that setting: they are taken from
    it instead of being computed again. Agreement over included workers is the unfiltered one
    when every worker is included (a mask of all workers selects every row, as None does).
    ``agreements``: (all, included) agreements computed earlier and carried over instead of
    being computed (the incremental recompute's slower agreement cadence, analytics.incremental).
    ``reliability``: worker reliability of these ``judgments`` with ``config``'s settings,
    computed earlier (e.g. by ``reliability_of_subset`` from that of every judgment), instead
    of being computed here.
    """
    cfg = config or DAConfig()
    if (
        reuse is not None
        and replace(reuse.config, include_unreliable=cfg.include_unreliable) != cfg
    ):
        raise ValueError("reuse must be a report with the same settings but include_unreliable")
    if reuse is not None:
        reliability, z = reuse.reliability, reuse.zscores
    else:
        if reliability is None:
            reliability = worker_reliability(
                judgments,
                test=cfg.reliability_test,
                alpha=cfg.alpha,
                min_pairs=cfg.min_pairs,
                assumption_a_test=cfg.assumption_a_test,
            )
        z = standardize(judgments, exclude_references=cfg.exclude_references_from_z, ddof=cfg.ddof)
    included = (
        np.ones(judgments.n_workers, dtype=bool)
        if cfg.include_unreliable
        else reliability.reliable.copy()
    )
    # What the agreements need besides the included workers and the z-scores (the
    # distinct-judge pairs sorted by score, the z-scores' percentile edges: sorts and
    # partitions of every judgment) is made in a second thread while this one computes the
    # system scores and their significance (numpy's sorts and array loops let go of the GIL).
    # Not beside the z-scores: both at once held 20 MB more at a million judgments than
    # either (the recompute's peak).
    prepared = (
        _in_thread(_prepare_agreements, judgments, z, cfg, included)
        if agreements is None and reuse is None
        else None
    )
    # The segment means are computed once for the scores and the significance samples; the
    # (system, segment) pairs are numbered once for both variants of the stored results (the
    # same results: scores.Segments), by the first, taken by the second (``reuse``).
    if reuse is None:
        segments = _SEGMENTS[judgments] = Segments.of(judgments)
    else:
        segments = _SEGMENTS.pop(judgments, None) or Segments.of(judgments)
    systems, samples = system_scores_and_samples(
        judgments,
        z,
        include_workers=included,
        averaging=cfg.averaging,
        unit=cfg.significance_unit,
        segments=segments,
    )
    del segments
    p = pairwise_rank_sum(samples)
    clusters = wmt_clusters(
        systems.mean_z, p, alpha=cfg.significance_alpha, method=cfg.cluster_method
    )
    best, worst = system_rank_ranges(
        systems.mean_z, p, clusters, alpha=cfg.significance_alpha, method=cfg.cluster_method
    )

    edges_all, edges_included = prepared.result() if prepared is not None else (None, None)
    if agreements is not None:
        agreement_all, agreement_included = agreements
    else:
        # One after the other, not in two threads: both at once held 20 MB more at a million
        # judgments (their peaks meet), past the recompute's memory budget (issue 16).
        agreement_all = (
            reuse.agreement_all
            if reuse is not None
            else configured_agreement(judgments, z, cfg, None, z_edges=edges_all)
        )
        agreement_included = (
            agreement_all
            if included.all()
            else configured_agreement(judgments, z, cfg, included, z_edges=edges_included)
        )
    return DAReport(
        config=cfg,
        reliability=reliability,
        zscores=z,
        included_workers=included,
        systems=systems,
        p_greater=p,
        marks=significance_marks(p),
        clusters=clusters,
        rank_best=best,
        rank_worst=worst,
        agreement_all=agreement_all,
        agreement_included=agreement_included,
        n_unmatched_controls=judgments.n_unmatched_controls,
    )


def _in_thread(function: Callable[..., _T], *args: object) -> Future[_T]:
    """``function(*args)`` started at once in a thread of its own (sharing the main heap:
    :mod:`._heap`); the future gives what it returned, or raises what it raised."""
    share_one_heap()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"da-{function.__name__}")
    try:
        return pool.submit(function, *args)
    finally:
        pool.shutdown(wait=False)  # the submitted call still runs; the thread then ends


def configured_agreement(
    judgments: DAJudgments,
    z: ZScores,
    cfg: DAConfig,
    mask: NDArray[np.bool_] | None,
    *,
    z_edges: dict[int, NDArray[np.float64] | None] | None = None,
) -> Agreement:
    """Inter-annotator agreement with the config's kappa categories, over the workers of
    ``mask`` (None: everyone): what a report stores as agreement_all / agreement_included.
    ``z_edges``: the z-scores' percentile edges for these workers, computed earlier
    (:func:`_prepare_agreements`)."""
    return agreement(
        judgments,
        z,
        include_workers=mask,
        categories=cfg.kappa_categories,
        z_categories=cfg.kappa_z_categories,
        chance=cfg.kappa_chance,
        z_edges=z_edges,
    )


def _prepare_agreements(
    judgments: DAJudgments, z: ZScores, cfg: DAConfig, included: NDArray[np.bool_]
) -> tuple[dict, dict | None]:
    """The distinct-judge pairs (:func:`prepare_agreement`) and the z-scores' percentile
    edges of the agreement over every worker and, unless that is everyone, over the
    ``included`` ones."""
    prepare_agreement(judgments)
    everyone = z_percentile_edges(judgments, z, None, cfg.kappa_z_categories)
    if included.all():
        return everyone, None
    return everyone, z_percentile_edges(judgments, z, included, cfg.kappa_z_categories)
