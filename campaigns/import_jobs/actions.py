"""Creating, running and ending import jobs (issue 11 item 6).

The admin pages and ``POST /api/imports/`` check the user's permissions as for an inline
import, then, for an upload bigger than ``settings.IMPORT_INLINE_MAX_BYTES``
(:func:`runs_as_job`), call :func:`create_segment_job` or :func:`create_judgment_job`: the
uploads are kept (``files``) and ``campaigns.tasks.run_import_job`` is sent once the job's
row is committed. The worker runs :func:`run_job`: the same importers as an inline import
(``campaigns.importers.run_import``, ``campaigns.importers.judgments.import_judgments``),
which check everything before writing anything in one transaction; a job that fails stores
every problem and wrote nothing. The uploads are deleted when the job ends, whatever the end.

A job whose worker died (killed, out of memory, the machine lost) stops sending its heartbeat;
:func:`fail_if_stale`, called whenever the job is looked at (its admin page and its API
status), marks it failed after ``IMPORT_JOB_STALE_SECONDS`` and deletes its uploads.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from analytics.access import changeable_campaigns, may_create_campaigns, readable_campaigns
from campaigns.import_jobs import files as job_files
from campaigns.import_jobs.models import (
    RUNNING,
    ImportJob,
    ImportJobKind,
    ImportJobStatus,
)
from campaigns.import_jobs.progress import READING, STATISTICS, WRITING, JobProgress
from campaigns.importers import ImportFailed, ImportProblem, WmtFiles, check_import, write_checked
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Campaign

__all__ = [
    "create_judgment_job",
    "create_segment_job",
    "fail_if_stale",
    "problem_dicts",
    "run_job",
    "runs_as_job",
    "upload_size",
]

logger = logging.getLogger(__name__)

# The Celery task that runs a job (campaigns.tasks.imports, under this name).
RUN_TASK = "campaigns.tasks.run_import_job"

# ImportOptions fields that are not the user's words but who they are and what they may do:
# recomputed from the job's owner when the job runs, never stored.
ACCESS_FIELDS = ("owner", "appendable", "visible", "may_create", "campaign")


def upload_size(uploads: Iterable[Any]) -> int:
    return sum(getattr(upload, "size", 0) or 0 for upload in uploads if upload)


def runs_as_job(size: int) -> bool:
    """Whether an upload of ``size`` bytes (all files of one import) runs as a job."""
    return size > settings.IMPORT_INLINE_MAX_BYTES


def problem_dicts(problems: Iterable[ImportProblem]) -> list[dict[str, Any]]:
    return [
        {"file": p.file, "line": p.line, "field": p.field, "message": p.message} for p in problems
    ]


# --- Creating ----------------------------------------------------------------------------


def create_segment_job(owner: Any, campaign: Campaign, fmt: str, files: Any) -> ImportJob:
    """A job importing segments into ``campaign``; ``files`` as for ``run_import`` (one upload,
    or a WmtFiles of uploads)."""
    entries: list[tuple[dict[str, str], Any]] = []
    if isinstance(files, WmtFiles):
        entries.append(({"role": "source"}, files.source))
        entries += [({"role": "reference"}, upload) for upload in files.references]
        entries += [({"role": "system", "system": name}, up) for name, up in files.systems.items()]
        if files.docids:
            entries.append(({"role": "docids"}, files.docids))
    else:
        if isinstance(files, list | tuple):
            files = files[0]
        entries.append(({"role": "file"}, files))
    return _create(ImportJobKind.SEGMENTS, fmt, owner, campaign, {}, entries)


def create_judgment_job(files: list[Any], options: ImportOptions, *, dry_run: bool) -> ImportJob:
    """A job importing judgment files with ``options`` (the user's words are stored; what the
    owner may do is looked up again when the job runs)."""
    stored: dict[str, Any] = {
        "dry_run": dry_run,
        "campaign": options.campaign.pk if options.campaign is not None else None,
    }
    for option in dataclasses.fields(options):
        if option.name not in ACCESS_FIELDS:
            stored[option.name] = getattr(options, option.name)
    return _create(
        ImportJobKind.JUDGMENTS,
        options.fmt,
        options.owner,
        options.campaign,
        stored,
        [({"role": "file"}, upload) for upload in files],
    )


def _create(
    kind: str,
    fmt: str,
    owner: Any,
    campaign: Campaign | None,
    options: dict[str, Any],
    entries: list[tuple[dict[str, str], Any]],
) -> ImportJob:
    job = ImportJob.objects.create(
        kind=kind,
        format=fmt,
        options=options,
        owner=owner,
        campaign=campaign,
        size=upload_size(upload for _, upload in entries),
    )
    try:
        kept = [
            {**role, **job_files.save_upload(job.pk, index, upload)}
            for index, (role, upload) in enumerate(entries)
        ]
    except BaseException:
        job.delete()
        job_files.delete_job_files(job.pk)
        raise
    job.files = kept
    job.save(update_fields=["files"])
    _enqueue_on_commit(job.pk)
    return job


def _enqueue_on_commit(job_id: int) -> None:
    queue = settings.IMPORT_JOB_QUEUE or None

    def send() -> None:
        # By name, as analytics.actions does: the task module imports this one.
        from evalsite.celery import task_named  # Celery only once a job is sent

        task_named(RUN_TASK).apply_async(args=[job_id], queue=queue)

    # After the commit: a worker must find the row. With Celery eager (no REDIS_URL) this runs
    # the job right here, through the same task and the same run_job().
    transaction.on_commit(send)


# --- Running -----------------------------------------------------------------------------


def run_job(job_id: int, *, background: bool = False) -> ImportJob | None:
    """Run a queued job to its end (done or failed); None when it is not queued (already run,
    or a message delivered twice). ``background``: in a worker, progress comes from a thread
    of its own (``progress``)."""
    now = timezone.now()
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJobStatus.QUEUED).update(
        status=ImportJobStatus.CHECKING, phase=READING, started_at=now, heartbeat_at=now
    )
    if not claimed:
        logger.info("Import job %s is not waiting to run; nothing to do", job_id)
        return None
    job = ImportJob.objects.select_related("owner", "campaign").get(pk=job_id)
    progress = JobProgress(
        job.pk,
        background=background,
        statistics_after_write=job.kind == ImportJobKind.JUDGMENTS,
    )
    try:
        with progress:
            if job.kind == ImportJobKind.SEGMENTS:
                _run_segments(job, progress)
            else:
                _run_judgments(job, progress, background=background)
    except ImportFailed as failure:
        _fail(job, problem_dicts(failure.problems), failure.total)
    except Exception:
        logger.exception("Import job %s stopped on an unexpected error", job.pk)
        message = (
            "the import stopped on an unexpected error (logged on the server); nothing was written"
        )
        _fail(job, [{"file": None, "line": None, "field": None, "message": message}], 1)
    finally:
        job_files.delete_job_files(job.pk)
    job.refresh_from_db()
    return job


def _paths(job: ImportJob, role: str) -> list[tuple[dict[str, Any], Any]]:
    return [(entry, job_files.stored_path(entry)) for entry in job.files if entry["role"] == role]


def _run_segments(job: ImportJob, progress: JobProgress) -> None:
    campaign = job.campaign
    owner = job.owner
    if campaign is None or not changeable_campaigns(owner).filter(pk=campaign.pk).exists():
        raise ImportFailed(
            [
                ImportProblem(
                    None, None, None, "the campaign is gone, or you may no longer change it"
                )
            ]
        )
    if job.format == "wmt":
        (_, source), *_ = _paths(job, "source")
        docids = _paths(job, "docids")
        files: Any = WmtFiles(
            source=source,
            references=[path for _, path in _paths(job, "reference")],
            systems={entry["system"]: path for entry, path in _paths(job, "system")},
            docids=docids[0][1] if docids else None,
        )
    else:
        files = _paths(job, "file")[0][1]
    checked = check_import(campaign, job.format, files, parse_progress=progress.callback(READING))
    # The write and the job's "done" in one transaction: a job that shows no "done" wrote
    # nothing, even when its worker died between the two.
    with transaction.atomic():
        summary = write_checked(checked, progress=progress.callback(WRITING))
        result = {**dataclasses.asdict(summary), "message": summary.message}
        _finish(job, result, campaign_id=campaign.pk, progress=progress)


def _run_judgments(job: ImportJob, progress: JobProgress, *, background: bool) -> None:
    stored = dict(job.options)
    dry_run = bool(stored.pop("dry_run", False))
    if stored.pop("campaign", None) is not None and job.campaign is None:
        raise ImportFailed([ImportProblem(None, None, "campaign", "the campaign is gone")])
    owner = job.owner
    known = {option.name for option in dataclasses.fields(ImportOptions)}
    options = ImportOptions(
        **{key: value for key, value in stored.items() if key in known},
        campaign=job.campaign,
        owner=owner,
        appendable=changeable_campaigns(owner),
        visible=readable_campaigns(owner),
        may_create=may_create_campaigns(owner),
    )
    summary = import_judgments(
        [path for _, path in _paths(job, "file")],
        options,
        progress=progress.callback(WRITING),
        parse_progress=progress.callback(READING),
        dry_run=dry_run,
        # In a worker the statistics go to the recompute task rather than this job's process
        # (issue 11 item 6: the import's memory is the import's alone).
        background_statistics=background,
    )
    _finish(job, summary.as_dict(), campaign_id=summary.campaign_id, progress=progress)


def _finish(
    job: ImportJob, result: dict[str, Any], *, campaign_id: int | None, progress: JobProgress
) -> None:
    # Whatever a staleness check concluded meanwhile, the job did finish: "done" wins.
    fields = {"status": ImportJobStatus.DONE, "result": result, "finished_at": timezone.now()}
    if progress.phase == STATISTICS and progress.written is not None:
        fields["phase"] = WRITING
        fields["done"], fields["total"] = progress.written
    else:
        fields["phase"], fields["done"], fields["total"] = (
            progress.phase,
            progress.done,
            progress.total,
        )
    if campaign_id is not None:
        fields["campaign_id"] = campaign_id
    ImportJob.objects.filter(pk=job.pk).update(**fields)


def _fail(job: ImportJob, problems: list[dict[str, Any]], total: int) -> None:
    ImportJob.objects.filter(pk=job.pk).exclude(status=ImportJobStatus.DONE).update(
        status=ImportJobStatus.FAILED,
        problems=problems,
        problem_total=total,
        finished_at=timezone.now(),
    )


# --- Lost workers ------------------------------------------------------------------------


def fail_if_stale(job: ImportJob) -> ImportJob:
    """Mark ``job`` failed if its worker stopped sending the heartbeat; the job, current."""
    if not job.is_stale():
        return job
    seconds = settings.IMPORT_JOB_STALE_SECONDS
    written = job.phase == STATISTICS
    message = (
        f"the import stopped: the worker running it gave no sign of life for {seconds} "
        f"seconds while {job.phase or job.status} (it was stopped, restarted or ran out of "
        "memory); "
        + (
            "the data were written, and their statistics are computed by the periodic sweep"
            if written
            else "nothing was written (the write is one transaction); upload the files again"
        )
    )
    changed = ImportJob.objects.filter(
        pk=job.pk, status__in=RUNNING, heartbeat_at=job.heartbeat_at
    ).update(
        status=ImportJobStatus.DONE if written else ImportJobStatus.FAILED,
        result={"message": message[:1].upper() + message[1:] + "."} if written else None,
        problems=[]
        if written
        else [{"file": None, "line": None, "field": None, "message": message}],
        problem_total=0 if written else 1,
        finished_at=timezone.now(),
    )
    if changed:
        logger.warning("Import job %s lost its worker: %s", job.pk, message)
        job_files.delete_job_files(job.pk)
    job.refresh_from_db()
    return job
