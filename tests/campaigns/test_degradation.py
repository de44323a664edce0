"""Bad-reference generation (Graham et al. 2013 section 4, 2014 section 3; METHODS.md 2)."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from campaigns.degradation import (
    ADEQUACY,
    DELETE,
    FLUENCY,
    INSERT,
    MIN_WORDS,
    REPLACE,
    adequacy_run_length,
    can_degrade,
    degrade,
    degrade_adequacy,
    degrade_fluency,
    is_character_language,
    is_word_like,
    split_units,
)

# --- strategies --------------------------------------------------------------------------

# Tokens of languages written with spaces: words, numbers, bare punctuation, accents, a few
# scripts. No whitespace inside a token by construction.
_TOKEN_ALPHABET = "abcXYZéüßжщ0129.,;:!?«»—'\"()-" + "\u0301"
word_tokens = st.text(alphabet=_TOKEN_ALPHABET, min_size=1, max_size=6)
word_separators = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u00a0"])


@st.composite
def word_sentences(draw: st.DrawFn, min_tokens: int = 1, max_tokens: int = 40) -> str:
    tokens = draw(st.lists(word_tokens, min_size=min_tokens, max_size=max_tokens))
    parts = [draw(st.sampled_from(["", "", " "]))]
    for index, token in enumerate(tokens):
        if index:
            parts.append(draw(word_separators))
        parts.append(token)
    parts.append(draw(st.sampled_from(["", "", "\n"])))
    return "".join(parts)


# Characters for languages written without spaces: ideographs, kana, Thai consonants with
# vowel and tone marks (combining), Latin letters and digits (which form runs), punctuation,
# spaces, a stray combining accent and an emoji.
_CHAR_ALPHABET = (
    "我用手机拍了照片的年天気今日はカタナ"
    "กขคนมยรเาไ\u0e34\u0e35\u0e48\u0e49\u0e31"
    "abcXY0129"
    "，。、！？「」.,!? "
    "\u0301\U0001f600"
)
char_sentences = st.text(alphabet=_CHAR_ALPHABET, min_size=0, max_size=80)
char_languages = st.sampled_from(["zh", "zh-Hans", "zh_TW", "ja", "ja-JP", "th", "TH-th"])
seeds = st.integers(min_value=0, max_value=2**32 - 1)


def any_sentence() -> st.SearchStrategy[tuple[str, str]]:
    """(text, language) pairs: word languages and character languages alike."""
    words = st.tuples(word_sentences(), st.sampled_from(["en", "de-DE", "fr", "ko"]))
    chars = st.tuples(char_sentences, char_languages)
    return st.one_of(words, chars)


# --- language codes and units ------------------------------------------------------------


@pytest.mark.parametrize(
    "code", ["zh", "zh-Hans", "zh-Hant-TW", "zh_CN", "ZH", "ja", "ja-JP", "th", "th-TH", "yue"]
)
def test_languages_without_spaces_are_degraded_by_characters(code: str) -> None:
    assert is_character_language(code)


@pytest.mark.parametrize("code", ["en", "de", "ko", "vi", "cs-CZ", "zu", "ar", "", "jav"])
def test_languages_with_spaces_are_degraded_by_words(code: str) -> None:
    assert not is_character_language(code)


def test_word_units_are_whitespace_tokens_with_their_punctuation() -> None:
    assert split_units("  The cat,\tsat  on\nthe mat . ", "en") == [
        "The",
        "cat,",
        "sat",
        "on",
        "the",
        "mat",
        ".",
    ]


@given(st.text())
def test_word_units_are_exactly_str_split(text: str) -> None:
    assert split_units(text, "en") == text.split()


def test_character_units_skip_punctuation_and_keep_latin_words_and_numbers_whole() -> None:
    assert split_units("我用iPhone拍了2014年的照片。", "zh-Hans") == [
        "我", "用", "iPhone", "拍", "了", "2014", "年", "的", "照", "片",
    ]  # fmt: skip


def test_thai_marks_stay_with_their_consonant() -> None:
    # ไ is a leading vowel, a letter of its own; the tone mark ่ and the vowel ี are
    # combining marks and stay with the consonant before them.
    assert split_units("ไม่มี", "th") == ["ไ", "ม่", "มี"]


# --- adequacy length table (2014 section 3) ----------------------------------------------

EXPECTED_RUN_LENGTH = {
    2: 1, 3: 1,
    4: 2, 5: 2,
    6: 3, 7: 3, 8: 3,
    9: 4, 10: 4, 11: 4, 12: 4, 13: 4, 14: 4, 15: 4,
    16: 5, 17: 5, 18: 5, 19: 5, 20: 5,
    21: 5, 22: 5, 23: 5, 24: 5, 25: 5,
    26: 6, 27: 6, 28: 6, 29: 6, 30: 6,
}  # fmt: skip


@pytest.mark.parametrize("n", range(2, 31))
def test_adequacy_run_length_table(n: int) -> None:
    assert adequacy_run_length(n) == EXPECTED_RUN_LENGTH[n]


def test_adequacy_run_length_rejects_one_word() -> None:
    with pytest.raises(ValueError, match="1 unit"):
        adequacy_run_length(1)


def test_adequacy_run_length_never_whole_sentence_and_never_shrinks() -> None:
    lengths = [adequacy_run_length(n) for n in range(2, 500)]
    assert all(k < n for n, k in zip(range(2, 500), lengths, strict=True))
    assert lengths == sorted(lengths)  # ceil: 21 words lose 5, as 20 do (floor would give 4)


# --- the fluency minimum, proved by exhaustion -------------------------------------------


def _valid_placements(
    n: int, first: int, second: int, words: list[str] | None = None
) -> list[tuple[str, ...]]:
    """Every output of the fluency recipe on n distinct words, copying words first and
    second; written independently of the module: place the two copies anywhere in n + 2
    slots, check the paper's conditions directly on the final sequence."""
    words = words or [f"w{i}" for i in range(n)]
    results = []
    for slots in permutations(range(n + 2), 2):
        final: list[str | None] = [None] * (n + 2)
        final[slots[0]], final[slots[1]] = f"{words[first]}*", f"{words[second]}*"
        rest = iter(words)
        final = [item if item is not None else next(rest) for item in final]
        ok = True
        for slot, source in zip(slots, (first, second), strict=True):
            original = final.index(words[source])
            ok &= slot not in (0, n + 1) and abs(slot - original) >= 2
        if ok:
            results.append(tuple(item.rstrip("*") for item in final))  # type: ignore[union-attr]
    return results


def test_fluency_needs_two_words_and_two_always_suffice() -> None:
    # n = 1: there are no two words to pick. n >= 2: every pair of words can be placed. The
    # module docstring proves n >= 4 in general; this covers n = 2 and 3 and checks the rest.
    assert not can_degrade("Yes", FLUENCY, "en")
    for n in range(2, 9):
        for first, second in permutations(range(n), 2):
            assert _valid_placements(n, first, second), (n, first, second)


def test_fluency_on_two_words_has_exactly_one_result() -> None:
    assert set(_valid_placements(2, 0, 1)) == {("w0", "w1", "w0", "w1")}
    for seed in range(20):
        assert degrade_fluency("hello world", "en", random.Random(seed)).text == (
            "hello world hello world"
        )


def test_fluency_reaches_every_valid_placement() -> None:
    text = "a b c d"
    expected = {
        " ".join(result)
        for first, second in permutations(range(4), 2)
        for result in _valid_placements(4, first, second, text.split())
    }
    seen = {degrade_fluency(text, "en", random.Random(seed)).text for seed in range(3000)}
    assert seen == expected


# --- can_degrade -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("", "en", False),
        ("Yes.", "en", False),
        ("Yes !", "en", False),  # one word and a punctuation token: still one word
        ("« Yes »", "en", False),
        ("Yes, sir", "en", True),
        ("2014 !", "en", False),
        ("好。", "zh", False),
        ("你好", "zh", True),
        ("iPhone。", "ja", False),  # one run of Latin letters is one unit
        ("iPhone手", "ja", True),
    ],
)
@pytest.mark.parametrize("mode", [FLUENCY, ADEQUACY])
def test_can_degrade(text: str, language: str, expected: bool, mode: str) -> None:
    assert can_degrade(text, mode, language) is expected


def test_short_segments_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 words"):
        degrade_fluency("Yes.", "en", random.Random(0))
    with pytest.raises(ValueError, match="at least 2 words"):
        degrade_adequacy("好", "zh", random.Random(0))


def test_unknown_mode_or_option_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        can_degrade("a b", "accuracy", "en")
    with pytest.raises(ValueError, match="unknown degradation"):
        degrade("a b", ADEQUACY, "en", random.Random(0), option="shuffle")


@given(any_sentence(), st.sampled_from([FLUENCY, ADEQUACY]))
def test_can_degrade_counts_words(sentence: tuple[str, str], mode: str) -> None:
    text, language = sentence
    words = [unit for unit in split_units(text, language) if is_word_like(unit)]
    assert can_degrade(text, mode, language) is (len(words) >= MIN_WORDS)


# --- fluency invariants ------------------------------------------------------------------


@settings(max_examples=300)
@given(any_sentence(), seeds)
def test_fluency_invariants(sentence: tuple[str, str], seed: int) -> None:
    text, language = sentence
    assume(can_degrade(text, FLUENCY, language))
    bad = degrade_fluency(text, language, random.Random(seed))
    original = split_units(text, language)
    n = len(original)

    assert bad.method == INSERT
    assert list(bad.original_units) == original
    assert len(bad.units) == n + 2
    # The text the worker sees splits into exactly the units reported.
    assert split_units(bad.text, language) == list(bad.units)
    # Two distinct words were copied, each copy equals its word.
    assert len(set(bad.copied_from)) == 2
    rest = [position for position in range(n + 2) if position not in bad.inserted_at]
    for source, position in zip(bad.copied_from, bad.inserted_at, strict=True):
        assert is_word_like(original[source])
        assert bad.units[position] == original[source]
        assert position not in (0, n + 1)  # never first or last
        assert abs(position - rest[source]) >= 2  # never next to its original
    # Taking the copies out gives back the original.
    assert [bad.units[position] for position in rest] == original


@given(st.lists(st.text(alphabet="abcdefg", min_size=1, max_size=5), min_size=2, max_size=30))
def test_fluency_keeps_single_spacing(words: list[str]) -> None:
    bad = degrade_fluency(" ".join(words), "en", random.Random(0))
    assert bad.text == " ".join(bad.units)


# --- adequacy invariants -----------------------------------------------------------------


def _check_adequacy(bad, text: str, language: str) -> None:  # type: ignore[no-untyped-def]
    original = split_units(text, language)
    n, k, start = len(original), adequacy_run_length(len(original)), bad.span_start
    assert list(bad.original_units) == original
    assert bad.span_length == k
    assert 0 <= start <= n - k
    assert split_units(bad.text, language) == list(bad.units)
    assert list(bad.units) == original[:start] + list(bad.replacement) + original[start + k :]
    assert bad.units  # never empty
    removed = original[start : start + k]
    assert any(is_word_like(unit) for unit in removed)  # a word goes
    kept = original[:start] + original[start + k :]
    assert any(is_word_like(unit) for unit in kept)  # a word stays


@settings(max_examples=300)
@given(any_sentence(), seeds)
def test_adequacy_delete_invariants(sentence: tuple[str, str], seed: int) -> None:
    text, language = sentence
    assume(can_degrade(text, ADEQUACY, language))
    bad = degrade_adequacy(text, language, random.Random(seed))
    _check_adequacy(bad, text, language)
    assert bad.method == DELETE
    assert bad.replacement == ()
    assert len(bad.units) == len(bad.original_units) - bad.span_length


@settings(max_examples=300)
@given(
    any_sentence(),
    st.lists(st.one_of(word_sentences(), char_sentences), min_size=0, max_size=4),
    seeds,
)
def test_adequacy_replace_invariants(
    sentence: tuple[str, str], others: list[str], seed: int
) -> None:
    text, language = sentence
    assume(can_degrade(text, ADEQUACY, language))
    bad = degrade_adequacy(
        text, language, random.Random(seed), replace=True, other_references=others
    )
    _check_adequacy(bad, text, language)
    k = bad.span_length
    if bad.method == REPLACE:
        assert len(bad.replacement) == k
        assert len(bad.units) == len(bad.original_units)
        removed = bad.original_units[bad.span_start : bad.span_start + k]
        assert bad.replacement != removed
        assert any(is_word_like(unit) for unit in bad.replacement)
        # The phrase is k consecutive units of one of the other references.
        windows = {
            tuple(units[i : i + k])
            for other in others
            for units in [split_units(other, language)]
            for i in range(len(units) - k + 1)
        }
        assert bad.replacement in windows
    else:
        # Fallback only when no other reference has a usable phrase.
        assert bad.method == DELETE
        for other in others:
            units = split_units(other, language)
            removed = list(bad.original_units[bad.span_start : bad.span_start + k])
            for i in range(len(units) - k + 1):
                window = units[i : i + k]
                assert window == removed or not any(is_word_like(u) for u in window)


def test_adequacy_delete_example_leaves_no_double_space() -> None:
    text = "the quick brown fox jumps over the lazy dog"  # n = 9: k = 4
    outputs = {degrade_adequacy(text, "en", random.Random(seed)).text for seed in range(200)}
    assert outputs == {
        "jumps over the lazy dog",
        "the over the lazy dog",
        "the quick the lazy dog",
        "the quick brown lazy dog",
        "the quick brown fox dog",
        "the quick brown fox jumps",
    }


def test_adequacy_delete_in_chinese_takes_punctuation_at_the_gap() -> None:
    text = "你好，世界。"  # 4 units: k = 2
    outputs = {degrade_adequacy(text, "zh", random.Random(seed)).text for seed in range(100)}
    assert outputs == {"世界。", "你界。", "你好。"}


def test_adequacy_replace_takes_a_same_length_phrase_from_another_reference() -> None:
    bad = degrade_adequacy(
        "a b c d",
        "en",
        random.Random(3),
        replace=True,
        other_references=["x y"],
    )
    assert bad.method == REPLACE
    assert bad.replacement == ("x", "y")
    assert bad.text in {"x y c d", "a x y d", "a b x y"}


def test_adequacy_replace_falls_back_to_delete_without_usable_reference() -> None:
    # "a b c d": k = 2. No reference, an empty one, one too short, one without a word.
    for others in ([], [""], ["x"], [", ; !"]):
        bad = degrade_adequacy(
            "a b c d", "en", random.Random(0), replace=True, other_references=others
        )
        assert bad.method == DELETE
        assert len(bad.units) == 2


def test_replace_in_character_language_separates_latin_runs() -> None:
    # Replacing 手 with "Pro" next to "iPhone" must not merge them into one unit.
    bad = degrade_adequacy(
        "iPhone手", "ja", random.Random(0), replace=True, other_references=["Pro"]
    )
    assert split_units(bad.text, "ja") == list(bad.units)


# --- seeding -----------------------------------------------------------------------------


@given(any_sentence(), seeds, st.sampled_from([FLUENCY, ADEQUACY]))
def test_same_seed_same_bad_reference(sentence: tuple[str, str], seed: int, mode: str) -> None:
    text, language = sentence
    assume(can_degrade(text, mode, language))
    others = ["one two three four five six", "七八九十"]
    first = degrade(
        text, mode, language, random.Random(seed), option=REPLACE, other_references=others
    )
    again = degrade(
        text, mode, language, random.Random(seed), option=REPLACE, other_references=others
    )
    assert first == again


def test_different_seeds_give_different_bad_references() -> None:
    text = "one two three four five six seven eight nine ten eleven twelve"
    for mode in (FLUENCY, ADEQUACY):
        outputs = {degrade(text, mode, "en", random.Random(seed)).text for seed in range(10)}
        assert len(outputs) > 3
