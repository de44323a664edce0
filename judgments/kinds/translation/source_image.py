"""A source sentence as a PNG image (004's defence against pasting the source into an online MT
system: text in an image cannot be selected or copied). Pure: Pillow and the fonts on disk, no
Django.

- The font follows the sentence's main script (:func:`script_of`, the most frequent script
  among its letters): Arabic script (Arabic, Persian, Urdu) Noto Naskh Arabic, Hebrew Noto
  Sans Hebrew, Devanagari Noto Sans Devanagari, Han, kana and Hangul WenQuanYi Zen Hei, any
  other (Latin, Cyrillic, Greek) DejaVu Sans. A character the main font lacks (a Latin name or
  a full stop in Hebrew, a digit in Devanagari) is drawn with the first font of
  :data:`FALLBACK` that has it.
- Text is shaped by libraqm (HarfBuzz and FriBiDi through Pillow's RAQM layout) when Pillow
  has it, so Arabic letters join and Devanagari conjuncts form; the line's characters are put
  in visual order by a compact form of the Unicode bidirectional algorithm (:func:`_levels`:
  strong types, European numbers after Latin, neutrals between two strong types of one
  direction take it, others the paragraph's; then rule L2), so a Latin word or a number inside
  an Arabic sentence reads left to right in its place. Explicit embeddings and isolates
  (U+202A-U+202E, U+2066-U+2069) are not interpreted: sentences of a test set do not use them.
- Right-to-left sentences (main script Arabic or Hebrew) have right-aligned lines.
- Lines wrap at spaces to fit ``max_width`` pixels (padding included); Han, kana and Hangul
  wrap between any two characters, except that closing punctuation never starts a line and
  opening punctuation never ends one; a word wider than the line is cut between characters.
- Fonts are found by file name under ``/usr/share/fonts`` (:data:`FONT_DIRS`); a missing one
  raises :class:`FontMissing` naming the Debian package that holds it.
- The same text, size and width always give the same bytes (grey-scale PNG, no metadata).
"""

from __future__ import annotations

import io
import os
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont, features

FONT_DIRS: tuple[str, ...] = ("/usr/share/fonts",)

LATIN, ARABIC, HEBREW, DEVANAGARI, CJK = "latin", "arabic", "hebrew", "devanagari", "cjk"
RIGHT_TO_LEFT = frozenset({ARABIC, HEBREW})


@dataclass(frozen=True)
class FontFile:
    file_name: str
    package: str  # the Debian package that installs it
    label: str  # what it is for, in the error message


FONTS: dict[str, FontFile] = {
    LATIN: FontFile("DejaVuSans.ttf", "fonts-dejavu-core", "Latin, Cyrillic and Greek"),
    ARABIC: FontFile("NotoNaskhArabic-Regular.ttf", "fonts-noto-core", "Arabic script"),
    HEBREW: FontFile("NotoSansHebrew-Regular.ttf", "fonts-noto-core", "Hebrew"),
    DEVANAGARI: FontFile("NotoSansDevanagari-Regular.ttf", "fonts-noto-core", "Devanagari"),
    CJK: FontFile("wqy-zenhei.ttc", "fonts-wqy-zenhei", "Chinese, Japanese and Korean"),
}
# Tried in this order for a character the main font lacks.
FALLBACK: tuple[str, ...] = (LATIN, CJK, DEVANAGARI, ARABIC, HEBREW)

BACKGROUND = 255  # white
INK = 17  # near black
# Closing punctuation that must not start a line, opening that must not end one (CJK wrapping).
NO_LINE_START = set(
    "、。，．！？：；）」』】〕〉》〗〙〛”’)]}!?,.:;%ー々ゝゞぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ"
)
NO_LINE_END = set("（「『【〔〈《〖〘〚“‘([{")


class FontMissing(RuntimeError):
    """A font the sentence needs is not installed."""


def _script_of_char(char: str) -> str | None:
    """The script class of a character with a script of its own; None for the others (digits,
    punctuation, spaces) and for scripts drawn with the default font."""
    code = ord(char)
    if 0x0600 <= code <= 0x08FF or 0xFB50 <= code <= 0xFDFF or 0xFE70 <= code <= 0xFEFF:
        return ARABIC
    if 0x0590 <= code <= 0x05FF or 0xFB1D <= code <= 0xFB4F:
        return HEBREW
    if 0x0900 <= code <= 0x097F or 0xA8E0 <= code <= 0xA8FF:
        return DEVANAGARI
    if (
        0x1100 <= code <= 0x11FF  # Hangul Jamo
        or 0x2E80 <= code <= 0x2FDF  # CJK radicals
        or 0x3000 <= code <= 0x30FF  # CJK punctuation, hiragana, katakana
        or 0x3130 <= code <= 0x318F  # Hangul compatibility Jamo
        or 0x31F0 <= code <= 0x31FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x20000 <= code <= 0x3FFFF
    ):
        return CJK
    if unicodedata.category(char)[0] == "L":
        return LATIN
    return None


def script_of(text: str) -> str:
    """The sentence's main script: the most frequent among its letters (ties: the first to
    appear); :data:`LATIN` when it has none."""
    counts: dict[str, int] = {}
    for char in text:
        script = _script_of_char(char)
        if script is not None:
            counts[script] = counts.get(script, 0) + 1
    if not counts:
        return LATIN
    return max(counts, key=lambda script: counts[script])  # dicts keep first-seen order


def _is_cjk(char: str) -> bool:
    return _script_of_char(char) == CJK


# --- Fonts --------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _font_index(font_dirs: tuple[str, ...]) -> dict[str, str]:
    """File name -> path of every font file under ``font_dirs`` (the first found wins, in
    sorted order, so the choice does not depend on the file system's listing order)."""
    found: dict[str, str] = {}
    for root_dir in font_dirs:
        for directory, subdirectories, files in os.walk(root_dir):
            subdirectories.sort()
            for name in sorted(files):
                found.setdefault(name, os.path.join(directory, name))
    return found


def font_path(script: str, font_dirs: Sequence[str] = FONT_DIRS) -> str:
    """The path of the font for ``script``; :class:`FontMissing` naming its Debian package
    when it is not installed."""
    font = FONTS[script]
    path = _font_index(tuple(font_dirs)).get(font.file_name)
    if path is None:
        raise FontMissing(
            f"The font {font.file_name} (for {font.label}) is not installed under "
            f"{', '.join(font_dirs)}: install the Debian package {font.package} "
            f"(apt-get install {font.package})."
        )
    return path


def _layout_engine() -> ImageFont.Layout:
    return ImageFont.Layout.RAQM if features.check("raqm") else ImageFont.Layout.BASIC


@lru_cache(maxsize=32)
def _load_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size, layout_engine=_layout_engine())


@lru_cache(maxsize=32)
def _notdef_mask(path: str, size: int) -> bytes:
    # A code point of a private-use plane no font of ours covers: its mask is the missing glyph.
    return bytes(_load_font(path, size).getmask("\U000f0000"))


@lru_cache(maxsize=65536)
def _covers(path: str, size: int, char: str) -> bool:
    """Whether the font has a glyph for ``char`` (its mask is not the missing glyph's)."""
    return bytes(_load_font(path, size).getmask(char)) != _notdef_mask(path, size)


def _attaches(char: str) -> bool:
    """Characters drawn with their neighbour's font: spaces, controls and format characters
    (which have no glyph of their own) and combining marks (shaped with their base)."""
    return unicodedata.category(char) in {"Zs", "Cc", "Cf", "Mn", "Mc", "Me"}


class _Fonts:
    """The fonts of one sentence: the main script's and, for characters it lacks, the
    fallbacks (loaded only when a character needs them)."""

    def __init__(self, main: str, size: int, font_dirs: Sequence[str]) -> None:
        self.size = size
        self.font_dirs = tuple(font_dirs)
        self.order = (main, *(script for script in FALLBACK if script != main))
        self.paths: dict[str, str] = {main: font_path(main, self.font_dirs)}

    def path(self, script: str) -> str:
        if script not in self.paths:
            self.paths[script] = font_path(script, self.font_dirs)
        return self.paths[script]

    def font(self, script: str) -> ImageFont.FreeTypeFont:
        return _load_font(self.path(script), self.size)

    def script_for(self, char: str) -> str:
        """The first font in order that has ``char`` (the main one if none has it: it then
        shows the missing glyph, which at least says something is there)."""
        for script in self.order:
            if _covers(self.path(script), self.size, char):
                return script
        return self.order[0]

    def assign(self, text: str) -> list[str]:
        """The font (by script) of each character of ``text``."""
        chosen: list[str | None] = []
        for char in text:
            chosen.append(None if _attaches(char) else self.script_for(char))
        # Spaces and marks take the previous character's font (the next one's at the start).
        previous = next((script for script in chosen if script is not None), self.order[0])
        result = []
        for script in chosen:
            if script is None:
                script = previous
            previous = script
            result.append(script)
        return result


# --- Bidirectional order ------------------------------------------------------------------------


def _levels(text: str, rtl: bool) -> list[int]:
    """The embedding level of each character (even: left to right, odd: right to left) by a
    compact form of the Unicode bidirectional algorithm (see the module's docstring)."""
    paragraph = "R" if rtl else "L"
    types: list[str] = []
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind == "L":
            types.append("L")
        elif kind in ("R", "AL"):
            types.append("R")
        elif kind in ("EN", "AN", "ES", "CS", "ET"):
            types.append(kind)
        elif kind == "NSM":
            types.append(types[-1] if types else "N")
        else:
            types.append("N")
    # W4: one separator between two numbers of a type joins them ("3.5", "1,000"); W5: a run
    # of terminators next to a European number is part of it ("5%", "$3"); W6: the others are
    # neutral.
    for index in range(1, len(types) - 1):
        before, kind, after = types[index - 1], types[index], types[index + 1]
        if kind in ("ES", "CS") and before == after == "EN":
            types[index] = "EN"
        elif kind == "CS" and before == after == "AN":
            types[index] = "AN"
    index = 0
    while index < len(types):
        if types[index] != "ET":
            index += 1
            continue
        end = index
        while end < len(types) and types[end] == "ET":
            end += 1
        touches = (index > 0 and types[index - 1] == "EN") or (
            end < len(types) and types[end] == "EN"
        )
        types[index:end] = ["EN" if touches else "N"] * (end - index)
        index = end
    types = ["N" if kind in ("ES", "CS") else kind for kind in types]
    # W7: a European number after a left-to-right letter (or at the start of a left-to-right
    # paragraph) is left to right.
    last_strong = paragraph
    for index, kind in enumerate(types):
        if kind in ("L", "R"):
            last_strong = kind
        elif kind == "EN" and last_strong == "L":
            types[index] = "L"

    def direction(kind: str) -> str:
        return "L" if kind == "L" else "R"  # numbers count as right to left for neutrals (N1)

    # N1, N2: neutrals between two strong types of one direction take it; others the paragraph's.
    index = 0
    while index < len(types):
        if types[index] != "N":
            index += 1
            continue
        end = index
        while end < len(types) and types[end] == "N":
            end += 1
        before = direction(types[index - 1]) if index > 0 else paragraph
        after = direction(types[end]) if end < len(types) else paragraph
        fill = before if before == after else paragraph
        types[index:end] = [fill] * (end - index)
        index = end
    # I1, I2.
    if rtl:
        return [1 if kind == "R" else 2 for kind in types]
    return [0 if kind == "L" else 1 if kind == "R" else 2 for kind in types]


def _visual_order(levels: list[int]) -> list[int]:
    """Rule L2: the logical indices in visual (left to right) order."""
    order = list(range(len(levels)))
    if not levels:
        return order
    lowest_odd = min((level for level in levels if level % 2), default=None)
    if lowest_odd is None:
        return order
    for level in range(max(levels), lowest_odd - 1, -1):
        index = 0
        while index < len(order):
            if levels[order[index]] < level:
                index += 1
                continue
            end = index
            while end < len(order) and levels[order[end]] >= level:
                end += 1
            order[index:end] = reversed(order[index:end])
            index = end
    return order


@dataclass(frozen=True)
class _Run:
    """Characters drawn with one call: one font, one direction, contiguous in the text."""

    text: str
    script: str
    rtl: bool
    width: float


def _runs(line: str, fonts: _Fonts, rtl: bool) -> list[_Run]:
    """The line's runs in visual order (left to right)."""
    if not line:
        return []
    scripts = fonts.assign(line)
    levels = _levels(line, rtl)
    order = _visual_order(levels)
    groups: list[list[int]] = []
    for index in order:
        if groups:
            group = groups[-1]
            last = group[-1]
            step = -1 if levels[last] % 2 else 1
            if (
                levels[index] == levels[last]
                and scripts[index] == scripts[last]
                and index == last + step
            ):
                group.append(index)
                continue
        groups.append([index])
    runs = []
    for group in groups:
        start, end = min(group), max(group) + 1
        text = line[start:end]
        run_rtl = levels[group[0]] % 2 == 1
        font = fonts.font(scripts[group[0]])
        width = font.getlength(text, direction=_direction(run_rtl))
        runs.append(_Run(text, scripts[group[0]], run_rtl, width))
    return runs


def _direction(rtl: bool) -> str | None:
    # The basic layout (Pillow without libraqm) takes no direction.
    if _layout_engine() != ImageFont.Layout.RAQM:
        return None
    return "rtl" if rtl else "ltr"


# --- Wrapping -----------------------------------------------------------------------------------


def _pieces(text: str) -> list[tuple[str, str]]:
    """The sentence cut where a line may break: (separator before, piece) pairs; the
    separator is a space between words, '' between two CJK characters."""
    pieces: list[tuple[str, str]] = []
    for word in text.split(" "):
        if not word:
            continue
        separator = " "
        chunk = ""
        for char in word:
            breakable = chunk and (_is_cjk(char) or _is_cjk(chunk[-1]))
            if breakable and char not in NO_LINE_START and chunk[-1] not in NO_LINE_END:
                pieces.append((separator, chunk))
                separator, chunk = "", char
            else:
                chunk += char
        pieces.append((separator, chunk))
    if pieces:
        pieces[0] = ("", pieces[0][1])
    return pieces


def _width(line: str, fonts: _Fonts, rtl: bool) -> float:
    return sum(run.width for run in _runs(line, fonts, rtl))


def _wrap(text: str, fonts: _Fonts, rtl: bool, width: float) -> list[str]:
    """Greedy wrapping: each line takes as many pieces as fit; a piece wider than a line alone
    is cut between characters."""
    lines: list[str] = []
    line = ""
    for separator, piece in _pieces(text):
        candidate = line + separator + piece if line else piece
        if _width(candidate, fonts, rtl) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
            line = ""
        # The piece alone: cut it between characters when it is wider than a line.
        for char in piece:
            if line and _width(line + char, fonts, rtl) > width:
                lines.append(line)
                line = ""
            line += char
    if line or not lines:
        lines.append(line)
    return lines


# --- Rendering ----------------------------------------------------------------------------------


def render_sentence(
    text: str,
    *,
    font_size: int = 24,
    max_width: int = 720,
    font_dirs: Sequence[str] = FONT_DIRS,
) -> bytes:
    """The sentence as PNG bytes: white background, near-black text, wrapped to fit
    ``max_width`` pixels, right-aligned when its main script is written right to left. White
    space runs are one space; an empty sentence is an empty line. FontMissing when a font it
    needs is not installed."""
    text = "".join(char for char in " ".join(text.split()) if unicodedata.category(char) != "Cc")
    return _render(text, font_size, max_width, tuple(font_dirs))


@lru_cache(maxsize=256)
def _render(text: str, font_size: int, max_width: int, font_dirs: tuple[str, ...]) -> bytes:
    main = script_of(text)
    rtl = main in RIGHT_TO_LEFT
    fonts = _Fonts(main, font_size, font_dirs)
    padding = max(4, round(font_size * 0.5))
    spacing = max(2, round(font_size * 0.3))
    lines = _wrap(text, fonts, rtl, max_width - 2 * padding)
    laid_out = [_runs(line, fonts, rtl) for line in lines]
    used = {run.script for runs in laid_out for run in runs} or {main}
    metrics = [fonts.font(script).getmetrics() for script in sorted(used)]
    ascent = max(up for up, _ in metrics)
    descent = max(down for _, down in metrics)
    line_height = ascent + descent + spacing
    widths = [sum(run.width for run in runs) for runs in laid_out]
    image_width = int(-(-max(widths, default=0) // 1)) + 2 * padding
    image_height = len(lines) * line_height - spacing + 2 * padding
    image = Image.new("L", (max(image_width, 2 * padding + 1), image_height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for number, (runs, line_width) in enumerate(zip(laid_out, widths, strict=True)):
        x = image_width - padding - line_width if rtl else padding
        baseline = padding + number * line_height + ascent
        for run in runs:
            draw.text(
                (x, baseline),
                run.text,
                font=fonts.font(run.script),
                fill=INK,
                anchor="ls",
                direction=_direction(run.rtl),
            )
            x += run.width
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
