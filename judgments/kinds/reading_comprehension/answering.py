"""The answering page (issue 14 item 1, stage 3; 000 section 5.3 "Taking the test"): a worker
reads the article in one translation (``hit.system``'s, or the human one when the HIT names
no system: the control) and answers its kept questions "using just a few words".

Nothing on the page tells one translation from another: the texts are the only thing that
differs, and the instructions say "automatically translated" on the control too, as 000's
did (its three control readers had the same HIT), since anything else would tell those
readers they hold the human translation. No question carries its sample answer.

The whole page is one submission, ``{"page": 1, "answers": {"<position>": "..."}}``, every
question answered (trimmed, not empty): 000's HIT was one form, and a reader who understands
more by the third question may want to rework the first; the page keeps the boxes in the
browser's session storage until they are sent. Each slot's Judgment: ``text`` = the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import pgettext

from campaigns.models import Campaign, HitTask
from judgments.actions.specs import ShownUnit, TaskSpec, Unit
from judgments.actions.state import TaskState
from judgments.i18n import language_name
from judgments.kinds import TaskPage
from judgments.kinds.reading_comprehension.common import (
    PAGE_KEY_WHAT,
    article_of,
    check_positions,
    page_messages,
    positions_object,
    whole_hit_unit,
    worker_text,
)
from judgments.kinds.reading_comprehension.words import common_words, stage_names

# --- The answer -------------------------------------------------------------------------------

ANSWERS_EXAMPLE = '{"1": "He was worried about her.", "2": "In a clinic in Arizona."}'


def _parse_answers(payload: Mapping[str, Any]) -> dict[int, str]:
    """``answers``: per slot position, the answer, trimmed and not empty."""
    items = positions_object(payload, "answers", ANSWERS_EXAMPLE)
    return {
        position: worker_text(
            items[position],
            f"answers.{position}",
            pgettext("reading comprehension answer", "The answer to question {position}").format(
                position=position
            ),
            pgettext(
                "reading comprehension answer",
                "The answer to question {position} is empty: give your best guess, in a few words.",
            ).format(position=position),
        )
        for position in sorted(items)
    }


def _bind_answers(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    answers: dict[int, str] = answer["answers"]
    check_positions(
        answers,
        unit,
        "answers",
        pgettext("reading comprehension answer", "Every question needs an answer"),
    )
    return {pk: {"text": answers[position]} for pk, position in unit.slots}


ANSWER_SPEC = TaskSpec(
    key="page",
    key_minimum=1,
    key_what=PAGE_KEY_WHAT,
    example=f'{{"page": 1, "answers": {ANSWERS_EXAMPLE}}}',
    parsers={"answers": _parse_answers},
    units=whole_hit_unit,
    bind=_bind_answers,
    page_size=lambda campaign: 1,
    **page_messages(),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_answers(unit: ShownUnit) -> dict[str, Any]:
    """The page (its key) and its questions: each slot's position and shown text only (never
    the question's sample answer, its number in the article or its author)."""
    return {
        "page": unit.key,
        "questions": [{"position": slot.position, "text": slot.shown_text} for slot in unit.slots],
    }


class AnswerPage(TaskPage):
    task = HitTask.RC_ANSWER
    default_seconds_per_judgment = 90
    spec = ANSWER_SPEC
    template = "judgments/rc_answer.html"
    preview_template = "judgments/rc_answer_preview.html"
    preview_class = "task-rc task-rc-answer"
    language_probe = ("reading comprehension page", "Answering questions")

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's instructions ("Answer questions about a machine translated text"), with the
        campaign's languages in place of "another language" and "English", then the page's
        own words."""
        # Translators: {source} and {target} are language names as Django's catalog of this
        # language writes them ("Deutsch", "Englisch"; Czech gives adverbs, "německy").
        prompt = pgettext(
            "reading comprehension page",
            "You will answer questions about an article that has been automatically translated "
            "from {source} into {target}. The translation may contain many errors, but the goal "
            "is to see how understandable it is. Please do your best to guess at the right "
            "answers to the questions.",
        )
        return {
            **common_words(),
            "stage": stage_names()["answer"],
            "prompt": prompt.format(
                source=language_name(campaign.source_language),
                target=language_name(campaign.target_language),
            ),
            "please": pgettext("reading comprehension page", "Please:"),
            "steps": [
                pgettext(
                    "reading comprehension page",
                    "Read through the automatically translated article.",
                ),
                pgettext(
                    "reading comprehension page",
                    "Answer the questions listed below, using just a few words.",
                ),
                pgettext(
                    "reading comprehension page",
                    "Give your best guess at the answers, even if the translation is hard to "
                    "understand.",
                ),
                pgettext(
                    "reading comprehension page",
                    "Don’t use any other information to answer the questions.",
                ),
            ],
            "answer_box": pgettext("reading comprehension page", "Your answer to question {n}"),
            "keys": pgettext(
                "reading comprehension page",
                "Keyboard: Enter goes on to the next question; Ctrl+Enter sends your answers "
                "once every question has one; Tab also moves between the boxes.",
            ),
            "kept": pgettext(
                "reading comprehension page",
                "What you type is kept in this browser until you send it, so reloading the page "
                "loses nothing.",
            ),
            "send": pgettext("reading comprehension page", "Send your answers"),
            # Translators: the progress; {done} questions of {total} have an answer.
            "progress": pgettext(
                "reading comprehension page", "{done} of {total} questions answered"
            ),
            "empty_answer": pgettext(
                "reading comprehension page", "Answer question {n}: a guess is fine."
            ),
            "hint": pgettext(
                "reading comprehension page", "Answer every question before you send."
            ),
        }

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """The questions, and the article in the HIT's translation."""
        return {**present_answers(unit), "article": article_of(unit.slots[0].hit)}

    def present(self, state: TaskState) -> dict[str, Any]:
        unit, hit = state.shown[0], state.assignment.hit
        return {**present_answers(unit), "article": article_of(hit)}

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The whole page, read-only: the article and the questions with empty boxes."""
        shown = self.present_unit(unit, campaign)
        return {
            "article": shown["article"],
            "questions": [
                {
                    "label": labels["question"].format(n=item["position"]),
                    "answer_label": labels["answer_box"].format(n=item["position"]),
                    "text": item["text"],
                    "position": item["position"],
                }
                for item in shown["questions"]
            ],
        }
