"""000 Table 2 on a tiny example enumerated by hand: HTER with 0..3 editors.

System 1, two segments, three editor slots (edits / words of the edit, passed or not):

    segment 0 (10 words): vs reference 6/10;  slot 0 3/10 yes, slot 1 1/10 yes, slot 2 2/10 no
    segment 1 (20 words): vs reference 8/20;  slot 0 4/20 no,  slot 1 10/20 yes, slot 2 4/20 yes

    j  subset   seg 0         seg 1          corpus    mean
    0  {}       ref 6/10      ref 8/20       14/30     (0.6 + 0.4) / 2 = 0.5
    1  {0}      3/10          ref 8/20       11/30     0.35
       {1}      1/10          10/20          11/30     0.3
       {2}      ref 6/10      4/20           10/30     0.4
                                     average 32/90     1.05 / 3 = 0.35
    2  {0,1}    1/10          10/20          11/30     0.3
       {0,2}    3/10          4/20            7/30     0.25
       {1,2}    1/10          4/20            5/30     0.15
                                     average 23/90     0.7 / 3
    3  {0,1,2}  1/10          4/20            5/30     0.15

System 9 has one segment and no edit: 2/10 whatever the number of editors.
"""

from __future__ import annotations

import numpy as np
import pytest

from analytics.stats.post_editing import Outputs, PostEdits, editor_subsampling


def example(slots: bool = True) -> tuple[Outputs, PostEdits]:
    outputs = Outputs(system=[1, 1, 9], segment=[0, 1, 0], ref_edits=[6, 8, 2],
                      ref_length=[10, 20, 10])  # fmt: skip
    edits = PostEdits(
        system=[1] * 6,
        segment=[0, 0, 0, 1, 1, 1],
        edits=[3, 1, 2, 4, 10, 4],
        ref_length=[10, 10, 10, 20, 20, 20],
        passed=[True, True, False, False, True, True],
        slot=[0, 1, 2, 0, 1, 2] if slots else None,
    )
    return outputs, edits


def test_subsampling_table_enumerated_by_hand() -> None:
    table = editor_subsampling(*example())
    np.testing.assert_array_equal(table.systems, [1, 9])
    np.testing.assert_array_equal(table.editors, [0, 1, 2, 3])
    np.testing.assert_array_equal(table.n_subsets, [1, 3, 3, 1])
    assert table.exact.all()
    np.testing.assert_allclose(table.corpus[0], [14 / 30, 32 / 90, 23 / 90, 5 / 30], rtol=1e-12)
    np.testing.assert_allclose(table.mean[0], [0.5, 0.35, 0.7 / 3, 0.15], rtol=1e-12)
    np.testing.assert_allclose(table.corpus[1], [0.2] * 4, rtol=1e-12)
    np.testing.assert_allclose(table.mean[1], [0.2] * 4, rtol=1e-12)


def test_default_slots_are_the_order_of_the_rows_within_an_output() -> None:
    outputs, edits = example(slots=False)
    np.testing.assert_array_equal(edits.slot, [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(
        editor_subsampling(outputs, edits).corpus, editor_subsampling(*example()).corpus
    )


def test_random_subsets_are_seeded_when_there_are_too_many_to_enumerate() -> None:
    # max_enumerate=1: j = 1 and j = 2 (3 subsets each) are drawn at random, 50 times each.
    first = editor_subsampling(*example(), max_enumerate=1, n_random=50, seed=11)
    again = editor_subsampling(*example(), max_enumerate=1, n_random=50, seed=11)
    np.testing.assert_array_equal(first.corpus, again.corpus)
    np.testing.assert_array_equal(first.exact, [True, False, False, True])
    np.testing.assert_array_equal(first.n_subsets, [1, 50, 50, 1])
    # Each random j = 1 average lies between the best and worst single subsets (10/30, 11/30).
    assert 10 / 30 <= first.corpus[0, 1] <= 11 / 30
    assert first.corpus[0, 0] == pytest.approx(14 / 30) and first.corpus[0, 3] == pytest.approx(
        5 / 30
    )


def test_more_editors_than_slots_used() -> None:
    # Asking for 4 editors: C(4, j) subsets of slots 0..3; slot 3 is empty everywhere.
    # j = 4 equals j = 3 above (every edit used): 5/30.
    table = editor_subsampling(*example(), n_editors=4)
    np.testing.assert_array_equal(table.n_subsets, [1, 4, 6, 4, 1])
    assert table.corpus[0, 4] == pytest.approx(5 / 30, rel=1e-12)
    with pytest.raises(ValueError, match="n_editors=2"):
        editor_subsampling(*example(), n_editors=2)
