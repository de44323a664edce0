"""Helpers shared by the kinds' results panels on a campaign's admin page
(``analytics.kinds``: each kind's ``results_panel``)."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from campaigns.models import Campaign

__all__ = ["Progress", "number", "workers_url"]


@dataclass(frozen=True)
class Progress:
    """Judgments done and needed. Needed: every slot of every HIT, times the campaign's
    redundancy (the sum over HITs of slots x redundancy; control slots count, since workers
    judge them like any item). Done: judgments in assignments that hold one of a HIT's
    redundancy places (started, submitted or approved); judgments of expired, returned or
    rejected assignments stay stored but their place is open again, so they do not count.
    (Ranking counts ranking sets instead of judgments, the same way.)"""

    done: int
    needed: int

    @property
    def percent(self) -> float:
        return min(100.0, 100.0 * self.done / self.needed) if self.needed else 0.0


def number(value: float | None, spec: str) -> str:
    """``value`` formatted by ``spec``, or a dash for none."""
    return "–" if value is None else format(value, spec)


def workers_url(campaign: Campaign) -> str:
    """Where the panel's worker form posts (``CampaignAdmin.results_workers``)."""
    return reverse("admin:campaigns_campaign_results_workers", args=[campaign.pk])
