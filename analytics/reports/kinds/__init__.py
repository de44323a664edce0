"""The kinds' parts of the report and of judgments still needed, keyed by the task kind (as
``analytics.kinds`` keys the statistics), so that the shared code never asks which kind a
campaign is: each module here names its ``KIND`` and gives its ``TRUST`` rule
(``analytics.reports.trust.TrustRule``), its ``estimate`` of judgments still needed
(``analytics.reports.still_needed``; called with the campaign, the answer's base and one of
its ``METHODS``) and those ``METHODS`` (value, label; the first is the default). A kind
without a module gets the default trust rule and no estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from analytics.reports.kinds import direct_assessment, ranking
from analytics.reports.trust import DEFAULT_TRUST, TrustRule
from campaigns.models import Campaign

__all__ = ["KindReport", "kind_report", "registry", "trust_rule"]


@dataclass(frozen=True)
class KindReport:
    trust: TrustRule | None = None
    estimate: Callable | None = None
    methods: tuple[tuple[str, str], ...] = ()


def _of(module: ModuleType) -> KindReport:
    return KindReport(trust=module.TRUST, estimate=module.estimate, methods=module.METHODS)


registry: dict[str, KindReport] = {
    module.KIND: _of(module) for module in (direct_assessment, ranking)
}


def kind_report(campaign: Campaign) -> KindReport:
    return registry.get(campaign.kind, KindReport())


def trust_rule(campaign: Campaign) -> TrustRule:
    """The kind's trust rule (:mod:`analytics.reports.trust`'s default for other kinds)."""
    return kind_report(campaign).trust or DEFAULT_TRUST
