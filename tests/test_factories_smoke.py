import pytest

from tests.factories import JudgmentFactory


@pytest.mark.django_db
def test_judgment_factory_builds_one_consistent_chain():
    judgment = JudgmentFactory()
    assert judgment.slot.hit_id == judgment.assignment.hit_id
    assert judgment.campaign_id == judgment.assignment.campaign_id == judgment.slot.hit.campaign_id
    assert judgment.slot.output.system.campaign_id == judgment.campaign_id
    assert judgment.slot.output.segment.campaign_id == judgment.campaign_id
    assert judgment.worker_id == judgment.assignment.worker_id
