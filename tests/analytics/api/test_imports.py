"""POST /api/imports/: who may import, the 201, 400 and 403 answers, the upload limit, and the
schema's description."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import campaigns.importers.judgments as judgment_importers
from analytics.models import CampaignResult
from campaigns.models import Campaign
from judgments.models import Assignment, AssignmentStatus, Judgment, Platform
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db
URL = "/api/imports/"


def client_for(
    username: str, *, may_create: bool = False, may_change: bool = False, **fields
) -> tuple[APIClient, object]:
    """An API client of a new user; ``may_create``: with campaigns.add_campaign;
    ``may_change``: with campaigns.view_campaign and change_campaign (a requester's)."""
    user = get_user_model().objects.create_user(username, **fields)
    if may_create:
        user.user_permissions.add(Permission.objects.get(codename="add_campaign"))
    if may_change:
        user.user_permissions.add(
            *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
        )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client, user


def upload(text: str, name: str = "ad-csen.tsv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


def test_a_user_who_may_add_campaigns_imports_a_file_into_a_campaign_they_then_own():
    client, analyst = client_for("analyst", may_create=True)
    response = client.post(
        URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "WMT21 cs-en"}
    )
    campaign = Campaign.objects.get()
    assert response.status_code == 201
    assert response.json() == {
        "format": "wmt-da",
        "files": ["ad-csen.tsv"],
        "campaign": campaign.pk,
        "campaign_name": "WMT21 cs-en",
        "kind": "direct_assessment",
        "created": True,
        "dry_run": False,
        "standardised": False,
        "renamed_from": None,
        "counts": {
            "judgments": 44,
            "workers": 2,
            "assignments": 2,
            "hits": 2,
            "systems": 2,
            "segments": 5,
            "new_workers": 2,
            "new_systems": 2,
            "new_segments": 5,
        },
        "ignored": {},
        "notes": [],
        "message": "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 "
        'segments) from ad-csen.tsv into new campaign "WMT21 cs-en" (direct assessment, raw '
        "0-100 scores).",
    }
    assert campaign.owner == analyst
    assert CampaignResult.objects.get(campaign=campaign).n_judgments == 44


def test_problems_answer_400_with_every_line_and_nothing_is_written():
    client, _ = client_for("analyst", may_create=True)
    text = da_file(
        da_row("H1", "W1", "A", "SYSTEM", "1", "120"), da_row("H1", "W1", "A", "FOO", "2", "5")
    )
    response = client.post(URL, {"file": upload(text), "format": "wmt-da", "name": "x"})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "2 problems found; nothing was imported.",
        "total": 2,
        "omitted": 0,
        "problems": [
            {
                "file": "ad-csen.tsv",
                "line": 2,
                "field": "score",
                "message": "score 120 is outside 0-100; raw scores are slider positions from "
                "0 to 100 (if the file holds standardised z-scores, import it as standardised)",
            },
            {
                "file": "ad-csen.tsv",
                "line": 3,
                "field": "type",
                "message": 'unknown type "FOO"; WMT\'s types are SYSTEM, REPEAT, BAD_REF and REF',
            },
        ],
    }
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_a_bad_request_answers_in_the_same_shape():
    client, _ = client_for("analyst")
    response = client.post(URL, {"format": "csv"})
    assert response.status_code == 400
    body = response.json()
    assert body["detail"] == "2 problems found; nothing was imported."
    assert body["problems"] == [
        {"file": None, "line": None, "field": "file", "message": "This field is required."},
        {
            "file": None,
            "line": None,
            "field": "format",
            "message": '"csv" is not a valid choice.',
        },
    ]
    response = client.post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da"})
    assert response.json()["problems"] == [
        {
            "file": None,
            "line": None,
            "field": "name",
            "message": "Give the campaign a name (or, to add to one, its id as campaign).",
        }
    ]


def forbidden(name: str) -> dict:
    return {
        "detail": f'No campaign you may import into is named "{name}", and creating a campaign '
        "needs the permission to add campaigns (campaigns.add_campaign)."
    }


def test_creating_a_campaign_needs_the_add_permission_not_staff_status():
    analyst_client, _ = client_for("analyst")
    CampaignFactory(name="existing", imported_from="wmt-da")
    # The same answer for a name in use and a free one: the 403 confirms nothing.
    for name in ("existing", "new one"):
        response = analyst_client.post(
            URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": name, "dry_run": "true"}
        )
        assert (response.status_code, response.json()) == (403, forbidden(name))
    assert Campaign.objects.count() == 1
    # Issue 11, item 4: staff status alone no longer creates campaigns (it did: 201).
    staff_client, _ = client_for("staff", is_staff=True)
    for dry_run in ("true", "false"):
        response = staff_client.post(
            URL,
            {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "new one", "dry_run": dry_run},
        )
        assert (response.status_code, response.json()) == (403, forbidden("new one"))
    assert Campaign.objects.count() == 1
    # The add permission does (a superuser has every permission).
    admin_client, admin = client_for("admin", is_staff=True, is_superuser=True)
    response = admin_client.post(
        URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "new one"}
    )
    assert (response.status_code, response.json()["campaign_name"]) == (201, "new one")
    assert Campaign.objects.get(name="new one").owner == admin


def test_adding_to_a_campaign_needs_the_right_to_change_it():
    owner_client, owner = client_for("owner", may_change=True)
    other_client, _ = client_for("other")
    creator_client, creator = client_for("creator", may_create=True)
    CampaignFactory(name="owned", imported_from="wmt-da", owner=owner)
    text = da_file(da_row("H9", "W1", "A", "SYSTEM", "1", "50"))
    response = other_client.post(URL, {"file": upload(text), "format": "wmt-da", "name": "owned"})
    assert (response.status_code, response.json()) == (403, forbidden("owned"))
    # One who may create campaigns, but cannot see "owned", is never added to it. Issue 11,
    # item 8: a dry run answers as for a free name (it used to rename: "owned (2)",
    # renamed_from "owned", which confirmed the hidden campaign), and so does the import:
    # names are unique per owner, so the creator gets a new campaign "owned" of their own (the
    # write used to refuse the name, unique site-wide then: 400 on "name").
    response = creator_client.post(
        URL, {"file": upload(text), "format": "wmt-da", "name": "owned", "dry_run": "true"}
    )
    assert response.status_code == 200
    assert {key: response.json()[key] for key in ("campaign_name", "created", "renamed_from")} == {
        "campaign_name": "owned",
        "created": True,
        "renamed_from": None,
    }
    response = creator_client.post(URL, {"file": upload(text), "format": "wmt-da", "name": "owned"})
    assert response.status_code == 201
    theirs = Campaign.objects.get(owner=creator)
    assert (response.json()["campaign"], response.json()["created"], theirs.name) == (
        theirs.pk,
        True,
        "owned",
    )
    # The owner adds to their own campaign without the add permission.
    response = owner_client.post(URL, {"file": upload(text), "format": "wmt-da", "name": "owned"})
    assert response.status_code == 201
    assert (response.json()["created"], response.json()["campaign_name"]) == (False, "owned")
    assert Judgment.objects.filter(campaign__name="owned", campaign__owner=owner).count() == 1


def test_an_upload_over_the_limit_answers_400_naming_the_limit(monkeypatch):
    client, _ = client_for("staff", is_staff=True)
    monkeypatch.setattr(judgment_importers, "MAX_UPLOAD_BYTES", 1000)
    size = len(WMT_DA_RAW.encode("utf-8"))
    response = client.post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x"})
    assert response.status_code == 400
    assert response.json() == {
        "detail": "1 problem found; nothing was imported.",
        "total": 1,
        "omitted": 0,
        "problems": [
            {
                "file": None,
                "line": None,
                "field": "file",
                "message": f"the upload is {size:,} bytes; uploads are limited to 1,000 bytes: "
                "import a bigger file with manage.py import_judgments on the server "
                "(docs/judgment-formats.md)",
            }
        ],
    }
    assert Campaign.objects.count() == 0


def test_a_body_announced_over_the_limit_is_refused_before_it_is_read():
    client, _ = client_for("staff", is_staff=True)
    # 513 MB announced, and 1 MB of room for the multipart framing: 1 MB over the limit.
    response = client.post(
        URL,
        {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x"},
        CONTENT_LENGTH=str(514 * 1024 * 1024),
    )
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "file": None,
            "line": None,
            "field": "file",
            "message": "the request's body is 513 MB; uploads are limited to 512 MB: import a "
            "bigger file with manage.py import_judgments on the server (docs/judgment-formats.md)",
        }
    ]
    assert Campaign.objects.count() == 0


def test_a_dry_run_answers_200_and_writes_nothing():
    client, _ = client_for("analyst", may_create=True)
    response = client.post(
        URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x", "dry_run": "true"}
    )
    assert response.status_code == 200
    assert (response.json()["dry_run"], response.json()["campaign"]) == (True, None)
    assert Campaign.objects.count() == 0


def test_an_mturk_batch_reconciles_only_the_users_own_campaigns():
    owner_client, owner = client_for("owner")
    other_client, _ = client_for("other")
    # Issue 11, item 4: staff status alone marked assignments of any campaign rejected (201).
    staff_client, _ = client_for("staff", is_staff=True)
    campaign = CampaignFactory(name="ours", owner=owner)
    AssignmentFactory(
        hit=HitFactory(campaign=campaign),
        worker=WorkerFactory(platform=Platform.MTURK, external_id="WA"),
        status=AssignmentStatus.SUBMITTED,
        platform_assignment_id="AS1",
    )
    batch = "HITId,AssignmentId,WorkerId,AssignmentStatus\nHIT1,AS1,WA,Rejected\n"
    # The owner too, until they have the change permission (the admin requires it).
    for client in (other_client, staff_client, owner_client):
        response = client.post(URL, {"file": upload(batch, "batch.csv"), "format": "mturk-batch"})
        assert response.status_code == 400
        assert response.json()["problems"][0]["field"] == "AssignmentId"
        assert Assignment.objects.get().status == AssignmentStatus.SUBMITTED
    batch = batch.replace("Rejected", "Approved")
    owner.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    response = owner_client.post(URL, {"file": upload(batch, "batch.csv"), "format": "mturk-batch"})
    assert response.status_code == 201
    assert response.json()["counts"]["mark_approved"] == 1
    assert Assignment.objects.get().status == AssignmentStatus.APPROVED


def test_without_credentials_the_endpoint_answers_401():
    response = APIClient().post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x"})
    assert response.status_code == 401
    assert Campaign.objects.count() == 0


def test_the_schema_describes_the_request_and_both_answers():
    client, _ = client_for("analyst")
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/imports/"]["post"]
    body = operation["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"]
    request = schema["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert set(request["properties"]) == {
        "file",
        "format",
        "name",
        "campaign",
        "source_language",
        "target_language",
        "standardised",
        "language_pair",
        "reference_system",
        "workers_counted",
        "dry_run",
    }
    assert request["required"] == ["file", "format"]
    assert request["properties"]["file"]["items"] == {"type": "string", "format": "binary"}
    assert set(operation["responses"]) >= {"200", "201", "400", "403"}
    problems = operation["responses"]["400"]["content"]["application/json"]["schema"]["$ref"]
    assert problems.endswith("/ImportProblems")


def test_workers_counted_is_an_import_option():
    # Issue 12: "everyone" for WMT's filtered files; anything else than the two values is a 400.
    client, _ = client_for("analyst", may_create=True)
    response = client.post(
        URL,
        {
            "file": upload(WMT_DA_RAW),
            "format": "wmt-da",
            "name": "WMT21 good",
            "workers_counted": "everyone",
        },
    )
    assert response.status_code == 201
    assert Campaign.objects.get().da_settings.workers_counted == "everyone"
    response = client.post(
        URL,
        {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x", "workers_counted": "all"},
    )
    assert response.status_code == 400
    assert Campaign.objects.count() == 1
