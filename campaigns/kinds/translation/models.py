"""Crowd translation's settings and the requester's choices (METHODS.md section 6; 000 section
5.1, 004).

Translators per sentence is the campaign's redundancy (every translation HIT is handed to that
many distinct workers; 5 in 000). One campaign runs up to three HIT tasks:

1. ``translate``: a run of consecutive source sentences of one document (10 in 000), shown as
   images (004's defence against pasting into an online MT system) or as text;
2. ``detect_mt``: other workers see a source and a crowd translation and say whether it looks
   machine made (000's "Detect MT" HIT); built by the recompute from each submitted
   translation assignment; translators flagged at least ``detect_mt_exclusion_rate`` of the
   time are excluded (000: 30%);
3. ``post_edit`` (optional, 004's second pass): other workers fix typos and grammar of the kept
   translations on the post-editing page; the corrected text is what the test set holds.

The translation kept per sentence is the requester's choice (:class:`TranslationChoice`)
where there is one, else chosen by ``selection_method``. For the choice by ranking, a ranking
campaign shows each sentence's eligible translations as the outputs of "systems" (one per
translator); :class:`RankedTranslation` says which translation each of its outputs is (and so
which campaign is the ranking campaign of a translation campaign: deleting it deletes them).
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings as django_settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings


class SimilarityMetric(models.TextChoices):
    CHRF = "chrf", "chrF (sacrebleu, character n-grams)"
    BLEU = "bleu", "BLEU (sacrebleu, sentence level, exponential smoothing)"


class SelectionMethod(models.TextChoices):
    CONSENSUS = "consensus", "Most similar to the other translations of the sentence (chrF)"
    DETECT_MT = "detect_mt", "Fewest 'machine made' votes, then most similar to the others"
    BEST_RANKED = "best_ranked", "Best ranked in the ranking campaign over the translations"
    REQUESTER = "requester", "Only the requester's choice in the admin"


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
        help_text="Consecutive source sentences of one document per HIT (10 in 000). A "
        "document longer than this is cut into runs of nearly equal length.",
    )
    source_as_image = models.BooleanField(
        default=True,
        help_text="Show each source sentence as an image rendered on the server, so that it "
        "cannot be copied into an online MT system (004). Off: shown as text.",
    )
    source_font_size = models.PositiveSmallIntegerField(
        default=24,
        validators=[MinValueValidator(12), MaxValueValidator(64)],
        help_text="Font size of the source images, in pixels.",
    )
    detect_mt_voters = models.PositiveSmallIntegerField(
        # 000 does not say how many workers judged each translation; three is the smallest odd
        # number that gives a majority other than one worker's word (as for post-edit
        # verification).
        default=3,
        validators=[MaxValueValidator(15)],
        help_text="Workers who judge each translation in a Detect-MT HIT (does it look "
        "machine made?); a translation is flagged by majority. 0: no Detect-MT HITs. 000 does "
        "not give the number; 3 by default.",
    )
    detect_mt_exclusion_rate = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.300"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Translators whose translations are flagged at least this share of the "
        "time are excluded: their translations are never kept and they get no more "
        "translation HITs (000: 30%).",
    )
    mt_similarity_metric = models.CharField(
        max_length=8,
        choices=SimilarityMetric.choices,
        default=SimilarityMetric.CHRF,
        help_text="How a translation is compared with the MT outputs imported with the "
        "segments (sacrebleu; signature stored with the results).",
    )
    mt_similarity_threshold = models.DecimalField(
        # The papers flag pasted MT by hand (004) or by other workers (000); an automatic
        # threshold is ours. A chrF of 90 is far above what two independent human
        # translations of one sentence reach (typically 40-70) and is met by an MT output
        # pasted with a few touches.
        max_digits=5,
        decimal_places=2,
        default=Decimal("90.00"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
        help_text="A translation whose similarity (0-100) to any imported MT output of its "
        "sentence is at least this is flagged as pasted machine translation (counted like a "
        "Detect-MT flag). Not in the papers: 90 by default.",
    )
    selection_method = models.CharField(
        max_length=16,
        choices=SelectionMethod.choices,
        default=SelectionMethod.CONSENSUS,
        help_text="How the translation kept for the test set is chosen among a sentence's "
        "translations when you have not chosen one in the admin. Flagged translations and "
        "those of excluded translators are never chosen automatically.",
    )
    correction_pass = models.BooleanField(
        default=False,
        help_text="Second pass (004): other workers fix typos and grammar of the kept "
        "translations on the post-editing page; the test set holds the corrected text.",
    )
    correctors_per_translation = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(5)],
        help_text="Workers who correct each kept translation (004: one). With more than one, "
        "the correction closest to the others is kept.",
    )
    # Pay per task (each task is its own HIT type with its own pay; 000 paid $0.10 a sentence
    # to translate, $0.006 a judgment to detect MT; 004 $0.25 per ten sentences to correct).
    detect_mt_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for a Detect-MT HIT, in US dollars (empty: the campaign's reward).",
    )
    correction_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for a correction HIT, in US dollars (empty: the campaign's reward).",
    )

    class Meta:
        verbose_name = "translation settings"
        verbose_name_plural = "translation settings"

    def reward_of(self, task: str):
        """The pay of one assignment of a task's HIT (``HitTask`` value); None: the campaign's
        reward."""
        return {
            "translate": None,
            "detect_mt": self.detect_mt_reward,
            "post_edit": self.correction_reward,
        }[task]


class TranslationChoice(models.Model):
    """The requester's choice of the translation kept for one sentence (a Segment) of a
    translation campaign: it overrides the automatic selection."""

    segment = models.OneToOneField(
        "campaigns.Segment", on_delete=models.CASCADE, related_name="translation_choice"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="translation_choices"
    )
    judgment = models.ForeignKey(
        "judgments.Judgment",
        on_delete=models.PROTECT,
        related_name="chosen_for",
        help_text="The translation (a judgment on a translation slot of this segment).",
    )
    chosen_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    chosen_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "chosen translation"
        indexes = [models.Index(fields=["campaign"])]

    def __str__(self) -> str:
        return f"Translation kept for segment {self.segment_id}: judgment {self.judgment_id}"


class RankedTranslation(models.Model):
    """An output of the ranking campaign over a translation campaign's translations: which
    crowd translation it is (the selection by ranking maps the rankings back through it). A
    translation campaign has at most one ranking campaign: the campaign of these outputs."""

    output = models.OneToOneField(
        "campaigns.Output", on_delete=models.CASCADE, related_name="ranked_translation"
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        related_name="ranked_translations",
        help_text="The translation campaign.",
    )
    judgment = models.ForeignKey(
        "judgments.Judgment",
        on_delete=models.CASCADE,
        related_name="ranked_as",
        help_text="The translation (a judgment on a translation slot of the campaign).",
    )

    class Meta:
        verbose_name = "ranked translation"
        indexes = [models.Index(fields=["campaign"])]

    def __str__(self) -> str:
        return f"Output {self.output_id} ranks translation {self.judgment_id}"


def ranking_campaign_of(campaign) -> models.Model | None:
    """The ranking campaign over ``campaign``'s translations (the campaign of its
    :class:`RankedTranslation` outputs), or None (one query)."""
    from campaigns.models import Campaign  # campaigns.models imports the kinds' models

    return (
        Campaign.objects.filter(segments__outputs__ranked_translation__campaign=campaign)
        .distinct()
        .first()
    )
