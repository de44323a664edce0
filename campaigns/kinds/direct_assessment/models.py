"""Direct assessment's settings (001: Graham et al. 2013, 2014; METHODS.md section 2)."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings


class AssessmentMode(models.TextChoices):
    """Direct assessment: fluency shows no reference; adequacy shows the reference in gray
    (001, 2014 section 2). Fluency and adequacy are separate campaigns."""

    FLUENCY = "fluency", "Fluency (no reference shown)"
    ADEQUACY = "adequacy", "Adequacy (reference shown in gray)"


class Degradation(models.TextChoices):
    """How an adequacy bad reference is made (METHODS.md section 2)."""

    DELETE = "delete", "Delete a run of words (2014 paper)"
    REPLACE = "replace", "Replace a run of words with a phrase from another reference (WMT)"


class ReliabilityTest(models.TextChoices):
    WILCOXON = "wilcoxon", "Wilcoxon signed-rank, bad references vs their outputs (WMT)"
    PAIRED_T = "paired_t", "Paired t-test, bad references vs their outputs (2014)"
    WELCH = "welch", "Welch's t-test, repeat vs bad-reference differences (2013)"
    MANN_WHITNEY = "mann_whitney", "Mann-Whitney U, repeat vs bad-reference differences (2013)"


class DirectAssessmentSettings(KindSettings):
    """A direct-assessment campaign's mode, HIT layout and quality control."""

    campaign = models.OneToOneField(
        "campaigns.Campaign", on_delete=models.CASCADE, primary_key=True, related_name="da_settings"
    )
    # No default: fluency and adequacy are different evaluations (separate campaigns), so the
    # requester chooses.
    assessment_mode = models.CharField(
        max_length=16,
        choices=AssessmentMode.choices,
        error_messages={"blank": "Choose fluency or adequacy for direct assessment."},
        help_text="Fluency shows no reference; adequacy shows the reference in gray.",
    )
    items_per_hit = models.PositiveSmallIntegerField(
        default=100,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        help_text="Slider items per HIT (100 in the 2014 design).",
    )
    degradation = models.CharField(
        max_length=16, choices=Degradation.choices, default=Degradation.DELETE
    )
    reliability_test = models.CharField(
        max_length=16, choices=ReliabilityTest.choices, default=ReliabilityTest.WILCOXON
    )
    reliability_alpha = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.050"),
        validators=[MinValueValidator(Decimal("0.001")), MaxValueValidator(Decimal("0.5"))],
        help_text="A worker is reliable when the reliability test gives p below this.",
    )

    class Meta:
        verbose_name = "direct-assessment settings"
        verbose_name_plural = "direct-assessment settings"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(assessment_mode__in=AssessmentMode.values),
                name="da_settings_mode_valid",
            ),
        ]

    def clean(self) -> None:
        if self.items_per_hit is not None and self.items_per_hit % 10:
            raise ValidationError(
                {
                    "items_per_hit": "Direct assessment HITs are built of sets of 10 items "
                    "(2014 design); use a multiple of 10, normally 100."
                }
            )
