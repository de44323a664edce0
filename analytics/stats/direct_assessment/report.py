"""One call for a whole campaign: reliability, z-scores, system scores, significance, agreement.

This is what a Celery task calls after loading a campaign's :class:`DAJudgments`; every step
is also available on its own (see the package docstring).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.direct_assessment._heap import in_thread
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

__all__ = [
    "DAConfig",
    "DAReport",
    "analyse_campaign",
    "analyse_variants",
    "configured_agreement",
    "configured_system_scores",
    "included_workers",
]

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
            reliability = _reliability(judgments, cfg)
        z = standardize(judgments, exclude_references=cfg.exclude_references_from_z, ddof=cfg.ddof)
    included = included_workers(judgments, reliability, cfg)
    # What the agreements need besides the included workers and the z-scores (the
    # distinct-judge pairs sorted by score, the z-scores' percentile edges: sorts and
    # partitions of every judgment) is made in a second thread while this one computes the
    # system scores and their significance (numpy's sorts and array loops let go of the GIL).
    # Not beside the z-scores: both at once held 20 MB more at a million judgments than
    # either (the recompute's peak).
    prepared = (
        in_thread(_prepare_agreements, judgments, z, cfg, included)
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
    scores = _SystemPart.of(judgments, z, cfg, included, segments)
    del segments

    edges_all, edges_included = prepared.result() if prepared is not None else (None, None)
    if agreements is not None:
        agreement_all, agreement_included = agreements
    elif reuse is not None:
        agreement_all = reuse.agreement_all
        agreement_included = (
            agreement_all if included.all() else configured_agreement(judgments, z, cfg, included)
        )
    else:
        agreement_all, agreement_included = _agreements(
            judgments, z, cfg, included, edges_all, edges_included
        )
    return scores.report(
        cfg, reliability, z, included, judgments, agreement_all, agreement_included
    )


def analyse_variants(
    judgments: DAJudgments, config: DAConfig, *, reliability: WorkerReliability | None = None
) -> dict[bool, DAReport]:
    """Both variants of a campaign's stored results: ``False``, with ``config`` as it is;
    ``True``, with ``include_unreliable`` (every worker counted). The same reports as
    :func:`analyse_campaign` of each (the second ``reuse``-ing the first), computed faster:
    what does not depend on ``include_unreliable`` (reliability, z-scores, the segments'
    numbering, the unfiltered agreement) once, and the agreements, with what they need, in a
    second thread while this one computes both variants' system scores and significance
    (numpy's sorts and array loops let go of the GIL). Each agreement is computed after the
    other, as in :func:`analyse_campaign` (both at once held 20 MB more at a million
    judgments). ``reliability``: as for :func:`analyse_campaign`."""
    everyone_cfg = replace(config, include_unreliable=True)
    if reliability is None:
        reliability = _reliability(judgments, config)
    z = standardize(
        judgments, exclude_references=config.exclude_references_from_z, ddof=config.ddof
    )
    included = included_workers(judgments, reliability, config)
    agreements = in_thread(_prepared_agreements, judgments, z, config, included)
    try:
        segments = Segments.of(judgments)
        first = _SystemPart.of(judgments, z, config, included, segments)
        everyone = included_workers(judgments, reliability, everyone_cfg)
        second = (
            first
            if config.include_unreliable
            else _SystemPart.of(judgments, z, everyone_cfg, everyone, segments)
        )
        del segments
    finally:
        agreement_all, agreement_included = agreements.result()
    return {
        False: first.report(
            config, reliability, z, included, judgments, agreement_all, agreement_included
        ),
        # Every worker counted: the agreement over the included workers is the unfiltered one.
        True: second.report(
            everyone_cfg, reliability, z, everyone, judgments, agreement_all, agreement_all
        ),
    }


def _reliability(judgments: DAJudgments, cfg: DAConfig) -> WorkerReliability:
    return worker_reliability(
        judgments,
        test=cfg.reliability_test,
        alpha=cfg.alpha,
        min_pairs=cfg.min_pairs,
        assumption_a_test=cfg.assumption_a_test,
    )


def configured_system_scores(
    judgments: DAJudgments,
    z: ZScores,
    cfg: DAConfig,
    included: NDArray[np.bool_],
    segments: Segments | None = None,
) -> tuple[SystemScores, list[NDArray[np.float64]] | None]:
    """The system scores over the ``included`` workers and their significance samples, with
    the config's averaging and significance unit (``system_scores_and_samples``)."""
    return system_scores_and_samples(
        judgments,
        z,
        include_workers=included,
        averaging=cfg.averaging,
        unit=cfg.significance_unit,
        segments=segments,
    )


def included_workers(
    judgments: DAJudgments, reliability: WorkerReliability, cfg: DAConfig
) -> NDArray[np.bool_]:
    """The workers whose judgments the system scores count (aligned to the judgments')."""
    if cfg.include_unreliable:
        return np.ones(judgments.n_workers, dtype=bool)
    return reliability.reliable.copy()


@dataclass(frozen=True, eq=False)
class _SystemPart:
    """A report's system scores, their significance, clusters and rank ranges."""

    systems: SystemScores
    p_greater: NDArray[np.float64]
    clusters: NDArray[np.int64]
    rank_best: NDArray[np.int64]
    rank_worst: NDArray[np.int64]

    @classmethod
    def of(
        cls,
        judgments: DAJudgments,
        z: ZScores,
        cfg: DAConfig,
        included: NDArray[np.bool_],
        segments: Segments,
    ) -> _SystemPart:
        systems, samples = configured_system_scores(judgments, z, cfg, included, segments)
        p = pairwise_rank_sum(samples)
        clusters = wmt_clusters(
            systems.mean_z, p, alpha=cfg.significance_alpha, method=cfg.cluster_method
        )
        best, worst = system_rank_ranges(
            systems.mean_z, p, clusters, alpha=cfg.significance_alpha, method=cfg.cluster_method
        )
        return cls(systems, p, clusters, best, worst)

    def report(
        self,
        cfg: DAConfig,
        reliability: WorkerReliability,
        z: ZScores,
        included: NDArray[np.bool_],
        judgments: DAJudgments,
        agreement_all: Agreement,
        agreement_included: Agreement,
    ) -> DAReport:
        return DAReport(
            config=cfg,
            reliability=reliability,
            zscores=z,
            included_workers=included,
            systems=self.systems,
            p_greater=self.p_greater,
            marks=significance_marks(self.p_greater),
            clusters=self.clusters,
            rank_best=self.rank_best,
            rank_worst=self.rank_worst,
            agreement_all=agreement_all,
            agreement_included=agreement_included,
            n_unmatched_controls=judgments.n_unmatched_controls,
        )


def _agreements(
    judgments: DAJudgments,
    z: ZScores,
    cfg: DAConfig,
    included: NDArray[np.bool_],
    edges_all: dict | None,
    edges_included: dict | None,
) -> tuple[Agreement, Agreement]:
    """The unfiltered agreement and that over the ``included`` workers (the same when that
    is everyone), one after the other, not in two threads: both at once held 20 MB more at a
    million judgments (their peaks meet), past the recompute's memory budget (issue 16)."""
    agreement_all = configured_agreement(judgments, z, cfg, None, z_edges=edges_all)
    agreement_included = (
        agreement_all
        if included.all()
        else configured_agreement(judgments, z, cfg, included, z_edges=edges_included)
    )
    return agreement_all, agreement_included


def _prepared_agreements(
    judgments: DAJudgments, z: ZScores, cfg: DAConfig, included: NDArray[np.bool_]
) -> tuple[Agreement, Agreement]:
    """:func:`_prepare_agreements`, then :func:`_agreements` (in :func:`analyse_variants`'s
    thread)."""
    return _agreements(
        judgments, z, cfg, included, *_prepare_agreements(judgments, z, cfg, included)
    )


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
