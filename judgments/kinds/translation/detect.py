"""The Detect-MT page (issue 15 item 2; 000 section 5.1's "Detect machine translation" HIT):
another worker sees a source sentence (an image, or text, as on the translation page) and one
crowd translation of it, and says whether the translation looks like it came from an online
machine translation system.

One sentence at a time, one submission per slot (``{"position", "machine"}``), stored as
``yes_no`` (True: looks machine made; False: looks human); no way back, as on the
verification page. A Detect-MT slot's shown text is the translation and its
``about_judgment`` the translation's judgment: the page sends the text only, never who
translated it.

000's instructions asked the workers to translate the text with two online MT systems, paste
the outputs into boxes, then click the translations that looked like them. The outputs they
pasted served only to compare; here the requester imports MT outputs with the segments and the
statistics compare every translation with them automatically (chrF or BLEU), so the page keeps
000's question and leaves out the boxes (and an image source could not be pasted anyway).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from campaigns.models import Campaign, HitTask
from judgments.actions.specs import ShownUnit, TaskSpec, Unit, one_slot_units
from judgments.actions.state import TaskState
from judgments.i18n import language_name
from judgments.kinds import TaskPage
from judgments.kinds.translation.common import (
    flag_parser,
    image_base,
    present_source,
    shows_image,
)


def _true_or_false() -> str:
    return pgettext(
        "translation answer", "true (looks machine made) or false (looks like a person's work)"
    )


def _bind_vote(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {unit.slot_ids[0]: {"yes_no": answer["machine"]}}


DETECT_SPEC = TaskSpec(
    key="position",
    key_minimum=1,
    key_what=pgettext_lazy("translation answer", "the number of the translation you answer"),
    example='{"position": 1, "machine": false}',
    parsers={"machine": flag_parser("machine", _true_or_false)},
    units=one_slot_units,
    bind=_bind_vote,
    page_size=lambda campaign: 1,
    slots_per_page=1,
    unknown_unit=lambda key, units: pgettext(
        "translation answer",
        "There is no translation {key} in this task; it has translations 1 to {last}.",
    ).format(key=key, last=len(units)),
    answered=lambda number: pgettext(
        "translation answer",
        "Translation {number} is already answered, and answers cannot be changed (there is no "
        "going back).",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "translation answer", "Continue with translation {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "translation answer",
        "Answer translation {number} first; the translations are answered in order.",
    ).format(number=number),
)


def present_vote(unit: ShownUnit, image: str | None) -> dict[str, Any]:
    """One translation to judge: its position (the only handle), the source (an image URL or
    the text) and the translation (the slot's shown text). Nothing about its translator."""
    slot = unit.slots[0]
    return {
        "position": slot.position,
        **present_source(slot, image),
        "translation": slot.shown_text,
    }


class DetectPage(TaskPage):
    task = HitTask.DETECT_MT
    default_seconds_per_judgment = 20
    spec = DETECT_SPEC
    template = "judgments/detect_mt.html"
    preview_template = "judgments/detect_mt_preview.html"
    preview_class = "task-detect-mt"
    language_probe = (
        "detect-mt page",
        "Does this translation look like it came from an online machine translation system?",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's question, with its reason in a sentence, and the page's own words."""
        return {
            "prompt": pgettext(
                "detect-mt page",
                "Some translators paste the output of an online machine translation system "
                "instead of translating. Read each source sentence and its {language} "
                "translation, and say whether the translation looks like it came from an online "
                "machine translation system.",
            ).format(language=language_name(campaign.target_language)),
            "question": pgettext(
                "detect-mt page",
                "Does this translation look like it came from an online machine translation "
                "system?",
            ),
            "source": pgettext("detect-mt page", "Source sentence"),
            "translation": pgettext("detect-mt page", "Translation"),
            "yes": pgettext("detect-mt page", "Yes"),
            "no": pgettext("detect-mt page", "No"),
            "keys": pgettext(
                "detect-mt page",
                "Keyboard: press Y (yes) or N (no), then Enter to go on to the next translation.",
            ),
            "hint": pgettext("detect-mt page", "Answer the question to go on."),
            "next": pgettext("detect-mt page", "Next"),
            # Translators: the number of the translation on screen and the task's number of them.
            "progress": pgettext("detect-mt page", "Translation {n} of {total}"),
            "preview_images": pgettext(
                "detect-mt page", "The source sentences are shown once you accept the task."
            ),
            "image_error": pgettext(
                "detect-mt page",
                "The picture of this sentence could not be loaded. Reload the page to retry.",
            ),
            "network_error": pgettext(
                "detect-mt page",
                "Your answer could not be sent (no connection?). It is kept: press Next again to "
                "retry.",
            ),
            "load_error": pgettext(
                "detect-mt page",
                "The task could not be loaded (no connection?). Reload the page to retry.",
            ),
        }

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        return {"source_as_image": shows_image(campaign)}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """A unit without its assignment (MTurk's preview): an image campaign's source is sent
        as neither image nor text (an image is served only to the worker holding the task)."""
        if shows_image(campaign):
            return {**present_vote(unit, None), "image": None, "source": None}
        return present_vote(unit, None)

    def present(self, state: TaskState) -> dict[str, Any]:
        """The current translation (see :func:`present_vote`)."""
        assignment = state.assignment
        image = image_base(assignment) if shows_image(assignment.campaign) else None
        return present_vote(state.shown[0], image)

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        item = self.present_unit(unit, campaign)
        return {
            "progress": labels["progress"].format(n=1, total=total),
            "source": item["source"],
            "translation": item["translation"],
            "source_lang": campaign.source_language,
        }
