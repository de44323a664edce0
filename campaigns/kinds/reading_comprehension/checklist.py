"""What reading comprehension adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from django.urls import NoReverseMatch

from campaigns.checklist import DONE, Facts, KindNotes, Step, _url
from campaigns.models import Campaign


def quality(campaign: Campaign, facts: Facts) -> Step:
    lines = []
    try:
        lines.append(("Articles' stages", _url("campaigns_campaign_rc_stages", campaign.pk)))
    except NoReverseMatch:
        pass
    return Step(
        "quality",
        "Quality control",
        DONE,
        "Questions are voted on by other workers, and answers are graded against the human "
        "translation; each article moves through its stages by itself.",
        lines=lines,
    )


NOTES = KindNotes(quality)
