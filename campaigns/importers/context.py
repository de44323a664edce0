"""What a parser needs to know about the campaign, without touching the database."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from campaigns.importers.reading import MAX_ID_CHARS, MAX_TEXT_CHARS, NUL_ADVICE, is_blank
from campaigns.kinds import kind_of
from campaigns.models import Campaign

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ParseContext:
    kind: str
    needs_reference: bool
    parse_progress: Progress | None = None
    # Whether segments may come without any system outputs (the kind's outputs_optional).
    outputs_optional: bool = False

    @classmethod
    def for_campaign(cls, campaign: Campaign, parse_progress: Progress | None = None):
        kind = kind_of(campaign)
        return cls(
            kind=campaign.kind,
            needs_reference=kind.needs_reference,
            parse_progress=parse_progress,
            outputs_optional=kind.outputs_optional,
        )

    @property
    def kind_label(self) -> str:
        """ "direct assessment", "post-editing": how messages name the campaign's kind."""
        return self.kind.replace("post_editing", "post-editing").replace("_", " ")


def text_problem(value: str | None, what: str) -> str | None:
    """Why a text field cannot be imported, or None. ``what`` names it ("output", "source")."""
    if is_blank(value):
        return f"empty segment; every {what} needs text"
    if "\x00" in value:
        return nul_value_problem(what)
    if len(value) > MAX_TEXT_CHARS:
        return (
            f"segment of {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,} (a segment "
            "this long is almost always a broken file: a lost line break or an unclosed quote)"
        )
    return None


def id_problem(value: str | None, what: str) -> str | None:
    """Why an id (document, segment, system name) cannot be imported, or None."""
    if is_blank(value):
        return f"empty {what}"
    if "\x00" in value:
        return nul_value_problem(what)
    if len(value) > MAX_ID_CHARS:
        return f"{what} of {len(value):,} characters; the limit is {MAX_ID_CHARS}"
    return None


def nul_value_problem(what: str) -> str:
    """A NUL character in a value (JSON's \\u0000: a database cannot store it)."""
    return f"the {what} contains a NUL character (\\u0000, byte 0x00); {NUL_ADVICE}"
