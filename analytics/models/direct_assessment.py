"""Direct assessment's stored results: the campaign's result, its workers' reliability and
its systems' scores."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from campaigns.models import Campaign, ReliabilityTest, System
from judgments.models import Worker


class CampaignResult(models.Model):
    """When a campaign's statistics were computed, and over what.

    ``computed_at`` is the moment the judgments were read (taken before loading), so a
    judgment submitted during the computation is newer than the result and the periodic sweep
    sees it. ``n_judgments`` counts every judgment with a score that was read (the worker
    table's basis); ``n_scored_judgments`` those left for system scores after dropping
    excluded workers and rejected assignments. ``reliability_test`` and ``reliability_alpha``
    are the campaign's settings used; the sweep recomputes when they no longer match.

    ``details`` holds, per variant ("reliable" and "all"), what does not fit a row per system:
    ``systems`` (system ids, best first), ``p_greater`` (the one-sided Wilcoxon rank-sum
    p-value of "row system beats column system", null on the diagonal), ``marks`` ("*", "**",
    "***" for p below 0.05, 0.01, 0.001), ``clusters`` and ``agreement`` (2013 Tables 1-3:
    same-judge and distinct-judge pairs with their kappas).
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="da_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(help_text="Scored judgments the result reflects.")
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, judgments counted in system scores (not from excluded workers or "
        "rejected assignments)."
    )
    n_rejected_judgments = models.PositiveIntegerField(
        default=0, help_text="Of those, judgments in rejected assignments."
    )
    n_workers = models.PositiveIntegerField()
    n_unmatched_controls = models.PositiveIntegerField(
        default=0, help_text="Control items whose controlled output was never judged."
    )
    reliability_test = models.CharField(max_length=16, choices=ReliabilityTest.choices)
    reliability_alpha = models.DecimalField(max_digits=4, decimal_places=3)
    # The campaign's other result settings used (DirectAssessmentSettings); the sweep
    # recomputes when they no longer match (issue 12).
    score_averaging = models.CharField(max_length=16, default="segments")
    significance_unit = models.CharField(max_length=16, default="segments")
    workers_counted = models.CharField(max_length=16, default="reliable")
    min_score_sd = models.DecimalField(max_digits=5, decimal_places=2, default=1)
    min_seconds_per_item = models.DecimalField(max_digits=5, decimal_places=2, default=2)
    assumption_a_share = models.FloatField(
        null=True,
        blank=True,
        help_text="Share of reliable workers whose first and repeat scores do not differ "
        "significantly (2014 Assumption A); empty when no worker could be tested.",
    )
    compute_seconds = models.FloatField(
        default=0.0, help_text="Time spent loading and computing (not storing)."
    )
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return f"Results of {self.campaign} at {self.computed_at:%Y-%m-%d %H:%M:%S}"

    def variant(self, include_unreliable: bool) -> dict:
        return self.details.get(variant_key(include_unreliable), {})


def variant_key(include_unreliable: bool) -> str:
    return "all" if include_unreliable else "reliable"


class Recommendation(models.TextChoices):
    """What the requester is advised to do with a worker's work (001: the 2014 paper pays
    workers who fail the reliability test unless they clearly clicked at random; the
    requester decides, the system only recommends)."""

    APPROVE = "approve", "Approve (reliable)"
    PAY = "pay", "Approve, leave out of scores (unreliable, but not clearly random)"
    REJECT = "reject", "Consider rejecting (clearly not working)"
    WAIT = "wait", "Wait (too few control pairs to tell)"


class WorkerStat(models.Model):
    """One worker's quality control in one campaign, over all of their judgments there.

    The figures are :class:`analytics.stats.direct_assessment.WorkerQC`'s. ``excluded`` and
    ``n_rejected_judgments`` record what kept some or all of the worker's judgments out of
    the system scores when the result was computed.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="worker_stats")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="campaign_stats")
    n_judgments = models.PositiveIntegerField()
    test = models.CharField(max_length=16, choices=ReliabilityTest.choices)
    p_value = models.FloatField(null=True, blank=True)
    reliable = models.BooleanField()
    reason = models.CharField(
        max_length=200, blank=True, help_text="Why the test could not run normally, if so."
    )
    n_pairs = models.PositiveIntegerField(help_text="Pairs that entered the deciding test.")
    n_bad_ref_pairs = models.PositiveIntegerField()
    n_repeat_pairs = models.PositiveIntegerField()
    mean_seconds = models.FloatField(
        null=True, blank=True, help_text="Mean seconds per judgment; empty when never timed."
    )
    assumption_a_p = models.FloatField(null=True, blank=True)
    assumption_a_holds = models.BooleanField(null=True, blank=True)
    excluded = models.BooleanField(
        default=False, help_text="Excluded by the requester: left out of every score."
    )
    n_rejected_judgments = models.PositiveIntegerField(
        default=0, help_text="Judgments in rejected assignments: left out of every score."
    )
    recommendation = models.CharField(max_length=16, choices=Recommendation.choices)
    recommendation_reason = models.CharField(
        max_length=200,
        blank=True,
        help_text="Why rejection is recommended (constant scores, too fast, random clicking); "
        "empty for the other recommendations.",
    )

    class Meta:
        ordering = ["campaign", "reliable", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "worker"], name="worker_stat_unique"),
            models.CheckConstraint(
                condition=Q(p_value__isnull=True) | Q(p_value__gte=0, p_value__lte=1),
                name="worker_stat_p_value_0_1",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}"


class SystemScore(models.Model):
    """One system's score in one campaign: mean raw score and mean z over its outputs and
    repeats (WMT's Ave raw and Ave z: segment means first, by default; the flat mean of 2014
    Table 3 as an option), its cluster and rank range (WMT), for one variant.

    ``include_unreliable`` False: over reliable workers only (the default view);
    True: over every worker. Excluded workers and rejected assignments count in neither.
    ``position`` is the 1-based order by mean z, best first.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="system_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="scores")
    include_unreliable = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    n = models.PositiveIntegerField(help_text="Judgments of its outputs (repeats included).")
    n_segments = models.PositiveIntegerField(
        default=0, help_text="Distinct segments of its outputs that were judged."
    )
    mean_score = models.FloatField(
        null=True,
        blank=True,
        help_text="Ave raw: mean raw score (of segment means, or over judgments, as the "
        "campaign's settings say); empty for judgments imported as standardised z-scores "
        "(Judgment.given_z), which have no raw score.",
    )
    mean_z = models.FloatField(help_text="Ave z, averaged as mean_score.")
    cluster = models.PositiveSmallIntegerField()
    rank_best = models.PositiveSmallIntegerField()
    rank_worst = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "include_unreliable", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "include_unreliable"], name="system_score_unique"
            ),
            models.UniqueConstraint(
                fields=["campaign", "include_unreliable", "position"],
                name="system_score_unique_position",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system}: {self.mean_z:+.3f}"

    @property
    def rank_range(self) -> str:
        if self.rank_best == self.rank_worst:
            return str(self.rank_best)
        return f"{self.rank_best}–{self.rank_worst}"
