"""Post-edits through each way in: manage.py import_judgments, the admin's "Import judgments"
page and POST /api/imports/ (the same import: test_import_post_edits.py checks what it
writes). The statistics after the write are the recompute's (test_import_post_edits_hter.py)
and are left out here."""

import io
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import campaigns.importers.judgments as judgment_importers
from campaigns.models import Campaign
from judgments.models import Judgment

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "post_edits"
SUMMARY = (
    "Imported 6 judgments (2 workers, 4 assignments, 2 HITs, 2 systems, 2 segments) from "
    'hand.tsv into new campaign "PE de-en" (post-editing, HTER with tercom\'s defaults).'
)


@pytest.fixture(autouse=True)
def no_statistics(monkeypatch):
    monkeypatch.setattr(judgment_importers, "recompute_campaign", lambda campaign: None)


def upload(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (FIXTURES / name).read_bytes())


def test_the_command():
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_judgments",
        "--format",
        "post-edits",
        str(FIXTURES / "hand.tsv"),
        "--name",
        "PE de-en",
        "--language-pair",
        "de-en",
        stdout=out,
        stderr=err,
    )
    campaign = Campaign.objects.get()
    assert out.getvalue() == f"{SUMMARY}\nCampaign id: {campaign.pk}\n"
    assert Judgment.objects.filter(campaign=campaign).count() == 6


def test_the_command_lists_the_problems_and_writes_nothing():
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_judgments",
            "--format",
            "post-edits",
            str(FIXTURES / "empty_mt.tsv"),
            "--name",
            "PE",
            stdout=io.StringIO(),
            stderr=err,
        )
    assert 'empty_mt.tsv line 3, field "mt": empty segment; every MT output needs text' in (
        err.getvalue()
    )
    assert not Campaign.objects.exists()


def test_the_admin_upload(client):
    user = get_user_model().objects.create_user("req", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_campaign", "change_campaign", "view_campaign"]
        )
    )
    client.force_login(user)
    url = "/admin/campaigns/campaign/import-judgments/"
    response = client.post(
        url,
        {
            "files": upload("hand.tsv"),
            "format": "post-edits",
            "name": "PE de-en",
            "source_language": "de",
            "target_language": "en",
        },
    )
    campaign = Campaign.objects.get()
    change = f"/admin/campaigns/campaign/{campaign.pk}/change/"
    assert response.status_code == 302
    assert response["Location"] == change
    assert campaign.owner == user
    assert [str(message) for message in response.wsgi_request._messages] == [
        SUMMARY.replace('"', "&quot;").replace("'", "&#x27;")
        + f' <a href="{change}">Open the campaign and its results</a>.'
    ]
    assert Judgment.objects.count() == 6


def test_the_api_import():
    user = get_user_model().objects.create_user("analyst")
    user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    response = client.post(
        "/api/imports/",
        {
            "file": upload("hand.tsv"),
            "format": "post-edits",
            "name": "PE de-en",
            "language_pair": "de-en",
        },
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 201
    body = response.json()
    assert (body["campaign"], body["kind"], body["message"]) == (
        campaign.pk,
        "post_editing",
        SUMMARY,
    )
    assert body["counts"] == {
        "judgments": 6,
        "workers": 2,
        "assignments": 4,
        "hits": 2,
        "systems": 2,
        "segments": 2,
        "new_workers": 2,
        "new_systems": 2,
        "new_segments": 2,
    }
    bad = client.post(
        "/api/imports/",
        {
            "file": upload("twice.tsv"),
            "format": "post-edits",
            "name": "other",
            "language_pair": "de-en",
        },
    )
    assert bad.status_code == 400
    assert bad.json()["problems"] == [
        {
            "file": "twice.tsv",
            "line": 4,
            "field": "editor",
            "message": "editor ann1 already post-edited the output of system A on document d1, "
            "segment 1 on line 2; an editor edits each output once",
        }
    ]
    assert Campaign.objects.count() == 1
