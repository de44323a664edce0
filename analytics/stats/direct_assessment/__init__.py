"""Pure statistics for direct assessment (slider scores 0-100); numpy/scipy only, no Django.

Sources: Graham, Baldwin, Moffat & Zobel, "Is Machine Translation Getting Better over Time?"
(EACL 2014) and "Continuous Measurement Scales in Human Evaluation of Machine Translation"
(LAW 2013); /work/shared/METHODS.md section 2.

Input: :class:`DAJudgments`, one campaign's judgments as parallel arrays (worker, assignment,
slot, role, system, item, pair_slot, score, seconds); see its docstring.  Per-worker results
are aligned to ``DAJudgments.workers`` (sorted ids); worker masks (``include_workers``) are
boolean arrays in that same order.

Steps (each usable alone; :func:`analyse_campaign` runs them all):

- :func:`worker_reliability` -- per-worker QC: 2014 paired test (Wilcoxon signed-rank or
  paired t) of bad references vs their sources, 2013 Welch / Mann-Whitney test of repeat vs
  bad-reference differences, Assumption A, pair counts, mean seconds.
- :func:`standardize` -- per-worker z-scores.
- :func:`system_scores` / :func:`system_samples` -- WMT's Ave raw and Ave z (segment means
  first; the flat mean over judgments as an option), judgments and segments per system.
- :mod:`analytics.stats.significance` -- pairwise one-sided rank-sum tests (on segment-mean
  z by default), marks, WMT's official rank ranges and clusters.
- :func:`agreement` -- 2013 Tables 1-3: |difference| statistics and kappa.
- :func:`calibrated_gain` -- 2014 Section 4 test-set difficulty calibration.
"""

from analytics.stats.direct_assessment.agreement import (
    Agreement,
    KappaResult,
    PairAgreement,
    agreement,
    equal_width_categories,
    kappa_coefficient,
    percentile_categories,
)
from analytics.stats.direct_assessment.judgments import ControlPairs, DAJudgments, Role
from analytics.stats.direct_assessment.reliability import (
    DEFAULT_MIN_PAIRS,
    RELIABILITY_TESTS,
    WorkerQC,
    WorkerReliability,
    worker_reliability,
)
from analytics.stats.direct_assessment.report import (
    DAConfig,
    DAReport,
    analyse_campaign,
    analyse_variants,
)
from analytics.stats.direct_assessment.scores import (
    AVERAGINGS,
    Averaging,
    SystemScores,
    ZScores,
    calibrated_gain,
    standardize,
    system_samples,
    system_scores,
)

__all__ = [
    "AVERAGINGS",
    "DEFAULT_MIN_PAIRS",
    "RELIABILITY_TESTS",
    "Agreement",
    "Averaging",
    "ControlPairs",
    "DAConfig",
    "DAJudgments",
    "DAReport",
    "KappaResult",
    "PairAgreement",
    "Role",
    "SystemScores",
    "WorkerQC",
    "WorkerReliability",
    "ZScores",
    "agreement",
    "analyse_campaign",
    "analyse_variants",
    "calibrated_gain",
    "equal_width_categories",
    "kappa_coefficient",
    "percentile_categories",
    "standardize",
    "system_samples",
    "system_scores",
    "worker_reliability",
]
