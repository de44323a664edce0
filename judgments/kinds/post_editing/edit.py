"""The editing page (issue 13 item 3; 000 section 5.2, 003): a run of consecutive segments of
one document, each with the reference (monolingual mode) or the source (bilingual mode) and
its MT output prefilled in a box, edited "making as few changes as possible so that it matches
the meaning of the human translation and is good English" (000's instructions, below).

One submission per segment (a slot), in document order, through the shared submit endpoint:
``{"position", "text", "keystrokes", "no_changes", "resets", "pasted", "client_started_at",
"client_duration_ms"}``. A segment is saved when the worker leaves it ("Save and continue",
Ctrl+Enter, or "No changes needed"), and a saved segment is final: judgments are append-only
(one per assignment and slot, ``record_judgment``), so the page shows saved segments read-only
with their edit and a reload resumes at the first unsaved one. Server-side, ``bind`` adds two
flags to the details that the browser is never trusted with: ``unchanged`` (the edit is the
MT output) and ``copied_reference`` (the edit is the reference: 000 asks workers not to paste
it). Neither blocks the edit: they are noticed and stored (003 section 7's did-nothing and
copied-the-reference workers), and the statistics decide what they mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

from campaigns.models import Campaign, HitSlot, HitTask
from judgments.actions.specs import (
    ShownUnit,
    SubmissionError,
    TaskSpec,
    Unit,
    _whole_number,
    json_kind,
    one_slot_units,
)
from judgments.actions.state import TaskState
from judgments.i18n import language_name, number_words
from judgments.kinds import TaskPage
from judgments.kinds.post_editing.common import (
    context_language,
    context_of,
    corrects,
    flag_parser,
    normalise,
    shows_source,
)
from judgments.models import Judgment

# --- The answer -------------------------------------------------------------------------------

# An edited sentence longer than this is not an edit of one segment: it keeps a single request
# from storing megabytes (WMT's longest segments are a few hundred characters).
MAX_EDIT_CHARS = 10_000

EDIT_EXAMPLE = (
    '{"position": 1, "text": "The edited sentence.", "keystrokes": 12, "no_changes": false, '
    '"resets": 0, "pasted": false}'
)


def _parse_text(payload: Mapping[str, Any]) -> str:
    """``text``: the edited sentence exactly as typed (not stripped: the edit is stored as the
    worker left it; comparisons normalise white space). Whether it may be empty depends on the
    segment, so ``bind`` decides that."""
    value = payload.get("text")
    if value is None:
        raise SubmissionError(
            pgettext(
                "post-editing answer",
                "Your edit is missing: send the edited translation, as it stands in the box.",
            ),
            field="text",
        )
    if not isinstance(value, str):
        raise SubmissionError(
            pgettext("post-editing answer", "Your edit must be sent as text (got {value}).").format(
                value=json_kind(value)
            ),
            field="text",
        )
    if len(value) > MAX_EDIT_CHARS:
        raise SubmissionError(
            pgettext(
                "post-editing answer",
                "Your edit is too long: at most {limit} characters (got {length}).",
            ).format(limit=number_words(MAX_EDIT_CHARS), length=number_words(len(value))),
            field="text",
        )
    # JSON can carry a NUL or a lone surrogate ("\ud800"), which no database column stores
    # (PostgreSQL refuses both): a clear 400 rather than a 500.
    if "\x00" in value or not _encodable(value):
        raise SubmissionError(
            pgettext(
                "post-editing answer",
                "Your edit holds a character that cannot be stored (U+0000 or a lone surrogate); "
                "send the text as typed.",
            ),
            field="text",
        )
    return value


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _count(name: str, what: str) -> Any:
    """A parser of the required count ``name`` (a whole number from 0)."""

    def parse(payload: Mapping[str, Any]) -> int:
        value = _whole_number(payload, name, 0, what)
        if value is None:
            raise SubmissionError(
                pgettext("post-editing answer", "{name} is required: {what}.").format(
                    name=name, what=what
                ),
                field=name,
            )
        return value

    return parse


def _true_or_false() -> str:
    return pgettext("post-editing answer", "true or false")


def _bind_edit(unit: Unit, answer: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Check the edit against its segment and give the Judgment's ``text`` and ``details``.

    One query (the slot and its segment): the MT output and the reference are needed to
    refuse an empty edit and to compute the two server-side flags, which the browser could
    not be trusted to report.
    """
    slot = HitSlot.objects.select_related("segment").get(pk=unit.slot_ids[0])
    text, mt_output = answer["text"], slot.shown_text
    edit, machine = normalise(text), normalise(mt_output)
    # An empty edit: 000 says nothing. An edit must keep the reference's meaning, which
    # nothing empty does, and deleting the whole MT output is what a worker does by mistake
    # (select all, then a stray key) far more often than on purpose; so it is refused with a
    # message, unless the MT output itself is empty (then leaving it empty is no change).
    if not edit and machine:
        raise SubmissionError(
            pgettext(
                "post-editing answer",
                "The edited translation of segment {number} is empty. Edit the machine "
                "translation rather than deleting it; if it needs no changes, choose “No changes "
                "needed”.",
            ).format(number=unit.number),
            field="text",
        )
    unchanged = edit == machine
    if answer["no_changes"] and not unchanged:
        raise SubmissionError(
            pgettext(
                "post-editing answer",
                "no_changes is true, but the text differs from the machine translation of "
                "segment {number}: send the machine translation unchanged, or no_changes false.",
            ).format(number=unit.number),
            field="no_changes",
        )
    reference = normalise(slot.segment.reference) if slot.segment else ""
    details = {
        "keystrokes": answer["keystrokes"],
        "no_changes": answer["no_changes"],
        "resets": answer["resets"],
        "pasted": answer["pasted"],
        "unchanged": unchanged,
        # False without a reference: an empty edit of an empty segment copied nothing.
        "copied_reference": bool(reference) and edit == reference,
    }
    return {slot.pk: {"text": text, "details": details}}


EDIT_SPEC = TaskSpec(
    key="position",
    key_minimum=1,
    key_what=pgettext_lazy("post-editing answer", "the number of the segment you save"),
    example=EDIT_EXAMPLE,
    parsers={
        "text": _parse_text,
        "keystrokes": _count(
            "keystrokes",
            pgettext_lazy("post-editing answer", "the number of keys pressed in the box"),
        ),
        "no_changes": flag_parser("no_changes", _true_or_false),
        "resets": _count(
            "resets",
            pgettext_lazy(
                "post-editing answer",
                "the number of times the box was reset to the machine translation",
            ),
        ),
        "pasted": flag_parser("pasted", _true_or_false),
    },
    units=one_slot_units,
    bind=_bind_edit,
    # The page shows the whole run (present() below), but the state machine moves one
    # segment at a time, so that the server's own time of each edit (served_at, the previous
    # save) is the time on that segment, like the browser's client_duration_ms.
    page_size=lambda campaign: 1,
    slots_per_page=1,
    unknown_unit=lambda key, units: pgettext(
        "post-editing answer",
        "There is no segment {key} in this task; it has segments 1 to {last}.",
    ).format(key=key, last=len(units)),
    answered=lambda number: pgettext(
        "post-editing answer",
        "Segment {number} is already saved, and saved segments cannot be changed.",
    ).format(number=number),
    continue_with=lambda number: pgettext(
        "post-editing answer", "Continue with segment {number}."
    ).format(number=number),
    answer_first=lambda number: pgettext(
        "post-editing answer", "Save segment {number} first; the segments are saved in order."
    ).format(number=number),
)


# --- What the worker's browser receives -------------------------------------------------------


def present_segment(
    slot: HitSlot,
    campaign: Campaign,
    saved: tuple[str, Mapping[str, Any]] | None = None,
    *,
    source: bool | None = None,
) -> dict[str, Any]:
    """One segment: its position (the only handle), the reference or source beside it
    (``context``), the MT output to edit (``mt``, the slot's shown text) and, once saved, the
    worker's own edit and whether they chose "No changes needed". Nothing else about the slot
    (its role, output or system) is read."""
    text, details = saved if saved is not None else (None, {})
    return {
        "position": slot.position,
        "context": context_of(slot, campaign, source),
        "mt": slot.shown_text,
        "edit": text,
        "no_changes": bool(details.get("no_changes", False)),
    }


class EditPage(TaskPage):
    task = HitTask.POST_EDIT
    # A sentence to correct: a generous minute.
    default_seconds_per_judgment = 60
    spec = EDIT_SPEC
    template = "judgments/post_edit.html"
    preview_template = "judgments/post_edit_preview.html"
    preview_class = "task-post-edit"
    language_probe = (
        "post-editing page",
        "Edit the machine translation, making as few changes as possible, so that it has the "
        "same meaning as the reference translation and is good {language}.",
    )

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """000's instructions ("Edit Machine Translation": its sentence and its five
        guidelines), for the campaign's mode: the bilingual mode compares with the source
        text instead of the reference, and has no reference to paste. Then the page's own
        words."""
        language = language_name(campaign.target_language)
        if corrects(campaign):
            return self.correction_words(language)
        if shows_source(campaign):
            # Translators: {language} is the target language's name as Django's catalog of
            # this language writes it ("Englisch"; Czech gives an adverb, "anglicky").
            prompt = pgettext(
                "post-editing page",
                "Edit the machine translation, making as few changes as possible, so that it has "
                "the same meaning as the source text and is good {language}.",
            )
            meaning = pgettext(
                "post-editing page",
                "Change the machine translation so that it has the same meaning as the source "
                "text.",
            )
            context = pgettext("post-editing page", "Source text")
        else:
            # Translators: {language} as above.
            prompt = pgettext(
                "post-editing page",
                "Edit the machine translation, making as few changes as possible, so that it has "
                "the same meaning as the reference translation and is good {language}.",
            )
            meaning = pgettext(
                "post-editing page",
                "Change the machine translation so that it has the same meaning as the reference "
                "translation.",
            )
            context = pgettext("post-editing page", "Reference translation")
        guidelines = [
            meaning,
            pgettext(
                "post-editing page", "Make the machine translation into intelligible {language}."
            ).format(language=language),
            pgettext("post-editing page", "Use as few edits as possible."),
            pgettext(
                "post-editing page",
                "Do not insert or delete punctuation simply to follow traditional rules about "
                "what is “proper”.",
            ),
        ]
        if not shows_source(campaign):
            guidelines.append(
                pgettext(
                    "post-editing page",
                    "Please do not copy and paste the reference translation into the machine "
                    "translation.",
                )
            )
        return {
            **self.words_of_page(),
            "prompt": prompt.format(language=language),
            "guidelines": guidelines,
            "context": context,
        }

    def words_of_page(self) -> dict[str, Any]:
        """The page's own words, whatever the mode."""
        return {
            "saving": pgettext(
                "post-editing page",
                "Each segment is saved when you move on to the next one, and saved segments "
                "cannot be changed. If a translation needs no changes, choose “No changes "
                "needed”.",
            ),
            "keys": pgettext(
                "post-editing page",
                "Keyboard: Ctrl+Enter saves the segment and moves on to the next one; "
                "Ctrl+Shift+Enter saves it as “No changes needed”; Tab reaches the buttons.",
            ),
            "mt": pgettext("post-editing page", "Machine translation"),
            "box": pgettext("post-editing page", "Your edit of the machine translation"),
            "edit": pgettext("post-editing page", "Your edit"),
            # Translators: a segment's heading, and the progress; {n} is its number.
            "segment": pgettext("post-editing page", "Segment {n} of {total}"),
            "saved": pgettext("post-editing page", "Saved"),
            "save": pgettext("post-editing page", "Save and continue"),
            "no_changes": pgettext("post-editing page", "No changes needed"),
            "reset": pgettext("post-editing page", "Reset to the machine translation"),
            "changed_first": pgettext(
                "post-editing page",
                "You have changed this translation. If it needs no changes, press “Reset to the "
                "machine translation” first.",
            ),
            "network_error": pgettext(
                "post-editing page",
                "Your edit could not be sent (no connection?). It is kept: press “Save and "
                "continue” again to retry.",
            ),
            "load_error": pgettext(
                "post-editing page",
                "The task could not be loaded (no connection?). Reload the page to retry.",
            ),
        }

    def correction_words(self, language: str) -> dict[str, Any]:
        """Another kind's correction pass (crowd translation, 004's second pass): a person's
        translation alone, to fix for typos, spelling and grammar without retranslating. No
        reference or source is shown (``context`` is empty: the page leaves its place out)."""
        words = self.words_of_page()
        return {
            **words,
            # Translators: {language} is the target language's name, as above.
            "prompt": pgettext(
                "correction page",
                "Fix typos, spelling and grammar in each {language} translation; do not "
                "retranslate.",
            ).format(language=language),
            "guidelines": [
                pgettext(
                    "correction page",
                    "Correct spelling mistakes, typing errors, punctuation and grammar.",
                ),
                pgettext(
                    "correction page",
                    "Keep the translation's meaning and wording: change only what is wrong.",
                ),
                pgettext(
                    "correction page",
                    "If a translation has no mistakes, choose “No changes needed”.",
                ),
            ],
            "context": "",
            "mt": pgettext("correction page", "Translation"),
            "box": pgettext("correction page", "Your correction of the translation"),
            "edit": pgettext("correction page", "Your correction"),
            "reset": pgettext("correction page", "Reset to the translation"),
            "changed_first": pgettext(
                "correction page",
                "You have changed this translation. If it needs no changes, press “Reset to the "
                "translation” first.",
            ),
            "network_error": pgettext(
                "correction page",
                "Your correction could not be sent (no connection?). It is kept: press “Save and "
                "continue” again to retry.",
            ),
        }

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        # The box takes no more than the server stores (a paste past it is cut, not refused).
        return {"context_lang": context_language(campaign), "max_chars": MAX_EDIT_CHARS}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        return present_segment(unit.slots[0], campaign)

    def present(self, state: TaskState) -> dict[str, Any]:
        """Every segment of the HIT in position order (see :func:`present_segment`), the
        saved ones with the worker's edit: the page shows the whole run of the document, and
        a reload comes back to the first unsaved segment with the others as they were left.
        Two queries (the slots with their segments, this assignment's edits)."""
        assignment = state.assignment
        campaign = assignment.campaign
        source = shows_source(campaign)
        slots = (
            HitSlot.objects.filter(hit_id=assignment.hit_id)
            .select_related("segment")
            .order_by("position")
        )
        saved = {
            slot_id: (text, details)
            for slot_id, text, details in Judgment.objects.filter(
                assignment=assignment
            ).values_list("slot_id", "text", "details")
        }
        return {
            "segments": [
                present_segment(slot, campaign, saved.get(slot.pk), source=source) for slot in slots
            ]
        }

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The template's view of the first segment: what the item endpoint would send for it."""
        segment = present_segment(unit.slots[0], campaign)
        return {
            "heading": labels["segment"].format(n=1, total=total),
            "context": segment["context"],
            "mt": segment["mt"],
            "context_lang": context_language(campaign),
        }
