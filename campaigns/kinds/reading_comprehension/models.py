"""Reading comprehension's settings, questions and per-article stages (METHODS.md section 4;
000 section 5.3 and Appendix A).

One campaign runs four stages per article (a Document): authoring (workers read the human
translation and write questions with sample answers), selection (other workers vote on the
questions and mark redundant ones), answering (workers read one system's translation, or the
human one as a control, and answer the kept questions) and grading (workers mark each answer
correct or not against the sample answer). :class:`RCArticle` records where each article is;
:class:`RCQuestion` holds the questions, editable by the requester until answering starts.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from campaigns.kinds import KindSettings


class RCStage(models.TextChoices):
    AUTHORING = "authoring", "1. Writing questions"
    SELECTION = "selection", "2. Selecting questions"
    REVIEW = "review", "Waiting for the requester to start answering"
    ANSWERING = "answering", "3. Answering questions"
    GRADING = "grading", "4. Grading answers"
    DONE = "done", "Done"


class ReadingComprehensionSettings(KindSettings):
    campaign = models.OneToOneField(
        "campaigns.Campaign",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rc_settings",
    )
    # Stage 1 (000: "write three questions", 90 questions for 10 articles: 3 authors each).
    authors_per_article = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Workers who write questions for each article (000: 90 questions for 10 "
        "articles, i.e. 3 authors of 3 questions).",
    )
    questions_per_author = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text="Questions each author writes, each with a sample answer (3 in 000).",
    )
    # Stage 2 (000: "vote on whether each question was good and ... if it was redundant";
    # the number of voters and the threshold are not given).
    voters_per_article = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Workers who vote on each article's questions (000 does not say; 3).",
    )
    keep_threshold = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.500"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="A question is kept when more than this share of its voters call it good "
        "(000 discards questions 'below a threshold' without giving it; more than half).",
    )
    redundancy_threshold = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.500"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Two questions are redundant when more than this share of the voters who "
        "saw both mark one as repeating the other; of redundant questions the one with more "
        "good votes is kept.",
    )
    review_questions = models.BooleanField(
        default=False,
        help_text="Pause each article after selection so that you can edit, delete or add "
        "questions in the admin; answering starts when you say so. Off: it starts at once.",
    )
    # Stage 3 (000: "each system's translation was displayed an average of 5 times per
    # article"; "three Turkers answer ... using the reference translation").
    answers_per_system = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="Workers who answer each article's questions on each system's translation "
        "(about 5 in 000).",
    )
    answers_on_reference = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="Workers who answer on the human translation, the control (3 in 000); 0: no "
        "control.",
    )
    # Stage 4 (000: "Turkers graded the answers"; how many is not given).
    graders_per_answer = models.PositiveSmallIntegerField(
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text="Workers who grade each answer; the majority decides (ties are reported).",
    )
    # Pay per stage (each stage is its own HIT type with its own pay); empty: the campaign's
    # reward.
    author_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for writing questions, in US dollars (empty: the campaign's reward).",
    )
    select_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for voting on questions (empty: the campaign's reward).",
    )
    answer_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for answering questions (empty: the campaign's reward).",
    )
    grade_reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for grading answers (empty: the campaign's reward).",
    )

    def reward_of(self, task: str):
        """The pay of one assignment of a stage's HIT (``HitTask`` value); None: the
        campaign's reward."""
        field = {
            "rc_author": "author_reward",
            "rc_select": "select_reward",
            "rc_answer": "answer_reward",
            "rc_grade": "grade_reward",
        }[task]
        return getattr(self, field)

    class Meta:
        verbose_name = "reading-comprehension settings"
        verbose_name_plural = "reading-comprehension settings"


class RCArticle(models.Model):
    """Where one article (a Document) of a reading-comprehension campaign is in its stages."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="rc_articles"
    )
    document = models.OneToOneField(
        "campaigns.Document", on_delete=models.CASCADE, related_name="rc_article"
    )
    stage = models.CharField(max_length=16, choices=RCStage.choices, default=RCStage.AUTHORING)
    stage_changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "reading-comprehension article"
        ordering = ["campaign", "document__position"]
        constraints = [
            models.CheckConstraint(condition=Q(stage__in=RCStage.values), name="rc_stage_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.document.external_id}: {self.get_stage_display()}"


class RCQuestionOrigin(models.TextChoices):
    AUTHORED = "authored", "Written by a worker"
    IMPORTED = "imported", "Imported"
    REQUESTER = "requester", "Added by the requester"


class RCQuestionStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed (selection pending)"
    KEPT = "kept", "Kept"
    DROPPED_VOTES = "dropped_votes", "Dropped: too few good votes"
    DROPPED_REDUNDANT = "dropped_redundant", "Dropped: repeats a kept question"
    DROPPED_REQUESTER = "dropped_requester", "Dropped by the requester"


class RCQuestion(models.Model):
    """A question about an article with its sample answer. Never shown to a worker with its
    sample answer before the grading stage."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="rc_questions"
    )
    document = models.ForeignKey(
        "campaigns.Document", on_delete=models.CASCADE, related_name="rc_questions"
    )
    number = models.PositiveSmallIntegerField(help_text="1-based order within its article.")
    text = models.TextField()
    sample_answer = models.TextField()
    origin = models.CharField(
        max_length=16, choices=RCQuestionOrigin.choices, default=RCQuestionOrigin.REQUESTER
    )
    authored_by = models.OneToOneField(
        "judgments.Judgment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rc_question",
        help_text="The authoring judgment that wrote it (authored questions only).",
    )
    status = models.CharField(
        max_length=20, choices=RCQuestionStatus.choices, default=RCQuestionStatus.KEPT
    )
    good_votes = models.PositiveSmallIntegerField(null=True, blank=True)
    votes = models.PositiveSmallIntegerField(null=True, blank=True)
    redundant_with = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The kept question this one repeats (selection).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "reading-comprehension question"
        ordering = ["campaign", "document__position", "number"]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="rc_question_number"),
            models.CheckConstraint(
                condition=Q(status__in=RCQuestionStatus.values), name="rc_question_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document.external_id} Q{self.number}: {self.text[:60]}"

    def clean(self) -> None:
        if self.document_id and self.campaign_id and self.document.campaign_id != self.campaign_id:
            raise ValidationError({"document": "The article belongs to another campaign."})
        if self.document_id and answering_started(self.document_id) and self._changed():
            raise ValidationError(answering_started_message(self.document))
        if not (self.text or "").strip():
            raise ValidationError({"text": "A question needs its text."})
        if not (self.sample_answer or "").strip():
            raise ValidationError({"sample_answer": "A question needs a sample answer."})

    # What the requester may change until answering starts (the rest is the stages' record).
    EDITABLE_FIELDS = ("document_id", "number", "text", "sample_answer", "status")

    def _changed(self) -> bool:
        """Whether saving would add this question or change what workers were asked."""
        if self.pk is None:
            return True
        stored = RCQuestion.objects.filter(pk=self.pk).values_list(*self.EDITABLE_FIELDS).first()
        return stored != tuple(getattr(self, name) for name in self.EDITABLE_FIELDS)


def answering_started(document_id: int) -> bool:
    """Whether the article's answering HITs exist: from then on its questions are fixed,
    since the answers (and the grades of the answers) refer to them as they were asked."""
    from campaigns.models import Hit, HitTask  # campaigns.models imports this module

    return Hit.objects.filter(document_id=document_id, task=HitTask.RC_ANSWER).exists()


def answering_started_message(document) -> str:
    return (
        f'Answering has started for article "{document.external_id}", so its questions can no '
        "longer be changed, added or deleted: workers' answers (and their grades) refer to the "
        "questions as they were asked."
    )


class RCQuestionSlot(models.Model):
    """Which question an answering slot asks (answering HITs show the kept questions, whose
    rows the requester may have written or edited, so a slot cannot point at a judgment)."""

    slot = models.OneToOneField(
        "campaigns.HitSlot", on_delete=models.CASCADE, primary_key=True, related_name="rc_question"
    )
    question = models.ForeignKey(RCQuestion, on_delete=models.PROTECT, related_name="slots")

    class Meta:
        verbose_name = "reading-comprehension question slot"

    def __str__(self) -> str:
        return f"{self.slot} asks {self.question}"
