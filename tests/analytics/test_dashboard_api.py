"""The dashboards' plots through the API (issue 17 item 2): token authentication and the
per-campaign read rule as for every endpoint, content types, JSON errors, the schema's
content types, a ranking campaign's own plot."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import yaml

from analytics import actions
from analytics.dashboards.options import option_names
from tests.analytics.api.conftest import make_cast
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.analytics.plots.svg import SVG, texts
from tests.factories import CampaignFactory

DA_PLOTS = [
    "progress",
    "system-scores",
    "score-distributions",
    "worker-reliability",
    "workers-per-country",
]


@pytest.fixture
def cast(db):
    built = build_small_campaign()
    actions.recompute_campaign(built.campaign)
    yield make_cast(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)


def plots_url(campaign) -> str:
    return f"/api/campaigns/{campaign.pk}/plots/"


def test_list_names_the_kinds_plots_with_svg_and_png_urls(cast):
    response = cast.client("owner").get(plots_url(cast.campaign))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert [entry["name"] for entry in body] == DA_PLOTS
    first = body[0]
    base = f"http://testserver/api/campaigns/{cast.campaign.pk}/plots/progress/"
    assert first["svg"] == base + "?format=svg" and first["png"] == base + "?format=png"
    assert first["title"] == "Progress"


@pytest.mark.parametrize(("fmt", "content_type"), [("svg", "image/svg+xml"), ("png", "image/png")])
def test_a_plot_in_each_format(cast, fmt, content_type):
    response = cast.client("analyst").get(
        plots_url(cast.campaign) + "workers-per-country/", {"format": fmt}
    )
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    if fmt == "png":
        assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        assert "Country not known" in texts(ET.fromstring(response.content))


def test_svg_is_the_default_and_holds_the_systems(cast):
    response = cast.client("owner").get(plots_url(cast.campaign) + "system-scores/")
    assert response["Content-Type"] == "image/svg+xml"
    root = ET.fromstring(response.content)
    assert {"A", "B"} <= set(texts(root))
    points = [e.get("id") for e in root.iter(f"{SVG}g") if (e.get("id") or "").startswith("point")]
    assert points == ["point-0-0-0", "point-0-0-1"]


@pytest.mark.parametrize("role", ["anonymous", "inactive", "worker_link"])
def test_unauthenticated_get_401(cast, role):
    for url in (plots_url(cast.campaign), plots_url(cast.campaign) + "progress/"):
        response = cast.client(role).get(url)
        assert response.status_code == 401
        assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("role", ["other_analyst", "outsider", "staff_only"])
def test_users_without_access_get_404(cast, role):
    for url in (plots_url(cast.campaign), plots_url(cast.campaign) + "progress/"):
        response = cast.client(role).get(url)
        assert response.status_code == 404
        assert response.json() == {"detail": "No Campaign matches the given query."}


def test_errors_are_json_and_name_the_problem(cast):
    client = cast.client("owner")
    base = plots_url(cast.campaign)
    response = client.get(base + "progress/", {"format": "pdf"}, HTTP_ACCEPT="image/png")
    assert response.status_code == 400
    assert response.json() == {"format": ["Must be one of svg, png."]}
    response = client.get(base + "progress/", {"fromat": "png"})
    assert response.status_code == 400
    takes = ", ".join(("format", *option_names()))
    assert response.json() == {"fromat": [f"Unknown parameter; this export takes {takes}."]}
    response = client.get(base + "agreement-voters/")
    assert response.status_code == 404
    assert response.json() == {
        "detail": f"Campaign {cast.campaign.pk} (Direct assessment (slider)) has no plot named "
        f"'agreement-voters'; its plots are: {', '.join(DA_PLOTS)}."
    }


def test_empty_campaign_gets_a_no_judgments_figure(cast):
    empty = CampaignFactory(owner=cast.users["owner"])
    response = cast.client("owner").get(plots_url(empty) + "progress/")
    assert response.status_code == 200
    assert "No judgments yet." in texts(ET.fromstring(response.content))


def test_ranking_campaign_has_the_agreement_plot(db):
    built = build_ranking_campaign()
    actions.recompute_campaign(built.campaign)
    ranking = make_cast(built.campaign)
    client = ranking.client("owner")
    names = [entry["name"] for entry in client.get(plots_url(built.campaign)).json()]
    assert names == [
        "progress",
        "system-scores",
        "score-distributions",
        "agreement-voters",
        "workers-per-country",
    ]
    response = client.get(plots_url(built.campaign) + "agreement-voters/")
    root = ET.fromstring(response.content)
    curves = [e.get("id") for e in root.iter(f"{SVG}g") if (e.get("id") or "").startswith("curve")]
    assert curves == ["curve-0", "curve-1"]
    shown = texts(root)
    assert "Agreement with a held-out worker (% of pairwise labels)" in shown
    assert {"Unweighted (one vote each)", "Weighted by agreement with the other workers"} <= set(
        shown
    )
    actions.clear_recompute_flag(built.campaign.pk)


def test_schema_documents_both_image_types(admin_client):
    document = yaml.safe_load(admin_client.get("/api/schema/").content)
    plot = document["paths"]["/api/campaigns/{campaign_id}/plots/{plot}/"]["get"]
    assert set(plot["responses"]["200"]["content"]) == {"image/svg+xml", "image/png"}
    assert {"400", "401", "404"} <= set(plot["responses"])
    parameters = {p["name"]: p for p in plot["parameters"]}
    # drf-spectacular sorts enums.
    assert parameters["format"]["schema"]["enum"] == ["png", "svg"]
    assert parameters["format"]["schema"]["default"] == "svg"
    assert set(parameters["plot"]["schema"]["enum"]) == {
        "progress",
        "system-scores",
        "score-distributions",
        "worker-reliability",
        "agreement-voters",
        "workers-per-country",
    }
    listing = document["paths"]["/api/campaigns/{campaign_id}/plots/"]["get"]
    assert set(listing["responses"]["200"]["content"]) == {"application/json"}
