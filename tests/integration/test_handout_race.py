"""Twelve workers ask for work at the same moment, on PostgreSQL: the per-campaign lock
(select_for_update on the campaign row) must keep every HIT within its redundancy."""

import threading
from collections import Counter

import pytest
from django.db import connection

from judgments.actions import NoWorkReason, next_assignment_for
from judgments.models import LIVE_ASSIGNMENT_STATUSES, Assignment
from tests.factories import CampaignFactory, HitFactory, WorkerFactory

pytestmark = pytest.mark.integration

WORKERS = 12
TIMEOUT_SECONDS = 60


def test_concurrent_hand_outs_never_overfill_a_hit(postgres_required, transactional_db):
    campaign = CampaignFactory(redundancy=2)
    for number in (1, 2, 3):
        HitFactory(campaign=campaign, number=number)
    workers = WorkerFactory.create_batch(WORKERS)
    barrier = threading.Barrier(WORKERS, timeout=TIMEOUT_SECONDS)
    results, errors = {}, []

    def ask(worker):
        # Each thread has its own database connection (Django's are per thread).
        try:
            barrier.wait()
            hand_out = next_assignment_for(worker, campaign)
            results[worker.pk] = hand_out.reason or hand_out.assignment.hit.number
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(worker,)) for worker in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_SECONDS)

    assert errors == []
    assert not any(thread.is_alive() for thread in threads)
    live = Counter(
        Assignment.objects.filter(status__in=LIVE_ASSIGNMENT_STATUSES).values_list(
            "hit__number", flat=True
        )
    )
    assert live == {1: 2, 2: 2, 3: 2}
    assert Assignment.objects.count() == 6
    assert Counter(results.values()) == {1: 2, 2: 2, 3: 2, NoWorkReason.ALL_TAKEN: 6}
