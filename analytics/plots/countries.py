"""Workers per country (002 section 4's reports): one bar per country, most workers first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from analytics.plots.render import GREY, OKABE_ITO, message_figure, new_figure

__all__ = ["MAX_COUNTRIES", "countries_figure"]

TITLE = "Workers per country"
MAX_COUNTRIES = 20  # the rest share one bar


def countries_figure(
    names: Sequence[str],
    counts: Sequence[int],
    *,
    unknown: int = 0,
    campaign: str = "",
) -> Any:
    """Bars of workers per country (``names`` and ``counts`` in any order), the
    :data:`MAX_COUNTRIES` largest by name, then one bar for the other countries and one for
    workers whose country is not known (``unknown``)."""
    title = f"{TITLE}: {campaign}" if campaign else TITLE
    if len(names) != len(counts):
        raise ValueError("names and counts must have the same length")
    values = np.asarray(counts, dtype=np.int64).reshape(-1)
    order = sorted(range(len(names)), key=lambda i: (-values[i], names[i]))
    rows = [(names[i], int(values[i])) for i in order[:MAX_COUNTRIES] if values[i] > 0]
    rest = order[MAX_COUNTRIES:]
    if rest:
        rows.append((f"{len(rest)} other countries", int(values[rest].sum())))
    if unknown:
        rows.append(("Country not known", int(unknown)))
    total = sum(n for _, n in rows)
    if total == 0:
        return message_figure(title, "No judgments yet: no worker to count.")
    figure = new_figure(7.5, 1.4 + 0.36 * len(rows))
    axes = figure.subplots()
    y = np.arange(len(rows))[::-1]
    colours = [
        OKABE_ITO["blue"] if i < len(rows) - bool(unknown) else GREY for i in range(len(rows))
    ]
    bars = axes.barh(y, [n for _, n in rows], height=0.65, color=colours)
    for i, bar in enumerate(bars):
        bar.set_gid(f"country-{i}")
    axes.bar_label(bars, labels=[f"{n:,}" for _, n in rows], padding=3, fontsize=8)
    axes.set_yticks(y, [name for name, _ in rows])
    axes.grid(axis="y", visible=False)
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel("Workers with at least one judgment")
    axes.set_title(f"{title} ({total:,} workers)", loc="left")
    return figure
