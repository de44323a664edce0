"""Stored results of the statistics: what the dashboards read, never computed on a page view.

A direct-assessment campaign's results are one :class:`CampaignResult` (when, over how many
judgments, the settings used, and the pairwise significance and agreement as JSON), one
:class:`WorkerStat` per worker who judged in it and one :class:`SystemScore` per system and
variant (reliable workers only, the default, or every worker).

A ranking campaign's are one :class:`RankingResult` (counts, the gold settings used, the
auto-takedown verdict and memory, agreement and Spearman's rho as JSON), one
:class:`RankingWorkerStat` per worker (the trust table) and one :class:`RankingScore` per
system, scoring method and variant (trusted workers, the default, or every worker). They are
separate tables rather than a ``method`` column on :class:`SystemScore`: a ranking score has
an interval, a sigma and pairwise counts where a direct-assessment one has a mean raw score
and a mean z, so each table keeps NOT NULL columns that mean one thing. The requester's
:class:`RankingReference` (a reference ranking and an oracle, typed as text) is the only row
here that a person edits.

A post-editing campaign's are the TER numbers of every edit and output, computed once per
TER signature (:class:`PostEditScore`, :class:`PostEditOutputScore`), and from them one
:class:`PostEditingResult`, one :class:`PostEditingSystemScore` per system and variant and one
:class:`PostEditingWorkerStat` per worker (``analytics.kinds.post_editing``).

A reading-comprehension campaign's are one :class:`ReadingComprehensionResult`, the share
correct per system and variant (the human translation included, as the control:
:class:`ReadingComprehensionSystemScore`), per article and per question
(:class:`ReadingComprehensionBreakdown`), each question's difficulty
(:class:`ReadingComprehensionQuestionStat`) and one :class:`ReadingComprehensionWorkerStat`
per worker (``analytics.kinds.reading_comprehension``).

``analytics.actions`` replaces a campaign's results in one transaction, so a reader sees the
old result or the new one, never half of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

# How a ranking campaign's systems are scored: defined with the ranking settings that choose
# one of them, imported from there by everything that reads the stored results.
from campaigns.kinds.ranking.models import RankingMethod
from campaigns.kinds.reading_comprehension.models import RCQuestion
from campaigns.models import Campaign, GoldScheme, Output, ReliabilityTest, System
from judgments.models import Judgment, Worker


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


# --- Ranking ---------------------------------------------------------------------------------


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
        return f"References of {self.campaign}"

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


# --- Post-editing ----------------------------------------------------------------------------


class PostEditScore(models.Model):
    """The TER numbers of one post-edit (a judgment on a post-editing slot), computed once with
    sacrebleu when the edit arrives (``analytics.kinds.post_editing.scoring``) so that a
    recompute only aggregates.

    ``edits`` / ``ref_length``: TER with hypothesis = the MT output and reference = the edit
    (the edit's HTER statistics). ``reference_edits`` / ``reference_length``: TER with
    hypothesis = the edit and reference = the segment's main reference (the worker profile's
    distance to the reference); empty when the segment has no reference. ``signature`` is
    sacrebleu's signature of the campaign's TER settings: other settings are another signature,
    and every edit is scored again under it.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_edit_scores"
    )
    judgment = models.ForeignKey(
        Judgment, on_delete=models.CASCADE, related_name="post_edit_scores"
    )
    signature = models.CharField(max_length=200)
    edits = models.PositiveIntegerField()
    ref_length = models.FloatField(help_text="Words of the edit (TER's reference length).")
    reference_edits = models.PositiveIntegerField(null=True, blank=True)
    reference_length = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judgment", "signature"], name="post_edit_score_unique"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "signature"])]

    def __str__(self) -> str:
        return f"TER of judgment {self.judgment_id}: {self.edits}/{self.ref_length:g}"


class PostEditOutputScore(models.Model):
    """TER of one MT output against its segment's main reference (hypothesis = the output),
    computed once per signature: an output's HTER when none of its edits passed verification,
    and 000 Table 2's "0 editors". ``edits`` and ``ref_length`` are empty when the segment has
    no reference (the row says it was looked at)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_edit_output_scores"
    )
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="post_edit_scores")
    signature = models.CharField(max_length=200)
    edits = models.PositiveIntegerField(null=True, blank=True)
    ref_length = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["output", "signature"], name="post_edit_output_score_unique"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "signature"])]

    def __str__(self) -> str:
        return f"TER of output {self.output_id} against the reference"


class PostEditingResult(models.Model):
    """When a post-editing campaign's statistics were computed, over what, with which TER.

    ``computed_at`` is taken before loading (as for :class:`CampaignResult`); ``n_judgments``
    counts the edits and verification votes read (the sweep compares it with the database),
    ``n_scored_judgments`` the crowd edits and votes counted in the default scores.
    ``ter_signature`` is sacrebleu's signature of every TER the result sums, from the settings
    ``ter_case_sensitive`` and ``ter_normalized``; with ``gold_editor`` these are the
    campaign's settings used, and the sweep recomputes when they no longer match.
    ``n_passed`` / ``n_failed`` / ``n_unverified``: the crowd edits' verification outcomes
    (an edit without a vote counts as passed in the scores).

    ``details`` holds, per variant ("unflagged" and "all"), what does not fit a row per
    system: the paired Wilcoxon p-values, the best and worst segments, 000's subsampling table
    and 003's combinations with the document ranking (when gold edits exist); and the
    bootstrap settings.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(help_text="Edits and verification votes read.")
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, crowd edits and votes counted in the default scores."
    )
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    n_workers = models.PositiveIntegerField()
    n_edits = models.PositiveIntegerField()
    n_votes = models.PositiveIntegerField()
    n_gold_edits = models.PositiveIntegerField(default=0)
    n_outputs = models.PositiveIntegerField(help_text="Outputs with a counted edit.")
    n_passed = models.PositiveIntegerField(default=0)
    n_failed = models.PositiveIntegerField(default=0)
    n_unverified = models.PositiveIntegerField(default=0)
    ter_signature = models.CharField(max_length=200)
    ter_case_sensitive = models.BooleanField()
    ter_normalized = models.BooleanField()
    gold_editor = models.CharField(max_length=200, blank=True)
    compute_seconds = models.FloatField(default=0.0)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return f"Post-editing results of {self.campaign} at {self.computed_at:%Y-%m-%d %H:%M:%S}"

    def variant(self, include_flagged: bool) -> dict:
        return self.details.get(flag_variant_key(include_flagged), {})


def flag_variant_key(include_flagged: bool) -> str:
    return "all" if include_flagged else "unflagged"


class PostEditingSystemScore(models.Model):
    """One system's HTER in one post-editing campaign, for one variant (lower is better).

    ``include_flagged`` False: editors flagged for doing nothing or copying the reference are
    left out (the default view); True: every editor. Excluded workers, rejected assignments
    and the gold editor count in neither. ``corpus`` is total edits / total reference words
    over the system's outputs (000 Table 2), ``mean`` the mean of segment HTER, each with a
    bootstrap interval over segments; ``cluster`` and the rank range come from paired
    Wilcoxon tests on segment HTER (WMT's rule). ``position`` is by mean HTER, best first.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_scores"
    )
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="hter_scores")
    include_flagged = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    n_outputs = models.PositiveIntegerField(help_text="Outputs (segments) scored.")
    n_from_reference = models.PositiveIntegerField(
        help_text="Of those, scored against the reference: no edit passed."
    )
    n_edits = models.PositiveIntegerField()
    n_passed = models.PositiveIntegerField()
    n_verified = models.PositiveIntegerField(help_text="Edits with at least one vote.")
    edits = models.PositiveIntegerField(help_text="Edits of the chosen post-edits, summed.")
    ref_length = models.FloatField()
    corpus = models.FloatField()
    corpus_ci_low = models.FloatField(null=True, blank=True)
    corpus_ci_high = models.FloatField(null=True, blank=True)
    mean = models.FloatField()
    mean_ci_low = models.FloatField(null=True, blank=True)
    mean_ci_high = models.FloatField(null=True, blank=True)
    cluster = models.PositiveSmallIntegerField()
    rank_best = models.PositiveSmallIntegerField()
    rank_worst = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "include_flagged", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "include_flagged"], name="hter_score_unique"
            ),
            models.UniqueConstraint(
                fields=["campaign", "include_flagged", "position"], name="hter_score_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system}: HTER {self.corpus:.3f}"

    @property
    def rank_range(self) -> str:
        if self.rank_best == self.rank_worst:
            return str(self.rank_best)
        return f"{self.rank_best}–{self.rank_worst}"

    @property
    def verified_share(self) -> float | None:
        return self.n_verified / self.n_edits if self.n_edits else None


class PostEditingWorkerStat(models.Model):
    """One worker's profile in one post-editing campaign (003 section 7), over all of their
    edits there: the mean TER distance of their edits to the MT output and to the reference,
    the shares of unchanged and copied edits and the flags (did nothing, copied the
    reference), their edits' verification outcomes and votes given; 003's worker weight from
    segments with a gold edit (``gold_distance``: mean |their TER - the gold TER|; empty
    without such a segment). ``gold``: the campaign's gold editor. ``in_scores``: their edits
    count in the default scores (not excluded, flagged or gold)."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="post_editing_worker_stats"
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="post_editing_stats")
    n_edits = models.PositiveIntegerField()
    n_votes = models.PositiveIntegerField(help_text="Verification votes given.")
    mean_ter_to_mt = models.FloatField(null=True, blank=True)
    mean_ter_to_reference = models.FloatField(null=True, blank=True)
    share_unchanged = models.FloatField(null=True, blank=True)
    share_copied = models.FloatField(null=True, blank=True)
    did_nothing = models.BooleanField(default=False)
    copied_reference = models.BooleanField(default=False)
    n_passed = models.PositiveIntegerField(default=0)
    n_failed = models.PositiveIntegerField(default=0)
    n_unverified = models.PositiveIntegerField(default=0)
    n_gold_segments = models.PositiveIntegerField(default=0)
    gold_distance = models.FloatField(null=True, blank=True)
    weight = models.FloatField(null=True, blank=True)
    gold = models.BooleanField(default=False)
    excluded = models.BooleanField(default=False)
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    in_scores = models.BooleanField()

    class Meta:
        ordering = ["campaign", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "worker"], name="post_editing_worker_stat_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}"


# --- Reading comprehension -------------------------------------------------------------------

# How the human translation (the control, ``Hit.system`` None) is named wherever systems are
# listed: it is no System row.
REFERENCE_LABEL = "Reference (human translation)"


class ReadingComprehensionResult(models.Model):
    """When a reading-comprehension campaign's statistics were computed, over what
    (``analytics.kinds.reading_comprehension``).

    ``computed_at`` is taken before loading (as for :class:`CampaignResult`); ``n_judgments``
    counts the judgments of all four stages read (the sweep compares it with the database:
    a new question or vote moves the stages too), ``n_scored_judgments`` the answers and
    grades counted (not of excluded workers or rejected assignments). ``n_ties``: counted
    answers whose graders were split (scored by ``tie_policy``); ``n_suspect``: questions
    whose share correct on the human translation is below one half. ``fleiss_kappa``: the
    graders' agreement at the modal number of graders (null while no answer has two).

    ``details`` holds, per variant ("all_questions" and "without_suspect"), the systems in
    the order of the stored p-values (null for the human translation) with the permutation
    test's p-values; and the grader agreement, the bootstrap and test settings.
    """

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, related_name="rc_result", primary_key=True
    )
    computed_at = models.DateTimeField(db_index=True)
    n_judgments = models.PositiveIntegerField(help_text="Judgments of the four stages read.")
    n_scored_judgments = models.PositiveIntegerField(
        help_text="Of those, answers and grades counted in the scores."
    )
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    n_workers = models.PositiveIntegerField()
    n_answers = models.PositiveIntegerField(help_text="Answers read.")
    n_grades = models.PositiveIntegerField(help_text="Grades read.")
    n_graded_answers = models.PositiveIntegerField(
        help_text="Counted answers with at least one counted grade."
    )
    n_ties = models.PositiveIntegerField(default=0)
    n_questions = models.PositiveIntegerField(help_text="Questions with a graded answer.")
    n_suspect = models.PositiveIntegerField(default=0)
    tie_policy = models.CharField(max_length=16)
    fleiss_kappa = models.FloatField(null=True, blank=True)
    compute_seconds = models.FloatField(default=0.0)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-computed_at"]

    def __str__(self) -> str:
        return (
            f"Reading-comprehension results of {self.campaign} at "
            f"{self.computed_at:%Y-%m-%d %H:%M:%S}"
        )

    def variant(self, without_suspect: bool) -> dict:
        return self.details.get(suspect_variant_key(without_suspect), {})


def suspect_variant_key(without_suspect: bool) -> str:
    return "without_suspect" if without_suspect else "all_questions"


class ReadingComprehensionSystemScore(models.Model):
    """One system's share of questions answered correctly in one reading-comprehension
    campaign (000 Table 3), for one variant; ``system`` null with ``is_reference``: the human
    translation (the control), scored like a system.

    ``without_suspect`` False: every question (000's figure, the default); True: questions
    whose share correct on the human translation is below one half left out. Excluded workers
    and rejected assignments count in neither. ``share``: correct / graded answers (a tie
    counts as the tie policy says), with a bootstrap interval over articles;
    ``question_mean``: the mean of per-question shares; ``cluster`` and the rank range come
    from stratified permutation tests over readings (WMT's rule). ``position`` is by share,
    best first.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="rc_system_scores"
    )
    system = models.ForeignKey(
        System, on_delete=models.CASCADE, null=True, blank=True, related_name="rc_scores"
    )
    is_reference = models.BooleanField(default=False)
    without_suspect = models.BooleanField(default=False)
    position = models.PositiveSmallIntegerField()
    n_answers = models.PositiveIntegerField(help_text="Graded answers counted.")
    n_ties = models.PositiveIntegerField()
    n_questions = models.PositiveIntegerField()
    n_articles = models.PositiveIntegerField()
    n_readings = models.PositiveIntegerField(help_text="(worker, article) readings.")
    n_workers = models.PositiveIntegerField()
    correct = models.FloatField(help_text="Answers' scores summed (a tie adds its score).")
    share = models.FloatField()
    share_ci_low = models.FloatField(null=True, blank=True)
    share_ci_high = models.FloatField(null=True, blank=True)
    question_mean = models.FloatField()
    question_mean_ci_low = models.FloatField(null=True, blank=True)
    question_mean_ci_high = models.FloatField(null=True, blank=True)
    cluster = models.PositiveSmallIntegerField()
    rank_best = models.PositiveSmallIntegerField()
    rank_worst = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["campaign", "without_suspect", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "system", "without_suspect"], name="rc_score_unique"
            ),
            models.UniqueConstraint(
                fields=["campaign", "without_suspect"],
                condition=Q(system__isnull=True),
                name="rc_score_one_reference",
            ),
            models.UniqueConstraint(
                fields=["campaign", "without_suspect", "position"], name="rc_score_position"
            ),
            models.CheckConstraint(
                condition=Q(is_reference=True, system__isnull=True)
                | Q(is_reference=False, system__isnull=False),
                name="rc_score_reference_has_no_system",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label}: {self.share:.3f} correct"

    @property
    def label(self) -> str:
        return REFERENCE_LABEL if self.system_id is None else self.system.name

    @property
    def rank_range(self) -> str:
        if self.rank_best == self.rank_worst:
            return str(self.rank_best)
        return f"{self.rank_best}–{self.rank_worst}"


class ReadingComprehensionBreakdown(models.Model):
    """Share correct of one system (null: the human translation) on one article, or on one
    question (``question`` set), in one variant: the per-article and per-question tables.
    Summed over the articles of a variant, ``correct`` and ``n_answers`` give the system's."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rc_breakdowns")
    document = models.ForeignKey(
        "campaigns.Document", on_delete=models.CASCADE, related_name="rc_breakdowns"
    )
    question = models.ForeignKey(
        RCQuestion, on_delete=models.CASCADE, null=True, blank=True, related_name="breakdowns"
    )
    system = models.ForeignKey(
        System, on_delete=models.CASCADE, null=True, blank=True, related_name="rc_breakdowns"
    )
    is_reference = models.BooleanField(default=False)
    without_suspect = models.BooleanField(default=False)
    correct = models.FloatField()
    n_answers = models.PositiveIntegerField()
    n_ties = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["campaign", "without_suspect"])]

    def __str__(self) -> str:
        return f"{self.correct:g} of {self.n_answers} correct"

    @property
    def share(self) -> float | None:
        return self.correct / self.n_answers if self.n_answers else None


class ReadingComprehensionQuestionStat(models.Model):
    """One question's answers and difficulty: answers read and counted, graded, tied; the
    share correct on the human translation (its difficulty: the readers saw a correct text)
    and on the MT systems; ``suspect`` when the first is below one half."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="rc_question_stats"
    )
    question = models.ForeignKey(RCQuestion, on_delete=models.CASCADE, related_name="stats")
    n_answers = models.PositiveIntegerField(help_text="Answers read (counted or not).")
    n_counted = models.PositiveIntegerField(help_text="Answers counted (graded or not).")
    n_graded = models.PositiveIntegerField()
    n_ties = models.PositiveIntegerField()
    correct = models.FloatField()
    reference_share = models.FloatField(null=True, blank=True)
    reference_answers = models.PositiveIntegerField(default=0)
    mt_share = models.FloatField(null=True, blank=True)
    mt_answers = models.PositiveIntegerField(default=0)
    suspect = models.BooleanField(default=False)

    class Meta:
        ordering = ["campaign", "question__document__position", "question__number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "question"], name="rc_question_stat"),
        ]

    def __str__(self) -> str:
        return f"{self.question}: {self.correct:g} of {self.n_graded} correct"


class ReadingComprehensionWorkerStat(models.Model):
    """One worker's work in one reading-comprehension campaign: questions written, votes,
    answers (and the share of them judged correct), grades (and how often they agree with
    the other graders' majority, on answers where the others were not split)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="rc_worker_stats")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="rc_stats")
    n_questions_written = models.PositiveIntegerField(default=0)
    n_votes = models.PositiveIntegerField(default=0, help_text="Selection judgments.")
    n_answers = models.PositiveIntegerField(default=0)
    n_answers_graded = models.PositiveIntegerField(default=0)
    answers_correct = models.FloatField(default=0.0)
    share_correct = models.FloatField(null=True, blank=True)
    n_grades = models.PositiveIntegerField(default=0)
    n_grades_compared = models.PositiveIntegerField(default=0)
    n_grades_agreeing = models.PositiveIntegerField(default=0)
    agreement = models.FloatField(null=True, blank=True)
    excluded = models.BooleanField(default=False)
    n_rejected_judgments = models.PositiveIntegerField(default=0)
    in_scores = models.BooleanField(default=True)

    class Meta:
        ordering = ["campaign", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "worker"], name="rc_worker_stat_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}"


# --- API access ------------------------------------------------------------------------------


class AccessLevel(models.TextChoices):
    READ = "read", "read"
    CHANGE = "change", "read and change"


class CampaignAccess(models.Model):
    """A collaborator's access to one campaign, in the admin and through the REST API alike.

    Who sees a campaign (``analytics.access``): superusers (everything), the campaign's owner
    and the users granted access here, at ``level`` read or change; Django's model
    permissions (campaigns.view_campaign, change_campaign) come on top, and staff status alone
    grants nothing. Everyone else gets 404 for it, as if it did not exist.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="accesses")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_accesses"
    )
    level = models.CharField(
        max_length=8,
        choices=AccessLevel.choices,
        default=AccessLevel.READ,
        help_text="read: see the campaign, its data and results; read and change: also edit "
        "it, import into it and review its assignments (with the matching model permissions).",
    )
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "user"]
        verbose_name = "collaborator access"
        verbose_name_plural = "collaborator accesses"
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="campaign_access_unique"),
        ]

    def __str__(self) -> str:
        verb = "changes" if self.level == AccessLevel.CHANGE else "reads"
        return f"{self.user} {verb} {self.campaign}"
