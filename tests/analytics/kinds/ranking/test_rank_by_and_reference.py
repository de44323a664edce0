"""The campaign's chosen score (``RankingSettings.rank_by``) ranks the systems in the API, and
the three win ratios come with their counts in the API, the exports and the panel; a named
reference is left out and said so (issue 12).

Three rankings (WMT10-12 layout) where the win ratios disagree:

    J1 s1: X 1, Y 1, Z 2 -> X=Y, X>Z, Y>Z
    J2 s1: X 1, Y 2, Z 1 -> X>Y, X=Z, Z>Y
    J1 s2: X 2, Y 1, Z 2 -> Y>X, X=Z, Y>Z

X: 2 wins, 3 ties, 1 loss; Y: 3, 1, 2; Z: 1, 2, 3 (6 comparisons each).
"better than or equal" (wins + ties)/6: X 5/6, Y 4/6, Z 3/6 -> X, Y, Z;
"better than" wins/6: X 2/6, Y 3/6, Z 1/6 -> Y, X, Z;
WMT12's wins/(wins + losses): X 2/3, Y 3/5, Z 1/4 -> X, Y, Z;
Expected Wins: X (1/2 + 1)/2 = 3/4, Y (1/2 + 2/3)/2 = 7/12, Z (0 + 1/3)/2 = 1/6 -> X, Y, Z.
"""

import io

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from analytics.actions import recompute_campaign
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Campaign, RankingSettings

pytestmark = pytest.mark.django_db

HEADER = (
    "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
    "system2Number,system2Id,system3Number,system3Id,system1rank,system2rank,system3rank"
)
ROWS = [
    "Czech,English,1,1,1,J1,1,X,2,Y,3,Z,1,1,2",
    "Czech,English,1,1,1,J2,1,X,2,Y,3,Z,1,2,1",
    "Czech,English,2,2,2,J1,1,X,2,Y,3,Z,2,1,2",
]


@pytest.fixture
def campaign() -> Campaign:
    text = "\n".join([HEADER, *ROWS]) + "\n"
    data = io.BytesIO(text.encode("utf-8"))
    data.name = "ranks.csv"
    import_judgments([data], ImportOptions("wmt10-rr", name="rank by", language_pair="cs-en"))
    return Campaign.objects.get()


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_superuser("root", "r@x.org", "pw"))
    return client


def body(response) -> str:
    assert response.status_code == 200
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode()


def choose(campaign: Campaign, **settings) -> Campaign:
    RankingSettings.objects.filter(pk=campaign.pk).update(**settings)
    return Campaign.objects.get(pk=campaign.pk)


def test_the_chosen_score_orders_the_systems_and_the_default_significance(campaign, api):
    systems = f"/api/campaigns/{campaign.pk}/systems/"
    significance = f"/api/campaigns/{campaign.pk}/significance/"
    assert api.get(f"/api/campaigns/{campaign.pk}/").json()["rank_by"] == "expected_wins"
    assert [row["name"] for row in api.get(systems).json()["results"]] == ["X", "Y", "Z"]
    assert api.get(significance).json()["method"] == "expected_wins"

    choose(campaign, rank_by="win_ratio_gt")
    assert [row["name"] for row in api.get(systems).json()["results"]] == ["Y", "X", "Z"]
    assert api.get(significance).json()["method"] == "win_ratio_gt"
    # ?method= still orders by the method asked for.
    by_geq = api.get(systems + "?method=win_ratio_geq").json()["results"]
    assert [row["name"] for row in by_geq] == ["X", "Y", "Z"]
    # TrueSkill has no bootstrap: the significance falls back to Expected Wins.
    choose(campaign, rank_by="trueskill")
    assert api.get(significance).json()["method"] == "expected_wins"


def test_the_three_win_ratios_with_their_counts_in_the_api_and_the_exports(campaign, api):
    results = api.get(f"/api/campaigns/{campaign.pk}/systems/").json()["results"]
    got = {
        (row["name"], score["method"]): (
            score["wins"],
            score["ties"],
            score["losses"],
            score["n"],
            score["score"],
        )
        for row in results
        for score in row["ranking"]
        if score["method"].startswith("win_ratio")
    }
    assert got == {
        ("X", "win_ratio_geq"): (2, 3, 1, 6, pytest.approx(5 / 6)),
        ("X", "win_ratio_gt"): (2, 3, 1, 6, pytest.approx(2 / 6)),
        ("X", "win_ratio_wmt12"): (2, 3, 1, 6, pytest.approx(2 / 3)),
        ("Y", "win_ratio_geq"): (3, 1, 2, 6, pytest.approx(4 / 6)),
        ("Y", "win_ratio_gt"): (3, 1, 2, 6, pytest.approx(3 / 6)),
        ("Y", "win_ratio_wmt12"): (3, 1, 2, 6, pytest.approx(3 / 5)),
        ("Z", "win_ratio_geq"): (1, 2, 3, 6, pytest.approx(3 / 6)),
        ("Z", "win_ratio_gt"): (1, 2, 3, 6, pytest.approx(1 / 6)),
        ("Z", "win_ratio_wmt12"): (1, 2, 3, 6, pytest.approx(1 / 4)),
    }
    expected = {s["method"]: s["score"] for s in results[0]["ranking"]}["expected_wins"]
    assert expected == pytest.approx(3 / 4)  # X's Expected Wins, unchanged

    export = f"/api/campaigns/{campaign.pk}/export/systems"
    csv_text = body(api.get(export + ".csv?method=win_ratio_wmt12"))
    lines = [line.split(",") for line in csv_text.splitlines()]
    assert lines[0][:4] + lines[0][8:12] == [
        "method",
        "rank_best",
        "rank_worst",
        "system",
        "n",
        "wins",
        "ties",
        "losses",
    ]
    assert [(row[0], row[3], *row[8:12]) for row in lines[1:]] == [
        ("win_ratio_wmt12", "X", "6", "2", "3", "1"),
        ("win_ratio_wmt12", "Y", "6", "3", "1", "2"),
        ("win_ratio_wmt12", "Z", "6", "1", "2", "3"),
    ]
    tsv = body(api.get(export + ".tsv?method=win_ratio_wmt12"))
    assert [line.split("\t")[6:11] for line in tsv.splitlines()] == [
        ["System", "n", "Wins", "Ties", "Losses"],
        ["X", "6", "2", "3", "1"],
        ["Y", "6", "3", "1", "2"],
        ["Z", "6", "1", "2", "3"],
    ]
    tex = body(api.get(export + ".tex?method=win_ratio_wmt12"))
    assert r"\# & $>$ others & 95\% interval & System & Wins & Ties & Losses & $n$ \\" in tex
    assert " & X & 2 & 3 & 1 & 6 \\\\" in tex


def test_the_panel_shows_wmt12s_table_the_chosen_score_and_the_reference(campaign):
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "r@x.org", "pw"))
    url = f"/admin/campaigns/campaign/{campaign.pk}/change/"
    html = client.get(url).content.decode()
    assert '<table id="ranking-scores-win_ratio_wmt12"' in html
    assert (
        '<h4>Expected Wins (WMT13) <span class="ranking-chosen">(ranks the systems: the '
        "campaign's chosen score)</span></h4>"
    ) in html
    assert "ranking-reference-system" not in html

    # Z named as the reference: left out of the scores and said so.
    recompute_campaign(choose(campaign, reference_system="Z"))
    html = client.get(url).content.decode()
    assert (
        '<p class="ranking-reference-system">Reference system: Z, left out of the table and '
        "of every other system&#x27;s comparisons (as WMT&#x27;s tables do).</p>"
    ) in html
    api = APIClient()
    api.force_login(get_user_model().objects.get(username="root"))
    results = api.get(f"/api/campaigns/{campaign.pk}/systems/").json()["results"]
    # X and Y only compared with each other: X=Y, X>Y, Y>X -> 1 win, 1 tie, 1 loss each.
    wmt12 = {
        row["name"]: [(s["wins"], s["ties"], s["losses"], s["n"]) for s in row["ranking"]]
        for row in results
    }
    assert wmt12 == {"X": [(1, 1, 1, 3)] * 6, "Y": [(1, 1, 1, 3)] * 6, "Z": []}
    assert api.get(f"/api/campaigns/{campaign.pk}/").json()["reference_system"] == "Z"
