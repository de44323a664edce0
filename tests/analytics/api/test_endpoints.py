"""The read-only endpoints return exactly the figures worked out by hand.

Direct assessment: the hand-worked campaign of tests/analytics/test_actions.py: systems A
(segments 1-6) and B (segments 7-12) in one HIT of 26 slots (12 outputs, 6 bad references,
6 repeats of the outputs of segments 4-6 and 10-12, 2 references), judged by a careful
worker (reliable, Wilcoxon p = 1/64) and a random clicker (p = 0.953125). Z-scores here are
written from the plan with the statistics module: (score - worker's mean) / worker's sample
sd over all 26 of the worker's scores.

Ranking: the hand-worked campaign of tests/analytics/test_ranking_loading.py (systems A, B, C;
trusted workers careful and ties; reversed fails both gold units; excluded and rejected
count nowhere).
"""

from __future__ import annotations

import statistics
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from analytics.models import CampaignResult
from campaigns.models import MTurkHit, SlotRole, TaskKind
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Bonus,
    BonusStatus,
    CampaignWorker,
    Judgment,
    Worker,
)
from tests.analytics.kinds.direct_assessment.test_actions import (
    CAREFUL,
    CONTROLS,
    RANDOM,
    ROLES,
    SYSTEM_OF,
)
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db


def statuses(**counts: int) -> dict[str, int]:
    """Assignments by status, as the API counts them (every status, 0 when none)."""
    return {status: counts.get(status, 0) for status in AssignmentStatus.values}


def get(cast, url: str, role: str = "analyst", status: int = 200) -> dict:
    response = cast.client(role).get(url)
    assert response.status_code == status, response.content[:500]
    return response.json()


# --- Hand-worked direct-assessment figures ------------------------------------------------------


def z_scores(scores: list[float]) -> list[float]:
    mean, sd = statistics.mean(scores), statistics.stdev(scores)
    return [(score - mean) / sd for score in scores]


def output_rows(scores: list[float]) -> list[tuple[int, str, float, float]]:
    """(segment number, system, raw, z) of a worker's system outputs and repeats."""
    z = z_scores(scores)
    rows = []
    for i, role in enumerate(ROLES):
        if role not in (SlotRole.SYSTEM, SlotRole.REPEAT):
            continue
        segment = i + 1 if CONTROLS[i] is None else CONTROLS[i]
        rows.append((segment, SYSTEM_OF[segment - 1], scores[i], z[i]))
    return rows


def per_segment(workers: list[list[float]]) -> dict[int, tuple[str, int, float, float]]:
    grouped: dict[int, list] = {}
    for scores in workers:
        for segment, system, raw, z in output_rows(scores):
            grouped.setdefault(segment, [system, [], []])
            grouped[segment][1].append(raw)
            grouped[segment][2].append(z)
    return {
        segment: (system, len(raws), statistics.mean(raws), statistics.mean(zs))
        for segment, (system, raws, zs) in grouped.items()
    }


def per_system(workers: list[list[float]]) -> dict[str, tuple[int, float, float]]:
    grouped: dict[str, list] = {}
    for scores in workers:
        for _, system, raw, z in output_rows(scores):
            grouped.setdefault(system, [[], []])
            grouped[system][0].append(raw)
            grouped[system][1].append(z)
    return {
        system: (len(raws), statistics.mean(raws), statistics.mean(zs))
        for system, (raws, zs) in grouped.items()
    }


def wmt_per_system(workers: list[list[float]]) -> dict[str, tuple[int, int, float, float]]:
    """WMT's Ave raw and Ave z (issue 12): per system, its judgments, its segments and the
    mean of its segment means (``per_segment``)."""
    grouped: dict[str, list] = {}
    for system, n, raw, z in per_segment(workers).values():
        grouped.setdefault(system, [0, [], []])
        grouped[system][0] += n
        grouped[system][1].append(raw)
        grouped[system][2].append(z)
    return {
        system: (n, len(raws), statistics.mean(raws), statistics.mean(zs))
        for system, (n, raws, zs) in grouped.items()
    }


def test_the_hand_worked_figures_are_what_the_plan_says():
    careful = per_system([CAREFUL])
    assert careful["A"][:2] == (9, pytest.approx(735 / 9))  # 80 84 77 82 79 85 + 83 79 86
    assert careful["B"][:2] == (9, pytest.approx(366 / 9))  # 40 45 38 42 36 44 + 41 37 43
    assert per_segment([CAREFUL])[4][1:3] == (2, 82.5)  # output 82 and its repeat 83
    # WMT's Ave raw: segments 4-6 count once each: (80 + 84 + 77 + 82.5 + 79 + 85.5) / 6.
    assert wmt_per_system([CAREFUL])["A"][:3] == (9, 6, pytest.approx(488 / 6))


# --- Campaigns ----------------------------------------------------------------------------------


@pytest.fixture
def paid(cast, small):
    """The small campaign on MTurk's production marketplace at $0.50: careful submitted,
    random approved, a $0.25 bonus sent and a $1.00 bonus not confirmed yet."""
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
    hit = small.careful.hit
    mturk = MTurkHit.objects.create(
        hit=hit, mturk_hit_id="3AQ7", hit_type_id="T1", sandbox=False, max_assignments=5
    )
    for amount, status in ((Decimal("0.25"), BonusStatus.SENT), (Decimal("1.00"), "pending")):
        Bonus.objects.create(
            assignment=small.careful,
            worker=small.careful.worker,
            amount=amount,
            reason="Careful work",
            status=status,
        )
    return mturk


def test_a_campaign_with_its_progress_cost_and_results(cast, paid):
    campaign = cast.campaign
    data = get(cast, f"/api/campaigns/{campaign.pk}/")
    result = campaign.da_result
    assert data == {
        "id": campaign.pk,
        "name": campaign.name,
        "kind": "direct_assessment",
        "status": "active",
        "status_reason": "",
        "assessment_mode": "adequacy",
        # Ranking's fields (issue 12), empty for other kinds.
        "rank_by": "",
        "reference_system": "",
        # Post-editing's fields (issue 13), empty for other kinds.
        "post_editing_mode": "",
        "ter_signature": "",
        # Reading comprehension's (issue 14), null for other kinds.
        "reference_share_correct": None,
        "grading_kappa": None,
        "source_language": "de",
        "target_language": "en",
        "owner": "requester",
        "imported_from": "",
        "redundancy": 5,
        "reward": "0.50",
        "created_at": campaign.created_at.isoformat().replace("+00:00", "Z"),
        "progress": {
            "hits": 1,
            "qualification_hits": 0,
            "assignments": statuses(submitted=1, approved=1),
            "judgments": 52,
            "done_assignments": 2,
            "places": 5,
            "places_done": 2,
            "share_done": 0.4,
            # One HIT of 26 slots (52 judgments in its two assignments) x 5 places.
            "judgments_needed": 130,
            "judgments_counted": 52,
            "beyond_places": {"assignments": 0, "judgments": 0, "note": ""},
        },
        # Rewards 2 x $0.50; MTurk's 20% of $0.50 is $0.10 per assignment, of the $0.25 bonus
        # $0.05; the unconfirmed bonus counts nowhere. In the report's words (issue 17 and the
        # requester's check): paid is the approved one and the bonus sent, $0.60 + $0.30;
        # committed adds the one awaiting review, $0.60.
        "cost": {
            "currency": "USD",
            "reward": "0.50",
            "approved_assignments": 1,
            "awaiting_review_assignments": 1,
            "committed_assignments": 2,
            "rewards": "1.00",
            "bonuses_sent": "0.25",
            "mturk_fees": "0.25",
            "prolific_fees": "0.00",
            "paid": "0.90",
            "committed": "1.50",
            "on_mturk": True,
            "on_mturk_production": True,
        },
        "results": {
            "computed_at": result.computed_at.isoformat().replace("+00:00", "Z"),
            "n_judgments": 52,
            "n_scored_judgments": 52,
            "n_workers": 2,
        },
    }
    listed = get(cast, "/api/campaigns/")
    assert listed["count"] == 1
    assert listed["results"] == [data]


def test_mturk_fees_follow_the_hit_size_masters_and_the_sandbox(cast, paid):
    campaign = cast.campaign
    url = f"/api/campaigns/{campaign.pk}/"
    # 10 or more assignments per HIT and Masters: 20% + 20% + 5% of $0.50 = $0.225, charged
    # $0.23 (half up) per assignment; the bonus pays the base 20% only ($0.05).
    campaign.mturk_masters = True
    campaign.save(update_fields=["mturk_masters"])
    MTurkHit.objects.filter(pk=paid.pk).update(max_assignments=10)
    cost = get(cast, url)["cost"]
    # Paid: $0.50 + $0.23 approved, $0.25 + $0.05 sent; committed: + $0.50 + $0.23.
    assert (cost["mturk_fees"], cost["paid"], cost["committed"]) == ("0.51", "1.03", "1.76")
    # The sandbox pays nobody and charges nothing: neither rewards nor bonuses nor fees; its
    # assignments are counted at no cost, as the report counts them.
    MTurkHit.objects.filter(pk=paid.pk).update(sandbox=True)
    assert get(cast, url)["cost"] == {
        "currency": "USD",
        "reward": "0.50",
        "approved_assignments": 1,
        "awaiting_review_assignments": 1,
        "committed_assignments": 2,
        "rewards": "0.00",
        "bonuses_sent": "0.00",
        "mturk_fees": "0.00",
        "prolific_fees": "0.00",
        "paid": "0.00",
        "committed": "0.00",
        "on_mturk": True,
        "on_mturk_production": False,
    }


def test_work_on_sandbox_hits_costs_nothing_beside_production_hits(cast):
    """One campaign with a production HIT (2 paid assignments, a $0.25 bonus) and a sandbox
    HIT (3 paid assignments, a $1.00 bonus): only the production HIT's work is money spent."""
    campaign = CampaignFactory(owner=cast.users["owner"], reward=Decimal("0.50"))
    for number, sandbox, statuses_, bonus in (
        (1, False, [AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED], Decimal("0.25")),
        (2, True, [AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED] * 2, Decimal("1.00")),
    ):
        hit = HitFactory(campaign=campaign, number=number)
        MTurkHit.objects.create(
            hit=hit,
            mturk_hit_id=f"3SB{number}",
            hit_type_id="T1",
            sandbox=sandbox,
            max_assignments=5,
        )
        assignments = [AssignmentFactory(hit=hit, status=status) for status in statuses_]
        Bonus.objects.create(
            assignment=assignments[0],
            worker=assignments[0].worker,
            amount=bonus,
            reason="Careful work",
            status=BonusStatus.SENT,
        )
    # Production: 2 x $0.50; MTurk's 20% is $0.10 per assignment and $0.05 of the bonus. The
    # sandbox's 2 approved and 2 submitted assignments count, at no cost (as on the report).
    want = {
        "currency": "USD",
        "reward": "0.50",
        "approved_assignments": 3,
        "awaiting_review_assignments": 3,
        "committed_assignments": 6,
        "rewards": "1.00",
        "bonuses_sent": "0.25",
        "mturk_fees": "0.25",
        "prolific_fees": "0.00",
        "paid": "0.90",
        "committed": "1.50",
        "on_mturk": True,
        "on_mturk_production": True,
    }
    assert get(cast, f"/api/campaigns/{campaign.pk}/", "owner")["cost"] == want
    listed = get(cast, "/api/campaigns/?imported=false", "owner")["results"]
    assert [row["cost"] for row in listed if row["id"] == campaign.pk] == [want]
    # Progress still counts the sandbox HIT's work as done: it is the cost that leaves it out.
    progress = get(cast, f"/api/campaigns/{campaign.pk}/", "owner")["progress"]
    assert (progress["hits"], progress["done_assignments"]) == (2, 6)


def test_campaign_filters(cast):
    imported = CampaignFactory(
        name="wmt13 import", imported_from="wmt-da", owner=cast.users["owner"]
    )
    ranking = CampaignFactory(name="ranking", kind=TaskKind.RANKING, owner=cast.users["owner"])

    def names(query: str) -> list[str]:
        return [row["name"] for row in get(cast, "/api/campaigns/" + query, "owner")["results"]]

    assert names("?imported=true") == ["wmt13 import"]
    assert names("?imported=false") == ["ranking", cast.campaign.name]
    assert names("?kind=ranking") == [ranking.name]
    assert names("?imported_from=wmt-da") == [imported.name]
    assert get(cast, "/api/campaigns/?kind=poetry", "owner", 400) == {
        "kind": ["Select a valid choice. poetry is not one of the available choices."]
    }


# --- Systems, significance, segments: direct assessment ----------------------------------------


def test_direct_assessment_systems_over_reliable_workers(cast, small):
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/systems/")
    want = wmt_per_system([CAREFUL])
    assert [row["name"] for row in data["results"]] == ["A", "B"]
    for position, row in enumerate(data["results"], start=1):
        n, n_segments, mean, z = want[row["name"]]
        assert row["id"] == small.systems[row["name"]]
        assert row["is_reference"] is False
        assert row["ranking"] == []
        assert row["direct_assessment"] == {
            "include_unreliable": False,
            "position": position,
            "n": n,
            "n_segments": n_segments,
            "mean_score": pytest.approx(mean, abs=1e-12),
            "mean_z": pytest.approx(z, abs=1e-12),
            "cluster": position,
            "rank_best": position,
            "rank_worst": position,
            "rank_range": str(position),
        }


def test_direct_assessment_systems_over_every_worker(cast):
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/systems/?include_unreliable=1")
    want = wmt_per_system([CAREFUL, RANDOM])
    for row in data["results"]:
        n, n_segments, mean, z = want[row["name"]]
        score = row["direct_assessment"]
        assert score["include_unreliable"] is True
        assert (score["n"], score["n_segments"], score["mean_score"], score["mean_z"]) == (
            18,
            6,
            pytest.approx(mean, abs=1e-12),
            pytest.approx(z, abs=1e-12),
        )
        assert n == 18
    one = get(cast, f"/api/campaigns/{cast.campaign.pk}/systems/{data['results'][0]['id']}/")
    assert one["direct_assessment"]["include_unreliable"] is False


def test_the_significance_matrix_of_direct_assessment(cast, small):
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/significance/")
    # Careful only, WMT's test on segment means: all 6 segment-mean z-scores of A above all 6
    # of B and no ties (A 80 84 77 82.5 79 85.5, B 40 45 38 41.5 36.5 43.5), so scipy's exact
    # test: U = 36 of 36 is one of C(12, 6) = 924 equally likely splits, p = 1/924; the other
    # way U = 0, p = 1. (On the 9 per-judgment z-scores it was 0.000205, "***".)
    p_a_over_b, p_b_over_a = 1 / 924, 1.0
    want = {name: (n, z) for name, (n, _, _, z) in wmt_per_system([CAREFUL]).items()}
    want = {name: (n, None, z) for name, (n, z) in want.items()}
    assert data == {
        "kind": "direct_assessment",
        "variant": "reliable",
        "method": None,
        "test": "one-sided Wilcoxon rank-sum (Mann-Whitney U) on segment-mean z-scores",
        "computed_at": cast.campaign.da_result.computed_at.isoformat().replace("+00:00", "Z"),
        "systems": [
            {
                "id": small.systems["A"],
                "name": "A",
                "score": pytest.approx(want["A"][2]),
                "cluster": 1,
            },
            {
                "id": small.systems["B"],
                "name": "B",
                "score": pytest.approx(want["B"][2]),
                "cluster": 2,
            },
        ],
        "p_values": [
            [None, pytest.approx(p_a_over_b, rel=1e-9)],
            [pytest.approx(p_b_over_a, rel=1e-9), None],
        ],
        "marks": [["", "**"], ["", ""]],
    }
    every = get(cast, f"/api/campaigns/{cast.campaign.pk}/significance/?include_unreliable=1")
    stored = cast.campaign.da_result.variant(True)
    assert every["variant"] == "all"
    assert [system["id"] for system in every["systems"]] == stored["systems"]
    assert every["p_values"] == [
        [None if i == j else pytest.approx(p) for j, p in enumerate(row)]
        for i, row in enumerate(stored["p_greater"])
    ]


def test_segment_scores_of_direct_assessment(cast, small):
    url = f"/api/campaigns/{cast.campaign.pk}/segments/"
    segments = {s.pk: s for s in cast.campaign.segments.all()}
    by_number = {segment.position: segment for segment in segments.values()}
    for query, workers in (("", [CAREFUL]), ("?include_unreliable=1", [CAREFUL, RANDOM])):
        data = get(cast, url + query + ("&" if query else "?") + "page_size=100")
        want = per_segment(workers)
        assert data["count"] == 12
        assert [row["segment_id"] for row in data["results"]] == [
            by_number[n].pk for n in range(1, 13)
        ]
        for row in data["results"]:
            segment = segments[row["segment_id"]]
            system, n, mean, z = want[segment.position]
            assert row == {
                "segment_id": segment.pk,
                "document_external_id": segment.document.external_id,
                "segment_external_id": segment.external_id,
                "system_id": small.systems[system],
                "system": system,
                "n": n,
                "mean_score": pytest.approx(mean, abs=1e-12),
                "mean_z": pytest.approx(z, abs=1e-12),
                "wins": None,
                "ties": None,
                "losses": None,
                "n_ranked": None,
                "mean_rank": None,
                "hter": None,
                "n_passed": None,
            }
        # Segment 4 (A): the careful worker's 82 and its repeat 83.
        assert data["results"][3]["n"] == 2 * len(workers)
    # WMT: the plain mean of a system's segment means is its stored score (Ave z), every
    # segment weighing the same; the judgments add up to its n.
    systems = get(cast, f"/api/campaigns/{cast.campaign.pk}/systems/")["results"]
    rows = get(cast, url + "?page_size=100")["results"]
    for system in systems:
        mine = [row for row in rows if row["system_id"] == system["id"]]
        n = sum(row["n"] for row in mine)
        assert n == system["direct_assessment"]["n"]
        assert len(mine) == system["direct_assessment"]["n_segments"] == 6
        mean_z = sum(row["mean_z"] for row in mine) / len(mine)
        assert mean_z == pytest.approx(system["direct_assessment"]["mean_z"], abs=1e-12)


def test_segment_scores_are_paginated_and_filtered_by_system(cast, small):
    url = f"/api/campaigns/{cast.campaign.pk}/segments/"
    page = get(cast, url + "?page_size=5&page=3")
    assert (page["count"], len(page["results"]), page["next"]) == (12, 2, None)
    assert page["previous"].endswith("segments/?page=2&page_size=5")
    only_b = get(cast, url + f"?system={small.systems['B']}")
    assert [row["system"] for row in only_b["results"]] == ["B"] * 6
    assert get(cast, url + "?system=B", status=400) == {"system": ["A valid integer is required."]}
    assert get(cast, url + "?include_unreliable=perhaps", status=400) == {
        "include_unreliable": ["Must be a valid boolean."]
    }


# --- Workers, HITs, assignments, judgments -------------------------------------------------------


def test_workers_with_reliability_background_and_timing(cast, small):
    careful, random_ = small.careful, small.random
    Worker.objects.filter(pk=careful.worker_id).update(native_language="German", country="DE")
    CampaignWorker.objects.create(
        campaign=cast.campaign,
        worker_id=careful.worker_id,
        years_source_language=30,
        years_target_language=12,
    )
    CampaignWorker.objects.create(
        campaign=cast.campaign, worker_id=random_.worker_id, excluded=True
    )
    by_position = {
        j.slot.position: j.pk
        for j in Judgment.objects.filter(assignment=careful).select_related("slot")
    }
    # Careful: 30 s once, the server's 5 s once (no browser time), once untimed; 8 s otherwise.
    Judgment.objects.filter(pk=by_position[1]).update(client_duration_ms=30000)
    Judgment.objects.filter(pk=by_position[2]).update(
        client_duration_ms=None, server_duration_ms=5000
    )
    Judgment.objects.filter(pk=by_position[3]).update(client_duration_ms=None)
    # Random: 1 s each but three slow ones (10, 20, 30 s).
    slow = Judgment.objects.filter(assignment=random_).order_by("pk")[:3]
    for judgment, ms in zip(slow, (10000, 20000, 30000), strict=True):
        Judgment.objects.filter(pk=judgment.pk).update(client_duration_ms=ms)

    # A direct link's label: the requester's note on whom the link was for.
    Worker.objects.filter(pk=careful.worker_id).update(label="Carla, lab 2")
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/")
    assert data["count"] == 2
    first, second = data["results"]
    assert first == {
        "id": careful.worker_id,
        "platform": "direct",
        "external_id": "careful",
        "label": "Carla, lab 2",
        "native_language": "German",
        "country": "DE",
        "country_source": "",
        "years_source_language": 30,
        "years_target_language": 12,
        "qualification_passed": None,
        "blocked_at": None,
        "excluded": False,
        "untrusted": False,
        "n_assignments": 1,
        "n_judgments": 26,
        "reliability": {
            "reliable": True,
            "p_value": 1 / 64,
            "test": "wilcoxon",
            "n_pairs": 6,
            "n_bad_ref_pairs": 6,
            "n_repeat_pairs": 6,
            "reason": "",
            "recommendation": "approve",
            "recommendation_reason": "",
        },
        "trust": None,
        "post_editing": None,
        "reading_comprehension": None,
        "translation": None,
        # 25 timed: 30 + 5 + 23 x 8 = 219 s; the median of 5, 8 (x23), 30 is 8.
        "timing": {
            "n_timed": 25,
            "mean_seconds": pytest.approx(219 / 25),
            "median_seconds": 8.0,
            "total_seconds": 219.0,
        },
        # Computed by the fixture over all 26 judgments (issue 17: say when, over how many).
        "statistics": {
            "computed_at": data["results"][0]["statistics"]["computed_at"],
            "n_judgments": 26,
        },
    }
    computed_at = CampaignResult.objects.get(campaign=cast.campaign).computed_at
    assert first["statistics"]["computed_at"] == computed_at.isoformat().replace("+00:00", "Z")
    assert second["external_id"] == "random"
    assert second["label"] == ""
    assert second["excluded"] is True
    assert second["reliability"]["reliable"] is False
    assert second["reliability"]["p_value"] == 0.953125
    assert second["reliability"]["recommendation"] == "reject"
    # The stored result is the fixture's (1 s per item; the durations changed above are read
    # live by "timing" only): below the absolute floor of 2 s.
    assert second["reliability"]["recommendation_reason"] == (
        "too fast: 1.0 s per item on average, below the floor of 2 s"
    )
    # 23 x 1 + 10 + 20 + 30 = 83 s over 26; the median of 26 values is (1 + 1) / 2.
    assert second["timing"] == {
        "n_timed": 26,
        "mean_seconds": pytest.approx(83 / 26),
        "median_seconds": 1.0,
        "total_seconds": 83.0,
    }
    one = get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/{careful.worker_id}/")
    assert one == first
    assert get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/?external_id=random")["count"] == 1


def test_a_worker_of_another_campaign_is_not_found_here(cast):
    stranger = Assignment.objects.create(
        campaign=cast.other_campaign,
        hit=HitFactory(campaign=cast.other_campaign),
        worker=Worker.objects.create(platform="mturk", external_id="A1STRANGER"),
        expires_at=timezone.now(),
    )
    get(cast, f"/api/campaigns/{cast.campaign.pk}/workers/{stranger.worker_id}/", "staff", 404)


def test_hits_with_slots_and_assignments_by_status(cast, small, paid):
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/hits/")
    hit = small.careful.hit
    assert data["results"] == [
        {
            "id": hit.pk,
            "number": 1,
            "task": "assess",
            "is_qualification": False,
            "created_at": hit.created_at.isoformat().replace("+00:00", "Z"),
            "slots": 26,
            "assignments": statuses(submitted=1, approved=1),
            "mturk_hit_id": "3AQ7",
        }
    ]


def test_assignments(cast, small):
    submitted = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)
    Assignment.objects.filter(pk=small.careful.pk).update(
        status=AssignmentStatus.SUBMITTED,
        submitted_at=submitted,
        platform_assignment_id="3ASSIGN",
        platform_hit_id="3AQ7",
        platform_status="Submitted",
    )
    data = get(cast, f"/api/campaigns/{cast.campaign.pk}/assignments/?status=submitted")
    careful = Assignment.objects.get(pk=small.careful.pk)
    assert data["results"] == [
        {
            "id": careful.pk,
            "hit": 1,
            "hit_id": careful.hit_id,
            "worker_id": careful.worker_id,
            "worker_external_id": "careful",
            "worker_platform": "direct",
            "status": "submitted",
            "platform_assignment_id": "3ASSIGN",
            "platform_hit_id": "3AQ7",
            "platform_status": "Submitted",
            "started_at": careful.started_at.isoformat().replace("+00:00", "Z"),
            "submitted_at": "2025-03-01T12:30:00Z",
            "reviewed_at": None,
            "expires_at": careful.expires_at.isoformat().replace("+00:00", "Z"),
            "n_judgments": 26,
        }
    ]
    assert get(cast, f"/api/campaigns/{cast.campaign.pk}/assignments/?status=started")["count"] == 1


def test_a_judgment_shows_its_role_system_segment_and_worker(cast, small):
    bad_reference = Judgment.objects.get(assignment=small.careful, slot=small.slots[12])
    data = get(cast, f"/api/judgments/{bad_reference.pk}/")
    segment = small.slots[0].output.segment
    assert data == {
        "id": bad_reference.pk,
        "campaign": cast.campaign.pk,
        "assignment": small.careful.pk,
        "hit": 1,
        "task": "assess",
        "slot_position": 13,
        "slot_group": 0,
        "role": "bad_reference",
        "about_judgment": None,
        "system_id": small.systems["A"],
        "system": "A",
        "document_external_id": segment.document.external_id,
        "segment_external_id": segment.external_id,
        "worker": small.careful.worker_id,
        "worker_external_id": "careful",
        "assignment_status": "started",
        "score": 50.0,  # the bad reference of the careful worker's 80
        "given_z": None,
        "rank": None,
        "text": "",
        "yes_no": None,
        "yes_no_second": None,
        "client_duration_ms": 8000,
        "server_duration_ms": None,
        "submitted_at": bad_reference.submitted_at.isoformat().replace("+00:00", "Z"),
    }
    nested = get(cast, f"/api/campaigns/{cast.campaign.pk}/judgments/{bad_reference.pk}/")
    assert nested == data


def test_judgments_are_filtered_by_campaign_system_worker_role_status_and_time(cast, small):
    Assignment.objects.filter(pk=small.random.pk).update(status=AssignmentStatus.APPROVED)
    Judgment.objects.filter(assignment=small.careful).update(
        submitted_at=datetime(2025, 1, 10, tzinfo=UTC)
    )
    Judgment.objects.filter(assignment=small.random).update(
        submitted_at=datetime(2025, 2, 10, tzinfo=UTC)
    )
    campaign = cast.campaign.pk

    def count(query: str) -> int:
        return get(cast, f"/api/judgments/?campaign={campaign}&{query}")["count"]

    assert count("") == 52
    assert count("role=bad_reference") == 12
    assert count("role=reference") == 4
    # A's outputs: 6 outputs, their 3 bad references and 3 repeats, and the reference slot
    # that controls A's first output; per worker.
    assert count(f"system={small.systems['A']}") == 26
    assert count("system_name=B") == 26
    assert count(f"worker={small.careful.worker_id}") == 26
    assert count("worker_external_id=random") == 26
    assert count("assignment_status=approved") == 26
    assert count("submitted_after=2025-02-01T00:00:00Z") == 26
    assert count("submitted_before=2025-02-01T00:00:00Z") == 26
    assert count("submitted_after=2025-01-10T00:00:00Z&submitted_before=2025-01-10T00:00:01Z") == 26
    # Offsets beyond PostgreSQL's (+22:00 is 2025-01-10T00:00Z), and times with no UTC
    # equivalent, which lie before or after every judgment.
    assert count("submitted_after=2025-01-10T22:00:00%2B22:00") == 52
    assert count("submitted_after=2025-01-10T22:00:01%2B22:00") == 26
    assert count("submitted_after=0001-01-01T00:00:00%2B01:00") == 52
    assert count("submitted_before=0001-01-01T00:00:00%2B01:00") == 0
    assert count("submitted_after=9999-12-31T23:00:00-02:00") == 0
    assert count("submitted_before=9999-12-31T23:00:00-02:00") == 52
    assert count("role=repeat&system_name=A&worker_external_id=careful") == 3
    assert count("hit=1") == 52
    nested = get(cast, f"/api/campaigns/{campaign}/judgments/?role=repeat&system_name=B")
    assert nested["count"] == 6
    assert [row["role"] for row in nested["results"]] == ["repeat"] * 6
    assert get(cast, "/api/judgments/?role=gold_answer", status=400) == {
        "role": ["Select a valid choice. gold_answer is not one of the available choices."]
    }
    assert get(cast, "/api/judgments/?submitted_after=yesterday", status=400) == {
        "submitted_after": ["Enter a valid date/time."]
    }


def test_judgment_pages(cast):
    page = get(cast, f"/api/campaigns/{cast.campaign.pk}/judgments/?page_size=20&page=3")
    assert (page["count"], len(page["results"]), page["next"]) == (52, 12, None)
    ids = [row["id"] for row in page["results"]]
    assert ids == sorted(ids)
    get(cast, f"/api/campaigns/{cast.campaign.pk}/judgments/?page=4&page_size=20", status=404)


# --- Before any result, and kinds without scores -------------------------------------------------


def test_a_campaign_without_results_lists_its_systems_without_scores(cast):
    campaign = CampaignFactory(owner=cast.users["owner"], kind=TaskKind.TRANSLATION)
    system = SystemFactory(campaign=campaign, name="online-B")
    base = f"/api/campaigns/{campaign.pk}"
    assert get(cast, f"{base}/systems/", "owner")["results"] == [
        {
            "id": system.pk,
            "name": "online-B",
            "is_reference": False,
            "direct_assessment": None,
            "ranking": [],
            "post_editing": None,
            "reading_comprehension": None,
            "translation": [],
        }
    ]
    empty = {"count": 0, "next": None, "previous": None, "results": []}
    assert get(cast, f"{base}/segments/", "owner") == empty
    assert get(cast, f"{base}/significance/", "owner") == {
        "kind": "translation",
        "variant": "all",
        "method": None,
        "test": "",
        "computed_at": None,
        "systems": [],
        "p_values": [],
        "marks": [],
    }
    assert get(cast, f"{base}/", "owner")["results"] is None
