"""Judgments still needed (issue 17 item 4), through the API and the admin page, on the
hand-worked campaigns of tests/analytics/api/conftest.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from scipy import stats

from analytics import actions
from analytics.reports import kinds
from analytics.stats.power import (
    SIMULATION_MAX_N,
    SIMULATION_REPLICATES,
    SIMULATION_SEED,
    rank_sum_size,
    simulated_rank_sum_sizing,
)
from judgments.models import CampaignWorker, Judgment
from tests.analytics.kinds.direct_assessment.test_actions import CAREFUL
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, JudgmentFactory

pytestmark = pytest.mark.django_db

# The careful worker's scores with system B brought close to A: B's outputs (items 7-12) and
# the repeats of B's outputs 10-12 (items 22-24). Bad references stay 30 points below their
# sources, so the worker stays reliable.
CLOSE = list(CAREFUL)
CLOSE[6:12] = [78, 83, 79, 81, 80, 84]
CLOSE[21:24] = [82, 79, 85]
# Segment means (raw; z is one increasing linear map of them for one worker, so ranks and
# the rank-sum test are the same): A 80, 84, 77, 82.5, 79, 85.5 (Ave 81.33); B 78, 83, 79,
# 81.5, 79.5, 84.5 (Ave 80.92).
A_MEANS = [80, 84, 77, 82.5, 79, 85.5]
B_MEANS = [78, 83, 79, 81.5, 79.5, 84.5]


@pytest.fixture
def close(cast, small):
    campaign = cast.campaign
    campaign.reward = "0.50"
    campaign.save(update_fields=["reward"])
    by_position = {
        j.slot.position: j.pk
        for j in Judgment.objects.filter(assignment=small.careful).select_related("slot")
    }
    for position, score in enumerate(CLOSE, start=1):
        Judgment.objects.filter(pk=by_position[position]).update(score=score)
    actions.recompute_campaign(campaign)
    return cast


def test_a_close_pair_by_hand(close, small):
    data = close.client("analyst").get(f"/api/campaigns/{close.campaign.pk}/still-needed/")
    assert data.status_code == 200
    data = data.json()
    assert data["available"] is True
    assert data["unit"] == "segment means"
    assert data["test"] == ("one-sided Wilcoxon rank-sum (Mann-Whitney U) on segment-mean z-scores")
    assert (data["n_systems"], data["n_separated"]) == (2, 0)
    # Per system per assignment: 100 items x 18 of the HIT's 26 slots are outputs or repeats,
    # over 2 systems = 34.615.
    assert data["judgments_per_assignment"] == pytest.approx(100 * 18 / 26 / 2)
    assert data["cost_per_assignment"] == "0.50"  # direct links: no fee
    (pair,) = data["pairs"]
    assert (pair["better"], pair["worse"]) == ("A", "B")
    # P(A > B): 80 beats 3 of B, 84 beats 5, 77 none, 82.5 beats 4, 79 beats 78 and ties 79
    # (1.5), 85.5 beats all 6: 19.5 / 36.
    assert pair["effect"] == pytest.approx(19.5 / 36)
    expected_p = stats.mannwhitneyu(A_MEANS, B_MEANS, alternative="greater").pvalue
    assert pair["p_value"] == pytest.approx(expected_p)
    assert pair["p_value"] > 0.05
    # Noether: N = (1.644854 + 0.841621)^2 / (3 (19.5/36 - 1/2)^2) = 6.182557 / 0.0052083
    # = 1187.05, 594 segment means per system (6 now); the campaign has 12 segments.
    assert (pair["units_now"], pair["units_needed"]) == (6, 594)
    assert pair["exceeds_segments"] is True
    assert "Import more segments" in pair["note"]
    # 588 more segment means x 1.5 judgments each = 882 per system; an assignment brings
    # 34.615 per system, of which today's counted share (18 of 36 output judgments: the
    # careful worker's) counts: 882 / 17.308 = 50.96, so 51 assignments of 100 items, at
    # $0.50 each.
    assert (pair["more_assignments"], pair["more_judgments"], pair["cost"]) == (51, 5100, "25.50")


def test_the_page_says_what_the_api_says(close):
    client = Client()
    client.force_login(close.users["analyst"])
    page = client.get(reverse("campaign-still-needed", args=[close.campaign.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Pairs not significantly different yet" in html
    assert "<td>A</td><td>B</td>" in html
    assert ">594</td>" in html and ">51</td>" in html and ">25.50</td>" in html
    assert "Noether" in html
    assert "Assumptions" in html


def test_every_pair_separated(cast):
    """The fixture's careful worker puts every A segment above every B segment: exact
    one-sided p = 1 / C(12, 6) = 1/924, separated."""
    data = cast.client("analyst").get(f"/api/campaigns/{cast.campaign.pk}/still-needed/").json()
    assert (data["n_systems"], data["n_separated"], data["pairs"]) == (2, 1, [])
    client = Client()
    client.force_login(cast.users["analyst"])
    html = client.get(reverse("campaign-still-needed", args=[cast.campaign.pk])).content
    assert b"Every pair of systems is significantly different already" in html


def test_computed_once_per_stored_result(close, monkeypatch):
    url = f"/api/campaigns/{close.campaign.pk}/still-needed/"
    cache.clear()
    calls = []
    entry = kinds.registry[close.campaign.kind]
    monkeypatch.setitem(
        kinds.registry,
        close.campaign.kind,
        replace(
            entry,
            estimate=lambda campaign, base, method: (
                calls.append(1) or entry.estimate(campaign, base, method)
            ),
        ),
    )
    first = close.client("analyst").get(url).json()
    second = close.client("analyst").get(url).json()
    assert first == second
    assert len(calls) == 1
    # A new stored result (another computed_at) is estimated again.
    actions.recompute_campaign(close.campaign)
    third = close.client("analyst").get(url).json()
    assert len(calls) == 2
    assert third["computed_at"] != first["computed_at"]
    assert third["pairs"] == first["pairs"]


def test_kinds_without_an_estimate_and_campaigns_not_computed(cast):
    owner = cast.users["owner"]
    post_editing = CampaignFactory(owner=owner, kind="post_editing")
    data = cast.client("owner").get(f"/api/campaigns/{post_editing.pk}/still-needed/").json()
    assert data["available"] is False
    assert data["reason"] == (
        "Post-editing (HTER) campaigns have no estimate of judgments still needed: only "
        "direct assessment (rank-sum test) and ranking (bootstrap) have one."
    )
    fresh = CampaignFactory(owner=owner)
    JudgmentFactory(assignment=AssignmentFactory(hit=HitFactory(campaign=fresh)))
    data = cast.client("owner").get(f"/api/campaigns/{fresh.pk}/still-needed/").json()
    assert data["available"] is False
    assert "not been computed yet" in data["reason"]
    client = Client()
    client.force_login(owner)
    html = client.get(reverse("campaign-still-needed", args=[fresh.pk])).content.decode()
    assert "not been computed yet" in html


def test_ranking_pairs_follow_the_stored_bootstrap(ranking_cast):
    """The ranking campaign's separations are the stored Expected Wins bootstrap's (same
    draws): the pairs still needed are exactly those whose stored p is 0.05 or more."""
    client = ranking_cast.client("analyst")
    pk = ranking_cast.campaign.pk
    data = client.get(f"/api/campaigns/{pk}/still-needed/").json()
    stored = client.get(f"/api/campaigns/{pk}/significance/?method=expected_wins").json()
    names = [system["name"] for system in stored["systems"]]
    open_pairs = {
        (names[i], names[j])
        for i in range(len(names))
        for j in range(i + 1, len(names))
        if stored["p_values"][i][j] >= 0.05
    }
    assert data["available"] is True
    assert data["unit"] == "ranking sets"
    assert data["n_systems"] == len(names)
    assert {(p["better"], p["worse"]) for p in data["pairs"]} == open_pairs
    assert data["n_separated"] == len(names) * (len(names) - 1) // 2 - len(open_pairs)
    assert data["judgments_per_assignment"] == 3 * 3  # 3 sets per HIT x 3 outputs per set


def test_an_open_ranking_pair_by_hand(ranking_cast, ranking):
    """The reversed worker trusted again (the requester cleared the mark): careful, ties and
    reversed count, and B (Expected Wins 0.607) is not separated from A (0.583)."""
    CampaignWorker.objects.filter(
        campaign=ranking_cast.campaign, worker_id=ranking.workers["reversed"]
    ).update(untrusted=False)
    actions.recompute_campaign(ranking_cast.campaign)
    client = ranking_cast.client("analyst")
    pk = ranking_cast.campaign.pk
    data = client.get(f"/api/campaigns/{pk}/still-needed/").json()
    stored = client.get(f"/api/campaigns/{pk}/significance/?method=expected_wins").json()
    scores = {system["name"]: system["score"] for system in stored["systems"]}
    assert data["n_separated"] == 2
    (pair,) = data["pairs"]
    assert (pair["better"], pair["worse"]) == ("B", "A")
    assert pair["p_value"] == stored["p_values"][0][1]
    assert pair["p_value"] > 0.05
    assert pair["effect"] == pytest.approx(scores["B"] - scores["A"])
    # 6 ranking sets now; k = ((z_0.95 + z_0.8) se / d)^2 with se the sd of B - A over the
    # 1000 seeded replicates gives 40 sets.
    assert (pair["units_now"], pair["units_needed"]) == (6, 40)
    # 34 more sets x 9 ranked outputs each (3 workers x 3 outputs) = 306 judgments; a HIT
    # holds 3 sets x 3 outputs = 9, of which 90% are not gold and all 54 scored rows count
    # today: 306 / 8.1 = 37.8, so 38 assignments, 342 judgments, free (reward $0).
    assert (pair["more_assignments"], pair["more_judgments"], pair["cost"]) == (38, 342, "0.00")
    assert pair["note"] == ""


def test_a_new_hit_size_is_estimated_again(close):
    """Items per HIT change the assignments (not the stored results): the cache key has the
    kind's settings, so the estimate follows at once. 50 items per HIT: 17.3 judgments per
    system per assignment at the counted share halves to 8.65: 882 / 8.654 = 101.9, 102."""
    url = f"/api/campaigns/{close.campaign.pk}/still-needed/"
    assert close.client("analyst").get(url).json()["pairs"][0]["more_assignments"] == 51
    settings = close.campaign.da_settings
    settings.items_per_hit = 50
    settings.save()
    (pair,) = close.client("analyst").get(url).json()["pairs"]
    assert (pair["more_assignments"], pair["more_judgments"]) == (102, 5100)


# --- The simulation beside Noether's formula ------------------------------------------------


def test_the_simulation_on_the_close_pair(close):
    """?method=simulation: the same pair, its size found by the seeded simulation of the same
    rank-sum test on the same samples (z is an increasing linear map of the raw segment means
    for the one counted worker, so simulating the raw means gives the same n): 613 per system
    where Noether says 594. 607 more segment means x 1.5 judgments = 910.5 per system; at
    17.308 counted per system per assignment: 52.6, so 53 assignments, at $0.50 each."""
    expected = simulated_rank_sum_sizing(A_MEANS, B_MEANS)
    assert expected.per_system == 613
    assert rank_sum_size(A_MEANS, B_MEANS).per_system == 594
    url = f"/api/campaigns/{close.campaign.pk}/still-needed/"
    data = close.client("analyst").get(url, {"method": "simulation"}).json()
    assert (data["method_id"], data["methods"]) == ("simulation", ["noether", "simulation"])
    assert data["method"].startswith("resampling simulation of the one-sided rank-sum test")
    assert f"{SIMULATION_REPLICATES:,} simulated campaigns" in data["method"]
    assert f"seed {SIMULATION_SEED}" in data["method"]
    assert f"up to {SIMULATION_MAX_N:,} per system" in data["method"]
    (pair,) = data["pairs"]
    assert (pair["units_now"], pair["units_needed"]) == (6, 613)
    assert (pair["more_assignments"], pair["more_judgments"], pair["cost"]) == (53, 5300, "26.50")
    assert "Import more segments" in pair["note"]
    # Left out, or asked by name: Noether's.
    noether = close.client("analyst").get(url, {"method": "noether"}).json()
    assert noether == close.client("analyst").get(url).json()
    assert noether["method_id"] == "noether"
    assert noether["pairs"][0]["units_needed"] == 594


def test_a_method_the_kind_has_not_is_a_400_naming_it(close):
    url = f"/api/campaigns/{close.campaign.pk}/still-needed/"
    response = close.client("analyst").get(url, {"method": "bootstrap"})
    assert response.status_code == 400
    assert response.json() == {
        "method": [
            "Direct assessment (slider) campaigns estimate by 'noether' or 'simulation', "
            "not 'bootstrap'."
        ]
    }
    response = close.client("analyst").get(url, {"mehtod": "simulation"})
    assert response.status_code == 400
    assert response.json() == {"mehtod": ["Unknown parameter; this endpoint takes method."]}
    client = Client()
    client.force_login(close.users["analyst"])
    page = reverse("campaign-still-needed", args=[close.campaign.pk])
    response = client.get(page, {"method": "bootstrap"})
    assert response.status_code == 400
    assert response.content.decode().startswith("method: Direct assessment (slider) campaigns")


def test_ranking_has_the_bootstrap_method_only(ranking_cast):
    url = f"/api/campaigns/{ranking_cast.campaign.pk}/still-needed/"
    response = ranking_cast.client("analyst").get(url, {"method": "simulation"})
    assert response.status_code == 400
    assert response.json() == {
        "method": ["Ranking campaigns estimate by 'bootstrap', not 'simulation'."]
    }
    data = ranking_cast.client("analyst").get(url).json()
    assert (data["method_id"], data["methods"]) == ("bootstrap", ["bootstrap"])
    client = Client()
    client.force_login(ranking_cast.users["analyst"])
    html = client.get(reverse("campaign-still-needed", args=[ranking_cast.campaign.pk])).content
    assert b"still-needed-method-switch" not in html  # one method: no form


def test_the_page_offers_both_methods(close):
    client = Client()
    client.force_login(close.users["analyst"])
    page = reverse("campaign-still-needed", args=[close.campaign.pk])
    html = client.get(page).content.decode()
    assert '<form id="still-needed-method-switch" method="get"' in html
    assert '<option value="noether" selected>' in html
    assert '<option value="simulation">Resampling simulation of the rank-sum test</option>' in html
    html = client.get(page, {"method": "simulation"}).content.decode()
    assert '<option value="simulation" selected>' in html
    assert ">613</td>" in html and ">53</td>" in html and ">26.50</td>" in html
    assert f"seed {SIMULATION_SEED}" in html
    assert "still-needed/?method=simulation" in html
