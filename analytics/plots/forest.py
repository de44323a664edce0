"""System scores with their intervals: a forest plot, one row per system, best first.

Every kind fills the same shapes (``analytics.dashboards.kinds``): direct assessment's Ave z
with a bootstrap interval over segments, ranking's chosen score with its bootstrap interval,
post-editing's HTER (lower is better), reading comprehension's share correct, translation's
BLEU and chrF per test set (two panels, a series per test set, no interval). Rows show the
rank range and the number of judgments behind the score; WMT's significance clusters are
separated by dashed lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analytics.plots.render import CYCLE, GREY, OKABE_ITO, add_note, message_figure, new_figure

__all__ = ["ForestPanel", "ForestRow", "ForestSeries", "forest_figure"]

MARKERS = ("o", "s", "D", "^", "v")


@dataclass(frozen=True)
class ForestRow:
    """One system: its name, rank range ("1–2"), the count behind its score (``n``, named
    by ``n_label``) and its significance cluster (None: not clustered)."""

    label: str
    rank: str = ""
    n: int | None = None
    cluster: int | None = None


@dataclass(frozen=True)
class ForestSeries:
    """One estimate per row (None: the system has none), with optional interval bounds."""

    name: str
    estimate: Sequence[float | None]
    low: Sequence[float | None] = ()
    high: Sequence[float | None] = ()


@dataclass(frozen=True)
class ForestPanel:
    xlabel: str
    series: Sequence[ForestSeries]
    lower_is_better: bool = False
    zero_line: float | None = None  # e.g. 0 for z-scores: the average judgment
    limits: tuple[float, float] | None = None  # fixed axis range, e.g. (0, 1) for shares


@dataclass(frozen=True)
class _Clean:
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    name: str = ""
    extra: dict = field(default_factory=dict)


def _floats(values: Sequence[float | None], n: int) -> np.ndarray:
    if len(values) == 0:
        return np.full(n, np.nan)
    if len(values) != n:
        raise ValueError(f"a series has {len(values)} values for {n} rows")
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def forest_figure(
    rows: Sequence[ForestRow],
    panels: Sequence[ForestPanel],
    *,
    title: str,
    note: str = "",
    n_label: str = "n",
    empty_message: str = "No system scores yet: they appear after the first judgments are in.",
) -> Any:
    """The forest plot: ``rows`` top to bottom (best first), one axis per panel sharing the
    rows. ``note`` goes under the plot (what the interval is, which workers count)."""
    if not rows or not panels:
        return message_figure(title, empty_message)
    n_rows = len(rows)
    figure = new_figure(3.4 + 3.2 * len(panels), 1.4 + 0.42 * n_rows)
    axes_list = figure.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    y = np.arange(n_rows)[::-1]  # the first row on top
    legend = None  # the series' markers, one legend for all panels (above them)
    for p, (axes, panel) in enumerate(zip(axes_list, panels, strict=True)):
        several = len(panel.series) > 1
        offsets = (
            np.linspace(-0.18, 0.18, len(panel.series)) if several else np.zeros(1, dtype=float)
        )
        for s, series in enumerate(panel.series):
            estimate = _floats(series.estimate, n_rows)
            low = _floats(series.low, n_rows)
            high = _floats(series.high, n_rows)
            colour = OKABE_ITO[CYCLE[s % len(CYCLE)]]
            marker = MARKERS[s % len(MARKERS)]
            for r in range(n_rows):
                if np.isnan(estimate[r]):
                    continue
                row_y = y[r] + offsets[s]
                if not (np.isnan(low[r]) or np.isnan(high[r])):
                    (interval,) = axes.plot(
                        [low[r], high[r]], [row_y, row_y], color=colour, linewidth=2.2
                    )
                    interval.set_gid(f"interval-{p}-{s}-{r}")
                (point,) = axes.plot(
                    [estimate[r]],
                    [row_y],
                    marker=marker,
                    markersize=7,
                    color=colour,
                    markeredgecolor="white",
                    linestyle="none",
                    label=series.name if r == int(np.flatnonzero(~np.isnan(estimate))[0]) else None,
                )
                point.set_gid(f"point-{p}-{s}-{r}")
            for r in np.flatnonzero(np.isnan(estimate)):
                if s == 0:
                    axes.annotate(
                        "no score",
                        (0.02, y[r]),
                        xycoords=("axes fraction", "data"),
                        va="center",
                        color=GREY,
                        fontstyle="italic",
                    )
        if panel.zero_line is not None:
            axes.axvline(panel.zero_line, color=GREY, linewidth=0.8, linestyle=":")
        if panel.limits is not None:
            axes.set_xlim(*panel.limits)
        direction = "lower is better ←" if panel.lower_is_better else "higher is better →"
        axes.set_xlabel(f"{panel.xlabel}\n({direction})")
        axes.grid(axis="y", visible=False)
        _cluster_lines(axes, rows, y)
        if several and legend is None:
            legend = axes.get_legend_handles_labels()
    first = axes_list[0]
    first.set_yticks(y, [row.label for row in rows])
    first.set_ylim(-0.7, n_rows - 0.3)
    last = axes_list[-1]
    for r, row in enumerate(rows):
        parts = []
        if row.rank:
            parts.append(f"rank {row.rank}")
        if row.n is not None:
            parts.append(f"{n_label} = {row.n:,}")
        if parts:
            label = last.annotate(
                ", ".join(parts),
                (1.03, y[r]),
                xycoords=("axes fraction", "data"),
                va="center",
                fontsize=8,
                color=GREY,
                annotation_clip=False,
            )
            label.set_gid(f"row-note-{r}")
    figure.suptitle(title, x=0.01, ha="left", fontweight="bold", fontsize=12)
    if legend is not None:
        handles, labels = legend
        figure.legend(
            handles, labels, loc="outside upper center", ncols=min(len(labels), 3), fontsize=8
        )
    add_note(figure, note)
    return figure


def _cluster_lines(axes: Any, rows: Sequence[ForestRow], y: np.ndarray) -> None:
    """A dashed line between consecutive rows of different significance clusters."""
    for r in range(1, len(rows)):
        before, after = rows[r - 1].cluster, rows[r].cluster
        if before is not None and after is not None and before != after:
            line = axes.axhline((y[r - 1] + y[r]) / 2, color=GREY, linewidth=0.8, linestyle="--")
            line.set_gid(f"cluster-break-{r}")
