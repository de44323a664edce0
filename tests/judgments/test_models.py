import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from judgments.models import Assignment, Judgment, Worker
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db


def assert_rejected_by_database(create) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        create()


def test_worker_is_unique_per_platform_and_id():
    WorkerFactory(platform="mturk", external_id="A1B2C3")
    WorkerFactory(platform="prolific", external_id="A1B2C3")
    assert_rejected_by_database(lambda: WorkerFactory(platform="mturk", external_id="A1B2C3"))
    assert_rejected_by_database(lambda: Worker.objects.create(platform="mturk", external_id=""))


def test_one_assignment_per_worker_and_hit():
    assignment = AssignmentFactory()
    assert_rejected_by_database(
        lambda: AssignmentFactory(hit=assignment.hit, worker=assignment.worker)
    )
    AssignmentFactory(hit=assignment.hit)  # another worker on the same HIT: fine


def test_platform_assignment_ids_are_unique_when_present():
    AssignmentFactory(platform_assignment_id="")
    AssignmentFactory(platform_assignment_id="")  # many direct-link assignments have none
    AssignmentFactory(platform_assignment_id="3AMW0RGHOD1P")
    assert_rejected_by_database(lambda: AssignmentFactory(platform_assignment_id="3AMW0RGHOD1P"))
    assert Assignment.objects.count() == 3


def test_one_judgment_per_assignment_and_slot():
    judgment = JudgmentFactory()
    assert_rejected_by_database(
        lambda: JudgmentFactory(assignment=judgment.assignment, slot=judgment.slot)
    )


@pytest.mark.parametrize("score", [-0.5, 100.01])
def test_scores_outside_0_to_100_are_rejected_by_the_database(score):
    assert_rejected_by_database(lambda: JudgmentFactory(score=score))
    assert Judgment.objects.count() == 0


def test_scores_at_the_bounds_are_stored_exactly():
    low, high = JudgmentFactory(score=0.0), JudgmentFactory(score=100.0)
    assert sorted(Judgment.objects.values_list("score", flat=True)) == [0.0, 100.0]
    assert (low.pk, high.pk) != (None, None)


def test_rank_zero_is_rejected_by_the_database():
    assert_rejected_by_database(lambda: JudgmentFactory(score=None, rank=0))


def test_clean_rejects_a_slot_from_another_hit():
    assignment = AssignmentFactory()
    foreign_slot = HitSlotFactory(hit=HitFactory(campaign=assignment.campaign))
    judgment = Judgment(
        assignment=assignment,
        campaign=assignment.campaign,
        worker=assignment.worker,
        slot=foreign_slot,
        score=10,
    )
    with pytest.raises(ValidationError) as caught:
        judgment.full_clean()
    assert caught.value.message_dict["slot"] == ["The slot is not part of this assignment's HIT."]
