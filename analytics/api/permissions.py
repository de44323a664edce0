"""Who may read what through the API: the same rule as the admin (``analytics.access``).

Roles, by campaign:
- superusers: every campaign, read and import;
- the requester who owns a campaign (``Campaign.owner``) and collaborators granted access
  (``analytics.models.CampaignAccess``, level read or change): that campaign;
- Django's model permissions on top: reading needs campaigns.view_campaign (or
  change_campaign), importing into a campaign or reconciling an MTurk batch needs
  change_campaign and change access, creating a campaign add_campaign;
- staff status alone grants nothing;
- anyone else: nothing, not even that the campaign exists (404, never 403).
Workers are not users: their signed links never authenticate here.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from analytics.access import changeable_campaigns, may_create_campaigns, readable_campaigns
from campaigns.kinds import settings_accessors
from campaigns.models import Campaign

__all__ = [
    "get_visible_campaign",
    "may_create_campaigns",
    "visible_campaigns",
    "writable_campaigns",
]


def visible_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may read, as one query (no DISTINCT over joins)."""
    return readable_campaigns(user)


def writable_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may change (import into, reconcile a batch of)."""
    return changeable_campaigns(user)


def get_visible_campaign(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if ``user`` may read it; Http404 otherwise (also when it does not exist)."""
    # With its kind's settings row, which the kind's statistics and exports read.
    return get_object_or_404(
        visible_campaigns(user).select_related(*settings_accessors()), pk=campaign_id
    )
