"""The dashboards' plots by name, which campaigns have which, and their SVG or PNG bytes.

Shared by the admin dashboard (``analytics.dashboards.views``) and the API
(``analytics.api.plots``): a plot is asked for by name and format, drawn from the data
(``analytics.dashboards.data`` and the campaign's kind's ``analytics.dashboards.kinds``) and
rendered by ``analytics.plots``.

Plots read from the stored results (system scores, distributions, reliability, agreement)
are cached per stored result, like the API's segment tables: the key holds the result's
``computed_at``, which every recompute changes, so a new result never shows an old figure.
Progress and countries are live (one grouped query each) and drawn on every request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analytics.dashboards import data
from analytics.dashboards.kinds import DASHBOARD_KINDS, DashboardKind
from analytics.kinds import statistics_of
from analytics.plots import CONTENT_TYPES, FORMATS, render
from campaigns.models import Campaign
from evalsite.cachesafe import cache_get, cache_set

__all__ = ["PLOTS", "Plot", "PlotNotAvailable", "plot_bytes", "plots_for"]

CACHE_SECONDS = 24 * 60 * 60
CACHE_VERSION = 1  # part of the key: a release that draws differently misses older figures


@dataclass(frozen=True)
class Plot:
    name: str
    title: str
    description: str  # the alt text and the API's description
    draw: Callable[[Campaign, DashboardKind | None], Any]
    applies: Callable[[DashboardKind | None], bool]
    from_results: bool  # cached per stored result (else drawn live)


def _always(kind: DashboardKind | None) -> bool:
    return True


def _has_scores(kind: DashboardKind | None) -> bool:
    return kind is not None


def _has_distributions(kind: DashboardKind | None) -> bool:
    return kind is not None and kind.has_distributions


def _extra(name: str) -> Callable[[DashboardKind | None], bool]:
    return lambda kind: kind is not None and name in kind.extra_plots


PLOTS: dict[str, Plot] = {
    plot.name: plot
    for plot in (
        Plot(
            "progress",
            "Progress",
            "Judgments received over time against the judgments planned for the HITs built, "
            "and judgments per hour (UTC).",
            lambda campaign, kind: data.progress_plot(campaign),
            _always,
            from_results=False,
        ),
        Plot(
            "system-scores",
            "System scores",
            "Each system's score with its interval, rank range and count, best first; "
            "significance clusters separated by dashed lines (forest plot).",
            lambda campaign, kind: kind.scores_figure(campaign),
            _has_scores,
            from_results=True,
        ),
        Plot(
            "score-distributions",
            "Score distributions",
            "The distribution of each system's scores: box plots of segment scores, or the "
            "share of each rank for ranking.",
            lambda campaign, kind: kind.distributions_figure(campaign),
            _has_distributions,
            from_results=True,
        ),
        Plot(
            "worker-reliability",
            "Worker reliability against speed",
            "One point per worker: the p-value of their reliability test against mean seconds "
            "per judgment, with the threshold (Graham et al. 2013, Figure 4).",
            lambda campaign, kind: data.reliability_plot(campaign),
            _extra("worker-reliability"),
            from_results=True,
        ),
        Plot(
            "agreement-voters",
            "Agreement against number of voters",
            "Agreement of the combined rankings of k workers per ranking set with a "
            "reference, for growing k, unweighted and weighted (Callison-Burch 2009, Figure 1).",
            lambda campaign, kind: data.agreement_voters_figure(campaign),
            _extra("agreement-voters"),
            from_results=True,
        ),
        Plot(
            "workers-per-country",
            "Workers per country",
            "Workers with at least one judgment in the campaign, per country.",
            lambda campaign, kind: data.workers_per_country_plot(campaign),
            _always,
            from_results=False,
        ),
    )
}


class PlotNotAvailable(LookupError):
    """A plot name this campaign does not have; the message names the ones it has."""

    def __init__(self, campaign: Campaign, name: str) -> None:
        names = ", ".join(plot.name for plot in plots_for(campaign))
        super().__init__(
            f"Campaign {campaign.pk} ({campaign.get_kind_display()}) has no plot named "
            f"'{name}'; its plots are: {names}."
        )


def plots_for(campaign: Campaign) -> list[Plot]:
    """The plots of ``campaign``'s kind, in the dashboard's order."""
    kind = DASHBOARD_KINDS.get(campaign.kind)
    return [plot for plot in PLOTS.values() if plot.applies(kind)]


def _cache_key(campaign: Campaign, plot: Plot, fmt: str) -> str | None:
    if not plot.from_results:
        return None
    statistics = statistics_of(campaign)
    computed_at = None if statistics is None else statistics.stored_computed_at(campaign)
    if computed_at is None:
        return None  # nothing stored yet: the figure says so, and is not kept
    return ":".join(
        [
            f"analytics:plots:v{CACHE_VERSION}",
            str(campaign.pk),
            campaign.created_at.isoformat(),
            # Renaming the campaign or changing its settings (e.g. the ranking score shown)
            # changes the figure without a recompute.
            campaign.updated_at.isoformat(),
            plot.name,
            fmt,
            computed_at.isoformat(),
        ]
    )


def plot_bytes(campaign: Campaign, name: str, fmt: str) -> tuple[bytes, str]:
    """The plot ``name`` of ``campaign`` as ``fmt`` ("svg" or "png"): its bytes and content
    type. Raises :class:`PlotNotAvailable` for a name the campaign's kind has not, ValueError
    for another format."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    plot = PLOTS.get(name)
    kind = DASHBOARD_KINDS.get(campaign.kind)
    if plot is None or not plot.applies(kind):
        raise PlotNotAvailable(campaign, name)
    key = _cache_key(campaign, plot, fmt)
    content = cache_get(key) if key else None
    if content is None:
        figure = plot.draw(campaign, kind)
        content = render(figure, fmt)
        if key:
            cache_set(key, content, CACHE_SECONDS)
    return content, CONTENT_TYPES[fmt]
