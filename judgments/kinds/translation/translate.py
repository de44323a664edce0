"""The translation page (issue 15 item 1; 000 section 5.1, 004): a run of consecutive source
sentences of one document, each shown as an image rendered on the server (or as text when the
campaign says so) with a box for its translation, under 000's instructions.

One submission per sentence (a slot), in document order, through the shared submit endpoint:
``{"position", "text", "keystrokes", "pastes", "seconds", "client_started_at",
"client_duration_ms"}``, stored as the Judgment's ``text`` (stripped, never empty) and
``details`` ``{"keystrokes", "pastes", "seconds"}``: the keys pressed in the box, the times
text was pasted or dropped into it, and the seconds from the sentence becoming the one to
translate to its saving (what the page measures: the statistics compare translations with the
imported MT outputs; these only describe how the text came about). A sentence is saved when
the worker moves on ("Save and continue" or Enter) and is final, as on the post-editing page:
a reload shows the saved ones with their translation and resumes at the first unsaved one.

With ``source_as_image`` the source text never leaves the server: each sentence's ``image`` is
the URL of its PNG (:mod:`.views`, addressed by the assignment's token and the slot's
position), and nothing else the page receives holds the text.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from campaigns.models import Campaign, HitSlot, HitTask
from judgments.actions.specs import ShownUnit, TaskSpec, Unit, one_slot_units
from judgments.actions.state import TaskState
from judgments.i18n import language_name
from judgments.kinds import TaskPage
from judgments.kinds.translation.common import (
    MAX_TRANSLATION_CHARS,
    count_parser,
    image_base,
    parse_seconds,
    parse_translation,
    present_source,
    shows_image,
)
from judgments.models import Judgment

TRANSLATE_EXAMPLE = (
    '{"position": 1, "text": "Your translation of the sentence.", "keystrokes": 40, '
    '"pastes": 0, "seconds": 31.5}'
)


def _bind_translation(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {
        unit.slot_ids[0]: {
            "text": answer["text"],
            "details": {
                "keystrokes": answer["keystrokes"],
                "pastes": answer["pastes"],
                "seconds": answer["seconds"],
            },
        }
    }


TRANSLATE_SPEC = TaskSpec(
    key="position",
    key_minimum=1,
    key_what=pgettext_lazy("translation answer", "the number of the sentence you save"),
    example=TRANSLATE_EXAMPLE,
    parsers={
        "text": parse_translation,
        "keystrokes": count_parser(
            "keystrokes",
            lambda: pgettext("translation answer", "the number of keys pressed in the box"),
        ),
        "pastes": count_parser(
            "pastes",
            lambda: pgettext(
                "translation answer", "the number of times text was pasted into the box"
            ),
        ),
        "seconds": parse_seconds,
    },
    units=one_slot_units,
    bind=_bind_translation,
    # One sentence at a time for the state machine (the page shows the whole run), so that
    # each translation's server time counts from the previous save, as on the post-edit page.
    page_size=lambda campaign: 1,
    slots_per_page=1,
    unknown_unit=lambda key, units: pgettext(
        "translation answer",
        "There is no sentence {key} in this task; it has sentences 1 to {last}.",
    ).format(key=key, last=len(units)),
    answered=lambda number: pgettext(
        "translation answer",
        "Sentence {number} is already saved, and saved sentences cannot be changed.",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "translation answer", "Continue with sentence {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "translation answer",
        "Save sentence {number} first; the sentences are saved in order.",
    ).format(number=number),
)


def present_sentence(
    slot: HitSlot, image: str | None, translation: str | None = None
) -> dict[str, Any]:
    """One sentence: its position (the only handle), its source (an image URL or the text:
    :func:`present_source`) and, once saved, the worker's translation."""
    return {"position": slot.position, **present_source(slot, image), "translation": translation}


class TranslatePage(TaskPage):
    task = HitTask.TRANSLATE
    # A sentence to translate: a generous minute.
    default_seconds_per_judgment = 60
    spec = TRANSLATE_SPEC
    template = "judgments/translate.html"
    preview_template = "judgments/translate_preview.html"
    preview_class = "task-translate"
    language_probe = (
        "translation page",
        "Your task is to translate these sentences into {language}.",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's instructions ("Translate these sentences": the sentence, the four points a
        translation must meet and the two about how to make it), then the page's own words.
        000's last line ("Afterwards, we'll ask you a few quick questions about your language
        abilities") is left out: the questions come before the first task here."""
        # Translators: {language} is the target language's name as Django's catalog of this
        # language writes it ("Englisch"; Czech gives an adverb, "anglicky").
        language = language_name(campaign.target_language)
        return {
            "heading": pgettext("translation page", "Translate these sentences"),
            "prompt": pgettext(
                "translation page", "Your task is to translate these sentences into {language}."
            ).format(language=language),
            "make_sure": pgettext(
                "translation page", "Please make sure that your {language} translation:"
            ).format(language=language),
            "requirements": [
                pgettext(
                    "translation page", "Is faithful to the original in both meaning and style"
                ),
                pgettext(
                    "translation page", "Is grammatical, fluent, and natural-sounding {language}"
                ).format(language=language),
                pgettext(
                    "translation page", "Does not add or delete information from the original text"
                ),
                pgettext("translation page", "Does not contain any spelling errors"),
            ],
            "creating": pgettext("translation page", "When creating your translation, please:"),
            "rules": [
                pgettext("translation page", "Do not use any machine translation systems"),
                pgettext(
                    "translation page",
                    "You may look up a word on wordreference.com if you do not know its "
                    "translation",
                ),
            ],
            "saving": pgettext(
                "translation page",
                "Each sentence is saved when you move on to the next one, and saved sentences "
                "cannot be changed.",
            ),
            "keys": pgettext(
                "translation page",
                "Keyboard: Enter saves the sentence and moves on to the next one; Tab reaches the "
                "button.",
            ),
            # Translators: the text of a source sentence's image, for screen readers; {n} is its
            # number in the task.
            "source": pgettext("translation page", "Source sentence {n}"),
            "box": pgettext("translation page", "Your translation"),
            # Translators: a sentence's heading and the progress; {n} is its number.
            "sentence": pgettext("translation page", "Sentence {n} of {total}"),
            "saved": pgettext("translation page", "Saved"),
            "save": pgettext("translation page", "Save and continue"),
            "empty": pgettext(
                "translation page", "Write your translation of the sentence before you move on."
            ),
            "image_note": pgettext(
                "translation page",
                "The sentences are shown as pictures. Type your translation; do not copy the "
                "sentence into a translation website.",
            ),
            "preview_images": pgettext(
                "translation page",
                "The sentences to translate are shown once you accept the task.",
            ),
            "image_error": pgettext(
                "translation page",
                "The picture of this sentence could not be loaded. Reload the page to retry.",
            ),
            "network_error": pgettext(
                "translation page",
                "Your translation could not be sent (no connection?). It is kept: press “Save and "
                "continue” again to retry.",
            ),
            "load_error": pgettext(
                "translation page",
                "The task could not be loaded (no connection?). Reload the page to retry.",
            ),
        }

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        # The box takes no more than the server stores (a paste past it is cut, not refused).
        return {"source_as_image": shows_image(campaign), "max_chars": MAX_TRANSLATION_CHARS}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """A unit without its assignment (MTurk's preview): no image URL exists for it, so an
        image campaign's sentence is sent as neither image nor text."""
        slot = unit.slots[0]
        if shows_image(campaign):
            return {"position": slot.position, "image": None, "source": None, "translation": None}
        return present_sentence(slot, None)

    def present(self, state: TaskState) -> dict[str, Any]:
        """Every sentence of the HIT in position order (see :func:`present_sentence`), the
        saved ones with the worker's translation. Three queries (the campaign's settings, the
        slots with their segments, this assignment's translations)."""
        assignment = state.assignment
        image = image_base(assignment) if shows_image(assignment.campaign) else None
        slots = (
            HitSlot.objects.filter(hit_id=assignment.hit_id)
            .select_related("segment")
            .order_by("position")
        )
        saved = dict(Judgment.objects.filter(assignment=assignment).values_list("slot_id", "text"))
        return {"sentences": [present_sentence(slot, image, saved.get(slot.pk)) for slot in slots]}

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The first sentence as the preview shows it: its text when the campaign shows text,
        else a note that the sentences come once the task is accepted (an image is served only
        to the worker holding the assignment)."""
        item = self.present_unit(unit, campaign)
        return {
            "heading": labels["sentence"].format(n=1, total=total),
            "source": item["source"],
            "source_lang": campaign.source_language,
        }
