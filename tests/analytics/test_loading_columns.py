"""analytics.loading: ``load_columns`` reads exactly what ``values_list`` reads (on PostgreSQL
a binary COPY parsed in pieces, with or without a count first), and ``lookup`` finds ids by a
table when they are dense and by a search when they are not."""

import numpy as np
import pytest

from analytics import loading
from analytics.loading import load_columns, lookup
from judgments.models import Judgment
from tests.factories import JudgmentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def judgments():
    """Seven judgments, with NULL scores, durations and z-scores among them."""
    rows = [
        (55.5, 1200, None),
        (None, None, 0.25),
        (0.0, 0, None),
        (100.0, None, -1.5),
        (12.25, 99, None),
        (None, 7, None),
        (73.0, 3000, 2.0),
    ]
    return [JudgmentFactory(score=score, client_duration_ms=ms, given_z=z) for score, ms, z in rows]


COLUMNS = [
    ("id", "id"),
    ("worker_id", "id"),
    ("score", "float"),
    ("client_duration_ms", "float"),
    ("given_z", "float"),
]


def expected():
    rows = list(Judgment.objects.order_by("id").values_list(*(name for name, _ in COLUMNS)))
    out = {}
    for k, (name, kind) in enumerate(COLUMNS):
        values = [row[k] for row in rows]
        if kind == "id":
            out[name] = np.array([-1 if v is None else v for v in values], dtype=np.int64)
        else:
            out[name] = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    return out


@pytest.mark.parametrize("chunk_bytes", [37, 4 * 2**20])
def test_load_columns_reads_what_values_list_reads(judgments, monkeypatch, chunk_bytes) -> None:
    # A 37-byte buffer splits the COPY stream inside rows and inside the header (PostgreSQL).
    monkeypatch.setattr(loading, "COPY_CHUNK_BYTES", chunk_bytes)
    got = load_columns(Judgment.objects.order_by("id"), COLUMNS)
    want = expected()
    assert list(got) == [name for name, _ in COLUMNS]
    for name, _ in COLUMNS:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
        assert got[name].dtype == want[name].dtype
    assert got["score"][1] != got["score"][1]  # NULL: NaN


@pytest.mark.parametrize("length", [7, 20, 6])
def test_load_columns_into_given_arrays_fills_them_and_refuses_more_rows(judgments, length):
    into = [
        np.full(length, 99, dtype=np.int64 if kind == "id" else np.float64) for _, kind in COLUMNS
    ]
    if length < 7:  # seven judgments
        with pytest.raises(ValueError, match="given"):
            load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into)
        return
    got = load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into)
    want = expected()
    for k, (name, _) in enumerate(COLUMNS):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
        assert np.shares_memory(got[name], into[k])  # the given arrays' first rows
        assert got[name].shape == (7,)


def test_load_columns_of_no_rows() -> None:
    got = load_columns(Judgment.objects.all(), COLUMNS)
    for name, kind in COLUMNS:
        assert got[name].shape == (0,)
        assert got[name].dtype == (np.int64 if kind == "id" else np.float64)


def test_lookup_in_dense_ids_many_wanted() -> None:
    ids = np.array([100, 101, 103, 104], dtype=np.int64)
    wanted = np.array([104, 100, 103, 103, 101, 100], dtype=np.int64)
    assert lookup(ids, wanted, "slot(s)").tolist() == [3, 0, 2, 2, 1, 0]


def test_lookup_in_sparse_ids() -> None:
    ids = np.array([5, 10**12], dtype=np.int64)
    wanted = np.array([10**12, 5, 5], dtype=np.int64)
    assert lookup(ids, wanted, "slot(s)").tolist() == [1, 0, 0]


@pytest.mark.parametrize("missing", [102, 99, 105])
def test_lookup_names_the_missing_ids(missing: int) -> None:
    ids = np.array([100, 101, 103, 104], dtype=np.int64)
    wanted = np.array([100, missing, 101, 103, 104, 100], dtype=np.int64)
    with pytest.raises(ValueError, match=rf"slot\(s\) \[{missing}\] not found in the campaign"):
        lookup(ids, wanted, "slot(s)")


@pytest.mark.parametrize("spare", [0, 3])
@pytest.mark.parametrize("chunk_bytes", [37, 4 * 2**20])
def test_load_columns_into_given_arrays(judgments, monkeypatch, spare, chunk_bytes) -> None:
    """``into``: the rows parsed straight into the arrays given (as long as the rows, or
    longer); the result is their first rows, views of them."""
    monkeypatch.setattr(loading, "COPY_CHUNK_BYTES", chunk_bytes)
    n = len(judgments)
    into = [
        np.full(n + spare, -7, dtype=np.int64 if kind == "id" else np.float64)
        for _, kind in COLUMNS
    ]
    got = load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into)
    want = expected()
    for k, (name, _) in enumerate(COLUMNS):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)
        assert got[name].dtype == want[name].dtype
        assert np.shares_memory(got[name], into[k])
        assert (into[k][n:] == -7).all()  # the spare rows untouched


def test_load_columns_into_arrays_too_short(judgments) -> None:
    into = [
        np.empty(len(judgments) - 1, dtype=np.int64 if kind == "id" else np.float64)
        for _, kind in COLUMNS
    ]
    with pytest.raises(ValueError, match="given"):
        load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into)


def test_load_columns_into_arrays_of_the_wrong_type() -> None:
    into = [np.empty(3, dtype=np.float64) for _ in COLUMNS]
    with pytest.raises(ValueError, match="into: a writable 1-D int64 array per id column"):
        load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into)
    with pytest.raises(ValueError, match="into has 1 arrays for 5 columns"):
        load_columns(Judgment.objects.order_by("id"), COLUMNS, into=into[:1])


@pytest.mark.django_db(transaction=True)
def test_load_columns_together_reads_what_load_columns_reads(judgments) -> None:
    """Each read gives what load_columns gives it (on PostgreSQL outside a transaction, all at
    once on connections of their own; elsewhere one after another), ``into`` included."""
    from analytics.loading import ColumnsRead, load_columns_together

    first_ids = [j.pk for j in judgments[:3]]
    into = [np.full(5, -7, dtype=np.int64), np.full(5, -7.0)]
    reads = [
        ColumnsRead(Judgment.objects.order_by("id"), COLUMNS),
        ColumnsRead(Judgment.objects.filter(pk__in=first_ids).order_by("id"), COLUMNS[:1]),
        ColumnsRead(Judgment.objects.none(), COLUMNS[2:]),
        ColumnsRead(
            Judgment.objects.filter(pk__in=first_ids).order_by("id"),
            [("id", "id"), ("score", "float")],
            into,
        ),
    ]
    got = load_columns_together(reads)
    assert len(got) == 4
    for read, columns in zip(reads, got, strict=True):
        want = load_columns(read.queryset, read.columns)
        assert list(columns) == list(want)
        for name in want:
            np.testing.assert_array_equal(columns[name], want[name], err_msg=name)
            assert columns[name].dtype == want[name].dtype
    # Parsed straight into the given arrays: their first rows, the rest untouched.
    assert np.shares_memory(got[3]["id"], into[0])
    assert into[0].tolist() == [*first_ids, -7, -7]
    assert load_columns_together([]) == []


def test_load_columns_of_an_empty_queryset_sends_no_sql(django_assert_num_queries) -> None:
    into = [np.zeros(2, dtype=np.int64), np.zeros(2)]
    with django_assert_num_queries(0):
        got = load_columns(Judgment.objects.none(), COLUMNS)
        given = load_columns(Judgment.objects.none(), [("id", "id"), ("score", "float")], into=into)
    for name, kind in COLUMNS:
        assert got[name].shape == (0,)
        assert got[name].dtype == (np.int64 if kind == "id" else np.float64)
    assert given["id"].shape == given["score"].shape == (0,)
