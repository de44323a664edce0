"""Pure plotting for the dashboards (issue 17 item 2): functions that take plain arrays and
rows and return a matplotlib figure, and :func:`render` to SVG or PNG. No Django import here:
``analytics.dashboards`` loads the data (one query per table) and calls these; tests draw
them on hand data.

- :func:`progress_figure`: judgments received against the plan, and per hour;
- :func:`forest_figure`: system scores with intervals and rank ranges (every kind);
- :func:`reliability_figure`: per worker, reliability p-value against seconds per judgment
  (001, 2013 Figure 4);
- :func:`voters_figure`: ranking agreement against the number of workers voting (000 Figure 1);
- :func:`box_figure`, :func:`rank_share_figure`: score distributions per system;
- :func:`countries_figure`: workers per country;
- :func:`message_figure`: a titled message where there is nothing to plot yet.

matplotlib is imported on the first figure (:mod:`analytics.plots.render`).
"""

from analytics.plots.agreement import voters_figure
from analytics.plots.countries import countries_figure
from analytics.plots.distributions import box_figure, rank_share_figure
from analytics.plots.forest import ForestPanel, ForestRow, ForestSeries, forest_figure
from analytics.plots.progress import progress_figure
from analytics.plots.reliability import reliability_figure
from analytics.plots.render import CONTENT_TYPES, FORMATS, message_figure, render

__all__ = [
    "CONTENT_TYPES",
    "FORMATS",
    "ForestPanel",
    "ForestRow",
    "ForestSeries",
    "box_figure",
    "countries_figure",
    "forest_figure",
    "message_figure",
    "progress_figure",
    "rank_share_figure",
    "reliability_figure",
    "render",
    "voters_figure",
]
