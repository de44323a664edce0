"""Random files through every importer (issue 11, item 5): an import either succeeds or fails
with ImportFailed (the clean "N problems found; nothing was imported"), never with another
exception (a 500 on the admin pages and the API); a file with a NUL byte never imports, since
PostgreSQL cannot store one (SQLite, which the tests use, would)."""

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.importers import ImportFailed, run_import
from campaigns.importers.judgments import ImportOptions, import_judgments
from campaigns.models import Output, Segment, TaskKind
from judgments.models import Worker
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Pieces that matter to the readers: separators, quotes, line breaks, NUL, bytes that are
# not UTF-8, byte-order marks, JSON syntax, numbers, and the column names of each format.
PIECES = [
    b"\t",
    b",",
    b'"',
    b"\r",
    b"\n",
    b"\x00",
    b"\\u0000",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\xfe\xff",
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b" ",
    b"0",
    b"50",
    b"-1",
    b"1e309",
    b"nan",
    b"d1",
    b"A",
    b"SYSTEM",
    b"REPEAT",
    b"text",
    "ä東".encode(),
    b'"doc_id"',
    b'"items"',
]
SEGMENT_HEADERS = [
    b"doc_id\tseg_id\tsource\treference\tsystem\toutput\n",
    b"doc_id,seg_id,source,reference,system,output\n",
    b"",
]
JUDGMENT_HEADERS = [
    b"HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n",
    b"user,systemID,itemID,itemType,src,tgt,score,startTime,endTime\n",
    b"HITId,AssignmentId,WorkerId,AssignmentStatus\n",
    b"",
]


def lines(headers: list[bytes]):
    row = st.lists(st.sampled_from(PIECES), max_size=14).map(b"".join)
    body = st.lists(row, max_size=6).map(lambda rows: b"\n".join(rows))
    return st.tuples(st.sampled_from(headers), body).map(b"".join)


def named(data: bytes, name: str) -> io.BytesIO:
    file = io.BytesIO(data)
    file.name = name
    return file


@pytest.fixture
def campaign():
    return CampaignFactory(name="fuzz", kind=TaskKind.DIRECT_ASSESSMENT)


@FUZZ
@given(data=lines(SEGMENT_HEADERS), fmt=st.sampled_from(["tsv", "csv", "jsonl", "appraise"]))
def test_segment_importers_fail_cleanly_or_import_no_nul(campaign, data, fmt):
    try:
        run_import(campaign, fmt, named(data, f"fuzz.{fmt}"))
    except ImportFailed as failure:
        assert failure.problems and failure.total >= len(failure.problems)
        return
    assert b"\x00" not in data
    assert not Segment.objects.filter(source__contains="\x00").exists()
    assert not Output.objects.filter(text__contains="\x00").exists()


@FUZZ
@given(
    data=lines(JUDGMENT_HEADERS),
    fmt=st.sampled_from(["wmt-da", "appraise", "wmt08-rr", "wmt10-rr", "mturk-batch"]),
)
def test_judgment_importers_fail_cleanly_or_import_no_nul(data, fmt):
    try:
        import_judgments([named(data, "fuzz.csv")], ImportOptions(fmt, name="fuzz"))
    except ImportFailed as failure:
        assert failure.problems and failure.total >= len(failure.problems)
        return
    assert b"\x00" not in data
    assert not Worker.objects.filter(external_id__contains="\x00").exists()
