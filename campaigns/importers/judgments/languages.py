"""Language pairs of published judgment files, and choosing one pair from a file of several.

WMT's files name languages in three ways: ISO 639-1 codes (direct assessment: ``cs``, ``en``),
English names (WMT08's ``Czech-English`` tasks, WMT10-14's ``srclang`` ``Czech``) and the
three-letter codes of Appraise's exports (WMT15-16: ``cze``, ``deu``, ``eng``; ISO 639-2,
bibliographic or terminology, plus Appraise's own ``esn`` and ``ptb``). A file may hold every
pair of a year (WMT08's judgments, the ``.all.csv`` of WMT15-16): the import option
``language_pair`` ("de-en") keeps the rows of one pair, whichever way the file names it.
"""

from __future__ import annotations

from functools import cache

# Three-letter codes seen in WMT's and Appraise's files (both ISO 639-2 forms where they
# differ), to ISO 639-1. Appraise also wrote "esn" for Spanish and "ptb" for Brazilian
# Portuguese (WMT16's IT task).
THREE_LETTER = {
    "ara": "ar", "baq": "eu", "ben": "bn", "bul": "bg", "ces": "cs", "chi": "zh", "cze": "cs",
    "dan": "da", "deu": "de", "dut": "nl", "ell": "el", "eng": "en", "esn": "es", "est": "et",
    "eus": "eu", "fin": "fi", "fra": "fr", "fre": "fr", "ger": "de", "gre": "el", "guj": "gu",
    "hau": "ha", "heb": "he", "hin": "hi", "hrv": "hr", "hun": "hu", "isl": "is", "ice": "is",
    "ita": "it", "jpn": "ja", "kaz": "kk", "khm": "km", "kor": "ko", "lav": "lv", "lit": "lt",
    "nld": "nl", "pol": "pl", "por": "pt", "ptb": "pt", "pus": "ps", "ron": "ro", "rum": "ro",
    "rus": "ru", "slk": "sk", "slo": "sk", "slv": "sl", "spa": "es", "swe": "sv", "tam": "ta",
    "tur": "tr", "ukr": "uk", "xho": "xh", "zho": "zh", "zul": "zu",
}  # fmt: skip


@cache
def _names() -> dict[str, str]:
    """English language names (lower case) to ISO 639-1 codes, from Babel's CLDR data."""
    from babel import Locale

    return {
        name.lower(): code
        for code, name in Locale("en").languages.items()
        if len(code) == 2 and code.isalpha()
    }


def language_code(text: str) -> str | None:
    """The ISO 639-1 code of a language as a file or a person names it ("de", "deu", "ger",
    "German", "de-DE"); None when it is not recognised."""
    word = text.strip().lower().replace("_", "-")
    if not word:
        return None
    base = word.split("-")[0]
    if len(base) == 2 and base.isalpha():
        return base
    if base in THREE_LETTER:
        return THREE_LETTER[base]
    return _names().get(word) or _names().get(base)


def parse_pair(text: str) -> tuple[str, str] | None:
    """The option ``language_pair`` ("de-en", "deu-eng", "German-English") as two ISO 639-1
    codes; None when it is not two recognised languages joined by a hyphen."""
    parts = [part for part in text.strip().replace("_", "-").split("-") if part.strip()]
    if len(parts) != 2:
        return None
    codes = (language_code(parts[0]), language_code(parts[1]))
    if codes[0] is None or codes[1] is None:
        return None
    return codes[0], codes[1]


def pair_matches(selected: tuple[str, str], pair: tuple[str, ...]) -> bool:
    """Whether a file's pair (two names or codes; WMT08 tasks without a pair have one field)
    is the selected one."""
    return len(pair) == 2 and (language_code(pair[0]), language_code(pair[1])) == selected
