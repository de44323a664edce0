"""The report prices work at the reward it was taken at (campaigns.pay), and places still to
come at the reward they will be offered at; hand-worked figures."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from analytics.reports.loading import campaign_report
from campaigns.kinds.post_editing.verification import build_verification_hits
from campaigns.models import Campaign, Hit, HitTask, MTurkHit, TaskKind
from judgments.actions import next_assignment_for
from judgments.models import Assignment, AssignmentStatus
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    WorkerFactory,
)

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


# --- Post-editing: verification still to come ------------------------------------------------


def post_editing(reward="0.40", verification_reward=None):
    """The requester's example: 4 editing HITs x redundancy 2, 3 verifiers per edit; 5 edits
    submitted (HITs 1 and 2 full, one of HIT 3), their 5 verification HITs built (3 places
    each) and 6 verifications submitted (two on each of the first three)."""
    campaign = CampaignFactory(
        kind=TaskKind.POST_EDITING,
        reward=Decimal(reward),
        redundancy=2,
        verifiers_per_edit=3,
        verification_reward=None if verification_reward is None else Decimal(verification_reward),
    )
    edit_hits = [
        HitFactory(campaign=campaign, number=n, task=HitTask.POST_EDIT) for n in (1, 2, 3, 4)
    ]
    slots = [HitSlotFactory(hit=hit, position=1) for hit in edit_hits]
    for index in (0, 0, 1, 1, 2):
        edit(edit_hits[index], slots[index])
    assert build_verification_hits(campaign) == 5
    verify_hits = Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT).order_by("number")
    for hit in verify_hits[:3]:
        for _ in range(2):
            AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    return campaign, edit_hits, slots


def edit(hit, slot):
    """One editor's submitted edit assignment of ``hit``, with its edit."""
    assignment = AssignmentFactory(
        hit=hit, status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )
    JudgmentFactory(assignment=assignment, slot=slot, score=None, text="An edited sentence.")
    return assignment


def test_the_projection_counts_the_verification_of_edits_still_to_come():
    """Reward $0.40, 4 editing HITs x 2, 3 verifiers per edit: 8 edits and 8 x 3
    verifications, 32 assignments x $0.40 = $12.80 (the report said $9.20)."""
    campaign, _, _ = post_editing()

    report = campaign_report(campaign)

    got = lines(campaign)
    assert got["submitted"] == (11, "4.40", "4.40")  # 5 edits + 6 verifications
    # 3 editing places (HIT 3's second, HIT 4's two) and 5 x 3 - 6 = 9 verification places.
    assert got["not_started"] == (12, "4.80", "4.80")
    # The 3 edits still to come bring 3 verification HITs of 3 places.
    assert got["to_come"] == (9, "3.60", "3.60")
    assert report.cost.lines["to_come"].label == (
        "Verification still to come: 3 places for each of 3 edits not in yet or awaiting its "
        "verification HIT (built as edits arrive)"
    )
    assert (report.cost.committed, report.cost.projected) == (Decimal("4.40"), Decimal("12.80"))


def test_an_edit_in_whose_verification_hit_is_not_built_yet_still_counts():
    campaign, edit_hits, slots = post_editing()
    edit(edit_hits[3], slots[3])  # submitted; the recompute has not built its HIT yet

    got = lines(campaign)

    # HIT 4 has one edit to come, HIT 3 one, and the new edit awaits its HIT: 3 x 3 places.
    assert got["to_come"] == (9, "3.60", "3.60")
    assert got["not_started"] == (11, "4.40", "4.40")  # 2 editing + 9 verification places
    assert campaign_report(campaign).cost.projected == Decimal("12.80")


def test_verification_is_projected_at_the_verification_reward():
    """Verification at $0.10: 8 edits x $0.40 + 24 verifications x $0.10 = $5.60."""
    campaign, _, _ = post_editing(verification_reward="0.10")

    report = campaign_report(campaign)

    got = lines(campaign)
    assert got["submitted"] == (11, "2.60", "2.60")  # 5 x 0.40 + 6 x 0.10
    assert got["not_started"] == (12, "2.10", "2.10")  # 3 x 0.40 + 9 x 0.10
    assert got["to_come"] == (9, "0.90", "0.90")
    assert report.cost.projected == Decimal("5.60")
    assert [(r.task, r.label, r.own, r.reward) for r in report.task_rewards] == [
        (HitTask.VERIFY_EDIT, "Verification HITs", Decimal("0.10"), Decimal("0.10"))
    ]


def test_verification_to_come_on_prolific_carries_its_fee():
    # 9 places x ($0.40 + 33.33% of it, $0.13).
    campaign, _, _ = post_editing()
    campaign.prolific_study_id = "60a1b2c3d4e5f6a7b8c9d0e1"
    campaign.save(update_fields=["prolific_study_id"])

    assert lines(campaign)["to_come"] == (9, "3.60", "4.77")


def test_a_campaign_of_imported_post_edits_has_nothing_to_come():
    campaign, _, _ = post_editing()
    Campaign.objects.filter(pk=campaign.pk).update(imported_from="wmt")
    campaign.refresh_from_db()

    assert lines(campaign)["to_come"] == (0, "0.00", "0.00")


def test_the_report_page_and_the_api_say_what_is_still_to_come(admin_client):
    campaign, _, _ = post_editing(verification_reward="0.10")

    page = admin_client.get(reverse("campaign-report", args=[campaign.pk])).content.decode()
    data = admin_client.get(f"/api/campaigns/{campaign.pk}/report/").json()

    assert "reward $0.40 per assignment (Verification HITs: $0.10), 2 workers per HIT" in page
    assert (
        '<tr id="cost-to_come"><td>Verification still to come: 3 places for each of 3 edits '
        "not in yet or awaiting its verification HIT (built as edits arrive)</td>"
        '<td class="num">9</td><td class="num">0.90</td>'
    ) in page
    assert "committed + in progress + not started + still to come + pending bonuses" in page
    assert data["task_rewards"] == [
        {
            "task": "verify_edit",
            "label": "Verification HITs",
            "own_reward": "0.10",
            "reward": "0.10",
        }
    ]
    to_come = next(line for line in data["cost"]["lines"] if line["key"] == "to_come")
    assert (to_come["count"], to_come["total"], data["cost"]["projected"]) == (9, "0.90", "5.60")
