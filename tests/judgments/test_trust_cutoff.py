"""The gold-trust cut-off (002 section 4: "untrusted workers are automatically blocked"):
set_untrusted marks workers, scores are told to recompute, the hand-out refuses them politely
without naming gold or trust, and their judgments stay stored."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from judgments import tokens
from judgments.actions import (
    HandOutKind,
    NoWorkReason,
    next_assignment_for,
    record_judgment,
    set_untrusted,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from judgments.signals import exclusions_changed
from tests.factories import CampaignFactory, HitFactory, WorkerFactory
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=0)
POLITE = "There is no more work for you in this campaign. Thank you for your help."


@pytest.fixture
def campaign():
    campaign = ranking_campaign(redundancy=3)
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2)
    return campaign


@pytest.fixture
def announced():
    calls = []

    def receiver(sender, campaign_ids, **kwargs):
        calls.append((sender, campaign_ids))

    exclusions_changed.connect(receiver, dispatch_uid="test-trust-cutoff")
    yield calls
    exclusions_changed.disconnect(dispatch_uid="test-trust-cutoff")


def test_set_untrusted_marks_the_workers_and_announces_after_the_commit(
    campaign, announced, django_capture_on_commit_callbacks
):
    known, newcomer, bystander = WorkerFactory.create_batch(3)
    next_assignment_for(known, campaign, now=NOW)  # has a membership row already
    next_assignment_for(bystander, campaign, now=NOW)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        changed = set_untrusted(
            campaign, [known.pk, newcomer.pk, 987_654], "gold accuracy 2/6", now=NOW
        )

    assert changed == 2  # the unknown id is ignored
    assert announced == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert announced == [(CampaignWorker, [campaign.pk])]
    rows = CampaignWorker.objects.filter(campaign=campaign).order_by("worker_id")
    assert list(rows.values_list("worker_id", "untrusted", "untrusted_reason", "untrusted_at")) == [
        (known.pk, True, "gold accuracy 2/6", NOW),
        (newcomer.pk, True, "gold accuracy 2/6", NOW),
        (bystander.pk, False, "", None),
    ]


def test_set_untrusted_is_idempotent(campaign, announced, django_capture_on_commit_callbacks):
    worker = WorkerFactory()
    set_untrusted(campaign, [worker.pk], "first reason", now=NOW)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again = set_untrusted(
            campaign, [worker.pk, worker.pk], "second reason", now=NOW + timedelta(hours=1)
        )

    assert again == 0
    assert callbacks == []  # nothing changed, nothing announced
    row = CampaignWorker.objects.get(worker=worker)
    assert (row.untrusted, row.untrusted_reason, row.untrusted_at) == (True, "first reason", NOW)


def test_trusting_again_clears_the_mark_and_announces(
    campaign, announced, django_capture_on_commit_callbacks
):
    worker = WorkerFactory()
    set_untrusted(campaign, [worker.pk], "gold accuracy 1/4", now=NOW)

    with django_capture_on_commit_callbacks(execute=True):
        assert set_untrusted(campaign, [worker.pk], untrusted=False) == 1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert set_untrusted(campaign, [worker.pk], untrusted=False) == 0
    assert callbacks == []

    assert announced == [(CampaignWorker, [campaign.pk])]
    row = CampaignWorker.objects.get(worker=worker)
    assert (row.untrusted, row.untrusted_reason, row.untrusted_at) == (False, "", None)
    assert next_assignment_for(worker, campaign, now=NOW).assignment is not None


def test_untrusted_in_one_campaign_only(campaign):
    worker = WorkerFactory()
    set_untrusted(campaign, [worker.pk], "gold")
    other = CampaignFactory()
    HitFactory(campaign=other, number=1)
    assert next_assignment_for(worker, other, now=NOW).assignment is not None
    assert next_assignment_for(worker, campaign, now=NOW).reason == NoWorkReason.UNTRUSTED


def test_an_untrusted_worker_gets_nothing_not_even_to_resume_and_keeps_their_judgments(campaign):
    worker = WorkerFactory()
    started = next_assignment_for(worker, campaign, now=NOW).assignment
    record_judgment(
        started.pk, worker.pk, {"set": 0, "ranks": {"1": 1, "2": 2, "3": 3, "4": 4}}, now=NOW
    )

    set_untrusted(campaign, [worker.pk], "gold accuracy 0/4")
    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.assignment, hand_out.kind, hand_out.reason) == (
        None,
        None,
        NoWorkReason.UNTRUSTED,
    )
    assert hand_out.reason.label == POLITE
    assert Assignment.objects.filter(worker=worker).count() == 1
    assert Judgment.objects.filter(worker=worker).count() == 4  # stored, never deleted
    # Like an exclusion, the mark takes effect at the next hand-out: the open page may still
    # send its sets (analytics leaves the worker's judgments out of the scores).
    record_judgment(
        started.pk, worker.pk, {"set": 1, "ranks": {"5": 1, "6": 1, "7": 1, "8": 1}}, now=NOW
    )
    assert Judgment.objects.filter(worker=worker).count() == 8


def test_the_worker_link_shows_the_polite_page_without_gold_or_trust(campaign):
    worker = WorkerFactory()
    set_untrusted(campaign, [worker.pk], "failed gold: trust 0.25")
    url = reverse("judgments:worker-link", args=[tokens.worker_token(worker.pk, campaign.pk)])

    response = Client().get(url)

    assert response.status_code == 200
    html = response.content.decode()
    assert f'<p class="notice" role="status">{POLITE}</p>' in html
    for word in ("gold", "trust", "0.25"):
        assert word not in html.lower()
    assert Assignment.objects.count() == 0


def test_a_trusted_worker_is_not_affected(campaign):
    untrusted, trusted = WorkerFactory.create_batch(2)
    set_untrusted(campaign, [untrusted.pk], "gold")
    hand_out = next_assignment_for(trusted, campaign, now=NOW)
    assert (hand_out.kind, hand_out.assignment.hit.number) == (HandOutKind.NEW, 1)


def test_a_requester_marks_and_clears_untrusted_in_the_admin(
    admin_client, campaign, announced, django_capture_on_commit_callbacks
):
    worker = WorkerFactory()
    next_assignment_for(worker, campaign, now=NOW)
    Assignment.objects.update(status=AssignmentStatus.SUBMITTED)
    membership = CampaignWorker.objects.get()
    changelist = reverse("admin:judgments_campaignworker_changelist")

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            changelist, {"action": "untrust_selected", "_selected_action": [membership.pk]}
        )

    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.untrusted, membership.untrusted_reason) == (
        True,
        "Marked untrusted by admin in the admin.",
    )
    assert announced == [(CampaignWorker, [campaign.pk])]
    assert next_assignment_for(worker, campaign, now=NOW).reason == NoWorkReason.UNTRUSTED

    # Unticking "untrusted" in the change form trusts again, clears reason and time, and
    # announces the change.
    change = reverse("admin:judgments_campaignworker_change", args=[membership.pk])
    page = admin_client.get(change).content.decode()
    assert "Qualification test" in page and "Trust (gold units)" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            change,
            {
                "campaign": campaign.pk,
                "worker": worker.pk,
                "excluded_reason": "",
                "qualification_passed": "unknown",
                "untrusted_reason": "Marked untrusted by admin in the admin.",
                "_save": "Save",
            },
        )
    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.untrusted, membership.untrusted_reason, membership.untrusted_at) == (
        False,
        "",
        None,
    )
    assert len(announced) == 2
    assert next_assignment_for(worker, campaign, now=NOW).assignment.hit.number == 2
