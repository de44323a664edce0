"""What the API's endpoints read about many rows at once (DESIGN.md: logic about many rows
in ``queries`` as ``annotate_*`` functions).

Every list endpoint runs a fixed number of queries whatever its page size:

- :mod:`.rows`: annotations and page-wide completions of the listed rows (campaigns with
  progress and cost, HITs, workers with timing, assignments, judgments);
- :mod:`.scores`: segment-level scores computed from the judgments with the statistics' own
  z-scores and selections (once per stored result, then read from the cache), and the
  pairwise significance matrix of the stored results, both from the campaign's kind
  (``analytics.kinds``);
- :mod:`.tables`: the shapes the kinds fill for them (segment tables, stored significance).
"""

from analytics.api.queries.rows import (
    PAID_STATUSES,
    CampaignCost,
    WorkerStatistics,
    WorkerTiming,
    annotate_assignment_counts,
    annotate_assignments,
    annotate_campaign_cost,
    annotate_campaign_progress,
    annotate_campaign_results,
    annotate_hits,
    annotate_judgments,
    attach_campaign_costs,
    attach_worker_timing,
    campaign_workers,
)
from analytics.api.queries.scores import (
    SEGMENT_CACHE_SECONDS,
    segment_scores,
    segment_table_cache_key,
    significance_table,
    stored_computed_at,
)
from analytics.api.queries.tables import SegmentTable, StoredSignificance

__all__ = [
    "PAID_STATUSES",
    "SEGMENT_CACHE_SECONDS",
    "CampaignCost",
    "SegmentTable",
    "StoredSignificance",
    "WorkerStatistics",
    "WorkerTiming",
    "annotate_assignment_counts",
    "annotate_assignments",
    "annotate_campaign_cost",
    "annotate_campaign_progress",
    "annotate_campaign_results",
    "annotate_hits",
    "annotate_judgments",
    "attach_campaign_costs",
    "attach_worker_timing",
    "campaign_workers",
    "segment_scores",
    "segment_table_cache_key",
    "significance_table",
    "stored_computed_at",
]
