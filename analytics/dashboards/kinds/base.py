"""What every kind's dashboard provides, and the registry of them (``evalsite.kinds``)."""

from __future__ import annotations

from typing import Any, ClassVar

from campaigns.models import Campaign
from evalsite.kinds import Registry

__all__ = ["DISTRIBUTIONS_TITLE", "SCORES_TITLE", "DashboardKind", "rank_text", "registry"]

SCORES_TITLE = "System scores"
DISTRIBUTIONS_TITLE = "Score distributions per system"


def rank_text(best: int, worst: int) -> str:
    return str(best) if best == worst else f"{best}–{worst}"


class DashboardKind:
    """A kind's plots. Override what applies; ``extra_plots`` names plots of the catalogue
    only this kind has."""

    kind: ClassVar[str]
    label: ClassVar[str]
    has_distributions: ClassVar[bool] = True
    extra_plots: ClassVar[tuple[str, ...]] = ()

    def scores_figure(self, campaign: Campaign) -> Any:
        raise NotImplementedError

    def distributions_figure(self, campaign: Campaign) -> Any:
        raise NotImplementedError

    def title(self, what: str, campaign: Campaign) -> str:
        return f"{what}: {campaign.name} ({self.label})"


registry: Registry[DashboardKind] = Registry("analytics.dashboards.kinds.{name}", "dashboard")
