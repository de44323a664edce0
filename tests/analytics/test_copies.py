"""analytics.copies: several COPY streams read at once on connections of their own (asyncpg).

The translation of Django's connection settings is checked on a stand-in connection (every
backend); the reads themselves on PostgreSQL (``postgres_required``: skipped locally without
it, failed in CI): each stream reaches its own sink whole, in pieces of at least
``GATHER_BYTES``, and an error in one stream reaches the caller after every connection of the
read is gone.
"""

from __future__ import annotations

import asyncio

import pytest

from analytics import copies

PARAMS = {
    "dbname": "evalsite",
    "user": "evalsite",
    "password": "secret",
    "host": "127.0.0.1",
    "port": 5432,
    "options": "-c jit=off -c plan_cache_mode=force_generic_plan",
    "client_encoding": "UTF8",
    "cursor_factory": object,
}


class StandIn:
    """What connect_kwargs asks of a Django connection."""

    def __init__(self, params, vendor="postgresql", in_atomic_block=False):
        self.params = params
        self.vendor = vendor
        self.in_atomic_block = in_atomic_block

    def get_connection_params(self):
        return dict(self.params)


@pytest.fixture
def stand_in(monkeypatch):
    def install(params=PARAMS, **kwargs):
        monkeypatch.setattr(copies, "connections", {"default": StandIn(params, **kwargs)})

    return install


def test_connect_kwargs_of_evalsite_settings(stand_in):
    stand_in()
    assert copies.connect_kwargs() == {
        "database": "evalsite",
        "user": "evalsite",
        "password": "secret",
        "host": "127.0.0.1",
        "port": 5432,
        "statement_cache_size": 0,
        "server_settings": {"jit": "off", "plan_cache_mode": "force_generic_plan"},
    }


def test_connect_kwargs_take_sslmode_timeout_and_joined_options(stand_in):
    stand_in(
        {
            **PARAMS,
            "sslmode": "verify-full",
            "connect_timeout": "7",
            "options": "-cstatement-timeout=5s -c 'search_path=a, b'",
            "host": "",
            "port": "",
        }
    )
    kwargs = copies.connect_kwargs()
    assert kwargs["ssl"] == "verify-full"
    assert kwargs["timeout"] == 7.0
    assert kwargs["server_settings"] == {"statement_timeout": "5s", "search_path": "a, b"}
    # No host or port: asyncpg's defaults, as libpq's.
    assert "host" not in kwargs and "port" not in kwargs


@pytest.mark.parametrize(
    "params",
    [
        {**PARAMS, "sslrootcert": "/etc/ca.pem"},  # asyncpg's own lookup of files differs
        {**PARAMS, "service": "evalsite"},
        {**PARAMS, "sslmode": "sometimes"},
        {**PARAMS, "options": "--search_path=x"},
        {**PARAMS, "options": "-c jit"},
    ],
)
def test_settings_asyncpg_may_read_otherwise_are_left_to_django(stand_in, params):
    stand_in(params)
    assert copies.connect_kwargs() is None


def test_no_reads_together_inside_a_transaction_or_off_postgresql(stand_in):
    stand_in(in_atomic_block=True)
    assert copies.connect_kwargs() is None
    stand_in(vendor="sqlite")
    assert copies.connect_kwargs() is None


class Recording:
    def __init__(self):
        self.pieces: list[bytes] = []

    def write(self, data):
        self.pieces.append(bytes(data))


def _numbers(n: int) -> str:
    return f"SELECT g::bigint FROM generate_series(1, {int(n)}) AS g"  # noqa: S608


# 19 bytes of header, 14 a row (field count, length, int8), 2 of trailer.
def _stream_length(n: int) -> int:
    return 19 + 14 * n + 2


@pytest.mark.django_db(transaction=True)
def test_streams_reach_their_sinks_whole_in_large_pieces(postgres_required, monkeypatch):
    monkeypatch.setattr(copies, "GATHER_BYTES", 4096)
    kwargs = copies.connect_kwargs()
    assert kwargs is not None
    sinks = [Recording() for _ in range(3)]
    sizes = (20_000, 3, 0)
    copies.read_copies(kwargs, [(_numbers(n), sink) for n, sink in zip(sizes, sinks, strict=True)])
    for n, sink in zip(sizes, sinks, strict=True):
        stream = b"".join(sink.pieces)
        assert len(stream) == _stream_length(n)
        assert stream.startswith(b"PGCOPY\n\xff\r\n\x00")
        assert stream.endswith(b"\xff\xff")
        # Every piece but the last is at least GATHER_BYTES.
        assert all(len(piece) >= 4096 for piece in sink.pieces[:-1])
    assert len(sinks[0].pieces) > 1
    assert len(sinks[1].pieces) == len(sinks[2].pieces) == 1


def _backends_of(application_name: str, wait: float = 5.0) -> int:
    """The server processes of connections named ``application_name``, once none is left or
    after ``wait`` seconds (a process whose client hung up ends at its next write)."""
    import time

    from django.db import connection

    deadline = time.monotonic() + wait
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                [application_name],
            )
            count = cursor.fetchone()[0]
        if count == 0 or time.monotonic() > deadline:
            return count
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_an_error_in_one_stream_reaches_the_caller_after_all_connections_end(
    postgres_required,
):
    kwargs = copies.connect_kwargs()
    kwargs["server_settings"] = {
        **kwargs.get("server_settings", {}),
        "application_name": "evalsite-copies-test",
    }
    # A long stream beside one that fails at once (division by zero).
    jobs = [
        (_numbers(2_000_000), Recording()),
        ("SELECT (1 / (g - g))::bigint FROM generate_series(1, 3) AS g", Recording()),
    ]
    with pytest.raises(Exception, match="division by zero"):
        copies.read_copies(kwargs, jobs)
    assert _backends_of("evalsite-copies-test") == 0


@pytest.mark.django_db(transaction=True)
def test_an_error_in_a_sink_reaches_the_caller(postgres_required):
    class Broken:
        def write(self, data):
            raise ValueError("sink refused")

    with pytest.raises(ValueError, match="sink refused"):
        copies.read_copies(copies.connect_kwargs(), [(_numbers(10), Broken())])


@pytest.mark.django_db(transaction=True)
def test_reads_inside_a_running_event_loop_run_in_a_thread_of_their_own(postgres_required):
    """An event loop already runs in the caller's thread (an async view; Playwright's
    synchronous API in the browser tests): the reads run in a thread with a loop of their
    own, and errors still reach the caller."""
    kwargs = copies.connect_kwargs()
    sink = Recording()

    class Broken:
        def write(self, data):
            raise ValueError("sink refused")

    def reads():
        copies.read_copies(kwargs, [(_numbers(5), sink)])
        with pytest.raises(ValueError, match="sink refused"):
            copies.read_copies(kwargs, [(_numbers(5), Broken())])

    async def inside():
        reads()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(inside())
    else:  # one runs here already (after a browser test in this process)
        reads()
    assert len(b"".join(sink.pieces)) == _stream_length(5)
