"""record_judgment for ranking sets: one POST per set, N rows in one transaction, validated,
idempotent, in order; nothing written on any error.

``build_ranking_hit`` (used by the other ranking test modules too) makes a ranking HIT with
factories, as the ranking builder lays one out: sets (group 0..k-1) of N slots of one
segment each, positions running over the HIT.
"""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import HitTask, SlotRole, TaskKind
from judgments.actions import SubmissionError, current_task_state, record_judgment
from judgments.models import Assignment, AssignmentStatus, Judgment
from judgments.signals import judgments_recorded
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)

pytestmark = pytest.mark.django_db

SERVED = timezone.now().replace(microsecond=0)
NOW = SERVED + timedelta(seconds=20)
# The browser's clock when the item was shown: within the window of the server's time that
# client_started_at must be in (judgments.actions.timing), as the page sends it.
STARTED_AT = SERVED + timedelta(milliseconds=125)
STARTED = STARTED_AT.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ranking_campaign(**fields):
    values = {
        "kind": TaskKind.RANKING,
        "outputs_per_set": 4,
        "sets_per_hit": 3,
        "redundancy": 1,
    }
    return CampaignFactory(**{**values, **fields})


def build_ranking_hit(
    campaign,
    *,
    sets=3,
    outputs=4,
    number=1,
    is_qualification=False,
    gold=None,
    expected=None,
    system_names=None,
    texts=None,
):
    """A ranking HIT of ``sets`` sets of ``outputs`` slots. ``gold``: {set index: gold
    translation} puts a gold slot (no output, the gold text, expected rank 1) in place of the
    set's second output. ``expected``: {position: (min, max)} marks slots with an expected
    range (role "training" for a qualification HIT). ``texts``: {position: shown text}.
    Returns the HIT; the systems are named ``system_names`` (default SECRET-SYSTEM-<n>)."""
    gold, expected, texts = gold or {}, expected or {}, texts or {}
    names = system_names or [f"SECRET-SYSTEM-{n}" for n in range(outputs)]
    systems = list(campaign.systems.order_by("pk")[:outputs])
    systems += [SystemFactory(campaign=campaign, name=name) for name in names[len(systems) :]]
    document = DocumentFactory(campaign=campaign)
    hit = HitFactory(
        campaign=campaign, number=number, task=HitTask.RANK, is_qualification=is_qualification
    )
    position = 0
    for group in range(sets):
        segment = SegmentFactory(
            document=document,
            campaign=campaign,
            source=f"Quellsatz {number}.{group + 1}.",
            references=[f"Reference sentence {number}.{group + 1}."],
        )
        for n in range(outputs):
            position += 1
            text = texts.get(position, f"Translation {number}.{group + 1} by engine {n}.")
            low, high = expected.get(position, (None, None))
            role = SlotRole.TRAINING if is_qualification else SlotRole.SYSTEM
            if group in gold and n == 1:
                HitSlotFactory(
                    hit=hit,
                    position=position,
                    group=group,
                    role=SlotRole.GOLD,
                    output=None,
                    segment=segment,
                    shown_text=gold[group],
                    expected_rank_min=1 if low is None else low,
                    expected_rank_max=1 if high is None else high,
                )
                continue
            output = OutputFactory(segment=segment, system=systems[n], text=text)
            HitSlotFactory(
                hit=hit,
                position=position,
                group=group,
                role=role,
                output=output,
                segment=segment,
                shown_text=text,
                expected_rank_min=low,
                expected_rank_max=high,
            )
    return hit


@pytest.fixture
def campaign():
    return ranking_campaign()


@pytest.fixture
def assignment(campaign):
    hit = build_ranking_hit(campaign)
    return AssignmentFactory(
        hit=hit,
        current_served_at=SERVED,
        last_activity_at=SERVED,
        expires_at=NOW + timedelta(hours=1),
    )


@pytest.fixture
def signals():
    sent = []

    def receiver(sender, **kwargs):
        kwargs.pop("signal")
        sent.append((sender, kwargs))

    judgments_recorded.connect(receiver, weak=False)
    yield sent
    judgments_recorded.disconnect(receiver)


def submit(assignment, payload, now=NOW):
    return record_judgment(assignment.pk, assignment.worker_id, payload, now=now)


def ranking(group, ranks, **extra):
    """A set's answer; ``ranks`` lists the ranks of its outputs in order (4 per set)."""
    first = group * 4 + 1
    return {
        "set": group,
        "ranks": {str(first + i): rank for i, rank in enumerate(ranks)},
        **extra,
    }


def snapshot(assignment):
    row = Assignment.objects.values().get(pk=assignment.pk)
    return row, list(Judgment.objects.values())


def stored_ranks():
    return list(Judgment.objects.order_by("slot__position").values_list("slot__position", "rank"))


def test_a_set_is_stored_as_one_row_per_output_with_ties_and_timing(assignment):
    result = submit(
        assignment, ranking(0, [2, 1, 2, 4], client_started_at=STARTED, client_duration_ms=9100)
    )

    assert result.created is True
    assert [j.slot.position for j in result.judgments] == [1, 2, 3, 4]
    assert result.judgment == result.judgments[0]
    assert stored_ranks() == [(1, 2), (2, 1), (3, 2), (4, 4)]
    rows = Judgment.objects.values_list(
        "worker",
        "campaign",
        "score",
        "client_duration_ms",
        "served_at",
        "server_duration_ms",
    )
    assert set(rows) == {(assignment.worker_id, assignment.campaign_id, None, 9100, SERVED, 20_000)}
    assert {j.client_started_at.isoformat() for j in Judgment.objects.all()} == {
        STARTED_AT.isoformat()
    }
    state = result.state
    assert (state.done, state.total, state.page, state.pages, state.finished) == (1, 3, 1, 1, False)
    assert [unit.key for unit in state.shown] == [1, 2]  # the rest of the page
    assert [slot.position for slot in state.shown[0].slots] == [5, 6, 7, 8]
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.STARTED
    # The other sets of the page were served with it: their time still counts from then.
    assert (assignment.current_served_at, assignment.last_activity_at) == (SERVED, NOW)


@pytest.mark.parametrize("ranks", [[1, 1, 1, 1], [4, 4, 4, 4], [1, 2, 3, 4], [3, 1, 3, 1]])
def test_any_ranks_from_1_to_n_are_taken_ties_included(assignment, ranks):
    submit(assignment, ranking(0, ranks))
    assert [rank for _, rank in stored_ranks()] == ranks


def test_the_last_set_submits_the_assignment(assignment):
    submit(assignment, ranking(0, [1, 2, 3, 4]))
    submit(assignment, ranking(1, [1, 1, 2, 2]), now=NOW + timedelta(seconds=10))
    result = submit(assignment, ranking(2, [4, 3, 2, 1]), now=NOW + timedelta(seconds=30))

    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert assignment.submitted_at == NOW + timedelta(seconds=30)
    assert assignment.current_served_at is None
    assert (result.state.finished, result.state.done, result.state.total) == (True, 3, 3)
    assert result.state.next_slot is None
    assert [rank for _, rank in stored_ranks()] == [1, 2, 3, 4, 1, 1, 2, 2, 4, 3, 2, 1]
    # Server time counts from when the page was served, for every set on it.
    durations = Judgment.objects.order_by("slot__position").values_list(
        "server_duration_ms", flat=True
    )
    assert list(durations) == [20_000] * 4 + [30_000] * 4 + [50_000] * 4


def test_a_retry_with_the_same_ranks_returns_the_stored_rows(assignment):
    first = submit(assignment, ranking(0, [2, 1, 2, 4], client_duration_ms=900))
    before = snapshot(assignment)

    retry = submit(
        assignment,
        {
            **ranking(0, [2, 1, 2, 4], client_duration_ms=1500),
            "ranks": {"4": 4, "3": 2, "2": 1, "1": 2},
        },
        now=NOW + timedelta(minutes=1),
    )

    assert retry.created is False
    assert [j.pk for j in retry.judgments] == [j.pk for j in first.judgments]
    assert {j.client_duration_ms for j in retry.judgments} == {900}
    assert [unit.key for unit in retry.state.shown] == [1, 2]
    assert snapshot(assignment) == before


def test_a_retry_of_the_last_set_after_submission_is_still_fine(assignment):
    for group in (0, 1, 2):
        submit(assignment, ranking(group, [1, 2, 3, 4]))
    retry = submit(assignment, ranking(2, [1, 2, 3, 4]), now=NOW + timedelta(hours=5))
    assert (retry.created, retry.state.finished) == (False, True)


def test_an_answered_set_cannot_be_changed(assignment):
    submit(assignment, ranking(0, [1, 2, 3, 4]))
    before = snapshot(assignment)

    with pytest.raises(SubmissionError) as caught:
        submit(assignment, ranking(0, [1, 2, 3, 3]))

    assert (caught.value.status, caught.value.field, caught.value.message) == (
        409,
        "set",
        "Set 1 is already answered, and answers cannot be changed (there is no going back). "
        "Continue with set 2.",
    )
    assert snapshot(assignment) == before


def test_changing_the_last_set_after_submission_says_the_task_is_finished(assignment):
    for group in (0, 1, 2):
        submit(assignment, ranking(group, [1, 2, 3, 4]))
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, ranking(1, [4, 3, 2, 1]))
    assert caught.value.status == 409
    assert caught.value.message.endswith("(there is no going back). The task is finished.")


def test_sets_are_answered_in_order(assignment, signals):
    before = snapshot(assignment)
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, ranking(1, [1, 2, 3, 4]))
    assert (caught.value.status, caught.value.field, caught.value.message) == (
        400,
        "set",
        "Answer set 1 first; the sets are answered in order.",
    )
    assert snapshot(assignment) == before
    assert signals == []


def test_a_set_outside_the_hit_is_refused(assignment):
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, {"set": 7, "ranks": {"1": 1}})
    assert (caught.value.status, caught.value.field, caught.value.message) == (
        400,
        "set",
        'There is no set 7 in this task: "set" is one of 0, 1, 2.',
    )


def ranks_shape(got):
    return (
        "ranks must be an object that gives each output's position its rank, for example "
        f'{{"1": 2, "2": 1}} (got {got}).'
    )


def not_a_position(key):
    return (
        'ranks must give each output\'s position its rank, for example {"1": 2, "2": 1}; '
        f'"{key}" is not a position.'
    )


RANK_VALUE = "The rank of position {} must be a whole number of at least 1 (got {})."
BAD_SET = "set must be the ranking set you answer, a whole number of at least 0 (got {})."
FIELDS = "send only set, client_started_at, client_duration_ms, ranks."


def with_ranks(ranks, group=0):
    return {"set": group, "ranks": ranks}


FULL = {"1": 1, "2": 2, "3": 3, "4": 4}


@pytest.mark.parametrize(
    ("payload", "field", "message"),
    [
        (
            [0, FULL],
            None,
            'Send the answer as a JSON object, for example {"set": 0, "ranks": {"1": 2, "2": 1}}.',
        ),
        ({**with_ranks(FULL), "score": 50}, "score", f"Unknown field 'score': {FIELDS}"),
        ({**with_ranks(FULL), "position": 1}, "position", f"Unknown field 'position': {FIELDS}"),
        ({**with_ranks(FULL), "role": "x"}, "role", f"Unknown field 'role': {FIELDS}"),
        ({"ranks": FULL}, "set", "set is required: the ranking set you answer."),
        (with_ranks(FULL, group="0"), "set", BAD_SET.format('the text "0"')),
        (with_ranks(FULL, group=-1), "set", BAD_SET.format("-1")),
        (with_ranks(FULL, group=0.0), "set", BAD_SET.format("0.0")),
        (with_ranks(FULL, group=True), "set", BAD_SET.format("true/false")),
        ({"set": 0}, "ranks", "ranks is required: give every output of the set a rank."),
        (with_ranks(None), "ranks", "ranks is required: give every output of the set a rank."),
        (with_ranks([1, 2, 3, 4]), "ranks", ranks_shape("a list")),
        (with_ranks("1234"), "ranks", ranks_shape('the text "1234"')),
        (with_ranks({**FULL, "a": 1}), "ranks", not_a_position("a")),
        (with_ranks({"01": 1, "2": 2, "3": 3, "4": 4}), "ranks", not_a_position("01")),
        (with_ranks({**FULL, "0": 1}), "ranks", not_a_position("0")),
        (with_ranks({**FULL, " 1": 1}), "ranks", not_a_position(" 1")),
        (with_ranks({**FULL, "2": "1"}), "ranks", RANK_VALUE.format(2, 'the text "1"')),
        (with_ranks({**FULL, "2": 0}), "ranks", RANK_VALUE.format(2, "0")),
        (with_ranks({**FULL, "2": -3}), "ranks", RANK_VALUE.format(2, "-3")),
        (with_ranks({**FULL, "2": 1.5}), "ranks", RANK_VALUE.format(2, "1.5")),
        (with_ranks({**FULL, "2": 2.0}), "ranks", RANK_VALUE.format(2, "2.0")),
        (with_ranks({**FULL, "2": True}), "ranks", RANK_VALUE.format(2, "true/false")),
        (with_ranks({**FULL, "2": None}), "ranks", RANK_VALUE.format(2, "null")),
        (
            with_ranks({**FULL, "3": 5}),
            "ranks",
            "The rank of position 3 must be from 1 to 4, the number of outputs in set 1 (got 5).",
        ),
        (
            with_ranks({"1": 1, "2": 2, "4": 4}),
            "ranks",
            "Every output of set 1 needs a rank; missing: position 3.",
        ),
        (
            with_ranks({}),
            "ranks",
            "Every output of set 1 needs a rank; missing: positions 1, 2, 3, 4.",
        ),
        (
            with_ranks({**FULL, "5": 1}),
            "ranks",
            "ranks names position 5, which is not an output of set 1; its outputs are at "
            "positions 1, 2, 3, 4.",
        ),
        (
            with_ranks({"1": 1, "2": 2, "3": 3, "13": 4}),
            "ranks",
            "ranks names position 13, which is not an output of set 1; its outputs are at "
            "positions 1, 2, 3, 4.",
        ),
        (
            {**with_ranks(FULL), "client_duration_ms": -5},
            "client_duration_ms",
            "client_duration_ms must be a time in milliseconds, a whole number of at least 0 "
            "(got -5).",
        ),
        (
            {**with_ranks(FULL), "client_started_at": "now"},
            "client_started_at",
            "client_started_at must be a date and time with a time zone, for example "
            '2025-05-01T12:00:00.000Z (got the text "now").',
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


def test_a_bad_retry_of_an_answered_set_is_a_400_not_a_conflict(assignment):
    submit(assignment, ranking(0, [1, 2, 3, 4]))
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, with_ranks({"1": 1, "2": 2, "3": 3}))
    assert caught.value.status == 400


def test_an_expired_assignment_takes_no_set(assignment, signals):
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=NOW - timedelta(seconds=1))
    before = snapshot(assignment)
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, ranking(0, [1, 2, 3, 4]))
    assert caught.value.status == 410
    assert snapshot(assignment) == before


def test_one_signal_per_set_after_the_commit_with_all_its_ids(
    assignment, signals, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = submit(assignment, ranking(0, [1, 1, 2, 2]))
    assert signals == []  # not before the commit
    assert len(callbacks) == 1
    callbacks[0]()
    assert signals == [
        (
            Judgment,
            {
                "campaign_id": assignment.campaign_id,
                "worker_id": assignment.worker_id,
                "judgment_ids": [j.pk for j in result.judgments],
            },
        )
    ]
    assert sorted(signals[0][1]["judgment_ids"]) == sorted(
        Judgment.objects.values_list("pk", flat=True)
    )

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        submit(assignment, ranking(0, [1, 1, 2, 2]))  # a retry stores nothing
    assert callbacks == []


def test_a_failing_receiver_is_logged_and_the_set_stays(
    assignment, django_capture_on_commit_callbacks, caplog
):
    def broken(sender, **kwargs):
        raise RuntimeError("analytics is down")

    judgments_recorded.connect(broken, weak=False)
    try:
        with caplog.at_level(logging.ERROR, "judgments.actions"):
            with django_capture_on_commit_callbacks(execute=True):
                submit(assignment, ranking(0, [1, 2, 3, 4]))
    finally:
        judgments_recorded.disconnect(broken)
    assert Judgment.objects.count() == 4
    assert "judgments_recorded receiver" in caplog.text


def test_a_hit_longer_than_a_page_goes_page_by_page():
    campaign = ranking_campaign(sets_per_hit=2)
    hit = build_ranking_hit(campaign, sets=3)
    assignment = AssignmentFactory(hit=hit, expires_at=NOW + timedelta(hours=1))

    state = current_task_state(assignment.pk, assignment.worker_id, now=SERVED)
    assert (state.page, state.pages, [u.key for u in state.shown]) == (1, 2, [0, 1])
    assert [u.number for u in state.shown] == [1, 2]

    submit(assignment, ranking(0, [1, 2, 3, 4]), now=NOW)
    result = submit(assignment, ranking(1, [1, 2, 3, 4]), now=NOW + timedelta(seconds=5))

    state = result.state
    assert (state.page, state.pages, [u.key for u in state.shown]) == (2, 2, [2])
    assignment.refresh_from_db()
    assert assignment.current_served_at == NOW + timedelta(seconds=5)  # a new page went out
    result = submit(assignment, ranking(2, [2, 2, 1, 1]), now=NOW + timedelta(seconds=12))
    assert (
        Judgment.objects.filter(slot__group=2).values_list("server_duration_ms", flat=True)[0]
        == 7000
    )
    assert result.state.finished


def test_a_reload_shows_only_the_unanswered_sets_of_the_page(assignment):
    submit(assignment, ranking(0, [1, 2, 3, 4]))
    state = current_task_state(assignment.pk, assignment.worker_id, now=NOW)
    assert [u.key for u in state.shown] == [1, 2]
    assert (state.done, state.total, state.page) == (1, 3, 1)


def test_sets_go_by_group_and_outputs_by_position_whatever_the_creation_order(campaign):
    hit = HitFactory(campaign=campaign, number=5, task=HitTask.RANK)
    # Group 1 created first, positions out of order.
    for position, group in [(6, 1), (4, 1), (5, 1), (2, 0), (1, 0), (3, 0)]:
        HitSlotFactory(hit=hit, position=position, group=group)
    assignment = AssignmentFactory(hit=hit)
    state = current_task_state(assignment.pk, assignment.worker_id)
    assert [(u.key, [s.position for s in u.slots]) for u in state.shown] == [
        (0, [1, 2, 3]),
        (1, [4, 5, 6]),
    ]
    with pytest.raises(SubmissionError) as caught:
        submit(assignment, {"set": 0, "ranks": {"1": 1, "2": 2, "3": 4}})
    assert caught.value.message == (
        "The rank of position 3 must be from 1 to 3, the number of outputs in set 1 (got 4)."
    )
