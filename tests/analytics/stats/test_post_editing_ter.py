"""TER edit statistics (issue 13 item 5): hand-counted edits checked against sacrebleu.

Every expectation below is counted by hand in the comment next to it (insertions,
deletions, substitutions, shifts of the hypothesis = MT output to reach the reference = the
edit), then checked against sacrebleu's own ``TER().sentence_score``.
"""

from __future__ import annotations

import random
import sys

import numpy as np
import pytest
from sacrebleu.metrics import TER

from analytics.stats.post_editing import (
    TERCOM_DEFAULTS,
    TerOptions,
    edit_rate,
    edit_stats,
    edit_stats_batch,
    ter_signature,
)
from analytics.stats.post_editing import ter as ter_module

VERSION = __import__("sacrebleu").__version__

# (MT output, edit, edits, reference words)
HAND_WORKED = [
    # identical: nothing to do.  0 / 6
    ("the cat sat on the mat", "the cat sat on the mat", 0, 6),
    # one substitution cat -> dog.  1 / 6
    ("the cat sat on the mat", "the dog sat on the mat", 1, 6),
    # one insertion ("the" before "mat").  1 / 6
    ("the cat sat on mat", "the cat sat on the mat", 1, 6),
    # one deletion ("big").  1 / 3
    ("the big cat sat", "the cat sat", 1, 3),
    # one shift: "yesterday" moves to the end (1 edit, not a deletion plus an insertion).  1 / 4
    ("yesterday I saw him", "I saw him yesterday", 1, 4),
    # one shift of a three-word block "in the morning".  1 / 7
    ("in the morning we met our friends", "we met our friends in the morning", 1, 7),
    # delete "that" (1), substitute will -> would (1), insert "to" and "Paris" (2).  4 / 9
    ("the president said that he will not go", "the president said he would not go to Paris", 4, 9),
    # case only: tercom's default lowercases, so nothing to do.  0 / 2
    ("The Cat", "the cat", 0, 2),
    # without normalisation "hello," is one word: substitute hello, -> hello.  1 / 2
    ("hello, world", "hello world", 1, 2),
    # empty MT output: insert both words.  2 / 2
    ("", "a b", 2, 2),
    # empty edit: delete both words; 0 reference words (TER counts 1.0 by sacrebleu's rule)
    ("a b", "", 2, 0),
]


@pytest.mark.parametrize(("mt", "edit", "edits", "ref_words"), HAND_WORKED)
def test_hand_counted_edits_match_sacrebleu(mt: str, edit: str, edits: int, ref_words: int):
    stats = edit_stats(mt, edit)
    assert (stats.edits, stats.ref_length) == (edits, ref_words)
    score = TER().sentence_score(mt, [edit])
    assert (score.num_edits, score.ref_length) == (edits, ref_words)
    assert stats.ter == pytest.approx(score.score / 100, abs=1e-12)


def test_hand_worked_rates() -> None:
    assert (
        edit_stats(
            "the president said that he will not go", "the president said he would not go to Paris"
        ).ter
        == 4 / 9
    )
    assert edit_stats("yesterday I saw him", "I saw him yesterday").ter == 0.25
    assert edit_stats("a b", "").ter == 1.0  # empty reference with a non-empty hypothesis
    assert edit_stats("", "").ter == 0.0  # both empty


def test_edit_rate_is_vectorised_with_sacrebleus_empty_reference_rule() -> None:
    rate = edit_rate([4, 2, 0, 3], [9.0, 0.0, 0.0, 6.0])
    np.testing.assert_array_equal(rate, [4 / 9, 1.0, 0.0, 0.5])


def test_default_is_tercom_and_the_signature_says_so() -> None:
    assert ter_signature() == (
        f"nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:{VERSION}"
    )
    assert edit_stats("The Cat", "the cat").signature == ter_signature(TERCOM_DEFAULTS)


def test_case_sensitive_option_counts_case_changes() -> None:
    # The -> the and Cat -> cat are two substitutions once case matters.  2 / 2
    options = TerOptions(case_sensitive=True)
    stats = edit_stats("The Cat", "the cat", options)
    assert (stats.edits, stats.ref_length) == (2, 2.0)
    assert stats.signature.startswith("nrefs:1|case:mixed|tok:tercom|norm:no|punct:yes")


def test_normalised_option_splits_punctuation() -> None:
    # Default: "hello,world" is one word against three ("hello", ",", "world"):
    # substitute it by one of them and insert the other two = 3 / 3.
    assert edit_stats("hello,world", "hello , world").edits == 3
    # Normalised: both sides tokenise to "hello , world": 0 / 3.
    stats = edit_stats("hello,world", "hello , world", TerOptions(normalized=True))
    assert (stats.edits, stats.ref_length) == (0, 3.0)
    assert "|norm:yes|" in stats.signature


def test_no_punct_option_drops_punctuation() -> None:
    # "hello, world" and "hello world" are the same two words once punctuation is removed.
    stats = edit_stats("hello, world", "hello world", TerOptions(no_punct=True))
    assert (stats.edits, stats.ref_length) == (0, 2.0)
    assert "|punct:no|" in stats.signature


def test_batch_equals_single_pairs_in_input_order() -> None:
    mts = [mt for mt, *_ in HAND_WORKED]
    eds = [ed for _, ed, *_ in HAND_WORKED]
    batch = edit_stats_batch(mts, eds, processes=1)
    np.testing.assert_array_equal(batch.edits, [e for _, _, e, _ in HAND_WORKED])
    np.testing.assert_array_equal(batch.ref_length, [r for *_, r in HAND_WORKED])
    assert batch.signature == ter_signature()
    assert len(batch) == len(HAND_WORKED)


def random_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(60)] + ["The", "the", ",", "."]
    mts, eds = [], []
    for _ in range(n):
        words = [rng.choice(vocab) for _ in range(rng.randint(0, 25))]
        edit = list(words)
        for _ in range(rng.randint(0, 4)):
            op, i = rng.random(), rng.randrange(len(edit) + 1)
            if op < 0.3:
                edit.insert(i, rng.choice(vocab))
            elif edit and op < 0.6:
                edit.pop(min(i, len(edit) - 1))
            elif edit and op < 0.8:
                edit[min(i, len(edit) - 1)] = rng.choice(vocab)
            elif edit:
                edit.insert(rng.randrange(len(edit)), edit.pop(min(i, len(edit) - 1)))
        mts.append(" ".join(words))
        eds.append(" ".join(edit))
    # Repeated pairs and unchanged edits (spaces aside) take the exact shortcuts.
    mts += mts[:5] + ["same  words here "]
    eds += eds[:5] + ["same words here"]
    return mts, eds


@pytest.mark.parametrize("compiled", [False, True], ids=["fast_ter", "compiled"])
@pytest.mark.parametrize(
    "options", [TERCOM_DEFAULTS, TerOptions(case_sensitive=True, normalized=True)]
)
def test_multi_process_batch_equals_single_process_and_sacrebleu(
    options: TerOptions, compiled: bool, monkeypatch
) -> None:
    """Both ports (fast_ter, the compiled kernel), in one process and in a pool whose
    processes load the kernel themselves, give sacrebleu's numbers."""
    monkeypatch.setattr(ter_module, "use_compiled", lambda n_pairs: compiled)
    monkeypatch.setattr(ter_module, "POOL_FROM_COMPILED_PAIRS", 0)  # the pool, even so
    mts, eds = random_pairs(300, seed=7)
    single = edit_stats_batch(mts, eds, options, processes=1)
    multi = edit_stats_batch(mts, eds, options, processes=2, chunk_size=37)
    np.testing.assert_array_equal(multi.edits, single.edits)
    np.testing.assert_array_equal(multi.ref_length, single.ref_length)
    assert multi.signature == single.signature == ter_signature(options)
    metric = options.metric()
    expected = [metric.sentence_score(h, [r]) for h, r in zip(mts, eds, strict=True)]
    np.testing.assert_array_equal(single.edits, [s.num_edits for s in expected])
    np.testing.assert_array_equal(single.ref_length, [s.ref_length for s in expected])
    assert single.edits[-1] == 0 and single.ref_length[-1] == 3.0


def test_compiled_from_a_size_or_once_loaded(monkeypatch) -> None:
    """The compiled kernel from COMPILED_FROM_PAIRS distinct pairs on, or for any batch once
    the process has loaded it (its one-off cost is paid)."""
    from analytics.stats.post_editing import ter_kernel

    monkeypatch.delitem(sys.modules, ter_kernel.__name__)
    assert not ter_module.use_compiled(ter_module.COMPILED_FROM_PAIRS - 1)
    assert ter_module.use_compiled(ter_module.COMPILED_FROM_PAIRS)
    monkeypatch.setitem(sys.modules, ter_kernel.__name__, ter_kernel)
    assert ter_module.use_compiled(1)


def test_compiled_batches_below_the_pool_size_stay_in_this_process(monkeypatch) -> None:
    """A compiled batch smaller than POOL_FROM_COMPILED_PAIRS starts no pool (each process
    would load the kernel for a fraction of a second of work)."""
    monkeypatch.setattr(ter_module, "use_compiled", lambda n_pairs: True)

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(ter_module, "ProcessPoolExecutor", no_pool)
    mts, eds = random_pairs(300, seed=3)
    batch = edit_stats_batch(mts, eds, processes=2, chunk_size=37)
    metric = TERCOM_DEFAULTS.metric()
    expected = [metric.sentence_score(h, [r]).num_edits for h, r in zip(mts, eds, strict=True)]
    np.testing.assert_array_equal(batch.edits, expected)


def test_empty_batch_and_bad_input() -> None:
    empty = edit_stats_batch([], [], processes=2)
    assert len(empty) == 0 and empty.edits.dtype == np.int64
    with pytest.raises(ValueError, match="2 MT outputs but 1 edits"):
        edit_stats_batch(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="edit must be a string"):
        edit_stats_batch(["a"], [None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="processes"):
        edit_stats_batch(["a"], ["a"], processes=0)
