"""``POST /api/imports/``: import published judgment files (the API twin of the admin's "Import
judgments" page and ``manage.py import_judgments``; ``campaigns.importers.judgments`` does
the work).

A multipart request with one or more ``file`` parts and the options. Who may do what:

- creating a campaign of imported judgments (a ``name`` none of the user's campaigns has)
  needs the ``campaigns.add_campaign`` permission (staff status alone is not enough); anyone
  else gets 403, with the same words whether a campaign of that name exists or not;
- adding to an existing imported campaign, or reconciling an MTurk batch, needs the right to
  change that campaign (its owner or a collaborator with change access, and the
  ``campaigns.change_campaign`` permission: ``analytics.access.changeable_campaigns``).
  A ``name`` is looked up among those campaigns only (the user's own first; names are unique
  per owner, not site-wide: issue 11 item 8): one the user cannot see is simply free for them
  (the dry run and the import answer exactly as for a name nobody uses, and the new campaign
  is theirs), a name several of them share is refused listing their ids, and one the user
  can read but not change is answered as taken.

Uploads hold at most ``MAX_UPLOAD_BYTES`` (400 naming the limit; the request's
Content-Length is checked before the body is read); bigger files go through the command.

Answers: 201 with the campaign and the counts once imported (200 for ``dry_run``, nothing
written); 400 with every problem (file, line, field, message) and nothing written; 403 when
the import would create a campaign the user may not create.

Issue 11 item 6: an upload bigger than ``IMPORT_INLINE_MAX_BYTES`` is checked and written by a
Celery worker instead (``campaigns.import_jobs``): 202 Accepted with the job and its address
(also in ``Location``), after the same permission checks. ``GET /api/imports/<id>/`` answers
the job's status and progress, then its result or every problem; only its owner and
superusers see a job (anyone else: 404).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import path, reverse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.api.permissions import (
    may_create_campaigns,
    visible_campaigns,
    writable_campaigns,
)
from campaigns.import_jobs.actions import (
    create_judgment_job,
    fail_if_stale,
    runs_as_job,
    upload_size,
)
from campaigns.importers.judgments import (
    FORMAT_LABELS,
    FORMATS,
    MTURK_BATCH,
    ImportFailed,
    ImportOptions,
    ImportProblem,
    cannot_create_message,
    import_judgments,
    upload_limit_problem,
)
from campaigns.models import ImportJob

__all__ = ["ImportJobView", "JudgmentImportView", "urlpatterns"]


DESCRIPTION = (
    "Import published judgment files (WMT direct assessment, Appraise score exports, WMT08 "
    "and WMT10-12 relative rankings) into a campaign of imported judgments, whose statistics "
    "are then computed as for a collected campaign; or reconcile an MTurk batch result file "
    "with our own assignments. Send the file(s) as multipart parts named `file`, at most 512 "
    "MB in all (bigger files: `manage.py import_judgments` on the server). Creating a campaign "
    "(a `name` none of your campaigns has) needs the campaigns.add_campaign permission (403 "
    "otherwise; staff status alone is not enough), and you then own it. Adding to an existing "
    "imported campaign, or reconciling a batch, needs the right to change that campaign (its "
    "owner or a collaborator with change access, and campaigns.change_campaign). "
    "Everything is checked before anything is written: 400 lists every problem with its "
    "file, line and field, and nothing is written. 201 once "
    "imported; 200 for a dry run. The formats are described in docs/judgment-formats.md. "
    "Files bigger than a few MB in all (the server's IMPORT_INLINE_MAX_BYTES) are imported by a "
    "background worker: 202 with the import job (its address also in Location), after the "
    "same permission checks; follow it with GET /api/imports/{id}/."
)
# A multipart body is its files plus the boundaries, part headers and the other fields: a
# Content-Length over the limit by more than this is refused before the body is read.
MULTIPART_ALLOWANCE = 1024 * 1024


class JudgmentImportSerializer(serializers.Serializer):
    file = serializers.ListField(
        child=serializers.FileField(),
        min_length=1,
        help_text="The file(s) to import, all of the one format (repeat the part for more).",
    )
    format = serializers.ChoiceField(
        choices=[(key, FORMAT_LABELS[key]) for key in FORMATS],
        help_text="wmt-da, appraise, wmt08-rr, wmt10-rr, post-edits or mturk-batch "
        "(docs/judgment-formats.md).",
    )
    name = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="The campaign: a new name (creating needs the campaigns.add_campaign "
        "permission), or an imported campaign you may change, of the "
        "same kind, to add to. Not needed for mturk-batch.",
    )
    campaign = serializers.IntegerField(
        required=False,
        default=None,
        allow_null=True,
        min_value=1,
        max_value=2**63 - 1,  # a campaign id is a 64-bit integer
        help_text="Instead of name: the id of an imported campaign you may change, to add to "
        "(for a name that several campaigns you may change share).",
    )
    source_language = serializers.CharField(
        max_length=16,
        required=False,
        default="",
        allow_blank=True,
        help_text="A new campaign's source language code; default: the file's, when it gives "
        "codes (wmt-da, appraise).",
    )
    target_language = serializers.CharField(
        max_length=16, required=False, default="", allow_blank=True
    )
    standardised = serializers.BooleanField(
        required=False,
        default=False,
        help_text="wmt-da: the scores are z-scores (WMT's *-stnd files), not raw 0-100 scores.",
    )
    language_pair = serializers.CharField(
        max_length=50,
        required=False,
        default="",
        allow_blank=True,
        help_text="For a file holding several language pairs (e.g. de-en): import only this "
        "pair's rows; also gives a new campaign's language codes.",
    )
    reference_system = serializers.CharField(
        max_length=200,
        required=False,
        default="",
        allow_blank=True,
        help_text="Ranking files: the system that is the human reference, left out of the "
        "scores as WMT does (default: the system named _ref or ref, if any).",
    )
    workers_counted = serializers.ChoiceField(
        choices=["reliable", "everyone"],
        required=False,
        default="",
        allow_blank=True,
        help_text="Direct assessment: whose judgments the system table counts: reliable "
        "(test each worker on the bad references) or everyone (the file was filtered before, "
        "as WMT's good files, or holds no quality control). Empty: decided from the file "
        "(everyone when it holds no bad reference, which the summary notes).",
    )
    dry_run = serializers.BooleanField(
        required=False, default=False, help_text="Check everything and write nothing."
    )

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data["campaign"] is not None and data["name"].strip():
            raise serializers.ValidationError(
                {"campaign": "Give either a name or a campaign id, not both."}
            )
        if (
            data["format"] != "mturk-batch"
            and not data["name"].strip()
            and data["campaign"] is None
        ):
            raise serializers.ValidationError(
                {"name": "Give the campaign a name (or, to add to one, its id as campaign)."}
            )
        return data


class ImportSummarySerializer(serializers.Serializer):
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    campaign = serializers.IntegerField(
        allow_null=True, help_text="Null for a dry run of a new campaign."
    )
    campaign_name = serializers.CharField()
    kind = serializers.CharField(help_text="direct_assessment or ranking.")
    created = serializers.BooleanField(help_text="A new campaign was (or would be) created.")
    dry_run = serializers.BooleanField()
    standardised = serializers.BooleanField()
    renamed_from = serializers.CharField(
        allow_null=True,
        help_text="Always null: names are unique per owner (issue 11 item 8), so a new "
        "campaign gets the name asked for. Kept for clients that read it.",
    )
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="judgments, workers, assignments, hits, systems, segments (and new_workers, "
        "new_systems, new_segments once written); for mturk-batch: matched, mark_approved, "
        "mark_rejected, mark_submitted, unchanged, conflict, waiting.",
    )
    ignored = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rows deliberately not imported, by reason."
    )
    notes = serializers.ListField(child=serializers.CharField())
    message = serializers.CharField()


class ImportProblemSerializer(serializers.Serializer):
    file = serializers.CharField(allow_null=True)
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class ImportForbiddenSerializer(serializers.Serializer):
    detail = serializers.CharField()


class ImportProblemsSerializer(serializers.Serializer):
    detail = serializers.CharField()
    total = serializers.IntegerField(help_text="Problems found.")
    omitted = serializers.IntegerField(help_text="Problems found but not listed (over 200).")
    problems = ImportProblemSerializer(many=True)


class ImportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField(help_text="This job's address (GET it for its status).")
    kind = serializers.CharField(help_text="judgments or segments.")
    format = serializers.CharField()
    status = serializers.ChoiceField(
        choices=["queued", "checking", "writing", "done", "failed"],
        help_text="queued (waiting for a worker), checking, writing, then done or failed. A "
        "job whose worker was lost is failed once its heartbeat is missed (a few minutes).",
    )
    phase = serializers.CharField(help_text="reading, writing or statistics; empty when queued.")
    done = serializers.IntegerField(help_text="Lines read or rows written in this phase.")
    total = serializers.IntegerField(help_text="Of this many (0 while unknown).")
    percent = serializers.IntegerField(allow_null=True, help_text="Of this phase; 100 when done.")
    message = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    campaign = serializers.IntegerField(
        allow_null=True, help_text="The campaign imported into, once known."
    )
    result = ImportSummarySerializer(
        allow_null=True, help_text="Once done: what was imported, as the 201 answer gives it."
    )
    total_problems = serializers.IntegerField(help_text="Once failed: problems found.")
    omitted = serializers.IntegerField(help_text="Problems found but not listed (over 200).")
    problems = ImportProblemSerializer(
        many=True, help_text="Once failed: every problem listed; nothing was written."
    )
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


def job_payload(request: Request, job: ImportJob) -> dict[str, Any]:
    return {
        "id": job.pk,
        "url": request.build_absolute_uri(reverse("api:import-job", args=[job.pk])),
        "kind": job.kind,
        "format": job.format,
        "status": job.status,
        "phase": job.phase,
        "done": job.done,
        "total": job.total,
        "percent": job.percent,
        "message": job.message,
        "files": [entry["name"] for entry in job.files],
        "campaign": job.campaign_id,
        "result": job.result,
        "total_problems": job.problem_total,
        "omitted": max(0, job.problem_total - len(job.problems or [])),
        "problems": job.problems or [],
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
    }


def _problems_response(failure: ImportFailed) -> Response:
    return Response(
        {
            "detail": failure.headline,
            "total": failure.total,
            "omitted": failure.omitted,
            "problems": [
                {
                    "file": problem.file,
                    "line": problem.line,
                    "field": problem.field,
                    "message": problem.message,
                }
                for problem in failure.problems
            ],
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


def _sentence(text: str) -> str:
    return f"{text[:1].upper()}{text[1:]}."


def _too_large(message: str) -> Response:
    return _problems_response(ImportFailed([ImportProblem(None, None, "file", message)]))


def _request_problems(errors: dict[str, Any]) -> ImportFailed:
    """The request's own errors (a missing file, an unknown format) in the problem shape, so
    that a 400 always has one form."""
    problems = []
    for field_name, messages in errors.items():
        for message in messages if isinstance(messages, list) else [messages]:
            text = message if isinstance(message, str) else str(message)
            problems.append(
                ImportProblem(
                    None, None, None if field_name == "non_field_errors" else field_name, text
                )
            )
    return ImportFailed(problems)


class JudgmentImportView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="imports_create",
        summary="Import published judgment files",
        description=DESCRIPTION,
        request={"multipart/form-data": JudgmentImportSerializer},
        responses={
            201: ImportSummarySerializer,
            202: OpenApiResponse(
                ImportJobSerializer,
                description="A big upload (over the server's IMPORT_INLINE_MAX_BYTES) is "
                "imported by a background worker: the job, queued (or, without a broker, "
                "already ended); its address is also in the Location header.",
            ),
            200: OpenApiResponse(
                ImportSummarySerializer, description="dry_run: what would be imported."
            ),
            403: OpenApiResponse(
                ImportForbiddenSerializer,
                description="The import would create a campaign, and the user may not create "
                "campaigns (campaigns.add_campaign).",
            ),
            400: OpenApiResponse(
                ImportProblemsSerializer,
                description="Every problem found, with file, line and field; nothing written.",
                examples=[
                    OpenApiExample(
                        "A score out of range",
                        value={
                            "detail": "1 problem found; nothing was imported.",
                            "total": 1,
                            "omitted": 0,
                            "problems": [
                                {
                                    "file": "ad-csen.tsv",
                                    "line": 2,
                                    "field": "score",
                                    "message": "score 120 is outside 0-100; raw scores are "
                                    "slider positions from 0 to 100 (if the file holds "
                                    "standardised z-scores, import it as standardised)",
                                }
                            ],
                        },
                    )
                ],
            ),
        },
        tags=["imports"],
    )
    def post(self, request: Request) -> Response:
        # Before the body is read (token users: nothing has read it yet).
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        problem = upload_limit_problem(length - MULTIPART_ALLOWANCE, "the request's body")
        if problem:
            return _too_large(problem)
        serializer = JudgmentImportSerializer(data=request.data)
        if not serializer.is_valid():
            return _problems_response(_request_problems(serializer.errors))
        data = serializer.validated_data
        problem = upload_limit_problem(sum(file.size for file in data["file"]))
        if problem:
            return _too_large(problem)
        user = request.user
        name = data["name"].strip()
        writable = writable_campaigns(user)
        may_create = may_create_campaigns(user)
        chosen = None
        if data["campaign"] is not None:
            chosen = writable.filter(pk=data["campaign"]).first()
            if chosen is None:
                # The same words whether the id does not exist or is not the user's to change.
                return _problems_response(
                    ImportFailed(
                        [
                            ImportProblem(
                                None,
                                None,
                                "campaign",
                                f"no campaign you may import into has the id {data['campaign']}",
                            )
                        ]
                    )
                )
        elif (
            data["format"] != MTURK_BATCH
            and not may_create
            and not writable.filter(name=name).exists()
        ):
            # Not existence-revealing: the same answer whether the name is in use or not.
            return Response(
                {"detail": _sentence(cannot_create_message(name))},
                status=status.HTTP_403_FORBIDDEN,
            )
        options = ImportOptions(
            fmt=data["format"],
            name=name,
            campaign=chosen,
            source_language=data["source_language"].strip(),
            target_language=data["target_language"].strip(),
            standardised=data["standardised"],
            language_pair=data["language_pair"].strip(),
            reference_system=data["reference_system"].strip(),
            workers_counted=data["workers_counted"],
            owner=user,
            appendable=writable,
            visible=visible_campaigns(user),
            may_create=may_create,
        )
        if runs_as_job(upload_size(data["file"])):
            job = create_judgment_job(data["file"], options, dry_run=data["dry_run"])
            job.refresh_from_db()  # without a broker it has run already
            payload = job_payload(request, job)
            return Response(
                payload, status=status.HTTP_202_ACCEPTED, headers={"Location": payload["url"]}
            )
        try:
            summary = import_judgments(data["file"], options, dry_run=data["dry_run"])
        except ImportFailed as failure:
            return _problems_response(failure)
        return Response(
            summary.as_dict(),
            status=status.HTTP_200_OK if summary.dry_run else status.HTTP_201_CREATED,
        )


class ImportJobView(APIView):
    @extend_schema(
        operation_id="imports_retrieve",
        summary="An import job's status, progress and result",
        description="The job a big upload started (202 from POST /api/imports/): its status "
        "and progress, then its result (done) or every problem (failed; nothing was written). "
        "Only the user who started it and superusers see a job; anyone else gets 404.",
        responses={200: ImportJobSerializer, 404: OpenApiResponse(description="No such job.")},
        tags=["imports"],
    )
    def get(self, request: Request, job_id: int) -> Response:
        jobs = ImportJob.objects.all()
        if not request.user.is_superuser:
            jobs = jobs.filter(owner=request.user)
        job = jobs.filter(pk=job_id).first()
        if job is None:
            raise Http404("No such import job.")
        return Response(job_payload(request, fail_if_stale(job)))


urlpatterns = [
    path("imports/", JudgmentImportView.as_view(), name="imports"),
    path("imports/<int:job_id>/", ImportJobView.as_view(), name="import-job"),
]
