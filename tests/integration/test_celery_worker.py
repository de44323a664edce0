"""A real Celery worker (deploy/worker.sh, as docker-compose runs it) consumes a task sent
through Redis and changes rows in PostgreSQL."""

import re
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from evalsite.celery import app as celery_app
from judgments.models import Assignment, AssignmentStatus
from judgments.tasks import expire_abandoned_assignments
from tests.factories import AssignmentFactory
from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

WORKER_READY_TIMEOUT = 30
TASK_TIMEOUT = 30
SUCCESS_LINE = re.compile(
    r"Task judgments\.tasks\.expire_abandoned_assignments\[[0-9a-f-]+\] succeeded in \S+: 1$",
    re.MULTILINE,
)


def test_worker_expires_abandoned_assignment_sent_through_redis(
    postgres_required, redis_url, unique_queue, subprocess_env, start_service
):
    # In this process REDIS_URL is set, so the settings send tasks to the broker, not inline.
    assert celery_app.conf.task_always_eager is False
    assert celery_app.conf.broker_url == redis_url

    abandoned = AssignmentFactory(expires_at=timezone.now() - timedelta(minutes=1))
    ongoing = AssignmentFactory(expires_at=timezone.now() + timedelta(hours=1))
    assert abandoned.status == ongoing.status == AssignmentStatus.STARTED

    queue = unique_queue
    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={queue}",
            f"--hostname={queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        subprocess_env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    expire_abandoned_assignments.apply_async(queue=queue)

    def abandoned_expired() -> bool:
        return Assignment.objects.get(pk=abandoned.pk).status == AssignmentStatus.EXPIRED

    worker.wait_until(abandoned_expired, TASK_TIMEOUT, "the assignment's expiry by the worker")
    worker.wait_until(
        lambda: SUCCESS_LINE.search(worker.log()) is not None,
        TASK_TIMEOUT,
        "the task's success line (returning 1) in the worker log",
    )
    assert Assignment.objects.get(pk=ongoing.pk).status == AssignmentStatus.STARTED
    assert "Expired 1 abandoned assignment(s)" in worker.log()

    started = time.monotonic()
    assert worker.stop() == 0, worker.describe()
    assert time.monotonic() - started < 15, "the worker took too long to shut down"
