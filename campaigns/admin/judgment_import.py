"""The admin's "Import judgments" page: upload published judgment files, see every problem, or
get a campaign of imported judgments with its statistics computed.

:class:`CampaignJudgmentImportAdminMixin` goes on ``CampaignAdmin``: its
``judgment_import_urls()`` adds the page (``admin:campaigns_campaign_import_judgments``), and
its ``changelist_view`` puts the page's address in the changelist's context as
``judgment_import_url`` for the "Import judgments" button (``judgment_import_link()`` renders
that button for any other place). The work is done by ``campaigns.importers.judgments``, the
same code as the API's ``POST /api/imports/`` and ``manage.py import_judgments``.

Permissions: creating a campaign needs ``campaigns.add_campaign``; adding to one, or
recording MTurk's decisions on the assignments of any campaign (collected ones are where our
own MTurk HITs are), ``campaigns.change_campaign``. Uploads are limited to
``MAX_UPLOAD_BYTES`` (bigger files go through the management command).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from analytics.access import changeable_by_grant, shared_campaigns
from campaigns.admin.import_jobs import import_job_urls, job_url
from campaigns.admin.segment_import import MultipleFileField
from campaigns.import_jobs.actions import create_judgment_job, runs_as_job, upload_size
from campaigns.importers.judgments import (
    MAX_UPLOAD_BYTES,
    MTURK_BATCH,
    ImportFailed,
    ImportOptions,
    ImportProblem,
    JudgmentImportSummary,
    import_judgments,
    judgment_formats,
    upload_limit_problem,
)
from campaigns.models import Campaign

URL_NAME = "campaigns_campaign_import_judgments"
TOO_LARGE = "too_large"


def format_choices() -> list[tuple[str, str]]:
    """The formats, looked up when the form is shown: the kinds register theirs when the
    campaigns app is ready, after the admin imports this module."""
    return [(name, fmt.label) for name, fmt in judgment_formats().items()]


class ImportJudgmentsForm(forms.Form):
    files = MultipleFileField(help_text="One or more files of the one format.")
    format = forms.ChoiceField(choices=format_choices, widget=forms.RadioSelect, initial="wmt-da")
    name = forms.CharField(
        max_length=200,
        required=False,
        label="New campaign",
        help_text="The name of the campaign to create (not needed for MTurk batch results, "
        "whose assignments say which campaign they are).",
    )
    campaign = forms.ModelChoiceField(
        queryset=Campaign.objects.none(),
        required=False,
        label="Or add to",
        help_text="An existing campaign of imported judgments of the same kind.",
    )
    source_language = forms.CharField(
        max_length=16,
        required=False,
        help_text="A new campaign's language codes (e.g. cs and en); default: the file's, when "
        "it gives codes (WMT direct assessment, Appraise).",
    )
    target_language = forms.CharField(max_length=16, required=False)
    standardised = forms.BooleanField(
        required=False,
        label="Scores are standardised",
        help_text="WMT direct assessment: the scores are z-scores (WMT's *-stnd files), not "
        "raw 0-100 slider positions.",
    )
    language_pair = forms.CharField(
        max_length=50,
        required=False,
        label="Language pair",
        help_text="For a file holding several language pairs (e.g. de-en): import only this "
        "pair's rows; also gives a new campaign's language codes.",
    )
    workers_counted = forms.ChoiceField(
        choices=[
            ("", "Decide from the file (everyone when it holds no bad references)"),
            ("reliable", "Reliable workers only: test each worker on the bad references"),
            ("everyone", "Every worker: the file was filtered (WMT's good files) or has no QC"),
        ],
        required=False,
        label="Workers counted",
        help_text="Direct assessment: whose judgments the system table counts. Choose every "
        "worker for judgments filtered before import, so they are not filtered again.",
    )
    reference_system = forms.CharField(
        max_length=200,
        required=False,
        label="Reference system",
        help_text="Ranking files: the system that is the human reference, left out of the "
        "scores as WMT does (default: the system named _ref or ref, if any).",
    )

    def __init__(self, *args: Any, appendable=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["campaign"].queryset = (
            appendable.exclude(imported_from="").order_by("name")
            if appendable is not None
            else Campaign.objects.none()
        )

    def clean_files(self) -> list:
        files = self.cleaned_data["files"]
        problem = upload_limit_problem(sum(file.size for file in files))
        if problem:
            raise forms.ValidationError(problem[:1].upper() + problem[1:] + ".", code=TOO_LARGE)
        return files

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        name, campaign = (data.get("name") or "").strip(), data.get("campaign")
        if name and campaign:
            self.add_error("name", "Give a new name or choose a campaign to add to, not both.")
        elif not name and not campaign and data.get("format") != MTURK_BATCH:
            self.add_error("name", "Give the new campaign a name, or choose one to add to.")
        return data

    def options(self, owner, appendable, visible, may_create: bool) -> ImportOptions:
        data = self.cleaned_data
        return ImportOptions(
            fmt=data["format"],
            name=(data.get("name") or "").strip(),
            campaign=data.get("campaign"),
            source_language=data.get("source_language", "").strip(),
            target_language=data.get("target_language", "").strip(),
            standardised=bool(data.get("standardised")),
            language_pair=(data.get("language_pair") or "").strip(),
            reference_system=(data.get("reference_system") or "").strip(),
            workers_counted=data.get("workers_counted") or "",
            owner=owner,
            appendable=appendable,
            visible=visible,
            may_create=may_create,
        )


class CampaignJudgmentImportAdminMixin:
    """The "Import judgments" page of the campaign admin (see the module docstring)."""

    def judgment_import_urls(self) -> list:
        return [
            path(
                "import-judgments/",
                self.admin_site.admin_view(self.import_judgments_view),
                name=URL_NAME,
            ),
            # The job pages of big imports, of segments and of judgments alike.
            *import_job_urls(self),
        ]

    def judgment_import_url(self) -> str:
        return reverse(f"{self.admin_site.name}:{URL_NAME}")

    def judgment_import_link(self) -> SafeString:
        return format_html(
            '<a class="addlink" href="{}">Import judgments</a>', self.judgment_import_url()
        )

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None):
        extra_context = dict(extra_context or {})
        if self._may_import(request):
            extra_context["judgment_import_url"] = self.judgment_import_url()
        return super().changelist_view(request, extra_context)

    def _may_import(self, request: HttpRequest) -> bool:
        return self.has_add_permission(request) or self.has_change_permission(request)

    def _appendable(self, request: HttpRequest):
        """The campaigns the user may change (the change permission, and owned or granted
        change access: analytics.access). Judgment files go into the imported ones only (the
        importer checks); an MTurk batch reconciles the assignments of our own HITs, which are
        in collected campaigns."""
        if self.has_change_permission(request):
            return changeable_by_grant(request.user)
        return Campaign.objects.none()

    def _visible(self, request: HttpRequest):
        """The campaigns the user sees on the campaign list (a taken name is named only
        when it is one of these)."""
        if self.has_view_permission(request):
            return shared_campaigns(request.user)
        return Campaign.objects.none()

    def import_judgments_view(self, request: HttpRequest) -> HttpResponse:
        if not self._may_import(request):
            raise PermissionDenied
        appendable = self._appendable(request)
        problems: list[ImportProblem] = []
        omitted = 0
        checked: JudgmentImportSummary | None = None
        if request.method == "POST":
            form = ImportJudgmentsForm(request.POST, request.FILES, appendable=appendable)
            if form.is_valid():
                options = form.options(
                    request.user,
                    appendable,
                    self._visible(request),
                    self.has_add_permission(request),
                )
                self._check_permission(request, options)
                dry_run = "_check" in request.POST
                files = form.cleaned_data["files"]
                if runs_as_job(upload_size(files)):
                    # Issue 11 item 6: a big upload is imported by a worker; its page shows
                    # the progress, then the result or every problem.
                    job = create_judgment_job(files, options, dry_run=dry_run)
                    return HttpResponseRedirect(job_url(self, job))
                try:
                    summary = import_judgments(form.cleaned_data["files"], options, dry_run=dry_run)
                except ImportFailed as failure:
                    problems, omitted = failure.problems, failure.omitted
                else:
                    if dry_run:
                        checked = summary
                    else:
                        return self._imported(request, summary)
        else:
            form = ImportJudgmentsForm(appendable=appendable)
        opts = Campaign._meta
        context = {
            **self.admin_site.each_context(request),
            "title": "Import judgments",
            "subtitle": None,
            "opts": opts,
            "app_label": opts.app_label,
            "form": form,
            "problems": problems,
            "problem_count": len(problems) + omitted,
            "omitted": omitted,
            "checked": checked,
            "format_help": [(fmt.label, fmt.help) for fmt in judgment_formats().values()],
            "has_view_permission": self.has_view_permission(request),
            "upload_limit_mb": MAX_UPLOAD_BYTES // (1024 * 1024),
        }
        # An upload over the limit is a bad request, as in the API (400, its message on the
        # form); other problems are shown on the page as usual.
        status = 400 if form.has_error("files", code=TOO_LARGE) else 200
        return TemplateResponse(
            request, "admin/campaigns/campaign/import_judgments.html", context, status=status
        )

    def _check_permission(self, request: HttpRequest, options: ImportOptions) -> None:
        """Creating a campaign needs the add permission; adding to one, or recording MTurk's
        decisions on assignments, the change permission."""
        if options.fmt == MTURK_BATCH or options.campaign is not None:
            allowed = self.has_change_permission(request)
        elif options.changeable().filter(name=options.name).exists():
            allowed = True  # the campaigns the user may change (the change permission)
        else:
            allowed = self.has_add_permission(request)
        if not allowed:
            raise PermissionDenied

    def _imported(self, request: HttpRequest, summary: JudgmentImportSummary) -> HttpResponse:
        url = reverse(
            f"{self.admin_site.name}:campaigns_campaign_change", args=[summary.campaign_id]
        )
        messages.success(
            request,
            format_html(
                '{} <a href="{}">Open the campaign and its results</a>.', summary.message, url
            ),
        )
        return HttpResponseRedirect(url)
