"""Score distributions per system: box plots of continuous scores (direct assessment's
segment z-scores, post-editing's segment HTER, reading comprehension's per-article share
correct) and stacked shares of each rank for ranking (ranks are few and discrete: a box of
the values 1..5 says little)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analytics.plots.render import GREY, OKABE_ITO, add_note, message_figure, new_figure
from analytics.stats._lazy import lazy_module

__all__ = ["box_figure", "rank_share_figure"]

_colormaps = lazy_module("matplotlib")
EMPTY = "No scores yet: the distributions appear after the first judgments are in."


def box_figure(
    labels: Sequence[str],
    values: Sequence[Sequence[float] | np.ndarray],
    *,
    xlabel: str,
    title: str,
    note: str = "",
    n_label: str = "n",
    lower_is_better: bool = False,
    limits: tuple[float, float] | None = None,
) -> Any:
    """One horizontal box per system, the first on top: quartiles, whiskers at 1.5 IQR,
    outliers as dots, the mean as a diamond; each label carries its count."""
    if len(labels) != len(values):
        raise ValueError("labels and values must have the same length")
    arrays = [np.asarray(v, dtype=np.float64).reshape(-1) for v in values]
    arrays = [a[np.isfinite(a)] for a in arrays]
    keep = [i for i, a in enumerate(arrays) if a.size]
    if not keep:
        return message_figure(title, EMPTY)
    names = [f"{labels[i]} ({n_label} = {arrays[i].size:,})" for i in keep]
    data = [arrays[i] for i in keep]
    figure = new_figure(8.0, 1.3 + 0.45 * len(data))
    axes = figure.subplots()
    positions = np.arange(len(data))[::-1] + 1
    parts = axes.boxplot(
        data,
        positions=positions,
        orientation="horizontal",
        widths=0.55,
        patch_artist=True,
        showmeans=True,
        meanprops={
            "marker": "D",
            "markerfacecolor": OKABE_ITO["vermillion"],
            "markeredgecolor": "white",
            "markersize": 6,
        },
        medianprops={"color": OKABE_ITO["black"], "linewidth": 1.5},
        flierprops={"marker": ".", "markersize": 3, "markeredgecolor": GREY},
        boxprops={"facecolor": OKABE_ITO["sky"], "edgecolor": OKABE_ITO["blue"]},
    )
    for i, (box, mean) in enumerate(zip(parts["boxes"], parts["means"], strict=True)):
        box.set_gid(f"box-{i}")
        mean.set_gid(f"mean-{i}")
    axes.set_yticks(positions, names)
    axes.grid(axis="y", visible=False)
    if limits is not None:
        axes.set_xlim(*limits)
    direction = "lower is better ←" if lower_is_better else "higher is better →"
    axes.set_xlabel(f"{xlabel}\n({direction}; box: quartiles, line: median, ◆: mean)")
    axes.set_title(title, loc="left")
    add_note(figure, note)
    return figure


def rank_share_figure(
    labels: Sequence[str],
    counts: Sequence[Sequence[int]] | np.ndarray,
    *,
    title: str,
    note: str = "",
) -> Any:
    """One stacked bar per system (the first on top): the share of its outputs given rank 1
    (best), 2, ... ``counts[i][r]`` is how often system i got rank r + 1."""
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != len(labels):
        raise ValueError("counts must be one row of rank counts per label")
    totals = table.sum(axis=1)
    keep = np.flatnonzero(totals > 0)
    if keep.size == 0 or table.shape[1] == 0:
        return message_figure(title, EMPTY)
    table, totals = table[keep], totals[keep]
    names = [f"{labels[i]} (n = {int(totals[k]):,})" for k, i in enumerate(keep)]
    shares = 100 * table / totals[:, None]
    n_ranks = table.shape[1]
    # cividis: a sequential map made for colour-vision deficiency; rank 1 darkest.
    colours = _colormaps.colormaps["cividis"](np.linspace(0.05, 0.95, n_ranks))
    figure = new_figure(8.0, 1.5 + 0.45 * len(names))
    axes = figure.subplots()
    y = np.arange(len(names))[::-1]
    left = np.zeros(len(names))
    for r in range(n_ranks):
        bars = axes.barh(
            y,
            shares[:, r],
            left=left,
            height=0.6,
            color=colours[r],
            edgecolor="white",
            linewidth=0.5,
            label=f"rank {r + 1}",
        )
        for i, bar in enumerate(bars):
            bar.set_gid(f"share-{i}-{r + 1}")
        left += shares[:, r]
    axes.set_yticks(y, names)
    axes.set_xlim(0, 100)
    axes.grid(axis="y", visible=False)
    axes.set_xlabel("Share of the system's ranked outputs (%)")
    axes.set_title(title, loc="left")
    axes.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.3),
        ncols=min(n_ranks, 10),
        fontsize=8,
        title="rank given (1 = best)",
        title_fontsize=8,
    )
    add_note(figure, note)
    return figure
