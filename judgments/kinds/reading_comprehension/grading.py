"""The grading page (issue 14 item 1, stage 4; 000 section 5.3 "Grading the answers": "We
showed the human translation of the article, one question, the sample answer, and displayed
all answers to it"): one question at a time, each answer marked correct or not correct.

The grading HIT's slots are the answers (shown text = the answer, ``about_judgment`` = the
answering judgment), grouped by question (``group`` = the question's number in its article).
A unit is one question's answers, answered by one submission, ``{"question": <group>,
"grades": {"<position>": true}}``, every answer graded; no way back, as on the ranking page.
The page is the only one that shows a sample answer; it never says which translation an
answer was given on, nor who gave it. Each slot's Judgment: ``yes_no`` = correct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from campaigns.kinds.reading_comprehension.models import RCQuestion
from campaigns.models import Campaign, Hit, HitTask
from judgments.actions.specs import (
    ShownUnit,
    SubmissionError,
    TaskSpec,
    Unit,
    group_units,
    json_kind,
)
from judgments.actions.state import TaskState
from judgments.kinds import TaskPage
from judgments.kinds.reading_comprehension.common import (
    check_positions,
    human_translation,
    positions_object,
)
from judgments.kinds.reading_comprehension.words import common_words, stage_names

# --- The answer -------------------------------------------------------------------------------

GRADES_EXAMPLE = '{"1": true, "2": false}'


def _parse_grades(payload: Mapping[str, Any]) -> dict[int, bool]:
    """``grades``: per slot position, true (correct) or false (not correct)."""
    items = positions_object(payload, "grades", GRADES_EXAMPLE)
    for position in sorted(items):
        if not isinstance(items[position], bool):
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    "The grade of position {position} must be true (correct) or false (not "
                    "correct) (got {value}).",
                ).format(position=position, value=json_kind(items[position])),
                field=f"grades.{position}",
            )
    return items


def _bind_grades(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    grades: dict[int, bool] = answer["grades"]
    check_positions(
        grades,
        unit,
        "grades",
        pgettext(
            "reading comprehension answer", "Every answer to question {number} needs a grade"
        ).format(number=unit.number),
    )
    return {pk: {"yes_no": grades[position]} for pk, position in unit.slots}


GRADE_SPEC = TaskSpec(
    key="question",
    key_minimum=0,
    key_what=pgettext_lazy("reading comprehension answer", "the question whose answers you grade"),
    example=f'{{"question": 1, "grades": {GRADES_EXAMPLE}}}',
    parsers={"grades": _parse_grades},
    units=group_units,
    bind=_bind_grades,
    # 000: one question (with all its answers) at a time.
    page_size=lambda campaign: 1,
    unknown_unit=lambda key, units: pgettext(
        "reading comprehension answer",
        'There is no question {key} in this task: "question" is one of {questions}.',
    ).format(key=key, questions=", ".join(str(unit.key) for unit in units)),
    answered=lambda number: pgettext(
        "reading comprehension answer",
        "The answers to question {number} are already graded, and grades cannot be changed "
        "(there is no going back).",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "reading comprehension answer", "Continue with question {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "reading comprehension answer",
        "Grade the answers to question {number} first; the questions are graded in order.",
    ).format(number=number),
)


# --- What the worker's browser receives -------------------------------------------------------


def question_of(hit: Hit | None, number: int) -> RCQuestion | None:
    """The article's question a grading group stands for (``group`` = its number; one
    query)."""
    if hit is None or hit.document_id is None:
        return None
    return RCQuestion.objects.filter(document_id=hit.document_id, number=number).first()


def present_grading(unit: ShownUnit, hit: Hit) -> dict[str, Any]:
    """One question: its key (the group, sent back), its place on the page (``number``), its
    text and sample answer, and its answers (each slot's position and shown text, nothing
    about who answered or on which translation)."""
    question = question_of(hit, unit.key)
    return {
        "question": unit.key,
        "number": unit.number,
        "text": question.text if question else "",
        "sample_answer": question.sample_answer if question else "",
        "answers": [{"position": slot.position, "text": slot.shown_text} for slot in unit.slots],
    }


class GradePage(TaskPage):
    task = HitTask.RC_GRADE
    default_seconds_per_judgment = 30
    spec = GRADE_SPEC
    template = "judgments/rc_grade.html"
    preview_template = "judgments/rc_grade_preview.html"
    preview_class = "task-rc task-rc-grade"
    language_probe = ("reading comprehension page", "Grading answers")

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's grading screen, and what counts as correct (000 is silent: an answer that
        gives what the question asks, in any words, as its Appendix A's "correct" answers
        do: "a clinic in Arizona" for "She was at a specialist clinic in Arizona")."""
        return {
            **common_words(),
            "stage": stage_names()["grade"],
            "prompt": pgettext(
                "reading comprehension page",
                "Please read the article below. Then, for each question, mark every answer "
                "correct or not correct, compared with the article and the sample answer.",
            ),
            "rule": pgettext(
                "reading comprehension page",
                "An answer is correct when it gives what the question asks for, even in other "
                "words, more briefly or with spelling mistakes. The sample answer is one correct "
                "answer, not the only one.",
            ),
            "sample_answer": pgettext("reading comprehension page", "Sample answer"),
            "answers": pgettext("reading comprehension page", "Answers to grade"),
            # Translators: {n} is the answer's number under its question.
            "answer": pgettext("reading comprehension page", "Answer {n}"),
            "correct": pgettext("reading comprehension page", "Correct"),
            "not_correct": pgettext("reading comprehension page", "Not correct"),
            "keys": pgettext(
                "reading comprehension page",
                "Keyboard: C (correct) or N (not correct) grades the answer in focus and moves "
                "on to the next one; the arrow keys change a grade; Enter goes on to the next "
                "question once every answer is graded.",
            ),
            "next": pgettext("reading comprehension page", "Next question"),
            "last": pgettext("reading comprehension page", "Send your grades"),
            # Translators: the progress and the question's heading.
            "progress": pgettext("reading comprehension page", "Question {n} of {total}"),
            "hint": pgettext("reading comprehension page", "Grade every answer to go on."),
        }

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """One question and its answers (see :func:`present_grading`)."""
        return present_grading(unit, unit.slots[0].hit)

    def present(self, state: TaskState) -> dict[str, Any]:
        """The question on screen now, and the human translation of the article (the same on
        every question of the HIT; two queries)."""
        hit = state.assignment.hit
        return {
            **present_grading(state.shown[0], hit),
            "article": human_translation(hit.document_id),
        }

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The first question, read-only, under the article."""
        hit = unit.slots[0].hit
        shown = present_grading(unit, hit)
        return {
            "article": human_translation(hit.document_id),
            "heading": labels["progress"].format(n=1, total=total),
            "text": shown["text"],
            "sample_answer": shown["sample_answer"],
            "answers": [
                {"label": labels["answer"].format(n=number), "text": item["text"]}
                for number, item in enumerate(shown["answers"], start=1)
            ],
        }
