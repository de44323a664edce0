"""Who may read or change a campaign besides its owner (analytics/access.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.models import Campaign


class AccessLevel(models.TextChoices):
    READ = "read", "read"
    CHANGE = "change", "read and change"


class CampaignAccess(models.Model):
    """A collaborator's access to one campaign, in the admin and through the REST API alike.

    Who sees a campaign (``analytics.access``): superusers (everything), the campaign's owner
    and the users granted access here, at ``level`` read or change; Django's model
    permissions (campaigns.view_campaign, change_campaign) come on top, and staff status alone
    grants nothing. Everyone else gets 404 for it, as if it did not exist.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="accesses")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_accesses"
    )
    level = models.CharField(
        max_length=8,
        choices=AccessLevel.choices,
        default=AccessLevel.READ,
        help_text="read: see the campaign, its data and results; read and change: also edit "
        "it, import into it and review its assignments (with the matching model permissions).",
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "user"]
        verbose_name = "collaborator access"
        verbose_name_plural = "collaborator accesses"
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="campaign_access_unique"),
        ]

    def __str__(self) -> str:
        verb = "changes" if self.level == AccessLevel.CHANGE else "reads"
        return f"{self.user} {verb} {self.campaign}"
