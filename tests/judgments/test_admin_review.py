"""The requester's review in the admin: the Assignment changelist with each worker's reliability
or trust and the recommendation (a constant number of queries), the intermediate pages of
approve / reject / bonus / block / e-mail, their outcome messages (MTurk errors with what to
do), the Worker and Bonus admins, and the campaign's "Sync with MTurk now"."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from analytics.models import RankingWorkerStat, Recommendation, TrustStatus, WorkerStat
from campaigns.models import ReliabilityTest, TaskKind
from campaigns.platforms.models import PlatformEvent
from judgments.models import Assignment, AssignmentStatus, Bonus, BonusStatus, Worker
from tests.campaigns.platforms import review_support as review_fixtures
from tests.campaigns.platforms.mturk.support import request_error
from tests.campaigns.platforms.review_support import (
    DECIDED,
    HIT_1,
    INVALID_STATE,
    INVALID_STATE_CODE,
    INVALID_STATE_HELP,
    WORKER_1,
    bonus_params,
    list_response,
    mturk_assignment,
    mturk_worker,
    published_hit,
    remote_item,
    sent_to_mturk,
)
from tests.factories import AssignmentFactory, CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db

mturk_stub = review_fixtures.mturk_stub  # the Stubber fixture, shared

CHANGELIST = "admin:judgments_assignment_changelist"


def da_stat(assignment, *, reliable, p_value, recommendation, reason=""):
    return WorkerStat.objects.create(
        campaign=assignment.campaign,
        worker=assignment.worker,
        n_judgments=100,
        test=ReliabilityTest.WILCOXON,
        p_value=p_value,
        reliable=reliable,
        n_pairs=10,
        n_bad_ref_pairs=10,
        n_repeat_pairs=10,
        mean_seconds=4.0,
        recommendation=recommendation,
        recommendation_reason=reason,
    )


def messages_of(response) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in response.context["messages"]]


def cells(html: str, css_class: str) -> list[str]:
    return re.findall(rf'<td class="{css_class}"[^>]*>(.*?)</td>', html, re.S)


def run_action(client, url_name, action, ids, **data):
    payload = {"action": action, "_selected_action": [str(pk) for pk in ids], **data}
    return client.post(reverse(url_name), payload, follow=bool(data.get("apply")))


@pytest.fixture
def reviewed(db):
    """A direct-assessment campaign on MTurk: a reliable worker, a random clicker, and a worker
    the statistics have not seen yet."""
    campaign = CampaignFactory()
    hit = published_hit(campaign)
    good = mturk_assignment(hit, "3R01", worker=mturk_worker("AGOOD"))
    random = mturk_assignment(hit, "3R02", worker=mturk_worker("ARANDOM"))
    unseen = mturk_assignment(hit, "3R03", worker=mturk_worker("AUNSEEN"))
    da_stat(good, reliable=True, p_value=0.001, recommendation=Recommendation.APPROVE)
    da_stat(
        random,
        reliable=False,
        p_value=0.62,
        recommendation=Recommendation.REJECT,
        reason="the same score (70) on all 100 items",
    )
    return campaign, good, random, unseen


# --- The changelist --------------------------------------------------------------------------


def test_changelist_shows_reliability_trust_recommendation_and_mturk_status(admin_client, reviewed):
    campaign, good, random, unseen = reviewed
    ranking = CampaignFactory(kind=TaskKind.RANKING)
    ranked = AssignmentFactory(hit__campaign=ranking, status=AssignmentStatus.SUBMITTED)
    RankingWorkerStat.objects.create(
        campaign=ranking,
        worker=ranked.worker,
        n_judgments=30,
        n_ballots=10,
        gold_seen=5,
        gold_correct=2,
        accuracy=0.4,
        status=TrustStatus.UNTRUSTED,
        in_scores=False,
    )
    Assignment.objects.filter(pk=good.pk).update(platform_status="Submitted")
    html = admin_client.get(reverse(CHANGELIST) + "?o=1").content.decode()
    assert cells(html, "field-worker_quality") == [
        "reliable (p = 0.001)",
        "not reliable (p = 0.620)",
        "no statistics yet",
        "untrusted (gold accuracy 40%)",
    ]
    assert cells(html, "field-recommendation_shown") == [
        "Approve (reliable)",
        "Consider rejecting (clearly not working): the same score (70) on all 100 items",
        "No recommendation yet",
        "Approve, leave out of scores (failed the gold units; reject only clear random clicking)",
    ]
    assert cells(html, "field-platform_status") == ["Submitted", "-", "-", "-"]


def test_changelist_runs_the_same_queries_for_1_and_5_assignments(
    admin_client, django_assert_num_queries
):
    campaign = CampaignFactory()
    hit = published_hit(campaign)

    def add(count):
        for _ in range(count):
            row = mturk_assignment(hit, f"3Q{Assignment.objects.count():02d}")
            da_stat(row, reliable=True, p_value=0.01, recommendation=Recommendation.APPROVE)
            Bonus.objects.create(
                assignment=row,
                worker=row.worker,
                amount=Decimal("0.25"),
                reason="Thanks.",
                status=BonusStatus.SENT,
            )

    add(1)
    admin_client.get(reverse(CHANGELIST))  # the session and content types are cached
    with CaptureQueriesContext(connection) as one:
        first = admin_client.get(reverse(CHANGELIST))
    assert first.content.decode().count("$0.25") == 1
    add(4)
    with django_assert_num_queries(len(one.captured_queries)):
        response = admin_client.get(reverse(CHANGELIST))
    assert response.content.decode().count("$0.25") == 5


def test_the_change_form_is_read_only(admin_client, reviewed):
    _, good, _, _ = reviewed
    html = admin_client.get(reverse("admin:judgments_assignment_change", args=[good.pk]))
    html = html.content.decode()
    assert 'name="status"' not in html
    assert 'name="platform_status"' not in html
    assert '<div class="readonly">Submitted</div>' in html


# --- Approve and reject ----------------------------------------------------------------------


def test_the_reject_page_warns_about_workers_not_recommended_for_rejection(
    admin_client, reviewed, mturk_stub
):
    _, good, random, unseen = reviewed
    response = run_action(
        admin_client, CHANGELIST, "reject_selected", [good.pk, random.pk, unseen.pk]
    )
    html = response.content.decode()
    assert response.templates[0].name == "admin/judgments/review_action.html"
    assert cells(html, "quality") == [
        "reliable (p = 0.001)",
        "not reliable (p = 0.620)",
        "no statistics yet",
    ]
    assert cells(html, "recommendation") == [
        "Approve (reliable)",
        "Consider rejecting (clearly not working): the same score (70) on all 100 items",
        "No recommendation yet",
    ]
    assert (
        f"2 of the 3 selected assignment(s) are by workers the system does not recommend "
        f"rejecting: assignment {good.pk}, assignment {unseen.pk}. Following 001, reject only "
        "clear random clicking"
    ) in html
    assert mturk_stub.environments == []  # nothing sent yet


def test_the_approve_page_and_the_list_show_the_reward_each_assignment_was_taken_at(
    admin_client, reviewed, mturk_stub
):
    """Approving pays the reward an assignment was taken at, not the campaign's of today."""
    campaign, good, random, unseen = reviewed
    Assignment.objects.filter(pk=good.pk).update(reward=Decimal("0.50"))
    Assignment.objects.filter(pk=random.pk).update(reward=Decimal("0.35"))
    Assignment.objects.filter(pk=unseen.pk).update(reward=None)  # as imported judgments
    campaign.reward = Decimal("1.00")
    campaign.save(update_fields=["reward"])
    html = run_action(
        admin_client, CHANGELIST, "approve_selected", [good.pk, random.pk, unseen.pk]
    ).content.decode()
    assert cells(html, "reward") == ["$0.50", "$0.35", "-"]
    assert "the Reward column: the one it was taken at" in html
    listed = admin_client.get(reverse(CHANGELIST) + "?o=1").content.decode()
    assert cells(listed, "field-reward_shown") == ["$0.50", "$0.35", "-"]


def test_reject_sends_the_feedback_and_reports(admin_client, reviewed, mturk_stub):
    campaign, _, random, _ = reviewed
    mturk_stub.add_response(
        "reject_assignment",
        {},
        {"AssignmentId": "3R02", "RequesterFeedback": "Failed 9 of 10 control items."},
    )
    response = run_action(
        admin_client,
        CHANGELIST,
        "reject_selected",
        [random.pk],
        apply="1",
        feedback="Failed 9 of 10 control items.",
    )
    assert response.redirect_chain == [(reverse(CHANGELIST), 302)]
    assert messages_of(response) == [
        ("success", f"Rejected 1: assignment {random.pk} (worker ARANDOM, MTurk 3R02).")
    ]
    random.refresh_from_db()
    assert (random.status, random.review_feedback) == ("rejected", "Failed 9 of 10 control items.")


def test_reject_without_feedback_shows_the_form_again_and_changes_nothing(
    admin_client, reviewed, mturk_stub
):
    _, _, random, _ = reviewed
    response = run_action(
        admin_client, CHANGELIST, "reject_selected", [random.pk], apply="1", feedback="  "
    )
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    random.refresh_from_db()
    assert random.status == "submitted"


def test_an_mturk_error_is_shown_with_what_to_do_and_stored(admin_client, reviewed, mturk_stub):
    campaign, good, _, _ = reviewed
    request_error(
        mturk_stub,
        "approve_assignment",
        INVALID_STATE,
        INVALID_STATE_CODE,
        {"AssignmentId": "3R01"},
    )
    response = run_action(
        admin_client, CHANGELIST, "approve_selected", [good.pk], apply="1", feedback=""
    )
    label = f"assignment {good.pk} (worker AGOOD, MTurk 3R01)"
    assert messages_of(response) == [
        (
            "error",
            f"Not done for {label}: {INVALID_STATE} ({INVALID_STATE_CODE}) What to do: "
            f"{INVALID_STATE_HELP}",
        )
    ]
    good.refresh_from_db()
    assert (good.status, good.reviewed_at) == ("submitted", None)
    assert PlatformEvent.objects.get(campaign=campaign).what_to_do == INVALID_STATE_HELP


def test_approve_reports_done_and_skipped_together(admin_client, reviewed, mturk_stub):
    _, good, _, _ = reviewed
    started = AssignmentFactory(hit=good.hit)
    mturk_stub.add_response("approve_assignment", {}, {"AssignmentId": "3R01"})
    response = run_action(
        admin_client, CHANGELIST, "approve_selected", [good.pk, started.pk], apply="1"
    )
    assert messages_of(response) == [
        ("success", f"Approved 1: assignment {good.pk} (worker AGOOD, MTurk 3R01)."),
        (
            "warning",
            f"Skipped 1 (assignment {started.pk} (worker {started.worker.external_id})): Not "
            "submitted (started): review it once the worker has submitted.",
        ),
    ]


# --- Bonus, block, notify --------------------------------------------------------------------


def test_bonus_page_pays_once_and_the_bonus_admin_lists_it(admin_client, reviewed, mturk_stub):
    _, good, _, _ = reviewed
    page = run_action(admin_client, CHANGELIST, "bonus_selected", [good.pk])
    assert "Bonus per assignment (US dollars)" in page.content.decode()
    sent = sent_to_mturk(mturk_stub, "SendBonus")
    mturk_stub.add_response(
        "send_bonus", {}, bonus_params(good, amount="0.75", reason="Top agreement.")
    )
    response = run_action(
        admin_client,
        CHANGELIST,
        "bonus_selected",
        [good.pk],
        apply="1",
        amount="0.75",
        reason="Top agreement.",
    )
    assert messages_of(response)[0][0] == "success"
    bonus = Bonus.objects.get()
    assert sent == [bonus_params(good, bonus, amount="0.75", reason="Top agreement.")]
    assert (bonus.amount, bonus.status, bonus.created_by) == (
        Decimal("0.75"),
        BonusStatus.SENT,
        "admin (admin)",
    )
    again = run_action(
        admin_client,
        CHANGELIST,
        "bonus_selected",
        [good.pk],
        apply="1",
        amount="0.75",
        reason="Top agreement.",
    )
    assert messages_of(again)[0][0] == "warning"
    assert "was already paid on" in messages_of(again)[0][1]

    listing = admin_client.get(reverse("admin:judgments_bonus_changelist")).content.decode()
    assert "Top agreement." in listing
    assert admin_client.get(reverse("admin:judgments_bonus_add")).status_code == 403


def test_block_the_workers_of_selected_assignments(admin_client, reviewed, mturk_stub):
    _, _, random, _ = reviewed
    mturk_stub.add_response(
        "create_worker_block", {}, {"WorkerId": "ARANDOM", "Reason": "Random clicking."}
    )
    response = run_action(
        admin_client,
        CHANGELIST,
        "block_selected_workers",
        [random.pk],
        apply="1",
        reason="Random clicking.",
    )
    assert messages_of(response) == [("success", "Blocked on MTurk 1: worker ARANDOM.")]
    assert Worker.objects.get(external_id="ARANDOM").blocked_reason == "Random clicking."


def test_notify_from_the_worker_admin_shows_each_worker_standing(
    admin_client, reviewed, mturk_stub
):
    _, good, _, _ = reviewed
    worker = good.worker
    direct = WorkerFactory()
    page = run_action(
        admin_client, "admin:judgments_worker_changelist", "notify_selected", [worker.pk, direct.pk]
    )
    html = page.content.decode()
    # Ordered as the Worker changelist: by platform (direct links first), then id.
    assert cells(html, "worker") == [
        f"{direct.external_id} (Direct link)",
        "AGOOD (Amazon Mechanical Turk)",
    ]
    assert cells(html, "quality") == [
        "no statistics yet",
        f"{good.campaign.name}: reliable (p = 0.001)",
    ]
    assert cells(html, "recommendation") == [
        "No recommendation yet",
        f"{good.campaign.name}: Approve (reliable)",
    ]
    assert cells(html, "campaign") == ["-", good.campaign.name]
    mturk_stub.add_response(
        "notify_workers",
        {},
        {"Subject": "More work", "MessageText": "New HITs are up.", "WorkerIds": ["AGOOD"]},
    )
    response = run_action(
        admin_client,
        "admin:judgments_worker_changelist",
        "notify_selected",
        [worker.pk, direct.pk],
        apply="1",
        subject="More work",
        message="New HITs are up.",
    )
    assert messages_of(response) == [
        ("success", "E-mailed through MTurk 1: worker AGOOD (sandbox)."),
        (
            "warning",
            f"Skipped 1 (worker {direct.external_id}): E-mails go through MTurk only: write to "
            "this worker on their platform.",
        ),
    ]


def test_worker_admin_blocks_and_filters_blocked_workers(admin_client, reviewed, mturk_stub):
    _, good, _, _ = reviewed
    mturk_stub.add_response("create_worker_block", {}, {"WorkerId": "AGOOD", "Reason": "Spam."})
    run_action(
        admin_client,
        "admin:judgments_worker_changelist",
        "block_selected",
        [good.worker_id],
        apply="1",
        reason="Spam.",
    )
    html = admin_client.get(
        reverse("admin:judgments_worker_changelist") + "?blocked=yes"
    ).content.decode()
    assert cells(html, "field-platform") == ["Amazon Mechanical Turk"]
    assert ">AGOOD</a>" in html


# --- The campaign's "Sync with MTurk now" ----------------------------------------------------


def test_sync_now_reports_what_changed(admin_client, mturk_stub):
    campaign = CampaignFactory(name="WMT DA")
    row = mturk_assignment(published_hit(campaign), "3S01")
    bare = CampaignFactory(name="Not published")
    list_response(
        mturk_stub, [remote_item("3S01", "Approved", worker=WORKER_1, ApprovalTime=DECIDED)]
    )
    response = run_action(
        admin_client,
        "admin:campaigns_campaign_changelist",
        "sync_with_mturk",
        [campaign.pk, bare.pk],
        apply="1",
    )
    assert messages_of(response) == [
        (
            "success",
            "WMT DA: 1 HIT(s) synced; 1 marked approved; 0 review(s) sent to MTurk; 0 need a "
            "person; 0 error(s).",
        ),
        (
            "warning",
            "Not published: no HIT is published on MTurk, so there is nothing to sync. Publish "
            "it to MTurk first.",
        ),
    ]
    row.refresh_from_db()
    assert (row.status, row.reviewed_at) == ("approved", DECIDED)


def test_sync_now_reports_each_failure_with_what_to_do(admin_client, mturk_stub):
    campaign = CampaignFactory(name="WMT DA")
    mturk_assignment(published_hit(campaign), "3S02")
    request_error(
        mturk_stub,
        "list_assignments_for_hit",
        "Rate exceeded",
        "ThrottlingException",
        {
            "HITId": HIT_1,
            "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
            "MaxResults": 100,
        },
    )
    response = run_action(
        admin_client,
        "admin:campaigns_campaign_changelist",
        "sync_with_mturk",
        [campaign.pk],
        apply="1",
    )
    assert messages_of(response) == [
        (
            "warning",
            "WMT DA: 0 HIT(s) synced; no assignment changed; 0 review(s) sent to MTurk; 0 need a "
            "person; 1 error(s).",
        ),
        (
            "error",
            f"WMT DA, HIT {HIT_1}: Rate exceeded (ThrottlingException) What to do: MTurk is "
            "throttling this account: wait a minute and retry. Retrying is safe: HIT creation and "
            "bonuses carry a unique request token, so nothing is done twice.",
        ),
    ]


# --- Who may review ---------------------------------------------------------------------------

REVIEW_ACTIONS = {
    "admin:judgments_assignment_changelist": [
        "approve_selected",
        "reject_selected",
        "bonus_selected",
        "block_selected_workers",
        "notify_selected_workers",
    ],
    "admin:judgments_worker_changelist": ["block_selected", "notify_selected"],
}


def offered_actions(client, url_name) -> list[str]:
    html = client.get(reverse(url_name)).content.decode()
    select = re.search(r'<select name="action"[^>]*>(.*?)</select>', html, re.S)
    return re.findall(r'<option value="([^"]+)"', select.group(1)) if select else []


def test_review_actions_need_the_campaign_permission_too(client, reviewed, mturk_stub):
    """Approve, reject, bonus, block and e-mail spend money or act on MTurk: like publishing
    and syncing, they need campaigns.change_campaign, not only change_assignment."""
    from django.contrib.auth.models import Permission, User

    _, good, _, _ = reviewed
    user = User.objects.create_user("editor", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="judgments",
            codename__in=["view_assignment", "change_assignment", "view_worker", "change_worker"],
        )
    )
    client.force_login(user)
    for url_name in REVIEW_ACTIONS:
        assert offered_actions(client, url_name) == []
    # Posting the action anyway does nothing: no MTurk call (the Stubber has none), no change;
    # the admin shows the list again.
    response = run_action(client, CHANGELIST, "approve_selected", [good.pk], apply="1")
    assert (response.status_code, response.redirect_chain, messages_of(response)) == (200, [], [])
    good.refresh_from_db()
    assert (good.status, good.reviewed_at) == ("submitted", None)

    user.user_permissions.add(Permission.objects.get(codename="change_campaign"))
    user = User.objects.get(pk=user.pk)  # a fresh permission cache
    client.force_login(user)
    for url_name, actions in REVIEW_ACTIONS.items():
        assert offered_actions(client, url_name) == actions
