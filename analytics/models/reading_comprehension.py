"""Reading comprehension's stored results."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from campaigns.kinds.reading_comprehension.models import RCQuestion
from campaigns.models import Campaign, System
from judgments.models import Worker

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
