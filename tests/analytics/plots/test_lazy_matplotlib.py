"""matplotlib stays off the web worker's start-up path, and the drawing code has no Django
(issue 17 item 2; the same probe as tests/test_lazy_imports.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.test_lazy_imports import ROOT, _imported_by_the_web_app

PURE = """
import json, sys
import analytics.plots, analytics.dashboards.intervals, analytics.dashboards.voters
imported = sorted(m for m in ("django", "matplotlib") if m in sys.modules)
analytics.plots.render(analytics.plots.message_figure("t", "m"), "svg")
print(json.dumps([imported, "matplotlib" in sys.modules]))
"""


def test_web_app_does_not_import_matplotlib() -> None:
    assert _imported_by_the_web_app(("matplotlib",)) == []


def test_plot_functions_import_no_django_and_matplotlib_on_the_first_figure() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PURE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    before, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert before == []
    assert after is True
