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


class ScoreAveraging(models.TextChoices):
    """How a system's judgments become its score (METHODS.md section 2)."""

    SEGMENTS = "segments", "Mean of segment means: WMT's Ave z and Ave raw (WMT16 on)"
    JUDGMENTS = "judgments", "Flat mean over judgments (2014 paper, Table 3)"


class SignificanceUnit(models.TextChoices):
    """What the pairwise Wilcoxon rank-sum tests between systems compare."""

    SEGMENTS = "segments", "Segment-mean z-scores (WMT's official test)"
    JUDGMENTS = "judgments", "Per-judgment z-scores"


class WorkersCounted(models.TextChoices):
    """Whose judgments make the default system table (issue 12)."""

    RELIABLE = "reliable", "Reliable workers only (the judgments carry quality-control items)"
    EVERYONE = (
        "everyone",
        (
            "Every worker: the judgments were filtered before (e.g. WMT's good files) or carry no "
            "quality-control items"
        ),
    )


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
    score_averaging = models.CharField(
        max_length=16,
        choices=ScoreAveraging.choices,
        default=ScoreAveraging.SEGMENTS,
        help_text="WMT's official system score averages each segment's judgments first.",
    )
    significance_unit = models.CharField(
        max_length=16,
        choices=SignificanceUnit.choices,
        default=SignificanceUnit.SEGMENTS,
        help_text="The one-sided Wilcoxon rank-sum test between two systems compares these.",
    )
    workers_counted = models.CharField(
        max_length=16,
        choices=WorkersCounted.choices,
        default=WorkersCounted.RELIABLE,
        help_text="Whose judgments the default system table counts. Choose every worker for "
        "imported judgments that were already filtered or that have no bad references, which "
        "the reliability test needs.",
    )
    # A worker whose raw scores hardly vary is not judging: "hardly vary" = the sample sd of
    # all of their raw scores (every role, over at least MIN_JUDGMENTS_FOR_SPREAD judgments)
    # below this. One point on the 100-point slider: a worker who leaves the slider at 70 has
    # sd 0, one who nudges it between 69 and 71 about 0.8; a worker who reads the items cannot
    # stay that still, since every HIT holds bad references and references whose quality
    # differs by tens of points from typical outputs (001: bad references score 20-30 points
    # lower for reliable workers), so genuine workers' sds are in the tens.
    min_score_sd = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("1.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("50"))],
        help_text="Recommend rejecting a worker whose raw scores have a standard deviation "
        "below this (0-100 scale; 0 turns the check off).",
    )
    # An absolute speed floor: two seconds per item. An item shows at least one sentence to
    # read (the output; in adequacy also the reference): a WMT news sentence averages about 25
    # words, which takes about 2.5 s even skimmed at 600 words a minute, before the slider is
    # moved and the item submitted. A worker averaging under 2 s per item cannot have read the
    # items (2013 Figure 4: random clickers are the fast ones).
    min_seconds_per_item = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        default=Decimal("2.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("600"))],
        help_text="Recommend rejecting a worker whose mean seconds per item are below this "
        "(0 turns the check off).",
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
        # The builder's own rule (issue 17: the form refuses the sizes the builder refuses).
        from campaigns.builders.direct_assessment import hit_size_problem

        problem = "" if self.items_per_hit is None else hit_size_problem(self.items_per_hit)
        if problem:
            raise ValidationError({"items_per_hit": problem})
