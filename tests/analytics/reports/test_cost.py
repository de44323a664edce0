"""analytics.reports.cost against hand-worked numbers: rewards plus MTurk's or Prolific's fee,
approved, submitted, in progress and not started kept apart (issue 17 item 3)."""

from __future__ import annotations

from decimal import Decimal

from analytics.reports.cost import (
    AssignmentCostRow,
    BonusCostRow,
    HitPlacesRow,
    PlacesToComeRow,
    assignment_fee,
    bonus_fee,
    cost_report,
    offered_on,
    per_assignment_cost,
)

D = Decimal


def test_fees_per_assignment_by_platform():
    # MTurk: 20% of $0.50 = $0.10; HITs of 10+ assignments 40%; with Masters 45% of $0.50 =
    # $0.225, rounded half up to $0.23; at least $0.01 ($0.04 x 20% = $0.008).
    assert assignment_fee("mturk", D("0.50"), max_assignments=5) == D("0.10")
    assert assignment_fee("mturk", D("0.50"), max_assignments=10) == D("0.20")
    assert assignment_fee("mturk", D("0.50"), max_assignments=10, masters=True) == D("0.23")
    assert assignment_fee("mturk", D("0.04"), max_assignments=3) == D("0.01")
    assert assignment_fee("mturk", D("0.50"), sandbox=True, max_assignments=5) == D("0.00")
    # Prolific: 33.33% of $0.50 = $0.16665, rounded to $0.17. Direct links: nothing.
    assert assignment_fee("prolific", D("0.50")) == D("0.17")
    assert assignment_fee("direct", D("0.50")) == D("0.00")
    assert assignment_fee("mturk", D("0.00"), max_assignments=5) == D("0.00")
    # Bonuses: MTurk's base 20% whatever the HIT; Prolific's service fee.
    assert bonus_fee("mturk", D("0.25")) == D("0.05")
    assert bonus_fee("prolific", D("0.30")) == D("0.10")
    assert per_assignment_cost(D("0.50"), "mturk", max_assignments=5) == D("0.60")
    assert per_assignment_cost(D("0.50"), "mturk", sandbox=True) == D("0.00")


def test_where_free_places_are_offered():
    assert offered_on(True, True) == "mturk"
    assert offered_on(False, True) == "prolific"
    assert offered_on(False, False) == "direct"


def test_cost_lines_keep_approved_submitted_and_projected_apart():
    mturk = {"platform": "mturk", "mturk_sandbox": False, "mturk_max_assignments": 5}
    rows = [
        AssignmentCostRow("approved", reward=D("0.50"), **mturk),
        AssignmentCostRow("approved", reward=D("0.50"), **mturk),
        AssignmentCostRow("submitted", "prolific", D("0.50")),
        AssignmentCostRow("started", "direct", D("0.50")),
        AssignmentCostRow("rejected", reward=D("0.50"), **mturk),
        AssignmentCostRow("expired", "direct", D("0.50")),
        # On the sandbox: counted, costs nothing. Imported: not counted at all.
        AssignmentCostRow("approved", "mturk", D("0.50"), True, 5),
        AssignmentCostRow("approved", "imported", D("0.50")),
    ]
    hits = [
        # 3 places, 1 held: 2 not started on MTurk at $0.50 + $0.10.
        HitPlacesRow(3, 1, D("0.50"), "mturk", False, 3),
        HitPlacesRow(2, 2, D("0.50"), "direct"),
        HitPlacesRow(2, 3, D("0.50"), "direct"),  # more live than places: none free
    ]
    bonuses = [
        BonusCostRow(D("0.25"), True, "mturk", False),
        BonusCostRow(D("1.00"), False, "mturk", False),
    ]
    report = cost_report(rows, hits, bonuses)
    lines = {
        key: (line.count, line.rewards, line.fees, line.total) for key, line in report.lines.items()
    }
    assert lines == {
        "approved": (3, D("1.00"), D("0.20"), D("1.20")),
        "submitted": (1, D("0.50"), D("0.17"), D("0.67")),
        "in_progress": (1, D("0.50"), D("0.00"), D("0.50")),
        "not_started": (2, D("1.00"), D("0.20"), D("1.20")),
        "to_come": (0, D("0.00"), D("0.00"), D("0.00")),
        "bonuses_sent": (1, D("0.25"), D("0.05"), D("0.30")),
        "bonuses_pending": (1, D("1.00"), D("0.20"), D("1.20")),
    }
    # Paid: 1.20 + 0.30; committed: + 0.67; projected: + 0.50 + 1.20 + 1.20.
    assert report.paid == D("1.50")
    assert report.committed == D("2.17")
    assert report.projected == D("5.07")
    assert report.fees_by_platform == {"mturk": D("0.65"), "prolific": D("0.17")}
    assert [line.key for line in report.line_list] == [
        "approved",
        "submitted",
        "in_progress",
        "not_started",
        "to_come",
        "bonuses_sent",
        "bonuses_pending",
    ]
    assert report.lines["to_come"].label == "Still to come (places of HITs built as work arrives)"


def test_places_still_to_come_are_projected_with_their_platforms_fee():
    # 9 verification places at $0.10 on direct links, 6 at $0.40 on Prolific (33.33%: $0.13).
    to_come = [
        PlacesToComeRow(9, D("0.10"), "direct", "Verification still to come"),
        PlacesToComeRow(6, D("0.40"), "prolific", "Verification still to come"),
        PlacesToComeRow(0, D("0.40"), "direct", "Nothing"),
    ]
    report = cost_report([AssignmentCostRow("submitted", "direct", D("0.40"))], [], to_come=to_come)
    line = report.lines["to_come"]
    assert (line.count, line.rewards, line.fees, line.total) == (
        15,
        D("3.30"),
        D("0.78"),
        D("4.08"),
    )
    assert line.label == "Verification still to come"  # said once; empty rows say nothing
    assert (report.committed, report.projected) == (D("0.40"), D("4.48"))
    assert report.fees_by_platform == {"prolific": D("0.78")}


def test_masters_raise_the_fee_on_rewards_only():
    rows = [AssignmentCostRow("approved", "mturk", D("0.30"), False, 3)]
    report = cost_report(rows, [], [BonusCostRow(D("0.30"), True, "mturk", False)], masters=True)
    # Reward: 25% of $0.30 = $0.075, charged $0.08; the bonus pays 20% = $0.06.
    assert report.lines["approved"].fees == D("0.08")
    assert report.lines["bonuses_sent"].fees == D("0.06")
    assert report.paid == D("0.74")
