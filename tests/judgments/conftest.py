"""The worker pages' tests need the translations compiled (locale/README.md)."""

from __future__ import annotations

import pytest

from judgments.i18n import COMPILE_COMMAND, stale_catalogs
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    SegmentFactory,
)


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


# A direct-assessment campaign of one HIT with two items, and one worker's assignment on it:
# the task pages' tests of tests/judgments/ (a module may define its own instead).
@pytest.fixture
def campaign():
    campaign = CampaignFactory(title="Rate some English", redundancy=1)
    hit = HitFactory(campaign=campaign, number=1)
    for position in (1, 2):
        segment = SegmentFactory(document__campaign=campaign, references=[f"Gray text {position}."])
        HitSlotFactory(
            hit=hit,
            position=position,
            segment=segment,
            output__segment=segment,
            shown_text=f"Black text {position}.",
        )
    return campaign


@pytest.fixture
def assignment(campaign):
    return AssignmentFactory(hit=campaign.hits.get())
