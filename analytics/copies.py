"""Several PostgreSQL ``COPY ... TO STDOUT`` streams read at once, each on a connection of its
own, in the calling thread (asyncpg).

Why not psycopg2, which Django's connections use: psycopg2 hands a COPY to Python one row at a
time (a ``bytes`` object and a call per row, the GIL let go and taken back around each), so a
million judgments cost ~0.5 s of the client's CPU in that loop alone, and two streams read in
two threads spend more in handing the GIL between them than they gain (measured on the
1M-judgment bench campaign: one stream 0.57 s wall / 0.49 s CPU, two threads 0.71 / 0.62).
asyncpg's protocol (compiled) passes on whatever arrived from the socket, many rows at once:
two streams of half a million rows each read in 0.45-0.52 s wall for 0.19-0.27 s of the
client's CPU, the server's two processes doing the per-row work side by side.

Used where a load reads several tables or halves of one: :func:`read_copies` takes the
queries (complete SQL, parameters inlined) and one sink per query (``sink.write(bytes)``, e.g.
``analytics.loading``'s binary parser). :func:`connect_kwargs` says whether it can run: only
on PostgreSQL outside a transaction (another connection would not see the transaction's
rows), and when the Django connection's settings translate to
asyncpg's (host, port, database, user, password, ``sslmode``, ``connect_timeout`` and ``-c``
settings in ``options``); otherwise the caller reads on Django's connection, one statement
after another, with the same results.
(Imported by the statistics' loaders when they read this way: a web process, or a worker that
recomputes incrementally only, never loads asyncpg.)
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import asyncpg
from django.db import DEFAULT_DB_ALIAS, connections

__all__ = ["GATHER_BYTES", "connect_kwargs", "read_copies"]

# A stream's bytes are handed to its sink in pieces of at least this size: asyncpg passes on
# each read of the socket (8-64 kB while the server is the slower side), and each parse of a
# piece has a fixed cost of a dozen numpy calls.
GATHER_BYTES = 1 << 20

# libpq's sslmode values asyncpg takes as its ``ssl`` argument.
_SSL_MODES = frozenset({"disable", "allow", "prefer", "require", "verify-ca", "verify-full"})
# Parameters of Django's connection that say nothing about which server or data is read.
_IGNORED = frozenset({"cursor_factory", "client_encoding"})


class Sink(Protocol):
    def write(self, data: bytes | bytearray) -> object: ...


def _server_settings(options: str) -> dict[str, str] | None:
    """libpq's ``options`` as server settings, when it holds only ``-c name=value`` pairs
    (evalsite's settings give ``-c jit=off -c plan_cache_mode=...``); None otherwise."""
    words = shlex.split(options)
    settings: dict[str, str] = {}
    k = 0
    while k < len(words):
        word = words[k]
        if word == "-c" and k + 1 < len(words):
            pair, k = words[k + 1], k + 2
        elif word.startswith("-c") and len(word) > 2:
            pair, k = word[2:], k + 1
        else:
            return None
        name, equals, value = pair.partition("=")
        if not equals or not name:
            return None
        settings[name.replace("-", "_")] = value
    return settings


def connect_kwargs(alias: str = DEFAULT_DB_ALIAS) -> dict[str, object] | None:
    """asyncpg's connection arguments for the database of Django's connection ``alias``, or
    None where :func:`read_copies` cannot read for it (not PostgreSQL, inside a transaction,
    or a connection setting it does not know)."""
    connection = connections[alias]
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return None
    params = dict(connection.get_connection_params())
    kwargs: dict[str, object] = {
        "database": params.pop("dbname", None) or params.pop("database", None),
        "user": params.pop("user", None),
        "password": params.pop("password", None),
        "host": params.pop("host", None) or None,
        "port": int(params.pop("port")) if params.get("port") else None,
        # No prepared statement is made (COPY runs as a simple query): none to cache, and
        # nothing left behind for a pooler in transaction mode.
        "statement_cache_size": 0,
    }
    params.pop("port", None)
    sslmode = params.pop("sslmode", None)
    if sslmode is not None:
        if sslmode not in _SSL_MODES:
            return None
        kwargs["ssl"] = sslmode
    if "connect_timeout" in params:
        kwargs["timeout"] = float(params.pop("connect_timeout"))
    options = params.pop("options", None)
    if options:
        server_settings = _server_settings(str(options))
        if server_settings is None:
            return None
        kwargs["server_settings"] = server_settings
    if set(params) - _IGNORED:
        return None  # e.g. sslrootcert, service, passfile: read on Django's connection
    return {name: value for name, value in kwargs.items() if value is not None}


class _Gathered:
    """An asyncpg COPY output: gathers the stream's bytes and hands them to ``sink`` in pieces
    of at least ``GATHER_BYTES`` (the rest at :meth:`flush`)."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.buffer = bytearray()

    async def __call__(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) >= GATHER_BYTES:
            self.flush()

    def flush(self) -> None:
        if self.buffer:
            # A new buffer each time: the sink may keep views of the one it was given.
            buffer, self.buffer = self.buffer, bytearray()
            self.sink.write(buffer)


async def _read_one(kwargs: dict[str, object], query: str, sink: Sink) -> None:
    connection = await asyncpg.connect(**kwargs)
    try:
        gathered = _Gathered(sink)  # a coroutine function to asyncpg (no ``write``)
        await connection.copy_from_query(query, output=gathered, format="binary")
        gathered.flush()
    except BaseException:
        connection.terminate()  # in the middle of a COPY: nothing to say goodbye to
        raise
    await connection.close()


async def _read_all(kwargs: dict[str, object], jobs: Sequence[tuple[str, Sink]]) -> None:
    tasks = [asyncio.ensure_future(_read_one(kwargs, query, sink)) for query, sink in jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # One failed: the others are stopped (their connections terminated) before the error
        # reaches the caller, so that nothing is left reading after it.
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def read_copies(kwargs: dict[str, object], jobs: Sequence[tuple[str, Sink]]) -> None:
    """For each (query, sink) of ``jobs``, ``COPY (query) TO STDOUT (FORMAT binary)`` on a
    connection of its own, all at once, the stream written to the sink; ``kwargs`` from
    :func:`connect_kwargs`. Raises the first error (a query's, a sink's, a connection's)
    after the other streams are stopped.

    In this thread with an event loop of its own; where one already runs here (an async
    caller, or a library's, such as Playwright's synchronous API), in a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(_read_all(kwargs, jobs))
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="read-copies") as pool:
        pool.submit(asyncio.run, _read_all(kwargs, jobs)).result()
