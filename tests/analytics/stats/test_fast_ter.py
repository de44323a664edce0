"""fast_ter.translation_edit_rate (numpy) and ter_kernel.edit_counts (numba) return exactly
sacrebleu's lib_ter.translation_edit_rate.

Every expectation is sacrebleu's own answer on the same token lists, computed here: the edge
cases by hand (empty sides, one word, pure shifts, repeated words, reversal), 2,000 seeded
pairs shaped like the HTER bench's (an edit of a sentence, or two independent edits of one,
from small vocabularies so that repeated words and many shift candidates happen), long
sentences (shift distance limit, beam), extreme length ratios (beam widening), pairs that
reach sacrebleu's 1000-candidate limit (checked by watching sacrebleu's ``_shift``), and a
hypothesis property test. Every case goes through both ports (``assert_same``); the compiled
one also once more in a batch of all the generated pairs, as edit_stats_batch calls it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import lib_ter

from analytics.stats.post_editing.fast_ter import translation_edit_rate
from analytics.stats.post_editing.ter_kernel import edit_counts


def compiled(hyp: list[str], ref: list[str]) -> tuple[int, int]:
    ((edits, length),) = edit_counts([hyp], [ref])
    return edits, length


def assert_same(hyp: list[str], ref: list[str]) -> tuple[int, int]:
    expected = lib_ter.translation_edit_rate(hyp, ref)
    assert translation_edit_rate(hyp, ref) == expected, (hyp, ref)
    assert compiled(hyp, ref) == expected, ("compiled", hyp, ref)
    return expected


HAND_MADE = [
    ("a b c d", "a b c d"),  # identical
    ("", "a b c"),  # empty hypothesis
    ("a b c", ""),  # empty reference
    ("", ""),
    ("a", "a"),  # one word
    ("a", "b"),
    ("a", "a b c d e"),
    ("a b c d e", "c"),
    ("a b c d", "c d a b"),  # pure shift of a block
    ("yesterday I saw him", "I saw him yesterday"),
    ("the the the", "the the the"),  # repeated words
    ("the the the", "the the"),
    ("the the", "the the the the"),
    ("the cat the the", "the the cat the"),
    ("a b a b a b", "b a b a b a"),
    ("one two three four five six seven", "seven six five four three two one"),  # reversed
    ("x y z x y z x y z", "z y x z y x z y x"),
    ("a b c d e f g h i j k l", "g h i j k l a b c d e f"),  # 6-word blocks swap
    ("a b c d e f g h i j k l m n o p q r s t u v w", "l m n o p q r s t u v w a b c d e f g"),
]


@pytest.mark.parametrize(("hyp", "ref"), HAND_MADE)
def test_hand_made_cases(hyp, ref):
    assert_same(hyp.split(), ref.split())


def test_known_answers():
    """A few that are easy to count, so that both implementations are seen to be right."""
    assert translation_edit_rate("a b c d".split(), "a b c d".split()) == (0, 4)
    assert translation_edit_rate([], "a b c".split()) == (3, 3)
    assert translation_edit_rate("a b c".split(), []) == (3, 0)
    assert translation_edit_rate("a b c d".split(), "c d a b".split()) == (1, 4)  # one shift
    assert compiled("a b c d".split(), "c d a b".split()) == (1, 4)
    assert compiled([], "a b c".split()) == (3, 3)
    assert compiled("a b c".split(), []) == (3, 0)


def _edited(words: list[str], rng: random.Random, vocab: list[str], low: int, high: int):
    """bench/hter_import.py's ``_edited`` (substitute, insert, delete, move a block of 1-3
    words), also usable on very short sentences."""
    edit = list(words)
    for _ in range(rng.randint(low, high)):
        op = rng.random()
        i = rng.randrange(len(edit)) if edit else 0
        if op < 0.3 and edit:
            edit[i] = rng.choice(vocab)
        elif op < 0.55 or not edit:
            edit.insert(i, rng.choice(vocab))
        elif op < 0.75 and len(edit) > 3:
            del edit[i]
        elif edit:
            size = rng.randint(1, 3)
            block = edit[i : i + size]
            del edit[i : i + size]
            j = rng.randrange(len(edit) + 1)
            edit[j:j] = block
    return edit


def _generated_pairs(seed: int, count: int, lengths: tuple[int, int]):
    """MT output -> post-edit (1-6 edits of one sentence) and two independent translations
    (2-10 edits each of one sentence), alternately; vocabularies of 5 to 20 words."""
    rng = random.Random(seed)
    for k in range(count):
        vocab = [f"w{i}" for i in range(rng.randint(5, 20))]
        sentence = [rng.choice(vocab) for _ in range(rng.randint(*lengths))]
        if k % 2 == 0:
            yield _edited(sentence, rng, vocab, 1, 6), sentence
        else:
            yield _edited(sentence, rng, vocab, 2, 10), _edited(sentence, rng, vocab, 2, 10)


# 2,000 pairs of 1 to 80 words, most of them short: sacrebleu takes about 1 ms a pair of up
# to 20 words from these vocabularies, 15-20 ms up to 45 words, 60-70 ms up to 80 words (the
# tests below add longer sentences, and the limit cases).
GENERATED = [(1, 1875, (1, 20)), (2, 100, (21, 45)), (3, 25, (46, 80))]


@pytest.mark.parametrize(("seed", "count", "lengths"), GENERATED)
def test_generated_pairs(seed, count, lengths):
    compared = 0
    expected = []
    pairs = list(_generated_pairs(seed, count, lengths))
    for hyp, ref in pairs:
        expected.append(assert_same(hyp, ref))
        compared += 1
    assert compared == count
    # One batch, as edit_stats_batch calls the kernel: each pair independent of the others.
    assert edit_counts([h for h, _ in pairs], [r for _, r in pairs]) == expected


def test_long_sentences_shift_distance_limit():
    """Over 100 words: a block moved by up to 50 positions is one shift; moved further it
    is out of sacrebleu's shift distance (deletions + insertions instead)."""
    rng = random.Random(1)
    ref = [f"v{rng.randrange(400)}" for _ in range(110)]
    near = ref[:20] + ref[24:60] + ref[20:24] + ref[60:]  # 4 words moved by 36
    far = ref[:10] + ref[14:80] + ref[10:14] + ref[80:]  # 4 words moved by 66
    assert assert_same(near, ref) == (1, 110)
    assert assert_same(far, ref) == (8, 110)
    distinct = [f"v{i}" for i in range(110)]
    assert_same(distinct[55:] + distinct[:55], distinct)  # halves swapped, 55 apart
    assert_same(list(reversed(distinct[:60])), distinct[:60])


def test_long_sentences_beam():
    """Words inserted or deleted at one end push the alignment off the pseudo-diagonal by
    more than the beam's 25 columns: sacrebleu's edits exceed the plain edit distance."""
    ref = [f"v{i}" for i in range(80)]
    extra = [f"x{i}" for i in range(40)]
    edits, _ = assert_same(extra + ref, ref)  # plain edit distance: 40 deletions
    assert edits > 40
    edits, _ = assert_same(ref, ref + extra)  # plain edit distance: 40 insertions
    assert edits > 40
    assert_same(ref[:30] + extra + ref[30:], ref)
    assert_same(ref, ref[:30] + extra + ref[30:])
    assert_same(ref, ref[35:])


@pytest.mark.parametrize(
    ("n_hyp", "n_ref"), [(2, 120), (1, 110), (3, 160), (2, 100), (2, 101), (120, 2), (1, 60)]
)
def test_extreme_length_ratios(n_hyp, n_ref):
    """Reference over 50 times longer than the hypothesis: sacrebleu widens its beam (2
    words against 100 is exactly the ratio 50, where it does not); and the other way round,
    a hypothesis far longer than its reference."""
    rng = random.Random(n_hyp * 1000 + n_ref)
    vocab = ["a", "b", "c", "d", "e", "f"]
    ref = [rng.choice(vocab) for _ in range(n_ref)]
    hyp = [rng.choice(vocab) for _ in range(n_hyp)]
    assert_same(hyp, ref)
    assert_same(ref[:n_hyp], ref)
    assert_same(hyp, [f"z{i}" for i in range(n_ref)])


# Long sentences over two or three words: sacrebleu checks 1000 shift candidates (its limit)
# before the shifts stop paying. In both, the iteration that reaches the limit had found a
# shift that lowers the distance, and sacrebleu drops it.
LIMIT_CASES = [
    (
        "c b b c a b b c c b c a a a a a b b a a b a b c b b a c c c b c b a b a c a b a",
        "b a c a b a c a a b a b a b c b b c a a c c a a a b a a a b c b c a b b c c a b",
    ),
    (
        "a b b b a a b b b a a a b a a a a a b a a b b a a a a b a a b a a b b a b b b a",
        "b a b a b a b b b a a b a a b a a b a b a b a a b b a a a b b b b a b b a b a b",
    ),
]


@pytest.mark.parametrize(("hyp", "ref"), LIMIT_CASES)
def test_candidate_limit(hyp, ref, monkeypatch):
    calls = []
    shift = lib_ter._shift

    def watched(*args):
        result = shift(*args)
        calls.append((result[0], result[2]))  # (gain of the best shift, candidates so far)
        return result

    monkeypatch.setattr(lib_ter, "_shift", watched)
    assert_same(hyp.split(), ref.split())
    gain, checked = calls[-1]
    assert checked >= lib_ter._MAX_SHIFT_CANDIDATES == 1000
    assert gain > 0  # the dropped shift would have helped: the limit decided the result


WORDS = st.sampled_from(["a", "b", "c", "d", "e"])


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, max_size=25), st.lists(WORDS, max_size=25))
def test_property_independent_sentences(hyp, ref):
    assert_same(hyp, ref)


@st.composite
def _edit_pairs(draw):
    sentence = draw(st.lists(WORDS, min_size=1, max_size=30))
    edit = list(sentence)
    for op, at, size, to, word in draw(
        st.lists(
            st.tuples(
                st.sampled_from("sidm"),
                st.integers(0, 40),
                st.integers(1, 4),
                st.integers(0, 40),
                WORDS,
            ),
            max_size=6,
        )
    ):
        i = at % (len(edit) + 1)
        if op == "i" or not edit:
            edit.insert(i, word)
        elif op == "s":
            edit[i % len(edit)] = word
        elif op == "d":
            del edit[i % len(edit)]
        else:
            block = edit[i : i + size]
            del edit[i : i + size]
            j = to % (len(edit) + 1)
            edit[j:j] = block
    return edit, sentence


@settings(max_examples=120, deadline=None)
@given(_edit_pairs())
def test_property_edited_sentences(pair):
    hyp, ref = pair
    assert_same(hyp, ref)
    assert_same(ref, hyp)
