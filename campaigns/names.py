"""Campaign names: unique among one owner's campaigns (and among the campaigns without owner,
which commands and the demo create), not site-wide (issue 11 item 8: a site-wide name told
anyone creating a campaign that a campaign they cannot see had it). Two requesters may each
have a "WMT21", so a name alone may mean several campaigns: lookups by name say so, listing
the campaigns' ids and owners, and ask for the id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from campaigns.models import Campaign

# How many campaigns an ambiguity message lists at most.
LISTED = 10


class AmbiguousCampaignName(Campaign.MultipleObjectsReturned):
    """Several campaigns have the name given; the message lists them and asks for the id."""


def owner_label(campaign: Campaign) -> str:
    owner = campaign.owner
    return f"owner {owner.get_username()}" if owner is not None else "no owner"


def describe(campaigns: Iterable[Campaign]) -> str:
    """'id 3 (owner alice), id 7 (no owner)'."""
    return ", ".join(f"id {campaign.pk} ({owner_label(campaign)})" for campaign in campaigns)


def named(name: str, among: QuerySet[Campaign] | None = None) -> list[Campaign]:
    """The campaigns named ``name`` among ``among`` (None: every campaign), by id, at most
    ``LISTED`` + 1 of them (enough to tell one from several and to list them)."""
    queryset = Campaign.objects.all() if among is None else among
    return list(queryset.filter(name=name).select_related("owner").order_by("pk")[: LISTED + 1])


def ambiguity(name: str, campaigns: list[Campaign], *, whose: str = "") -> str:
    """Why ``name`` does not say which campaign: the campaigns, and to give the id instead."""
    listed = describe(campaigns[:LISTED]) + (", ..." if len(campaigns) > LISTED else "")
    return f'several campaigns{whose} are named "{name}" ({listed}); give the id instead'


def same_owner_campaign(name: str, owner: Any, *, exclude_pk: int | None = None) -> Campaign | None:
    """The campaign of ``owner`` (None: without owner) named ``name``, other than
    ``exclude_pk``: the one a new or renamed campaign of that owner may not share its name
    with (the unique constraints of ``Campaign``)."""
    queryset = Campaign.objects.filter(name=name)
    queryset = (
        queryset.filter(owner__isnull=True)
        if owner is None
        else queryset.filter(owner_id=getattr(owner, "pk", owner))
    )
    if exclude_pk is not None:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.order_by("pk").first()


def campaign_by_name_or_id(value: str, among: QuerySet[Campaign] | None = None) -> Campaign:
    """The campaign named ``value``, else numbered ``value``, among ``among`` (None: every
    campaign). Campaign.DoesNotExist if none; AmbiguousCampaignName (a
    Campaign.MultipleObjectsReturned) if several have the name, listing their ids and owners
    and saying to give the id."""
    found = named(value, among)
    if len(found) > 1:
        message = ambiguity(value, found)
        raise AmbiguousCampaignName(f"{message[:1].upper()}{message[1:]}.")
    if found:
        return found[0]
    if value.strip().isdigit():
        queryset = Campaign.objects.all() if among is None else among
        campaign = queryset.filter(pk=int(value)).first()
        if campaign is not None:
            return campaign
    raise Campaign.DoesNotExist(f'No campaign named or numbered "{value}".')
