"""Ranking's settings: sets, gold units, trust, the untrusted cut-off, the qualification
test's size and how redundant rankings are combined (000 section 4; 002 sections 3-4)."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from campaigns.kinds import KindSettings


class GoldScheme(models.TextChoices):
    """Ranking gold units (002 section 4)."""

    BEST_ONLY = "best_only", "Best only: the gold output must be ranked first"
    BEST_WORST = "best_worst", "Best and worst: gold in the top two, known worst in the bottom two"


class RankingCombination(models.TextChoices):
    """How redundant rankings of the same set become system scores (000 section 4)."""

    NONE = "none", "Score every worker's ranking (WMT practice)"
    SCHULZE = "schulze", "Combine each set's rankings with Schulze's method, then score"
    SCHULZE_PEERS = (
        "schulze_peers",
        ("Schulze, votes weighted by each worker's agreement with the other workers"),
    )
    SCHULZE_GOLD = (
        "schulze_gold",
        ("Schulze, votes weighted by each worker's agreement with gold on their first 10"),
    )


class RankingMethod(models.TextChoices):
    """How a ranking campaign's systems are scored (METHODS.md section 1); every method is
    computed and stored (``analytics.models.RankingScore``), the campaign's ``rank_by`` says
    which one ranks the systems. Kept here, with the settings that choose among them; the
    analytics app re-exports it."""

    WIN_RATIO_GEQ = "win_ratio_geq", "Win ratio, ties count as wins (000, WMT08)"
    WIN_RATIO_GT = "win_ratio_gt", "Win ratio, ties do not count (002)"
    # WMT12's official "> others": wins / (wins + losses), ties out of the denominator.
    WIN_RATIO_WMT12 = "win_ratio_wmt12", "Win ratio, ties left out: wins / (wins + losses) (WMT12)"
    EXPECTED_WINS = "expected_wins", "Expected Wins (WMT13)"
    BRADLEY_TERRY = "bradley_terry", "Bradley-Terry log-strength"
    TRUESKILL = "trueskill", "TrueSkill mu (WMT14 settings)"


# What WMT's relative-ranking files call the human reference when they rank it with the systems
# (WMT13-14's "_ref"; Appraise's exports "ref"), compared without case.
REFERENCE_NAMES = ("_ref", "ref")


def is_reference_name(name: str) -> bool:
    """Whether a system name marks the human reference: ``_ref`` or ``ref`` as the whole name
    or as one of its dot-separated parts (WMT's ids read ``newstest2013.fr-en.<system>``)."""
    lowered = name.strip().lower()
    return lowered in REFERENCE_NAMES or any(part in REFERENCE_NAMES for part in lowered.split("."))


class RankingSettings(KindSettings):
    """A ranking campaign's sets, gold units, trust and automatic pause."""

    campaign = models.OneToOneField(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="ranking_settings",
    )
    outputs_per_set = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(2), MaxValueValidator(10)],
        help_text="Outputs in one ranking set (5 in WMT/000, 4 in 002).",
    )
    sets_per_hit = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Ranking sets per HIT page (3 in 002).",
    )
    gold_rate = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.100"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("0.5"))],
        help_text="Share of ranking sets that are gold units (about 10% in 002).",
    )
    gold_scheme = models.CharField(
        max_length=16, choices=GoldScheme.choices, default=GoldScheme.BEST_ONLY
    )
    trust_min_gold = models.PositiveSmallIntegerField(
        default=4,
        validators=[MinValueValidator(1)],
        help_text="Gold units a worker must have seen before trust is decided (4 in 002).",
    )
    trust_min_accuracy = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.700"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Share of gold units a worker must get right to stay trusted (70% in 002).",
    )
    takedown_untrusted_share = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Pause the campaign when the share of untrusted workers passes this. "
        "Blank: never pause automatically.",
    )
    takedown_min_workers = models.PositiveSmallIntegerField(
        default=10, help_text="Automatic pausing is only considered after this many workers."
    )
    qualification_sets = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Training sets in the qualification test.",
    )
    gold_count = models.PositiveSmallIntegerField(
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(10000)],
        help_text="Segments chosen automatically as gold units (the top 30 in 002).",
    )
    ranking_combination = models.CharField(
        max_length=16,
        choices=RankingCombination.choices,
        default=RankingCombination.NONE,
        help_text="How the redundant rankings of a set become system scores (000).",
    )
    gold_best_system = models.ForeignKey(
        "campaigns.System",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The best system, which an automatic gold translation must beat "
        "(002: the oracle-best system). Not needed when gold answers are given per segment.",
    )
    gold_worst_system = models.ForeignKey(
        "campaigns.System",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Best-and-worst gold: the system whose output is the known worst.",
    )

    rank_by = models.CharField(
        max_length=16,
        choices=RankingMethod.choices,
        default=RankingMethod.EXPECTED_WINS,
        help_text="The score that ranks the systems in the results, the API and the exports "
        "(every score is computed and shown): WMT08-11 ranked by ties-as-wins, WMT12 by "
        "'> others' with ties left out, WMT13 by Expected Wins, WMT14-16 by TrueSkill.",
    )
    reference_system = models.CharField(
        max_length=200,
        blank=True,
        help_text="The system that is the human reference ranked with the systems (WMT's files "
        "call it _ref or ref; imports fill this in). Blank: none.",
    )
    exclude_reference = models.BooleanField(
        default=True,
        help_text="Leave the reference out of the system table and of every other system's "
        "comparisons (as WMT's tables do). Off: the reference is scored like a system.",
    )

    class Meta:
        verbose_name = "ranking settings"
        verbose_name_plural = "ranking settings"

    def clean(self) -> None:
        errors: dict[str, str] = {}
        # On the admin's Add page the settings are checked before their campaign is saved:
        # the one-to-one key is then still empty, and there are no systems to check against.
        campaign = self.campaign if self.campaign_id is not None else None
        systems = campaign.systems if campaign is not None else None
        if systems is not None:
            count = systems.count()
            if count and self.outputs_per_set > count:
                errors["outputs_per_set"] = (
                    f"A ranking set shows outputs of different systems, and this campaign has "
                    f"{count}; use at most {count}."
                )
        self.reference_system = self.reference_system.strip()
        if (
            self.reference_system
            and systems is not None
            and systems.exists()
            and not systems.filter(name=self.reference_system).exists()
        ):
            errors["reference_system"] = (
                f'This campaign has no system named "{self.reference_system}"; name one of its '
                "systems, or leave it blank."
            )
        for field in ("gold_best_system", "gold_worst_system"):
            chosen = getattr(self, field)
            if chosen is not None and chosen.campaign_id != self.campaign_id:
                errors[field] = "Choose a system of this campaign."
        if self.gold_best_system_id and self.gold_worst_system_id == self.gold_best_system_id:
            errors["gold_worst_system"] = (
                "The gold worst system cannot also be the gold best system: choose another one, "
                "or none."
            )
        if errors:
            raise ValidationError(errors)
