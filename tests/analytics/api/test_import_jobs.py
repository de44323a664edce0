"""POST /api/imports/ with a big upload (issue 11 item 6): 202 Accepted with the import job,
after the same permission checks as an inline import; GET /api/imports/<id>/ answers its
status, progress and result or problems, to its owner and superusers only."""

import pytest
import yaml
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from campaigns.models import Campaign, ImportJob, ImportJobStatus
from judgments.models import Judgment
from tests.analytics.api.test_imports import client_for, upload
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row

pytestmark = pytest.mark.django_db
URL = "/api/imports/"


@pytest.fixture(autouse=True)
def small_threshold(settings, tmp_path):
    settings.IMPORT_UPLOAD_ROOT = tmp_path / "uploads"
    settings.IMPORT_INLINE_MAX_BYTES = 1000  # WMT_DA_RAW (2,600 bytes) runs as a job
    return settings.IMPORT_UPLOAD_ROOT


def test_a_big_upload_is_accepted_as_a_job_whose_status_its_owner_can_follow(
    small_threshold, django_capture_on_commit_callbacks
):
    assert len(WMT_DA_RAW.encode()) > 1000
    client, analyst = client_for("analyst", may_create=True)
    with django_capture_on_commit_callbacks() as queued:
        response = client.post(
            URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "WMT21 cs-en"}
        )
    job = ImportJob.objects.get()
    job_url = f"http://testserver/api/imports/{job.pk}/"
    assert response.status_code == 202
    assert response["Location"] == job_url
    body = response.json()
    assert {key: body[key] for key in ("id", "url", "kind", "format", "status", "files")} == {
        "id": job.pk,
        "url": job_url,
        "kind": "judgments",
        "format": "wmt-da",
        "status": "queued",
        "files": ["ad-csen.tsv"],
    }
    assert body["message"] == "Waiting for a worker to start the import."
    assert (body["result"], body["problems"], body["percent"]) == (None, [], None)
    assert Campaign.objects.count() == 0

    for callback in queued:  # the commit: Celery eager runs the job
        callback()
    status = client.get(job_url)
    assert status.status_code == 200
    body = status.json()
    campaign = Campaign.objects.get()
    assert (body["status"], body["percent"], body["campaign"]) == ("done", 100, campaign.pk)
    assert body["result"]["counts"] == {
        "judgments": 44,
        "workers": 2,
        "assignments": 2,
        "hits": 2,
        "systems": 2,
        "segments": 5,
        "new_workers": 2,
        "new_systems": 2,
        "new_segments": 5,
    }
    assert (
        body["result"]["message"]
        == body["message"]
        == (
            "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 segments) from "
            'ad-csen.tsv into new campaign "WMT21 cs-en" (direct assessment, raw 0-100 scores).'
        )
    )
    assert body["started_at"] and body["finished_at"]
    assert campaign.owner == analyst and Judgment.objects.count() == 44
    assert list(small_threshold.iterdir()) == []

    other, _ = client_for("other", may_create=True, may_change=True)
    assert other.get(job_url).status_code == 404
    assert APIClient().get(job_url).status_code == 401
    root, _ = client_for("root", is_superuser=True)
    assert root.get(job_url).status_code == 200


def test_a_big_bad_upload_ends_failed_with_every_problem(django_capture_on_commit_callbacks):
    text = da_file(*[da_row("H1", "W1", "A", "SYSTEM", str(n), "abc") for n in range(1, 40)])
    client, _ = client_for("analyst", may_create=True)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(URL, {"file": upload(text), "format": "wmt-da", "name": "x"})
    assert response.status_code == 202
    # (In a request outside a test's transaction, Celery eager runs it before the answer.)
    body = client.get(response["Location"]).json()
    assert body["status"] == ImportJobStatus.FAILED
    assert (body["total_problems"], body["omitted"], len(body["problems"])) == (39, 0, 39)
    assert body["problems"][0] == {
        "file": "ad-csen.tsv",
        "line": 2,
        "field": "score",
        "message": '"abc" is not a number; every judgment needs one',
    }
    assert body["message"] == "39 problems found; nothing was imported."
    assert Campaign.objects.count() == 0


def test_a_big_upload_that_may_not_create_a_campaign_is_refused_before_any_job():
    client, _ = client_for("reader", may_change=True)
    response = client.post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "X"})
    assert response.status_code == 403
    assert ImportJob.objects.count() == 0


def test_a_small_upload_is_still_imported_in_the_request(settings):
    settings.IMPORT_INLINE_MAX_BYTES = 4 * 1024 * 1024
    client, _ = client_for("analyst", may_create=True)
    response = client.post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "Y"})
    assert response.status_code == 201
    assert ImportJob.objects.count() == 0


def test_the_schema_documents_the_202_and_the_job_endpoint():
    admin = get_user_model().objects.create(username="root", is_staff=True, is_superuser=True)
    client = APIClient()
    client.force_authenticate(admin)
    document = yaml.safe_load(client.get("/api/schema/").content)
    post = document["paths"]["/api/imports/"]["post"]
    assert post["responses"]["202"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ImportJob"
    }
    get = document["paths"]["/api/imports/{job_id}/"]["get"]
    assert get["operationId"] == "imports_retrieve"
    assert set(get["responses"]) == {"200", "404"}
    fields = document["components"]["schemas"]["ImportJob"]["properties"]
    assert list(fields) == [
        "id",
        "url",
        "kind",
        "format",
        "status",
        "phase",
        "done",
        "total",
        "percent",
        "message",
        "files",
        "campaign",
        "result",
        "total_problems",
        "omitted",
        "problems",
        "created_at",
        "started_at",
        "finished_at",
    ]
