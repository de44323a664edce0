"""Who sees which rows in the admin: the campaigns shared with the user (``analytics.access``,
the same rule as the REST API) and the rows linked to them.

Django's model permissions still decide what kind of page a user gets (view, change, add,
delete); this mixin adds the object level on top, for every admin that lists campaign-linked
rows:

- the changelist, its filters and its actions hold only the rows of campaigns shared with the
  user (owned, or granted read or change access; every campaign for a superuser);
- the change, history and delete pages of any other row answer 404, exactly as for a row that
  does not exist, so nobody learns that it does;
- changing or deleting a row needs change access to its campaign (owner, or a grant at level
  change): a read-only collaborator gets the read-only page; actions run on the selected rows
  of campaigns the user may change only;
- a form's choice of campaign lists the campaigns the user may change only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.admin.widgets import AutocompleteSelect
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, JsonResponse
from django.urls import reverse

from analytics.access import (
    changeable_by_grant,
    is_active_user,
    is_changeable_by_grant,
    is_grant_manager,
    is_shared,
    rows_of_shared_campaigns,
    shared_campaigns,
)
from campaigns.models import Campaign


def is_superuser(request: HttpRequest) -> bool:
    return is_active_user(request.user) and request.user.is_superuser


def campaign_page_object(
    model_admin: Any, request: HttpRequest, campaign_id: int, *, change: bool
) -> Campaign:
    """The campaign of one of the campaign admin's own pages (links, import, publishing, the
    results form): 404 when it is not shared with the user, exactly as for a campaign that
    does not exist (``analytics.access``: nobody learns that it does); 403 when it is shared
    but the user may not view it, or the page changes it and they may only read it."""
    campaign = model_admin.get_object(request, str(campaign_id))
    if campaign is None:  # get_object reads get_queryset: the campaigns shared with the user
        raise Http404("No such campaign, or it is not shared with you.")
    allowed = (
        model_admin.has_change_permission(request, campaign)
        if change
        else model_admin.has_view_permission(request, campaign)
    )
    if not allowed:
        raise PermissionDenied
    return campaign


def campaign_of(obj: Any, campaign_path: str) -> Campaign | None:
    """The campaign ``obj`` belongs to, following ``campaign_path`` ("campaign",
    "segment__campaign", ...); ``obj`` itself for an empty path."""
    for name in campaign_path.split("__") if campaign_path else []:
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


class CampaignRowsAdminMixin:
    """Restricts a ModelAdmin to the rows of the campaigns shared with the user.

    ``campaign_path``: the lookup from the model to its campaign ("" for Campaign itself).
    """

    campaign_path = "campaign"

    def restrict_rows(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        if not self.campaign_path:
            return queryset.filter(pk__in=shared_campaigns(request.user).values("pk"))
        return rows_of_shared_campaigns(queryset, request.user, self.campaign_path)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)
        if is_superuser(request):
            return queryset
        return self.restrict_rows(queryset, request)

    def changeable_rows(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        changeable = changeable_by_grant(request.user).values("pk")
        if not self.campaign_path:
            return queryset.filter(pk__in=changeable)
        return queryset.filter(**{f"{self.campaign_path}__in": changeable})

    def campaign_of(self, obj: Any) -> Campaign | None:
        return campaign_of(obj, self.campaign_path)

    def is_shared_row(self, request: HttpRequest, obj: Any) -> bool:
        return is_shared(request.user, self.campaign_of(obj))

    def is_changeable_row(self, request: HttpRequest, obj: Any) -> bool:
        return is_changeable_by_grant(request.user, self.campaign_of(obj))

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_view_permission(request, obj)
        if not allowed or obj is None or is_superuser(request):
            return allowed
        return self.is_shared_row(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_change_permission(request, obj)
        if not allowed or obj is None or is_superuser(request):
            return allowed
        return self.is_changeable_row(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        allowed = super().has_delete_permission(request, obj)
        if not allowed or obj is None or is_superuser(request):
            return allowed
        return self.is_changeable_row(request, obj)

    def _visible_or_404(self, request: HttpRequest, object_id: str) -> None:
        # get_object reads get_queryset: a row of a campaign not shared is "not found".
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404("No such row, or it is not shared with you.")

    def change_view(self, request: HttpRequest, object_id: str, *args: Any, **kwargs: Any):
        if not is_superuser(request):
            self._visible_or_404(request, object_id)
        return super().change_view(request, object_id, *args, **kwargs)

    def delete_view(self, request: HttpRequest, object_id: str, *args: Any, **kwargs: Any):
        if not is_superuser(request):
            self._visible_or_404(request, object_id)
        return super().delete_view(request, object_id, *args, **kwargs)

    def history_view(self, request: HttpRequest, object_id: str, *args: Any, **kwargs: Any):
        if not is_superuser(request):
            self._visible_or_404(request, object_id)
        return super().history_view(request, object_id, *args, **kwargs)

    def response_action(self, request: HttpRequest, queryset: QuerySet):
        """Actions act on the selected rows of campaigns the user may change only."""
        if not is_superuser(request):
            queryset = self.changeable_rows(queryset, request)
            selected = request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME)
            if selected and not queryset.filter(pk__in=selected).exists():
                self.message_user(
                    request,
                    "None of the selected rows belongs to a campaign you may change; nothing "
                    "was done.",
                    messages.WARNING,
                )
        return super().response_action(request, queryset)

    def get_list_filter(self, request: HttpRequest):
        """Related filters list only the values of the rows shown (a plain related filter
        would list every campaign's name)."""
        filters = super().get_list_filter(request)
        if is_superuser(request):
            return filters
        return [_related_only(self.model, item) for item in filters]

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs: Any):
        if db_field.related_model is Campaign and not is_superuser(request):
            kwargs["queryset"] = changeable_by_grant(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _related_only(model: type[models.Model], item: Any) -> Any:
    """A list_filter item: a plain relation name becomes a RelatedOnlyFieldListFilter."""
    if not isinstance(item, str):
        return item
    field = None
    current = model
    for name in item.split("__"):
        try:
            field = current._meta.get_field(name)
        except Exception:
            return item
        if not field.is_relation:
            return item
        current = field.related_model
    return (item, admin.RelatedOnlyFieldListFilter) if field is not None else item


# --- Choosing a collaborator by name (issue 17: granting access needed a numeric user id) ------

# Users listed per page of the autocomplete.
AUTOCOMPLETE_PAGE = 20


class UserAutocomplete(AutocompleteSelect):
    """Django admin's autocomplete widget (select2, served from the admin's own static files),
    asking the campaign's own user search (:func:`user_autocomplete`) instead of the admin's
    generic one, which needs the permission to view users: an owner granting access to their
    campaign has no business with the user admin."""

    def __init__(self, field: Any, admin_site: Any, campaign_id: int, **kwargs: Any) -> None:
        super().__init__(field, admin_site, **kwargs)
        self.campaign_id = campaign_id

    def get_url(self) -> str:
        return reverse(
            f"{self.admin_site.name}:campaigns_campaign_access_users", args=[self.campaign_id]
        )


def user_autocomplete(request: HttpRequest, campaign: Campaign) -> JsonResponse:
    """Active users whose user name starts with ``term`` (case-insensitive), for the campaign's
    grant managers (its owner, superusers) only, as the admin's autocomplete answers:
    ``{"results": [{"id", "text"}], "pagination": {"more"}}``. Only user names are listed
    (no e-mail addresses), the campaign's owner left out (they always have access)."""
    if not is_grant_manager(request.user, campaign):
        raise PermissionDenied
    term = request.GET.get("term", "").strip()
    try:
        page = max(1, int(request.GET.get("page", "1")))
    except ValueError:
        page = 1
    User = get_user_model()
    field = User.USERNAME_FIELD
    users = (
        User.objects.filter(is_active=True, **{f"{field}__istartswith": term})
        .exclude(pk=campaign.owner_id)
        .order_by(field)
        .values_list("pk", field)
    )
    start = (page - 1) * AUTOCOMPLETE_PAGE
    rows = list(users[start : start + AUTOCOMPLETE_PAGE + 1])
    return JsonResponse(
        {
            "results": [{"id": str(pk), "text": name} for pk, name in rows[:AUTOCOMPLETE_PAGE]],
            "pagination": {"more": len(rows) > AUTOCOMPLETE_PAGE},
        }
    )
