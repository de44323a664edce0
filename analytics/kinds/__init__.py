"""The statistics of each task kind: what is computed and stored, and how results are shown.

Every kind with statistics registers one :class:`AnalyticsKind` with :data:`registry`, in its
package ``analytics/kinds/<kind>/`` (``AnalyticsConfig.ready`` loads them). It says how its
judgments are loaded for the pure statistics (``analytics.stats``), how the results are
computed and stored, which stored results are stale, the admin results panel, the pieces of
the analysts' API that differ by kind, and its system-table exports. The shared machinery
calls it in this order:

1. schedule (``analytics.actions``: the signal receiver, the coalesced schedule, the sweep
   over :meth:`AnalyticsKind.stale_campaigns`);
2. load, compute, store: :meth:`AnalyticsKind.recompute` (which uses :meth:`config_for`
   and :meth:`load`), run by ``analytics.actions.recompute_campaign`` and the Celery task;
3. present: :meth:`results_panel` (the campaign's admin page; :attr:`worker_actions`,
   :attr:`variant_param` and :attr:`panel_anchor` for its form), the API
   (``analytics.api``: :meth:`campaign_fields`, :meth:`system_queryset`,
   :meth:`system_fields`, :meth:`significance`, :meth:`segment_scores`,
   :meth:`annotate_workers`, :meth:`worker_fields`, :meth:`stored_computed_at`, the query
   parameters of :meth:`query_fields`, and the kind's own endpoints, :meth:`api_urls`);
4. export: :meth:`system_table` (CSV, WMT-style TSV, LaTeX).

Shared code asks ``registry.get(campaign.kind)`` and never compares the kind with a particular
one; a kind without a module here (today translation) has no
statistics: ``recompute_campaign`` returns None, the panel is absent, the API answers with
empty scores and the system table with a 404 (evalsite/kinds.py, docs/task-kinds.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from evalsite.kinds import KindNotAvailable, Registry

if TYPE_CHECKING:
    from django.db import models
    from django.db.models import QuerySet
    from django.db.models.expressions import Combinable
    from django.http import HttpRequest
    from rest_framework import serializers

    from analytics.api.queries.tables import SegmentTable, StoredSignificance
    from analytics.progress import ProgressRule
    from campaigns.models import Campaign, System
    from judgments.models import Worker

__all__ = [
    "MEMBERSHIP_ACTIONS",
    "AnalyticsKind",
    "KindNotAvailable",
    "ResultsPanel",
    "registry",
    "statistics_of",
]

# What the results panel's worker form may ask of every kind: exclude workers from the scores
# and re-admit them (``analytics.actions.set_workers_excluded``).
MEMBERSHIP_ACTIONS: tuple[str, ...] = ("exclude", "readmit")


@dataclass(frozen=True)
class ResultsPanel:
    """A kind's results panel on the campaign's admin page: the template of the panel (a
    ``<section id="{anchor}">``, rendered with ``r`` = ``context``), the template of its
    styles (rendered in the page's ``extrastyle`` block) and what the panel shows."""

    template: str
    style_template: str
    context: dict[str, Any] = field(default_factory=dict)


class AnalyticsKind:
    """What a task kind with statistics provides in the analytics app. Override what applies.

    The stored result row (:attr:`result_model`) is one per campaign, reached from Campaign by
    :attr:`result_relation`, with at least ``computed_at``, ``n_judgments``,
    ``n_scored_judgments`` and ``n_workers``.
    """

    # The TaskKind value this implements.
    kind: ClassVar[str]
    # The stored result of a campaign (one row) and the Campaign attribute that reaches it.
    result_model: ClassVar[type[models.Model]]
    result_relation: ClassVar[str]
    # The query parameter (and stored flag) of the "every worker" variant of the scores, e.g.
    # "include_unreliable": the admin panel's switch and the API's parameter.
    variant_param: ClassVar[str]
    # The admin results panel: the HTML id of its <section> (the form's redirects come back
    # to it) and the actions its worker form may post (besides "recompute").
    panel_anchor: ClassVar[str]
    worker_actions: ClassVar[tuple[str, ...]] = MEMBERSHIP_ACTIONS
    # How messages name the kind's campaigns ("direct-assessment"), e.g. "only
    # direct-assessment and ranking campaigns have a system table".
    label: ClassVar[str]
    # Whether a Celery worker may keep the kind's loaded arrays between recomputes and read only
    # the judgments added since (``analytics.incremental``, issue 16's freshness).
    incremental: ClassVar[bool] = False

    # --- Computing and storing ----------------------------------------------------------------

    def config_for(self, campaign: Campaign, *, include_all: bool = False) -> Any:
        """The campaign's settings as the pure statistics' configuration."""
        raise NotImplementedError

    def load(self, campaign_id: int) -> Any:
        """The campaign's judgments as numpy arrays (one query per table)."""
        raise NotImplementedError

    def recompute(self, campaign: Campaign) -> models.Model | None:
        """Load, compute and store the campaign's results (one transaction for the store);
        the stored :attr:`result_model` row, or None when there is nothing to compute.
        Idempotent. The recompute flag is already cleared (``analytics.actions``)."""
        raise NotImplementedError

    def stale_campaigns(self) -> QuerySet[Campaign]:
        """This kind's campaigns whose stored results no longer match their data (one query),
        for the periodic sweep."""
        raise NotImplementedError

    def variant_key(self, include_all: bool) -> str:
        """The stored variant's name ("all" for every worker), as in the results' details."""
        raise NotImplementedError

    # --- The admin results panel --------------------------------------------------------------

    def results_panel(self, campaign: Campaign, request: HttpRequest) -> ResultsPanel:
        """The panel on the campaign's admin change page, read from the stored results in a
        fixed number of queries (never computed on a page view); ``?<variant_param>=1`` shows
        the scores over every worker."""
        raise NotImplementedError

    def include_all(self, params: Any) -> bool:
        """Whether ``params`` (the request's query or validated parameters) ask for the
        "every worker" variant."""
        value = params.get(self.variant_param)
        return value is True or value == "1"

    # --- The analysts' API --------------------------------------------------------------------

    def query_fields(self, endpoint: str) -> dict[str, serializers.Field]:
        """The query parameters this kind reads at ``endpoint`` ("scores": the systems,
        "significance", "segments", "export": the system tables), as new serializer fields;
        every kind's are documented and validated for every campaign, each kind reads its
        own (at least :attr:`variant_param`)."""
        return {}

    def campaign_fields(self) -> dict[str, tuple[serializers.Field, Combinable]]:
        """Fields of every campaign in the API that only this kind fills: name -> (the
        serializer field, the annotation of the campaign list, with a value for campaigns of
        other kinds too)."""
        return {}

    def system_queryset(
        self, systems: QuerySet[System], campaign: Campaign, params: dict[str, Any]
    ) -> tuple[QuerySet[System], Combinable]:
        """The campaign's systems with this kind's stored scores of the chosen variant
        attached (prefetched), and the expression of each system's position (best first)."""
        raise NotImplementedError

    def system_fields(self) -> dict[str, serializers.Field]:
        """Fields of every system in the API that hold this kind's scores (empty or null for
        systems of campaigns of other kinds)."""
        return {}

    def significance(
        self, campaign: Campaign, *, include_all: bool, method: str | None
    ) -> StoredSignificance:
        """The stored pairwise p-values of the variant (three queries at most)."""
        raise NotImplementedError

    def segment_scores(self, campaign: Campaign, *, include_all: bool) -> SegmentTable:
        """Scores per (segment, system), computed from the judgments the stored system scores
        count (``analytics.api.queries.segment_scores`` caches them per stored result)."""
        raise NotImplementedError

    def annotate_workers(self, workers: QuerySet[Worker], campaign: Campaign) -> QuerySet[Worker]:
        """The campaign's workers with this kind's stored row of each (a LEFT JOIN), as the
        annotations :meth:`worker_fields` read. Applied for every campaign."""
        return workers

    def worker_fields(self) -> dict[str, serializers.Field]:
        """Fields of every worker in the API that hold this kind's stored row (null for
        campaigns of other kinds)."""
        return {}

    def stored_computed_at(self, campaign: Campaign) -> datetime | None:
        """When the campaign's stored results were computed (None before the first
        recompute). One query."""
        return (
            self.result_model.objects.filter(campaign=campaign)
            .order_by()
            .values_list("computed_at", flat=True)
            .first()
        )

    def progress_rule(self) -> ProgressRule | None:
        """What the campaign's progress counts (``analytics.progress.kind_progress``, shared
        by the results panel, the checklist and the dashboard); None: the default, each slot
        of the regular HITs is one judgment. (None rather than the default rule itself:
        analytics.progress reads this module, so this one must not import it.)"""
        return None

    def api_urls(self) -> list[Any]:
        """URL patterns of endpoints only this kind has (mounted under /api/ beside the shared
        ones, e.g. post-editing's per-edit exports); none by default."""
        return []

    # --- Exports ------------------------------------------------------------------------------

    def system_table(
        self, campaign: Campaign, options: dict[str, Any], fmt: str
    ) -> tuple[str, str]:
        """The stored system scores as one file in ``fmt`` ("csv", "tsv" or "latex"), and the
        suffix of its file name (e.g. "-all"). Raises ``analytics.api.errors.NotComputed``
        (409) before the first recompute."""
        raise NotImplementedError


registry: Registry[AnalyticsKind] = Registry("analytics.kinds.{name}", "statistics")


def statistics_of(campaign: Campaign) -> AnalyticsKind | None:
    """The campaign's kind's statistics, or None for a kind without any."""
    return registry.get(campaign.kind)
