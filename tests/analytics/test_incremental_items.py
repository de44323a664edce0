"""The incremental cache's item numbering (analytics.incremental.direct_assessment): a first
read numbers every row at once exactly as reading chunk after chunk numbers them."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.incremental import direct_assessment as cached_da

CHUNK = 64


def _state(cache: cached_da.CachedDACampaign) -> dict:
    state = {
        "item_ids": cache.item_ids.tolist(),
        "items_sorted": cache.items_sorted.tolist(),
        "items_sorted_code": cache.items_sorted_code.tolist(),
        "items_one_system": cache.items_one_system,
    }
    # The items' systems stand for the segments only while each item has one (else unused,
    # and which of an item's systems was written first is not defined).
    if cache.items_one_system:
        state["item_system"] = cache.item_system.tolist()
    return state


def _rows(ids: np.ndarray, n: int, seed: int, *, one_system: bool = True):
    rng = np.random.default_rng(seed)
    item = rng.choice(ids, n)
    item[rng.random(n) < 0.15] = -1  # rows without an item
    # Each item's output rows carry its system; control rows (system -1) carry none.
    system = np.where(item >= 0, item % 5, -1)
    system[rng.random(n) < 0.3] = -1
    if not one_system:
        # The last output row of an item with several, judged under another system.
        rows = np.flatnonzero(system >= 0)
        values, counts = np.unique(item[rows], return_counts=True)
        system[rows[item[rows] == values[counts > 1][0]][-1]] += 1
    return item, system


@pytest.mark.parametrize(
    ("ids", "dtype"),
    [
        (np.arange(5000, 5300), np.int32),  # dense ids: counted in a table
        (np.arange(40) * 10**6 + 7, np.int64),  # sparse ids: np.unique
    ],
)
@pytest.mark.parametrize("one_system", [True, False])
def test_a_first_read_numbers_items_as_chunk_after_chunk(monkeypatch, ids, dtype, one_system):
    monkeypatch.setattr(cached_da, "_NUMBERING_CHUNK", CHUNK)
    item, system = _rows(ids, 1000, seed=len(ids), one_system=one_system)
    item, system = item.astype(dtype), system.astype(dtype)
    once, chunked = cached_da.CachedDACampaign(1), cached_da.CachedDACampaign(1)
    codes = once._number_every_item(item, system)
    want = np.concatenate(
        [
            chunked._number_items(item[s : s + CHUNK], system[s : s + CHUNK])
            for s in range(0, 1000, CHUNK)
        ]
    )
    assert codes.dtype == np.int32
    assert codes.tolist() == want.tolist()
    assert _state(once) == _state(chunked)
    assert once.items_one_system is one_system
    # Later reads number on from there alike.
    more, more_system = _rows(np.concatenate([ids, ids[-1:] + 1]), 200, seed=3)
    more, more_system = more.astype(dtype), more_system.astype(dtype)
    assert (
        once._number_items(more, more_system).tolist()
        == chunked._number_items(more, more_system).tolist()
    )
    assert _state(once) == _state(chunked)


def test_a_first_read_of_rows_without_items_numbers_none():
    cache = cached_da.CachedDACampaign(1)
    codes = cache._number_every_item(np.full(3, -1, np.int32), np.full(3, -1, np.int32))
    assert codes.tolist() == [-1, -1, -1]
    assert cache.item_ids.tolist() == [] and cache.items_one_system


@pytest.mark.parametrize("values", [[9, 3, 3, 7, 9, 4], [10**12, 5, 10**12, 2**40], [42]])
def test_items_of_equals_np_unique(values):
    values = np.array(values, dtype=np.int64)
    rows = np.arange(100, 100 + 2 * values.shape[0], 2)
    items, first_row, inverse = cached_da._items_of(values, rows)
    want, index, want_inverse = np.unique(values, return_index=True, return_inverse=True)
    assert items.tolist() == want.tolist()
    assert first_row.tolist() == rows[index].tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()
