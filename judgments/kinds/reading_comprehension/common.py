"""What the four reading-comprehension pages share: the article as the worker reads it, the
units (a whole HIT on one page), the parsers of answers keyed by slot position, and the
checks of worker-written text.

The article (RC_SPEC.md): ``hit.document``; its human translation is its segments' main
references in position order, a system's translation that system's outputs of those segments
(``hit.system``; None: the human translation). It is sent as a list of paragraphs, one per
segment: WMT-style articles are cut into sentences, and a news article's paragraphs are
mostly one or two sentences long anyway; on a 360-px phone one block of twenty joined
sentences is a wall of sixty lines with nowhere to rest the eye or to find a sentence again
(which the answering and grading workers do, question by question), while a sentence per
paragraph reads like the article's own short paragraphs. A segment that holds a whole
paragraph (some imports do) is then exactly one paragraph too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.utils.translation import npgettext, pgettext, pgettext_lazy

from campaigns.models import Hit, Output, Segment
from judgments.actions.specs import SubmissionError, Unit, json_kind
from judgments.i18n import number_words

# --- The article ------------------------------------------------------------------------------


def human_translation(document_id: int | None) -> list[str]:
    """The article's human translation: its segments' main references in position order, a
    segment without one left out (one query)."""
    if document_id is None:
        return []
    references = Segment.objects.filter(document_id=document_id).order_by("position")
    return [refs[0] for refs in references.values_list("references", flat=True) if refs]


def article_of(hit: Hit) -> list[str]:
    """The paragraphs a worker reads on ``hit``: the system's translation of the article when
    the HIT names a system, else the human translation (one query). Nothing says which it is:
    the page gets the texts only."""
    if hit.system_id is None:
        return human_translation(hit.document_id)
    outputs = Output.objects.filter(
        system_id=hit.system_id, segment__document_id=hit.document_id
    ).order_by("segment__position")
    # A system with a gap never gets an answering HIT (the stages leave it out), so a missing
    # output only shortens the article; an empty one is no paragraph.
    return [text for text in outputs.values_list("text", flat=True) if text]


# --- Units --------------------------------------------------------------------------------------


def whole_hit_unit(slots: list[tuple[int, int, int]]) -> list[Unit]:
    """The whole HIT as one unit, key 1 (the page): the authoring, voting and answering pages
    send all their slots at once (see the pages for why)."""
    if not slots:
        return []
    return [Unit(key=1, number=1, slots=tuple((pk, position) for pk, position, _ in slots))]


PAGE_KEY_WHAT = pgettext_lazy(
    "reading comprehension answer", "the page you send (1: the task has one page)"
)


def page_messages() -> dict[str, Callable[..., str]]:
    """The TaskSpec messages of a one-page task (:func:`whole_hit_unit`)."""
    return {
        "unknown_unit": lambda key, units: pgettext(
            "reading comprehension answer", 'There is no page {key} in this task: send "page": 1.'
        ).format(key=key),
        "answered": lambda number: pgettext(
            "reading comprehension answer",
            "This page is already sent, and what you sent cannot be changed.",
        ),
        "continue_with": lambda number: pgettext(
            "reading comprehension answer", "Continue with page {number}."
        ).format(number=number),
        "answer_first": lambda number: pgettext(
            "reading comprehension answer", "Send page {number} first."
        ).format(number=number),
    }


# --- Answers keyed by slot position -------------------------------------------------------------

# A position as a JSON object key: digits without a leading zero, so that "1" and "01" can
# never both name the same slot (as on the ranking page).
_POSITION_KEY = re.compile(r"[1-9][0-9]{0,8}")


def positions_object(payload: Mapping[str, Any], name: str, example: str) -> dict[int, Any]:
    """Field ``name``: an object keyed by slot positions ("1", "2", ...), as sent; its values
    are checked by the caller. SubmissionError naming ``name`` if it is missing or not such
    an object."""
    value = payload.get(name)
    if value is None:
        raise SubmissionError(
            pgettext(
                "reading comprehension answer", "{name} is required, for example {example}."
            ).format(name=name, example=example),
            field=name,
        )
    if not isinstance(value, dict):
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                "{name} must be an object keyed by position, for example {example} (got {value}).",
            ).format(name=name, example=example, value=json_kind(value)),
            field=name,
        )
    found: dict[int, Any] = {}
    for key, item in value.items():
        if not _POSITION_KEY.fullmatch(key):
            raise SubmissionError(
                pgettext(
                    "reading comprehension answer",
                    '{name} must be keyed by position, for example {example}; "{key}" is not a '
                    "position.",
                ).format(name=name, example=example, key=key[:40]),
                field=name,
            )
        found[int(key)] = item
    return found


def check_positions(named: Iterable[int], unit: Unit, name: str, missing_what: str) -> None:
    """The positions ``named`` in field ``name`` must be exactly the unit's: a position of no
    slot of the unit, or one of its slots left out, is a 400 naming them."""
    named = set(named)
    positions = ", ".join(str(position) for position in unit.positions)
    extra = sorted(named - set(unit.positions))
    if extra:
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                "{name} names position {position}, which is not in this page; its positions are "
                "{positions}.",
            ).format(name=name, position=extra[0], positions=positions),
            field=name,
        )
    missing = [position for position in unit.positions if position not in named]
    if missing:
        raise SubmissionError(
            npgettext(
                "reading comprehension answer",
                "{what}; missing: position {positions}.",
                "{what}; missing: positions {positions}.",
                len(missing),
            ).format(what=missing_what, positions=", ".join(map(str, missing))),
            field=name,
        )


# --- Worker-written text ----------------------------------------------------------------------

# A question, a sample answer or an answer is a sentence (000: "answerable in a few words");
# this keeps one request from storing megabytes while leaving room for a wordy worker.
MAX_TEXT_CHARS = 1000


def worker_text(value: Any, field: str, what: str, empty: str) -> str:
    """A text a worker wrote, trimmed (white space at either end means nothing, and a box of
    spaces is empty); SubmissionError naming ``field`` if it is not text, is empty (with the
    message ``empty``), too long or holds a character no database stores. ``what`` names the
    text in messages ("Question 2")."""
    if not isinstance(value, str):
        raise SubmissionError(
            pgettext("reading comprehension answer", "{what} must be text (got {value}).").format(
                what=what, value=json_kind(value)
            ),
            field=field,
        )
    text = value.strip()
    if not text:
        raise SubmissionError(empty, field=field)
    if len(text) > MAX_TEXT_CHARS:
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                "{what} is too long: at most {limit} characters (got {length}).",
            ).format(what=what, limit=number_words(MAX_TEXT_CHARS), length=number_words(len(text))),
            field=field,
        )
    # JSON can carry a NUL or a lone surrogate ("\ud800"), which no database column stores
    # (PostgreSQL refuses both): a clear 400 rather than a 500.
    if "\x00" in text or not _encodable(text):
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                "{what} holds a character that cannot be stored (U+0000 or a lone surrogate).",
            ).format(what=what),
            field=field,
        )
    return text


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def only_fields(item: Mapping[str, Any], allowed: tuple[str, ...], field: str, what: str) -> None:
    """An object sent for one slot holds only ``allowed`` fields."""
    unknown = sorted(name for name in item if name not in allowed)
    if unknown:
        raise SubmissionError(
            pgettext(
                "reading comprehension answer",
                'Unknown field "{name}" in {what}: send only {fields}.',
            ).format(name=unknown[0][:40], what=what, fields=", ".join(allowed)),
            field=field,
        )
