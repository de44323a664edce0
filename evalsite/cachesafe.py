"""Django's cache, tolerant of a cache server that is down.

The cache (Redis in production) only ever holds what can be computed again: the segment
tables of the API, the recompute flags of the live statistics, the start counters of the
worker entry pages. When Redis does not answer, those callers must go on without it (compute
the table, enqueue the recompute, let the worker start) instead of answering 500. These
wrappers catch the cache backend's connection errors (``redis.exceptions.RedisError``, and
``OSError`` for sockets), log a warning naming the operation (never the server's address,
which may hold a password) and return what a cache miss would.

Errors that are not about reaching the server (a value that cannot be pickled, a bad key)
still raise: they are bugs, not faults.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.core.cache import cache

logger = logging.getLogger(__name__)

__all__ = [
    "cache_errors",
    "cache_add",
    "cache_decr",
    "cache_delete",
    "cache_get",
    "cache_incr",
    "cache_set",
]


def cache_errors() -> tuple[type[BaseException], ...]:
    """What a cache server that is down or unreachable raises: ``OSError`` and, once redis-py
    is imported (Django's Redis cache imports it on its first use), ``RedisError``. Looked up
    when an error is caught (``except cache_errors():``), so that importing this module does
    not import redis-py (some 7 MiB per web worker, issue 16 item 4)."""
    redis_exceptions = sys.modules.get("redis.exceptions")
    if redis_exceptions is None:
        return (OSError,)
    return (redis_exceptions.RedisError, OSError)


def _warn(operation: str, key: str, error: BaseException) -> None:
    logger.warning(
        "Cache unavailable (%s of %s failed: %s); going on without it",
        operation,
        key,
        type(error).__name__,
    )


def cache_get(key: str, default: Any = None) -> Any:
    """``cache.get``; ``default`` when the cache is down."""
    try:
        return cache.get(key, default)
    except cache_errors() as error:
        _warn("get", key, error)
        return default


def cache_set(key: str, value: Any, timeout: float | None) -> bool:
    """``cache.set``; False when the cache is down (the value is simply not kept)."""
    try:
        cache.set(key, value, timeout)
    except cache_errors() as error:
        _warn("set", key, error)
        return False
    return True


def cache_add(key: str, value: Any, timeout: float | None) -> bool | None:
    """``cache.add``: True if added, False if the key was there; None when the cache is down
    (the caller decides what an unknown answer means)."""
    try:
        return bool(cache.add(key, value, timeout))
    except cache_errors() as error:
        _warn("add", key, error)
        return None


def cache_incr(key: str, timeout: float) -> int | None:
    """Add 1 to a counter that lives ``timeout`` seconds from its first increment; its new
    value, or None when the cache is down."""
    try:
        cache.add(key, 0, timeout)
        try:
            return int(cache.incr(key))
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout)
            return 1
    except cache_errors() as error:
        _warn("incr", key, error)
        return None


def cache_delete(key: str) -> bool:
    """``cache.delete``; False when the cache is down."""
    try:
        cache.delete(key)
    except cache_errors() as error:
        _warn("delete", key, error)
        return False
    return True


def cache_decr(key: str) -> None:
    """Take 1 back from a counter of :func:`cache_incr` (nothing when it is gone or the cache
    is down)."""
    try:
        cache.decr(key)
    except ValueError:  # the counter expired meanwhile
        pass
    except cache_errors() as error:
        _warn("decr", key, error)
