"""Reading comprehension on the requester's side: its settings in the admin, the authoring
HITs it starts with, and who may be handed which HIT (000 section 5.3; RC_SPEC.md).

One campaign runs four stages per article; :meth:`ReadingComprehension.build_hits` builds the
first (authoring) and the later ones are built by themselves as articles finish a stage
(stages.py). Articles with questions already (imported, or added by the requester) skip
authoring and selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import (
    Case,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Random

from campaigns.kinds import CampaignKind, HitBuildError, registry
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionStatus,
    ReadingComprehensionSettings,
)
from campaigns.kinds.reading_comprehension.stages import STAGE_OF_TASK, after_questions_ready
from campaigns.models import (
    Campaign,
    Document,
    Hit,
    HitSlot,
    HitTask,
    Segment,
    SlotRole,
    TaskKind,
)

if TYPE_CHECKING:
    from judgments.models import Worker


@registry.register
class ReadingComprehension(CampaignKind):
    kind = TaskKind.READING_COMPREHENSION
    checklist_notes = "campaigns.kinds.reading_comprehension.checklist"
    hit_tasks = (HitTask.RC_AUTHOR, HitTask.RC_SELECT, HitTask.RC_ANSWER, HitTask.RC_GRADE)
    settings_model = ReadingComprehensionSettings
    settings_accessor = "rc_settings"
    task_rewards = (
        (HitTask.RC_AUTHOR, "author_reward", "Writing questions"),
        (HitTask.RC_SELECT, "select_reward", "Selecting questions"),
        (HitTask.RC_ANSWER, "answer_reward", "Answering questions"),
        (HitTask.RC_GRADE, "grade_reward", "Grading answers"),
    )
    settings_fieldsets = (
        (
            "1. Writing questions (on the human translation)",
            {"fields": (("authors_per_article", "questions_per_author"), "author_reward")},
        ),
        (
            "2. Selecting questions",
            {
                "fields": (
                    "voters_per_article",
                    ("keep_threshold", "redundancy_threshold"),
                    "review_questions",
                    "select_reward",
                )
            },
        ),
        (
            "3. Answering (on one system's translation, or the human one as a control)",
            {"fields": (("answers_per_system", "answers_on_reference"), "answer_reward")},
        ),
        ("4. Grading answers", {"fields": ("graders_per_answer", "grade_reward")}),
    )
    # No setting changes the scores of stored grades: the thresholds are applied once, when
    # an article's selection ends, and the numbers of workers shape HITs not yet built.
    result_settings = ()
    # Authors, graders and the control read the human translation: every sentence needs one.
    needs_reference = True
    builds_hits = True
    # Answering HITs show a system's translation of a whole article: a system without an
    # output for each of its sentences is silently left out of that article.
    needs_every_output = True
    import_hit_task = None

    def admin_inlines(self, campaign: Campaign | None) -> list[type]:
        # Articles exist once HITs are built or questions imported: a saved campaign only.
        if campaign is None or campaign.pk is None:
            return []
        from campaigns.kinds.reading_comprehension.admin import (
            RCArticleInline,
            RCQuestionInline,
        )

        return [RCArticleInline, RCQuestionInline]

    def admin_urls(self, model_admin) -> list:
        from campaigns.kinds.reading_comprehension.admin import stage_urls

        return stage_urls(model_admin)

    def build_hits(self, campaign: Campaign) -> int:
        """One authoring HIT per article (``authors_per_article`` places, one slot per
        question an author writes); an article that has kept questions already goes to review
        or answering as after an import. RCArticle rows are made here."""
        settings = campaign.rc_settings
        articles = checked_articles(campaign)
        RCArticle.objects.filter(campaign=campaign).delete()
        ready = set(
            RCQuestion.objects.filter(campaign=campaign, status=RCQuestionStatus.KEPT).values_list(
                "document_id", flat=True
            )
        )
        number = 0
        for document in articles:
            RCArticle.objects.create(campaign=campaign, document=document)
            if document.pk in ready:
                continue
            number += 1
            hit = Hit.objects.create(
                campaign=campaign,
                task=HitTask.RC_AUTHOR,
                number=number,
                places=settings.authors_per_article,
                document=document,
                reward=settings.author_reward,
            )
            HitSlot.objects.bulk_create(
                HitSlot(hit=hit, position=p, role=SlotRole.QUESTION, shown_text="")
                for p in range(1, settings.questions_per_author + 1)
            )
        for article in RCArticle.objects.filter(campaign=campaign, document_id__in=ready):
            after_questions_ready(campaign, settings, article)
        return campaign.hits.count()  # the caller deleted the old ones

    def hits_for_worker(
        self, campaign: Campaign, worker: Worker, hits: QuerySet[Hit]
    ) -> QuerySet[Hit]:
        from judgments.models import Assignment

        # Only HITs of the stage their article is in: an article whose questions were
        # imported meanwhile no longer wants its authoring HIT.
        in_stage = Q()
        for task, stage in STAGE_OF_TASK.items():
            article = RCArticle.objects.filter(document=OuterRef("document"), stage=stage)
            in_stage |= Q(task=task) & Exists(article)
        # 000: "We ensured that no one would see multiple translations of the same article";
        # and a worker who wrote or voted on its questions has read its human translation.
        held_on_article = Assignment.objects.filter(
            worker=worker, hit__document=OuterRef("document")
        )
        saw_article = Exists(
            held_on_article.filter(
                Q(hit__task__in=(HitTask.RC_AUTHOR, HitTask.RC_SELECT))
                | (Q(hit__task=HitTask.RC_ANSWER) & ~Q(hit=OuterRef("pk")))
            )
        )
        # Never voting on one's own question (000: "other Turkers"), never grading one's own
        # answer.
        own_work = Exists(HitSlot.objects.filter(hit=OuterRef("pk"), about_judgment__worker=worker))
        return (
            hits.filter(in_stage)
            .exclude(Q(task=HitTask.RC_ANSWER) & saw_article)
            .exclude(Q(task__in=(HitTask.RC_SELECT, HitTask.RC_GRADE)) & own_work)
        )

    def hit_preference(self) -> tuple[Any, ...]:
        # Later stages first, so that articles finish (and a stage's last places fill before
        # the next article's first); then the HIT with the fewest live assignments (the hand-out
        # annotates ``live``), which keeps an article's systems balanced; ties at random, so the
        # system a worker reads is chosen at random (000: "we randomly selected which system's
        # translation was shown").
        return (
            Case(
                When(task=HitTask.RC_GRADE, then=Value(0)),
                When(task=HitTask.RC_ANSWER, then=Value(1)),
                When(task=HitTask.RC_SELECT, then=Value(2)),
                default=Value(3),
                output_field=IntegerField(),
            ),
            F("live").asc(),
            Random(),
        )


def checked_articles(campaign: Campaign) -> list[Document]:
    """The campaign's articles (documents with sentences), each with a human translation of
    every sentence; HitBuildError saying what to do otherwise."""
    counts: dict[int, list[int]] = {}  # document -> [sentences, with a reference]
    for document_id, references in Segment.objects.filter(campaign=campaign).values_list(
        "document_id", "references"
    ):
        count = counts.setdefault(document_id, [0, 0])
        count[0] += 1
        count[1] += bool(references)
    documents = list(Document.objects.filter(pk__in=counts).order_by("position"))
    if not documents:
        raise HitBuildError(
            "The campaign has no articles yet. Import segments first (each document is an "
            "article; its sentences' references are its human translation)."
        )
    if not any(with_reference for _, with_reference in counts.values()):
        raise HitBuildError(
            "The campaign's segments have no reference translations. Reading comprehension "
            "needs the human translation of every article: authors write their questions on "
            "it and graders check answers against it. Import the segments again with a "
            "reference column (or reference files for the WMT format), in a new campaign."
        )
    missing = [
        f"{d.external_id} ({counts[d.pk][0] - counts[d.pk][1]} of {counts[d.pk][0]})"
        for d in documents
        if counts[d.pk][1] < counts[d.pk][0]
    ]
    if missing:
        raise HitBuildError(
            f"Some articles have sentences without a reference translation: "
            f"{', '.join(missing)}. Every sentence of an article's human translation is needed "
            "(authors and graders read it whole). Import the articles with complete "
            "references, in a new campaign."
        )
    return documents
