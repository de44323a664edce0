"""Ranking's stored results and the requester's reference ranking and oracle."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

# How a ranking campaign's systems are scored: defined with the ranking settings that choose
# one of them, imported from there by everything that reads the stored results.
from campaigns.kinds.ranking.models import RankingMethod
from campaigns.models import Campaign, GoldScheme, System
from judgments.models import Worker


class TrustStatus(models.TextChoices):
    """A worker's trust from gold units (002 section 4.1)."""

    TRUSTED = "trusted", "Trusted"
    UNTRUSTED = "untrusted", "Untrusted"
    UNDECIDED = "undecided", "Undecided (too few gold units)"


class RankingResult(models.Model):
    """When a ranking campaign's statistics were computed, over what, and what they decided.

    ``computed_at`` is taken before loading (as for :class:`CampaignResult`). ``n_judgments``
    counts every judgment with a rank that was read, qualification tests included (the
    sweep compares it with the database); ``n_scored_judgments`` those counted in the default
    scores (no qualification test, rejected assignment, excluded or untrusted worker).
    ``gold_scheme``, ``trust_min_gold`` and ``trust_min_accuracy`` are the campaign's
    settings used; the sweep recomputes when they no longer match.

    ``takedown_reason`` is this computation's auto-takedown verdict (empty: keep running).
    ``auto_paused_at`` / ``auto_paused_untrusted`` remember the last automatic pause and how
    many workers were untrusted then: a campaign the requester reactivated is paused again
    only when more workers have failed since (``analytics.kinds.ranking.actions``).

    ``details`` holds, per variant ("trusted" and "all"), what does not fit a row per system:
    agreement figures, Spearman's rho per method against the requester's reference ranking,
    the bootstrap p-values, and the settings of the bootstrap and of TrueSkill.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="ranking_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(help_text="Ranked outputs the result reflects.")
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, ranked outputs counted in the default (trusted) scores."
    )
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    n_qualification_judgments = models.PositiveIntegerField(default=0)
    n_workers = models.PositiveIntegerField()
    n_ballots = models.PositiveIntegerField(help_text="Rankings of one set by one worker.")
    n_sets = models.PositiveIntegerField(help_text="Distinct ranking sets judged.")
    n_gold_units = models.PositiveIntegerField(help_text="Gold ballots judged.")
    n_trusted = models.PositiveIntegerField(default=0)
    n_untrusted = models.PositiveIntegerField(default=0)
    n_undecided = models.PositiveIntegerField(default=0)
    gold_scheme = models.CharField(max_length=16, choices=GoldScheme.choices)
    trust_min_gold = models.PositiveSmallIntegerField()
    trust_min_accuracy = models.DecimalField(max_digits=4, decimal_places=3)
    takedown_reason = models.TextField(blank=True)
    auto_paused_at = models.DateTimeField(null=True, blank=True)
    auto_paused_untrusted = models.PositiveIntegerField(null=True, blank=True)
    compute_seconds = models.FloatField(default=0.0)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return f"Ranking results of {self.campaign} at {self.computed_at:%Y-%m-%d %H:%M:%S}"

    def variant(self, include_untrusted: bool) -> dict:
        return self.details.get(trust_variant_key(include_untrusted), {})


def trust_variant_key(include_untrusted: bool) -> str:
    return "all" if include_untrusted else "trusted"


class RankingWorkerStat(models.Model):
    """One worker's gold units and trust in one ranking campaign (the trust table).

    ``gold_seen`` / ``gold_correct`` / ``accuracy`` / ``status`` are
    :func:`analytics.stats.ranking.gold_trust`'s over all of the worker's ranking sets in the
    campaign (qualification tests aside). ``flagged`` is ``CampaignWorker.untrusted`` after the
    computation (the hand-out gives a flagged worker nothing more); ``trust_override_gold_seen``
    records that a requester trusted the worker again after seeing that many gold units (the
    worker is not flagged again until more gold units come in). ``in_scores``: the worker's
    rankings count in the default scores.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="ranking_worker_stats"
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="ranking_stats")
    n_judgments = models.PositiveIntegerField(help_text="Ranked outputs.")
    n_ballots = models.PositiveIntegerField(help_text="Ranking sets ranked.")
    gold_seen = models.PositiveIntegerField()
    gold_correct = models.PositiveIntegerField()
    accuracy = models.FloatField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=TrustStatus.choices)
    flagged = models.BooleanField(
        default=False, help_text="Marked untrusted: gets no further assignment."
    )
    trust_override_gold_seen = models.PositiveIntegerField(null=True, blank=True)
    excluded = models.BooleanField(default=False)
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    in_scores = models.BooleanField()

    class Meta:
        ordering = ["campaign", "status", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "worker"], name="ranking_worker_stat_unique"
            ),
            models.CheckConstraint(
                condition=Q(gold_correct__lte=models.F("gold_seen")),
                name="ranking_worker_stat_correct_lte_seen",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}: {self.status}"


class RankingScore(models.Model):
    """One system's score by one method in one ranking campaign, for one variant.

    ``include_untrusted`` False: trusted and undecided workers only (the default view); True:
    every worker. Excluded workers, rejected assignments and qualification tests count in
    neither. ``score`` is the method's point estimate (NULL when the system has no
    comparison), ``ci_low`` / ``ci_high`` its bootstrap interval and ``rank_best`` /
    ``rank_worst`` its bootstrap rank range (WMT13), ``cluster`` its WMT-style significance
    cluster; TrueSkill has ``sigma`` instead, and its rank range is its rank by mu. ``n``,
    ``wins``, ``ties`` and ``losses`` are the system's pairwise comparisons.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ranking_scores")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="ranking_scores")
    method = models.CharField(max_length=16, choices=RankingMethod.choices)
    include_untrusted = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    score = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    sigma = models.FloatField(null=True, blank=True)
    n = models.PositiveIntegerField(help_text="Pairwise comparisons.")
    wins = models.PositiveIntegerField()
    ties = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()
    cluster = models.PositiveSmallIntegerField(null=True, blank=True)
    rank_best = models.PositiveSmallIntegerField()
    rank_worst = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "include_untrusted", "method", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "method", "include_untrusted"],
                name="ranking_score_unique",
            ),
            models.UniqueConstraint(
                fields=["campaign", "method", "include_untrusted", "position"],
                name="ranking_score_unique_position",
            ),
            models.CheckConstraint(
                condition=Q(method__in=RankingMethod.values), name="ranking_score_method_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system} ({self.method}): {self.score}"

    @property
    def rank_range(self) -> str:
        if self.rank_best == self.rank_worst:
            return str(self.rank_best)
        return f"{self.rank_best}–{self.rank_worst}"


class RankingReference(models.Model):
    """What the requester knows about a ranking campaign's systems from outside it.

    ``reference_ranking``: a ranking of the systems from elsewhere (e.g. experts, 000 Figure 3)
    for Spearman's rho against each method's scores. ``oracle``: systems known to be better
    than others (002's oracle, e.g. trained on a superset of the data) for the agreement of
    the workers' pairwise labels with it. Both are plain text typed in the campaign's admin
    page (syntax in the help texts, parsed by :func:`parse_reference_ranking` and
    :func:`parse_oracle`); names must be the campaign's system names. Saving it makes the
    stored results stale (``updated_at``).
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="ranking_reference", primary_key=True
    )
    reference_ranking = models.TextField(
        blank=True,
        help_text="A reference ranking of the systems (e.g. the experts'), for Spearman's rho: "
        "one system name per line, best first; systems that tie share a line, separated by "
        "' = '.",
    )
    oracle = models.TextField(
        blank=True,
        help_text="Known better systems (002's oracle), for the workers' agreement with it: one "
        "statement per line, 'X > Y' when X is known to be better than Y; chains such as "
        "'X > Y > Z' are allowed.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        # After delete() the primary key, the campaign's, is None; the admin's change message
        # still names the deleted row (it raised RelatedObjectDoesNotExist: a 500).
        return f"References of {self.campaign}" if self.campaign_id else "References"

    def clean(self) -> None:
        if not self.campaign_id:
            return
        names = dict(self.campaign.systems.values_list("name", "pk"))
        errors = {}
        for field, parse in (
            ("reference_ranking", parse_reference_ranking),
            ("oracle", parse_oracle),
        ):
            try:
                parse(getattr(self, field), names)
            except ReferenceTextError as error:
                errors[field] = str(error)
        if errors:
            raise ValidationError(errors)


class ReferenceTextError(ValueError):
    """A reference ranking or oracle text that does not parse; the message lists every problem
    by line and the campaign's system names."""

    def __init__(self, problems: list[str], names: Iterable[str]) -> None:
        known = ", ".join(sorted(names)) or "none yet"
        super().__init__(f"{' '.join(problems)} The campaign's systems are: {known}.")
        self.problems = problems


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if line and not line.startswith("#"):
            yield number, line


def _system_id(name: str, number: int, systems: Mapping[str, int], problems: list[str]):
    if not name:
        problems.append(f"Line {number} has an empty system name.")
        return None
    if name not in systems:
        problems.append(f"Line {number}: there is no system named '{name}' in this campaign.")
        return None
    return systems[name]


def parse_reference_ranking(text: str, systems: Mapping[str, int]) -> tuple[list[int], list[int]]:
    """``(system ids, ranks)`` from one name per line, best first, ties joined by '='.

    Ranks are competition ranks (1 = best; tied systems share the best rank of their line,
    the next line continues after them: "a = b" then "c" gives 1, 1, 3).
    """
    problems: list[str] = []
    ids: list[int] = []
    ranks: list[int] = []
    seen: dict[int, int] = {}
    for number, line in _lines(text):
        rank = len(ids) + 1
        for name in (part.strip() for part in line.split("=")):
            pk = _system_id(name, number, systems, problems)
            if pk is None:
                continue
            if pk in seen:
                problems.append(f"Line {number}: '{name}' is already ranked on line {seen[pk]}.")
                continue
            seen[pk] = number
            ids.append(pk)
            ranks.append(rank)
    if problems:
        raise ReferenceTextError(problems, systems)
    return ids, ranks


def parse_oracle(text: str, systems: Mapping[str, int]) -> list[list[int]]:
    """Orderings (each best first, as system ids) from lines 'X > Y' or 'X > Y > Z'.

    A line that contradicts an earlier one (or names a system twice) is an error."""
    problems: list[str] = []
    orderings: list[list[int]] = []
    declared: dict[tuple[int, int], int] = {}  # (better, worse) -> line
    for number, line in _lines(text):
        names = [part.strip() for part in line.split(">")]
        if len(names) < 2:
            problems.append(f"Line {number}: write 'X > Y' (X is better than Y), not '{line}'.")
            continue
        ids = [_system_id(name, number, systems, problems) for name in names]
        if any(pk is None for pk in ids):
            continue
        if len(set(ids)) != len(ids):
            problems.append(f"Line {number} names a system twice.")
            continue
        for i, better in enumerate(ids):
            for worse in ids[i + 1 :]:
                if (worse, better) in declared:
                    problems.append(
                        f"Line {number} contradicts line {declared[(worse, better)]} about "
                        f"'{names[ids.index(better)]}' and '{names[ids.index(worse)]}'."
                    )
                declared.setdefault((better, worse), number)
        orderings.append(ids)
    if problems:
        raise ReferenceTextError(problems, systems)
    return orderings
