"""Glue shared by the task kinds' loaders: ids from ``values_list`` rows as numpy arrays.

Each kind loads one campaign's judgments for the pure statistics in its own module
(``analytics.kinds.<kind>.loading``, e.g. ``load_da_judgments``, ``load_ranking_judgments``),
the same way: a fixed number of queries whatever the size of the campaign, one
``values_list`` per table, no query per judgment, no model instances; judgments are joined to
their slots and outputs in numpy (sorted ids + ``searchsorted``, :func:`lookup`), never row by
row in Python.

Both kinds leave out of the scores the same assignments (:func:`held_back_assignment_ids`):
rejected ones, and MTurk ones MTurk has not confirmed yet
(``judgments.models.held_back_from_scores``); their judgments stay loaded and flagged.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from django.core.exceptions import FieldDoesNotExist
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import BigIntegerField, F, FloatField, QuerySet, Value
from django.db.models.functions import Cast, Coalesce

from judgments.models import Assignment, held_back_from_scores

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "ColumnsRead",
    "held_back_assignment_ids",
    "id_array",
    "load_columns",
    "load_columns_together",
    "lookup",
    "nullable_ids",
    "reads_together",
    "return_freed_memory",
]

# load_columns: how many bytes of PostgreSQL's binary COPY stream are parsed at a time.
COPY_CHUNK_BYTES = 4 * 2**20
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def id_array(values: list) -> NDArray[np.int64]:
    """Ids as a flat int64 array."""
    return np.array(values, dtype=np.int64).reshape(-1)


def nullable_ids(values: tuple) -> NDArray[np.int64]:
    """Ids with NULLs (None) as -1, converted in C (None becomes NaN in a float array)."""
    as_float = np.array(values, dtype=np.float64).reshape(-1)
    return np.where(np.isnan(as_float), -1, as_float).astype(np.int64)


def lookup(sorted_ids: NDArray[np.int64], wanted: NDArray[np.int64], what: str) -> NDArray:
    """Positions of ``wanted`` in ``sorted_ids``; every id must be there.

    Ids of one campaign's rows are dense: then a table from id to position answers each
    wanted id in O(1) (a million judgments' slots: a tenth of the time of a binary search);
    sparse ids are searched."""
    n_ids = sorted_ids.shape[0]
    if n_ids and wanted.shape[0] > n_ids:
        lo, hi = int(sorted_ids[0]), int(sorted_ids[-1])
        if hi - lo < 4 * n_ids + 1024:
            position = np.full(hi - lo + 1, -1, dtype=np.intp)
            position[sorted_ids - lo] = np.arange(n_ids)
            inside = (wanted >= lo) & (wanted <= hi)
            pos = position[np.where(inside, wanted - lo, 0)]
            found = inside & (pos >= 0)
            if not found.all():
                missing = wanted[~found][:5].tolist()
                raise ValueError(f"{what} {missing} not found in the campaign")
            return pos
    pos = np.searchsorted(sorted_ids, wanted)
    pos = np.minimum(pos, max(sorted_ids.shape[0] - 1, 0))
    found = sorted_ids[pos] == wanted if sorted_ids.size else np.zeros(wanted.shape, dtype=bool)
    if not found.all():
        missing = wanted[~found][:5].tolist()
        raise ValueError(f"{what} {missing} not found in the campaign")
    return pos


def return_freed_memory() -> None:
    """Give the heap's free pages back to the system (glibc ``malloc_trim``), after a large
    recompute, so that an idle worker does not keep them. No-op elsewhere.

    (Having glibc map every large array on its own instead, ``mallopt(M_MMAP_THRESHOLD)``,
    left the peak of a million-judgment recompute as it was and cost 30% more CPU in page
    faults: measured, not kept.)"""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


def _glibc():
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018  (glibc only)
    except (OSError, AttributeError):
        return None
    return libc


def reads_together(alias: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether :func:`load_columns_together` reads at once on connections of its own here
    (PostgreSQL outside a transaction, a connection setting asyncpg takes), not one read
    after another on Django's connection."""
    from analytics import copies  # asyncpg: not in a web worker, which never reads this way

    return copies.connect_kwargs(alias) is not None


def held_back_assignment_ids(campaign_id: int) -> NDArray[np.int64]:
    """Ids of the campaign's assignments whose judgments count in no score (one query):
    rejected ones and MTurk ones MTurk has not confirmed yet. The loaders mask their rows as
    ``rejected``; the kinds' stale sweeps count the same rows with
    ``held_back_from_scores("assignment__")``, so confirming an assignment makes the stored
    results stale."""
    return id_array(
        list(
            Assignment.objects.filter(campaign_id=campaign_id)
            .filter(held_back_from_scores())
            .order_by()
            .values_list("id", flat=True)
        )
    )


def load_columns(
    queryset: QuerySet,
    columns: Sequence[tuple[str, str]],
    *,
    into: Sequence[NDArray] | None = None,
) -> dict[str, NDArray]:
    """The rows of ``queryset`` as one numpy array per column, in the queryset's order.

    ``columns``: (field or annotation name, "id" or "float"); an "id" column is int64 with
    NULL as -1, a "float" column float64 with NULL as NaN. On PostgreSQL the rows come as one
    binary ``COPY`` of fixed-width rows (the NULLs replaced in SQL), parsed in
    ``COPY_CHUNK_BYTES`` pieces: no Python object per value, no list of tuples, and the stream
    never held whole: each piece is parsed into arrays of its own, joined column by column at
    the end (one column's pieces at a time held twice, a few MB). Elsewhere (SQLite) it is one
    ``values_list`` converted in C.

    ``into``: one array per column (int64 for "id", float64 for "float"), all as long as the
    most rows the queryset can have (e.g. the span of the ids it reads): the rows are parsed
    straight into them and the result is their first rows (views, no copy); more rows than
    that raise ValueError.
    """
    names = [name for name, _ in columns]
    kinds = _column_kinds(columns)
    connection = connections[queryset.db]
    if into is not None:
        into = _checked_into(into, kinds)
    if queryset.query.is_empty():  # .none(): no SQL to send
        return _no_rows(columns, into)
    if connection.vendor != "postgresql":
        rows = list(queryset.values_list(*names))
        table = np.array(rows, dtype=np.float64).reshape(-1, len(names))
        out: dict[str, NDArray] = {}
        for k, (name, kind) in enumerate(columns):
            if kind == "id":
                out[name] = np.where(np.isnan(table[:, k]), -1, table[:, k]).astype(np.int64)
            else:
                out[name] = table[:, k].copy()
        if into is None:
            return out
        n = table.shape[0]
        if n > into[0].shape[0]:
            raise ValueError(f"{n} rows read, more than the {into[0].shape[0]} given")
        for k, name in enumerate(names):
            into[k][:n] = out[name]
        return {name: into[k][:n] for k, name in enumerate(names)}
    with connection.cursor() as cursor:
        statement = f"COPY ({_copy_query(queryset, columns, cursor)}) TO STDOUT (FORMAT binary)"
        sink = _BinaryCopySink(kinds, into)
        writer = io.BufferedWriter(sink, buffer_size=COPY_CHUNK_BYTES)
        cursor.copy_expert(statement, writer)
        writer.flush()
    arrays = sink.finish()
    return dict(zip(names, arrays, strict=True))


def _copy_query(queryset: QuerySet, columns: Sequence[tuple[str, str]], cursor) -> str:
    """The SELECT a binary COPY of ``columns`` of ``queryset`` reads: fixed-width rows of
    int8 ("id") and float8 ("float") fields, none NULL; its parameters quoted by ``cursor``'s
    driver (psycopg2's ``mogrify``)."""
    # Each column as its own expression, typed as the stream is parsed (a cast to the type a
    # column already has is no cast in PostgreSQL) and with NULL replaced only where the column
    # can hold one: no subquery around the ORM's SELECT, no expression per NOT NULL value
    # (a million judgments: ~30% less of the server's CPU for the COPY).
    expressions = {}
    for k, (name, kind) in enumerate(columns):
        field = BigIntegerField() if kind == "id" else FloatField()
        expression = Cast(F(name), field)
        if _nullable(queryset, name):
            sentinel = Value(-1) if kind == "id" else Value(float("nan"))
            expression = Coalesce(expression, sentinel, output_field=field)
        expressions[f"_copy_column_{k}"] = expression
    sql, params = queryset.annotate(**expressions).values_list(*expressions).query.sql_with_params()
    return cursor.mogrify(sql, params).decode()


class ColumnsRead(NamedTuple):
    """One read of :func:`load_columns_together`: ``load_columns``'s arguments."""

    queryset: QuerySet
    columns: Sequence[tuple[str, str]]
    into: Sequence[NDArray] | None = None


def load_columns_together(reads: Sequence[ColumnsRead]) -> list[dict[str, NDArray]]:
    """:func:`load_columns` of each read, as it gives them, read at once where that can be.

    On PostgreSQL outside a transaction (``analytics.copies.connect_kwargs``), every read is
    a binary COPY on a connection of its own, all in flight together in this thread
    (:func:`analytics.copies.read_copies`): the server's processes do their per-row work side
    by side, and the streams reach the parser in large pieces instead of a Python call per
    row. Elsewhere (SQLite, inside a transaction, a connection setting asyncpg does not
    take) they are read one after another on Django's connection. All reads are on the
    queryset's database: the first one's."""
    from analytics import copies  # asyncpg: not in a web worker, which never reads this way

    if not reads:
        return []
    alias = reads[0].queryset.db
    kwargs = copies.connect_kwargs(alias)
    if kwargs is None:
        return [load_columns(read.queryset, read.columns, into=read.into) for read in reads]
    jobs, results = [], []
    connection = connections[alias]
    connection.ensure_connection()
    with connection.cursor() as cursor:
        for read in reads:
            kinds = _column_kinds(read.columns)
            into = _checked_into(read.into, kinds) if read.into is not None else None
            if read.queryset.query.is_empty():  # .none(): no SQL to send
                results.append(_no_rows(read.columns, into))
                continue
            sink = _BinaryCopySink(kinds, into)
            jobs.append((_copy_query(read.queryset, read.columns, cursor), sink))
            results.append(sink)
    if jobs:
        copies.read_copies(kwargs, jobs)
    names = [[name for name, _ in read.columns] for read in reads]
    return [
        result if isinstance(result, dict) else dict(zip(read_names, result.finish(), strict=True))
        for read_names, result in zip(names, results, strict=True)
    ]


def _no_rows(
    columns: Sequence[tuple[str, str]], into: Sequence[NDArray] | None
) -> dict[str, NDArray]:
    """The columns of no rows: empty arrays of their types (views of ``into``'s)."""
    if into is not None:
        return {name: array[:0] for (name, _), array in zip(columns, into, strict=True)}
    return {
        name: np.empty(0, dtype=np.int64 if kind == "id" else np.float64) for name, kind in columns
    }


def _column_kinds(columns: Sequence[tuple[str, str]]) -> list[str]:
    kinds = [kind for _, kind in columns]
    if any(kind not in ("id", "float") for kind in kinds):
        raise ValueError(f"column kinds must be 'id' or 'float', got {kinds}")
    return kinds


def _checked_into(into: Sequence[NDArray], kinds: Sequence[str]) -> list[NDArray]:
    """``load_columns``'s ``into``: one writable 1-D array per column, of the column's type,
    all of one length."""
    if len(into) != len(kinds):
        raise ValueError(f"into has {len(into)} arrays for {len(kinds)} columns")
    for array, kind in zip(into, kinds, strict=True):
        dtype = np.dtype(np.int64 if kind == "id" else np.float64)
        if array.dtype != dtype or array.ndim != 1 or not array.flags.writeable:
            raise ValueError(f"into: a writable 1-D {dtype} array per {kind} column")
    if len({array.shape[0] for array in into}) > 1:
        raise ValueError("into: arrays of one length")
    return list(into)


def _nullable(queryset: QuerySet, name: str) -> bool:
    """Whether column ``name`` of ``queryset`` can be NULL: a model field's ``null``; an
    annotation or a name that is no field of the model, always."""
    if name in queryset.query.annotations:
        return True
    try:
        return bool(queryset.model._meta.get_field(name).null)
    except FieldDoesNotExist:
        return True


class _BinaryCopySink(io.RawIOBase):
    """Receives PostgreSQL's binary COPY stream of fixed-width rows (every field 8 bytes, none
    NULL) in large pieces and fills one array per column: the arrays given to fill (``into``:
    as many rows as they hold, at most), else one array per piece, joined by :meth:`finish`."""

    def __init__(self, kinds: Sequence[str], into: Sequence[NDArray] | None = None) -> None:
        self.kinds = list(kinds)
        fields: list[tuple[str, str]] = [("count", ">i2")]
        for k, kind in enumerate(kinds):
            fields += [(f"l{k}", ">i4"), (f"v{k}", ">i8" if kind == "id" else ">f8")]
        self.row = np.dtype(fields)
        self.dtypes = [np.dtype(np.int64 if kind == "id" else np.float64) for kind in kinds]
        self.given = into is not None
        self.arrays = list(into) if into is not None else []
        self.pieces: list[list[NDArray]] = [[] for _ in kinds]
        self.n = 0
        self.pending = b""
        self.header_done = False
        self.ended = False

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:  # a piece of the stream, up to COPY_CHUNK_BYTES
        size = len(data)
        # The piece is parsed where it lies (the writer's buffer, valid during this call);
        # only a row cut at the piece's end is copied, to be joined with the next piece.
        buffer = self.pending + bytes(data) if self.pending else memoryview(data)
        start = 0
        if not self.header_done:
            if len(buffer) < 19:
                self.pending = bytes(buffer)
                return size
            if bytes(buffer[:11]) != _COPY_SIGNATURE:
                raise ValueError("not a PostgreSQL binary COPY stream")
            start = 19 + int.from_bytes(buffer[15:19], "big")
            self.header_done = True
        width = self.row.itemsize
        n_rows = (len(buffer) - start) // width
        if n_rows:
            rows = np.frombuffer(buffer, dtype=self.row, count=n_rows, offset=start)
            self._store(rows)
            start += n_rows * width
        rest = bytes(buffer[start:])
        if rest[:2] == b"\xff\xff" and len(rest) < width:  # the trailer (-1 as int16)
            self.ended = True
            rest = b""
        self.pending = rest
        return size

    def _store(self, rows: NDArray) -> None:
        n_fields = len(self.kinds)
        if (rows["count"] != n_fields).any() or any(
            (rows[f"l{k}"] != 8).any() for k in range(n_fields)
        ):
            raise ValueError("unexpected field in the binary COPY stream")
        end = self.n + rows.shape[0]
        if not self.given:
            for k, dtype in enumerate(self.dtypes):
                self.pieces[k].append(rows[f"v{k}"].astype(dtype))
            self.n = end
            return
        if end > self.arrays[0].shape[0]:
            raise ValueError(f"more rows than the {self.arrays[0].shape[0]} given")
        for k, array in enumerate(self.arrays):
            array[self.n : end] = rows[f"v{k}"]
        self.n = end

    def finish(self) -> list[NDArray]:
        if not self.ended or self.pending:
            raise ValueError("the binary COPY stream ended early")
        if not self.given:
            arrays = []
            for k, dtype in enumerate(self.dtypes):
                pieces, self.pieces[k] = self.pieces[k], []
                arrays.append(np.concatenate(pieces) if pieces else np.empty(0, dtype=dtype))
                del pieces
                # The pieces (a few hundred kB each) lie on the heap, among other blocks, and
                # glibc keeps their pages when they are freed: given back here, column by
                # column, the columns' pieces and their joined copies are never all resident
                # at once (a million judgments: the process's peak RSS while loading them
                # 179 MiB instead of 217).
                return_freed_memory()
            return arrays
        if self.n == self.arrays[0].shape[0]:
            return self.arrays
        return [a[: self.n] for a in self.arrays]
