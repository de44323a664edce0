"""Crowd translation's settings (000 section 5)."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings


class TranslationSettings(KindSettings):
    campaign = models.OneToOneField(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="translation_settings",
    )
    segments_per_hit = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Segments per HIT (10 in 000).",
    )

    class Meta:
        verbose_name = "translation settings"
        verbose_name_plural = "translation settings"
