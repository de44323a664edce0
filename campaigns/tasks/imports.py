"""Celery task: running an import job (issue 11 item 6).

Thin, as everywhere: the job's id in, an early return with a log line when the job is gone,
one call into ``campaigns.import_jobs.actions.run_job`` (which never raises for a bad file: it
stores the problems on the job). ``acks_late`` (the project's default) redelivers the message
of a worker killed mid-job; ``run_job`` then finds the job no longer queued and does nothing,
and the job's missing heartbeat marks it failed (``actions.fail_if_stale``).
"""

from __future__ import annotations

import logging

from celery import shared_task

from campaigns.import_jobs.actions import run_job
from campaigns.models import ImportJob

__all__ = ["run_import_job"]

logger = logging.getLogger(__name__)


@shared_task(name="campaigns.tasks.run_import_job", bind=True)
def run_import_job(self, job_id: int) -> str | None:
    """Run one queued import job; its final status, or None when there was nothing to run."""
    if not ImportJob.objects.filter(pk=job_id).exists():
        logger.info("Import job %s is gone; nothing to import", job_id)
        return None
    # In a worker, progress is written by a thread of its own (not on SQLite: one writer).
    from django.db import connection

    background = not self.request.is_eager and connection.vendor == "postgresql"
    job = run_job(job_id, background=background)
    if job is None:
        return None
    logger.info("Import job %s: %s. %s", job.pk, job.status, job.message)
    return job.status
