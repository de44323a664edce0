"""Incremental recomputes in a real Celery worker (deploy/worker.sh) on Redis and PostgreSQL
(issue 16 item 3): the worker keeps the campaign's arrays after its first recompute, reads
only the judgments added since on the next ones, and stores exactly what a full recompute
stores, saying which judgments the results reflect."""

from __future__ import annotations

import pytest
from django.db.models import Max

from analytics import actions as analytics_actions
from analytics.models import CampaignResult
from judgments import actions as judgment_actions
from judgments.models import Judgment
from tests.analytics.test_incremental import stored
from tests.integration.conftest import DEPLOY_DIR
from tests.integration.test_da_pipeline import (
    build_da_campaign,
    careful_score,
    do_hit,
    random_scores,
)

pytestmark = pytest.mark.integration

WORKER_READY_TIMEOUT = 30
RESULTS_TIMEOUT = 90


def test_a_real_worker_reads_only_new_judgments_and_stores_a_full_recomputes_results(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
):
    from evalsite.celery import app as celery_app

    assert celery_app.conf.task_always_eager is False  # sent through Redis, not inline
    settings.ANALYTICS_RECOMPUTE_QUEUE = unique_queue
    settings.ANALYTICS_RECOMPUTE_COUNTDOWN = 1
    campaign = build_da_campaign()
    env = {
        **subprocess_env,
        "ANALYTICS_INCREMENTAL": "1",
        # Agreement and significance on every run: the stored results equal a full recompute's.
        "ANALYTICS_AGREEMENT_SECONDS": "0",
        "ANALYTICS_SIGNIFICANCE_SECONDS": "0",
    }
    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={unique_queue}",
            f"--hostname={unique_queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    def reflects(n: int):
        def check() -> bool:
            result = CampaignResult.objects.filter(campaign=campaign).first()
            return result is not None and result.details.get("as_of", {}).get("n_judgments") == n

        return check

    careful = judgment_actions.create_pseudonymous_worker()
    do_hit(careful, campaign, careful_score, seconds=7)
    worker.wait_until(reflects(100), RESULTS_TIMEOUT, "results over the first 100 judgments")
    assert "from a full read (first load)" in worker.log()

    clicker = judgment_actions.create_pseudonymous_worker()
    do_hit(clicker, campaign, random_scores(), seconds=1)
    worker.wait_until(reflects(200), RESULTS_TIMEOUT, "results over all 200 judgments")
    assert "from the cached arrays" in worker.log()

    result = CampaignResult.objects.get(campaign=campaign)
    as_of = result.details["as_of"]
    assert as_of["incremental"] is True
    assert as_of["judgment_id"] == Judgment.objects.aggregate(m=Max("id"))["m"]
    assert as_of["agreement"]["n_judgments"] == 200  # computed on every run here
    assert result.n_judgments == 200

    from_worker = stored(campaign)
    worker.stop()  # nothing may store behind the full recompute below
    analytics_actions.recompute_campaign(campaign)
    assert stored(campaign) == from_worker
    analytics_actions.clear_recompute_flag(campaign.pk)
