"""Workers' reliability against their speed (001, the 2013 paper's Figure 4): one point per
worker, the p-value of their reliability test against mean seconds per judgment, a line at
the threshold. Fast, unreliable clickers gather at the top left."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analytics.plots.render import OKABE_ITO, add_note, message_figure, new_figure

__all__ = ["reliability_figure"]

TITLE = "Worker reliability against speed"
# (colour, marker) per group in legend order; groups beyond these cycle through them.
STYLES = (
    (OKABE_ITO["green"], "o"),
    (OKABE_ITO["orange"], "s"),
    (OKABE_ITO["vermillion"], "X"),
    (OKABE_ITO["sky"], "^"),
    (OKABE_ITO["purple"], "D"),
)
LOG_SCALE_SPREAD = 20  # fastest to slowest ratio above which seconds go on a log axis
# Room beyond the extreme points, as a share of the axis (linear) or a factor (log): a point
# at the largest time was drawn half outside the axes (session 16's walkthrough).
LINEAR_MARGIN = 0.06
LOG_MARGIN = 1.25


def reliability_figure(
    seconds: Sequence[float | None] | np.ndarray,
    p_values: Sequence[float | None] | np.ndarray,
    groups: Sequence[str],
    *,
    alpha: float = 0.05,
    test: str = "",
    group_order: Sequence[str] = (),
    campaign: str = "",
    speed_floor: float = 0.0,
) -> Any:
    """One point per worker at (``seconds``, ``p_values``), coloured and shaped by ``groups``
    (e.g. the recommendation), legend in ``group_order`` (then by first appearance), beside
    the axes so that it hides no worker. ``speed_floor`` (seconds per judgment; 0: none): the
    line left of which the recommendations call a worker too fast. Workers without a p-value
    or a time cannot be placed: the caption counts them."""
    title = f"{TITLE}: {campaign}" if campaign else TITLE
    x = np.array([np.nan if v is None else float(v) for v in seconds], dtype=np.float64)
    p = np.array([np.nan if v is None else float(v) for v in p_values], dtype=np.float64)
    if not (x.shape == p.shape == (len(groups),)):
        raise ValueError("seconds, p_values and groups must have the same length")
    placed = ~(np.isnan(x) | np.isnan(p))
    if not placed.any():
        if len(groups) == 0:
            return message_figure(title, "No judgments yet: no worker to show.")
        return message_figure(
            title,
            f"None of the {len(groups)} worker(s) can be placed yet: a worker needs timed "
            "judgments and enough quality-control pairs for a p-value.",
        )
    order = list(dict.fromkeys([*group_order, *groups]))
    present = [g for g in order if g in set(np.asarray(groups, dtype=object)[placed])]
    figure = new_figure(9.0, 5.0)
    axes = figure.subplots()
    group_of = np.asarray(groups, dtype=object)
    for index, group in enumerate(present):
        colour, marker = STYLES[index % len(STYLES)]
        members = np.flatnonzero(placed & (group_of == group))
        collection = axes.scatter(
            x[members],
            p[members],
            s=42,
            c=colour,
            marker=marker,
            edgecolors="white",
            linewidths=0.6,
            label=f"{group} ({members.size})",
            zorder=3,
        )
        collection.set_gid(f"group-{index}")
    threshold = axes.axhline(alpha, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
    threshold.set_gid("threshold")
    axes.annotate(
        f"p = {alpha:g}: reliable below",
        (1.0, alpha),
        xycoords=("axes fraction", "data"),
        xytext=(-4, 4),
        textcoords="offset points",
        ha="right",
        fontsize=8,
    )
    shown = x[placed]
    highest = max(float(shown.max()), speed_floor)
    if shown.min() > 0 and shown.max() / shown.min() > LOG_SCALE_SPREAD:
        axes.set_xscale("log")
        axes.set_xlabel("Mean seconds per judgment (log scale)")
        axes.set_xlim(float(shown.min()) / LOG_MARGIN, highest * LOG_MARGIN)
        # Ticks at 1, 2, 5 of each decade, written as plain numbers: the log axis's own
        # labels are mathtext ("$\\mathdefault{10^{0}}$"), which the house style does not
        # parse (text.parse_math is off, so that a "$" in a name stays a "$").
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # first figure on

        axes.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        axes.xaxis.set_minor_formatter(NullFormatter())
    else:
        axes.set_xlim(0, (highest or 1.0) * (1 + LINEAR_MARGIN))
        axes.set_xlabel("Mean seconds per judgment")
    if speed_floor > 0:
        floor = axes.axvline(speed_floor, color=OKABE_ITO["vermillion"], linestyle=":", lw=1)
        floor.set_gid("speed-floor")
        axes.annotate(
            f"{speed_floor:g} s: too fast left of it",
            (speed_floor, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(4, -12),
            textcoords="offset points",
            fontsize=8,
        )
    axes.set_ylim(-0.02, 1.02)
    axes.set_ylabel("p-value of the reliability test (low: reliable)")
    axes.set_title(title, loc="left")
    axes.legend(
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        borderaxespad=0,
        title="Recommendation",
        fontsize=8,
        title_fontsize=8,
    )
    missing = int((~placed).sum())
    caption = f"{int(placed.sum())} worker(s) shown."
    if test:
        caption = f"Test: {test}. {caption}"
    if missing:
        caption += (
            f" {missing} not shown: no p-value yet (too few quality-control pairs) or no "
            "timed judgment."
        )
    add_note(figure, caption)
    return figure
