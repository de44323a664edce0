"""How far a running job is, written to its row at a bounded rate.

The importers call ``progress(done, total)`` per line read or per batch of rows written,
thousands of times; :class:`JobProgress` keeps the latest figures in memory and writes them
(with ``heartbeat_at``) at most every ``IMPORT_JOB_PROGRESS_SECONDS``.

In a Celery worker on PostgreSQL the writes come from a thread of their own: its own database
connection (Django's are per thread) commits at once, so the progress of the write phase is
seen while the importer's transaction is still open, and the heartbeat keeps coming while an
importer step reports nothing (checks against the campaign, statistics). A job without that
heartbeat for ``IMPORT_JOB_STALE_SECONDS`` lost its worker (``ImportJob.is_stale``). Run
inline (Celery eager, the embedded default; SQLite, whose one writer would block the thread),
the importer's own thread writes, and a write inside the importer's transaction is seen when
it commits.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

from campaigns.import_jobs.models import RUNNING, ImportJob, ImportJobStatus

logger = logging.getLogger(__name__)

# The phase labels shown on the job page, and the status each belongs to.
READING = "reading"
WRITING = "writing"
STATISTICS = "statistics"
PHASE_STATUS = {
    READING: ImportJobStatus.CHECKING,
    WRITING: ImportJobStatus.WRITING,
    STATISTICS: ImportJobStatus.WRITING,
}


class JobProgress:
    """Progress callbacks for one job; use as a context manager around the import."""

    def __init__(self, job_id: int, *, background: bool, statistics_after_write: bool = False):
        self.job_id = job_id
        self.background = background
        self.statistics_after_write = statistics_after_write
        self.interval = float(settings.IMPORT_JOB_PROGRESS_SECONDS)
        self.phase, self.done, self.total = READING, 0, 0
        # The write phase's last figures, which the job keeps once ended.
        self.written: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_write = float("-inf")
        self._commit_hooked = False
        self.writes = 0

    def callback(self, phase: str) -> Callable[[int, int], None]:
        def progress(done: int, total: int) -> None:
            self.report(phase, done, total)

        return progress

    def report(self, phase: str, done: int, total: int) -> None:
        with self._lock:
            self.phase, self.done, self.total = phase, done, total
            if phase == WRITING:
                self.written = (done, total)
        if phase == WRITING and self.statistics_after_write and not self._commit_hooked:
            # The statistics of a judgment import run once its write has committed: say so
            # then (and a job lost after that point did write its data).
            self._commit_hooked = True
            transaction.on_commit(lambda: self.report(STATISTICS, 0, 0))
        if not self.background and time.monotonic() - self._last_write >= self.interval:
            self.write()

    def write(self) -> None:
        with self._lock:
            phase, done, total = self.phase, self.done, self.total
        self._last_write = time.monotonic()
        self.writes += 1
        ImportJob.objects.filter(pk=self.job_id, status__in=RUNNING).update(
            status=PHASE_STATUS.get(phase, ImportJobStatus.CHECKING),
            phase=phase,
            done=done,
            total=total,
            heartbeat_at=timezone.now(),
        )

    def _beat(self) -> None:
        try:
            while not self._stop.wait(max(self.interval, 0.2)):
                try:
                    self.write()
                except Exception:
                    # A lost write only delays the figures; the next beat tries again.
                    logger.exception("Could not record the progress of import job %s", self.job_id)
        finally:
            connections.close_all()  # this thread's connections only

    def __enter__(self) -> JobProgress:
        if self.background:
            self._thread = threading.Thread(
                target=self._beat, name=f"import-job-{self.job_id}-progress", daemon=True
            )
            self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=30)
