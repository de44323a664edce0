"""The permission matrix: every endpoint under /api/, every role, every method, exact statuses.

The endpoints are enumerated from the OpenAPI schema, so an endpoint added later (an export,
the import) is covered without touching this file; one whose expectations cannot be derived
from the rules below (a new write operation, a new kind of path parameter) fails with a
message saying what to add. The rules:

- nobody unauthenticated gets anything: no credentials, an inactive account's token, or a
  worker's signed link sent as a token all get 401, whatever the URL and method;
- a campaign's URLs (/api/campaigns/{id}/...) answer 200 to a superuser, the owning
  requester and an analyst granted access (with campaigns.view_campaign: Django's model
  permissions come on top, ``analytics.access``), and 404 to any other user (an analyst of
  another campaign, a user with no campaign, a staff user without permissions: staff status
  alone grants nothing, issue 11 item 4): exactly what they answer for a campaign id that does
  not exist, so the 404 tells nothing;
- lists across campaigns answer 200 to every authenticated user, with only their campaigns;
- a method an endpoint does not document answers 405 to every authenticated user, before any
  campaign is looked up (so again the same for every campaign id);
- documented write operations have their own rows in ``WRITE_EXPECTATIONS``.
"""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.generators import SchemaGenerator

from analytics.models import CampaignAccess
from campaigns.models import Campaign, Hit, ImportJob, System
from judgments.models import Assignment, Judgment, Worker
from tests.analytics.api.conftest import NOT_READERS, READERS, ROLES, UNAUTHENTICATED, Cast

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")


def schema_operations() -> dict[str, set[str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        path: {method for method in operations if method in METHODS}
        for path, operations in schema["paths"].items()
    }


OPERATIONS = schema_operations()

# Documented write operations: the status each role gets for an empty request body. The
# import endpoint checks the request before who may do what with it (an empty upload names
# no campaign to create or add to), so an empty upload is a 400 ("file": required) for every
# authenticated user; who may create a campaign (campaigns.add_campaign, else 403) and who
# may add to one (its owner or a collaborator with change access, and change_campaign) is
# test_only_the_owner_and_superusers_may_import_into_a_campaign.
WRITE_EXPECTATIONS: dict[tuple[str, str], dict[str, int]] = {
    ("/api/imports/", "post"): {role: 400 for role in (*READERS, *NOT_READERS)},
}

# How to fill a path parameter, by the path segment before it: the model, and which of its
# rows belong to the cast's campaign.
OBJECTS = {
    "campaigns": (Campaign, lambda campaign: Campaign.objects.filter(pk=campaign.pk)),
    "systems": (System, lambda campaign: System.objects.filter(campaign=campaign)),
    "workers": (Worker, lambda campaign: Worker.objects.filter(assignments__campaign=campaign)),
    "hits": (Hit, lambda campaign: Hit.objects.filter(campaign=campaign)),
    "assignments": (Assignment, lambda campaign: Assignment.objects.filter(campaign=campaign)),
    "judgments": (Judgment, lambda campaign: Judgment.objects.filter(campaign=campaign)),
    "imports": (ImportJob, lambda campaign: campaign_owners_job(campaign)),
}
# Import jobs (issue 11 item 6) are their starter's, not the campaign's: only the job's owner
# (here the campaign's) and superusers see one; every other user gets 404.
JOB_READERS = ("staff", "owner")


def campaign_owners_job(campaign: Campaign):
    """An import job the campaign's owner started into it (made when first asked for)."""
    ImportJob.objects.get_or_create(
        kind="judgments", format="wmt-da", campaign=campaign, owner=campaign.owner
    )
    return ImportJob.objects.filter(campaign=campaign, owner=campaign.owner)


# Parameters that are names, not rows: a plot every kind has (issue 17's dashboards).
NAMES = {"plots": "progress"}

PARAMETER = re.compile(r"\{(\w+)\}")


def concrete(path: str, campaign: Campaign, *, missing: bool = False) -> str:
    """``path`` with every parameter filled with a row of ``campaign``; with ``missing``, the
    first one (the campaign, or the row a top-level detail URL names) with an id that does
    not exist."""
    parts = path.split("/")
    first = True
    for i, part in enumerate(parts):
        if not PARAMETER.fullmatch(part):
            continue
        before = parts[i - 1]
        if before in NAMES:
            parts[i] = NAMES[before]
            continue
        if before not in OBJECTS:
            pytest.fail(
                f"{path}: no rule fills {part} (after '{before}'); add one to OBJECTS in "
                "tests/analytics/api/test_permissions.py"
            )
        model, rows = OBJECTS[before]
        if missing and first:
            value = model.objects.order_by("-pk").first().pk + 1000
        else:
            value = rows(campaign).order_by("pk").first().pk
        first = False
        parts[i] = str(value)
    return "/".join(parts)


def is_campaign_path(path: str) -> bool:
    """A URL that names a campaign or a row of one (a top-level detail such as a judgment)."""
    return PARAMETER.search(path) is not None


def expected(path: str, method: str, role: str) -> int:
    if role in UNAUTHENTICATED:
        return 401
    if method not in OPERATIONS[path]:
        return 405
    if method != "get":
        rule = WRITE_EXPECTATIONS.get((path, method))
        if rule is None:
            pytest.fail(
                f"{method.upper()} {path} is a documented write operation with no expectations; "
                "add its statuses per role to WRITE_EXPECTATIONS"
            )
        return rule[role]
    if path.startswith("/api/imports/{"):
        return 200 if role in JOB_READERS else 404
    if is_campaign_path(path):
        return 200 if role in READERS else 404
    return 200


def call(cast: Cast, role: str, method: str, url: str) -> int:
    response = getattr(cast.client(role), method)(url)
    if response.streaming:  # drain the stream so its database cursor is closed
        b"".join(response.streaming_content)
    return response.status_code


def test_the_schema_lists_the_read_only_endpoints():
    assert {
        "/api/campaigns/",
        "/api/campaigns/{id}/",
        "/api/campaigns/{id}/significance/",
        "/api/campaigns/{campaign_pk}/systems/",
        "/api/campaigns/{campaign_pk}/systems/{id}/",
        "/api/campaigns/{campaign_pk}/segments/",
        "/api/campaigns/{campaign_pk}/workers/",
        "/api/campaigns/{campaign_pk}/workers/{id}/",
        "/api/campaigns/{campaign_pk}/hits/",
        "/api/campaigns/{campaign_pk}/hits/{id}/",
        "/api/campaigns/{campaign_pk}/assignments/",
        "/api/campaigns/{campaign_pk}/assignments/{id}/",
        "/api/campaigns/{campaign_pk}/judgments/",
        "/api/campaigns/{campaign_pk}/judgments/{id}/",
        "/api/judgments/",
        "/api/judgments/{id}/",
    } <= set(OPERATIONS)
    read_only = [path for path in OPERATIONS if not path.startswith(("/api/imports",))]
    assert all(OPERATIONS[path] == {"get"} for path in read_only), {
        path: OPERATIONS[path] for path in read_only if OPERATIONS[path] != {"get"}
    }


@pytest.mark.parametrize("path", sorted(OPERATIONS))
def test_every_role_gets_exactly_its_status(path, cast):
    url = concrete(path, cast.campaign)
    got = {(role, method): call(cast, role, method, url) for role in ROLES for method in METHODS}
    want = {(role, method): expected(path, method, role) for role in ROLES for method in METHODS}
    assert got == want, {key: (got[key], want[key]) for key in want if got[key] != want[key]}


@pytest.mark.parametrize("path", sorted(p for p in OPERATIONS if is_campaign_path(p)))
def test_a_campaign_you_may_not_read_answers_as_one_that_does_not_exist(path, cast):
    real = concrete(path, cast.campaign)
    absent = concrete(path, cast.campaign, missing=True)
    for role in NOT_READERS:
        for method in METHODS:
            assert call(cast, role, method, real) == call(cast, role, method, absent), (
                role,
                method,
                path,
            )
    # Readers get 404 for the missing campaign too (and the real one's status above).
    assert call(cast, "staff", "get", absent) == 404


def test_the_api_root_needs_credentials(cast):
    for role in ROLES:
        assert call(cast, role, "get", "/api/") == (401 if role in UNAUTHENTICATED else 200)


@pytest.mark.parametrize("page", ["/api/schema/", "/api/docs/"])
def test_the_schema_and_its_documentation_need_a_login(page, cast):
    # Issue 11 item 9 (this expectation was "public"): the schema describes no campaign, but it
    # is for requesters only, like the rest of the API. Any valid token (or session) reads it;
    # no credentials or a bad token get 401, except that the documentation page sends an
    # anonymous browser to the admin's login page.
    statuses = {role: call(cast, role, "get", page) for role in ROLES}
    anonymous = 302 if page == "/api/docs/" else 401
    assert statuses == {
        role: (anonymous if role == "anonymous" else 401) if role in UNAUTHENTICATED else 200
        for role in ROLES
    }


def test_lists_across_campaigns_hold_only_the_campaigns_a_user_may_read(cast):
    other = cast.other_campaign.pk
    mine = cast.campaign.pk
    seen = {
        role: sorted(
            row["id"] for row in cast.client(role).get("/api/campaigns/").json()["results"]
        )
        for role in (*READERS, *NOT_READERS)
    }
    assert seen == {
        "staff": sorted([mine, other]),
        "owner": [mine],
        "analyst": [mine],
        "other_analyst": [other],
        "outsider": [],
        "staff_only": [],
    }
    judgments = {
        role: cast.client(role).get("/api/judgments/").json()["count"]
        for role in (*READERS, *NOT_READERS)
    }
    assert judgments == {
        "staff": 52,
        "owner": 52,
        "analyst": 52,
        "other_analyst": 0,
        "outsider": 0,
        "staff_only": 0,
    }


def test_a_campaign_filter_naming_a_campaign_you_may_not_read_is_404(cast):
    url = f"/api/judgments/?campaign={cast.campaign.pk}"
    statuses = {role: call(cast, role, "get", url) for role in ROLES}
    assert statuses == {
        "staff": 200,
        "owner": 200,
        "analyst": 200,
        "other_analyst": 404,
        "outsider": 404,
        "staff_only": 404,
        "inactive": 401,
        "anonymous": 401,
        "worker_link": 401,
    }
    assert call(cast, "staff", "get", "/api/judgments/?campaign=x") == 400


def test_revoking_access_or_the_token_closes_the_api(cast):
    url = f"/api/campaigns/{cast.campaign.pk}/systems/"
    assert call(cast, "analyst", "get", url) == 200
    CampaignAccess.objects.filter(user=cast.users["analyst"]).delete()
    assert call(cast, "analyst", "get", url) == 404
    cast.users["owner"].auth_token.delete()
    assert call(cast, "owner", "get", url) == 401


def wmt_da_file(hit: str) -> SimpleUploadedFile:
    """One WMT direct-assessment judgment (docs/judgment-formats.md)."""
    text = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
    text += f"{hit}\tW1\tcs\ten\tad\t1\tOnline-B\t1\tSYSTEM\t1\t70\t60.0\n"
    return SimpleUploadedFile("ad-csen.tsv", text.encode(), content_type="text/plain")


def test_only_the_owner_and_superusers_may_import_into_a_campaign(cast):
    add_campaign = Permission.objects.get(codename="add_campaign")

    def add(role: str, hit: str = ""):
        return cast.client(role).post(
            "/api/imports/",
            {"file": wmt_da_file(hit or f"HIT-{role}"), "format": "wmt-da", "name": "WMT21 cs-en"},
            format="multipart",
        )

    def dry_run(role: str, name: str) -> tuple[int, str]:
        """The dry run's status and answer, with the name asked for written NAME."""
        response = cast.client(role).post(
            "/api/imports/",
            {"file": wmt_da_file("HIT-x"), "format": "wmt-da", "name": name, "dry_run": "true"},
            format="multipart",
        )
        return response.status_code, response.content.decode().replace(name, "NAME")

    # Creating a campaign needs the add permission: a requester has it (staff status alone
    # is not enough: the staff_only role is refused below).
    cast.users["owner"].user_permissions.add(add_campaign)
    created = add("owner", "HIT1")
    assert created.status_code == 201, created.content
    imported = Campaign.objects.get(pk=created.json()["campaign"])
    assert (imported.name, imported.owner) == ("WMT21 cs-en", cast.users["owner"])
    CampaignAccess.objects.create(campaign=imported, user=cast.users["analyst"])
    assert call(cast, "analyst", "get", f"/api/campaigns/{imported.pk}/") == 200

    # Adding to it needs the right to change it. Everyone else without the add permission,
    # the analyst who reads it included, gets 403 for creating a campaign: the same answer as
    # for a name no campaign has (so it confirms nothing to those who cannot see it).
    refused = {
        "detail": 'No campaign you may import into is named "WMT21 cs-en", and creating a '
        "campaign needs the permission to add campaigns (campaigns.add_campaign)."
    }
    for role in ("analyst", *NOT_READERS):
        response = add(role)
        assert (response.status_code, response.json()) == (403, refused), role
    assert Judgment.objects.filter(campaign=imported).count() == 1
    for role in UNAUTHENTICATED:
        assert add(role).status_code == 401
    for role in ("owner", "staff"):
        response = add(role)
        assert response.status_code == 201, (role, response.content)
        assert (response.json()["created"], response.json()["campaign"]) == (False, imported.pk)
    assert Judgment.objects.filter(campaign=imported).count() == 3

    # With the add permission: one who cannot see the campaign is not told of it (issue 11,
    # item 8: a dry run answers exactly as for a free name, where it used to rename to
    # "WMT21 cs-en (2)" and so confirm the hidden campaign; and so does the import: names are
    # unique per owner, so the outsider gets a new campaign of their own, where the write used
    # to refuse the name, unique site-wide then); one who reads it is told the name is taken.
    for role in ("analyst", "outsider"):
        cast.users[role].user_permissions.add(add_campaign)
    taken, free = dry_run("outsider", "WMT21 cs-en"), dry_run("outsider", "free name")
    assert taken == free
    assert (taken[0], json.loads(taken[1])["renamed_from"]) == (200, None)
    response = add("outsider")
    assert response.status_code == 201, response.content
    theirs = Campaign.objects.get(owner=cast.users["outsider"])
    assert (response.json()["campaign"], response.json()["created"], theirs.name) == (
        theirs.pk,
        True,
        "WMT21 cs-en",
    )
    response = add("analyst")
    assert (response.status_code, response.json()["problems"]) == (
        400,
        [
            {
                "file": None,
                "line": None,
                "field": "name",
                "message": 'the name "WMT21 cs-en" is taken by a campaign you cannot import '
                "into; choose another name for a new campaign",
            }
        ],
    )
    assert Judgment.objects.filter(campaign=imported).count() == 3
    # The owner's campaign and the outsider's own (no "WMT21 cs-en (2)").
    assert set(
        Campaign.objects.filter(name__startswith="WMT21 cs-en").values_list("owner", flat=True)
    ) == {cast.users["owner"].pk, cast.users["outsider"].pk}


def test_model_permissions_come_on_top_of_what_is_shared(cast):
    """A grant without campaigns.view_campaign shows nothing, as in the admin."""
    analyst = cast.users["analyst"]
    url = f"/api/campaigns/{cast.campaign.pk}/"
    assert call(cast, "analyst", "get", url) == 200
    analyst.user_permissions.remove(Permission.objects.get(codename="view_campaign"))
    assert call(cast, "analyst", "get", url) == 404
    assert cast.client("analyst").get("/api/campaigns/").json()["count"] == 0
    assert call(cast, "analyst", "get", f"{url}export/judgments.csv") == 404


def test_change_access_is_granted_per_campaign_and_needs_the_change_permission(cast):
    """A read grant never imports into the campaign; a change grant does, with
    campaigns.change_campaign."""
    change = Permission.objects.get(codename="change_campaign")
    created = cast.client("owner").post(
        "/api/imports/",
        {"file": wmt_da_file("H-owner"), "format": "wmt-da", "name": "imported"},
        format="multipart",
    )
    assert created.status_code == 201, created.content
    imported = Campaign.objects.get(pk=created.json()["campaign"])
    grant = CampaignAccess.objects.create(campaign=imported, user=cast.users["analyst"])
    cast.users["analyst"].user_permissions.add(change)

    def add(hit: str) -> int:
        return (
            cast.client("analyst")
            .post(
                "/api/imports/",
                {"file": wmt_da_file(hit), "format": "wmt-da", "name": "imported"},
                format="multipart",
            )
            .status_code
        )

    assert add("H-read") == 403  # read access: "no campaign you may import into"
    grant.level = "change"
    grant.save()
    assert add("H-change") == 201
    cast.users["analyst"].user_permissions.remove(change)
    assert add("H-no-perm") == 403
    assert Judgment.objects.filter(campaign=imported).count() == 2


def test_the_schema_says_how_to_authenticate_with_the_key_shown():
    """The docs page rendered "Authorization: Token <key>" as HTML, losing "<key>"."""
    description = SchemaGenerator().get_schema(request=None, public=True)["info"]["description"]
    assert "Authenticate with `Authorization: Token <key>`" in description
