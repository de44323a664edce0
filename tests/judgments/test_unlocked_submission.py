"""A submission that races another change to its assignment (issue 16 item 1).

On PostgreSQL record_judgment reads the assignment without a lock and writes in one statement
that stores anything only while the assignment is as read (judgments.actions.hot_sql.
store_unlocked); otherwise it decides again on the locked row. Each test makes the change
right after the unlocked read, as a concurrent request would, and checks that the outcome is
the one the locked path gives: exactly what a submission arriving after the change gets. The
races need PostgreSQL (``postgres_required``: skipped locally without it, failed in CI); on
SQLite every submission takes the lock before reading, so no change can come between.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from judgments.actions import SubmissionError, record_judgment, submission
from judgments.models import Assignment, AssignmentStatus, Judgment
from tests.factories import AssignmentFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

SERVED = timezone.now().replace(microsecond=0)
NOW = SERVED + timedelta(seconds=4)


@pytest.fixture
def assignment():
    hit = HitFactory()
    for position in (1, 2, 3):
        HitSlotFactory(hit=hit, position=position)
    return AssignmentFactory(
        hit=hit,
        current_served_at=SERVED,
        last_activity_at=SERVED,
        expires_at=NOW + timedelta(hours=1),
    )


@pytest.fixture
def meanwhile(postgres_required, monkeypatch):
    """``meanwhile(change)``: run ``change()`` right after the submission's first read of its
    assignment (the unlocked one on PostgreSQL), once."""
    changes = []
    original = submission.get_assignment

    def reading(assignment_id, worker_id, **kwargs):
        loaded = original(assignment_id, worker_id, **kwargs)
        while changes:
            changes.pop()()
        return loaded

    monkeypatch.setattr(submission, "get_assignment", reading)
    return changes.append


def submit(assignment, payload):
    return record_judgment(assignment.pk, assignment.worker_id, payload, now=NOW)


def store(assignment, position, score):
    slot = assignment.hit.slots.get(position=position)
    Judgment.objects.create(
        campaign=assignment.campaign,
        worker=assignment.worker,
        assignment=assignment,
        slot=slot,
        score=score,
    )


def test_the_same_answer_stored_meanwhile_is_an_idempotent_retry(assignment, meanwhile):
    meanwhile(lambda: store(assignment, 1, 70))
    result = submit(assignment, {"position": 1, "score": 70})
    assert result.created is False
    assert list(Judgment.objects.values_list("slot__position", "score")) == [(1, 70.0)]
    assert (result.state.done, result.state.next_slot.position) == (1, 2)


def test_another_answer_stored_meanwhile_is_a_409_and_nothing_more_is_stored(assignment, meanwhile):
    meanwhile(lambda: store(assignment, 1, 20))
    with pytest.raises(SubmissionError) as error:
        submit(assignment, {"position": 1, "score": 70})
    assert error.value.status == 409
    assert list(Judgment.objects.values_list("slot__position", "score")) == [(1, 20.0)]


def test_a_task_returned_meanwhile_takes_no_answer(assignment, meanwhile):
    returned = Assignment.objects.filter(pk=assignment.pk)
    before = returned.get().last_activity_at
    meanwhile(lambda: returned.update(status=AssignmentStatus.RETURNED))
    with pytest.raises(SubmissionError) as error:
        submit(assignment, {"position": 1, "score": 70})
    assert error.value.status == 410
    assert not Judgment.objects.exists()
    assert returned.get().last_activity_at == before


def test_a_deadline_moved_before_now_meanwhile_takes_no_answer(assignment, meanwhile):
    expired = Assignment.objects.filter(pk=assignment.pk)
    meanwhile(lambda: expired.update(expires_at=NOW - timedelta(seconds=1)))
    with pytest.raises(SubmissionError) as error:
        submit(assignment, {"position": 1, "score": 70})
    assert error.value.status == 410
    assert not Judgment.objects.exists()


def test_a_page_served_again_meanwhile_times_the_judgment_from_then(assignment, meanwhile):
    later = SERVED + timedelta(seconds=3)
    served = Assignment.objects.filter(pk=assignment.pk)
    meanwhile(lambda: served.update(current_served_at=later))
    result = submit(assignment, {"position": 1, "score": 70})
    assert result.created is True
    judgment = Judgment.objects.get()
    assert (judgment.served_at, judgment.server_duration_ms) == (later, 1000)
    stamped = Assignment.objects.get(pk=assignment.pk)
    assert (stamped.last_activity_at, stamped.current_served_at) == (NOW, NOW)


def test_the_last_unit_submits_the_assignment_in_the_same_statement(assignment):
    for position in (1, 2, 3):
        result = submit(assignment, {"position": position, "score": 10 * position})
    assert result.state.finished is True
    done = Assignment.objects.get(pk=assignment.pk)
    assert (done.status, done.submitted_at, done.current_served_at) == (
        AssignmentStatus.SUBMITTED,
        NOW,
        None,
    )
    assert sorted(Judgment.objects.values_list("score", flat=True)) == [10.0, 20.0, 30.0]


def test_postgresql_writes_without_a_transaction_of_its_own(assignment, django_assert_num_queries):
    """The unlocked path's statements: the assignment with its HIT's slots, and (in a test's
    transaction, inside a savepoint) the one write. SQLite: the locked transaction."""
    queries = 4 if connection.vendor == "postgresql" else 6
    with django_assert_num_queries(queries):
        submit(assignment, {"position": 1, "score": 70})
    assert Judgment.objects.count() == 1
