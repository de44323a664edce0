"""Post-editing's settings (METHODS.md section 3; 000 section 5.2, 003).

Editors per segment is the campaign's redundancy (every edit HIT is handed to that many
distinct workers; 5 in 000); the settings below are what post-editing adds.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings

# 003 caps a HIT at 15 segments; 000 used 10.
MAX_SEGMENTS_PER_HIT = 15


class PostEditingMode(models.TextChoices):
    MONOLINGUAL = "monolingual", "Monolingual: the reference is shown (000)"
    BILINGUAL = "bilingual", "Bilingual: the source is shown (003)"


class PostEditingSettings(KindSettings):
    campaign = models.OneToOneField(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="post_editing_settings",
    )
    mode = models.CharField(
        max_length=16,
        choices=PostEditingMode.choices,
        default=PostEditingMode.MONOLINGUAL,
        help_text="What editors and verifiers see beside the MT output: the reference "
        "translation (000, editors need only the target language) or the source (003).",
    )
    segments_per_hit = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Consecutive segments of one document per HIT (10 in 000, at most 15 in "
        "003). A document longer than this is cut into runs of nearly equal length.",
    )
    verifiers_per_edit = models.PositiveSmallIntegerField(
        # 000 does not say how many workers verified each edit; three is the smallest odd
        # number that gives a majority other than one worker's word.
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(15)],
        help_text="Workers who verify each edit (same meaning? acceptable language?); an edit "
        "passes by majority. 000 does not give the number; 3 by default.",
    )
    # A verification HIT is a few yes/no pairs, far less work than editing a run of
    # segments: paying it the editing reward (the campaign's) silently overpays it.
    verification_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for one verification HIT (one edit's segments, two yes/no questions "
        "each), in US dollars. Empty: the campaign's reward, as an editing HIT. A change "
        "reaches verification HITs still to be taken; assignments already taken keep theirs.",
    )
    ter_case_sensitive = models.BooleanField(
        default=False,
        help_text="TER distinguishes upper and lower case. Off is tercom's default, which "
        "reproduces published HTER.",
    )
    ter_normalized = models.BooleanField(
        default=False,
        help_text="TER tokenises and normalises punctuation first (tercom -N). Off is "
        "tercom's default.",
    )
    gold_editor = models.CharField(
        max_length=200,
        blank=True,
        help_text="The editor id (of imported post-edits) whose edits are the professional "
        "gold edits: they weight the other editors and rank documents (003). Empty: none.",
    )

    class Meta:
        verbose_name = "post-editing settings"
        verbose_name_plural = "post-editing settings"

    def clean(self) -> None:
        if self.segments_per_hit is not None and self.segments_per_hit > MAX_SEGMENTS_PER_HIT:
            raise ValidationError(
                {
                    "segments_per_hit": f"Post-editing HITs hold at most {MAX_SEGMENTS_PER_HIT} "
                    "segments (003): a worker edits one run of a document in one sitting."
                }
            )

    @property
    def shows_source(self) -> bool:
        return self.mode == PostEditingMode.BILINGUAL
