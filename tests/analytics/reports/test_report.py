"""The campaign report: admin page, CSV/JSON downloads and API (issue 17 item 3), on the
hand-worked direct-assessment campaign (tests/analytics/kinds/direct_assessment/
test_actions.py: one HIT of 26 items, a careful worker (8 s per item, reliable) and a random
clicker (1 s per item, unreliable))."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import MTurkHit
from judgments.models import Assignment, AssignmentStatus, Bonus, BonusStatus, Judgment, Worker
from tests.factories import HitFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def paid(cast, small):
    """$0.50 on MTurk's production marketplace (HIT of 5 assignments): careful submitted,
    random approved, a $0.25 bonus sent; careful in Germany, random's country unknown."""
    campaign = cast.campaign
    campaign.reward = Decimal("0.50")
    campaign.save(update_fields=["reward"])
    # Both taken at $0.50 (each assignment keeps the reward it was taken at).
    Assignment.objects.filter(pk=small.careful.pk).update(
        status=AssignmentStatus.SUBMITTED, reward=Decimal("0.50")
    )
    Assignment.objects.filter(pk=small.random.pk).update(
        status=AssignmentStatus.APPROVED, reward=Decimal("0.50")
    )
    small.careful.reward = small.random.reward = Decimal("0.50")
    MTurkHit.objects.create(
        hit=small.careful.hit,
        mturk_hit_id="3AQ7",
        hit_type_id="T1",
        sandbox=False,
        max_assignments=5,
    )
    Worker.objects.filter(pk=small.careful.worker_id).update(country="DE")
    Bonus.objects.create(
        assignment=small.random,
        worker=small.random.worker,
        amount=Decimal("0.25"),
        reason="Thanks",
        status=BonusStatus.SENT,
    )
    return cast


EXPECTED_LINES = [
    # Random approved: $0.50 + MTurk's 20%.
    {"key": "approved", "count": 1, "rewards": "0.50", "fees": "0.10", "total": "0.60"},
    # Careful submitted: due unless rejected, its own line.
    {"key": "submitted", "count": 1, "rewards": "0.50", "fees": "0.10", "total": "0.60"},
    {"key": "in_progress", "count": 0, "rewards": "0.00", "fees": "0.00", "total": "0.00"},
    # Redundancy 5, two places held: 3 not started, on MTurk.
    {"key": "not_started", "count": 3, "rewards": "1.50", "fees": "0.30", "total": "1.80"},
    # Direct assessment builds every HIT up front: nothing still to come.
    {"key": "to_come", "count": 0, "rewards": "0.00", "fees": "0.00", "total": "0.00"},
    {"key": "bonuses_sent", "count": 1, "rewards": "0.25", "fees": "0.05", "total": "0.30"},
    {"key": "bonuses_pending", "count": 0, "rewards": "0.00", "fees": "0.00", "total": "0.00"},
]


def _without_labels(lines):
    return [{k: v for k, v in line.items() if k != "label"} for line in lines]


def test_report_api_by_hand(paid, small):
    client = paid.client("analyst")
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/api/campaigns/{paid.campaign.pk}/report/")
    assert response.status_code == 200
    data = response.json()
    assert data["campaign"] == {
        "id": paid.campaign.pk,
        "name": paid.campaign.name,
        "kind": "direct_assessment",
    }
    assert (data["reward"], data["redundancy"], data["n_judgments"]) == ("0.50", 5, 52)
    assert data["assignments"] == {
        "started": 0,
        "submitted": 1,
        "approved": 1,
        "rejected": 0,
        "expired": 0,
        "returned": 0,
    }
    cost = data["cost"]
    assert _without_labels(cost["lines"]) == EXPECTED_LINES
    # Paid: 0.60 + 0.30; committed: + 0.60; projected: + 1.80.
    assert (cost["paid"], cost["committed"], cost["projected"]) == ("0.90", "1.50", "3.30")
    assert cost["fees_by_platform"] == {"mturk": "0.55"}
    # 26 judgments each: careful 26 x 8 s = 208 s, random 26 x 1 s = 26 s; quartiles
    # interpolated: 26 + (208 - 26) / 4 = 71.5 and 26 + 3 (208 - 26) / 4 = 162.5.
    assert data["time_per_assignment"] == {
        "n": 2,
        "n_untimed": 0,
        "median_seconds": 117.0,
        "q1_seconds": 71.5,
        "q3_seconds": 162.5,
        "mean_seconds": 117.0,
        "total_hours": pytest.approx(234 / 3600),
    }
    # Careful passed the reliability test; random did not (and is recommended for rejection).
    assert data["trust"]["rows"] == [
        {"status": "trusted", "workers": 1, "judgments": 26, "share_of_judgments": 0.5},
        {"status": "untrusted", "workers": 1, "judgments": 26, "share_of_judgments": 0.5},
        {"status": "undecided", "workers": 0, "judgments": 0, "share_of_judgments": 0.0},
    ]
    assert data["countries"] == [
        {"country": "DE", "workers": 1, "judgments": 26},
        {"country": "unknown", "workers": 1, "judgments": 26},
    ]
    times = Judgment.objects.filter(campaign=paid.campaign).values_list("submitted_at", flat=True)
    period = data["evaluation_period"]
    assert period["first"] == min(times).isoformat().replace("+00:00", "Z")
    assert period["last"] == max(times).isoformat().replace("+00:00", "Z")
    assert period["days"] == pytest.approx((max(times) - min(times)).total_seconds() / 86400)
    # Token; the user's permissions (2); the campaign; assignments, HITs, judgments,
    # bonuses, workers, the kind's trust table: one query per table.
    assert len(queries) == 10


def test_report_queries_do_not_grow_with_the_campaign(paid, small):
    client = paid.client("analyst")
    url = f"/api/campaigns/{paid.campaign.pk}/report/"
    with CaptureQueriesContext(connection) as before:
        client.get(url)
    for n in range(3):
        worker = Worker.objects.create(platform="prolific", external_id=f"p{n}", country="GB")
        Assignment.objects.create(
            campaign=paid.campaign,
            hit=small.careful.hit,
            worker=worker,
            status=AssignmentStatus.STARTED,
            expires_at=small.careful.expires_at,
            reward=small.careful.reward,  # as the hand-out stores it
        )
    # A second HIT, not on MTurk, in a campaign that names its Prolific study.
    HitFactory(campaign=paid.campaign, number=2)
    paid.campaign.prolific_study_id = "60a1b2c3d4e5f6a7b8c9d0e1"
    paid.campaign.save(update_fields=["prolific_study_id"])
    with CaptureQueriesContext(connection) as after:
        data = client.get(url).json()
    assert len(after) == len(before)
    lines = {line["key"]: line for line in data["cost"]["lines"]}
    # Three more in progress on the MTurk HIT: MTurk's work whatever the worker row says
    # (a HIT published there is handed out there only), 3 x ($0.50 + $0.10); its places are
    # all held now. The new HIT's 5 places are offered on Prolific: 5 x ($0.50 + 33.33% of
    # it, $0.17).
    assert (lines["in_progress"]["count"], lines["in_progress"]["total"]) == (3, "1.80")
    assert (lines["not_started"]["count"], lines["not_started"]["total"]) == (5, "3.35")
    assert data["cost"]["fees_by_platform"] == {"mturk": "0.55", "prolific": "0.85"}
    assert data["countries"][0] == {"country": "GB", "workers": 3, "judgments": 0}


def test_report_csv_from_the_api_and_the_admin(paid, client):
    api = paid.client("analyst").get(f"/api/campaigns/{paid.campaign.pk}/export/report.csv")
    assert api.status_code == 200
    assert api["Content-Type"] == "text/csv"
    rows = list(csv.reader(io.StringIO(api.content.decode())))
    assert rows[0] == ["section", "item", "measure", "value"]
    assert ["cost", "", "projected", "3.30"] in rows
    assert ["cost", "submitted", "total", "0.60"] in rows
    assert ["trust", "trusted", "judgments", "26"] in rows
    assert ["countries", "DE", "workers", "1"] in rows
    assert ["time_per_assignment", "", "median_seconds", "117.0"] in rows

    client.force_login(paid.users["analyst"])
    download = client.get(reverse("campaign-report-download", args=[paid.campaign.pk, "csv"]))
    assert download.status_code == 200
    assert "attachment" in download["Content-Disposition"]
    admin_rows = list(csv.reader(io.StringIO(download.content.decode())))
    # The same rows but the moment each was generated.
    assert [r for r in admin_rows if r[2] != "generated_at"] == [
        r for r in rows if r[2] != "generated_at"
    ]
    as_json = client.get(reverse("campaign-report-download", args=[paid.campaign.pk, "json"]))
    assert as_json.status_code == 200
    data = json.loads(as_json.content)
    assert data["cost"]["projected"] == "3.30"
    assert _without_labels(data["cost"]["lines"]) == EXPECTED_LINES
    assert client.get(f"/admin/campaigns/campaign/{paid.campaign.pk}/report.xml").status_code == 404


def test_report_page_shows_the_figures(paid, client):
    client.force_login(paid.users["analyst"])
    response = client.get(reverse("campaign-report", args=[paid.campaign.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Submitted, awaiting review" in page
    assert '<tr class="total" id="cost-projected">' in page
    assert ">3.30</td>" in page
    assert "117.0 s" in page
    assert "71.5 s – 162.5 s" in page
    assert "Trusted: passed the reliability test" in page
    assert reverse("campaign-still-needed", args=[paid.campaign.pk]) in page
    # The table counts every worker who started; the dashboard's plot of the same name counts
    # those with a judgment: the page says which it is.
    assert (
        "Every worker who started a task counts here, with a judgment or not (as 002's "
        "Table A.2 counts participants); the dashboard's plot counts the workers with at "
        "least one judgment."
    ) in page


@pytest.mark.parametrize("role", ["outsider", "other_analyst", "staff_only"])
def test_others_do_not_learn_the_campaign_exists(paid, client, role):
    client.force_login(paid.users[role])
    pk = paid.campaign.pk
    for name in ("campaign-report", "campaign-still-needed"):
        assert client.get(reverse(name, args=[pk])).status_code in (403, 404)
    assert client.get(reverse("campaign-report", args=[999999])).status_code in (403, 404)
    api = paid.client(role)
    for url in (
        f"/api/campaigns/{pk}/report/",
        f"/api/campaigns/{pk}/export/report.csv",
        f"/api/campaigns/{pk}/still-needed/",
    ):
        assert api.get(url).status_code == 404


def test_outsiders_get_404_and_anonymous_users_log_in(paid, client):
    pk = paid.campaign.pk
    client.force_login(paid.users["outsider"])
    assert client.get(reverse("campaign-report", args=[pk])).status_code == 404
    client.logout()
    response = client.get(reverse("campaign-report", args=[pk]))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))
    assert paid.client("anonymous").get(f"/api/campaigns/{pk}/report/").status_code == 401
    assert paid.client("worker_link").get(f"/api/campaigns/{pk}/report/").status_code == 401


def test_the_schema_documents_the_report_endpoints(paid):
    schema = paid.client("analyst").get("/api/schema/?format=json").json()
    paths = schema["paths"]
    assert "/api/campaigns/{campaign_id}/report/" in paths
    assert "/api/campaigns/{campaign_id}/still-needed/" in paths
    assert "/api/campaigns/{campaign_id}/export/report.csv" in paths
    assert "CampaignReport" in schema["components"]["schemas"]
    assert "StillNeeded" in schema["components"]["schemas"]


def test_report_csv_defuses_text_a_spreadsheet_would_run(paid):
    """A campaign named like a formula is written with a leading apostrophe; numbers (negative
    ones too) are left as they are."""
    from analytics.reports.export import report_csv

    paid.campaign.name = '=HYPERLINK("http://x.example","click")'
    paid.campaign.save(update_fields=["name"])
    api = paid.client("analyst").get(f"/api/campaigns/{paid.campaign.pk}/export/report.csv")
    rows = list(csv.reader(io.StringIO(api.content.decode())))
    assert ["campaign", "", "name", '\'=HYPERLINK("http://x.example","click")'] in rows
    assert ["cost", "", "projected", "3.30"] in rows
    data = {"campaign": {"id": 1, "name": "-x", "kind": "ranking"}, "generated_at": "-0.25"}
    text = report_csv(
        {
            **data,
            "reward": "0.50",
            "task_rewards": [],
            "redundancy": 5,
            "n_judgments": 0,
            "assignments": {},
            "cost": {
                "currency": "USD",
                "paid": "0",
                "committed": "0",
                "projected": "0",
                "lines": [],
                "fees_by_platform": {},
            },
            "time_per_assignment": {},
            "evaluation_period": {},
            "trust": {"rows": []},
            "countries": [],
        }
    )
    assert "campaign,,name,'-x" in text
    assert "campaign,,generated_at,-0.25" in text
