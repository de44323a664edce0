"""What crowd translation adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from django.urls import NoReverseMatch

from campaigns.checklist import DONE, Facts, KindNotes, Step, _url
from campaigns.models import Campaign


def quality(campaign: Campaign, facts: Facts) -> Step:
    lines = []
    try:
        lines.append(
            ("Choose translations", _url("campaigns_campaign_translation_choose", campaign.pk))
        )
    except NoReverseMatch:
        pass
    return Step(
        "quality",
        "Quality control",
        DONE,
        "Other workers say whether each translation looks machine made (Detect-MT HITs, built "
        "as translations arrive); pasted MT is flagged against the imported outputs.",
        lines=lines,
    )


NOTES = KindNotes(quality)
