"""The expiry sweep is one hand-written UPDATE (issue 16: judgments.actions.membership.
expire_abandoned_assignments); it expires exactly what the ORM's definition names: started
assignments past their deadline, and started ones with no answer past the unanswered hold
(``unanswered_past_hold``), except MTurk's and long-first-answer tasks; only in the campaign
given, or everywhere."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import HitTask
from judgments.actions.membership import expire_abandoned_assignments, unanswered_past_hold
from judgments.models import Assignment, AssignmentStatus
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
)

pytestmark = pytest.mark.django_db


def build(campaign, now):
    """One assignment of each case; returns {name: assignment}."""
    long_ago = now - timedelta(hours=3)

    def make(
        name,
        *,
        task=HitTask.ASSESS,
        status=AssignmentStatus.STARTED,
        expires=None,
        idle=None,
        answered=False,
        turk="",
    ):
        hit = HitFactory(campaign=campaign, task=task)
        slot = HitSlotFactory(hit=hit)
        assignment = AssignmentFactory(
            hit=hit,
            status=status,
            expires_at=expires or now + timedelta(hours=1),
            turk_submit_to=turk,
        )
        if answered:
            JudgmentFactory(assignment=assignment, slot=slot, score=50)
        Assignment.objects.filter(pk=assignment.pk).update(last_activity_at=idle or now)
        return name, assignment

    return dict(
        [
            make("past deadline", expires=now - timedelta(seconds=1)),
            make("at deadline", expires=now),
            make(
                "submitted past deadline",
                status=AssignmentStatus.SUBMITTED,
                expires=now - timedelta(hours=1),
            ),
            make("unanswered past hold", idle=long_ago),
            make("answered past hold", idle=long_ago, answered=True),
            make("mturk past hold", idle=long_ago, turk="https://workersandbox.mturk.com"),
            make(
                "mturk past deadline",
                expires=now - timedelta(minutes=1),
                turk="https://workersandbox.mturk.com",
            ),
            make("authoring past hold", idle=long_ago, task=HitTask.RC_AUTHOR),
            make("unanswered within hold"),
            make("returned past hold", status=AssignmentStatus.RETURNED, idle=long_ago),
        ]
    )


def orm_expired(now, campaign=None):
    stale = Assignment.objects.filter(status=AssignmentStatus.STARTED, expires_at__lte=now)
    unanswered = unanswered_past_hold(now)
    if campaign is not None:
        stale, unanswered = stale.filter(campaign=campaign), unanswered.filter(campaign=campaign)
    return set(stale.values_list("pk", flat=True)) | set(unanswered.values_list("pk", flat=True))


EXPIRED = {"past deadline", "at deadline", "unanswered past hold", "mturk past deadline"}


def test_the_campaign_sweep_expires_what_the_orm_definition_names():
    now = timezone.now()
    campaign, other = CampaignFactory(), CampaignFactory()
    mine, theirs = build(campaign, now), build(other, now)
    expected = orm_expired(now, campaign)
    assert expected == {mine[name].pk for name in EXPIRED}

    assert expire_abandoned_assignments(now, campaign=campaign) == len(EXPIRED)
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert {name for name, a in mine.items() if statuses[a.pk] == "expired"} == EXPIRED
    # The other campaign is untouched; a second sweep finds nothing.
    assert all(statuses[a.pk] == theirs[name].status for name, a in theirs.items())
    assert expire_abandoned_assignments(now, campaign=campaign) == 0


def test_the_global_sweep_expires_every_campaigns():
    now = timezone.now()
    first, second = build(CampaignFactory(), now), build(CampaignFactory(), now)
    expected = orm_expired(now)
    assert expected == {built[name].pk for built in (first, second) for name in EXPIRED}
    assert expire_abandoned_assignments(now) == len(expected)
    expired = set(
        Assignment.objects.filter(status=AssignmentStatus.EXPIRED).values_list("pk", flat=True)
    )
    assert expired == expected
