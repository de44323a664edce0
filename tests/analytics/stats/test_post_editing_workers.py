"""Worker profiles (003 section 7): distance to the MT output and to the reference, and flags."""

from __future__ import annotations

import numpy as np

from analytics.stats.post_editing import edit_stats, worker_profiles


def test_did_nothing_and_copied_the_reference_flags() -> None:
    # worker 1: four edits, all the MT output unchanged (TER to MT 0)        -> did nothing
    # worker 2: five edits, 4 within 0.1 of the reference (0, .05, .1, .08)  -> 4/5 = 0.8 copied
    # worker 3: two unchanged edits: fewer than min_edits=3, no flag
    # worker 4: honest edits
    worker = [1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4]
    to_mt = [0, 0, 0, 0, 0.5, 0.6, 0.4, 0.3, 0.2, 0, 0, 0.1, 0.2, 0.3]
    to_ref = [0.4, 0.3, 0.5, 0.6, 0, 0.05, 0.1, 0.08, 0.5, 0.3, 0.2, 0.3, 0.3, 0.2]
    p = worker_profiles(worker, to_mt, to_ref)
    np.testing.assert_array_equal(p.workers, [1, 2, 3, 4])
    np.testing.assert_array_equal(p.n_edits, [4, 5, 2, 3])
    np.testing.assert_allclose(p.share_unchanged, [1, 0, 1, 0])
    np.testing.assert_allclose(p.share_copied, [0, 0.8, 0, 0])
    np.testing.assert_array_equal(p.did_nothing, [True, False, False, False])
    np.testing.assert_array_equal(p.copied_reference, [False, True, False, False])
    np.testing.assert_allclose(p.mean_ter_to_mt, [0, 0.4, 0, 0.2], atol=1e-15)
    np.testing.assert_allclose(p.mean_ter_to_reference, [0.45, 0.146, 0.25, 0.8 / 3], rtol=1e-12)
    np.testing.assert_array_equal(p.unchanged[:4], [True] * 4)
    np.testing.assert_array_equal(p.copied[4:9], [True, True, True, True, False])


def test_thresholds_are_arguments() -> None:
    worker = [5, 5, 5]
    to_mt = [0.0, 0.04, 0.3]
    to_ref = [0.5, 0.5, 0.5]
    assert not worker_profiles(worker, to_mt, to_ref).did_nothing[0]  # 1/3 unchanged
    # With "TER below 0.05 counts as nothing" and "most" = 2/3: flagged.
    p = worker_profiles(worker, to_mt, to_ref, nothing_threshold=0.05, min_share=2 / 3)
    assert p.did_nothing[0]


def test_an_mt_output_already_at_the_reference_is_not_a_copy() -> None:
    # Three edits at the reference; for the first two the MT output itself was within 0.1 of
    # the reference (an honest minimal edit lands there too), so only one counts as copied.
    p = worker_profiles(
        [1, 1, 1], [0.1, 0.1, 0.5], [0.0, 0.0, 0.0], mt_to_reference=[0.1, 0.05, 0.6]
    )
    np.testing.assert_array_equal(p.copied, [False, False, True])
    assert not p.copied_reference[0]


def test_profile_distances_from_sacrebleu() -> None:
    mt = "the big cat sat"
    reference = "a cat was sitting"
    unchanged = edit_stats(mt, mt)  # hypothesis = MT, reference = the edit: 0 / 4
    # Pasting the reference: MT -> reference is substitute the -> a, delete big, substitute
    # sat -> was, insert sitting (cat stays): 4 edits / 4 words.
    pasted = edit_stats(mt, reference)
    assert (pasted.edits, pasted.ref_length) == (4, 4.0)
    to_ref_unchanged = edit_stats(mt, reference)  # hypothesis = the edit (= MT): 4 / 4
    to_ref_pasted = edit_stats(reference, reference)  # 0/4
    p = worker_profiles(
        [1, 1], [unchanged.ter, pasted.ter], [to_ref_unchanged.ter, to_ref_pasted.ter], min_edits=1
    )
    np.testing.assert_array_equal(p.unchanged, [True, False])
    np.testing.assert_array_equal(p.copied, [False, True])
