"""One progress rule (issue 17): the dashboard's progress plot, the checklist and the results
panel count a campaign's progress the same way, by its kind's rule
(``analytics.progress.kind_progress``). A ranking campaign is where they differed: the
dashboard planned one unit per slot (18 here) while the panel counted ranking sets (6)."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection

from analytics.dashboards.data import progress_data, progress_plot
from analytics.kinds.ranking.panel import ranking_results_context
from analytics.progress import SETS, kind_progress, progress_rule
from campaigns.checklist import campaign_checklist
from campaigns.models import TaskKind
from judgments.models import AssignmentStatus, Judgment
from tests.analytics.plots.svg import ids, svg_of, texts
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 11, 2, 9, 15, tzinfo=dt.UTC)


def _ranking_campaign():
    """One HIT of two ranking sets of three outputs, three places: 18 slots to judge, 6 sets.
    Judged: one worker ranked both sets (at 9:15), a second the first set (at 10:15), a
    third gave no rank (not judged), a fourth ranked both but returned the HIT (its place is
    open again: not counted)."""
    campaign = CampaignFactory(kind=TaskKind.RANKING, redundancy=3)
    hit = HitFactory(campaign=campaign)
    slots = [HitSlotFactory(hit=hit, group=1 + i // 3) for i in range(6)]

    def judge(n_slots, hours, status=AssignmentStatus.SUBMITTED, rank=1):
        assignment = AssignmentFactory(hit=hit, status=status)
        rows = Judgment.objects.bulk_create(
            Judgment(
                campaign=campaign,
                worker=assignment.worker,
                assignment=assignment,
                slot=slot,
                rank=rank,
            )
            for slot in slots[:n_slots]
        )
        Judgment.objects.filter(pk__in=[row.pk for row in rows]).update(
            submitted_at=AT + dt.timedelta(hours=hours)
        )

    judge(6, 0)
    judge(3, 1)
    judge(3, 1, rank=None)
    judge(6, 2, status=AssignmentStatus.RETURNED)
    return campaign


def test_ranking_progress_counts_sets_everywhere():
    campaign = _ranking_campaign()
    rule = progress_rule(campaign)
    assert rule.unit == SETS
    progress = kind_progress(campaign)
    assert (progress.units_in, progress.units_needed, progress.unit_name) == (
        3,
        6,
        "ranking sets",
    )
    # The results panel.
    panel = ranking_results_context(campaign, include_untrusted=False)["progress"]
    assert (panel.done, panel.needed) == (3, 6)
    # The checklist.
    checklist = campaign_checklist(campaign, can_change=True, can_publish_mturk=False)
    (step,) = [s for s in checklist.steps if s.key == "judgments"]
    assert step.summary.startswith("3 of 6 ranking sets in; ")
    # The dashboard: sets per hour (the returned assignment's are not counted), planned 6
    # sets (not 18 slots), 50% of planned.
    hours, counts = progress_data(campaign)
    assert [h.replace(tzinfo=None) for h in hours] == [
        dt.datetime(2026, 11, 2, 9),
        dt.datetime(2026, 11, 2, 10),
    ]
    assert counts == [2, 1]
    _, root = svg_of(progress_plot(campaign))
    shown = texts(root)
    assert f"Progress: {campaign.name} (50% of planned)" in shown
    assert "received (3)" in shown
    assert "planned for the HITs built (6)" in shown
    assert "Ranking sets received" in shown and "Ranking sets per hour" in shown
    assert ids(root, "planned") == ["planned"]


def test_direct_assessment_progress_counts_judgments_on_the_dashboard():
    campaign = CampaignFactory(redundancy=2)
    hit = HitFactory(campaign=campaign)
    slots = [HitSlotFactory(hit=hit) for _ in range(4)]
    assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    Judgment.objects.bulk_create(
        Judgment(
            campaign=campaign, worker=assignment.worker, assignment=assignment, slot=s, score=50
        )
        for s in slots[:3]
    )
    progress = kind_progress(campaign)
    assert (progress.units_in, progress.units_needed, progress.unit_name) == (3, 8, "judgments")
    hours, counts = progress_data(campaign)
    assert counts == [3]
    shown = texts(svg_of(progress_plot(campaign))[1])
    assert "planned for the HITs built (8)" in shown and "received (3)" in shown
    assert "Judgments per hour" in shown


def test_direct_assessment_progress_is_per_hour_in_time_order():
    # Sorted in Python, not by the database (analytics.dashboards.data.progress_data): the
    # hours come out in order whatever order the judgments were stored in. 30 hours over two
    # days, stored shuffled, and on PostgreSQL grouped by hashing as at a million judgments
    # (a table this small is grouped by sorting): the groups come out of hash order.
    # (SQLite's grouping sorts them anyway.)
    campaign = CampaignFactory()
    hit = HitFactory(campaign=campaign)
    assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    start = dt.datetime(2026, 5, 1, 20, tzinfo=dt.UTC)
    hours_in = [start + dt.timedelta(hours=n) for n in range(30)]
    at = [hour + dt.timedelta(minutes=5) for hour in hours_in]
    at += [hours_in[n] + dt.timedelta(minutes=50) for n in (0, 7, 7, 29)]
    random.Random(5).shuffle(at)
    for when in at:
        judgment = Judgment.objects.create(
            campaign=campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=HitSlotFactory(hit=hit),
            score=50,
        )
        Judgment.objects.filter(pk=judgment.pk).update(submitted_at=when)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_sort = off")  # until the test's transaction ends
    hours, counts = progress_data(campaign)
    assert hours == hours_in
    assert counts == [2] + [1] * 6 + [3] + [1] * 21 + [2]
