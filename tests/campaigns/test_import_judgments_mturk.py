"""MTurk batch result CSVs of our own HITs: reconciled with our assignments by AssignmentId;
rows that are not ours are problems with their line, and nothing is written."""

import io
from datetime import UTC, datetime

import pytest

from analytics.models import CampaignResult
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import Campaign
from judgments.models import Assignment, AssignmentStatus, Platform
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    JudgmentFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

HEADER = (
    '"HITId","HITTypeId","Title","AssignmentId","WorkerId","AssignmentStatus","AcceptTime",'
    '"SubmitTime","AutoApprovalTime","ApprovalTime","RejectionTime","RequesterFeedback",'
    '"WorkTimeInSeconds","Answer.done","Approve","Reject"'
)


def row(assignment, worker, status, hit="HIT1", approval="", rejection=""):
    return (
        f'"{hit}","TYPE1","Rate translations","{assignment}","{worker}","{status}",'
        f'"Wed Nov 18 10:00:00 PST 2020","Wed Nov 18 10:22:33 PST 2020",'
        f'"Sat Nov 21 10:22:33 PST 2020","{approval}","{rejection}","","1353","yes","",""'
    )


def upload(*rows: str, name: str = "Batch_4242_batch_results.csv") -> io.BytesIO:
    data = io.BytesIO(("\n".join([HEADER, *rows]) + "\n").encode("utf-8"))
    data.name = name
    return data


@pytest.fixture
def ours():
    campaign = CampaignFactory(name="our DA")
    hit = HitFactory(campaign=campaign)
    made = {}
    for assignment_id, worker_id, status in (
        ("AS1", "WA", AssignmentStatus.SUBMITTED),
        ("AS2", "WB", AssignmentStatus.SUBMITTED),
        ("AS3", "WC", AssignmentStatus.REJECTED),
        ("AS4", "WD", AssignmentStatus.APPROVED),
        ("AS5", "WE", AssignmentStatus.SUBMITTED),
    ):
        made[assignment_id] = AssignmentFactory(
            hit=hit,
            worker=WorkerFactory(platform=Platform.MTURK, external_id=worker_id),
            status=status,
            platform_assignment_id=assignment_id,
            platform_hit_id="HIT1",
        )
    return campaign, made


def statuses():
    return dict(
        Assignment.objects.values_list("platform_assignment_id", "status", "platform_status")
        .order_by("platform_assignment_id")
        .values_list("platform_assignment_id", "status")
    )


def test_batch_records_mturk_decisions_on_our_assignments(ours):
    campaign, made = ours
    for _ in range(3):
        JudgmentFactory(assignment=made["AS2"])
    summary = import_judgments(
        [
            upload(
                row("AS1", "WA", "Approved", approval="Thu Nov 19 09:00:00 PST 2020"),
                row("AS2", "WB", "Rejected", rejection="Thu Nov 19 09:05:00 PST 2020"),
                row("AS3", "WC", "Approved", approval="Thu Nov 19 09:10:00 PST 2020"),
                row("AS4", "WD", "Submitted"),
                row("AS5", "WE", "Submitted"),
            )
        ],
        ImportOptions("mturk-batch"),
    )
    assert summary.message == (
        'Reconciled 5 assignments of campaign "our DA" with Batch_4242_batch_results.csv: 1 '
        "marked approved, 1 marked rejected, 1 already in agreement, 1 in conflict (kept; see "
        "the notes), 1 decided here, not yet on MTurk (the sync sends them). Assignment AS3 "
        "(worker WC) is rejected here and Approved on MTurk: MTurk approved and paid it "
        "(usually auto-approval before our rejection reached MTurk); a paid assignment cannot "
        "be rejected. Keep our rejection for the scores or mark it approved."
    )
    rows = {
        a.platform_assignment_id: (a.status, a.platform_status) for a in Assignment.objects.all()
    }
    assert rows == {
        "AS1": (AssignmentStatus.APPROVED, "Approved"),
        "AS2": (AssignmentStatus.REJECTED, "Rejected"),
        "AS3": (AssignmentStatus.REJECTED, "Approved"),
        "AS4": (AssignmentStatus.APPROVED, "Submitted"),
        "AS5": (AssignmentStatus.SUBMITTED, "Submitted"),
    }
    approved = Assignment.objects.get(platform_assignment_id="AS1")
    # 09:00 Pacific standard time is 17:00 UTC.
    assert approved.reviewed_at == datetime(2020, 11, 19, 17, 0, tzinfo=UTC)
    assert Campaign.objects.get().imported_from == ""
    # The rejection leaves AS2's three judgments out of the scores at once.
    assert CampaignResult.objects.get(campaign=campaign).n_rejected_judgments == 3


def test_rows_that_are_not_our_assignments_are_problems_and_nothing_changes(ours):
    campaign, _ = ours
    other = CampaignFactory(name="other")
    AssignmentFactory(
        hit=HitFactory(campaign=other),
        worker=WorkerFactory(platform=Platform.MTURK, external_id="WZ"),
        status=AssignmentStatus.SUBMITTED,
        platform_assignment_id="AS7",
    )
    before = statuses()
    with pytest.raises(ImportFailed) as failure:
        import_judgments(
            [
                upload(
                    row("AS1", "WA", "Approved"),
                    row("AS9", "WX", "Approved"),
                    row("AS2", "WX", "Rejected"),
                    row("AS5", "WE", "Paid"),
                    row("AS1", "WA", "Approved"),
                    row("AS4", "WD", "Approved", hit="HIT2"),
                    row("AS7", "WZ", "Approved"),
                    row("AS3", "WC", "Approved", approval="yesterday"),
                )
            ],
            ImportOptions("mturk-batch"),
        )
    name = "Batch_4242_batch_results.csv"
    assert failure.value.lines() == [
        'the assignments belong to several campaigns: "our DA" (first on line 2); "other" '
        "(first on line 8); import one campaign's batch at a time",
        f'{name} line 3, field "AssignmentId": no assignment AS9 in evalsite (among the '
        "campaigns you may import into): the file is not a batch of our own HITs, or the "
        "worker never submitted through our task page",
        f"{name} line 4, field \"WorkerId\": assignment AS2 is worker WB's in evalsite, not WX's",
        f'{name} line 5, field "AssignmentStatus": unknown AssignmentStatus "Paid"; MTurk\'s '
        "are Submitted, Approved and Rejected",
        f'{name} line 6, field "AssignmentId": assignment AS1 is also on line 2; MTurk lists '
        "an assignment once",
        f'{name} line 7, field "HITId": assignment AS4 is on HIT HIT1 in evalsite, not HIT2',
        f'{name} line 9, field "ApprovalTime": "yesterday" is not a time as MTurk writes it '
        '(e.g. "Wed Nov 18 10:22:33 PST 2020") or ISO 8601',
    ]
    assert statuses() == before
    assert not Assignment.objects.exclude(platform_status="").exists()

    # Assignments of campaigns the importer may not change are not theirs to reconcile.
    with pytest.raises(ImportFailed) as failure:
        import_judgments(
            [upload(row("AS1", "WA", "Approved"))],
            ImportOptions("mturk-batch", appendable=Campaign.objects.filter(pk=other.pk)),
        )
    assert failure.value.lines()[0].endswith(
        "no assignment AS1 in evalsite (among the "
        "campaigns you may import into): the file is not a batch of our own HITs, or the "
        "worker never submitted through our task page"
    )
    assert statuses() == before


def test_a_named_campaign_must_be_the_batchs(ours):
    with pytest.raises(ImportFailed) as failure:
        import_judgments(
            [upload(row("AS1", "WA", "Approved"))],
            ImportOptions("mturk-batch", name="another campaign"),
        )
    assert failure.value.lines() == [
        'field "name": the assignments are campaign "our DA"\'s, not "another campaign"\'s'
    ]


def test_a_dry_run_says_what_would_change(ours):
    summary = import_judgments(
        [upload(row("AS1", "WA", "Approved"))], ImportOptions("mturk-batch"), dry_run=True
    )
    assert summary.message == (
        'Checked Batch_4242_batch_results.csv: no problems. 1 assignment of campaign "our DA" '
        "matched; if imported: 1 marked approved; nothing was written."
    )
    assert Assignment.objects.get(platform_assignment_id="AS1").status == AssignmentStatus.SUBMITTED
