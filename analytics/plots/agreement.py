"""Agreement as more workers vote (000 Figure 1): the agreement of the Schulze-combined
ranking of k workers' ballots with a reference, for k = 1, 2, ..., one line per way of
weighting the votes, with chance (one label in three) and, when known, the level to reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from analytics.plots.render import CYCLE, GREY, OKABE_ITO, add_note, message_figure, new_figure

__all__ = ["voters_figure"]

TITLE = "Agreement against number of voters"
MARKERS = ("o", "s", "D", "^")


def voters_figure(
    voters: Sequence[int],
    curves: Mapping[str, Sequence[float | None]],
    *,
    against: str,
    chance: float = 1 / 3,
    target: float | None = None,
    target_label: str = "",
    note: str = "",
    empty_message: str = "No ranking set has been ranked by two workers yet.",
    campaign: str = "",
) -> Any:
    """``curves``: name -> agreement (0..1) at each number of ``voters``; ``against`` names
    what the combined rankings are compared with (the y axis says it). ``target``: a level
    drawn as a line (000: the experts' agreement with each other)."""
    title = f"{TITLE}: {campaign}" if campaign else TITLE
    ks = np.asarray(voters, dtype=np.int64).reshape(-1)
    if ks.size == 0 or not curves:
        return message_figure(title, empty_message)
    figure = new_figure(7.0, 4.6)
    axes = figure.subplots()
    for index, (name, values) in enumerate(curves.items()):
        share = np.array([np.nan if v is None else 100 * float(v) for v in values])
        if share.shape != ks.shape:
            raise ValueError(f"curve {name!r} has {share.size} values for {ks.size} voter counts")
        (line,) = axes.plot(
            ks,
            share,
            marker=MARKERS[index % len(MARKERS)],
            # Later curves smaller: where two coincide (one voter: weights change nothing)
            # both stay visible.
            markersize=max(9 - 2.5 * index, 4),
            color=OKABE_ITO[CYCLE[index % len(CYCLE)]],
            linewidth=2,
            label=name,
        )
        line.set_gid(f"curve-{index}")
    chance_line = axes.axhline(100 * chance, color=GREY, linestyle=":", linewidth=1)
    chance_line.set_gid("chance")
    axes.annotate(
        f"chance ({100 * chance:.0f}%)",
        (1.0, 100 * chance),
        xycoords=("axes fraction", "data"),
        xytext=(-4, 4),
        textcoords="offset points",
        ha="right",
        fontsize=8,
        color=GREY,
    )
    if target is not None:
        level = axes.axhline(100 * target, color=OKABE_ITO["black"], linestyle="--", linewidth=1)
        level.set_gid("target")
        axes.annotate(
            target_label or f"{100 * target:.0f}%",
            (0.0, 100 * target),
            xycoords=("axes fraction", "data"),
            xytext=(4, 4),
            textcoords="offset points",
            fontsize=8,
        )
    axes.set_xticks(ks)
    axes.set_xlim(ks.min() - 0.3, ks.max() + 0.3)
    axes.set_ylim(0, 100)
    axes.set_xlabel("Number of workers voting (ballots combined per ranking set)")
    axes.set_ylabel(f"Agreement with {against} (% of pairwise labels)")
    axes.set_title(title, loc="left")
    axes.legend(loc="lower right", fontsize=8)
    add_note(figure, note)
    return figure
