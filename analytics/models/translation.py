"""Crowd translation's stored results (issue 15; ``analytics.kinds.translation``): one
:class:`TranslationResult` per campaign, one :class:`TranslationStat` per translation (its
flags, votes, similarity to the MT outputs, BLEU), one :class:`TranslationWorkerStat` per
worker, one :class:`TranslationKeptSegment` per sentence (the kept translation, its
correction and the test set's text) and one :class:`TranslationSystemScore` per imported
system and test set (004's percentage of baseline)."""

from __future__ import annotations

from django.db import models

from campaigns.models import Campaign, Segment, System
from judgments.models import Judgment, Worker


class TranslationTestSet(models.TextChoices):
    PROFESSIONAL = "professional", "Professional references"
    CROWD = "crowd", "Crowd test set (corrected: 004's MTurk-Edited)"
    CROWD_RAW = "crowd_raw", "Crowd test set before correction (004's MTurk-NoEditing)"


class TranslationResult(models.Model):
    """When a translation campaign's statistics were computed, over what, and the kept test
    set's scores against the professional references (sacrebleu; ``*_signature``).

    ``n_judgments`` counts the translations, Detect-MT votes and corrections read (the sweep
    compares it), ``n_scored_judgments`` those of submitted or approved assignments that are
    not held back. ``testset_*``: the kept test set (corrected text where there is one);
    ``raw_*``: the kept translations before correction. ``details``: the baseline system,
    exclusions made by this run, settings used.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="translation_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(
        help_text="Translations, Detect-MT votes and corrections read."
    )
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, in submitted or approved assignments that count."
    )
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    n_workers = models.PositiveIntegerField()
    n_translations = models.PositiveIntegerField(default=0)
    n_votes = models.PositiveIntegerField(default=0)
    n_corrections = models.PositiveIntegerField(default=0)
    n_flagged = models.PositiveIntegerField(default=0)
    n_segments = models.PositiveIntegerField(default=0, help_text="Sentences of the campaign.")
    n_kept = models.PositiveIntegerField(default=0, help_text="Sentences with a kept translation.")
    n_final = models.PositiveIntegerField(
        default=0, help_text="Of those, final (chosen, or every translation in and settled)."
    )
    n_to_correct = models.PositiveIntegerField(default=0)
    n_corrected = models.PositiveIntegerField(default=0)
    n_excluded = models.PositiveIntegerField(default=0, help_text="Translators excluded now.")
    similarity_metric = models.CharField(max_length=8)
    similarity_threshold = models.FloatField()
    similarity_signature = models.CharField(max_length=200)
    exclusion_rate = models.FloatField()
    bleu_signature = models.CharField(max_length=200, blank=True)
    chrf_signature = models.CharField(max_length=200, blank=True)
    testset_bleu = models.FloatField(null=True, blank=True)
    testset_chrf = models.FloatField(null=True, blank=True)
    raw_bleu = models.FloatField(null=True, blank=True)
    raw_chrf = models.FloatField(null=True, blank=True)
    n_testset_scored = models.PositiveIntegerField(
        default=0, help_text="Kept sentences with professional references (scored)."
    )
    baseline = models.ForeignKey(
        System, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    compute_seconds = models.FloatField(default=0.0)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return f"Translation results of {self.campaign_id} at {self.computed_at:%Y-%m-%d %H:%M}"


class TranslationStat(models.Model):
    """One translation (a judgment on a translation slot) as the last run saw it."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="translation_stats"
    )
    judgment = models.OneToOneField(
        Judgment, on_delete=models.CASCADE, related_name="translation_stat"
    )
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="+")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="+")
    counted = models.BooleanField(
        help_text="In a submitted or approved assignment that is not held back."
    )
    mt_similarity = models.FloatField(null=True, blank=True)
    mt_system = models.ForeignKey(
        System, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    similar = models.BooleanField(default=False)
    machine_votes = models.PositiveSmallIntegerField(default=0)
    human_votes = models.PositiveSmallIntegerField(default=0)
    vote_places = models.PositiveSmallIntegerField(default=0)
    detected = models.BooleanField(default=False)
    flagged = models.BooleanField(default=False)
    decided = models.BooleanField(default=False)
    eligible = models.BooleanField(default=False)
    consensus = models.FloatField(null=True, blank=True)
    kept = models.BooleanField(default=False)
    bleu = models.FloatField(null=True, blank=True)
    chrf = models.FloatField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["campaign", "segment"])]

    def __str__(self) -> str:
        return f"Translation {self.judgment_id}"


class TranslationWorkerStat(models.Model):
    """One worker of a translation campaign: their translations' flags and BLEU against the
    professional references (000 Figure 4), votes and corrections. ``auto_excluded``: the
    recompute excluded them once (kept across runs, so a requester's readmission stands)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="translation_worker_stats"
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="translation_stats")
    n_translations = models.PositiveIntegerField(default=0)
    n_decided = models.PositiveIntegerField(default=0)
    n_flagged = models.PositiveIntegerField(default=0)
    flag_rate = models.FloatField(null=True, blank=True)
    n_votes = models.PositiveIntegerField(default=0)
    n_corrections = models.PositiveIntegerField(default=0)
    n_kept = models.PositiveIntegerField(default=0)
    bleu = models.FloatField(null=True, blank=True)
    chrf = models.FloatField(null=True, blank=True)
    n_scored = models.PositiveIntegerField(
        default=0, help_text="Translations with professional references (BLEU's segments)."
    )
    excluded = models.BooleanField(default=False)
    auto_excluded = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "worker"], name="translation_worker_stat_unique"
            )
        ]

    def __str__(self) -> str:
        return f"Worker {self.worker_id} in {self.campaign_id}"


class TranslationKeptSegment(models.Model):
    """A sentence's kept translation: ``how`` it was chosen, whether for good (``final``), its
    kept correction, and ``text``, what the test set holds (the correction's text, else the
    translation's); ``raw_text`` is the translation's."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="translation_kept"
    )
    segment = models.OneToOneField(Segment, on_delete=models.CASCADE, related_name="+")
    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="+")
    how = models.CharField(max_length=16)
    final = models.BooleanField(default=False)
    correction = models.ForeignKey(
        Judgment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    text = models.TextField()
    raw_text = models.TextField()
    n_translations = models.PositiveSmallIntegerField(default=0)
    n_eligible = models.PositiveSmallIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["campaign"])]

    def __str__(self) -> str:
        return f"Kept translation of segment {self.segment_id}"


class TranslationSystemScore(models.Model):
    """An imported system's corpus BLEU and chrF on one test set, and 004's percentage of the
    baseline system's BLEU on that test set. ``position``: the order of the system table (by
    BLEU on the professional references, else on the crowd test set)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="translation_system_scores"
    )
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="translation_scores")
    test_set = models.CharField(max_length=16, choices=TranslationTestSet.choices)
    position = models.PositiveSmallIntegerField()
    bleu = models.FloatField()
    chrf = models.FloatField()
    n_segments = models.PositiveIntegerField()
    percent_of_baseline = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["campaign", "position", "test_set"]
        constraints = [
            models.UniqueConstraint(
                fields=["system", "test_set"], name="translation_system_score_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.system} on {self.test_set}: BLEU {self.bleu:.2f}"
