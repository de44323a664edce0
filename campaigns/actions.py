"""Actions on campaigns, shared by the admin, management commands, the API and Celery tasks."""

from __future__ import annotations

import logging

from django.db import transaction

from campaigns.kinds import HitBuildError, kind_of, registry
from campaigns.models import Campaign, MTurkHit

logger = logging.getLogger(__name__)


__all__ = ["HitBuildError", "build_hits", "has_hit_builder"]


def build_hits(campaign: Campaign) -> int:
    """Build and store the campaign's HITs from its outputs; return how many were built (a
    ranking campaign's qualification-test HIT is built too but not counted).

    Rebuilding replaces HITs that nobody has started, so a requester may change the seed or
    the layout and build again; once a worker holds an assignment the HITs are frozen, because
    judgments point at their slots and judgments are never deleted. The same seed and the same
    outputs give the same HITs.
    """
    if not has_hit_builder(campaign.kind):
        raise HitBuildError(
            f"Building HITs for {campaign.get_kind_display()} campaigns is not available yet."
        )
    with transaction.atomic():
        # Lock the campaign row so two builds (or a build and a hand-out) cannot interleave.
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        if campaign.assignments.exists():
            raise HitBuildError(
                "Workers have already started this campaign's HITs, so they cannot be rebuilt. "
                "Create a new campaign to evaluate with a different layout."
            )
        if MTurkHit.objects.filter(hit__campaign=campaign).exists():
            raise HitBuildError(
                "This campaign's HITs are published on MTurk, so they cannot be rebuilt. Expire "
                "them (action 'Expire MTurk HITs') and create a new campaign for a different "
                "layout."
            )
        campaign.hits.all().delete()
        count = kind_of(campaign).build_hits(campaign)
    logger.info("Built %d HIT(s) for campaign %s", count, campaign.pk)
    return count


def has_hit_builder(kind: str) -> bool:
    implementation = registry.get(kind)
    return implementation is not None and implementation.builds_hits
