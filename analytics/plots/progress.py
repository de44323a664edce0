"""Progress over time: judgments so far against the plan, and judgments per hour."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from analytics.plots.render import GREY, OKABE_ITO, message_figure, new_figure
from analytics.stats._lazy import lazy_module

__all__ = ["DAY_BINS_AFTER_HOURS", "progress_figure"]

_dates = lazy_module("matplotlib.dates")

# Past two weeks, hourly bars would be thinner than a pixel: the bottom panel counts per day.
DAY_BINS_AFTER_HOURS = 14 * 24

TITLE = "Progress"


def _bins(hours: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """Every hour from the first to the last (empty hours as zero), or every day when the span
    is longer than :data:`DAY_BINS_AFTER_HOURS`; and the unit's name."""
    span = int((hours[-1] - hours[0]) // np.timedelta64(1, "h")) + 1
    unit, step = ("hour", np.timedelta64(1, "h"))
    start = hours[0]
    if span > DAY_BINS_AFTER_HOURS:
        unit, step = ("day", np.timedelta64(1, "D"))
        start = hours[0].astype("datetime64[D]").astype("datetime64[s]")
    index = ((hours - start) // step).astype(np.int64)
    per_bin = np.bincount(index, weights=counts, minlength=int(index[-1]) + 1).astype(np.int64)
    edges = start + np.arange(per_bin.shape[0]) * step
    return edges, per_bin, unit


def progress_figure(
    hours: Sequence[datetime] | np.ndarray,
    counts: Sequence[int] | np.ndarray,
    *,
    planned: int | None = None,
    counted: int | None = None,
    unit: str = "judgments",
    campaign: str = "",
) -> Any:
    """Two panels sharing the time axis (UTC): above, judgments received so far (a step line)
    with the judgments planned for the HITs built (``planned``, a dashed line, when known);
    below, judgments per hour (per day past two weeks).

    ``hours``: the start of each hour with judgments (naive UTC or aware datetimes, or
    datetime64), ascending; ``counts``: judgments in that hour. No hour gives the "no
    judgments yet" figure. ``unit``: what is counted, plural ("ranking sets": a ranking
    campaign's progress counts ranked sets, analytics.progress). ``counted``: the units the
    progress counts towards ``planned`` (each HIT at most its places' worth), for the share in
    the title; without it, everything received counts.
    """
    title = f"{TITLE}: {campaign}" if campaign else TITLE
    stamps = np.array(
        [
            np.datetime64(h.replace(tzinfo=None) if isinstance(h, datetime) else h, "s")
            for h in hours
        ],
        dtype="datetime64[s]",
    ).reshape(-1)
    counts = np.asarray(counts, dtype=np.int64).reshape(-1)
    if stamps.shape != counts.shape:
        raise ValueError("hours and counts must have the same length")
    if stamps.size == 0 or counts.sum() == 0:
        planned_note = f" ({planned:,} planned)" if planned else ""
        return message_figure(title, f"No {unit} yet{planned_note}.")
    order = np.argsort(stamps, kind="stable")
    stamps, counts = stamps[order], counts[order]
    edges, per_bin, bin_unit = _bins(stamps, counts)
    step = np.timedelta64(1, "h") if bin_unit == "hour" else np.timedelta64(1, "D")

    figure = new_figure(8.0, 5.2)
    above, below = figure.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    x_edges = _dates.date2num(np.append(edges, edges[-1] + step))
    total = np.cumsum(per_bin)
    # Each bin's judgments counted from the bin's start ("pre": the step up is at the start,
    # the total holds through the bin). Drawn at the bins' ends ("post"), the judgments of the
    # hour under way showed only at its end, a time still to come: a campaign under an hour
    # old looked empty.
    (line,) = above.step(
        x_edges,
        np.r_[0, total],
        where="pre",
        color=OKABE_ITO["blue"],
        linewidth=2,
        label=f"received ({int(total[-1]):,})",
    )
    line.set_gid("cumulative")
    if planned:
        target = above.axhline(
            planned,
            color=OKABE_ITO["vermillion"],
            linestyle="--",
            linewidth=1.5,
            label=f"planned for the HITs built ({planned:,})",
        )
        target.set_gid("planned")
        share = min((total[-1] if counted is None else counted) / planned, 9.99)
        above.set_title(f"{title} ({share:.0%} of planned)", loc="left")
    else:
        above.set_title(title, loc="left")
    above.set_ylabel(f"{unit.capitalize()} received")
    above.set_ylim(bottom=0)
    above.legend(loc="upper left")

    width = float(x_edges[1] - x_edges[0]) * 0.9
    bars = below.bar(
        x_edges[:-1], per_bin, width=width, align="edge", color=OKABE_ITO["sky"], linewidth=0
    )
    for i, bar in enumerate(bars):
        bar.set_gid(f"per-{bin_unit}-{i}")
    below.set_ylabel(f"{unit.capitalize()} per {bin_unit}")
    below.set_xlabel("Time (UTC)")
    below.set_ylim(bottom=0)
    below.grid(axis="x", visible=False)
    locator = _dates.AutoDateLocator()
    below.xaxis.set_major_locator(locator)
    below.xaxis.set_major_formatter(_dates.ConciseDateFormatter(locator))
    below.tick_params(axis="x", colors=GREY)
    return figure
