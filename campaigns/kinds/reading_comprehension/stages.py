"""The stages of a reading-comprehension campaign, per article (RC_SPEC.md; 000 section 5.3).

An article (a Document with its :class:`RCArticle`) moves authoring -> selection -> [review]
-> answering -> grading -> done. It moves on when every HIT of its current stage is done: a
HIT is done when it has ``places`` assignments submitted or approved. A rejected assignment
is not done and frees its place (the hand-out counts started, submitted and approved ones),
so its HIT is taken by somebody else and the article waits for that.

:func:`advance` makes every move that is due, in one transaction under the campaign's row
lock; it is idempotent (what it builds is what makes the stage change, so a second call finds
nothing due) and does nothing while the campaign is paused. It is called by the kind's
recompute after each burst of submissions and by the Celery task
``campaigns.tasks.reading_comprehension.advance_reading_comprehension`` (the admin's
"Advance stages now"). :func:`start_answering` ends the review pause the requester asked for
(``review_questions``); :func:`build_answering_hits` is shared with the import of ready-made
questions (imports.py) and the kind's ``build_hits``.

What each move builds:

* authoring done: RCQuestion rows (status proposed, origin authored) from the authoring
  judgments of done assignments, numbered after the article's highest number in the order the
  authors submitted, then by position; then the selection HIT (one slot per proposed question,
  ``group`` = its number, ``about_judgment`` = the authoring judgment). No proposed question
  (every author left a slot empty, which the page does not allow): selection is skipped.
* selection done: the selection rule (campaigns/builders/reading_comprehension.py) over the
  votes of done assignments on the questions still proposed (the requester may have dropped or
  added some meanwhile: those keep what the requester chose); then review, or the answering
  HITs.
* answering HITs: one per system with an output for every sentence of the article (a system
  with a partial translation is left out: its readers would meet gaps, which 000 never had),
  then the human translation's; one slot per kept question in number order, linked by
  RCQuestionSlot. No kept question, or nothing to answer on: the article is done.
* answering done: the grading HIT, one slot per answer, grouped by question (``group`` = the
  number), the answers of a question in the order they were submitted (000 is silent; graders
  never learn the system, so the order reveals nothing).
* grading done: done.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, F, Max, Q
from django.utils import timezone

from campaigns.builders.reading_comprehension import (
    RCAnswer,
    Vote,
    answering_hits,
    grading_slots,
    repeated_positions,
    select_questions,
)
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionSlot,
    RCQuestionStatus,
    RCStage,
    ReadingComprehensionSettings,
)
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Document,
    Hit,
    HitSlot,
    HitTask,
    Output,
    Segment,
    SlotRole,
)
from judgments.models import AssignmentStatus, Judgment

logger = logging.getLogger(__name__)

__all__ = [
    "DONE_STATUSES",
    "STAGE_OF_TASK",
    "TASK_OF_STAGE",
    "advance",
    "build_answering_hits",
    "start_answering",
]

# The HIT task whose HITs an article of each stage is waiting for, and back.
TASK_OF_STAGE = {
    RCStage.AUTHORING: HitTask.RC_AUTHOR,
    RCStage.SELECTION: HitTask.RC_SELECT,
    RCStage.ANSWERING: HitTask.RC_ANSWER,
    RCStage.GRADING: HitTask.RC_GRADE,
}
STAGE_OF_TASK = {task: stage for stage, task in TASK_OF_STAGE.items()}


# A HIT is done when it has its places in assignments of these statuses (a rejected one is
# not, and frees its place for another worker: the hand-out counts only live assignments).
DONE_STATUSES = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


class _Numbers:
    """The campaign's next free HIT numbers: new HITs continue after the highest."""

    def __init__(self, campaign: Campaign) -> None:
        self.last = campaign.hits.aggregate(last=Max("number"))["last"] or 0

    def next(self) -> int:
        self.last += 1
        return self.last


def _set_stage(article: RCArticle, stage: str) -> None:
    article.stage = stage
    article.stage_changed_at = timezone.now()
    article.save(update_fields=["stage", "stage_changed_at"])


def _locked(campaign: Campaign) -> tuple[Campaign, ReadingComprehensionSettings | None]:
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    settings = ReadingComprehensionSettings.objects.filter(campaign=campaign).first()
    return campaign, settings


def _stage_hits_done(campaign: Campaign) -> dict[tuple[int, str], bool]:
    """Per (article, task): whether every HIT of it is done (one query)."""
    rows = (
        Hit.objects.filter(campaign=campaign, task__in=STAGE_OF_TASK, document__isnull=False)
        .annotate(done=Count("assignments", filter=Q(assignments__status__in=DONE_STATUSES)))
        .values_list("document_id", "task", "places", "done")
    )
    result: dict[tuple[int, str], bool] = {}
    for document_id, task, places, done in rows:
        key = (document_id, task)
        result[key] = result.get(key, True) and done >= (places or campaign.redundancy)
    return result


def advance(campaign: Campaign) -> list[str]:
    """Make every stage change that is due; one line per change ("d1: ..."). Nothing while
    the campaign is paused, or for a campaign without reading-comprehension settings."""
    with transaction.atomic():
        campaign, settings = _locked(campaign)
        if settings is None or campaign.status == CampaignStatus.PAUSED:
            return []
        articles = list(
            RCArticle.objects.filter(campaign=campaign, stage__in=TASK_OF_STAGE)
            .select_related("document")
            .order_by("document__position")
        )
        if not articles:
            return []
        done = _stage_hits_done(campaign)
        stages = _Stages(campaign, settings)
        moved: list[str] = []
        for article in articles:
            # An article whose stage has no HITs waits (they were built with the stage, so
            # only a deletion by hand gets here; nothing is rebuilt behind the requester).
            if not done.get((article.document_id, TASK_OF_STAGE[article.stage]), False):
                continue
            moved.append(stages.end_stage(article))
    for line in moved:
        logger.info("Campaign %s: %s", campaign.pk, line)
    return moved


def start_answering(campaign: Campaign, documents: Iterable[Document] | None = None) -> list[str]:
    """Build the answering HITs of the campaign's articles waiting in review (of
    ``documents`` only, when given); one line per article."""
    with transaction.atomic():
        campaign, settings = _locked(campaign)
        if settings is None:
            return []
        articles = RCArticle.objects.filter(campaign=campaign, stage=RCStage.REVIEW)
        if documents is not None:
            articles = articles.filter(document__in=[getattr(d, "pk", d) for d in documents])
        stages = _Stages(campaign, settings)
        moved = [
            f"{article.document.external_id}: {stages.start_answering(article)}"
            for article in articles.select_related("document").order_by("document__position")
        ]
    for line in moved:
        logger.info("Campaign %s: %s", campaign.pk, line)
    return moved


def build_answering_hits(
    campaign: Campaign, settings: ReadingComprehensionSettings, article: RCArticle
) -> str:
    """The article's answering HITs (the caller holds the campaign's lock); what happened."""
    return _Stages(campaign, settings).start_answering(article)


def after_questions_ready(
    campaign: Campaign, settings: ReadingComprehensionSettings, article: RCArticle
) -> str:
    """Selection's end without a vote: review, or answering (imports, ``build_hits``)."""
    return _Stages(campaign, settings).after_selection(article)


class _Stages:
    """The moves of one call, sharing the campaign's next HIT numbers."""

    def __init__(self, campaign: Campaign, settings: ReadingComprehensionSettings) -> None:
        self.campaign = campaign
        self.settings = settings
        self.numbers = _Numbers(campaign)

    def end_stage(self, article: RCArticle) -> str:
        end = {
            RCStage.AUTHORING: self.end_authoring,
            RCStage.SELECTION: self.end_selection,
            RCStage.ANSWERING: self.end_answering,
            RCStage.GRADING: self.end_grading,
        }[article.stage]
        return f"{article.document.external_id}: {end(article)}"

    def new_hit(self, task: str, article: RCArticle, places: int, system_id=None) -> Hit:
        return Hit.objects.create(
            campaign=self.campaign,
            task=task,
            number=self.numbers.next(),
            places=places,
            document_id=article.document_id,
            system_id=system_id,
            reward=self.campaign.rc_settings.reward_of(task),
        )

    # --- 1 -> 2 ----------------------------------------------------------------------------

    def end_authoring(self, article: RCArticle) -> str:
        written = (
            Judgment.objects.filter(
                slot__hit__document_id=article.document_id,
                slot__hit__task=HitTask.RC_AUTHOR,
                assignment__status__in=DONE_STATUSES,
                rc_question__isnull=True,
            )
            .order_by(
                F("assignment__submitted_at").asc(nulls_last=True),
                "assignment_id",
                "slot__position",
            )
            .values_list("pk", "text", "details")
        )
        number = self.last_number(article)
        questions = []
        for judgment_id, text, details in written:
            answer = details.get("answer") if isinstance(details, dict) else None
            text = (text or "").strip()
            answer = answer.strip() if isinstance(answer, str) else ""
            if not text or not answer:
                # The page requires both; a judgment stored otherwise cannot be asked.
                logger.warning("Authoring judgment %s has no question or answer", judgment_id)
                continue
            number += 1
            questions.append(
                RCQuestion(
                    campaign=self.campaign,
                    document_id=article.document_id,
                    number=number,
                    text=text,
                    sample_answer=answer,
                    origin=RCQuestionOrigin.AUTHORED,
                    authored_by_id=judgment_id,
                    status=RCQuestionStatus.PROPOSED,
                )
            )
        RCQuestion.objects.bulk_create(questions)
        proposed = list(
            RCQuestion.objects.filter(
                document_id=article.document_id, status=RCQuestionStatus.PROPOSED
            ).order_by("number")
        )
        written_note = f"{len(questions)} question(s) written"
        if not proposed:
            return f"{written_note}; nothing to select, {self.after_selection(article)}"
        hit = self.new_hit(HitTask.RC_SELECT, article, self.settings.voters_per_article)
        HitSlot.objects.bulk_create(
            HitSlot(
                hit=hit,
                position=position,
                group=question.number,
                role=SlotRole.QUESTION,
                shown_text=question.text,
                about_judgment_id=question.authored_by_id,
            )
            for position, question in enumerate(proposed, start=1)
        )
        _set_stage(article, RCStage.SELECTION)
        return f"{written_note}; selection HIT {hit.number} built ({len(proposed)} question(s))"

    def last_number(self, article: RCArticle) -> int:
        found = RCQuestion.objects.filter(document_id=article.document_id).aggregate(
            last=Max("number")
        )
        return found["last"] or 0

    # --- 2 -> review or 3 ------------------------------------------------------------------

    def end_selection(self, article: RCArticle) -> str:
        slots = list(
            HitSlot.objects.filter(
                hit__document_id=article.document_id,
                hit__task=HitTask.RC_SELECT,
                about_judgment__rc_question__isnull=False,
            ).values_list("pk", "hit_id", "position", "about_judgment__rc_question")
        )
        questions = {
            q.pk: q
            for q in RCQuestion.objects.filter(pk__in=[row[3] for row in slots]).order_by("number")
        }
        question_at = {(hit, position): questions[q] for _, hit, position, q in slots}
        positions: dict[int, list[int]] = defaultdict(list)
        for _, hit, position, _ in slots:
            positions[hit].append(position)
        # The rule decides over the questions still proposed; those the requester dropped or
        # restored meanwhile keep the requester's choice and count in nobody's redundancy.
        open_numbers = [
            q.number for q in questions.values() if q.status == RCQuestionStatus.PROPOSED
        ]
        by_number = {q.number: q for q in questions.values()}
        votes = []
        ballots = Judgment.objects.filter(
            slot_id__in=[row[0] for row in slots], assignment__status__in=DONE_STATUSES
        ).values_list("assignment_id", "slot__hit_id", "slot__position", "yes_no", "details")
        for assignment_id, hit_id, position, good, details in ballots:
            question = question_at[(hit_id, position)]
            if question.number not in open_numbers:
                continue
            repeats = {
                question_at[(hit_id, p)].number
                for p in repeated_positions(details, position, positions[hit_id])
            }
            votes.append(
                Vote(
                    voter=assignment_id,
                    question=question.number,
                    good=bool(good),
                    repeats=frozenset(repeats & set(open_numbers)),
                )
            )
        outcomes = select_questions(
            open_numbers,
            votes,
            keep_threshold=self.settings.keep_threshold,
            redundancy_threshold=self.settings.redundancy_threshold,
        )
        now = timezone.now()  # bulk_update does not stamp auto_now fields
        for number, outcome in outcomes.items():
            question = by_number[number]
            question.updated_at = now
            question.good_votes = outcome.good_votes
            question.votes = outcome.votes
            question.status = outcome.status
            question.redundant_with = (
                by_number[outcome.redundant_with] if outcome.redundant_with else None
            )
        RCQuestion.objects.bulk_update(
            [by_number[n] for n in outcomes],
            ["good_votes", "votes", "status", "redundant_with", "updated_at"],
        )
        kept = sum(o.status == RCQuestionStatus.KEPT for o in outcomes.values())
        return f"selection applied, {kept} of {len(outcomes)} kept; {self.after_selection(article)}"

    def after_selection(self, article: RCArticle) -> str:
        if self.settings.review_questions:
            _set_stage(article, RCStage.REVIEW)
            return "waiting for the requester to start answering"
        return self.start_answering(article)

    def start_answering(self, article: RCArticle) -> str:
        document_id = article.document_id
        if Hit.objects.filter(document_id=document_id, task=HitTask.RC_ANSWER).exists():
            _set_stage(article, RCStage.ANSWERING)  # built already (nothing is built twice)
            return "answering HITs exist already"
        kept = list(
            RCQuestion.objects.filter(
                document_id=document_id, status=RCQuestionStatus.KEPT
            ).order_by("number")
        )
        if not kept:
            _set_stage(article, RCStage.DONE)
            return "no question kept, the article is done"
        n_segments = Segment.objects.filter(document_id=document_id).count()
        complete = list(
            Output.objects.filter(segment__document_id=document_id)
            .values("system_id")
            .annotate(n=Count("pk"))
            .filter(n=n_segments)
            .order_by("system__name")
            .values_list("system_id", flat=True)
        )
        plans = answering_hits(
            complete,
            answers_per_system=self.settings.answers_per_system,
            answers_on_reference=self.settings.answers_on_reference,
        )
        if not plans:
            _set_stage(article, RCStage.DONE)
            return "no translation to answer on (no system output, no control), the article is done"
        hits = [
            self.new_hit(HitTask.RC_ANSWER, article, plan.places, plan.system) for plan in plans
        ]
        slots = HitSlot.objects.bulk_create(
            HitSlot(
                hit=hit,
                position=position,
                group=0,
                role=SlotRole.QUESTION,
                shown_text=question.text,
            )
            for hit in hits
            for position, question in enumerate(kept, start=1)
        )
        RCQuestionSlot.objects.bulk_create(
            RCQuestionSlot(slot=slot, question=question)
            for slot, question in zip(slots, [q for _ in hits for q in kept], strict=True)
        )
        _set_stage(article, RCStage.ANSWERING)
        control = ", the human translation" if plans[-1].system is None else ""
        return (
            f"answering HITs {hits[0].number}-{hits[-1].number} built ({len(kept)} question(s), "
            f"{len(complete)} system(s){control})"
        )

    # --- 3 -> 4 -> done --------------------------------------------------------------------

    def end_answering(self, article: RCArticle) -> str:
        asked = (
            RCQuestionSlot.objects.filter(
                slot__hit__document_id=article.document_id, slot__hit__task=HitTask.RC_ANSWER
            )
            .values_list("question__number", flat=True)
            .distinct()
        )
        answers = [
            RCAnswer(judgment=pk, question=number, text=text)
            for pk, number, text in Judgment.objects.filter(
                slot__hit__document_id=article.document_id,
                slot__hit__task=HitTask.RC_ANSWER,
                assignment__status__in=DONE_STATUSES,
            )
            .order_by(
                F("assignment__submitted_at").asc(nulls_last=True),
                "assignment_id",
                "slot__position",
            )
            .values_list("pk", "slot__rc_question__question__number", "text")
        ]
        slots = grading_slots(answers, sorted(set(asked)))
        if not slots:
            _set_stage(article, RCStage.DONE)
            return "no answer to grade, the article is done"
        hit = self.new_hit(HitTask.RC_GRADE, article, self.settings.graders_per_answer)
        HitSlot.objects.bulk_create(
            HitSlot(
                hit=hit,
                position=slot.position,
                group=slot.group,
                role=SlotRole.SYSTEM,
                shown_text=slot.text,
                about_judgment_id=slot.judgment,
            )
            for slot in slots
        )
        _set_stage(article, RCStage.GRADING)
        return f"grading HIT {hit.number} built ({len(slots)} answer(s))"

    def end_grading(self, article: RCArticle) -> str:
        _set_stage(article, RCStage.DONE)
        return "graded, the article is done"
