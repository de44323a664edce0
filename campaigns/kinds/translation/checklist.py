"""What crowd translation adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from django.urls import NoReverseMatch

from campaigns.checklist import DONE, Facts, KindNotes, Step, _url
from campaigns.kinds.translation.models import SelectionMethod, ranking_campaign_of
from campaigns.models import Campaign


def quality(campaign: Campaign, facts: Facts) -> Step:
    lines = []
    try:
        lines.append(
            ("Choose translations", _url("campaigns_campaign_translation_choose", campaign.pk))
        )
    except NoReverseMatch:
        pass
    settings = getattr(campaign, "translation_settings", None)
    if settings is not None and settings.selection_method == SelectionMethod.BEST_RANKED:
        ranking = ranking_campaign_of(campaign) if campaign.pk else None
        if ranking is not None:
            lines.append(
                (
                    f"Ranking campaign over the translations: {ranking.name}",
                    _url("campaigns_campaign_change", ranking.pk),
                )
            )
        else:
            lines.append(
                (
                    "Kept by ranking: once translations are in, make the ranking campaign on "
                    "the Choose translations page (until its rankings arrive, the most similar "
                    "translation is kept provisionally and nothing is sent for correction)",
                    "",
                )
            )
    return Step(
        "quality",
        "Quality control",
        DONE,
        "Other workers say whether each translation looks machine made (Detect-MT HITs, built "
        "as translations arrive); pasted MT is flagged against the imported outputs.",
        lines=lines,
    )


NOTES = KindNotes(quality)
