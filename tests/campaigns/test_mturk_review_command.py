"""manage.py mturk_review: the command-line twin of the admin's review actions, against
botocore's Stubber (exact parameters), with its output and exit status."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from campaigns.platforms.models import PlatformEvent
from judgments.models import AssignmentStatus, Bonus, BonusStatus, Worker
from tests.campaigns.platforms import review_support as review_fixtures
from tests.campaigns.platforms.mturk.support import request_error
from tests.campaigns.platforms.review_support import (
    DECIDED,
    HIT_1,
    INVALID_STATE,
    INVALID_STATE_CODE,
    INVALID_STATE_HELP,
    bonus_params,
    list_response,
    mturk_assignment,
    mturk_worker,
    published_hit,
    remote_item,
    sent_to_mturk,
)
from tests.factories import AssignmentFactory, CampaignFactory

pytestmark = pytest.mark.django_db

mturk_stub = review_fixtures.mturk_stub  # the Stubber fixture, shared


def run(*args: str) -> str:
    out = StringIO()
    call_command("mturk_review", *args, stdout=out)
    return out.getvalue()


def test_approve_by_our_id_and_by_mturk_assignment_id(mturk_stub):
    hit = published_hit(CampaignFactory())
    first = mturk_assignment(hit, "3M01")
    second = mturk_assignment(hit, "3M02")
    direct = AssignmentFactory(hit=hit)
    for assignment_id in ("3M01", "3M02"):
        mturk_stub.add_response(
            "approve_assignment",
            {},
            {"AssignmentId": assignment_id, "RequesterFeedback": "Thanks."},
        )
    output = run("approve", str(first.pk), "3M02", str(direct.pk), "--feedback", "Thanks.")
    assert output == (
        "Done (2):\n"
        f"  assignment {first.pk} (worker AW3M01, MTurk 3M01)\n"
        f"  assignment {second.pk} (worker AW3M02, MTurk 3M02)\n"
        "Failed (0):\n"
        "Skipped (1):\n"
        f"  assignment {direct.pk} (worker {direct.worker.external_id}): Not submitted "
        "(started): review it once the worker has submitted.\n"
    )
    first.refresh_from_db()
    assert (first.status, first.review_feedback) == ("approved", "Thanks.")


def test_a_refused_review_is_printed_with_what_to_do_and_fails_the_command(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3M03")
    request_error(
        mturk_stub,
        "reject_assignment",
        INVALID_STATE,
        INVALID_STATE_CODE,
        {"AssignmentId": "3M03", "RequesterFeedback": "Random clicking."},
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 item\\(s\\) failed and were left unchanged here"):
        call_command("mturk_review", "reject", "3M03", "--feedback", "Random clicking.", stdout=out)
    assert (
        f"  assignment {row.pk} (worker AW3M03, MTurk 3M03): {INVALID_STATE} "
        f"({INVALID_STATE_CODE}) What to do: {INVALID_STATE_HELP}\n"
    ) in out.getvalue()
    row.refresh_from_db()
    assert row.status == "submitted"
    assert list(
        PlatformEvent.objects.values_list("campaign", "kind", "operation", "code", "what_to_do")
    ) == [(row.campaign_id, "error", "reject", INVALID_STATE_CODE, INVALID_STATE_HELP)]


def test_unknown_ids_stop_the_command_before_anything_is_done(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3M04")
    with pytest.raises(CommandError) as caught:
        run("approve", str(row.pk), "3NOSUCH", "999999")
    assert str(caught.value) == "No assignment with the id(s) 3NOSUCH, 999999. Nothing was done."
    row.refresh_from_db()
    assert row.status == "submitted"


def test_reject_needs_feedback(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3M05")
    with pytest.raises(CommandError, match="A rejection needs feedback.*Nothing was done."):
        run("reject", str(row.pk))


def test_bonus_with_amount_and_reason(mturk_stub):
    row = mturk_assignment(published_hit(CampaignFactory()), "3M06", AssignmentStatus.APPROVED)
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response(
        "send_bonus", {}, bonus_params(row, amount="1.25", reason="Careful work.")
    )
    output = run("bonus", "3M06", "--amount", "1.25", "--reason", "Careful work.")
    assert output.startswith(f"Done (1):\n  assignment {row.pk} (worker AW3M06, MTurk 3M06)\n")
    bonus = Bonus.objects.get()
    assert sent == [
        {
            "WorkerId": "AW3M06",
            "BonusAmount": "1.25",
            "AssignmentId": "3M06",
            "Reason": "Careful work.",
            "UniqueRequestToken": f"evalsite-bonus-{bonus.pk}",
        }
    ]
    assert (bonus.status, bonus.created_by) == (BonusStatus.SENT, "mturk_review command")
    with pytest.raises(CommandError, match="--amount"):
        run("bonus", "3M06", "--reason", "Careful work.")


def test_block_and_notify_by_mturk_worker_id(mturk_stub):
    worker = mturk_worker("A3BLOCKME")
    mturk_assignment(published_hit(CampaignFactory()), "3M07", worker=worker)
    mturk_stub.add_response(
        "create_worker_block", {}, {"WorkerId": "A3BLOCKME", "Reason": "Copied answers."}
    )
    assert run("block", "A3BLOCKME", "--reason", "Copied answers.").startswith(
        "Done (1):\n  worker A3BLOCKME\n"
    )
    assert Worker.objects.get(pk=worker.pk).blocked_reason == "Copied answers."
    mturk_stub.add_response(
        "notify_workers",
        {},
        {"Subject": "Thanks", "MessageText": "Bonus sent.", "WorkerIds": ["A3BLOCKME"]},
    )
    output = run("notify", str(worker.pk), "--subject", "Thanks", "--message", "Bonus sent.")
    assert output.startswith("Done (1):\n  worker A3BLOCKME (sandbox)\n")
    with pytest.raises(CommandError, match="Give the worker id\\(s\\) to notify."):
        run("notify")


def test_sync_prints_each_campaign_and_fails_on_mturk_errors(mturk_stub):
    campaign = CampaignFactory()
    row = mturk_assignment(published_hit(campaign), "3M08")
    list_response(mturk_stub, [remote_item("3M08", "Rejected", RejectionTime=DECIDED)])
    assert run("sync", str(campaign.pk)) == (
        f"Campaign {campaign.pk}: 1 HIT(s) synced; 1 marked rejected; 0 review(s) sent to "
        "MTurk; 0 need a person; 0 error(s).\n"
    )
    row.refresh_from_db()
    assert row.status == "rejected"

    mturk_stub.add_client_error(
        "list_assignments_for_hit",
        service_error_code="ServiceFault",
        service_message="Service unavailable",
        http_status_code=500,
    )
    out = StringIO()
    with pytest.raises(CommandError, match="1 MTurk call\\(s\\) failed"):
        call_command("mturk_review", "sync", stdout=out)  # every campaign worth syncing
    assert out.getvalue().splitlines()[-1] == (
        f"  Failed: HIT {HIT_1}: Service unavailable (ServiceFault) What to do: MTurk is "
        "temporarily unable to process the request: retry later."
    )
    with pytest.raises(CommandError, match="No campaign with the id\\(s\\) 999999."):
        run("sync", "999999")
