"""What post-editing adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from campaigns.checklist import DONE, Facts, KindNotes, Step
from campaigns.models import Campaign


def quality(campaign: Campaign, facts: Facts) -> Step:
    return Step(
        "quality",
        "Quality control",
        DONE,
        "Other workers verify each edit (same meaning? acceptable language?): the verification "
        "HITs are built by themselves as edits arrive.",
    )


NOTES = KindNotes(quality)
