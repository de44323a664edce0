"""The admin side of import jobs (issue 11 item 6): an upload over IMPORT_INLINE_MAX_BYTES on
"Import segments" or "Import judgments" becomes a job and its page; a smaller one is imported
in the request as before. The job page shows the progress bar (refreshed by a same-origin
script) and then the result or the problems; only the job's owner and superusers see it."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, ImportJob, ImportJobStatus, Segment, TaskKind
from judgments.models import Judgment
from tests.campaigns.test_import_jobs import GOOD_TSV
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def upload_root(settings, tmp_path):
    settings.IMPORT_UPLOAD_ROOT = tmp_path / "uploads"
    settings.IMPORT_INLINE_MAX_BYTES = 200  # GOOD_TSV (133 bytes) inline, WMT_DA_RAW a job
    return settings.IMPORT_UPLOAD_ROOT


@pytest.fixture
def requester(client):
    user = get_user_model().objects.create(username="req", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_campaign", "change_campaign", "view_campaign"]
        )
    )
    client.force_login(user)
    return user


@pytest.fixture
def campaign(requester):
    return CampaignFactory(name="news", kind=TaskKind.RANKING, owner=requester)


def upload(text: str, name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def job_page(job) -> str:
    return reverse("admin:campaigns_campaign_import_job", args=[job.pk])


def test_a_small_segment_upload_is_imported_in_the_request(client, campaign):
    assert len(GOOD_TSV.encode()) == 133
    response = client.post(
        reverse("admin:campaigns_campaign_import", args=[campaign.pk]),
        {"format": "tsv", "file": upload(GOOD_TSV, "demo.tsv")},
    )
    assert response["Location"] == reverse("admin:campaigns_campaign_change", args=[campaign.pk])
    assert ImportJob.objects.count() == 0
    assert Segment.objects.filter(campaign=campaign).count() == 2


def test_a_big_segment_upload_becomes_a_job_and_its_page_shows_the_result(
    client, campaign, requester, settings, upload_root, django_capture_on_commit_callbacks
):
    settings.IMPORT_INLINE_MAX_BYTES = 100
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:campaigns_campaign_import", args=[campaign.pk]),
            {"format": "tsv", "file": upload(GOOD_TSV, "demo.tsv")},
        )
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == job_page(job)
    assert (job.kind, job.format, job.owner, job.campaign) == (
        "segments",
        "tsv",
        requester,
        campaign,
    )
    assert job.status == ImportJobStatus.DONE
    assert Segment.objects.filter(campaign=campaign).count() == 2
    assert list(upload_root.iterdir()) == []

    page = client.get(response["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert (
        "Imported 1 new document, 2 segments and 4 outputs of 2 systems (2 new) from demo.tsv."
        in html
    )
    assert f'href="{reverse("admin:campaigns_campaign_change", args=[campaign.pk])}"' in html
    assert "<progress" not in html  # ended: no progress bar, no polling
    assert 'data-ended="1"' in html


def test_a_big_judgment_upload_becomes_a_job(
    client, requester, settings, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:campaigns_campaign_import_judgments"),
            {"files": upload(WMT_DA_RAW, "ad-csen.tsv"), "format": "wmt-da", "name": "WMT21"},
        )
    job = ImportJob.objects.get()
    assert response["Location"] == job_page(job)
    assert (job.kind, job.format, job.status) == ("judgments", "wmt-da", ImportJobStatus.DONE)
    assert job.campaign == Campaign.objects.get(name="WMT21")
    assert Judgment.objects.count() == 44


def test_a_big_judgment_upload_of_someone_who_may_not_create_is_refused_before_any_job(client):
    user = get_user_model().objects.create(username="viewer", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["change_campaign"]))
    client.force_login(user)
    response = client.post(
        reverse("admin:campaigns_campaign_import_judgments"),
        {"files": upload(WMT_DA_RAW, "ad-csen.tsv"), "format": "wmt-da", "name": "WMT21"},
    )
    assert response.status_code == 403
    assert ImportJob.objects.count() == 0


def test_a_running_job_page_shows_the_progress_bar_and_its_status_url(client, requester, campaign):
    job = ImportJob.objects.create(
        kind="segments",
        format="tsv",
        owner=requester,
        campaign=campaign,
        status=ImportJobStatus.WRITING,
        phase="writing",
        done=1500,
        total=6000,
        files=[{"role": "file", "name": "big.tsv", "path": "x"}],
        size=3 * 1024 * 1024,
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    status_url = reverse("admin:campaigns_campaign_import_job_status", args=[job.pk])
    html = client.get(job_page(job)).content.decode()
    assert '<progress max="100" value="25">25%</progress>' in html
    assert f'data-status-url="{status_url}"' in html
    assert 'data-ended="0"' in html
    assert '<script src="/static/js/import-job.js" defer></script>' in html
    assert "big.tsv (3.0\xa0MB)" in html
    assert "Writing: 1,500 of 6,000." in html
    response = client.get(status_url)
    assert "no-store" in response["Cache-Control"]  # the admin's never_cache
    assert response.json() == {
        "status": "writing",
        "status_label": "writing",
        "phase": "writing",
        "done": 1500,
        "total": 6000,
        "percent": 25,
        "message": "Writing: 1,500 of 6,000.",
        "ended": False,
    }


def test_a_failed_job_page_lists_the_problems(client, requester, campaign):
    job = ImportJob.objects.create(
        kind="segments",
        format="tsv",
        owner=requester,
        campaign=campaign,
        status=ImportJobStatus.FAILED,
        problems=[
            {"file": "big.tsv", "line": 7, "field": "output", "message": "empty segment"},
        ],
        problem_total=1,
        finished_at=timezone.now(),
    )
    page = client.get(job_page(job))
    html = page.content.decode()
    assert "1 problem found; nothing was imported." in html
    assert "<td>big.tsv</td>\n          <td>7</td>\n          <td>output</td>" in html
    assert reverse("admin:campaigns_campaign_import", args=[campaign.pk]) in html


def test_only_the_owner_and_superusers_see_a_job(client, requester, campaign):
    job = ImportJob.objects.create(kind="segments", format="tsv", owner=requester)
    other = get_user_model().objects.create(username="other", is_staff=True)
    other.user_permissions.add(*Permission.objects.filter(codename__startswith="change_"))
    client.force_login(other)
    assert client.get(job_page(job)).status_code == 404
    status_url = reverse("admin:campaigns_campaign_import_job_status", args=[job.pk])
    assert client.get(status_url).status_code == 404
    root = get_user_model().objects.create(username="root", is_staff=True, is_superuser=True)
    client.force_login(root)
    assert client.get(job_page(job)).status_code == 200
