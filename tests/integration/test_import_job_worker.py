"""An import job submitted over the API (issue 11 item 6) is run by a real Celery worker
(deploy/worker.sh, as docker-compose runs it) through Redis into PostgreSQL: the 202 names the
job, the worker's heartbeat thread writes its progress, and the job ends done with the
judgments written and its uploads deleted."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from campaigns.models import Campaign, ImportJob, ImportJobStatus
from evalsite.celery import app as celery_app
from judgments.models import Judgment
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW
from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

WORKER_READY_TIMEOUT = 30
JOB_TIMEOUT = 60


def test_an_import_job_sent_over_the_api_is_run_by_a_worker(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
    tmp_path,
):
    assert celery_app.conf.task_always_eager is False
    uploads = tmp_path / "import-uploads"
    settings.IMPORT_UPLOAD_ROOT = uploads
    settings.IMPORT_INLINE_MAX_BYTES = 1000  # WMT_DA_RAW (2,600 bytes) runs as a job
    settings.IMPORT_JOB_QUEUE = unique_queue
    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={unique_queue}",
            f"--hostname={unique_queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        {**subprocess_env, "IMPORT_UPLOAD_ROOT": str(uploads)},
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    user = get_user_model().objects.create_user("analyst")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    client = APIClient()
    client.force_authenticate(user)
    response = client.post(
        "/api/imports/",
        {
            "file": SimpleUploadedFile("ad-csen.tsv", WMT_DA_RAW.encode()),
            "format": "wmt-da",
            "name": "WMT21 cs-en",
        },
    )
    assert response.status_code == 202, response.content
    job_url = response["Location"]
    # The 202 reports the job as it is when answered: the worker may have taken it already
    # (seen in a loaded run: "checking"); it never reports a failure here.
    assert response.json()["status"] in ("queued", "checking", "writing", "done")

    def ended() -> bool:
        return client.get(job_url).json()["status"] in ("done", "failed")

    worker.wait_until(ended, JOB_TIMEOUT, "the import job's end in the worker")
    body = client.get(job_url).json()
    assert body["status"] == ImportJobStatus.DONE, body
    assert body["result"]["counts"]["judgments"] == 44
    # The write phase's last figures stay (not the statistics' that followed the commit).
    assert (body["phase"], body["percent"]) == ("writing", 100)
    assert body["done"] == body["total"] > 0
    campaign = Campaign.objects.get(name="WMT21 cs-en")
    assert body["campaign"] == campaign.pk
    assert Judgment.objects.filter(campaign=campaign).count() == 44
    job = ImportJob.objects.get()
    assert job.heartbeat_at is not None and job.started_at <= job.finished_at
    assert list(uploads.iterdir()) == []
    assert f"Import job {job.pk}: done." in worker.log()
    assert worker.stop() == 0, worker.describe()
