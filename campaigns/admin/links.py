"""Campaign admin: direct worker links, Prolific, and the worker background export.

Three campaign actions, each with its management-command twin:

- "Create direct worker links" opens a page (``<id>/links/``) asking how many links to make
  and/or whom they are for; posting it creates the pseudonymous workers and downloads the
  CSV of links (``manage.py worker_links``). The page also shows the campaign's open link.
- "Prolific: study URL and approvals" opens a page (``<id>/prolific/``) with the URL to paste
  into the Prolific study, where participants are sent when they finish, and the approvals
  (CSV download, and the participant ids for Prolific's bulk approval)
  (``manage.py prolific``).
- "Export worker background (CSV)" downloads the background answers of the selected
  campaigns' workers.

The work is done by ``campaigns.links``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_GET, require_http_methods

from campaigns import links
from campaigns.admin.access import campaign_page_object
from campaigns.models import Campaign
from judgments.entry.prolific import completion_url

CSV_TYPE = "text/csv; charset=utf-8"


class WorkerLinksForm(forms.Form):
    count = forms.IntegerField(
        label="Number of links",
        required=False,
        min_value=1,
        max_value=links.MAX_LINKS,
        help_text=f"From 1 to {links.MAX_LINKS:,}. Leave it empty to make one link per label.",
        error_messages={
            "min_value": f"Make from 1 to {links.MAX_LINKS:,} links at a time.",
            "max_value": f"Make from 1 to {links.MAX_LINKS:,} links at a time.",
            "invalid": "Give a whole number of links, such as 25.",
        },
    )
    labels = forms.CharField(
        label="Whom the links are for",
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "cols": 60}),
        help_text="Optional: one line per person (a name, an e-mail address or your own "
        "code). Each line gets its own link and is stored as the worker's label; workers "
        "never see it.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            data["planned"] = links.planned_labels(
                data.get("count"), links.parse_labels(data.get("labels") or "")
            )
        except links.LinkRequestError as error:
            self.add_error(error.field, error.message)
        return data


def _attachment(response: HttpResponse | StreamingHttpResponse, filename: str) -> Any:
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class WorkerLinksAdminMixin:
    """Campaign actions and pages for direct links and Prolific; ``links_actions`` are added
    to the admin's actions and ``links_urls()`` to its URLs."""

    links_actions: tuple[str, ...] = (
        "create_worker_links",
        "prolific_study",
        "export_worker_background",
    )

    def links_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path(
                "<int:campaign_id>/links/",
                view(self.worker_links_view),
                name="campaigns_campaign_links",
            ),
            path(
                "<int:campaign_id>/prolific/",
                view(self.prolific_view),
                name="campaigns_campaign_prolific",
            ),
            path(
                "<int:campaign_id>/prolific/approvals.csv",
                view(self.prolific_approvals_csv),
                name="campaigns_campaign_prolific_approvals",
            ),
            path(
                "<int:campaign_id>/prolific/approve-ids.txt",
                view(self.prolific_ids_txt),
                name="campaigns_campaign_prolific_ids",
            ),
        ]

    # --- Actions --------------------------------------------------------------------------

    def _one_campaign(
        self, request: HttpRequest, queryset: QuerySet[Campaign], page: str
    ) -> HttpResponseRedirect | None:
        if queryset.count() != 1:
            self.message_user(
                request,
                "Select exactly one campaign for this action: it works on one campaign at a time.",
                messages.WARNING,
            )
            return None
        url = reverse(f"{self.admin_site.name}:{page}", args=[queryset.get().pk])
        return HttpResponseRedirect(url)

    @admin.action(description="Create direct worker links", permissions=["change"])
    def create_worker_links(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        return self._one_campaign(request, queryset, "campaigns_campaign_links")

    @admin.action(description="Prolific: study URL and approvals", permissions=["view"])
    def prolific_study(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        return self._one_campaign(request, queryset, "campaigns_campaign_prolific")

    @admin.action(description="Export worker background (CSV)", permissions=["view"])
    def export_worker_background(
        self, request: HttpRequest, queryset: QuerySet[Campaign]
    ) -> StreamingHttpResponse:
        campaigns = list(queryset.order_by("pk"))
        lines = links.csv_lines(links.BACKGROUND_COLUMNS, links.background_rows(campaigns))
        name = (
            f"background-campaign-{campaigns[0].pk}.csv"
            if len(campaigns) == 1
            else "background-campaigns.csv"
        )
        return _attachment(StreamingHttpResponse(lines, content_type=CSV_TYPE), name)

    # --- Pages ----------------------------------------------------------------------------

    def _campaign(self, request: HttpRequest, campaign_id: int, *, change: bool) -> Campaign:
        return campaign_page_object(self, request, campaign_id, change=change)

    def _page(
        self, request: HttpRequest, template: str, campaign: Campaign, title: str, **context: Any
    ) -> TemplateResponse:
        opts = Campaign._meta
        return TemplateResponse(
            request,
            f"admin/campaigns/campaign/{template}",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "subtitle": None,
                "opts": opts,
                "app_label": opts.app_label,
                "original": campaign,
                "campaign": campaign,
                **context,
            },
        )

    @method_decorator(require_http_methods(["GET", "POST"]))
    def worker_links_view(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        """GET: the form. POST: create the links and download them as CSV (worker_id, label,
        link); a problem re-shows the form with the message and creates nothing."""
        campaign = self._campaign(request, campaign_id, change=True)
        form = WorkerLinksForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                rows = links.create_direct_links(campaign, form.cleaned_data["planned"])
            except links.LinkRequestError as error:
                form.add_error(None, error.message)
            else:
                response = HttpResponse(content_type=CSV_TYPE)
                links.write_csv(response, links.LINK_COLUMNS, links.link_rows(rows))
                return _attachment(response, f"links-campaign-{campaign.pk}.csv")
        return self._page(
            request,
            "links_create.html",
            campaign,
            f"Create direct worker links for {campaign}",
            form=form,
            open_link=links.open_link_url(campaign),
            status_note=links.status_note(campaign),
            max_links=links.MAX_LINKS,
        )

    @method_decorator(require_GET)
    def prolific_view(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        campaign = self._campaign(request, campaign_id, change=False)
        submissions = links.prolific_approvals(campaign)
        site = self.admin_site.name
        completion = campaign.prolific_completion_code
        failed = campaign.prolific_failed_code
        return self._page(
            request,
            "prolific_study.html",
            campaign,
            f"Prolific: {campaign}",
            study_url=links.prolific_study_url(campaign),
            completion_url=completion_url(completion) if completion else "",
            failed_url=completion_url(failed) if failed else "",
            status_note=links.status_note(campaign),
            counts=links.decision_counts(submissions),
            submission_count=len(submissions),
            approve_ids="\n".join(links.participant_ids_to_approve(submissions)),
            approvals_url=reverse(
                f"{site}:campaigns_campaign_prolific_approvals", args=[campaign.pk]
            ),
            ids_url=reverse(f"{site}:campaigns_campaign_prolific_ids", args=[campaign.pk]),
            change_url=reverse(f"{site}:campaigns_campaign_change", args=[campaign.pk]),
        )

    @method_decorator(require_GET)
    def prolific_approvals_csv(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        campaign = self._campaign(request, campaign_id, change=False)
        response = HttpResponse(content_type=CSV_TYPE)
        rows = (submission.as_row() for submission in links.prolific_approvals(campaign))
        links.write_csv(response, links.PROLIFIC_COLUMNS, rows)
        return _attachment(response, f"prolific-approvals-campaign-{campaign.pk}.csv")

    @method_decorator(require_GET)
    def prolific_ids_txt(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        campaign = self._campaign(request, campaign_id, change=False)
        ids = links.participant_ids_to_approve(links.prolific_approvals(campaign))
        response = HttpResponse(
            "".join(f"{pid}\n" for pid in ids), content_type="text/plain; charset=utf-8"
        )
        return _attachment(response, f"prolific-approve-ids-campaign-{campaign.pk}.txt")
