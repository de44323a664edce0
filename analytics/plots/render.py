"""Figures to bytes: matplotlib set up once (Agg, no pyplot), rendered as SVG or PNG.

matplotlib is imported on the first figure, never when a module of this package is imported:
the web worker loads the URLconf, which names the dashboard views, and must not grow by
matplotlib's ~30 MiB before anyone asks for a plot (issue 16 item 4; tests/analytics/plots
checks it as tests/test_lazy_imports.py does for scipy).

No pyplot: figures are plain ``matplotlib.figure.Figure`` objects, owned by the caller and
freed with it (pyplot keeps every figure in a global registry until closed). The style is set
on matplotlib's rcParams once per process; rendering holds a lock because rcParams and the
text layout caches are process-wide and gunicorn runs threads.

SVG keeps its text as ``<text>`` elements (``svg.fonttype: none``), so a figure pasted into a
paper stays searchable and editable, and tests can read labels; matplotlib escapes the text
(a system named ``<b>&co`` is written ``&lt;b&gt;&amp;co``). ``text.parse_math`` is off: a
system name with two dollar signs is text, not TeX. Identifiers, the date and the hash salt
are fixed, so one figure gives the same bytes every time.
"""

from __future__ import annotations

import io
import logging
import textwrap
import threading
from typing import Any

from analytics.stats._lazy import lazy_module

__all__ = [
    "CONTENT_TYPES",
    "OKABE_ITO",
    "add_note",
    "FORMATS",
    "message_figure",
    "new_figure",
    "render",
]

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour
# vision deficiency; also distinct in greyscale print when paired with the markers used.
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
CYCLE = ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow", "black")
GREY = "#6E6E6E"

CONTENT_TYPES = {"svg": "image/svg+xml", "png": "image/png"}
FORMATS = tuple(CONTENT_TYPES)
PNG_DPI = 200  # print quality for papers; the admin shows the SVG

# Fonts tried in order for each character (matplotlib >= 3.6 falls back per glyph): Latin,
# Greek and Cyrillic from DejaVu (shipped with matplotlib), other scripts from the Debian
# fonts the README installs for the translation task's images, when present.
FONT_CANDIDATES = ("DejaVu Sans", "Noto Sans", "Noto Sans Devanagari", "WenQuanYi Zen Hei")

_mpl = lazy_module("matplotlib")
_figure = lazy_module("matplotlib.figure")
_lock = threading.RLock()
_configured = False


def _configure() -> None:
    global _configured
    if _configured:
        return
    _mpl.use("Agg")  # never a GUI backend, whatever MPLBACKEND says
    from cycler import cycler
    from matplotlib import font_manager

    # WenQuanYi has one weight: matplotlib logs a warning for every bold title otherwise.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    installed = {font.name for font in font_manager.fontManager.ttflist}
    families = [name for name in FONT_CANDIDATES if name in installed] or ["DejaVu Sans"]
    _mpl.rcParams.update(
        {
            "svg.fonttype": "none",
            "svg.hashsalt": "evalsite",
            "text.parse_math": False,
            "font.family": families,
            "font.size": 10,
            "axes.titlesize": 12,
            "axes.titleweight": "bold",
            "axes.labelsize": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.grid": True,
            "grid.color": "#D9D9D9",
            "grid.linewidth": 0.6,
            "axes.axisbelow": True,
            "axes.prop_cycle": cycler(color=[OKABE_ITO[name] for name in CYCLE]),
            "legend.frameon": False,
            "figure.dpi": 100,
            "savefig.bbox": "tight",
            "savefig.pad_inches": 0.15,
        }
    )
    _configured = True


def new_figure(width: float, height: float) -> Any:
    """A new figure of ``width`` x ``height`` inches (no pyplot), with the house style."""
    with _lock:
        _configure()
        return _figure.Figure(figsize=(width, height), layout="constrained")


def render(figure: Any, fmt: str) -> bytes:
    """``figure`` as SVG or PNG bytes (``fmt``: "svg" or "png")."""
    if fmt not in CONTENT_TYPES:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    out = io.BytesIO()
    with _lock:
        _configure()
        if fmt == "svg":
            figure.savefig(out, format="svg", metadata={"Date": None})
        else:
            # No timestamp or software tag in the PNG either: the same figure, the same bytes.
            figure.savefig(out, format="png", dpi=PNG_DPI, metadata={"Software": None})
    return out.getvalue()


def add_note(figure: Any, note: str) -> None:
    """``note`` under the figure, in small grey type, wrapped to the figure's width (a long
    line would widen the saved figure: ``savefig.bbox`` is "tight")."""
    if not note:
        return
    columns = max(40, int(figure.get_figwidth() * 15))
    figure.supxlabel(
        textwrap.fill(note, columns), x=0.01, ha="left", fontsize=8, color=GREY, wrap=False
    )


def message_figure(title: str, message: str, *, width: float = 7.0, height: float = 2.2) -> Any:
    """A figure that says why there is nothing to plot yet (e.g. "No judgments yet"), with
    the plot's title, so a dashboard or a downloaded file is never an error or a blank."""
    figure = new_figure(width, height)
    axes = figure.subplots()
    axes.set_axis_off()
    axes.set_title(title, loc="left")
    note = axes.text(
        0.5, 0.5, textwrap.fill(message, int(width * 12)), ha="center", va="center", color=GREY
    )
    note.set_gid("message")
    return figure
