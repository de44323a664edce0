"""Every list endpoint runs the same number of queries for 1 item as for 3 (DESIGN.md).

The expected counts are written out, query by query, so that a change that adds a query per
page shows up here too. Common to all: 1 query for the token (and its user).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analytics.models import RankingMethod, RankingScore, RankingWorkerStat, SystemScore
from campaigns.models import HitSlot, HitTask, MTurkHit, SlotRole, TaskKind
from judgments.models import AssignmentStatus, Bonus, BonusStatus, Judgment
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
serial = itertools.count(1)


@pytest.fixture
def owner():
    return get_user_model().objects.create_user("requester")


@pytest.fixture
def client(owner) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    return client


def assert_constant(
    assert_num_queries,
    client: APIClient,
    url: str,
    add: Callable[[], None],
    queries: int,
    rows_per_item: int = 1,
) -> None:
    """1 item, then 3: both pages in exactly ``queries`` queries."""
    add()
    with assert_num_queries(queries):
        one = client.get(url)
    add()
    add()
    with assert_num_queries(queries):
        three = client.get(url)
    assert (one.status_code, three.status_code) == (200, 200)
    assert len(one.json()["results"]) == rows_per_item
    assert len(three.json()["results"]) == 3 * rows_per_item


def test_campaigns(django_assert_num_queries, client, owner):
    def add():
        # On MTurk's production marketplace, with a paid assignment and a sent bonus, so that
        # both fee queries run.
        campaign = CampaignFactory(owner=owner, reward=Decimal("0.50"))
        hit = HitFactory(campaign=campaign)
        MTurkHit.objects.create(
            hit=hit,
            mturk_hit_id=f"HIT{next(serial)}",
            hit_type_id="TYPE",
            sandbox=False,
            max_assignments=5,
        )
        assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.APPROVED)
        Bonus.objects.create(
            assignment=assignment,
            worker=assignment.worker,
            amount=Decimal("0.25"),
            reason="Thanks",
            status=BonusStatus.SENT,
        )

    # token, count, page (every figure annotated), fees: assignments by HIT size, bonuses.
    assert_constant(django_assert_num_queries, client, "/api/campaigns/", add, 5)


def test_direct_assessment_systems(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)

    def add():
        system = SystemFactory(campaign=campaign)
        position = SystemScore.objects.filter(campaign=campaign).count() // 2 + 1
        for include in (False, True):
            SystemScore.objects.create(
                campaign=campaign,
                system=system,
                include_unreliable=include,
                position=position,
                n=10,
                mean_score=50.0,
                mean_z=0.0,
                cluster=1,
                rank_best=1,
                rank_worst=position,
            )

    # token, campaign, count, page, the variant's scores (prefetched).
    url = f"/api/campaigns/{campaign.pk}/systems/"
    assert_constant(django_assert_num_queries, client, url, add, 5)


def test_ranking_systems(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner, kind=TaskKind.RANKING, assessment_mode="")

    def add():
        system = SystemFactory(campaign=campaign)
        position = campaign.systems.count()
        RankingScore.objects.bulk_create(
            RankingScore(
                campaign=campaign,
                system=system,
                method=method,
                include_untrusted=include,
                position=position,
                score=0.5,
                n=4,
                wins=2,
                ties=0,
                losses=2,
                rank_best=1,
                rank_worst=position,
            )
            for method in RankingMethod.values
            for include in (False, True)
        )

    url = f"/api/campaigns/{campaign.pk}/systems/"
    assert_constant(django_assert_num_queries, client, url, add, 5)


def test_direct_assessment_segments(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)
    document = DocumentFactory(campaign=campaign)
    system = SystemFactory(campaign=campaign, name="A")
    hit = HitFactory(campaign=campaign)
    assignment = AssignmentFactory(hit=hit)

    def add():
        output = OutputFactory(segment=SegmentFactory(document=document), system=system)
        JudgmentFactory(
            assignment=assignment,
            slot=HitSlotFactory(hit=hit, output=output, role=SlotRole.SYSTEM),
            score=60.0,
        )

    # token, campaign; the load (judgments, slots, outputs, rejected assignments, excluded
    # workers); outputs' segments; segments; systems. One worker with no control pairs is not
    # reliable, so the variant over every worker is the one with rows.
    url = f"/api/campaigns/{campaign.pk}/segments/?include_unreliable=1"
    assert_constant(django_assert_num_queries, client, url, add, 10)


def test_ranking_segments(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner, kind=TaskKind.RANKING, assessment_mode="")
    document = DocumentFactory(campaign=campaign)
    systems = [SystemFactory(campaign=campaign, name=name) for name in "AB"]
    hit = HitFactory(campaign=campaign, task=HitTask.RANK)
    assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)

    def add():
        segment = SegmentFactory(document=document)
        group = HitSlot.objects.filter(hit=hit).count() // 2
        for rank, system in enumerate(systems, start=1):
            output = OutputFactory(segment=segment, system=system)
            JudgmentFactory(
                assignment=assignment,
                slot=HitSlotFactory(hit=hit, output=output, group=group),
                score=None,
                rank=rank,
            )

    # token, campaign; the load (judgments, slots, outputs, rejected assignments, flags);
    # the stored trust (who is left out of the scores); segments; systems.
    url = f"/api/campaigns/{campaign.pk}/segments/"
    assert_constant(django_assert_num_queries, client, url, add, 10, rows_per_item=2)
    assert RankingWorkerStat.objects.count() == 0


def test_workers(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)
    hit = HitFactory(campaign=campaign)

    def add():
        JudgmentFactory(assignment=AssignmentFactory(hit=hit), client_duration_ms=4000)

    # token, campaign, count, page (membership, reliability and trust joined), timing.
    url = f"/api/campaigns/{campaign.pk}/workers/"
    assert_constant(django_assert_num_queries, client, url, add, 5)


def test_hits(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)

    def add():
        hit = HitFactory(campaign=campaign)
        HitSlotFactory(hit=hit)
        AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)

    # token, campaign, count, page.
    url = f"/api/campaigns/{campaign.pk}/hits/"
    assert_constant(django_assert_num_queries, client, url, add, 4)


def test_assignments(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)

    def add():
        JudgmentFactory(assignment=AssignmentFactory(hit=HitFactory(campaign=campaign)))

    url = f"/api/campaigns/{campaign.pk}/assignments/"
    assert_constant(django_assert_num_queries, client, url, add, 4)


def test_judgments_of_a_campaign(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner)
    hit = HitFactory(campaign=campaign)

    def add():
        JudgmentFactory(assignment=AssignmentFactory(hit=hit))

    url = f"/api/campaigns/{campaign.pk}/judgments/"
    assert_constant(django_assert_num_queries, client, url, add, 4)


@pytest.mark.parametrize(("query", "queries"), [("", 3), ("?campaign={id}", 4)])
def test_judgments_across_campaigns(django_assert_num_queries, client, owner, query, queries):
    campaign = CampaignFactory(owner=owner)
    hit = HitFactory(campaign=campaign)

    def add():
        JudgmentFactory(assignment=AssignmentFactory(hit=hit))

    # token, (the ?campaign= check,) count, page.
    url = "/api/judgments/" + query.format(id=campaign.pk)
    assert_constant(django_assert_num_queries, client, url, add, queries)
    assert Judgment.objects.count() == 3
