"""The API's campaign cost says what the campaign report says, in the same words: a requester
read "paid_assignments": 3 where the report said "Paid so far (approved, bonuses sent) 0.00".
Both now come from analytics.reports.cost; hand-worked figures."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from campaigns.models import MTurkHit
from judgments.models import AssignmentStatus, Bonus, BonusStatus, Platform
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db


def test_work_awaiting_review_is_committed_not_paid(admin_client):
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=3)
    hit = HitFactory(campaign=campaign, number=1)
    for _ in range(3):
        AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)

    cost = admin_client.get(f"/api/campaigns/{campaign.pk}/").json()["cost"]
    report = admin_client.get(f"/api/campaigns/{campaign.pk}/report/").json()["cost"]

    assert cost == {
        "currency": "USD",
        "reward": "0.50",
        "approved_assignments": 0,
        "awaiting_review_assignments": 3,
        "committed_assignments": 3,
        "rewards": "1.50",
        "bonuses_sent": "0.00",
        "mturk_fees": "0.00",
        "prolific_fees": "0.00",
        "paid": "0.00",
        "committed": "1.50",
        "on_mturk": False,
        "on_mturk_production": False,
    }
    assert (report["paid"], report["committed"]) == (cost["paid"], cost["committed"])


def test_the_api_and_the_report_agree_on_every_platform(admin_client):
    """$0.40 taken, then the reward raised to $0.90 (work taken keeps $0.40):
    - MTurk production HIT of 5: 2 approved, 1 submitted at $0.40 + 20% ($0.08); a $0.30
      bonus sent ($0.06 fee) and a $1.00 bonus not confirmed (counts nowhere);
    - MTurk sandbox HIT: 1 approved, at no cost;
    - Prolific: 1 approved, 1 submitted at $0.40 + 33.33% ($0.13);
    - direct link: 1 submitted at $0.40, no fee; one started (not committed);
    - imported judgments: not counted.
    Paid: 2 x 0.48 + 0.36 + 0.53 = 1.85; committed: + 0.48 + 0.53 + 0.40 = 3.26."""
    campaign = CampaignFactory(reward=Decimal("0.40"), redundancy=5)
    production, sandbox, other = (HitFactory(campaign=campaign, number=n) for n in (1, 2, 3))
    for hit, is_sandbox in ((production, False), (sandbox, True)):
        MTurkHit.objects.create(
            hit=hit,
            mturk_hit_id=f"3H{hit.number}",
            hit_type_id="T",
            sandbox=is_sandbox,
            max_assignments=5,
            reward=Decimal("0.40"),
        )
    mturk = WorkerFactory.create_batch(3, platform=Platform.MTURK)
    first = AssignmentFactory(hit=production, worker=mturk[0], status=AssignmentStatus.APPROVED)
    AssignmentFactory(hit=production, worker=mturk[1], status=AssignmentStatus.APPROVED)
    AssignmentFactory(hit=production, worker=mturk[2], status=AssignmentStatus.SUBMITTED)
    AssignmentFactory(hit=sandbox, worker=mturk[0], status=AssignmentStatus.APPROVED)
    for amount, status in ((Decimal("0.30"), BonusStatus.SENT), (Decimal("1.00"), "pending")):
        Bonus.objects.create(
            assignment=first, worker=first.worker, amount=amount, reason="Good", status=status
        )
    for status in (AssignmentStatus.APPROVED, AssignmentStatus.SUBMITTED):
        AssignmentFactory(hit=other, worker__platform=Platform.PROLIFIC, status=status)
    AssignmentFactory(hit=other, status=AssignmentStatus.SUBMITTED)
    AssignmentFactory(hit=other, status=AssignmentStatus.STARTED)
    AssignmentFactory(
        hit=other, worker__platform=Platform.IMPORTED, status=AssignmentStatus.SUBMITTED
    )
    campaign.reward = Decimal("0.90")
    campaign.save(update_fields=["reward"])

    listed = admin_client.get("/api/campaigns/").json()["results"]
    cost = next(row["cost"] for row in listed if row["id"] == campaign.pk)
    report = admin_client.get(f"/api/campaigns/{campaign.pk}/report/").json()["cost"]
    page = admin_client.get(reverse("campaign-report", args=[campaign.pk])).content.decode()

    assert cost == {
        "currency": "USD",
        "reward": "0.90",
        "approved_assignments": 4,  # 2 production, 1 sandbox, 1 Prolific
        "awaiting_review_assignments": 3,
        "committed_assignments": 7,
        "rewards": "2.40",  # 6 x $0.40 (the sandbox's at no cost)
        "bonuses_sent": "0.30",
        "mturk_fees": "0.30",  # 3 x $0.08 + $0.06
        "prolific_fees": "0.26",
        "paid": "1.85",
        "committed": "3.26",
        "on_mturk": True,
        "on_mturk_production": True,
    }
    lines = {line["key"]: line["count"] for line in report["lines"]}
    assert (lines["approved"], lines["submitted"]) == (4, 3)
    assert (report["paid"], report["committed"]) == ("1.85", "3.26")
    assert '<tr class="total" id="cost-paid"><td>Paid so far (approved, bonuses sent)</td>' in page
    assert '<td class="num">1.85</td>' in page
