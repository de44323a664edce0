from datetime import timedelta

import pytest
from django.utils import timezone

from judgments.actions import expire_abandoned_assignments
from judgments.models import AssignmentStatus, Judgment
from judgments.tasks import expire_abandoned_assignments as expire_task
from tests.factories import AssignmentFactory, JudgmentFactory

pytestmark = pytest.mark.django_db


def test_only_started_assignments_past_their_deadline_expire():
    now = timezone.now()
    stale = AssignmentFactory(expires_at=now - timedelta(seconds=1))
    fresh = AssignmentFactory(expires_at=now + timedelta(minutes=5))
    submitted = AssignmentFactory(
        expires_at=now - timedelta(hours=1), status=AssignmentStatus.SUBMITTED
    )
    JudgmentFactory(assignment=stale)

    assert expire_abandoned_assignments(now) == 1

    stale.refresh_from_db()
    fresh.refresh_from_db()
    submitted.refresh_from_db()
    assert stale.status == AssignmentStatus.EXPIRED
    assert fresh.status == AssignmentStatus.STARTED
    assert submitted.status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(assignment=stale).count() == 1  # nothing is deleted
    assert expire_abandoned_assignments(now) == 0  # idempotent


def test_the_periodic_task_runs_inline_without_a_broker():
    AssignmentFactory(expires_at=timezone.now() - timedelta(minutes=1))
    assert expire_task.delay() is not None
    assert AssignmentStatus.EXPIRED == AssignmentFactory._meta.model.objects.get().status
