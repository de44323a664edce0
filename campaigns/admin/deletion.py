"""Deleting campaigns in the admin: a campaign nobody worked on goes, built HITs and all; one
that holds workers' work, or HITs published on MTurk, is kept, and the page says why and what
to do instead.

Before (session 16's requester walkthrough), the delete page of a draft whose HITs were built
told a superuser "your account doesn't have permission to delete the following types of
objects: output, segment": the guard that keeps rows built HITs show (content.py,
``FrozenInBuiltHitsMixin``) refused them, though no worker had seen them. And the page of a
campaign with judgments listed every one of them before refusing (a million rows on a WMT
campaign)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected as django_delete_selected
from django.contrib.admin.utils import unquote
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.text import format_lazy

from campaigns.admin.content import allow_deleting_built_rows
from campaigns.models import Campaign
from campaigns.platforms.models import MTurkHit
from judgments.models import Assignment, Judgment


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def deletion_refusal(campaign: Campaign) -> str | None:
    """Why ``campaign`` cannot be deleted, with what to do instead; None when it can.

    Kept: a campaign with assignments (workers' work, or judgments imported into it; deleting
    would delete the judgments, which are never deleted) or with HITs published on MTurk (the
    record of what was published there and paid; MTurkHit protects its HIT)."""
    n_assignments = Assignment.objects.filter(campaign=campaign).count()
    n_published = MTurkHit.objects.filter(hit__campaign=campaign).count()
    if not n_assignments and not n_published:
        return None
    reasons, keeps, todo = [], [], ""
    if n_assignments:
        n_judgments = Judgment.objects.filter(campaign=campaign).count()
        reasons.append(
            f"it holds {_plural(n_assignments, 'assignment')} and "
            f"{_plural(n_judgments, 'judgment')}"
        )
        keeps.append("workers' work")
    if n_published:
        reasons.append(
            f"{n_published} of its HITs {'was' if n_published == 1 else 'were'} published on MTurk"
        )
        keeps.append("the record of what was published on MTurk and paid there")
        todo = 'end its HITs there (action "Expire MTurk HITs"), then '
    return (
        f"This campaign cannot be deleted: {', and '.join(reasons)}. evalsite never deletes "
        f"{' or '.join(keeps)}. To stop the campaign, {todo}set its status to Finished: its "
        "results and exports stay available."
    )


class CampaignDeletionAdminMixin:
    """CampaignAdmin's delete page and "Delete selected" action (see the module docstring)."""

    def delete_view(self, request: HttpRequest, object_id: str, extra_context=None) -> HttpResponse:
        campaign = self.get_object(request, unquote(object_id))
        refusal = None if campaign is None else deletion_refusal(campaign)
        if refusal is None:
            # Nobody worked on it: the rows its built HITs show may go with it.
            with allow_deleting_built_rows(request):
                return super().delete_view(request, object_id, extra_context)
        if not self.has_delete_permission(request, campaign):
            return super().delete_view(request, object_id, extra_context)  # Django's 403
        change_url = reverse("admin:campaigns_campaign_change", args=[campaign.pk])
        if request.method == "POST":
            self.message_user(request, refusal, messages.ERROR)
            return HttpResponseRedirect(change_url)
        # Not Django's confirmation page: it would list every judgment before refusing.
        context = {
            **self.admin_site.each_context(request),
            "title": format_lazy("Cannot delete {}", self.model._meta.verbose_name),
            "subtitle": str(campaign),
            "opts": self.model._meta,
            "object": campaign,
            "refusal": refusal,
            "change_url": change_url,
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/campaigns/campaign/delete_refused.html", context)

    @admin.action(description="Delete selected campaigns", permissions=["delete"])
    def delete_selected(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        """Django's action, once every selected campaign may go; else one message per kept
        campaign and nothing deleted."""
        refused = [(c, r) for c in queryset if (r := deletion_refusal(c)) is not None]
        if refused:
            for campaign, refusal in refused:
                self.message_user(request, f"{campaign}: {refusal}", messages.ERROR)
            self.message_user(
                request, "Nothing was deleted: deselect the campaigns above.", messages.WARNING
            )
            return None
        with allow_deleting_built_rows(request):
            return django_delete_selected(self, request, queryset)
