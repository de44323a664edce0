"""The voting page (issue 14 item 1, stage 2; 000 section 5.3 "Question selection": other
workers "vote on whether each question was a good and ... indicate if it was redundant with
any other questions in the set"): the human translation of the article and all its proposed
questions; per question, good or not, and which other questions it asks the same thing as.

The questions are the slots' shown texts, nothing else: never their sample answers (000 is
silent on showing them; a voter judges the question a reader will be asked, and a sample
answer on screen would let an answer leak to a worker who later reads another translation of
the article; the hand-out keeps voters off its answering HITs, but the less shown the less
to keep), never who wrote them. The whole page is one submission, ``{"page": 1, "votes":
{"<position>": {"good": true, "redundant_with": [3]}}}``, every question voted on: whether
two questions repeat each other is a judgment about the set, which a voter may revise as
they read on, and it names other slots of the same page, which the check below sees whole.

Each slot's Judgment: ``yes_no`` = good, ``details`` = ``{"redundant_with": [positions]}``:
other positions of this HIT, each once, sorted (RC_SPEC.md).
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
)
from judgments.kinds.reading_comprehension.words import common_words, guidance, stage_names

# --- The answer -------------------------------------------------------------------------------

VOTES_EXAMPLE = (
    '{"1": {"good": true, "redundant_with": []}, "2": {"good": false, "redundant_with": [1]}}'
)


def _parse_vote(position: int, item: Any) -> tuple[bool, list[int]]:
    field = f"votes.{position}"
    if not isinstance(item, dict):
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                'votes: position {position} must be an object with "good" and "redundant_with" '
                "(got {value}).",
            ).format(position=position, value=json_kind(item)),
            field=field,
        )
    only_fields(item, ("good", "redundant_with"), field, field)
    good = item.get("good")
    if not isinstance(good, bool):
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                'Question {position} needs "good": true (a good question) or false (got {value}).',
            ).format(position=position, value=json_kind(good)),
            field=f"{field}.good",
        )
    named = item.get("redundant_with")
    if not isinstance(named, list):
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                'Question {position} needs "redundant_with": the list of the positions of the '
                "other questions it repeats, [] for none (got {value}).",
            ).format(position=position, value=json_kind(named)),
            field=f"{field}.redundant_with",
        )
    seen: list[int] = []
    for other in named:
        if type(other) is not int:
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    "redundant_with of question {position} holds {value}, which is not a position.",
                ).format(position=position, value=json_kind(other)),
                field=f"{field}.redundant_with",
            )
        if other == position:
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    "Question {position} cannot repeat itself: leave {position} out of its "
                    "redundant_with.",
                ).format(position=position),
                field=f"{field}.redundant_with",
            )
        if other in seen:
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    "redundant_with of question {position} names {other} twice; name each "
                    "question once.",
                ).format(position=position, other=other),
                field=f"{field}.redundant_with",
            )
        seen.append(other)
    return good, sorted(seen)


def _parse_votes(payload: Mapping[str, Any]) -> dict[int, tuple[bool, list[int]]]:
    """``votes``: per slot position, good or not and the positions it repeats (checked against
    the page's positions by ``bind``)."""
    items = positions_object(payload, "votes", VOTES_EXAMPLE)
    return {position: _parse_vote(position, items[position]) for position in sorted(items)}


def _bind_votes(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Every question of the page voted on; each names only other questions of the page."""
    votes: dict[int, tuple[bool, list[int]]] = answer["votes"]
    check_positions(
        votes,
        unit,
        "votes",
        pgettext("reading comprehension answer", "Every question needs a vote"),
    )
    positions = set(unit.positions)
    for position, (_, named) in votes.items():
        unknown = [other for other in named if other not in positions]
        if unknown:
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    "Question {position} cannot repeat question {other}: this page's questions "
                    "are at positions {positions}.",
                ).format(
                    position=position,
                    other=unknown[0],
                    positions=", ".join(map(str, unit.positions)),
                ),
                field=f"votes.{position}.redundant_with",
            )
    return {
        pk: {"yes_no": votes[position][0], "details": {"redundant_with": votes[position][1]}}
        for pk, position in unit.slots
    }


SELECT_SPEC = TaskSpec(
    key="page",
    key_minimum=1,
    key_what=PAGE_KEY_WHAT,
    example=f'{{"page": 1, "votes": {VOTES_EXAMPLE}}}',
    parsers={"votes": _parse_votes},
    units=whole_hit_unit,
    bind=_bind_votes,
    page_size=lambda campaign: 1,
    **page_messages(),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_votes(unit: ShownUnit) -> dict[str, Any]:
    """The page (its key) and its questions: each slot's position and shown text (the
    question), nothing else about it (its author's judgment, its sample answer)."""
    return {
        "page": unit.key,
        "questions": [{"position": slot.position, "text": slot.shown_text} for slot in unit.slots],
    }


class SelectPage(TaskPage):
    task = HitTask.RC_SELECT
    default_seconds_per_judgment = 60
    spec = SELECT_SPEC
    template = "judgments/rc_select.html"
    preview_template = "judgments/rc_select_preview.html"
    preview_class = "task-rc task-rc-select"
    language_probe = ("reading comprehension page", "Voting on questions")

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's task (vote whether each question is good; mark the ones it repeats) with the
        guidance its authors had, then the page's own words."""
        return {
            **common_words(),
            **guidance(),
            "stage": stage_names()["select"],
            "prompt": pgettext(
                "reading comprehension page",
                "Please read the article below, then the questions that were written about it. "
                "Say whether each one is a good reading comprehension question, and mark the "
                "other questions it asks the same thing as.",
            ),
            "good_question": pgettext("reading comprehension page", "Is this a good question?"),
            "yes": pgettext("reading comprehension page", "Yes"),
            "no": pgettext("reading comprehension page", "No"),
            "same_as": pgettext("reading comprehension page", "It asks the same thing as:"),
            "keys": pgettext(
                "reading comprehension page",
                "Keyboard: Y (yes) or N (no) says whether the question in focus is good and "
                "moves on to the next question; a number key marks the question in focus as "
                "asking the same thing as that question, and unmarks it when pressed again; Tab "
                "moves between the choices; Enter sends your votes once every question has one.",
            ),
            "kept": pgettext(
                "reading comprehension page",
                "Your choices are kept in this browser until you send them, so reloading the "
                "page loses nothing.",
            ),
            "send": pgettext("reading comprehension page", "Send your votes"),
            # Translators: the progress; {done} questions of {total} have a yes or a no.
            "progress": pgettext(
                "reading comprehension page", "{done} of {total} questions voted on"
            ),
            "hint": pgettext(
                "reading comprehension page", "Say whether each question is good before you send."
            ),
        }

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """The questions, and the human translation of the HIT's article."""
        hit = unit.slots[0].hit
        return {**present_votes(unit), "article": human_translation(hit.document_id)}

    def present(self, state: TaskState) -> dict[str, Any]:
        unit, hit = state.shown[0], state.assignment.hit
        return {**present_votes(unit), "article": human_translation(hit.document_id)}

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The whole page, read-only: the article and the questions with their choices."""
        shown = self.present_unit(unit, campaign)
        positions = [item["position"] for item in shown["questions"]]
        return {
            "article": shown["article"],
            "questions": [
                {
                    "label": labels["question"].format(n=item["position"]),
                    "text": item["text"],
                    "others": [
                        labels["question"].format(n=other)
                        for other in positions
                        if other != item["position"]
                    ],
                }
                for item in shown["questions"]
            ],
        }
