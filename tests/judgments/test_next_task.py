"""Issue 17 (rough edges): "Do another task" was shown when no task was left, and one
abandoned start held a HIT for the 2-hour working time. The completion page offers the button
only when a task is there for this worker, else says whether and when work may free up; an
opened task with no answer is released after ASSIGNMENT_UNANSWERED_HOLD_SECONDS."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from campaigns.models import HitTask
from judgments.actions.membership import expire_abandoned_assignments
from judgments.entry.availability import WorkAvailability, next_task_note, work_for
from judgments.entry.pages import task_url, worker_url
from judgments.i18n import words_in
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


@pytest.fixture
def campaign():
    campaign = CampaignFactory(redundancy=1)
    for _ in range(2):
        HitSlotFactory(hit=HitFactory(campaign=campaign))
    return campaign


def _finished(campaign, worker):
    hit = campaign.hits.order_by("number").first()
    return AssignmentFactory(hit=hit, worker=worker, status=AssignmentStatus.SUBMITTED)


def _hold(campaign, *, answered, expires_in, idle):
    """Someone else holds the second HIT: started ``idle`` ago, due in ``expires_in``."""
    hit = campaign.hits.order_by("number").last()
    now = timezone.now()
    held = AssignmentFactory(hit=hit, expires_at=now + expires_in)
    if answered:
        JudgmentFactory(assignment=held, slot=hit.slots.first())
    Assignment.objects.filter(pk=held.pk).update(last_activity_at=now - idle)
    return held


def test_done_page_offers_another_task_when_one_is_there(client, campaign):
    worker = WorkerFactory()
    html = client.get(task_url(_finished(campaign, worker))).content.decode()
    assert "Do another task" in html
    assert f'href="{worker_url(worker.pk, campaign.pk)}"' in html
    assert 'id="no-next-task"' not in html


def test_done_page_says_there_is_nothing_left_instead_of_the_button(client, campaign):
    worker = WorkerFactory()
    _finished(campaign, worker)
    second = campaign.hits.order_by("number").last()
    AssignmentFactory(hit=second, status=AssignmentStatus.SUBMITTED)  # the place is filled
    html = client.get(task_url(Assignment.objects.get(worker=worker))).content.decode()
    assert "Do another task" not in html
    assert (
        '<p class="notice" id="no-next-task">There is no other task for you in this campaign '
        "right now. Thank you!</p>"
    ) in html


def test_done_page_says_when_a_held_task_may_free_up(client, campaign):
    worker = WorkerFactory()
    _finished(campaign, worker)
    held = _hold(campaign, answered=True, expires_in=timedelta(minutes=90), idle=timedelta(0))
    availability = work_for(worker, campaign)
    assert availability == WorkAvailability(False, held=1, frees_at=held.expires_at)
    html = client.get(task_url(Assignment.objects.get(worker=worker))).content.decode()
    assert "Do another task" not in html
    expected = next_task_note(availability)
    assert "could free up in about 90 minutes" in expected
    assert held.expires_at.strftime("%H:%M") + " UTC" in expected
    assert f'id="no-next-task">{expected}</p>' in html.replace("&#x27;", "'")


def test_an_unanswered_task_frees_up_after_the_hold(client, campaign):
    worker = WorkerFactory()
    _finished(campaign, worker)
    # Opened 10 minutes ago, never answered: frees 30 - 10 = 20 minutes from now, long before
    # its 2-hour deadline.
    held = _hold(
        campaign, answered=False, expires_in=timedelta(minutes=110), idle=timedelta(minutes=10)
    )
    availability = work_for(worker, campaign)
    assert availability.held == 1
    held.refresh_from_db()
    assert availability.frees_at == held.last_activity_at + timedelta(minutes=30)
    assert "about 20 minutes" in next_task_note(availability)
    # Past the hold, the place is free: the button is back, and the expiry releases it.
    Assignment.objects.filter(pk=held.pk).update(
        last_activity_at=timezone.now() - timedelta(minutes=31)
    )
    assert work_for(worker, campaign).available
    assert (
        "Do another task"
        in client.get(task_url(Assignment.objects.get(worker=worker))).content.decode()
    )
    assert expire_abandoned_assignments(campaign=campaign) == 1
    held.refresh_from_db()
    assert held.status == AssignmentStatus.EXPIRED


def test_the_hold_spares_answered_authoring_and_mturk_tasks(campaign):
    long_ago = timezone.now() - timedelta(minutes=45)
    answered = _hold(campaign, answered=True, expires_in=timedelta(hours=1), idle=timedelta(0))
    Assignment.objects.filter(pk=answered.pk).update(last_activity_at=long_ago)
    on_mturk = AssignmentFactory(
        hit=HitFactory(campaign=campaign), turk_submit_to="https://workersandbox.mturk.com"
    )
    authoring = AssignmentFactory(hit=HitFactory(campaign=campaign, task=HitTask.RC_AUTHOR))
    unanswered = AssignmentFactory(hit=HitFactory(campaign=campaign))
    Assignment.objects.filter(pk__in=[on_mturk.pk, authoring.pk, unanswered.pk]).update(
        last_activity_at=long_ago
    )
    assert expire_abandoned_assignments(campaign=campaign) == 1
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {
        answered.pk: AssignmentStatus.STARTED,
        on_mturk.pk: AssignmentStatus.STARTED,
        authoring.pk: AssignmentStatus.STARTED,
        unanswered.pk: AssignmentStatus.EXPIRED,
    }


@override_settings(ASSIGNMENT_UNANSWERED_HOLD_SECONDS=3600)
def test_the_hold_is_a_setting(campaign):
    held = _hold(
        campaign, answered=False, expires_in=timedelta(hours=2), idle=timedelta(minutes=45)
    )
    assert expire_abandoned_assignments(campaign=campaign) == 0
    held.refresh_from_db()
    assert held.status == AssignmentStatus.STARTED


def test_the_worker_link_says_when_work_frees_up(client, campaign):
    worker = WorkerFactory()
    _finished(campaign, worker)
    _hold(campaign, answered=True, expires_in=timedelta(minutes=50), idle=timedelta(0))
    html = client.get(worker_url(worker.pk, campaign.pk)).content.decode()
    assert "could free up in about 50 minutes" in html


def test_one_minute_is_said_in_the_singular_in_every_language():
    """The walkthrough read "in etwa 1 Minuten" (and "about 1 minutes")."""
    now = timezone.now()
    soon = WorkAvailability(False, held=1, frees_at=now + timedelta(seconds=50))
    later = WorkAvailability(False, held=1, frees_at=now + timedelta(minutes=5))
    assert "could free up in about 1 minute (" in next_task_note(soon, now)
    assert "could free up in about 5 minutes (" in next_task_note(later, now)
    with words_in("de"):
        assert "Die erste könnte in etwa 1 Minute (" in next_task_note(soon, now)
        assert "Die erste könnte in etwa 5 Minuten (" in next_task_note(later, now)
