"""The verification page (issue 13 item 4; 000 section 5.2): another worker reads the
reference (or, in a bilingual campaign, the source) and an edited sentence and answers 000's
two questions, "Does the edited translation have the same meaning as the reference human
translation?" and "Is it acceptable English?", noting that "Some small errors are OK, so
long as its still understandable."

One sentence at a time, one submission per slot (``{"position", "same_meaning",
"acceptable"}``), stored as ``yes_no`` and ``yes_no_second``; no way back, as on the
direct-assessment page. A verification slot's shown text is the edit and its
``about_judgment`` the edit's judgment: the page sends the text only, never who wrote it, the
MT output or its system.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from campaigns.models import Campaign, HitTask
from judgments.actions.specs import ShownUnit, TaskSpec, Unit, one_slot_units
from judgments.actions.state import TaskState
from judgments.i18n import language_name
from judgments.kinds import TaskPage
from judgments.kinds.post_editing.common import (
    context_language,
    context_of,
    flag_parser,
    shows_source,
)

# --- The answer -------------------------------------------------------------------------------


def _yes_or_no() -> str:
    return pgettext("post-editing answer", "true (yes) or false (no)")


def _bind_verification(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """000's first question is ``yes_no``, its second ``yes_no_second`` (SPEC)."""
    return {
        unit.slot_ids[0]: {
            "yes_no": answer["same_meaning"],
            "yes_no_second": answer["acceptable"],
        }
    }


VERIFY_SPEC = TaskSpec(
    key="position",
    key_minimum=1,
    key_what=pgettext_lazy("post-editing answer", "the number of the sentence you answer"),
    example='{"position": 1, "same_meaning": true, "acceptable": false}',
    parsers={
        "same_meaning": flag_parser("same_meaning", _yes_or_no),
        "acceptable": flag_parser("acceptable", _yes_or_no),
    },
    units=one_slot_units,
    bind=_bind_verification,
    page_size=lambda campaign: 1,
    slots_per_page=1,
    unknown_unit=lambda key, units: pgettext(
        "post-editing answer",
        "There is no sentence {key} in this task; it has sentences 1 to {last}.",
    ).format(key=key, last=len(units)),
    answered=lambda number: pgettext(
        "post-editing answer",
        "Sentence {number} is already answered, and answers cannot be changed (there is no going "
        "back).",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "post-editing answer", "Continue with sentence {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "post-editing answer",
        "Answer sentence {number} first; the sentences are answered in order.",
    ).format(number=number),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_verification(unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
    """One sentence to verify: its position (the only handle), the reference or source
    (``context``) and the edited sentence (``text``, the slot's shown text). Nothing about
    the edit's author, output or system is read."""
    slot = unit.slots[0]
    return {
        "position": slot.position,
        "context": context_of(slot, campaign),
        "text": slot.shown_text,
    }


class VerifyPage(TaskPage):
    task = HitTask.VERIFY_EDIT
    # Two yes/no questions on one sentence, like a DA item.
    default_seconds_per_judgment = 20
    spec = VERIFY_SPEC
    template = "judgments/verify_edit.html"
    preview_template = "judgments/verify_edit_preview.html"
    preview_class = "task-verify-edit"
    language_probe = (
        "verification page",
        "Does the edited translation have the same meaning as the reference translation?",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's two questions and its note, for the campaign's mode (bilingual: the source
        text instead of the reference), and the page's own words."""
        if shows_source(campaign):
            prompt = pgettext(
                "verification page",
                "First read the source text. Then judge the edited translation by two criteria:",
            )
            same_meaning = pgettext(
                "verification page",
                "Does the edited translation have the same meaning as the source text?",
            )
            context = pgettext("verification page", "Source text")
        else:
            prompt = pgettext(
                "verification page",
                "First read the reference translation. Then judge the edited translation by two "
                "criteria:",
            )
            same_meaning = pgettext(
                "verification page",
                "Does the edited translation have the same meaning as the reference translation?",
            )
            context = pgettext("verification page", "Reference translation")
        # Translators: {language} is the target language's name as Django's catalog of this
        # language writes it ("Englisch"; Czech gives an adverb, "anglicky").
        acceptable = pgettext("verification page", "Is it acceptable {language}?")
        return {
            "prompt": prompt,
            "same_meaning": same_meaning,
            "acceptable": acceptable.format(language=language_name(campaign.target_language)),
            "note": pgettext(
                "verification page",
                "Some small errors are OK, so long as it is still understandable.",
            ),
            "context": context,
            "text": pgettext("verification page", "Edited translation"),
            "yes": pgettext("verification page", "Yes"),
            "no": pgettext("verification page", "No"),
            "keys": pgettext(
                "verification page",
                "Keyboard: press Y (yes) or N (no) to answer each question in turn, then Enter to "
                "go on to the next sentence.",
            ),
            "hint": pgettext("verification page", "Answer both questions to go on."),
            "next": pgettext("verification page", "Next"),
            # Translators: the number of the sentence on screen and the task's number of them.
            "progress": pgettext("verification page", "Sentence {n} of {total}"),
            "network_error": pgettext(
                "verification page",
                "Your answers could not be sent (no connection?). They are kept: press Next "
                "again to retry.",
            ),
            "load_error": pgettext(
                "verification page",
                "The task could not be loaded (no connection?). Reload the page to retry.",
            ),
        }

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"context_lang": context_language(campaign)}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        return present_verification(unit, campaign)

    def present(self, state: TaskState) -> dict[str, Any]:
        """The current sentence (see :func:`present_verification`)."""
        return present_verification(state.shown[0], state.assignment.campaign)

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The template's view of the first sentence: what the item endpoint would send."""
        item = present_verification(unit, campaign)
        return {
            "progress": labels["progress"].format(n=1, total=total),
            "context": item["context"],
            "text": item["text"],
            "context_lang": context_language(campaign),
            "questions": [labels["same_meaning"], labels["acceptable"]],
        }
