"""The plots' switches (issue 17): the kind's "every worker" variant and ranking's scoring
method, by the systems endpoint's parameter names and read from the same stored variant; the
admin dashboard's GET form, its plot URLs and downloads keep them; bad values are a 400
naming the parameter."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html import unescape

import pytest
from django.urls import reverse

from analytics import actions
from analytics.dashboards.catalogue import plot_bytes
from analytics.dashboards.options import PlotOptions
from analytics.models import RankingMethod, RankingScore, SystemScore
from tests.analytics.api.conftest import make_cast
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.analytics.plots.svg import texts

pytestmark = pytest.mark.django_db


@pytest.fixture
def da():
    built = build_small_campaign()
    actions.recompute_campaign(built.campaign)
    yield make_cast(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)


@pytest.fixture
def ranking():
    built = build_ranking_campaign()
    actions.recompute_campaign(built.campaign)
    yield make_cast(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)


def api_plot(campaign, name: str) -> str:
    return f"/api/campaigns/{campaign.pk}/plots/{name}/"


def n_labels(svg: bytes, label: str) -> list[str]:
    """The forest plot's counts ("rank 1-2, comparisons = 30" gives "comparisons = 30")."""
    found = []
    for text in texts(ET.fromstring(svg)):
        match = re.search(rf"\b{label} = [0-9,]+$", text)
        if match:
            found.append(match.group(0))
    return found


def stored_n(model, label: str, **variant) -> list[str]:
    return [
        f"{label} = {n:,}"
        for n in model.objects.filter(**variant).order_by("position").values_list("n", flat=True)
    ]


def test_direct_assessment_plots_switch_to_every_worker_like_the_systems_endpoint(da):
    client = da.client("owner")
    campaign = da.campaign
    default = client.get(api_plot(campaign, "system-scores"))
    everyone = client.get(api_plot(campaign, "system-scores"), {"include_unreliable": "1"})
    assert default.status_code == everyone.status_code == 200
    # The stored variant the systems endpoint reads with the same parameter.
    systems = client.get(
        f"/api/campaigns/{campaign.pk}/systems/", {"include_unreliable": "1"}
    ).json()["results"]
    assert n_labels(everyone.content, "judgments") == [
        f"judgments = {row['direct_assessment']['n']:,}" for row in systems
    ]
    assert n_labels(everyone.content, "judgments") == stored_n(
        SystemScore, "judgments", campaign=campaign, include_unreliable=True
    )
    assert n_labels(default.content, "judgments") == stored_n(
        SystemScore, "judgments", campaign=campaign, include_unreliable=False
    )
    assert n_labels(default.content, "judgments") != n_labels(everyone.content, "judgments")
    assert any("every worker" in t for t in texts(ET.fromstring(everyone.content)))
    assert any("reliable workers only" in t for t in texts(ET.fromstring(default.content)))
    assert 'system-scores-all.svg"' in everyone["Content-Disposition"]
    # The distributions follow the same switch.
    boxes = client.get(api_plot(campaign, "score-distributions"), {"include_unreliable": "1"})
    assert any("every worker" in t for t in texts(ET.fromstring(boxes.content)))


def test_bad_switch_values_are_400_naming_the_parameter(da):
    client = da.client("owner")
    response = client.get(api_plot(da.campaign, "system-scores"), {"include_unreliable": "maybe"})
    assert response.status_code == 400
    assert response.json() == {"include_unreliable": ["Must be a valid boolean."]}
    response = client.get(api_plot(da.campaign, "system-scores"), {"method": "elo"})
    assert response.status_code == 400
    assert response.json() == {"method": ['"elo" is not a valid choice.']}
    # The admin's plot and page answer the same in plain text.
    client.force_login(da.users["owner"])
    url = reverse("campaign-plot", args=[da.campaign.pk, "system-scores"])
    response = client.get(url, {"include_unreliable": "maybe"})
    assert response.status_code == 400
    assert response.content.decode() == "include_unreliable: Must be a valid boolean."
    page = reverse("campaign-dashboard", args=[da.campaign.pk])
    assert client.get(page, {"include_unreliable": "maybe"}).status_code == 400


@pytest.mark.parametrize("method", [RankingMethod.BRADLEY_TERRY, RankingMethod.TRUESKILL])
def test_ranking_method_and_untrusted_workers(ranking, method):
    client = ranking.client("owner")
    campaign = ranking.campaign
    response = client.get(
        api_plot(campaign, "system-scores"), {"method": method, "include_untrusted": "true"}
    )
    assert response.status_code == 200
    shown = texts(ET.fromstring(response.content))
    assert RankingMethod(method).label in shown
    assert any("every worker" in t for t in shown)
    assert n_labels(response.content, "comparisons") == stored_n(
        RankingScore, "comparisons", campaign=campaign, include_untrusted=True, method=method
    )
    assert f"system-scores-all-{method}.svg" in response["Content-Disposition"]
    # Left out: the campaign's own method, trusted workers.
    default = client.get(api_plot(campaign, "system-scores"))
    rank_by = campaign.ranking_settings.rank_by
    assert RankingMethod(rank_by).label in texts(ET.fromstring(default.content))
    assert n_labels(default.content, "comparisons") == stored_n(
        RankingScore, "comparisons", campaign=campaign, include_untrusted=False, method=rank_by
    )
    # The untrusted ("reversed") worker's comparisons count only with the switch.
    assert n_labels(default.content, "comparisons") != stored_n(
        RankingScore, "comparisons", campaign=campaign, include_untrusted=True, method=rank_by
    )


def test_ranking_agreement_and_ranks_follow_the_untrusted_switch(ranking):
    campaign = ranking.campaign
    trusted, _ = plot_bytes(campaign, "score-distributions", "svg")
    everyone, _ = plot_bytes(campaign, "score-distributions", "svg", PlotOptions(include_all=True))
    assert any("trusted workers only" in t for t in texts(ET.fromstring(trusted)))
    assert any("every worker" in t for t in texts(ET.fromstring(everyone)))
    voters, _ = plot_bytes(campaign, "agreement-voters", "svg", PlotOptions(include_all=True))
    assert any("(ranking, every worker)" in t for t in texts(ET.fromstring(voters)))


def test_other_kinds_parameters_are_ignored_as_the_systems_endpoint_does(da):
    client = da.client("owner")
    plain = client.get(api_plot(da.campaign, "system-scores"))
    other = client.get(
        api_plot(da.campaign, "system-scores"),
        {"include_untrusted": "1", "method": RankingMethod.TRUESKILL},
    )
    assert other.status_code == 200
    assert other.content == plain.content
    assert other["Content-Disposition"] == plain["Content-Disposition"]


def test_plot_list_keeps_the_switches_in_its_urls(ranking):
    response = ranking.client("owner").get(
        f"/api/campaigns/{ranking.campaign.pk}/plots/",
        {"include_untrusted": "1", "method": RankingMethod.BRADLEY_TERRY},
    )
    entry = next(e for e in response.json() if e["name"] == "system-scores")
    assert entry["svg"].endswith(
        "/system-scores/?format=svg&include_untrusted=1&method=bradley_terry"
    )


def test_dashboard_form_offers_the_kinds_switches_and_keeps_them_in_downloads(client, ranking):
    client.force_login(ranking.users["owner"])
    campaign = ranking.campaign
    page = reverse("campaign-dashboard", args=[campaign.pk])
    html = client.get(page).content.decode()
    form = re.search(r'<form class="dashboard-switches".*?</form>', html, re.S).group(0)
    assert 'method="get"' in form
    assert '<input type="checkbox" name="include_untrusted" value="1">' in form
    assert "Include untrusted workers" in form
    options = re.findall(r'<option value="([a-z_0-9]+)"( selected)?>([^<]*)</option>', form)
    assert [value for value, _, _ in options] == list(RankingMethod.values)
    rank_by = campaign.ranking_settings.rank_by
    assert [value for value, selected, _ in options if selected] == [rank_by]
    assert dict((v, label) for v, _, label in options)[rank_by].endswith("(the campaign's)")

    html = client.get(page, {"include_untrusted": "1", "method": "trueskill"}).content.decode()
    assert '<input type="checkbox" name="include_untrusted" value="1" checked>' in html
    assert '<option value="trueskill" selected>' in html
    base = reverse("campaign-plot", args=[campaign.pk, "system-scores"])
    src = f"{base}?format=svg&amp;include_untrusted=1&amp;method=trueskill"
    assert f'<img src="{src}"' in html
    png = f"{base}?format=png&amp;include_untrusted=1&amp;method=trueskill"
    assert re.search(
        rf'href="{re.escape(png)}" download="[^"]*-system-scores-all-trueskill.png"', html
    )
    # The URL the page links answers with the chosen variant.
    response = client.get(unescape(src))
    assert response.status_code == 200
    assert RankingMethod.TRUESKILL.label in texts(ET.fromstring(response.content))


def test_direct_assessment_dashboard_has_no_method_switch(client, da):
    client.force_login(da.users["owner"])
    html = client.get(reverse("campaign-dashboard", args=[da.campaign.pk])).content.decode()
    assert 'name="include_unreliable"' in html and "Include unreliable workers" in html
    assert 'name="method"' not in html
