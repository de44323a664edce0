"""What evalsite remembers of the crowd platforms: the MTurk HIT behind each of our HITs, and
a log of platform operations that failed (or need a person), shown in the admin.

Imported by ``campaigns.models`` so that Django registers them in the ``campaigns`` app.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class MTurkHit(models.Model):
    """One of our HITs as published on Mechanical Turk (sandbox or production).

    Written as soon as MTurk returns the HIT id (``publish_hits``' ``on_published``), so a
    publication that fails part-way never publishes the same HIT twice: the next attempt skips
    HITs that have a row here.
    """

    hit = models.OneToOneField("campaigns.Hit", on_delete=models.PROTECT, related_name="mturk")
    mturk_hit_id = models.CharField(max_length=64, unique=True, verbose_name="MTurk HIT id")
    hit_type_id = models.CharField(max_length=64, verbose_name="MTurk HIT type id")
    hit_group_id = models.CharField(max_length=64, blank=True, verbose_name="MTurk HIT group id")
    sandbox = models.BooleanField(help_text="Published to the sandbox (no money paid).")
    max_assignments = models.PositiveIntegerField()
    # MTurk fixes a HIT's reward when it is published: a later change of the campaign's
    # reward reaches HITs published after it, never this one. Null: published before
    # evalsite recorded it (migration 0021 filled in the reward of that time).
    reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="The reward per assignment the HIT was published with, in US dollars: what "
        "MTurk pays its workers whatever the campaign's reward is now.",
    )
    published_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="When MTurk stops offering the HIT to new workers."
    )
    expired_by_requester_at = models.DateTimeField(
        null=True, blank=True, help_text="When a requester ended the HIT early."
    )
    last_synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["hit__campaign", "hit__number"]
        verbose_name = "MTurk HIT"
        verbose_name_plural = "MTurk HITs"

    def __str__(self) -> str:
        return f"{self.mturk_hit_id} ({'sandbox' if self.sandbox else 'production'})"


class PlatformEventKind(models.TextChoices):
    ERROR = "error", "Error"
    CONFLICT = "conflict", "Needs a person"
    INFO = "info", "Done"


class PlatformEvent(models.Model):
    """A platform operation worth a requester's attention: an MTurk error with what to do, a
    conflict found by the sync (MTurk decided the opposite of us), or the outcome of a
    background publication. Shown on the campaign page, newest first."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="platform_events"
    )
    kind = models.CharField(max_length=16, choices=PlatformEventKind.choices)
    operation = models.CharField(max_length=64, help_text="E.g. publish, sync, approve, bonus.")
    code = models.CharField(max_length=100, blank=True, help_text="MTurk's error code, if any.")
    message = models.TextField()
    what_to_do = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=PlatformEventKind.values), name="platform_event_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.operation}"
