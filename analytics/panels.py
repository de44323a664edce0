"""Helpers shared by the kinds' results panels on a campaign's admin page
(``analytics.kinds``: each kind's ``results_panel``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from analytics.progress import CampaignProgress
from campaigns.models import Campaign

__all__ = ["Progress", "number", "workers_url"]


@dataclass(frozen=True)
class Progress:
    """Units done and needed, as a panel shows them. Direct assessment, ranking and
    post-editing take them from :func:`analytics.progress.campaign_progress` (:meth:`of`):
    needed is the sum over regular HITs of slots (ranking: sets) x the HIT's places (its own,
    else the campaign's redundancy now; control slots count, since workers judge them like
    any item); done the judgments in assignments that hold a place (started, submitted or
    approved), at most what each HIT needs; judgments of expired, returned or rejected
    assignments stay stored but their place is open again, so they do not count. ``note``
    explains work beyond the places (the redundancy lowered after it was handed out)."""

    done: int
    needed: int
    note: str = ""

    @classmethod
    def of(cls, progress: CampaignProgress) -> Progress:
        return cls(done=progress.units_in, needed=progress.units_needed, note=progress.explanation)

    @property
    def percent(self) -> float:
        return min(100.0, 100.0 * self.done / self.needed) if self.needed else 0.0


def number(value: float | None, spec: str) -> str:
    """``value`` formatted by ``spec``, or a dash for none."""
    return "–" if value is None else format(value, spec)


def workers_url(campaign: Campaign) -> str:
    """Where the panel's worker form posts (``CampaignAdmin.results_workers``)."""
    return reverse("admin:campaigns_campaign_results_workers", args=[campaign.pk])
