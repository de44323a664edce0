"""Bad references for direct assessment: deliberately degraded system outputs.

Pure module (no Django). Source: Graham, Baldwin, Moffat and Zobel, "Is Machine Translation
Getting Better over Time?" (EACL 2014, section 3, ``papers/001``) and "Continuous Measurement
Scales in Human Evaluation of Machine Translation" (LAW 2013, section 4, same file).
``METHODS.md`` section 2 summarises both.

A bad reference is paired with the output it was made from; a careful worker scores it lower,
which is what the reliability tests in ``analytics`` check. Two recipes:

* **fluency** (2013 section 4; 2014 section 3): "randomly selecting two words in the sentence
  and duplicating them in random locations not adjacent to the original word and not in the
  initial or sentence-final position". See :func:`degrade_fluency`.
* **adequacy** (2014 section 3): "randomly delete a short sub-string of length proportional to
  the length of the original translation": a run of ``k`` words, ``k`` from the table in
  :func:`adequacy_run_length`. WMT's later practice (Appraise's ``_create_bad_ref``) puts a
  same-length phrase from another segment's reference in place of the deleted run; that is
  the ``replace`` option of :func:`degrade_adequacy`. The phrase must come from a *different*
  segment: an alternative reference of the same segment says the same thing, so its phrase
  would keep the meaning and the bad reference would not be bad (issue 17). The caller passes
  the other segments' references (``campaigns.builders.direct_assessment`` does).

Units
-----
Everything is counted in *units*:

* Languages written with spaces: a unit is a whitespace-delimited token (what ``str.split()``
  returns), punctuation attached to a word stays with it. That is what the papers count.
* Languages written without spaces between words (:data:`CHARACTER_LANGUAGES`, decided by the
  primary subtag of the language code, so ``zh-Hans``, ``zh_TW``, ``ja-JP`` and ``th-TH`` all
  count): a unit is one letter or digit together with the combining marks that follow it
  (Thai and Lao vowel and tone marks, Myanmar signs: copying or deleting a bare mark would make
  an unreadable glyph, not a plausible error). Two refinements keep this sensible: a run of
  letters or digits from a script that does use spaces (an embedded ``iPhone`` or ``2014``) is
  one unit, not one per character; and whitespace, punctuation and symbols are never units, so
  they are never copied, never counted in ``n`` and never make up a deleted run on their own
  (punctuation inside a deleted run, and the separator next to it, go with it, as they would
  with a missing phrase). The length
  table is applied to these units as is; Appraise instead doubles ``k`` for character
  languages, we keep the paper's table so ``k`` stays a fixed share of the sentence.

A "word-like" unit contains at least one letter or digit. Only word-like units are picked as
the two words to copy, a deleted run must contain one and leave one behind, so that a
bad reference never consists of copied or deleted punctuation only. Hence every recipe needs at
least two word-like units (:data:`MIN_WORDS`), which is also the paper's "a one-word sentence
cannot be degraded"; :func:`can_degrade` tests exactly that.

Minimum length for fluency: with ``n`` units the output has ``n + 2`` and a copy may not sit
at position ``0`` or ``n + 1`` nor next to its original. For ``n = 2`` exactly one placement
exists (``a b`` becomes ``a b a b``: the copy of ``a`` at 2, of ``b`` at 1), for ``n = 3``
every pair of words has placements, and for ``n >= 4`` placing the copies one after the other
always works: the first copy has ``n - 1`` interior positions in ``n + 1`` units of which at
most two touch its original, so ``n - 3 >= 1`` remain; the second has ``n`` interior positions
in ``n + 2`` units, at most two touch its original, so ``n - 2 >= 2`` remain; and inserting
the second copy can neither move the first to an end nor next to its original. So the
recipe's own minimum is two units (``tests/campaigns/test_degradation.py`` checks all pairs
exhaustively for ``n <= 8``).

Randomness comes only from the ``random.Random`` passed in: the same seed gives the same
bad reference.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "ADEQUACY",
    "CHARACTER_LANGUAGES",
    "DELETE",
    "FLUENCY",
    "INSERT",
    "MIN_WORDS",
    "MODES",
    "OPTIONS",
    "REPLACE",
    "BadReference",
    "adequacy_run_length",
    "can_degrade",
    "degrade",
    "degrade_adequacy",
    "degrade_fluency",
    "is_character_language",
    "is_word_like",
    "split_units",
]

FLUENCY = "fluency"
ADEQUACY = "adequacy"
MODES = (FLUENCY, ADEQUACY)

# Adequacy options (the campaign's ``degradation`` field): the paper's deletion, or WMT's
# replacement by a phrase from another reference.
DELETE = "delete"
REPLACE = "replace"
OPTIONS = (DELETE, REPLACE)

# ``BadReference.method``: what was actually done (``replace`` falls back to ``delete`` when
# no other reference has a usable phrase).
INSERT = "insert"

# Two word-like units: the fluency recipe picks two distinct words, and the adequacy recipe
# must delete a word and keep one (a one-word sentence cannot be degraded, 2014 section 3).
MIN_WORDS = 2

# References drawn at random for a replacement phrase before the whole list is tried in order.
_REPLACEMENT_DRAWS = 16

# Primary language subtags (ISO 639-1 and the ISO 639-2/3 codes in use for the same
# languages) of scripts written without spaces between words: Chinese (incl. Cantonese, Wu,
# Mandarin), Japanese, Thai, Lao, Khmer, Burmese. Korean and Vietnamese use spaces.
CHARACTER_LANGUAGES = frozenset(
    {
        "zh", "zho", "chi", "cmn", "yue", "wuu",
        "ja", "jpn",
        "th", "tha",
        "lo", "lao",
        "km", "khm",
        "my", "mya", "bur",
    }
)  # fmt: skip

# Code point ranges of the scripts written without spaces. A letter or digit inside them is
# a unit of its own; one outside them (Latin, Cyrillic, Hangul, fullwidth Latin, ...) joins
# its neighbours into one word-like unit. Ordered, non-overlapping.
_CONTINUOUS_SCRIPT_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x312F),  # CJK symbols (the letters among them, e.g. 々 〇), kana, bopomofo
    (0x3190, 0x31FF),  # Kanbun, bopomofo extended, CJK strokes, katakana extension
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # halfwidth katakana
    (0x1B000, 0x1B16F),  # kana supplement and extensions
    (0x20000, 0x3FFFF),  # CJK extensions B and later, compatibility supplement
)

_SEP, _CHAR, _RUN = "sep", "char", "run"  # atom kinds: separator, single-character unit, run


@dataclass(frozen=True)
class _Atom:
    """A piece of the text: a unit (``char``/``run`` kind) or the separator between units."""

    text: str
    kind: str

    @property
    def is_unit(self) -> bool:
        return self.kind != _SEP


@dataclass(frozen=True)
class BadReference:
    """A degraded output and exactly what was done to it (for audits and tests).

    ``text`` is what the worker sees. ``original_units`` / ``units`` are the unit sequences
    (see module docstring) before and after. Fluency: ``copied_from[i]`` is the index in
    ``original_units`` of a word that was copied, ``inserted_at[i]`` the index in ``units`` of
    its copy. Adequacy: ``original_units[span_start:span_start + span_length]`` was removed and
    ``replacement`` (empty for ``delete``) put in its place.
    """

    text: str
    method: str
    original_units: tuple[str, ...]
    units: tuple[str, ...]
    copied_from: tuple[int, ...] = ()
    inserted_at: tuple[int, ...] = ()
    span_start: int | None = None
    span_length: int = 0
    replacement: tuple[str, ...] = ()


def is_character_language(language: str) -> bool:
    """Whether ``language`` (a BCP 47 / ISO code such as ``zh-Hans`` or ``ja_JP``) is degraded
    by characters: its primary subtag is in :data:`CHARACTER_LANGUAGES`, case-insensitively."""
    primary = language.strip().replace("_", "-").split("-", 1)[0].lower()
    return primary in CHARACTER_LANGUAGES


def _is_combining(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Mc", "Me")


def _is_letter_or_digit(ch: str) -> bool:
    return unicodedata.category(ch)[0] in ("L", "N")


def _in_continuous_script(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in _CONTINUOUS_SCRIPT_RANGES)


# For str patterns \s is exactly str.isspace(), so the units are what str.split() returns.
_WORDS_AND_SPACES = re.compile(r"(\s+)|\S+")


def _atoms_by_words(text: str) -> list[_Atom]:
    # Whitespace is kept as separators so that the untouched parts of the text keep their
    # original spacing.
    return [
        _Atom(match.group(), _SEP if match.group(1) else _RUN)
        for match in _WORDS_AND_SPACES.finditer(text)
    ]


def _atoms_by_characters(text: str) -> list[_Atom]:
    atoms: list[_Atom] = []

    def extend_last(ch: str) -> None:
        atoms[-1] = _Atom(atoms[-1].text + ch, atoms[-1].kind)

    for ch in text:
        last = atoms[-1] if atoms else None
        if _is_combining(ch):
            # A mark belongs to the unit before it; a mark with no unit before it (after a
            # space, or at the start) is not a readable unit, so it stays a separator.
            if last is not None:
                extend_last(ch)
            else:
                atoms.append(_Atom(ch, _SEP))
        elif _is_letter_or_digit(ch):
            if _in_continuous_script(ch):
                atoms.append(_Atom(ch, _CHAR))
            elif last is not None and last.kind == _RUN:
                extend_last(ch)
            else:
                atoms.append(_Atom(ch, _RUN))
        elif last is not None and last.kind == _SEP:
            extend_last(ch)
        else:
            atoms.append(_Atom(ch, _SEP))
    return atoms


def _atoms(text: str, language: str) -> list[_Atom]:
    if is_character_language(language):
        return _atoms_by_characters(text)
    return _atoms_by_words(text)


def split_units(text: str, language: str) -> list[str]:
    """The units of ``text`` (words, or characters for :func:`is_character_language`)."""
    return [atom.text for atom in _atoms(text, language) if atom.is_unit]


def is_word_like(unit: str) -> bool:
    """A unit with at least one letter or digit (not a bare punctuation token)."""
    return any(_is_letter_or_digit(ch) for ch in unit)


def _render(atoms: Sequence[_Atom], character_based: bool) -> str:
    """Join atoms into text so that splitting it again gives back exactly the same units.

    Edits can leave two units side by side with nothing between them: two words (which would
    merge into one token) or, in a character language, two runs such as ``iPhone`` and
    ``2014``. A single space keeps them apart; two characters need nothing.
    """
    parts: list[str] = []
    previous: _Atom | None = None
    for atom in atoms:
        if previous is not None and previous.is_unit and atom.is_unit:
            if not character_based or (previous.kind == _RUN and atom.kind == _RUN):
                parts.append(" ")
        parts.append(atom.text)
        previous = atom
    return "".join(parts)


def adequacy_run_length(n: int) -> int:
    """Number ``k`` of consecutive units an adequacy bad reference loses, for ``n`` units.

    2014 section 3: ``2 <= n <= 3: k = 1``; ``4-5: 2``; ``6-8: 3``; ``9-15: 4``; ``16-20: 5``;
    ``n > 20: k = ceil(n / 5)``. The bracket of the last case is garbled in the text; ceil
    keeps ``k`` from dropping (floor would give 4 at ``n = 21``, below the 5 of ``n = 20``).
    ``k < n`` always, so a sentence is never deleted whole. Raises ``ValueError`` for
    ``n < 2``: a one-word sentence cannot be degraded.
    """
    if n < 2:
        raise ValueError(f"a sentence of {n} unit(s) cannot be degraded (need at least 2)")
    if n <= 3:
        return 1
    if n <= 5:
        return 2
    if n <= 8:
        return 3
    if n <= 15:
        return 4
    if n <= 20:
        return 5
    return -(-n // 5)


def can_degrade(text: str, mode: str, language: str) -> bool:
    """Whether ``text`` may be the source of a bad reference in ``mode`` (see module docstring:
    both recipes need :data:`MIN_WORDS` word-like units, which is also enough for both)."""
    _check_mode(mode)
    units = split_units(text, language)
    return sum(1 for unit in units if is_word_like(unit)) >= MIN_WORDS


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")


def _require_degradable(text: str, mode: str, language: str) -> None:
    if not can_degrade(text, mode, language):
        raise ValueError(
            f"cannot make a {mode} bad reference from {text!r}: it needs at least {MIN_WORDS} words"
        )


def _final_positions(n: int, inserted: tuple[int, int]) -> list[int]:
    """Positions, in the ``n + 2`` units of the output, of the ``n`` original units."""
    taken = set(inserted)
    return [position for position in range(n + 2) if position not in taken]


def _placement_ok(n: int, sources: tuple[int, int], inserted: tuple[int, int]) -> bool:
    if inserted[0] == inserted[1]:
        return False
    if not all(1 <= position <= n for position in inserted):  # never first (0) nor last (n+1)
        return False
    originals = _final_positions(n, inserted)
    return all(
        abs(position - originals[source]) >= 2
        for source, position in zip(sources, inserted, strict=True)
    )


def _choose_placement(n: int, sources: tuple[int, int], rng: random.Random) -> tuple[int, int]:
    """A placement drawn uniformly from all valid ones for copying ``sources``.

    Rejection sampling on the ``n * n`` candidate pairs is fast for long sentences (most
    candidates are valid); short ones (``n = 2`` has a single valid placement out of four)
    fall back to listing every valid placement, which is still uniform.
    """
    for _ in range(200):
        inserted = (rng.randint(1, n), rng.randint(1, n))
        if _placement_ok(n, sources, inserted):
            return inserted
    valid = [
        (first, second)
        for first in range(1, n + 1)
        for second in range(1, n + 1)
        if _placement_ok(n, sources, (first, second))
    ]
    # Non-empty for every n >= 2 (module docstring; exhaustive test for small n).
    return rng.choice(valid)


def degrade_fluency(text: str, language: str, rng: random.Random) -> BadReference:
    """Fluency bad reference (2013 section 4, 2014 section 3): copy two distinct words,
    chosen uniformly among the word-like units, each to a position that is neither the first
    nor the last of the result nor next to the word it copies (drawn uniformly among the
    placements that satisfy this). Raises ``ValueError`` if :func:`can_degrade` is false."""
    _require_degradable(text, FLUENCY, language)
    character_based = is_character_language(language)
    atoms = _atoms(text, language)
    unit_atoms = [atom for atom in atoms if atom.is_unit]
    n = len(unit_atoms)
    words = [index for index, atom in enumerate(unit_atoms) if is_word_like(atom.text)]
    first, second = rng.sample(words, 2)
    sources = (first, second)
    inserted = _choose_placement(n, sources, rng)

    # Final unit sequence: copies at their positions, originals in order in the rest.
    final: list[_Atom | None] = [None] * (n + 2)
    for source, position in zip(sources, inserted, strict=True):
        final[position] = unit_atoms[source]
    originals = iter(unit_atoms)
    for position in range(n + 2):
        if final[position] is None:
            final[position] = next(originals)

    # Rebuild the text: the separators around the original units stay where they were; a
    # copy goes directly before the unit that follows it in the result (a copy is never last,
    # so there always is one), and _render puts a space between units where one is needed.
    out: list[_Atom] = []
    position = 0
    for atom in atoms:
        if not atom.is_unit:
            out.append(atom)
            continue
        while position in inserted:
            out.append(final[position])  # type: ignore[arg-type]
            position += 1
        out.append(atom)
        position += 1
    rendered = _render(out, character_based)
    return BadReference(
        text=rendered,
        method=INSERT,
        original_units=tuple(atom.text for atom in unit_atoms),
        units=tuple(atom.text for atom in final),  # type: ignore[union-attr]
        copied_from=sources,
        inserted_at=inserted,
    )


def _windows(unit_count: int, k: int) -> range:
    return range(unit_count - k + 1)


def _choose_replacement(
    removed: Sequence[str],
    k: int,
    other_references: Sequence[str],
    language: str,
    rng: random.Random,
) -> list[_Atom] | None:
    """A phrase of ``k`` units from one of ``other_references`` (tried in random order), with a
    word in it and different from the removed run; ``None`` if no reference has one.

    ``other_references`` may be a whole campaign's references (every other segment's, see
    ``campaigns.builders.direct_assessment``): a few references drawn at random are tried
    first (almost always enough: most references have a run of ``k`` words), and only if all
    of them fail is the whole list tried in a random order, so one bad reference costs a few
    draws, not a shuffle of the campaign. The draws come from ``rng`` alone: the same seed
    gives the same phrase.
    """
    count = len(other_references)
    if not count:
        return None
    drawn = [rng.randrange(count) for _ in range(min(count, _REPLACEMENT_DRAWS))]
    for index in drawn:
        phrase = _phrase_from(other_references[index], removed, k, language, rng)
        if phrase is not None:
            return phrase
    order = list(range(count))
    rng.shuffle(order)
    for index in order:
        phrase = _phrase_from(other_references[index], removed, k, language, rng)
        if phrase is not None:
            return phrase
    return None


def _phrase_from(
    reference: str, removed: Sequence[str], k: int, language: str, rng: random.Random
) -> list[_Atom] | None:
    """A random phrase of ``k`` units of ``reference`` with a word in it that differs from the
    removed run (as written there, with its inner separators); ``None`` if it has none."""
    atoms = _atoms(reference, language)
    unit_indices = [i for i, atom in enumerate(atoms) if atom.is_unit]
    candidates = []
    for start in _windows(len(unit_indices), k):
        phrase = [atoms[i].text for i in unit_indices[start : start + k]]
        if phrase != list(removed) and any(is_word_like(unit) for unit in phrase):
            candidates.append(start)
    if not candidates:
        return None
    start = rng.choice(candidates)
    return atoms[unit_indices[start] : unit_indices[start + k - 1] + 1]


def degrade_adequacy(
    text: str,
    language: str,
    rng: random.Random,
    *,
    replace: bool = False,
    other_references: Sequence[str] = (),
) -> BadReference:
    """Adequacy bad reference (2014 section 3): remove one run of ``k`` consecutive units,
    ``k = adequacy_run_length(n)``, with the start drawn uniformly among the runs that contain
    a word and leave a word behind (so the result is never empty nor punctuation only).

    With ``replace=True`` (WMT / Appraise practice) the run is replaced by a phrase of ``k``
    units from one of ``other_references`` (references of other segments, never the same
    segment's, whose alternatives keep the meaning) instead of deleted; if none of them has such a
    phrase (too short, or only the same words) the run is deleted and ``method`` says so.
    Raises ``ValueError`` if :func:`can_degrade` is false.
    """
    _require_degradable(text, ADEQUACY, language)
    character_based = is_character_language(language)
    atoms = _atoms(text, language)
    unit_indices = [i for i, atom in enumerate(atoms) if atom.is_unit]
    units = [atoms[i].text for i in unit_indices]
    n = len(units)
    k = adequacy_run_length(n)
    word_flags = [is_word_like(unit) for unit in units]
    words = sum(word_flags)
    starts = [start for start in _windows(n, k) if 0 < sum(word_flags[start : start + k]) < words]
    # Never empty, given two words (first w1, last w2) and n >= 2k - 1 (true for the whole
    # table): the run ending at w1 fits if w1 >= k - 1; else the run starting at w2 fits if
    # w2 <= n - k; else the first run [0, k) holds w1 and not w2 (w2 > n - k >= k - 1).
    start = rng.choice(starts)
    removed = units[start : start + k]
    first_atom, last_atom = unit_indices[start], unit_indices[start + k - 1]

    replacement = (
        _choose_replacement(removed, k, other_references, language, rng) if replace else None
    )
    if replacement is not None:
        out = atoms[:first_atom] + replacement + atoms[last_atom + 1 :]
        method = REPLACE
    else:
        method = DELETE
        # The run goes with the separators inside it and the one after it (before it when
        # the run ends the sentence), so that no double space, doubled comma or leading
        # comma marks the gap: a missing phrase, not a hole.
        if start + k < n:
            out = atoms[:first_atom] + atoms[unit_indices[start + k] :]
        else:
            out = atoms[: unit_indices[start - 1] + 1] + atoms[last_atom + 1 :]
    replaced_units = tuple(atom.text for atom in replacement or () if atom.is_unit)
    return BadReference(
        text=_render(out, character_based),
        method=method,
        original_units=tuple(units),
        units=tuple(units[:start]) + replaced_units + tuple(units[start + k :]),
        span_start=start,
        span_length=k,
        replacement=replaced_units,
    )


def degrade(
    text: str,
    mode: str,
    language: str,
    rng: random.Random,
    *,
    option: str = DELETE,
    other_references: Sequence[str] = (),
) -> BadReference:
    """The bad reference for ``mode``: :func:`degrade_fluency` or :func:`degrade_adequacy`.

    ``option`` (``delete`` or ``replace``) only concerns adequacy: the fluency recipe is the
    same in the paper and at WMT.
    """
    _check_mode(mode)
    if option not in OPTIONS:
        raise ValueError(f"unknown degradation {option!r}; expected one of {', '.join(OPTIONS)}")
    if mode == FLUENCY:
        return degrade_fluency(text, language, rng)
    return degrade_adequacy(
        text, language, rng, replace=option == REPLACE, other_references=other_references
    )
