"""One glibc heap for every thread of a process that runs the statistics in threads.

glibc gives each new thread that allocates an arena of its own (up to eight per core): what
a thread frees stays in its arena, for that thread, and the pages it touched stay resident.
The direct-assessment recompute starts short threads (the load's side tables, the
agreement's pair sorting beside the system scores): each left its temporaries' pages in an
arena nobody used again, and at a million judgments the recompute's peak was 14-15 MB
higher with a thread's arena than with one heap (243-244 MiB against 229 MiB: bench runs
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

__all__ = ["share_one_heap"]

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
