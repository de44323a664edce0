"""The kinds' parts of the report and of judgments still needed, keyed by the task kind (as
``analytics.kinds`` keys the statistics), so that the shared code never asks which kind a
campaign is: each module here names its ``KIND`` and gives its ``TRUST`` rule
(``analytics.reports.trust.TrustRule``), its ``estimate`` of judgments still needed
(``analytics.reports.still_needed``; called with the campaign, the answer's base and one of
its ``METHODS``) and those ``METHODS`` (value, label; the first is the default), and, for a
kind that builds HITs as work arrives, its ``places_to_come`` (the report's "still to come"
line, ``analytics.reports.cost.PlacesToComeRow``). A kind without a module, or a module
without one of these, gets the default trust rule, no estimate and no places to come.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from analytics.reports.cost import PlacesToComeRow
from analytics.reports.kinds import direct_assessment, post_editing, ranking
from analytics.reports.trust import DEFAULT_TRUST, TrustRule
from campaigns.models import Campaign

__all__ = ["KindReport", "kind_report", "registry", "trust_rule"]


@dataclass(frozen=True)
class KindReport:
    trust: TrustRule | None = None
    estimate: Callable | None = None
    methods: tuple[tuple[str, str], ...] = ()
    places_to_come: Callable[[Campaign], list[PlacesToComeRow]] | None = None


def _of(module: ModuleType) -> KindReport:
    return KindReport(
        trust=getattr(module, "TRUST", None),
        estimate=getattr(module, "estimate", None),
        methods=getattr(module, "METHODS", ()),
        places_to_come=getattr(module, "places_to_come", None),
    )


registry: dict[str, KindReport] = {
    module.KIND: _of(module) for module in (direct_assessment, post_editing, ranking)
}


def kind_report(campaign: Campaign) -> KindReport:
    return registry.get(campaign.kind, KindReport())


def trust_rule(campaign: Campaign) -> TrustRule:
    """The kind's trust rule (:mod:`analytics.reports.trust`'s default for other kinds)."""
    return kind_report(campaign).trust or DEFAULT_TRUST
