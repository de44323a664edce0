"""The report prices work at the reward it was taken at (campaigns.pay), and places still to
come at the reward they will be offered at; hand-worked figures."""

from __future__ import annotations

from decimal import Decimal

import pytest

from analytics.reports.loading import campaign_report
from campaigns.models import MTurkHit
from judgments.actions import next_assignment_for
from judgments.models import Assignment, AssignmentStatus
from tests.factories import CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.django_db


def lines(campaign) -> dict[str, tuple[int, str, str]]:
    """key -> (count, rewards, total) of the report's cost lines."""
    cost = campaign_report(campaign).cost
    return {line.key: (line.count, str(line.rewards), str(line.total)) for line in cost.line_list}


def test_a_new_reward_does_not_reprice_work_submitted_at_the_old_one():
    """The requester's report: three assignments submitted at $0.50, then Reward set to 1.00;
    the report said "Submitted 3, 3.00; Committed 3.00". Direct links: no fee."""
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=3)
    for number in (1, 2):
        HitFactory(campaign=campaign, number=number)
    for _ in range(3):  # the hand-out fills HIT 1's three places
        next_assignment_for(WorkerFactory(), campaign)
    Assignment.objects.update(status=AssignmentStatus.SUBMITTED)
    campaign.reward = Decimal("1.00")
    campaign.save(update_fields=["reward"])

    report = campaign_report(campaign)

    # Submitted: 3 x $0.50; HIT 2's three places will be offered at $1.00.
    assert lines(campaign)["submitted"] == (3, "1.50", "1.50")
    assert lines(campaign)["not_started"] == (3, "3.00", "3.00")
    assert (report.cost.paid, report.cost.committed, report.cost.projected) == (
        Decimal("0.00"),
        Decimal("1.50"),
        Decimal("4.50"),
    )


def test_places_on_mturk_are_priced_at_the_reward_the_hit_was_published_with():
    # Published at $0.50 on production (HIT of 2: MTurk's 20%), the campaign's reward raised
    # to $0.80 since: MTurk's next worker is still paid $0.50 + $0.10.
    campaign = CampaignFactory(reward=Decimal("0.80"), redundancy=2)
    hit = HitFactory(campaign=campaign, number=1)
    MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id="3PUB",
        hit_type_id="T",
        sandbox=False,
        max_assignments=2,
        reward=Decimal("0.50"),
    )

    assert lines(campaign)["not_started"] == (2, "1.00", "1.20")
