"""What every kind's dashboard provides, and the registry of them (``evalsite.kinds``)."""

from __future__ import annotations

from typing import Any, ClassVar

from analytics.dashboards.options import PlotOptions
from campaigns.models import Campaign
from evalsite.kinds import Registry

__all__ = ["DISTRIBUTIONS_TITLE", "SCORES_TITLE", "DashboardKind", "rank_text", "registry"]

SCORES_TITLE = "System scores"
DISTRIBUTIONS_TITLE = "Score distributions per system"


def rank_text(best: int, worst: int) -> str:
    return str(best) if best == worst else f"{best}–{worst}"


class DashboardKind:
    """A kind's plots. Override what applies; ``extra_plots`` names plots of the catalogue
    only this kind has. ``variant_label``: the dashboard's switch for the kind's "every
    worker" variant (its statistics' ``variant_param``), empty for kinds whose scores have
    none; ``methods``: the scoring methods a user may choose between (value, label)."""

    kind: ClassVar[str]
    label: ClassVar[str]
    has_distributions: ClassVar[bool] = True
    extra_plots: ClassVar[tuple[str, ...]] = ()
    variant_label: ClassVar[str] = ""
    methods: ClassVar[tuple[tuple[str, str], ...]] = ()

    def default_method(self, campaign: Campaign) -> str:
        """The method shown when none is asked for (kinds with ``methods``)."""
        return ""

    def scores_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        raise NotImplementedError

    def distributions_figure(self, campaign: Campaign, options: PlotOptions) -> Any:
        raise NotImplementedError

    def title(self, what: str, campaign: Campaign) -> str:
        return f"{what}: {campaign.name} ({self.label})"


registry: Registry[DashboardKind] = Registry("analytics.dashboards.kinds.{name}", "dashboard")
