"""The campaign page's form and its plain inlines: the name checked against the owner's other
campaigns, the collaborators (read, or read and change) and the systems. The kind's settings
and own inlines come from :mod:`campaigns.admin.kinds`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from analytics.access import is_grant_manager
from analytics.models import CampaignAccess
from campaigns.admin.access import UserAutocomplete
from campaigns.admin.kinds import has_hits
from campaigns.models import Campaign, System
from campaigns.names import same_owner_campaign


class CampaignForm(forms.ModelForm):
    """The campaign's add and change form. Names are unique per owner, not site-wide (issue 11
    item 8): a name the campaign's owner already uses is refused on the form, never an
    IntegrityError; other owners' campaigns never matter. ``creator`` (set per request by
    ``CampaignAdmin.get_form``) owns a new campaign whose owner is not chosen."""

    creator: Any = None

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        adding = self.instance.pk is None
        if "owner" in self.fields:
            if adding and data.get("owner") is None:
                data["owner"] = self.creator  # as save_model does; validated with it
            owner = data.get("owner")
        else:
            if adding and self.instance.owner_id is None:
                self.instance.owner = self.creator
            owner = self.instance.owner
        name = data.get("name")
        if not name or self.has_error("name"):
            return data
        clash = same_owner_campaign(name, owner, exclude_pk=self.instance.pk)
        if clash is None:
            return data
        if owner is None:
            self.add_error(
                "name",
                f"A campaign without owner ({_described(clash)}) is named this already; "
                "choose another name.",
            )
        elif self.creator is not None and owner.pk == self.creator.pk:
            self.add_error(
                "name",
                f"You already have a campaign of this name ({_described(clash)}); campaign "
                "names are unique among each owner's campaigns: choose another name.",
            )
        else:
            # Only the owner's and superusers' pages reach here (others cannot pick the
            # owner); a collaborator renaming a shared campaign is not given the other one.
            self.add_error(
                "name",
                "The campaign's owner already has a campaign of this name; campaign names are "
                "unique among each owner's campaigns: choose another name.",
            )
        return data


def _described(campaign: Campaign) -> str:
    """A campaign as its requester tells it apart (issue 17: no internal ids in messages)."""
    return f"{campaign.get_kind_display()}, created {campaign.created_at:%Y-%m-%d %H:%M}"


class CampaignAccessInline(admin.TabularInline):
    """Collaborators who may read (or read and change) the campaign, in the admin and through
    the API (the owner always may; model permissions come on top: ``analytics.access``).
    Granting and revoking is for the campaign's owner and superusers."""

    model = CampaignAccess
    extra = 0
    fields = ("user", "level", "granted_at")
    readonly_fields = ("granted_at",)
    verbose_name_plural = (
        "Collaborators (read, or read and change; the owner always has both; Django's "
        "campaign permissions still apply)"
    )

    def get_formset(self, request: HttpRequest, obj: Campaign | None = None, **kwargs: Any):
        self._campaign = obj  # for formfield_for_foreignkey, called while the form is built
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs: Any):
        # Issue 17: the user is chosen by name (an autocomplete), not typed as a numeric id.
        if db_field.name == "user":
            campaign = getattr(self, "_campaign", None)
            if campaign is not None and campaign.pk:
                kwargs["widget"] = UserAutocomplete(db_field, self.admin_site, campaign.pk)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def has_add_permission(self, request: HttpRequest, obj: Campaign | None = None) -> bool:
        return super().has_add_permission(request, obj) and is_grant_manager(request.user, obj)

    def has_change_permission(self, request: HttpRequest, obj: Campaign | None = None) -> bool:
        return super().has_change_permission(request, obj) and is_grant_manager(request.user, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Campaign | None = None) -> bool:
        return super().has_delete_permission(request, obj) and is_grant_manager(request.user, obj)


class SystemInline(admin.TabularInline):
    model = System
    extra = 0
    fields = ("name", "is_reference")
    show_change_link = True

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # ``obj`` is the campaign. A system's deletion cascades to its outputs, the HIT slots
        # showing them and the workers' judgments of those: once the campaign has HITs the
        # inline offers no "Delete?", as the system's own delete page refuses (PROTECT).
        if has_hits(obj):
            return False
        return super().has_delete_permission(request, obj)
