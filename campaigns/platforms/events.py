"""Platform events: MTurk errors (with what to do) and conflicts, stored for the admin."""

from __future__ import annotations

import logging

from campaigns.platforms.models import PlatformEvent, PlatformEventKind
from campaigns.platforms.mturk import MTurkError

logger = logging.getLogger(__name__)


def record_event(
    campaign_id: int,
    kind: str,
    operation: str,
    message: str,
    *,
    code: str = "",
    what_to_do: str = "",
) -> PlatformEvent:
    """Store one event for the campaign page (and log it)."""
    level = logging.INFO if kind == PlatformEventKind.INFO else logging.WARNING
    logger.log(level, "Campaign %d, %s: %s %s", campaign_id, operation, message, what_to_do)
    return PlatformEvent.objects.create(
        campaign_id=campaign_id,
        kind=kind,
        operation=operation,
        code=code[:100],
        message=message,
        what_to_do=what_to_do,
    )


def record_error(campaign_id: int, operation: str, error: MTurkError) -> PlatformEvent:
    """Store an MTurk error with MTurk's code and the advice ``MTurkError`` carries."""
    return record_event(
        campaign_id,
        PlatformEventKind.ERROR,
        operation,
        error.message,
        code=error.code,
        what_to_do=error.what_to_do,
    )
