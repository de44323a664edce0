"""The worker pages' tests need the translations compiled (locale/README.md)."""

from __future__ import annotations

import pytest

from judgments.i18n import COMPILE_COMMAND, stale_catalogs


@pytest.fixture(scope="session", autouse=True)
def _compiled_translations() -> None:
    """Fail with what to do, rather than with pages in English, when a catalog's .mo is
    missing or older than its .po."""
    problems = stale_catalogs()
    if problems:
        pytest.fail(
            "The worker pages' translations are not compiled: " + "; ".join(problems) + ". "
            f"Run {COMPILE_COMMAND}.",
            pytrace=False,
        )
