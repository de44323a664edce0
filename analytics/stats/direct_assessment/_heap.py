"""One glibc heap for every thread of a process that runs the statistics in threads.

glibc gives each new thread that allocates an arena of its own (up to eight per core): what a
thread frees stays in its arena, for that thread, and the pages it touched stay resident. The
direct-assessment recompute starts short threads (:func:`in_thread`: the score spread beside
the worker reliability, the agreements beside the system scores): each left its temporaries'
pages in an arena nobody used again, and at a million judgments the recompute's peak was 14-15
MB higher with a thread's arena than with one heap (243-244 MiB against 229 MiB: bench runs
with and without MALLOC_ARENA_MAX=1). With one arena the threads reuse the main heap's free
blocks. The threads here make few, large allocations (numpy arrays), so the arena's lock is
not contended.

This is glibc's ``MALLOC_ARENA_MAX=1``, set from inside the process (``mallopt``) before the
first such thread starts; it applies to threads that have not allocated yet. Elsewhere
(another C library) nothing is done.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

__all__ = ["in_thread", "share_one_heap"]

_T = TypeVar("_T")

_M_ARENA_MAX = -8  # glibc's malloc.h
_done = threading.Lock()
_state = {"set": False}


def share_one_heap() -> None:
    """Have threads started from now on allocate from the main heap (once per process)."""
    if _state["set"]:
        return
    with _done:
        if _state["set"]:
            return
        _state["set"] = True
        try:
            libc = ctypes.CDLL("libc.so.6")
            mallopt = libc.mallopt
        except (OSError, AttributeError):  # not glibc
            return
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        mallopt(_M_ARENA_MAX, 1)


def in_thread(function: Callable[..., _T], *args: object) -> Future[_T]:
    """``function(*args)`` started at once in a thread of its own (sharing the main heap:
    :func:`share_one_heap`); the future gives what it returned, or raises what it raised."""
    share_one_heap()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"da-{function.__name__}")
    try:
        return pool.submit(function, *args)
    finally:
        pool.shutdown(wait=False)  # the submitted call still runs; the thread then ends
