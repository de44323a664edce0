"""Celery tasks: publishing to MTurk and granting its qualification.

Thin: ids in, an early return with a log line when the row is gone, one call into
:mod:`campaigns.platforms`. Both are safe to run twice: publishing skips HITs already on MTurk
(and MTurk refuses a second HIT with the same request token), and granting a qualification a
worker already holds just sets the same value again.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from campaigns.models import Campaign
from campaigns.platforms import clients, events, mturk, publishing
from campaigns.platforms.mturk import MTurkError
from judgments.models import CampaignWorker, Platform

logger = logging.getLogger(__name__)

__all__ = ["grant_mturk_qualification", "publish_to_mturk"]

# A grant that failed for a passing reason (throttling, MTurk unavailable) is tried again
# after 1, 2, 4, 8 and 16 minutes before it is left to the requester.
GRANT_RETRIES = 5
GRANT_FIRST_RETRY_SECONDS = 60


@shared_task
def publish_to_mturk(
    campaign_id: int,
    hit_ids: list[int] | None = None,
    expected_plan: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Publish the campaign's HITs not yet on MTurk (or only ``hit_ids``); the outcome as
    :meth:`PublishResult.as_dict`, also stored as a PlatformEvent for the campaign page.

    ``expected_plan`` is the plan's fingerprint the requester confirmed: checked again when
    the task runs (a queued task may run after the campaign was edited), so nothing goes out
    that the requester did not see."""
    if not Campaign.objects.filter(pk=campaign_id).exists():
        logger.info("Campaign %s is gone; nothing to publish", campaign_id)
        return None
    return publishing.publish(campaign_id, hit_ids, expected=expected_plan).as_dict()


@shared_task(bind=True, max_retries=GRANT_RETRIES)
def grant_mturk_qualification(self, campaign_worker_id: int) -> bool:
    """Give an MTurk worker who passed the campaign's qualification test our MTurk
    qualification (value ``PASSED_QUALIFICATION_VALUE``), so MTurk lets them accept the
    campaign's regular HITs. True when MTurk confirmed the grant."""
    membership = (
        CampaignWorker.objects.select_related("campaign", "worker")
        .filter(pk=campaign_worker_id)
        .first()
    )
    if membership is None:
        logger.info("Campaign worker %s is gone; no qualification to grant", campaign_worker_id)
        return False
    campaign, worker = membership.campaign, membership.worker
    type_id = campaign.mturk_qualification_type_id
    if not membership.qualification_passed or worker.platform != Platform.MTURK or not type_id:
        logger.info(
            "Campaign worker %s: not an MTurk worker who passed a test with an MTurk "
            "qualification; nothing to grant",
            campaign_worker_id,
        )
        return False
    try:
        mturk.grant_qualification(
            clients.mturk_client(campaign.mturk_sandbox),
            type_id,
            worker.external_id,
            mturk.PASSED_QUALIFICATION_VALUE,
        )
    except MTurkError as error:
        if error.retryable and not self.request.is_eager and self.request.retries < GRANT_RETRIES:
            raise self.retry(
                countdown=GRANT_FIRST_RETRY_SECONDS * 2**self.request.retries
            ) from error
        events.record_error(
            campaign.pk,
            "grant qualification",
            MTurkError(
                error.operation,
                error.code,
                f"Worker {worker.external_id} passed the qualification test but MTurk did not "
                f"grant them qualification {type_id}: {error.message}",
                f"{error.what_to_do} Until then the worker cannot accept the campaign's HITs; "
                "you can also grant it on the requester website (Manage, Workers, the worker, "
                f"Assign qualification, value {mturk.PASSED_QUALIFICATION_VALUE}).",
            ),
        )
        return False
    logger.info(
        "Granted MTurk qualification %s to worker %s (campaign %d)",
        type_id,
        worker.external_id,
        campaign.pk,
    )
    return True


def grant_on_qualification(sender: Any, campaign_worker_id: int, **kwargs: Any) -> None:
    """Receiver of ``judgments.signals.mturk_qualification_earned`` (connected in
    ``CampaignsConfig.ready``): the grant runs in a task, after the commit that sent it."""
    grant_mturk_qualification.delay(campaign_worker_id)
