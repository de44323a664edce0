"""evalsite.page_memo: a read done once per page inside once_per_page, every time outside."""

from __future__ import annotations

import threading

from evalsite.page_memo import once_per_page, remembered


def counter():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    return calls, compute


def test_outside_the_block_every_call_computes():
    calls, compute = counter()
    assert [remembered("k", compute), remembered("k", compute)] == [1, 2]
    assert len(calls) == 2


def test_inside_the_block_a_key_is_computed_once_and_the_memo_ends_with_it():
    calls, compute = counter()
    with once_per_page():
        assert [remembered("k", compute), remembered("k", compute)] == [1, 1]
        assert remembered("other", compute) == 2
    assert remembered("k", compute) == 3  # after the block: computed again
    assert len(calls) == 3


def test_another_thread_has_its_own_memo():
    calls, compute = counter()
    seen = []
    with once_per_page():
        remembered("k", compute)
        thread = threading.Thread(target=lambda: seen.append(remembered("k", compute)))
        thread.start()
        thread.join()
    # The thread ran outside any block of its own: it computed, and did not see ours.
    assert seen == [2]
    assert len(calls) == 2
