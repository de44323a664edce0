"""The authoring page (issue 14 item 1, stage 1; 000 section 5.3 "Test creation"): a worker
reads the human translation of an article and writes questions about it, each with a sample
answer, with 000's guidance on good and poor questions.

The HIT's slots (``questions_per_author`` of them, role QUESTION, no segment, nothing shown)
are one pair of boxes each. The whole page is one submission: ``{"page": 1, "questions":
{"<position>": {"question": "...", "answer": "..."}}}``, every slot filled. Why not one
submission per question, as the post-editing page saves one segment at a time: an author
writes a set of questions that must differ from one another (selection drops the ones that
repeat each other), so the set is what they decide on, and they may rework the first
question after writing the third; a saved question would be final (judgments are
append-only). Nothing is lost meanwhile: the page keeps the boxes in the browser's session
storage, so a reload finds them filled.

Each slot's Judgment: ``text`` = the question, ``details`` = ``{"answer": <the sample
answer>}``, both trimmed and required (RC_SPEC.md). The stages turn them into RCQuestion rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import pgettext

from campaigns.models import Campaign, HitTask
from judgments.actions.specs import ShownUnit, SubmissionError, TaskSpec, Unit, json_kind
from judgments.actions.state import TaskState
from judgments.kinds import TaskPage
from judgments.kinds.reading_comprehension.common import (
    PAGE_KEY_WHAT,
    check_positions,
    human_translation,
    only_fields,
    page_messages,
    positions_object,
    whole_hit_unit,
    worker_text,
)
from judgments.kinds.reading_comprehension.words import common_words, guidance, stage_names

# --- The answer -------------------------------------------------------------------------------

QUESTIONS_EXAMPLE = (
    '{"1": {"question": "Why did the witness call the police?", "answer": "He was worried '
    'about her."}}'
)


def _parse_questions(payload: Mapping[str, Any]) -> dict[int, tuple[str, str]]:
    """``questions``: per slot position, the question and its sample answer, trimmed; the
    first empty box (in position order, the question before its answer) is the 400."""
    items = positions_object(payload, "questions", QUESTIONS_EXAMPLE)
    parsed: dict[int, tuple[str, str]] = {}
    for position in sorted(items):
        item, field = items[position], f"questions.{position}"
        if not isinstance(item, dict):
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    'questions: position {position} must be an object with "question" and '
                    '"answer" (got {value}).',
                ).format(position=position, value=json_kind(item)),
                field=field,
            )
        only_fields(item, ("question", "answer"), field, f"questions.{position}")
        question = worker_text(
            item.get("question", ""),
            f"{field}.question",
            pgettext("reading comprehension answer", "Question {position}").format(
                position=position
            ),
            pgettext(
                "reading comprehension answer",
                "Question {position} is empty: write a question about the article.",
            ).format(position=position),
        )
        answer = worker_text(
            item.get("answer", ""),
            f"{field}.answer",
            pgettext(
                "reading comprehension answer", "The sample answer to question {position}"
            ).format(position=position),
            pgettext(
                "reading comprehension answer",
                "The sample answer to question {position} is empty: write the answer to your "
                "question.",
            ).format(position=position),
        )
        parsed[position] = (question, answer)
    return parsed


def _bind_questions(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Every slot of the page gets its question (``text``) and sample answer (``details``)."""
    questions: dict[int, tuple[str, str]] = answer["questions"]
    check_positions(
        questions,
        unit,
        "questions",
        pgettext(
            "reading comprehension answer", "Every question needs its text and a sample answer"
        ),
    )
    return {
        pk: {"text": questions[position][0], "details": {"answer": questions[position][1]}}
        for pk, position in unit.slots
    }


AUTHOR_SPEC = TaskSpec(
    key="page",
    key_minimum=1,
    key_what=PAGE_KEY_WHAT,
    example=f'{{"page": 1, "questions": {QUESTIONS_EXAMPLE}}}',
    parsers={"questions": _parse_questions},
    units=whole_hit_unit,
    bind=_bind_questions,
    page_size=lambda campaign: 1,
    **page_messages(),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_questions(unit: ShownUnit) -> dict[str, Any]:
    """The page (its key) and the positions of its pairs of boxes: the slots show nothing."""
    return {"page": unit.key, "questions": [{"position": slot.position} for slot in unit.slots]}


class AuthorPage(TaskPage):
    task = HitTask.RC_AUTHOR
    # An article's questions: ten minutes.
    default_seconds_per_judgment = 600
    long_first_answer = True
    spec = AUTHOR_SPEC
    template = "judgments/rc_author.html"
    preview_template = "judgments/rc_author_preview.html"
    preview_class = "task-rc task-rc-author"
    language_probe = ("reading comprehension page", "Writing questions")

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's instructions to authors ("Please read the short newspaper article, and then
        write three reading comprehension questions about it, giving sample answers for each
        of your questions"; the number is the page's pairs of boxes, the article any kind) and
        its guidance, then the page's own words."""
        return {
            **common_words(),
            **guidance(),
            "stage": stage_names()["author"],
            "prompt": pgettext(
                "reading comprehension page",
                "Please read the short article below, and then write reading comprehension "
                "questions about it, one in each pair of boxes, giving a sample answer for each "
                "of your questions.",
            ),
            # 000 is silent on both: every question is asked of readers who have the article
            # only, and selection drops questions that repeat one another.
            "own_words": pgettext(
                "reading comprehension page",
                "Each question should be answerable from the article alone, and each should ask "
                "something different.",
            ),
            "answer_box": pgettext("reading comprehension page", "Sample answer to question {n}"),
            "keys": pgettext(
                "reading comprehension page",
                "Keyboard: Enter goes on to the next box; Ctrl+Enter sends your questions once "
                "every box is filled; Tab also moves between the boxes.",
            ),
            "kept": pgettext(
                "reading comprehension page",
                "What you type is kept in this browser until you send it, so reloading the page "
                "loses nothing.",
            ),
            "send": pgettext("reading comprehension page", "Send your questions"),
            # Translators: the progress; {done} questions of {total} have both boxes filled.
            "progress": pgettext(
                "reading comprehension page", "{done} of {total} questions written"
            ),
            "empty_question": pgettext("reading comprehension page", "Write question {n}."),
            "empty_answer": pgettext(
                "reading comprehension page", "Write a sample answer to question {n}."
            ),
            "hint": pgettext("reading comprehension page", "Fill in every box before you send."),
        }

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """The boxes, and the human translation of the HIT's article (two queries: the HIT,
        the article's sentences)."""
        hit = unit.slots[0].hit
        return {**present_questions(unit), "article": human_translation(hit.document_id)}

    def present(self, state: TaskState) -> dict[str, Any]:
        """The page (see :meth:`present_unit`); the HIT is loaded with the assignment, so one
        query (the article's sentences)."""
        unit, hit = state.shown[0], state.assignment.hit
        return {**present_questions(unit), "article": human_translation(hit.document_id)}

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The whole page, read-only: the article and the empty boxes."""
        shown = self.present_unit(unit, campaign)
        return {
            "article": shown["article"],
            "questions": [
                {
                    "label": labels["question"].format(n=number),
                    "answer_label": labels["answer_box"].format(n=number),
                    "position": item["position"],
                }
                for number, item in enumerate(shown["questions"], start=1)
            ],
        }
