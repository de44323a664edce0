"""Who may read what through the API.

Roles, by campaign:
- staff users: every campaign, read and import;
- the requester who owns a campaign (``Campaign.owner``): full access to it;
- an analyst granted access (``analytics.models.CampaignAccess``): read access to it;
- anyone else: nothing, not even that the campaign exists (404, never 403).
Workers are not users: their signed links never authenticate here.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.shortcuts import get_object_or_404

from analytics.models import CampaignAccess
from campaigns.kinds import settings_accessors
from campaigns.models import Campaign


def visible_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may read, as one query (no DISTINCT over joins)."""
    if not user.is_authenticated or not user.is_active:
        return Campaign.objects.none()
    if user.is_staff:
        return Campaign.objects.all()
    granted = CampaignAccess.objects.filter(campaign=OuterRef("pk"), user=user)
    return Campaign.objects.filter(Q(owner=user) | Exists(granted))


def writable_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may change (import into): staff's all, a requester's own."""
    if not user.is_authenticated or not user.is_active:
        return Campaign.objects.none()
    if user.is_staff:
        return Campaign.objects.all()
    return Campaign.objects.filter(owner=user)


def get_visible_campaign(user: AbstractBaseUser | AnonymousUser, campaign_id: int) -> Campaign:
    """The campaign if ``user`` may read it; Http404 otherwise (also when it does not exist)."""
    # With its kind's settings row, which the kind's statistics and exports read.
    return get_object_or_404(
        visible_campaigns(user).select_related(*settings_accessors()), pk=campaign_id
    )
