"""Counts of related rows as correlated subqueries: one query for a whole list of rows (the
admin's changelists, the API's rows), not one per row, and each count as cheap as an index
on the filtered columns makes it."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

__all__ = ["correlated_count", "related_count"]


def correlated_count(queryset: QuerySet, outer: str) -> Coalesce:
    """COUNT(*) of ``queryset`` (already filtered on ``OuterRef`` through its field
    ``outer``) as a correlated subquery, 0 where there is none. COUNT(*), not of the primary
    key: any index on the filtered columns answers it (a campaign's judgments: the 11 MB
    (campaign, worker) index at a million, not the 115 MB covering one that also holds the
    id: 0.17 -> 0.03 s)."""
    counted = queryset.order_by().values(outer).annotate(n=Count("*")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def related_count(model, field: str = "campaign") -> Coalesce:
    """How many ``model`` rows point at the outer row through ``field``."""
    return correlated_count(model.objects.filter(**{field: OuterRef("pk")}), field)
