"""Every list endpoint runs the same number of queries for 1 item as for 3 (DESIGN.md), and
the segment scores, computed from every judgment, are computed once per stored result: later
pages read them from the cache without one query on the judgments.

The expected counts are written out, query by query, so that a change that adds a query per
page shows up here too. Common to all: 1 query for the token (and its user).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analytics.actions import recompute_campaign
from analytics.models import RankingMethod, RankingScore, RankingWorkerStat, SystemScore
from campaigns.models import HitSlot, HitTask, MTurkHit, SlotRole, TaskKind
from judgments.models import AssignmentStatus, Bonus, BonusStatus, Judgment
from tests.analytics.api.test_endpoints import get, per_segment, wmt_per_system
from tests.analytics.kinds.direct_assessment.test_actions import CAREFUL
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
# Django's model permissions are checked on top of campaign access (issue 11 item 4): loading
# them costs two queries per request (the user's own and their groups'), whatever the page.
PERMISSION_QUERIES = 2
serial = itertools.count(1)


@pytest.fixture
def owner():
    user = get_user_model().objects.create_user("requester")
    # Reading a campaign through the API takes Django's view permission on top of ownership
    # (issue 11 item 4, analytics.access).
    user.user_permissions.add(
        Permission.objects.get(content_type__app_label="campaigns", codename="view_campaign")
    )
    return user


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
    """1 item, then 3: both pages in exactly ``queries`` queries, plus the two that load the
    user's model permissions (their own and their groups', issue 11 item 4)."""
    queries += PERMISSION_QUERIES
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
        # both fee queries run; and the same on a sandbox HIT, which the cost leaves out.
        campaign = CampaignFactory(owner=owner, reward=Decimal("0.50"))
        for sandbox in (False, True):
            hit = HitFactory(campaign=campaign)
            MTurkHit.objects.create(
                hit=hit,
                mturk_hit_id=f"HIT{next(serial)}",
                hit_type_id="TYPE",
                sandbox=sandbox,
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

    # token, count, page (every figure annotated), cost (analytics.reports.cost): assignments
    # by platform, HIT size and reward, sent bonuses by platform and amount; progress
    # (analytics.progress): HITs with their slots, live assignments with their judgments.
    assert_constant(django_assert_num_queries, client, "/api/campaigns/", add, 7)
    # $0.50 and $0.25 plus MTurk's 20% of each ($0.10 + $0.05), production only.
    costs = {row["cost"]["paid"] for row in client.get("/api/campaigns/").json()["results"]}
    assert costs == {"0.90"}


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
    campaign = CampaignFactory(owner=owner, kind=TaskKind.RANKING)

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


def da_segment_campaign(owner):
    """A direct-assessment campaign of one system and one worker, and ``add()``, which gives it
    one more segment judged 60."""
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

    return campaign, add


# The DA load reads the judgments without counting them first on every backend (on
# PostgreSQL a binary COPY parsed in pieces, analytics.loading.load_columns).
DA_SEGMENT_QUERIES = 11


def test_direct_assessment_segments(django_assert_num_queries, client, owner):
    campaign, add = da_segment_campaign(owner)

    # token, campaign; the stored result's computed_at (none yet, so nothing is cached); the
    # load (judgments, slots, outputs, rejected assignments, excluded workers); outputs'
    # segments; segments; systems. One worker with no control pairs is not reliable, so the
    # variant over every worker is the one with rows.
    url = f"/api/campaigns/{campaign.pk}/segments/?include_unreliable=1"
    assert_constant(django_assert_num_queries, client, url, add, DA_SEGMENT_QUERIES)


def test_direct_assessment_segments_of_a_stored_result(django_assert_num_queries, client, owner):
    """With a stored result the table is computed by the first request (the same 11 queries)
    and cached: every later page costs 3 queries, however many rows the table has."""
    campaign, add = da_segment_campaign(owner)

    url = f"/api/campaigns/{campaign.pk}/segments/?include_unreliable=1"
    for items in (1, 3):
        while Judgment.objects.filter(campaign=campaign).count() < items:
            add()
        recompute_campaign(campaign)
        with django_assert_num_queries(DA_SEGMENT_QUERIES + PERMISSION_QUERIES):
            computed = client.get(url)
        # token, campaign, the stored result's computed_at; the rows come from the cache.
        with django_assert_num_queries(3 + PERMISSION_QUERIES):
            cached = client.get(url + "&page_size=1000")
        assert computed.json()["count"] == cached.json()["count"] == items
        assert cached.json()["results"] == computed.json()["results"]


def test_ranking_segments(django_assert_num_queries, client, owner):
    campaign = CampaignFactory(owner=owner, kind=TaskKind.RANKING)
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

    # token, campaign; the stored result's computed_at (none yet, so nothing is cached); the
    # load (judgments, slots, outputs, rejected assignments, flags); the stored trust (who is
    # left out of the scores); segments; systems.
    url = f"/api/campaigns/{campaign.pk}/segments/"
    assert_constant(django_assert_num_queries, client, url, add, 11, rows_per_item=2)
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


# --- Segment tables: computed once per stored result ---------------------------------------------
# On the cast's hand-worked direct-assessment campaign (tests/analytics/api/conftest.py).


def segment_page_queries(cast, url: str) -> tuple[dict, list[str]]:
    """The response to ``url`` and the SQL of every query it ran."""
    with CaptureQueriesContext(connection) as queries:
        data = get(cast, url)
    return data, [query["sql"] for query in queries.captured_queries]


def test_segment_scores_are_computed_once_per_stored_result(cast, small):
    url = f"/api/campaigns/{cast.campaign.pk}/segments/"
    first, sql = segment_page_queries(cast, url + "?page_size=5")
    assert any('"judgments_judgment"' in q for q in sql)
    # Later pages, another page size and a system filter slice the cached table: the token,
    # the campaign, the stored result's computed_at, and not one query on the judgments.
    pages = {}
    for query in ("?page_size=5&page=2", "?page_size=5&page=3", "?page_size=100", "?system="):
        if query == "?system=":
            query += str(small.systems["A"])
        pages[query], sql = segment_page_queries(cast, url + query)
        assert len(sql) == 3 + PERMISSION_QUERIES, sql
        assert [q for q in sql if '"judgments_' in q] == []
        assert '"analytics_campaignresult"' in sql[-1]
    everything = pages["?page_size=100"]["results"]
    assert (
        first["results"]
        + pages["?page_size=5&page=2"]["results"]
        + pages["?page_size=5&page=3"]["results"]
        == everything
    )
    assert [row["segment_id"] for row in everything] == sorted(
        row["segment_id"] for row in everything
    )
    # System A's rows are segments 1-6, as computed by hand from the careful worker.
    only_a = pages[f"?system={small.systems['A']}"]
    careful = per_segment([CAREFUL])
    assert only_a["count"] == 6
    assert only_a["results"] == everything[:6]
    assert [(row["system"], row["n"], row["mean_score"]) for row in only_a["results"]] == [
        careful[n][:3] for n in range(1, 7)
    ]
    # The other variant is a table of its own, computed once too.
    _, sql = segment_page_queries(cast, url + "?include_unreliable=1")
    assert any('"judgments_judgment"' in q for q in sql)
    _, sql = segment_page_queries(cast, url + "?include_unreliable=1&page=1")
    assert len(sql) == 3 + PERMISSION_QUERIES


def test_a_recompute_changes_the_segment_scores_served(cast, small):
    url = f"/api/campaigns/{cast.campaign.pk}/segments/?page_size=1"
    before = per_segment([CAREFUL])[1]
    assert before[:3] == ("A", 1, 80)

    def segment_1() -> tuple:
        row = get(cast, url)["results"][0]
        return (row["system"], row["n"], row["mean_score"], row["mean_z"])

    assert segment_1() == ("A", 1, 80.0, pytest.approx(before[3], abs=1e-12))
    # A judgment changed behind the statistics' back (no signal, so no recompute): the
    # cached table of the stored result is still what is served.
    Judgment.objects.filter(assignment=small.careful, slot=small.slots[0]).update(score=100.0)
    assert segment_1() == ("A", 1, 80.0, pytest.approx(before[3], abs=1e-12))
    # The recompute stores a new result, whose key has no table yet: computed anew.
    recompute_campaign(cast.campaign)
    changed = [100.0, *CAREFUL[1:]]
    after = per_segment([changed])[1]
    assert after[:3] == ("A", 1, 100.0)
    assert after[3] != pytest.approx(before[3])
    assert segment_1() == ("A", 1, 100.0, pytest.approx(after[3], abs=1e-12))
    # ... and agrees with the new stored system score (WMT's Ave z: the plain mean of its
    # segment means).
    rows = get(cast, f"/api/campaigns/{cast.campaign.pk}/segments/?page_size=100")["results"]
    a = [row for row in rows if row["system"] == "A"]
    stored = get(cast, f"/api/campaigns/{cast.campaign.pk}/systems/")["results"][0]
    assert stored["name"] == "A"
    assert sum(r["mean_z"] for r in a) / len(a) == pytest.approx(
        stored["direct_assessment"]["mean_z"], abs=1e-12
    )
    assert stored["direct_assessment"]["mean_z"] == pytest.approx(
        wmt_per_system([changed])["A"][3], abs=1e-12
    )


def test_ranking_segment_scores_are_computed_once_per_stored_result(ranking_cast, ranking):
    url = f"/api/campaigns/{ranking_cast.campaign.pk}/segments/"
    for variant in ("", "?include_untrusted=1"):
        first, sql = segment_page_queries(ranking_cast, url + variant)
        assert any('"judgments_judgment"' in q for q in sql)
        again, sql = segment_page_queries(ranking_cast, url + variant)
        assert len(sql) == 3 + PERMISSION_QUERIES, sql
        assert [q for q in sql if '"judgments_' in q] == []
        assert '"analytics_rankingresult"' in sql[-1]
        assert again == first
        # Segments 1-4 of systems A, B and C (test_endpoints: the hand-worked figures).
        assert first["count"] == 12
