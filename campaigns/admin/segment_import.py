"""The admin's "Import segments" page: upload files, see every problem, or import them all.

campaigns/admin/campaign.py routes admin/campaigns/campaign/<id>/import/ here through
``admin_site.admin_view`` (staff only); this view checks the change permission on the campaign.
The work is done by campaigns.importers, the same code as ``manage.py import_segments``.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from campaigns.admin.access import campaign_page_object
from campaigns.admin.import_jobs import job_url
from campaigns.import_jobs.actions import create_segment_job, runs_as_job, upload_size
from campaigns.importers import (
    FORMAT_LABELS,
    ImportFailed,
    ImportProblem,
    WmtFiles,
    format_for_content,
    run_import,
    system_names,
)
from campaigns.models import Campaign

FORMAT_HELP = {
    "tsv": "One row per system output, tab-separated, with a header row: doc_id, seg_id, "
    "source, reference, system, output, and reference_<name> for further references.",
    "csv": "The same columns as TSV, comma-separated (RFC 4180 quoting), or separated by "
    "semicolons as Excel saves CSV in many languages (the header row tells which).",
    "jsonl": "One JSON object per line with the same keys as the TSV columns.",
    "wmt": "Plain text, one segment per line: a source file, one or more reference files, "
    "one file per system and optionally a document-id file. Segment ids are line numbers; "
    "system names come from the file names (the dot-separated parts all system files share "
    "are dropped).",
    "appraise": "An Appraise batches.json: TGT items become outputs; BAD, CHK and REF "
    "quality-control items are counted but not imported (evalsite builds its own); REF items "
    "give the references.",
}


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that takes several files (Django docs, "Uploading multiple files")."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        if not data:
            return [] if not self.required else [single(data, initial)]
        return [single(data, initial)]


AUTO = "auto"


class ImportSegmentsForm(forms.Form):
    format = forms.ChoiceField(
        choices=[
            (
                AUTO,
                "Detect from the file (its name, else its first line): TSV, CSV, JSON lines "
                "or Appraise",
            ),
            *FORMAT_LABELS.items(),
        ],
        widget=forms.RadioSelect,
        initial=AUTO,
    )
    file = forms.FileField(
        required=False, help_text="TSV, CSV, JSON lines or Appraise: the one file to import."
    )
    source = forms.FileField(required=False, help_text="WMT: the source file.")
    references = MultipleFileField(
        required=False,
        help_text="WMT: one or more reference files; the first by file name is the main one.",
    )
    systems = MultipleFileField(required=False, help_text="WMT: one file per system.")
    docids = forms.FileField(
        required=False, label="Document ids", help_text="WMT, optional: one document id per line."
    )

    def clean(self):
        data = super().clean()
        fmt = data.get("format")
        if fmt == "wmt":
            if not data.get("source"):
                self.add_error("source", "The WMT format needs a source file.")
            if data.get("file"):
                self.add_error("file", "For the WMT format, use the fields below.")
        elif fmt:
            # A file the field refused (an empty one) already has its message.
            if not data.get("file") and "file" not in self.errors:
                self.add_error("file", "Choose the file to import.")
            for name in ("source", "references", "systems", "docids"):
                if data.get(name):
                    self.add_error(name, "Only the WMT format takes this file.")
            if fmt == AUTO and data.get("file"):
                data["format"] = self._detected(data["file"])
        return data

    def _detected(self, upload) -> str:
        """The format of the uploaded file, from its name or first bytes (issue 17: the page did
        not tell TSV from CSV); an error on the format field when neither tells."""
        head = upload.read(4096)
        upload.seek(0)
        detected = format_for_content(upload.name, head)
        if detected is None:
            self.add_error(
                "format",
                f"Cannot tell the format of {upload.name}: its name ends in none of .tsv, .csv, "
                ".jsonl, .json and its first line has no tab, comma or semicolon. Choose the "
                "format.",
            )
            return AUTO
        return detected

    def upload_size(self) -> int:
        """Bytes of all the files chosen."""
        data = self.cleaned_data
        uploads = [data.get("file"), data.get("source"), data.get("docids")]
        uploads += [*(data.get("references") or []), *(data.get("systems") or [])]
        return upload_size(uploads)

    def import_files(self):
        data = self.cleaned_data
        if data["format"] != "wmt":
            return data["file"]
        uploads = data.get("systems") or []
        names = system_names([upload.name for upload in uploads])
        return WmtFiles(
            source=data["source"],
            # Browsers send a multiple selection in no promised order: file-name order.
            references=sorted(data.get("references") or [], key=lambda upload: upload.name),
            systems=dict(zip(names, uploads, strict=True)),
            docids=data.get("docids"),
        )


def import_segments_view(request: HttpRequest, campaign_id: int, model_admin) -> HttpResponse:
    campaign = campaign_page_object(model_admin, request, campaign_id, change=True)
    problems: list[ImportProblem] = []
    omitted = 0
    if request.method == "POST":
        form = ImportSegmentsForm(request.POST, request.FILES)
        if form.is_valid():
            if runs_as_job(form.upload_size()):
                # Issue 11 item 6: a big upload is imported by a worker; its page shows the
                # progress, then the result or every problem.
                job = create_segment_job(
                    request.user, campaign, form.cleaned_data["format"], form.import_files()
                )
                return HttpResponseRedirect(job_url(model_admin, job))
            try:
                summary = run_import(campaign, form.cleaned_data["format"], form.import_files())
            except ImportFailed as failure:
                problems, omitted = failure.problems, failure.omitted
            else:
                # Segments no HIT shows (issue 17) are a warning, not a plain success.
                (messages.warning if summary.hits_note else messages.success)(
                    request, summary.message
                )
                site = model_admin.admin_site.name
                return HttpResponseRedirect(
                    reverse(f"{site}:campaigns_campaign_change", args=[campaign.pk])
                )
    else:
        form = ImportSegmentsForm()

    opts = Campaign._meta
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Import segments into {campaign}",
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "original": campaign,
        "campaign": campaign,
        "form": form,
        "problems": problems,
        "problem_count": len(problems) + omitted,
        "omitted": omitted,
        "format_help": [(FORMAT_LABELS[key], text) for key, text in FORMAT_HELP.items()],
        "counts": {
            "documents": campaign.documents.count(),
            "segments": campaign.segments.count(),
            "systems": campaign.systems.count(),
        },
        "has_view_permission": model_admin.has_view_permission(request, campaign),
    }
    return TemplateResponse(request, "admin/campaigns/campaign/import_segments.html", context)
