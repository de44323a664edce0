"""What the translation pages share: how a slot's source sentence reaches the worker (as the URL
of its image, or as text when the campaign shows sources as text) and the parsers of the
answers' fields."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from django.urls import reverse
from django.utils.translation import pgettext

from campaigns.models import Campaign, HitSlot
from judgments import tokens
from judgments.actions.specs import SubmissionError, _whole_number, json_kind
from judgments.i18n import number_words
from judgments.models import Assignment

# A translation longer than this is not one sentence's translation: it keeps one request from
# storing megabytes (as the post-editing page's limit).
MAX_TRANSLATION_CHARS = 10_000
# Seconds on one sentence: at most a week (as the shared client duration).
MAX_SECONDS = 7 * 24 * 3600.0


def shows_image(campaign: Campaign) -> bool:
    """Whether the campaign's sources are shown as images (one query the first time)."""
    return campaign.translation_settings.source_as_image


def image_base(assignment: Assignment) -> str:
    """The image URL of position 0 of an assignment's HIT without its number: the page's
    images are ``image_base + position``."""
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse("judgments:task-source-image", args=[token, 0])[:-1]


def present_source(slot: HitSlot, image: str | None) -> dict[str, Any]:
    """The source sentence of ``slot``: ``image`` (its URL, when sources are images: the
    text then never leaves the server) or ``source`` (its text)."""
    if image is not None:
        return {"image": f"{image}{slot.position}", "source": None}
    segment = slot.segment
    return {"image": None, "source": segment.source if segment is not None else ""}


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_translation(payload: Mapping[str, Any]) -> str:
    """``text``: the translation, stripped; required, not empty."""
    value = payload.get("text")
    if value is None:
        raise SubmissionError(
            pgettext("translation answer", "Your translation is missing: send it as text."),
            field="text",
        )
    if not isinstance(value, str):
        raise SubmissionError(
            pgettext(
                "translation answer", "Your translation must be sent as text (got {value})."
            ).format(value=json_kind(value)),
            field="text",
        )
    if len(value) > MAX_TRANSLATION_CHARS:
        raise SubmissionError(
            pgettext(
                "translation answer",
                "Your translation is too long: at most {limit} characters (got {length}).",
            ).format(limit=number_words(MAX_TRANSLATION_CHARS), length=number_words(len(value))),
            field="text",
        )
    if "\x00" in value or not _encodable(value):
        raise SubmissionError(
            pgettext(
                "translation answer",
                "Your translation holds a character that cannot be stored (U+0000 or a lone "
                "surrogate); send the text as typed.",
            ),
            field="text",
        )
    text = value.strip()
    if not text:
        raise SubmissionError(
            pgettext(
                "translation answer", "The translation is empty: write the sentence's translation."
            ),
            field="text",
        )
    return text


def count_parser(name: str, what: Callable[[], str]) -> Callable[[Mapping[str, Any]], int]:
    """A parser of the required count ``name`` (a whole number from 0)."""

    def parse(payload: Mapping[str, Any]) -> int:
        value = _whole_number(payload, name, 0, what())
        if value is None:
            raise SubmissionError(
                pgettext("translation answer", "{name} is required: {what}.").format(
                    name=name, what=what()
                ),
                field=name,
            )
        return value

    return parse


def parse_seconds(payload: Mapping[str, Any]) -> float:
    """``seconds``: the time spent on the sentence, a number from 0 to a week (rounded to a
    tenth of a second)."""
    value = payload.get("seconds")
    if value is None:
        raise SubmissionError(
            pgettext(
                "translation answer",
                "seconds is required: the time spent on the sentence, a number of seconds from 0 "
                "(got {value}).",
            ).format(value=json_kind(value)),
            field="seconds",
        )
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 <= value <= MAX_SECONDS
    ):
        # Sent, but not a time: say what it must be, as the other fields' messages do.
        raise SubmissionError(
            pgettext(
                "translation answer",
                "seconds must be the time spent on the sentence, a number of seconds from 0 to "
                "{maximum} (a week) (got {value}).",
            ).format(maximum=f"{MAX_SECONDS:.0f}", value=json_kind(value)),
            field="seconds",
        )
    return round(float(value), 1)


def flag_parser(name: str, what: Callable[[], str]) -> Callable[[Mapping[str, Any]], bool]:
    """A parser of the required true/false field ``name``."""

    def parse(payload: Mapping[str, Any]) -> bool:
        value = payload.get(name)
        if not isinstance(value, bool):
            raise SubmissionError(
                pgettext(
                    "translation answer", "{name} is required: send {what} (got {value})."
                ).format(name=name, what=what(), value=json_kind(value)),
                field=name,
            )
        return value

    return parse
