"""Reads done once per page: a page that shows the same figure in several places (the
campaign's admin page: the results panel, the checklist and the form's "What it holds" all
count the campaign's progress or its rows) computes it once inside :func:`once_per_page`.

A context variable, so each request (thread) has its own memo, and only inside the block:
outside it :func:`remembered` computes every time. Only around reads: a change made inside the
block is not seen by a second call with the same key.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

__all__ = ["once_per_page", "remembered"]

T = TypeVar("T")

_memo: ContextVar[dict[Hashable, object] | None] = ContextVar("page_memo", default=None)


@contextmanager
def once_per_page() -> Iterator[None]:
    """Within the block, :func:`remembered` computes each key once."""
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def remembered(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or inside :func:`once_per_page` its first result for ``key``."""
    memo = _memo.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]  # type: ignore[return-value]
