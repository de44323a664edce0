"""What both post-editing pages share: the text shown beside the sentence (the reference or the
source, by the campaign's mode; none in another kind's correction pass), whitespace
normalisation and the yes/no answer fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.utils.functional import Promise
from django.utils.translation import pgettext

from campaigns.models import Campaign, HitSlot
from judgments.actions.specs import SubmissionError, json_kind


def corrects(campaign: Campaign) -> bool:
    """Whether the editing page serves another kind's correction pass: a campaign without
    post-editing settings (crowd translation's second pass, 004) has its kept translations
    fixed for typos and grammar, shown alone (no reference, no source). Reading the settings
    once caches the answer on the campaign, missing or not."""
    try:
        return campaign.post_editing_settings is None
    except ObjectDoesNotExist:
        return True


def shows_source(campaign: Campaign) -> bool:
    """Bilingual mode (003): the source is shown; monolingual (000): the reference; in a
    correction pass, neither."""
    return not corrects(campaign) and campaign.post_editing_settings.shows_source


def context_of(slot: HitSlot, campaign: Campaign, source: bool | None = None) -> str:
    """The text shown beside a slot's sentence: its segment's main reference (monolingual
    mode) or its source (bilingual mode); '' for a slot without a segment. ``source`` saves
    reading the campaign's settings again when the caller knows the mode."""
    segment = slot.segment
    if segment is None or corrects(campaign):
        return ""
    if source is None:
        source = shows_source(campaign)
    return segment.source if source else segment.reference


def context_language(campaign: Campaign) -> str:
    """The language of the text shown beside the sentence (for its ``lang`` attribute)."""
    return campaign.source_language if shows_source(campaign) else campaign.target_language


def normalise(text: str) -> str:
    """``text`` with runs of white space (any Unicode space, tab or line break) made one space
    and none at either end: how the server compares an edit with the MT output and with the
    reference (SPEC: "after whitespace normalisation")."""
    return " ".join(text.split())


def flag_parser(
    name: str, what: Callable[[], str | Promise]
) -> Callable[[Mapping[str, Any]], bool]:
    """A parser of the required true/false field ``name``; ``what`` says what to send (called
    when the message is built, in the worker's language)."""

    def parse(payload: Mapping[str, Any]) -> bool:
        value = payload.get(name)
        if value is None:
            raise SubmissionError(
                pgettext("post-editing answer", "{name} is required: send {what}.").format(
                    name=name, what=what()
                ),
                field=name,
            )
        if not isinstance(value, bool):
            raise SubmissionError(
                pgettext("post-editing answer", "{name} must be {what} (got {value}).").format(
                    name=name, what=what(), value=json_kind(value)
                ),
                field=name,
            )
        return value

    return parse
