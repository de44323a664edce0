"""Pure statistics for post-editing and HTER; numpy/scipy/sacrebleu, no Django.

Sources: Callison-Burch (2009), "Fast, Cheap, and Creative" (EMNLP), section 5.2 and Table 2
[000]; Zaidan & Callison-Burch (2010), "Predicting Human-Targeted Translation Edit Rate via
Untrained Human Annotators" [003]; Snover et al. (2006) for TER; /work/shared/METHODS.md
section 3; issue 13 item 5.

Steps (each usable alone):

- :mod:`~analytics.stats.post_editing.ter` -- :func:`edit_stats` (one pair, hypothesis = MT
  output, reference = the edit: edits, reference length, sacrebleu signature) and
  :func:`edit_stats_batch` (many pairs over worker processes, same numbers);
  :class:`TerOptions` (tercom defaults; case-sensitive / normalised / no-punctuation options).
- :func:`verify_edits` -- an edit passes by majority of its verifiers (ties fail by default).
- :func:`segment_hter` -- per output the smallest TER among the passed edits, else TER
  against the reference; inputs :class:`Outputs` and :class:`PostEdits`.
- :func:`system_hter` -- corpus-level and mean HTER, bootstrap intervals over segments,
  one-sided paired Wilcoxon p-values (lower is better), WMT clusters and rank ranges.
- :func:`editor_subsampling` -- 000 Table 2: HTER with 0..k editors.
- :func:`worker_weights`, :func:`combine_edit_rates`, :func:`document_scores`,
  :func:`rank_documents` -- 003's minimum / median / mean / weighted mean and Spearman of the
  document ranking against the gold one.
- :func:`worker_profiles` -- 003 section 7: distance to the MT output and to the reference,
  did-nothing and copied-the-reference flags.
"""

from analytics.stats.post_editing.combine import (
    DocumentRanking,
    SegmentCombinations,
    WorkerWeights,
    combine_edit_rates,
    document_scores,
    rank_all,
    rank_documents,
    verification_subset,
    worker_weights,
)
from analytics.stats.post_editing.hter import Outputs, PostEdits, SegmentHTER, segment_hter
from analytics.stats.post_editing.subsampling import SubsamplingTable, editor_subsampling
from analytics.stats.post_editing.system import SystemHTER, pairwise_wilcoxon_lower, system_hter
from analytics.stats.post_editing.ter import (
    TERCOM_DEFAULTS,
    EditStats,
    EditStatsBatch,
    TerOptions,
    edit_rate,
    edit_stats,
    edit_stats_batch,
    ter_signature,
)
from analytics.stats.post_editing.verification import VerificationOutcome, verify_edits
from analytics.stats.post_editing.workers import WorkerProfiles, worker_profiles

__all__ = [
    "TERCOM_DEFAULTS",
    "DocumentRanking",
    "EditStats",
    "EditStatsBatch",
    "Outputs",
    "PostEdits",
    "SegmentCombinations",
    "SegmentHTER",
    "SubsamplingTable",
    "SystemHTER",
    "TerOptions",
    "VerificationOutcome",
    "WorkerProfiles",
    "WorkerWeights",
    "combine_edit_rates",
    "document_scores",
    "edit_rate",
    "edit_stats",
    "edit_stats_batch",
    "editor_subsampling",
    "pairwise_wilcoxon_lower",
    "rank_all",
    "rank_documents",
    "segment_hter",
    "system_hter",
    "ter_signature",
    "verification_subset",
    "verify_edits",
    "worker_profiles",
    "worker_weights",
]
