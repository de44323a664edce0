"""LinkedDAJudgments (analytics.incremental.links): a cached campaign's judgments with the pair
links and checks of the rows done when they were linked; without links, DAJudgments' own."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.incremental.links import LinkedDAJudgments, PairLinks
from analytics.stats.direct_assessment import DAJudgments, Role


def _columns() -> dict[str, np.ndarray]:
    """Two assignments of one worker: a system output and its bad reference each."""
    columns = {
        "worker": np.array([5, 5, 5, 5], dtype=np.int32),
        "assignment": np.array([1, 1, 2, 2], dtype=np.int32),
        "slot": np.array([10, 11, 20, 21], dtype=np.int32),
        "role": np.array([Role.SYSTEM, Role.BAD_REFERENCE] * 2, dtype=np.int8),
        "system": np.array([3, -1, 4, -1], dtype=np.int32),
        "item": np.array([7, 7, 8, 8], dtype=np.int32),
        "pair_slot": np.array([-1, 10, -1, 20], dtype=np.int32),
        "score": np.array([80.0, 20.0, 70.0, 75.0]),
        "seconds": np.array([3.0, np.nan, 4.0, 5.0]),
    }
    for values in columns.values():
        values.setflags(write=False)
    return columns


def _linked(columns: dict[str, np.ndarray]) -> np.ndarray:
    links = PairLinks()
    links.update(columns, None)
    return links.view()


def test_linked_rows_are_taken_as_they_are_with_their_links() -> None:
    columns = _columns()
    links = _linked(columns)
    assert links.tolist() == [-1, 0, -1, 2]
    judgments = LinkedDAJudgments(**columns, links=links)
    plain = DAJudgments(**columns)
    for name, values in columns.items():
        assert getattr(judgments, name) is values, name  # no copy
    assert np.isnan(judgments.given_z).all() and judgments.given_z.shape == (4,)
    assert judgments.partner is links
    np.testing.assert_array_equal(judgments.partner, plain.partner)
    np.testing.assert_array_equal(judgments.worker_index, plain.worker_index)
    assert judgments.n_unmatched_controls == 0


def test_linked_rows_must_be_read_only_columns_of_the_cache_types() -> None:
    columns = _columns()
    links = _linked(columns)
    writeable = {**columns, "score": columns["score"].copy()}
    with pytest.raises(ValueError, match="score must be a read-only column of 4 rows"):
        LinkedDAJudgments(**writeable, links=links)
    as_floats = columns["worker"].astype(np.float64)
    as_floats.setflags(write=False)
    with pytest.raises(ValueError, match="worker must be a read-only column"):
        LinkedDAJudgments(**{**columns, "worker": as_floats}, links=links)
    short = links[:3]
    with pytest.raises(ValueError, match="links must be a read-only column of 4 rows"):
        LinkedDAJudgments(**columns, links=short)


def test_without_links_every_check_is_made() -> None:
    columns = _columns()
    too_high = np.array([80.0, 20.0, 70.0, 175.0])
    too_high.setflags(write=False)
    with pytest.raises(ValueError, match=r"score must lie in \[0, 100.0\]"):
        LinkedDAJudgments(**{**columns, "score": too_high})
    # The same rows are refused when linked, so a bad row never reaches the cache's judgments.
    with pytest.raises(ValueError, match=r"score must lie in \[0, 100.0\]"):
        _linked({**columns, "score": too_high})


def test_float32_scores_are_taken_as_float64_and_other_float_widths_refused() -> None:
    # The cache keeps exact scores as float32 (analytics.incremental.columns): the statistics
    # get the float64 a full load reads, read-only.
    columns = _columns()
    links = _linked(columns)
    narrow = columns["score"].astype(np.float32)
    narrow.setflags(write=False)
    judgments = LinkedDAJudgments(**{**columns, "score": narrow}, links=links)
    assert judgments.score.dtype == np.float64 and not judgments.score.flags.writeable
    assert judgments.score.tolist() == [80.0, 20.0, 70.0, 75.0]
    half = columns["score"].astype(np.float16)
    half.setflags(write=False)
    with pytest.raises(ValueError, match="score must be a read-only column of 4 rows"):
        LinkedDAJudgments(**{**columns, "score": half}, links=links)
