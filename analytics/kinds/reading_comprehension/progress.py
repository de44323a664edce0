"""Where each article of a reading-comprehension campaign is: its stage, the HITs of that stage
done and their places filled, and its questions (for the results panel and the API's
articles endpoint). Read live, in three queries whatever the campaign's size: stages move
without a recompute too (the admin's "Advance stages now", "Start answering")."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q

from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionStatus,
    RCStage,
)
from campaigns.kinds.reading_comprehension.stages import (
    DONE_STATUSES,
    STAGE_OF_TASK,
    TASK_OF_STAGE,
)
from campaigns.models import Campaign, Hit

__all__ = ["ArticleProgress", "article_progress"]


@dataclass(frozen=True)
class ArticleProgress:
    """One article: its stage; of the HITs of that stage, how many are done (every place
    filled by a submitted or approved assignment) and the places filled and planned (none in
    review and done); its questions by status."""

    document_id: int
    article: str
    position: int
    stage: str
    stage_label: str
    hits_done: int
    hits: int
    places_done: int
    places: int
    questions: dict[str, int]

    @property
    def n_questions(self) -> int:
        return sum(self.questions.values())

    @property
    def n_kept(self) -> int:
        return self.questions.get(RCQuestionStatus.KEPT, 0)

    @property
    def done(self) -> bool:
        return self.stage == RCStage.DONE


def article_progress(campaign: Campaign) -> list[ArticleProgress]:
    """Every article of the campaign in document order (three queries)."""
    articles = list(
        RCArticle.objects.filter(campaign=campaign)
        .order_by("document__position", "document_id")
        .values_list("document_id", "document__external_id", "document__position", "stage")
    )
    hits: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for document_id, task, places, done in (
        Hit.objects.filter(campaign=campaign, task__in=STAGE_OF_TASK, document__isnull=False)
        .annotate(done=Count("assignments", filter=Q(assignments__status__in=DONE_STATUSES)))
        .order_by()
        .values_list("document_id", "task", "places", "done")
    ):
        wanted = places or campaign.redundancy
        count = hits[(document_id, STAGE_OF_TASK[task])]
        count[0] += done >= wanted
        count[1] += 1
        count[2] += min(done, wanted)
        count[3] += wanted
    questions: dict[int, dict[str, int]] = defaultdict(dict)
    for document_id, status, n in (
        RCQuestion.objects.filter(campaign=campaign)
        .order_by()
        .values_list("document_id", "status")
        .annotate(n=Count("pk"))
    ):
        questions[document_id][status] = n
    labels = dict(RCStage.choices)
    out = []
    for document_id, external_id, position, stage in articles:
        count = hits[(document_id, stage)] if stage in TASK_OF_STAGE else [0, 0, 0, 0]
        out.append(
            ArticleProgress(
                document_id=document_id,
                article=external_id,
                position=position,
                stage=stage,
                stage_label=labels.get(stage, stage),
                hits_done=count[0],
                hits=count[1],
                places_done=count[2],
                places=count[3],
                questions=dict(questions.get(document_id, {})),
            )
        )
    return out
