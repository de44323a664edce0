"""Helpers shared by the analytics actions of every task kind (``analytics.actions`` and the
kinds' own, ``analytics.kinds.<kind>``)."""

from __future__ import annotations

import math
import sys
from typing import Any

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

__all__ = ["AUTO_PAUSE_PREFIX", "held_back_count", "json_safe", "newest_submitted_at"]

# The start of a campaign's status reason when its statistics paused it (ranking's
# auto-takedown); the results panel shows such a reason first, and reactivating clears it.
AUTO_PAUSE_PREFIX = "Paused automatically:"


def json_safe(value: Any) -> Any:
    """JSON-safe: NaN and infinities become None, numpy scalars and arrays plain Python."""
    if isinstance(value, dict):
        # str() of a TextChoices member is its value: keys come out as plain strings.
        return {
            (str(key) if isinstance(key, str) else key): json_safe(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    # numpy is not imported for this (the web worker's start, issue 16 item 4): a numpy value
    # can only exist once some other module has imported numpy.
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if np is not None and isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def newest_submitted_at(judgments: QuerySet) -> Subquery:
    """The latest ``submitted_at`` of ``judgments`` (filtered by ``campaign=OuterRef("pk")``:
    their own campaign column, which bounds the index walk), NULL when there is none: what
    the stale-result sweeps compare with a result's ``computed_at``. The first row in
    ``submitted_at`` order, not ``Max`` over the campaign's judgments grouped by campaign:
    PostgreSQL then walks the (campaign, submitted_at) index backwards to the first judgment
    that qualifies instead of reading every one. The sweep runs every
    ANALYTICS_SWEEP_SECONDS (15); at a million judgments the ``Max`` read 20,000 heap pages
    each time. (``submitted_at`` is never NULL: the first row holds the maximum.)"""
    return Subquery(judgments.order_by("-submitted_at").values("submitted_at")[:1])


def held_back_count(judgments: QuerySet, **assignments: Any) -> Coalesce:
    """How many of ``judgments`` (filtered by an ``OuterRef`` to the campaign, as the sweeps
    filter them) are in the campaign's assignments held back from scores (rejected, or not
    confirmed by MTurk: ``held_back_from_scores``), as the loaders mask them
    (``analytics.loading.held_back_assignment_ids``); ``assignments``: further filters on
    those assignments. Counted from the held-back assignments, through the judgments'
    (assignment, slot) index, not by joining every judgment of the campaign with them: at a
    million judgments 10 ms instead of 170, on every sweep."""
    from judgments.models import Assignment, held_back_from_scores

    held = Assignment.objects.filter(
        held_back_from_scores(), campaign=OuterRef(OuterRef("pk")), **assignments
    ).values("pk")
    counted = judgments.filter(assignment__in=held).values("campaign").annotate(n=Count("pk"))
    return Coalesce(Subquery(counted.values("n")), 0)
