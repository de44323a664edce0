"""Post-editing's settings (000 section 3; 003: at most 15 segments a HIT)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings


class PostEditingSettings(KindSettings):
    campaign = models.OneToOneField(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="post_editing_settings",
    )
    segments_per_hit = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Segments per HIT (10 in 000, at most 15 in 003).",
    )

    class Meta:
        verbose_name = "post-editing settings"
        verbose_name_plural = "post-editing settings"

    def clean(self) -> None:
        if self.segments_per_hit is not None and self.segments_per_hit > 15:
            raise ValidationError(
                {"segments_per_hit": "Post-editing HITs hold at most 15 segments (003)."}
            )
