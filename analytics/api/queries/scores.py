"""Scores the API computes from stored results or from the judgments themselves.

Segment-level scores are computed, not stored: each kind's ``segment_scores``
(``analytics.kinds``) loads the campaign with the kind's loader (one query per table), selects
the rows the stored system scores count, and aggregates per (segment, system) with numpy, so
that the z-scores (direct assessment) are the statistics' own (same workers, same
standardisation). That is a load of every judgment, so :func:`segment_scores` computes a
campaign's table once per stored result and keeps it in Django's cache (Redis in production,
local memory in the embedded default) under a key naming the stored result's ``computed_at``:
pages slice the cached table, and a recompute invalidates it by changing the key (DESIGN.md:
no statistics recomputed on every page view). :func:`significance_table` reads the stored
pairwise p-values (each kind's ``significance``) and orders and marks them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from analytics.api.queries.tables import SegmentTable, plain
from analytics.kinds import AnalyticsKind, statistics_of
from analytics.stats.significance import significance_marks
from campaigns.models import Campaign, System
from evalsite.cachesafe import cache_get, cache_set

__all__ = [
    "SEGMENT_CACHE_SECONDS",
    "SegmentTable",
    "segment_scores",
    "segment_table_cache_key",
    "significance_table",
    "stored_computed_at",
]

# --- Segment-level scores --------------------------------------------------------------------

# How long a cached segment table is kept. A recompute changes the key, so this only bounds
# how long the table of a superseded result occupies the cache, and how long a campaign
# nobody looks at keeps one.
SEGMENT_CACHE_SECONDS = 24 * 60 * 60
# Part of the key: a release that changes what the cached SegmentTable holds reads none of
# the tables an earlier release stored. (2: SegmentTable moved to analytics.api.queries.tables,
# so tables pickled before cannot be read back.)
SEGMENT_CACHE_VERSION = 2


def stored_computed_at(campaign: Campaign) -> datetime | None:
    """When the campaign's stored results were computed (None before the first recompute or
    for kinds without statistics). One query (none for kinds without statistics)."""
    statistics = statistics_of(campaign)
    return None if statistics is None else statistics.stored_computed_at(campaign)


def segment_table_cache_key(
    campaign: Campaign,
    *,
    include_all: bool,
    computed_at: datetime,
    statistics: AnalyticsKind | None = None,
) -> str:
    """The cache key of one variant of the segment table of one stored result.

    ``computed_at`` changes with every stored recompute, so a new result never reads the
    table of an older one. The campaign's creation time is in the key beside its id because
    SQLite hands a deleted campaign's id to the next campaign created.
    """
    statistics = statistics or statistics_of(campaign)
    variant = "all" if statistics is None else statistics.variant_key(include_all)
    return ":".join(
        [
            f"analytics:api:segments:v{SEGMENT_CACHE_VERSION}",
            str(campaign.pk),
            campaign.created_at.isoformat(),
            variant,
            computed_at.isoformat(),
        ]
    )


def segment_scores(
    campaign: Campaign, *, include_all: bool, system: int | None = None
) -> SegmentTable:
    """The segment table of the campaign's kind (empty for kinds without scores), of one
    system if ``system`` is given.

    ``include_all``: the "all" variant (unreliable or untrusted workers too). The table of a
    stored result is computed once, on the first request that asks for it, and cached
    (:func:`segment_table_cache_key`); later pages run one query (the stored result's
    ``computed_at``) and a cache read. Before the first recompute there is no result to key
    it on, and the table is computed on each request: live recomputing stores a result
    within seconds of the first judgment (``analytics.actions``).
    """
    statistics = statistics_of(campaign)
    if statistics is None:
        return SegmentTable.empty(campaign.kind)
    computed_at = statistics.stored_computed_at(campaign)
    if computed_at is None:
        table = statistics.segment_scores(campaign, include_all=include_all)
    else:
        key = segment_table_cache_key(
            campaign, include_all=include_all, computed_at=computed_at, statistics=statistics
        )
        # A cache that is down is a miss, and the table is not kept (evalsite.cachesafe): the
        # page is computed from the judgments, slower but right.
        table = cache_get(key)
        if table is None:
            table = statistics.segment_scores(campaign, include_all=include_all)
            cache_set(key, table, SEGMENT_CACHE_SECONDS)
    return table if system is None else table.for_system(system)


# --- Pairwise significance -------------------------------------------------------------------


def significance_table(
    campaign: Campaign, *, include_all: bool, method: str | None = None
) -> dict[str, Any]:
    """The pairwise significance matrix of the stored results, systems best first.

    The kind's ``significance`` reads the stored p-values of "row system beats column system"
    (direct assessment: one-sided Wilcoxon rank-sum on z-scores; ranking: the bootstrap of
    ``method``) and says which system is best; marks are recomputed from the p-values
    (``analytics.stats.significance.significance_marks``). Empty while nothing is stored or
    for kinds without scores. Three queries.
    """
    names = dict(System.objects.filter(campaign=campaign).order_by().values_list("id", "name"))
    table: dict[str, Any] = {
        "kind": campaign.kind,
        "variant": "all",
        "method": None,
        "test": "",
        "computed_at": None,
        "systems": [],
        "p_values": [],
        "marks": [],
    }
    statistics = statistics_of(campaign)
    if statistics is None:
        return table
    stored = statistics.significance(campaign, include_all=include_all, method=method)
    table.update(variant=stored.variant, method=stored.method, test=stored.test)
    if stored.computed_at is None:
        return table
    ids, order, scores, clusters = stored.systems, stored.order, stored.scores, stored.clusters
    p = stored.p_values
    p = p[np.ix_(order, order)] if order else p
    marks = significance_marks(p)
    table.update(
        computed_at=stored.computed_at,
        systems=[
            {
                "id": ids[i],
                "name": stored.names.get(ids[i]) or names.get(ids[i], ""),
                "score": plain(scores[ids[i]]) if scores.get(ids[i]) is not None else None,
                "cluster": clusters[i],
            }
            for i in order
        ],
        p_values=[[plain(v) for v in row] for row in p.tolist()],
        marks=marks.tolist(),
    )
    return table
