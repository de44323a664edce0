"""POST /api/imports/ with ``campaign``: adding to a campaign chosen by its id, for a name that
several campaigns the user may change share (names are unique per owner, issue 11 item 8)."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from judgments.models import Judgment
from tests.analytics.api.test_imports import URL, client_for, upload
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row

pytestmark = pytest.mark.django_db
NAME = "WMT21 cs-en"
MORE = da_file(
    da_row("H9", "W9", "A", "SYSTEM", "1", "50"), da_row("H9", "W9", "B", "SYSTEM", "2", "40")
)


@pytest.fixture
def two_of_a_name():
    """Two users' imported campaigns of one name, and a superuser who may change both."""
    campaigns = []
    for owner in ("owner-a", "owner-b"):
        client, _ = client_for(owner, may_create=True)
        response = client.post(URL, {"file": upload(WMT_DA_RAW), "format": "wmt-da", "name": NAME})
        assert response.status_code == 201, response.json()
        campaigns.append(Campaign.objects.get(pk=response.json()["campaign"]))
    admin, _ = client_for("admin", is_superuser=True, is_staff=True)
    return admin, campaigns


def test_a_shared_name_is_refused_listing_the_ids_and_the_id_chooses(two_of_a_name):
    admin, (first, second) = two_of_a_name
    before = Judgment.objects.count()
    refused = admin.post(URL, {"file": upload(MORE), "format": "wmt-da", "name": NAME})
    assert refused.status_code == 400
    [problem] = refused.json()["problems"]
    assert problem["field"] == "name"
    assert f"id {first.pk}" in problem["message"] and f"id {second.pk}" in problem["message"]
    assert Judgment.objects.count() == before
    added = admin.post(URL, {"file": upload(MORE), "format": "wmt-da", "campaign": second.pk})
    assert added.status_code == 201, added.json()
    assert (added.json()["campaign"], added.json()["created"]) == (second.pk, False)
    assert Judgment.objects.filter(assignment__campaign=second).count() == 44 + 2
    assert Judgment.objects.filter(assignment__campaign=first).count() == 44


def test_an_id_one_may_not_change_is_answered_as_one_that_does_not_exist(two_of_a_name):
    _, (first, _) = two_of_a_name
    outsider, _ = client_for("outsider", may_create=True, may_change=True)
    answers = [
        outsider.post(URL, {"file": upload(MORE), "format": "wmt-da", "campaign": pk})
        for pk in (first.pk, 999_999)
    ]
    assert [answer.status_code for answer in answers] == [400, 400]
    assert [answer.json()["problems"][0]["message"] for answer in answers] == [
        f"no campaign you may import into has the id {first.pk}",
        "no campaign you may import into has the id 999999",
    ]
    assert Judgment.objects.filter(assignment__campaign=first).count() == 44


def test_a_name_and_an_id_together_are_refused(two_of_a_name):
    admin, (first, _) = two_of_a_name
    response = admin.post(
        URL, {"file": upload(MORE), "format": "wmt-da", "name": NAME, "campaign": first.pk}
    )
    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "file": None,
            "line": None,
            "field": "campaign",
            "message": "Give either a name or a campaign id, not both.",
        }
    ]
