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
from dataclasses import dataclass, replace
from typing import Any

from analytics.dashboards import data
from analytics.dashboards.kinds import DASHBOARD_KINDS, DashboardKind
from analytics.dashboards.options import DEFAULT, PlotOptions, plot_options
from analytics.kinds import statistics_of
from analytics.plots import CONTENT_TYPES, FORMATS, render
from campaigns.models import Campaign
from evalsite.cachesafe import cache_get, cache_set

__all__ = [
    "PLOTS",
    "Plot",
    "PlotNotAvailable",
    "options_for",
    "options_query",
    "plot_bytes",
    "plots_for",
    "switches_for",
]

CACHE_SECONDS = 24 * 60 * 60
CACHE_VERSION = 2  # part of the key: a release that draws differently misses older figures


@dataclass(frozen=True)
class Plot:
    name: str
    title: str
    description: str  # the alt text and the API's description
    # (campaign, its kind's dashboard, the switches): the figure.
    draw: Callable[[Campaign, DashboardKind | None, PlotOptions], Any]
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
            lambda campaign, kind, options: data.progress_plot(campaign),
            _always,
            from_results=False,
        ),
        Plot(
            "system-scores",
            "System scores",
            "Each system's score with its interval, rank range and count, best first; "
            "significance clusters separated by dashed lines (forest plot).",
            lambda campaign, kind, options: kind.scores_figure(campaign, options),
            _has_scores,
            from_results=True,
        ),
        Plot(
            "score-distributions",
            "Score distributions",
            "The distribution of each system's scores: box plots of segment scores, or the "
            "share of each rank for ranking.",
            lambda campaign, kind, options: kind.distributions_figure(campaign, options),
            _has_distributions,
            from_results=True,
        ),
        Plot(
            "worker-reliability",
            "Worker reliability against speed",
            "One point per worker: the p-value of their reliability test against mean seconds "
            "per judgment, with the threshold (Graham et al. 2013, Figure 4).",
            lambda campaign, kind, options: data.reliability_plot(campaign),
            _extra("worker-reliability"),
            from_results=True,
        ),
        Plot(
            "agreement-voters",
            "Agreement against number of voters",
            "Agreement of the combined rankings of k workers per ranking set with a "
            "reference, for growing k, unweighted and weighted (Callison-Burch 2009, Figure 1).",
            lambda campaign, kind, options: data.agreement_voters_figure(campaign, options),
            _extra("agreement-voters"),
            from_results=True,
        ),
        Plot(
            "workers-per-country",
            "Workers per country",
            "Workers with at least one judgment in the campaign, per country.",
            lambda campaign, kind, options: data.workers_per_country_plot(campaign),
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


def _cache_key(campaign: Campaign, plot: Plot, fmt: str, options: PlotOptions) -> str | None:
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
            options.key() or "default",
            computed_at.isoformat(),
        ]
    )


def plot_bytes(
    campaign: Campaign, name: str, fmt: str, options: PlotOptions = DEFAULT
) -> tuple[bytes, str]:
    """The plot ``name`` of ``campaign`` as ``fmt`` ("svg" or "png") with the switches
    ``options`` (``analytics.dashboards.options``): its bytes and content type. Raises
    :class:`PlotNotAvailable` for a name the campaign's kind has not, ValueError for another
    format."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    plot = PLOTS.get(name)
    kind = DASHBOARD_KINDS.get(campaign.kind)
    if plot is None or not plot.applies(kind):
        raise PlotNotAvailable(campaign, name)
    key = _cache_key(campaign, plot, fmt, options)
    content = cache_get(key) if key else None
    if content is None:
        figure = plot.draw(campaign, kind, options)
        content = render(figure, fmt)
        if key:
            cache_set(key, content, CACHE_SECONDS)
    return content, CONTENT_TYPES[fmt]


# --- The switches -----------------------------------------------------------------------------


def options_for(campaign: Campaign, params: Any) -> PlotOptions:
    """The switches a request asks for (``analytics.dashboards.options.plot_options``, which
    raises a ValidationError naming a bad parameter), keeping only those the campaign's kind
    has: a method for kinds without methods, or "every worker" for kinds without a variant,
    is left out (as the results endpoints ignore other kinds' parameters)."""
    options = plot_options(campaign, params)
    kind = DASHBOARD_KINDS.get(campaign.kind)
    if options.method and (kind is None or not kind.methods):
        options = replace(options, method=None)
    if options.include_all and (kind is None or not kind.variant_label):
        options = replace(options, include_all=False)
    return options


def options_query(campaign: Campaign, options: PlotOptions) -> dict[str, str]:
    """``options`` as the query parameters that ask for them (empty for the default): the
    plots' URLs and downloads keep the switches."""
    query: dict[str, str] = {}
    statistics = statistics_of(campaign)
    if options.include_all and statistics is not None:
        query[statistics.variant_param] = "1"
    if options.method:
        query["method"] = options.method
    return query


def switches_for(campaign: Campaign, options: PlotOptions) -> dict[str, Any] | None:
    """What the dashboard's form offers for ``campaign``'s kind, with ``options`` selected;
    None when the kind has no switch."""
    kind = DASHBOARD_KINDS.get(campaign.kind)
    statistics = statistics_of(campaign)
    if kind is None or statistics is None or not (kind.variant_label or kind.methods):
        return None
    method = options.method or kind.default_method(campaign)
    return {
        "variant_param": statistics.variant_param if kind.variant_label else "",
        "variant_label": kind.variant_label,
        "include_all": options.include_all,
        "methods": [
            {"value": value, "label": label, "selected": value == method}
            for value, label in kind.methods
        ],
        "default_method": kind.default_method(campaign),
    }
