"""Actions on workers' assignments, shared by views, admin, API and Celery tasks."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from judgments.models import Assignment, AssignmentStatus

logger = logging.getLogger(__name__)


def expire_abandoned_assignments(now: datetime | None = None) -> int:
    """Mark started assignments past their deadline as expired; return how many.

    An expired assignment no longer counts against its HIT's redundancy, so the HIT returns
    to the pool. Its judgments stay stored (judgments are never deleted). The update is one
    conditional UPDATE, so running it twice, or concurrently with itself, is harmless.
    """
    now = now or timezone.now()
    with transaction.atomic():
        expired = Assignment.objects.filter(
            status=AssignmentStatus.STARTED, expires_at__lte=now
        ).update(status=AssignmentStatus.EXPIRED)
    if expired:
        logger.info("Expired %d abandoned assignment(s)", expired)
    return expired
