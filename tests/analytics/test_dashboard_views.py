"""The admin's campaign dashboard and its plots (issue 17 item 2): who may see them, what the
page holds, the SVG and PNG answers, an empty campaign, and query counts that do not grow
with the data.

The cast is the API's (tests/analytics/api/conftest.py): owner, analyst granted read access,
an analyst of another campaign, an outsider, staff without permissions, an inactive user;
workers are not users and their links never log in to the admin."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.text import slugify

from analytics import actions
from judgments.models import Worker
from tests.analytics.api.conftest import make_cast
from tests.analytics.kinds.direct_assessment.test_actions import build_small_campaign
from tests.analytics.plots.svg import SVG, texts
from tests.factories import CampaignFactory, HitFactory, HitSlotFactory

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
    Worker.objects.filter(external_id="careful").update(country="DE")
    actions.recompute_campaign(built.campaign)
    yield make_cast(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)


def _client(client, cast, role):
    if role != "anonymous":
        client.force_login(cast.users[role])
    return client


def page_url(campaign) -> str:
    return reverse("campaign-dashboard", args=[campaign.pk])


def plot_url(campaign, name: str, fmt: str = "svg") -> str:
    return reverse("campaign-plot", args=[campaign.pk, name]) + f"?format={fmt}"


def test_owner_sees_every_plot_of_the_kind_inline_with_downloads(client, cast):
    response = _client(client, cast, "owner").get(page_url(cast.campaign))
    assert response.status_code == 200
    html = response.content.decode()
    for name in DA_PLOTS:
        base = reverse("campaign-plot", args=[cast.campaign.pk, name])
        assert f'<img src="{base}?format=svg"' in html
        assert (
            f'href="{base}?format=png" download="{slugify(cast.campaign.name)}-{name}.png"' in html
        )
        assert (
            f'href="{base}?format=svg" download="{slugify(cast.campaign.name)}-{name}.svg"' in html
        )
    # Ranking's plot is not a direct-assessment campaign's.
    assert "agreement-voters" not in html
    assert html.count('<figure class="dashboard-plot"') == len(DA_PLOTS)
    change = reverse("admin:campaigns_campaign_change", args=[cast.campaign.pk])
    assert f'href="{change}"' in html


@pytest.mark.parametrize("role", ["owner", "analyst", "staff"])
def test_readers_get_the_page_and_the_plots(client, cast, role):
    client = _client(client, cast, role)
    assert client.get(page_url(cast.campaign)).status_code == 200
    response = client.get(plot_url(cast.campaign, "workers-per-country"))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"


@pytest.mark.parametrize("role", ["other_analyst", "outsider", "staff_only"])
def test_staff_without_access_to_the_campaign_get_404(client, cast, role):
    client = _client(client, cast, role)
    assert client.get(page_url(cast.campaign)).status_code == 404
    assert client.get(plot_url(cast.campaign, "system-scores")).status_code == 404


def test_anonymous_users_and_workers_are_sent_to_the_login(client, cast):
    for url in (page_url(cast.campaign), plot_url(cast.campaign, "progress")):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    # A worker's signed link is no login; a non-staff user with access is no admin user.
    response = client.get(page_url(cast.campaign), {"token": cast.tokens["worker_link"]})
    assert response.status_code == 302
    member = get_user_model().objects.create_user("not-staff")
    cast.campaign.accesses.create(user=member)
    client.force_login(member)
    assert client.get(page_url(cast.campaign)).status_code == 302


def test_system_scores_svg_names_both_systems_with_ranks_and_counts(client, cast):
    response = _client(client, cast, "owner").get(plot_url(cast.campaign, "system-scores"))
    assert response["Content-Type"] == "image/svg+xml"
    assert response["Content-Disposition"] == (
        f'inline; filename="{slugify(cast.campaign.name)}-system-scores.svg"'
    )
    root = ET.fromstring(response.content)
    shown = texts(root)
    assert {"A", "B", "rank 1, judgments = 9", "rank 2, judgments = 9"} <= set(shown)
    points = [e.get("id") for e in root.iter(f"{SVG}g") if (e.get("id") or "").startswith("point-")]
    assert points == ["point-0-0-0", "point-0-0-1"]


def test_png_download(client, cast):
    response = _client(client, cast, "owner").get(plot_url(cast.campaign, "progress", "png"))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_bad_format_and_unknown_plot_say_what_is_wrong(client, cast):
    client = _client(client, cast, "owner")
    response = client.get(plot_url(cast.campaign, "progress", "pdf"))
    assert response.status_code == 400
    assert response.content.decode() == "format: must be one of svg, png, not 'pdf'."
    response = client.get(plot_url(cast.campaign, "agreement-voters"))
    assert response.status_code == 404
    assert response.content.decode() == (
        f"Campaign {cast.campaign.pk} (Direct assessment (slider)) has no plot named "
        f"'agreement-voters'; its plots are: {', '.join(DA_PLOTS)}."
    )


def test_empty_campaign_shows_no_judgments_yet_figures(client, cast):
    empty = CampaignFactory(name="Empty <campaign>", owner=cast.users["owner"])
    client = _client(client, cast, "owner")
    assert client.get(page_url(empty)).status_code == 200
    expected = {
        "progress": "No judgments yet.",
        "system-scores": "No system scores yet: they appear after the first judgments are in.",
        "score-distributions": "No scores yet: the distributions appear after the first "
        "judgments are in.",
        "worker-reliability": "No judgments yet: no worker to show.",
        "workers-per-country": "No judgments yet: no worker to count.",
    }
    for name, message in expected.items():
        response = client.get(plot_url(empty, name))
        assert response.status_code == 200, name
        shown = " ".join(" ".join(texts(ET.fromstring(response.content))).split())
        assert message in shown, (name, shown)


def test_live_plots_run_the_same_queries_whatever_the_data(client, cast):
    """One grouped query per table: the progress and country plots of a campaign with 52
    judgments run exactly the queries of one with a HIT built and no judgment (a campaign
    without HITs skips the progress's per-HIT queries)."""
    empty = CampaignFactory(owner=cast.users["owner"])
    HitSlotFactory(hit=HitFactory(campaign=empty))
    client = _client(client, cast, "owner")
    for name in ("progress", "workers-per-country"):
        counts = []
        for campaign in (empty, cast.campaign):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(plot_url(campaign, name)).status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1], name


def test_countries_plot_counts_workers_by_country(client, cast):
    response = _client(client, cast, "owner").get(plot_url(cast.campaign, "workers-per-country"))
    shown = texts(ET.fromstring(response.content))
    assert "Germany" in shown and "Country not known" in shown
    assert shown.count("1") >= 2  # one worker in each bar
    assert f"Workers per country: {cast.campaign.name} (2 workers)" in shown


def test_plots_of_the_stored_results_are_cached_until_the_next_recompute(client, cast):
    client = _client(client, cast, "owner")
    url = plot_url(cast.campaign, "system-scores")
    with CaptureQueriesContext(connection) as first:
        drawn = client.get(url).content
    with CaptureQueriesContext(connection) as second:
        again = client.get(url).content
    assert again == drawn
    # The cached figure: no SystemScore or judgment query, only the session, the campaign
    # and the stored result's computed_at.
    assert len(second) < len(first)
    assert not any("analytics_systemscore" in q["sql"] for q in second.captured_queries)
    # A recompute stores a new result: the figure is drawn again from it.
    actions.recompute_campaign(cast.campaign)
    with CaptureQueriesContext(connection) as third:
        assert client.get(url).content == drawn  # same data, same figure
    assert any("analytics_systemscore" in q["sql"] for q in third.captured_queries)
