"""The judgments of an import stored by column (issue 11 item 6): every row reads back exactly as
it was given, the duplicate check names the earlier line, and a HIT's time is spread over its
rows."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta

import pytest

from campaigns.importers.judgments.columns import AssignmentRows, JudgmentColumns
from campaigns.importers.judgments.records import (
    HitRecord,
    JudgmentRecord,
    ParsedJudgments,
)
from campaigns.importers.problems import ProblemList
from campaigns.importers.records import Origin

SLOT_A = ("system", "A", "testset", "1")
SLOT_B = ("bad_reference", "B", "testset", "2")
STARTED = datetime(2016, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)


def test_rows_read_back_exactly_as_given():
    columns = JudgmentColumns(JudgmentRecord)
    given = [
        JudgmentRecord("w1", "h1", SLOT_A, "a.csv", 2, score=5e-324, seconds=12.5),
        JudgmentRecord("w2", "h1", SLOT_B, "b.csv", 70_000, given_z=-1.7976931348623157e308),
        JudgmentRecord("w1", "h2", SLOT_A, "a.csv", 3, rank=5, started_at=STARTED),
        JudgmentRecord("w3", "h2", SLOT_B, "a.csv", 4),
    ]
    assert [columns.append(record) for record in given] == [0, 1, 2, 3]
    assert (len(columns), bool(columns), bool(JudgmentColumns(JudgmentRecord))) == (4, True, False)
    assert list(columns) == given
    assert columns.record(3) == given[3] and columns.record(2).started_at == STARTED
    assert columns.workers() == ["w1", "w2", "w3"]
    columns.set_seconds([0, 3], 40.0)
    assert [record.seconds for record in columns] == [40.0, None, None, 40.0]
    with pytest.raises(IndexError):
        columns.record(4)


def test_a_time_without_a_zone_or_two_values_on_a_row_are_refused():
    columns = JudgmentColumns(JudgmentRecord)
    naive = STARTED.replace(tzinfo=None)
    with pytest.raises(ValueError, match="time zone"):
        columns.append(JudgmentRecord("w", "h", SLOT_A, "f", 1, score=1.0, started_at=naive))
    with pytest.raises(ValueError, match="one of score, given_z and rank"):
        columns.append(JudgmentRecord("w", "h", SLOT_A, "f", 1, score=1.0, rank=2))
    assert len(columns) == 0


def test_an_assignment_marks_positions_bit_by_bit():
    rows = AssignmentRows()
    assert not rows.judged(1)
    rows.mark(1, 0)
    rows.mark(17, 5)
    assert [position for position in range(20) if rows.judged(position)] == [1, 17]
    assert list(rows.rows) == [0, 5] and len(rows.seen) == 3


def test_a_repeated_judgment_is_refused_naming_the_first_line():
    parsed = ParsedJudgments(kind="direct_assessment")
    hit = HitRecord("h1", "HIT h1", Origin("a.csv", 2, "HITId"), "h1")
    problems = ProblemList()
    slot = hit.slot(SLOT_A)
    other = hit.slot(SLOT_B)
    assert parsed.add(JudgmentRecord("w1", "h1", slot, "a.csv", 2, score=1.0), hit, problems)
    assert parsed.add(JudgmentRecord("w1", "h1", other, "a.csv", 3, score=2.0), hit, problems)
    assert parsed.add(JudgmentRecord("w2", "h1", slot, "a.csv", 4, score=3.0), hit, problems)
    again = JudgmentRecord("w1", "h1", slot, "b.csv", 9, score=4.0)
    assert not parsed.add(again, hit, problems)
    assert [str(problem) for problem in problems.sorted()] == [
        "b.csv line 9: duplicate judgment: worker w1 already judged the output of system A on "
        "segment 1 in HIT h1 on a.csv line 2; a worker judges each item of a HIT once"
    ]
    assert [record.score for record in parsed.judgments] == [1.0, 2.0, 3.0]
    assert parsed.assignments() == [("w1", "h1"), ("w2", "h1")]
    assert parsed.workers() == ["w1", "w2"]


def test_a_row_costs_a_few_dozen_bytes():
    """What the bench (bench/import_memory.py) measures in a whole import, here for the rows
    alone: under 60 bytes a row for 100,000 rows (a row object took about 150)."""
    columns = JudgmentColumns(JudgmentRecord)
    for row in range(100_000):
        slot = ("system", f"s{row % 10}", "testset", str(row % 3000))
        columns.append(
            JudgmentRecord(f"w{row % 500}", f"h{row // 100}", slot, "f", row, score=50.0)
        )
    arrays = [getattr(columns, name) for name in vars(columns) if name.startswith("_")]
    size = sum(sys.getsizeof(value) for value in arrays if hasattr(value, "itemsize"))
    assert size / len(columns) < 60


def test_times_outlive_the_round_trip_to_the_microsecond():
    columns = JudgmentColumns(JudgmentRecord)
    times = [STARTED + timedelta(microseconds=n) for n in (0, 1, 999_999)]
    times.append(datetime(1, 1, 1, tzinfo=UTC))
    for started in times:
        columns.append(JudgmentRecord("w", "h", SLOT_A, "f", 1, score=1.0, started_at=started))
    assert [record.started_at for record in columns] == times
