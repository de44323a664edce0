"""Who may read and change which campaign: one rule for the admin and the REST API.

A campaign is shared with (object level):
- superusers: every campaign;
- its owner (``Campaign.owner``): read and change;
- the users granted access (``analytics.models.CampaignAccess``): read, or read and change
  (``level``).

Django's model permissions come on top, as in the admin: reading needs
campaigns.view_campaign (or change_campaign), changing (importing into it, reconciling an MTurk
batch, editing it) campaigns.change_campaign, creating a campaign campaigns.add_campaign.
Staff status alone grants nothing: it only lets a user log in to the admin, which shows them
what the rule above allows. Anyone else gets 404 for a campaign, as if it did not exist.

``shared_campaigns``/``changeable_by_grant`` are the object-level half (the admin checks the
model permissions itself); ``readable_campaigns``/``changeable_campaigns`` are both halves,
for the API. Campaign-linked rows (HITs, judgments, stored statistics...) are visible exactly
when their campaign is: ``rows_of_shared_campaigns``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from analytics.models import AccessLevel, CampaignAccess
from campaigns.models import Campaign

VIEW = "campaigns.view_campaign"
CHANGE = "campaigns.change_campaign"
ADD = "campaigns.add_campaign"


def is_active_user(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def _granted(user: Any, *, change: bool) -> Exists:
    grants = CampaignAccess.objects.filter(campaign=OuterRef("pk"), user=user)
    if change:
        grants = grants.filter(level=AccessLevel.CHANGE)
    return Exists(grants)


def shared_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns shared with ``user`` (owned, granted at any level; every one for a
    superuser), whatever their model permissions. One query, no DISTINCT over joins."""
    if not is_active_user(user):
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.all()
    return Campaign.objects.filter(Q(owner=user) | _granted(user, change=False))


def changeable_by_grant(user: Any) -> QuerySet[Campaign]:
    """The campaigns ``user`` owns or was granted change access to (every one for a
    superuser), whatever their model permissions."""
    if not is_active_user(user):
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.all()
    return Campaign.objects.filter(Q(owner=user) | _granted(user, change=True))


def may_read_campaigns(user: Any) -> bool:
    """The model half of reading: campaigns.view_campaign or change_campaign."""
    return is_active_user(user) and (user.has_perm(VIEW) or user.has_perm(CHANGE))


def may_change_campaigns(user: Any) -> bool:
    return is_active_user(user) and user.has_perm(CHANGE)


def may_create_campaigns(user: Any) -> bool:
    return is_active_user(user) and user.has_perm(ADD)


def readable_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns ``user`` may read: shared with them, and the view (or change) permission."""
    if not may_read_campaigns(user):
        return Campaign.objects.none()
    return shared_campaigns(user)


def changeable_campaigns(user: Any) -> QuerySet[Campaign]:
    """The campaigns ``user`` may change: owned or granted change access, and the change
    permission."""
    if not may_change_campaigns(user):
        return Campaign.objects.none()
    return changeable_by_grant(user)


def is_shared(user: Any, campaign: Campaign | None) -> bool:
    if campaign is None or not is_active_user(user):
        return False
    if user.is_superuser or campaign.owner_id == user.pk:
        return True
    return CampaignAccess.objects.filter(campaign=campaign, user=user).exists()


def is_changeable_by_grant(user: Any, campaign: Campaign | None) -> bool:
    if campaign is None or not is_active_user(user):
        return False
    if user.is_superuser or campaign.owner_id == user.pk:
        return True
    return CampaignAccess.objects.filter(
        campaign=campaign, user=user, level=AccessLevel.CHANGE
    ).exists()


def is_grant_manager(user: Any, campaign: Campaign | None) -> bool:
    """Who may grant and revoke access to ``campaign``: its owner and superusers."""
    if not is_active_user(user):
        return False
    return user.is_superuser or (campaign is not None and campaign.owner_id == user.pk)


def rows_of_shared_campaigns(queryset: QuerySet, user: Any, campaign_path: str) -> QuerySet:
    """``queryset`` (rows linked to a campaign through ``campaign_path``, e.g. "campaign" or
    "segment__campaign") narrowed to the campaigns shared with ``user``."""
    if is_active_user(user) and user.is_superuser:
        return queryset
    return queryset.filter(**{f"{campaign_path}__in": shared_campaigns(user).values("pk")})
