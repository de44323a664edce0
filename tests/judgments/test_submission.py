"""record_judgment: validated, atomic and idempotent; nothing written on any error."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from judgments.actions import SubmissionError, current_task_state, record_judgment
from judgments.models import Assignment, AssignmentStatus, Judgment
from judgments.signals import judgments_recorded
from tests.factories import AssignmentFactory, HitFactory, HitSlotFactory, WorkerFactory

pytestmark = pytest.mark.django_db

SERVED = timezone.now().replace(microsecond=0)
NOW = SERVED + timedelta(seconds=7, milliseconds=250)
# The browser's clock when the item was shown: within the window of the server's time that
# client_started_at must be in (judgments.actions.timing), as the page sends it.
STARTED_AT = SERVED + timedelta(milliseconds=125)
STARTED = STARTED_AT.isoformat(timespec="milliseconds").replace("+00:00", "Z")


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
def signals():
    """Every judgments_recorded sent, as (sender, kwargs without the signal)."""
    sent = []

    def receiver(sender, **kwargs):
        kwargs.pop("signal")
        sent.append((sender, kwargs))

    judgments_recorded.connect(receiver, weak=False)
    yield sent
    judgments_recorded.disconnect(receiver)


def submit(assignment, payload, now=NOW, worker_id=None):
    return record_judgment(assignment.pk, worker_id or assignment.worker_id, payload, now=now)


def answer(position, score=50, **extra):
    return {"position": position, "score": score, **extra}


def snapshot(assignment):
    """What a failed submission must leave untouched."""
    row = Assignment.objects.values().get(pk=assignment.pk)
    return row, list(Judgment.objects.values())


def test_an_answer_is_stored_with_client_and_server_timing(assignment):
    result = submit(assignment, answer(1, 63.5, client_started_at=STARTED, client_duration_ms=6900))

    judgment = Judgment.objects.get()
    assert result.created is True and result.judgment == judgment
    assert (judgment.campaign, judgment.worker, judgment.assignment) == (
        assignment.campaign,
        assignment.worker,
        assignment,
    )
    assert (judgment.slot.position, judgment.score) == (1, 63.5)
    assert judgment.client_started_at == STARTED_AT
    assert judgment.client_duration_ms == 6900
    assert (judgment.served_at, judgment.server_duration_ms) == (SERVED, 7250)
    assignment.refresh_from_db()
    assert (assignment.status, assignment.last_activity_at) == (AssignmentStatus.STARTED, NOW)
    assert assignment.current_served_at == NOW  # the next item goes out with the response
    state = result.state
    assert (state.next_slot.position, state.done, state.total, state.finished) == (
        2,
        1,
        3,
        False,
    )


def test_client_timing_is_optional(assignment):
    submit(assignment, answer(1, 0))
    judgment = Judgment.objects.get()
    assert (judgment.score, judgment.client_started_at, judgment.client_duration_ms) == (
        0.0,
        None,
        None,
    )


def test_an_item_never_served_has_no_server_duration(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(current_served_at=None)
    submit(assignment, answer(1))
    assert Judgment.objects.values_list("served_at", "server_duration_ms").get() == (None, None)


def test_the_last_answer_submits_the_assignment(assignment):
    for position in (1, 2):
        submit(assignment, answer(position, 100))

    result = submit(assignment, answer(3, 12), now=NOW + timedelta(seconds=5))

    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.submitted_at == NOW + timedelta(seconds=5)
    assert assignment.current_served_at is None
    assert (result.state.finished, result.state.done, result.state.total) == (True, 3, 3)
    assert list(Judgment.objects.order_by("slot__position").values_list("score", flat=True)) == [
        100.0,
        100.0,
        12.0,
    ]


def test_the_server_duration_counts_from_when_the_next_item_was_sent(assignment):
    submit(assignment, answer(1), now=NOW)
    submit(assignment, answer(2), now=NOW + timedelta(seconds=3))
    second = Judgment.objects.get(slot__position=2)
    assert (second.served_at, second.server_duration_ms) == (NOW, 3000)


def test_a_retry_with_the_same_answer_returns_the_stored_judgment(assignment, signals):
    first = submit(assignment, answer(1, 40, client_duration_ms=900))
    before = snapshot(assignment)

    # Timing may differ on a retry; the answer is what must match.
    retry = submit(
        assignment, answer(1, 40.0, client_duration_ms=1500), now=NOW + timedelta(seconds=30)
    )

    assert (retry.created, retry.judgment.pk) == (False, first.judgment.pk)
    assert retry.judgment.client_duration_ms == 900
    assert (retry.state.next_slot.position, retry.state.done) == (2, 1)
    assert snapshot(assignment) == before


def test_a_retry_of_the_last_answer_after_submission_is_still_fine(assignment):
    for position in (1, 2, 3):
        submit(assignment, answer(position, 5))
    retry = submit(assignment, answer(3, 5), now=NOW + timedelta(hours=5))  # even past expiry
    assert (retry.created, retry.state.finished) == (False, True)


def test_an_answered_item_cannot_be_changed(assignment):
    submit(assignment, answer(1, 40))
    before = snapshot(assignment)

    with pytest.raises(SubmissionError) as caught:
        submit(assignment, answer(1, 41))

    assert (caught.value.status, caught.value.field) == (409, "position")
    assert caught.value.message == (
        "Item 1 is already answered, and answers cannot be changed (there is no going back). "
        "Continue with item 2."
    )
    assert snapshot(assignment) == before


def test_items_are_answered_in_order(assignment):
    before = snapshot(assignment)
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, answer(2))
    assert (caught.value.status, caught.value.field, caught.value.message) == (
        400,
        "position",
        "Answer item 1 first; the items are answered in order.",
    )
    assert snapshot(assignment) == before


def test_a_position_outside_the_hit_is_refused(assignment):
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, answer(4))
    assert (caught.value.status, caught.value.field, caught.value.message) == (
        400,
        "position",
        "There is no item 4 in this task; it has items 1 to 3.",
    )


NO_SCORE = "score is required: move the slider to give your answer."
BAD_SCORE = "score must be a number from 0 to 100 (got {})."
BAD_POSITION = (
    "position must be the number of the item you answer, a whole number of at least 1 (got {})."
)
BAD_DURATION = (
    "client_duration_ms must be a time in milliseconds, a whole number of at least 0 (got {})."
)
BAD_START = (
    "client_started_at must be a date and time with a time zone, for example "
    "2025-05-01T12:00:00.000Z (got {})."
)


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        (
            [1, 50],
            None,
            'Send the answer as a JSON object, for example {"position": 1, "score": 50}.',
        ),
        ("50", None, 'Send the answer as a JSON object, for example {"position": 1, "score": 50}.'),
        ({"position": 1}, "score", NO_SCORE),
        (answer(1, None), "score", NO_SCORE),
        (answer(1, "50"), "score", BAD_SCORE.format('the text "50"')),
        (answer(1, True), "score", BAD_SCORE.format("true/false")),
        (answer(1, float("nan")), "score", BAD_SCORE.format("nan")),
        (answer(1, float("inf")), "score", BAD_SCORE.format("inf")),
        (answer(1, -0.01), "score", BAD_SCORE.format("-0.01")),
        (answer(1, 100.5), "score", BAD_SCORE.format("100.5")),
        (answer(1, [50]), "score", BAD_SCORE.format("a list")),
        (
            answer(1, comment="hi"),
            "comment",
            "Unknown field 'comment': send only position, client_started_at, "
            "client_duration_ms, score.",
        ),
        (
            answer(1, role="x", bad="y"),
            "bad",
            "Unknown field 'bad': send only position, client_started_at, "
            "client_duration_ms, score.",
        ),
        ({"score": 50}, "position", "position is required: the number of the item you answer."),
        (answer("1"), "position", BAD_POSITION.format('the text "1"')),
        (answer(1.0), "position", BAD_POSITION.format("1.0")),
        (answer(0), "position", BAD_POSITION.format("0")),
        (answer(False), "position", BAD_POSITION.format("true/false")),
        (answer(1, client_duration_ms=-1), "client_duration_ms", BAD_DURATION.format("-1")),
        (answer(1, client_duration_ms=1.5), "client_duration_ms", BAD_DURATION.format("1.5")),
        (
            answer(1, client_duration_ms=2**31),
            "client_duration_ms",
            BAD_DURATION.format("2147483648"),
        ),
        (
            answer(1, client_started_at="yesterday"),
            "client_started_at",
            BAD_START.format('the text "yesterday"'),
        ),
        (
            answer(1, client_started_at="2025-05-01T12:00:00"),  # no time zone
            "client_started_at",
            BAD_START.format('the text "2025-05-01T12:00:00"'),
        ),
        (
            answer(1, client_started_at=1714564800000),
            "client_started_at",
            BAD_START.format("1714564800000"),
        ),
    ],
)
def test_bad_input_is_refused_with_a_message_and_writes_nothing(
    assignment, signals, payload, field, message
):
    before = snapshot(assignment)

    with pytest.raises(SubmissionError) as caught:
        submit(assignment, payload)

    assert (caught.value.status, caught.value.field, caught.value.message) == (
        400,
        field,
        message,
    )
    assert snapshot(assignment) == before
    assert signals == []


@pytest.mark.parametrize("score", [0, 100, 0.001, 99.999, 37])
def test_scores_at_and_inside_the_bounds_are_stored_exactly(assignment, score):
    submit(assignment, answer(1, score))
    assert Judgment.objects.get().score == score


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        (
            {"expires_at": NOW - timedelta(seconds=1)},
            410,
            "This task has expired: its time ran out. The answers you gave are saved. Open your "
            "task link again to continue or to get a new task.",
        ),
        (
            {"status": AssignmentStatus.EXPIRED},
            410,
            "This task has expired: its time ran out. The answers you gave are saved. Open your "
            "task link again to continue or to get a new task.",
        ),
        (
            {"status": AssignmentStatus.RETURNED},
            410,
            "You returned this task, so it takes no more answers. Open your task link again to "
            "get a new task.",
        ),
        ({"status": AssignmentStatus.APPROVED}, 409, "This task is already finished. Thank you!"),
    ],
)
def test_an_assignment_that_is_not_open_takes_no_answer(
    assignment, signals, change, status, message
):
    Assignment.objects.filter(pk=assignment.pk).update(**change)
    before = snapshot(assignment)

    with pytest.raises(SubmissionError) as caught:
        submit(assignment, answer(1))

    assert (caught.value.status, caught.value.message) == (status, message)
    assert snapshot(assignment) == before  # not even the status is written
    assert signals == []


EXPIRED_MESSAGE = (
    "This task has expired: its time ran out. The answers you gave are saved. Open your task "
    "link again to continue or to get a new task."
)


@pytest.mark.parametrize(
    "payload",
    [
        answer(1, 40),  # a retry of the stored answer
        answer(1, 41),  # another answer to the answered item
        answer(2),  # the next item
        answer(2, 101),  # an answer that would be refused for its shape
        {"position": 2, "colour": "red"},
    ],
    ids=["identical-retry", "changed-answer", "next-item", "out-of-range", "unknown-field"],
)
def test_an_expired_assignment_answers_410_whatever_is_sent(assignment, signals, payload):
    """A retry of a stored answer after the deadline does not offer the next item (which the
    next answer could not be stored for), and a malformed answer is not corrected first: the
    task is over, and the message says that its answers are saved."""
    submit(assignment, answer(1, 40), now=NOW - timedelta(minutes=5))
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=NOW - timedelta(seconds=1))
    signals.clear()
    before = snapshot(assignment)

    with pytest.raises(SubmissionError) as caught:
        submit(assignment, payload)

    assert (caught.value.status, caught.value.message) == (410, EXPIRED_MESSAGE)
    assert snapshot(assignment) == before
    assert signals == []


def test_another_workers_id_cannot_reach_the_assignment(assignment):
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, answer(1), worker_id=WorkerFactory().pk)
    assert (caught.value.status, caught.value.message) == (404, "This task link is not valid.")
    assert Judgment.objects.count() == 0


def test_the_signal_fires_once_per_commit_with_the_new_ids(
    assignment, signals, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        first = submit(assignment, answer(1, 10))
    assert len(callbacks) == 1
    assert signals == [
        (
            Judgment,
            {
                "campaign_id": assignment.campaign_id,
                "worker_id": assignment.worker_id,
                "judgment_ids": [first.judgment.pk],
            },
        )
    ]

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submit(assignment, answer(1, 10))  # an identical retry stores nothing
        with pytest.raises(SubmissionError):
            submit(assignment, answer(3, 10))
    assert callbacks == []
    assert len(signals) == 1


def test_the_signal_waits_for_the_commit(assignment, signals, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        submit(assignment, answer(1))
    assert signals == []  # not before the commit
    callbacks[0]()
    assert len(signals) == 1


def test_a_failing_receiver_is_logged_and_the_answer_stays(
    assignment, django_capture_on_commit_callbacks, caplog
):
    def broken(sender, **kwargs):
        raise RuntimeError("analytics is down")

    judgments_recorded.connect(broken, weak=False)
    try:
        with caplog.at_level(logging.ERROR, "judgments.actions"):
            with django_capture_on_commit_callbacks(execute=True):
                result = submit(assignment, answer(1))
    finally:
        judgments_recorded.disconnect(broken)
    assert result.created and Judgment.objects.count() == 1
    assert "judgments_recorded receiver" in caplog.text


def test_serving_the_current_item_stamps_the_served_time_once(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(current_served_at=None)

    state = current_task_state(assignment.pk, assignment.worker_id, now=SERVED)
    current_task_state(assignment.pk, assignment.worker_id, now=NOW)  # a reload

    assignment.refresh_from_db()
    assert assignment.current_served_at == SERVED
    assert (state.next_slot.position, state.done, state.total) == (1, 0, 3)
