"""The API's ranking endpoints (systems with every method, the bootstrap significance, segment
scores, gold trust) and judgments imported as z-scores, against hand-worked campaigns."""

from __future__ import annotations

import pytest

from analytics.models import RankingResult
from tests.analytics.api.test_endpoints import get
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db


# --- Ranking -------------------------------------------------------------------------------------


def test_ranking_systems_with_every_method(ranking_cast, ranking):
    url = f"/api/campaigns/{ranking_cast.campaign.pk}/systems/"
    data = get(ranking_cast, url)
    assert [row["name"] for row in data["results"]] == ["A", "B", "C"]
    a = data["results"][0]
    assert a["direct_assessment"] is None
    assert [row["method"] for row in a["ranking"]] == [
        "bradley_terry",
        "expected_wins",
        "trueskill",
        "win_ratio_geq",
        "win_ratio_gt",
        "win_ratio_wmt12",
    ]
    # Trusted workers (careful and ties): A wins 14, ties 4, loses none of 18 comparisons.
    counted = {row["method"]: row for row in a["ranking"]}
    for row in counted.values():
        assert (row["n"], row["wins"], row["ties"], row["losses"]) == (18, 14, 4, 0)
        assert row["include_untrusted"] is False
    assert counted["win_ratio_geq"]["score"] == 1.0
    assert counted["win_ratio_gt"]["score"] == pytest.approx(14 / 18)
    assert counted["expected_wins"]["score"] == 1.0
    assert counted["expected_wins"]["rank_range"] == "1"
    assert counted["trueskill"]["sigma"] > 0
    assert counted["trueskill"]["ci_low"] is None
    ratios = {
        row["name"]: [m["score"] for m in row["ranking"] if m["method"] == "win_ratio_gt"][0]
        for row in data["results"]
    }
    assert ratios == {"A": pytest.approx(14 / 18), "B": pytest.approx(9 / 18), "C": 0.0}

    one_method = get(ranking_cast, url + "?method=win_ratio_gt")
    assert [len(row["ranking"]) for row in one_method["results"]] == [1, 1, 1]
    # Everyone, the reversed worker too: A also loses to B and C in four sets and to C in a
    # gold set (14, 4, 9); B beats A four times more, loses to C four times and beats C once;
    # C wins 9 and loses once more. Ordered by ?method=: B (19/27) above A (18/27).
    every = get(ranking_cast, url + "?include_untrusted=1&method=win_ratio_geq")
    assert [
        (row["name"], *(row["ranking"][0][k] for k in ("n", "wins", "ties", "losses", "score")))
        for row in every["results"]
    ] == [
        ("B", 27, 14, 5, 8, pytest.approx(19 / 27)),
        ("A", 27, 14, 4, 9, pytest.approx(18 / 27)),
        ("C", 30, 9, 1, 20, pytest.approx(10 / 30)),
    ]
    assert get(ranking_cast, url + "?method=elo", status=400) == {
        "method": ['"elo" is not a valid choice.']
    }


def test_ranking_significance_is_the_bootstrap_of_the_method(ranking_cast, ranking):
    url = f"/api/campaigns/{ranking_cast.campaign.pk}/significance/"
    data = get(ranking_cast, url)
    # A beats B and B beats C in every one of the 1,000 resamples: p = (1 + 0) / (1 + 1000);
    # the other way round never: p = (1 + 1000) / 1001 = 1.
    assert data["method"] == "expected_wins"
    assert data["variant"] == "trusted"
    assert [s["name"] for s in data["systems"]] == ["A", "B", "C"]
    assert [s["cluster"] for s in data["systems"]] == [1, 2, 3]
    assert data["p_values"] == [
        [None, pytest.approx(1 / 1001), pytest.approx(1 / 1001)],
        [1.0, None, pytest.approx(1 / 1001)],
        [1.0, 1.0, None],
    ]
    assert data["marks"] == [["", "***", "***"], ["", "", "***"], ["", "", ""]]
    stored = RankingResult.objects.get(campaign=ranking_cast.campaign).variant(False)
    bradley_terry = get(ranking_cast, url + "?method=bradley_terry")
    ids = [s["id"] for s in bradley_terry["systems"]]
    for i, row in enumerate(bradley_terry["p_values"]):
        for j, p in enumerate(row):
            a, b = stored["systems"].index(ids[i]), stored["systems"].index(ids[j])
            assert p == (None if i == j else stored["p_greater"]["bradley_terry"][a][b])
    assert get(ranking_cast, url + "?method=trueskill", status=400) == {
        "method": ['"trueskill" is not a valid choice.']
    }


def test_segment_scores_of_ranking(ranking_cast, ranking):
    data = get(ranking_cast, f"/api/campaigns/{ranking_cast.campaign.pk}/segments/")
    rows = [
        (
            row["segment_external_id"],
            row["system"],
            row["n"],
            row["wins"],
            row["ties"],
            row["losses"],
            row["n_ranked"],
            row["mean_rank"],
        )
        for row in data["results"]
    ]
    # Careful ranks A > B > C, ties A = B > C; in the gold sets of segment 3 (G A C and
    # G B C) careful puts A > C and B > C, ties A > C and B = C. Segment 2 is ranked twice.
    assert rows == [
        ("1", "A", 4, 3, 1, 0, 2, 1.0),
        ("1", "B", 4, 2, 1, 1, 2, 1.5),
        ("1", "C", 4, 0, 0, 4, 2, 3.0),
        ("2", "A", 8, 6, 2, 0, 4, 1.0),
        ("2", "B", 8, 4, 2, 2, 4, 1.5),
        ("2", "C", 8, 0, 0, 8, 4, 3.0),
        ("3", "A", 2, 2, 0, 0, 2, 2.0),
        ("3", "B", 2, 1, 1, 0, 2, 2.0),
        ("3", "C", 4, 0, 1, 3, 4, 2.75),
        ("4", "A", 4, 3, 1, 0, 2, 1.0),
        ("4", "B", 4, 2, 1, 1, 2, 1.5),
        ("4", "C", 4, 0, 0, 4, 2, 3.0),
    ]
    assert all(row["mean_z"] is None for row in data["results"])
    every = get(
        ranking_cast, f"/api/campaigns/{ranking_cast.campaign.pk}/segments/?include_untrusted=1"
    )
    totals = {}
    for row in every["results"]:
        totals.setdefault(row["system"], [0, 0, 0])
        for i, key in enumerate(("wins", "ties", "losses")):
            totals[row["system"]][i] += row[key]
    assert totals == {"A": [14, 4, 9], "B": [14, 5, 8], "C": [9, 1, 20]}


def test_ranking_workers_show_their_gold_trust(ranking_cast, ranking):
    data = get(ranking_cast, f"/api/campaigns/{ranking_cast.campaign.pk}/workers/")
    trust = {row["external_id"]: (row["untrusted"], row["trust"]) for row in data["results"]}
    keys = ("status", "gold_seen", "gold_correct", "accuracy", "flagged", "in_scores")
    careful = ("trusted", 2, 2, 1.0, False, True)
    reversed_ = ("untrusted", 2, 0, 0.0, True, False)
    assert trust["careful"] == (False, dict(zip(keys, careful, strict=True)))
    assert trust["reversed"] == (True, dict(zip(keys, reversed_, strict=True)))
    assert all(row["reliability"] is None for row in data["results"])
    careful = next(row for row in data["results"] if row["external_id"] == "careful")
    assert (careful["n_assignments"], careful["n_judgments"]) == (3, 21)  # 2 HITs + the test


def test_judgments_imported_as_z_scores_keep_their_z_and_have_no_raw_mean(cast):
    campaign = CampaignFactory(owner=cast.users["owner"], imported_from="wmt-da")
    assignment = AssignmentFactory(hit=HitFactory(campaign=campaign))
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in "AB"}
    document = DocumentFactory(campaign=campaign)
    segments = {
        n: SegmentFactory(document=document, position=n, external_id=str(n)) for n in (1, 2)
    }
    for system, position, z in (("A", 1, 1.5), ("B", 1, 0.5), ("B", 2, -0.25)):
        output = OutputFactory(segment=segments[position], system=systems[system])
        slot = HitSlotFactory(hit=assignment.hit, output=output)
        JudgmentFactory(assignment=assignment, slot=slot, score=None, given_z=z)
    # One worker without control pairs is not reliable: the variant over everyone has rows.
    url = f"/api/campaigns/{campaign.pk}/segments/?include_unreliable=1"
    rows = get(cast, url, "owner")["results"]
    assert [
        (r["segment_external_id"], r["system"], r["n"], r["mean_score"], r["mean_z"]) for r in rows
    ] == [
        ("1", "A", 1, None, 1.5),
        ("1", "B", 1, None, 0.5),
        ("2", "B", 1, None, -0.25),
    ]
