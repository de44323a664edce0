"""The row of an import job: what to import, whose, and how far it got.

Imported by ``campaigns.models`` so that Django registers it in the ``campaigns`` app; the
campaign is named by its label, so this module imports no other model module.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone


class ImportJobKind(models.TextChoices):
    SEGMENTS = "segments", "segments"
    JUDGMENTS = "judgments", "judgments"


class ImportJobStatus(models.TextChoices):
    QUEUED = "queued", "waiting for a worker"
    CHECKING = "checking", "checking"
    WRITING = "writing", "writing"
    DONE = "done", "done"
    FAILED = "failed", "failed"


RUNNING = (ImportJobStatus.CHECKING, ImportJobStatus.WRITING)
ENDED = (ImportJobStatus.DONE, ImportJobStatus.FAILED)


class ImportJob(models.Model):
    """One import run by a Celery worker (``campaigns.import_jobs.actions``).

    ``options`` are the importer's options as given (format-specific, JSON); ``files`` the
    uploads kept under ``settings.IMPORT_UPLOAD_ROOT`` until the job ends (each ``{"name":
    shown name, "path": relative path, "role": file/source/reference/system/docids, "system":
    its name}``). While it runs, ``phase``/``done``/``total`` say how far it is and
    ``heartbeat_at`` when the worker last said so (``is_stale``). A finished job holds
    ``result`` (the importer's summary) or ``problems`` (file, line, field, message, the
    first SHOWN_PROBLEMS of ``problem_total``); a failed job wrote nothing.
    """

    kind = models.CharField(max_length=16, choices=ImportJobKind.choices)
    format = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    files = models.JSONField(default=list, blank=True)
    size = models.BigIntegerField(default=0, help_text="Bytes uploaded.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="import_jobs"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="import_jobs",
        help_text="The campaign imported into (for a new campaign: once it is written).",
    )
    status = models.CharField(
        max_length=16, choices=ImportJobStatus.choices, default=ImportJobStatus.QUEUED
    )
    phase = models.CharField(max_length=32, blank=True)
    done = models.BigIntegerField(default=0)
    total = models.BigIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    problems = models.JSONField(default=list, blank=True)
    problem_total = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        indexes = [models.Index(fields=["status", "heartbeat_at"], name="importjob_running")]

    def __str__(self) -> str:
        return f"Import job {self.pk} ({self.kind}, {self.format}): {self.status}"

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def percent(self) -> int | None:
        """Whole percent of the current phase, or None before its size is known."""
        if self.status == ImportJobStatus.DONE:
            return 100
        if not self.total:
            return None
        return min(100, int(self.done * 100 / self.total))

    @property
    def message(self) -> str:
        """One sentence for a person: the result, the failure, or where it stands."""
        if self.status == ImportJobStatus.DONE:
            return (self.result or {}).get("message", "Imported.")
        if self.status == ImportJobStatus.FAILED:
            noun = "problem" if self.problem_total == 1 else "problems"
            return f"{self.problem_total} {noun} found; nothing was imported."
        if self.status == ImportJobStatus.QUEUED:
            return "Waiting for a worker to start the import."
        counted = f": {self.done:,} of {self.total:,}" if self.total else ""
        return f"{(self.phase or self.status).capitalize()}{counted}."

    def is_stale(self, now=None) -> bool:
        """A running job whose worker has said nothing for IMPORT_JOB_STALE_SECONDS: it was
        killed or lost (a live worker writes a heartbeat every IMPORT_JOB_PROGRESS_SECONDS,
        whatever the importer is doing)."""
        if self.status not in RUNNING:
            return False
        last = self.heartbeat_at or self.started_at or self.created_at
        limit = timedelta(seconds=settings.IMPORT_JOB_STALE_SECONDS)
        return last is not None and (now or timezone.now()) - last > limit
