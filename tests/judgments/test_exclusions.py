import pytest

from judgments.actions import exclude_worker, set_excluded
from judgments.models import CampaignWorker
from judgments.signals import exclusions_changed
from tests.factories import CampaignFactory, WorkerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def received():
    calls = []

    def receiver(sender, campaign_ids, **kwargs):
        calls.append((sender, campaign_ids))

    exclusions_changed.connect(receiver, dispatch_uid="test-exclusions")
    yield calls
    exclusions_changed.disconnect(dispatch_uid="test-exclusions")


def test_excluding_announces_the_campaigns_after_the_commit(
    received, django_capture_on_commit_callbacks
):
    first, second = CampaignFactory(), CampaignFactory()
    worker = WorkerFactory()
    for campaign in (first, second):
        CampaignWorker.objects.create(campaign=campaign, worker=worker)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        changed = set_excluded(CampaignWorker.objects.all(), True, "random clicking")
    assert changed == 2
    assert received == []  # nothing before the commit
    for callback in callbacks:
        callback()
    assert received == [(CampaignWorker, sorted([first.pk, second.pk]))]
    assert set(CampaignWorker.objects.values_list("excluded", "excluded_reason")) == {
        (True, "random clicking")
    }


def test_no_change_no_announcement(received, django_capture_on_commit_callbacks):
    membership = exclude_worker(CampaignFactory(), WorkerFactory(), "fast")
    received.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, "again") == 0
    assert received == []
    with django_capture_on_commit_callbacks(execute=True):
        assert set_excluded(CampaignWorker.objects.filter(pk=membership.pk), False) == 1
    assert received == [(CampaignWorker, [membership.campaign_id])]
    membership.refresh_from_db()
    assert (membership.excluded, membership.excluded_reason, membership.excluded_at) == (
        False,
        "",
        None,
    )
