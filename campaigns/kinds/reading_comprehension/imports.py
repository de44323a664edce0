"""Import of ready-made questions with sample answers into a reading-comprehension campaign
(issue 14 item 2; 000 compares its test with the DLPT, whose questions come ready-made).

The file is read and checked by campaigns/importers/rc_questions.py; here, under the
campaign's lock, every row is checked against the campaign (its articles, their stages, the
numbers they hold), then everything is written in one transaction or nothing is:

* the questions, status kept, origin imported (selection does not vote on them);
* each article named skips writing and selection: questions still proposed (selection had
  not ended) are dropped as the requester's (the import replaces the workers' selection),
  its authoring and selection HITs nobody has taken are deleted (one somebody holds stays as
  a record and is no longer handed out: the hand-out gives only HITs of an article's current
  stage), and it goes to review (``review_questions``) or answering, whose HITs are built.

Reachable from the admin (the campaign's stages page), ``manage.py import_rc_questions`` and
:func:`import_questions` itself.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from campaigns.importers.problems import ProblemList
from campaigns.importers.rc_questions import ParsedQuestions, parse_rc_questions
from campaigns.importers.reading import FileLike
from campaigns.kinds.reading_comprehension.models import (
    RCArticle,
    RCQuestion,
    RCQuestionOrigin,
    RCQuestionStatus,
    RCStage,
)
from campaigns.kinds.reading_comprehension.stages import after_questions_ready
from campaigns.models import Campaign, Document, Hit, HitTask, Segment, TaskKind

__all__ = ["QuestionImportSummary", "import_questions"]


@dataclass(frozen=True)
class QuestionImportSummary:
    file: str
    questions: int
    articles: tuple[str, ...]
    outcomes: tuple[str, ...] = ()
    dry_run: bool = False

    @property
    def message(self) -> str:
        counts = f"{self.questions} question(s) for {len(self.articles)} article(s)"
        if self.dry_run:
            return f"Checked {self.file}: no problems. Importing would add {counts}."
        return f"Imported {counts} from {self.file}. " + "; ".join(self.outcomes) + "."

    def __str__(self) -> str:
        return self.message


def import_questions(
    campaign: Campaign,
    file: FileLike,
    *,
    fmt: str | None = None,
    name: str | None = None,
    dry_run: bool = False,
) -> QuestionImportSummary:
    """Check the file and the campaign, then write everything (``dry_run``: nothing);
    ImportFailed listing every problem, nothing written."""
    parsed = parse_rc_questions(file, fmt=fmt, name=name)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        problems = ProblemList([parsed.file])
        documents = _check(campaign, parsed, problems)
        if problems:
            raise problems.failure()
        articles = tuple(dict.fromkeys(row.doc_id for row in parsed.rows))
        if dry_run:
            return QuestionImportSummary(parsed.file, len(parsed.rows), articles, dry_run=True)
        outcomes = _write(campaign, parsed, documents)
    return QuestionImportSummary(parsed.file, len(parsed.rows), articles, tuple(outcomes))


def _check(campaign: Campaign, parsed: ParsedQuestions, problems: ProblemList) -> dict:
    """The campaign's documents by id, after reporting what the rows ask that it cannot do."""
    name = parsed.file
    if campaign.kind != TaskKind.READING_COMPREHENSION:
        problems.add(
            name,
            None,
            None,
            f'campaign "{campaign}" is a {campaign.get_kind_display()} campaign; questions are '
            "imported into reading-comprehension campaigns only",
        )
        return {}
    wanted = {row.doc_id for row in parsed.rows}
    documents = {
        d.external_id: d for d in Document.objects.filter(campaign=campaign, external_id__in=wanted)
    }
    stages = dict(
        RCArticle.objects.filter(document__in=documents.values()).values_list(
            "document_id", "stage"
        )
    )
    answering = set(
        Hit.objects.filter(document__in=documents.values(), task=HitTask.RC_ANSWER).values_list(
            "document_id", flat=True
        )
    )
    sentences: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for document_id, references in Segment.objects.filter(
        document__in=documents.values()
    ).values_list("document_id", "references"):
        sentences[document_id][0] += 1
        sentences[document_id][1] += bool(references)
    taken: dict[int, dict[int, str]] = defaultdict(dict)
    for document_id, number, text in RCQuestion.objects.filter(
        document__in=documents.values()
    ).values_list("document_id", "number", "text"):
        taken[document_id][number] = text
    reported: set[str] = set()
    for row in parsed.rows:
        document = documents.get(row.doc_id)
        if document is None:
            problems.add(
                name,
                row.line,
                "doc_id",
                f'unknown doc_id "{row.doc_id}": the campaign has no article with this document '
                "id (import its segments first)",
            )
            continue
        stage = stages.get(document.pk)
        first_row = row.doc_id not in reported
        reported.add(row.doc_id)
        if document.pk in answering:
            if first_row:
                label = RCStage(stage).label if stage else RCStage.ANSWERING.label
                problems.add(
                    name,
                    row.line,
                    "doc_id",
                    f'article "{row.doc_id}" is already being answered (stage: {label}): its '
                    "questions can no longer change",
                )
            continue
        total, with_reference = sentences[document.pk]
        if first_row and (total == 0 or with_reference < total):
            problems.add(
                name,
                row.line,
                "doc_id",
                f'article "{row.doc_id}" has {total - with_reference} of {total} sentence(s) '
                "without a reference translation: graders check answers against its whole "
                "human translation"
                if total
                else f'article "{row.doc_id}" has no sentences',
            )
        if row.number is not None and row.number in taken[document.pk]:
            problems.add(
                name,
                row.line,
                "number",
                f'duplicate number {row.number}: article "{row.doc_id}" already has question '
                f'{row.number} ("{_short(taken[document.pk][row.number])}")',
            )
    return documents


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def _write(campaign: Campaign, parsed: ParsedQuestions, documents: dict) -> list[str]:
    settings = campaign.rc_settings
    by_article: dict[str, list] = defaultdict(list)
    for row in parsed.rows:
        by_article[row.doc_id].append(row)
    outcomes = []
    for doc_id, rows in by_article.items():
        document = documents[doc_id]
        article, _ = RCArticle.objects.get_or_create(campaign=campaign, document=document)
        RCQuestion.objects.filter(document=document, status=RCQuestionStatus.PROPOSED).update(
            status=RCQuestionStatus.DROPPED_REQUESTER
        )
        # HITs with a history (an assignment, an MTurk HIT) stay; a number freed here is
        # only ever given again if nothing happened under it.
        Hit.objects.filter(
            document=document,
            task__in=(HitTask.RC_AUTHOR, HitTask.RC_SELECT),
            assignments__isnull=True,
            mturk__isnull=True,
        ).delete()
        last = RCQuestion.objects.filter(document=document).aggregate(last=Max("number"))["last"]
        number = max([last or 0, *(row.number or 0 for row in rows)])
        questions = []
        for row in rows:
            if row.number is None:
                number += 1
            questions.append(
                RCQuestion(
                    campaign=campaign,
                    document=document,
                    number=row.number or number,
                    text=row.question,
                    sample_answer=row.answer,
                    origin=RCQuestionOrigin.IMPORTED,
                    status=RCQuestionStatus.KEPT,
                )
            )
        RCQuestion.objects.bulk_create(questions)
        if article.stage == RCStage.REVIEW and settings.review_questions:
            outcomes.append(f"{doc_id}: waiting for the requester to start answering")
            continue
        outcomes.append(f"{doc_id}: {after_questions_ready(campaign, settings, article)}")
    return outcomes
