"""Worker-facing pages. Nothing here may reveal a slot's role, a system name or a gold answer."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from campaigns.models import Campaign, CampaignStatus


def campaign_entry(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Where a worker arrives for a campaign: its title, instructions and whether it is open."""
    campaign = get_object_or_404(
        Campaign.objects.exclude(status=CampaignStatus.DRAFT), pk=campaign_id
    )
    return render(
        request,
        "judgments/entry.html",
        {
            "campaign": campaign,
            "title": campaign.title or campaign.get_kind_display(),
            "hit_count": campaign.hits.count(),
        },
    )
