"""Source sentences as images (issue 15 item 2; 004): each script renders with its font and
direction, right-to-left lines are right-aligned, long sentences wrap, the bytes are the same
every time, and a missing font says which Debian package to install. Pure: no database.

Samples of Latin, Arabic, Chinese and Devanagari are written to /tmp/tr/images/ when that
folder exists (for a person to look at; nothing is checked against them)."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from PIL import Image

from judgments.kinds.translation.source_image import (
    ARABIC,
    CJK,
    DEVANAGARI,
    FONTS,
    HEBREW,
    LATIN,
    FontMissing,
    _levels,
    _visual_order,
    font_path,
    render_sentence,
    script_of,
)

SAMPLES = {
    "latin": (LATIN, "The committee approved the new budget on Tuesday after a long debate."),
    "arabic": (ARABIC, "قال الرئيس إن الاقتصاد نما بنسبة 3.5% في عام 2023."),
    "chinese": (CJK, "今天天气很好，我们去公园散步吧。"),
    "devanagari": (DEVANAGARI, "भारत की राजधानी नई दिल्ली है।"),
    "hebrew": (HEBREW, "ירושלים היא עיר עתיקה."),
    "russian": (LATIN, "Москва — столица России."),
    "korean": (CJK, "서울은 대한민국의 수도입니다."),
}
SAMPLE_DIR = "/tmp/tr/images"

needs_fonts = pytest.mark.skipif(
    not all(os.path.exists(f"/usr/share/fonts/truetype/{d}") for d in ("dejavu", "noto", "wqy")),
    reason="fonts-dejavu-core, fonts-noto-core and fonts-wqy-zenhei are not installed",
)


def pixels(png: bytes) -> np.ndarray:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return np.asarray(image.convert("L"))


def ink_columns(array: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
    """The columns of ``rows`` holding ink (darker than light grey)."""
    return np.flatnonzero((array[rows] < 128).any(axis=0))


def test_the_main_script_is_the_most_frequent_among_the_letters():
    for _, (script, text) in SAMPLES.items():
        assert script_of(text) == script
    assert script_of("أعلنت شركة Google عن نتائجها") == ARABIC
    assert script_of("2023!") == LATIN
    assert script_of("") == LATIN


@needs_fonts
@pytest.mark.parametrize("name", list(SAMPLES))
def test_each_script_renders_ink_in_a_sensible_box(name):
    script, text = SAMPLES[name]
    png = render_sentence(text, font_size=24)
    array = pixels(png)
    height, width = array.shape
    assert 40 <= height <= 140 and 100 <= width <= 720
    dark = (array < 128).mean()
    assert 0.01 < dark < 0.4, dark  # text, neither blank nor a black box
    if os.path.isdir(SAMPLE_DIR):
        with open(os.path.join(SAMPLE_DIR, f"{name}.png"), "wb") as handle:
            handle.write(png)


@needs_fonts
def test_no_glyph_is_the_missing_glyph_box():
    # Mixed text: Arabic with a Latin name, digits and a percent sign; Hebrew with a full stop
    # (Noto Sans Hebrew has neither digits nor punctuation: DejaVu Sans draws them).
    for text in ("شركة Google نمت 3.5%", "ירושלים 2020.", "東京 Tokyo 2024"):
        same = render_sentence(text)
        assert same == render_sentence(text)  # deterministic
        assert (pixels(same) < 128).any()


@needs_fonts
def test_the_same_sentence_gives_the_same_bytes_and_white_space_is_one_space():
    text = SAMPLES["arabic"][1]
    assert render_sentence(text) == render_sentence(text)
    assert render_sentence("A  cat\tsleeps.\n") == render_sentence("A cat sleeps.")
    assert render_sentence(text, font_size=30) != render_sentence(text)


@needs_fonts
def test_a_long_sentence_wraps_to_the_width():
    text = " ".join(["The committee approved the new budget on Tuesday."] * 4)
    one_line = pixels(render_sentence("The committee approved."))
    wrapped = pixels(render_sentence(text, max_width=400))
    assert wrapped.shape[1] <= 400
    assert wrapped.shape[0] >= 4 * one_line.shape[0] * 0.6  # several lines
    chinese = pixels(render_sentence("今天天气很好" * 12, max_width=300))
    assert chinese.shape[1] <= 300 and chinese.shape[0] > 100  # wrapped between characters


def line_bands(array: np.ndarray) -> list[slice]:
    """The rows of each line of text (runs of rows with ink)."""
    rows = (array < 128).any(axis=1)
    bands: list[list[int]] = []
    for index, inked in enumerate(rows):
        if not inked:
            continue
        if bands and index - bands[-1][1] <= 4:  # a dot or a mark just apart is the same line
            bands[-1][1] = index
        else:
            bands.append([index, index])
    return [slice(start, end + 1) for start, end in bands if end - start >= 8]


@needs_fonts
def test_right_to_left_lines_are_right_aligned_and_left_to_right_lines_left_aligned():
    arabic = " ".join(["قال الرئيس إن الاقتصاد نما"] * 5) + " قريباً"
    hebrew = " ".join(["ירושלים היא עיר עתיקה"] * 5) + " כן"
    latin = " ".join(["The committee approved the budget"] * 5) + " today"
    for text, rtl in ((arabic, True), (hebrew, True), (latin, False)):
        array = pixels(render_sentence(text, max_width=500))
        bands = line_bands(array)
        assert len(bands) >= 3, text
        edges = [ink_columns(array, band) for band in bands]
        starts = [columns.min() for columns in edges]
        ends = [columns.max() for columns in edges]
        if rtl:  # every line ends at the right margin; the last, shorter one starts later
            assert max(ends) - min(ends) <= 4 and starts[-1] > min(starts) + 20
        else:
            assert max(starts) - min(starts) <= 4 and ends[-1] < max(ends) - 20


def test_the_bidirectional_order_of_a_number_and_a_latin_word_in_arabic():
    text = "في 3.5% Google"
    levels = _levels(text, rtl=True)
    # Arabic letters at level 1; the number with its separator and sign, and the Latin word, at 2.
    assert levels[:2] == [1, 1]
    assert levels[3:7] == [2] * 4
    assert levels[7] == 1  # the space between them takes the paragraph's direction
    assert levels[8:] == [2] * 6
    order = _visual_order(levels)
    visual = "".join(text[index] for index in order)
    # Left to right on screen: the Latin word, the number (read left to right), the Arabic word.
    assert visual.startswith("Google") and "3.5%" in visual and visual.endswith("يف")


def test_a_missing_font_names_its_debian_package(tmp_path):
    with pytest.raises(FontMissing) as caught:
        font_path(ARABIC, font_dirs=[str(tmp_path)])
    message = str(caught.value)
    assert "NotoNaskhArabic-Regular.ttf" in message and "fonts-noto-core" in message
    with pytest.raises(FontMissing, match="fonts-wqy-zenhei"):
        render_sentence("今天天气很好", font_dirs=[str(tmp_path)])
    assert FONTS[LATIN].package == "fonts-dejavu-core"
