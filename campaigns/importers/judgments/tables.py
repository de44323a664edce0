"""Reading delimited judgment files into rows with their line numbers.

Every format here is a table: comma-separated (Appraise, WMT rankings, MTurk batch results,
with RFC 4180 quoting, read with the segment importers' strict dialect) or tab-separated
without quoting (WMT's direct-assessment files, whose header line is separated by spaces).
A row that cannot be read stops the file with a problem naming its line; the rows read
before it are still checked, so one upload reports as much as it can.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence

from campaigns.importers.context import Progress
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile, iter_lines, scan_text
from campaigns.importers.tabular import StrictComma
from campaigns.importers.tabular import _csv_reason as csv_reason

PROGRESS_EVERY = 10_000

Row = list[str]


class Table:
    """A file's rows, read one at a time: ``(line, fields)`` with 1-based line numbers (where a
    row starts). ``first`` is the first row (the header, in most formats), ``rest()`` the rows
    after it; iterating gives them all. Rows are split as they are read, so a file of a million
    rows never holds a million lists of fields."""

    def __init__(self, name: str, rows: Iterator[tuple[int, Row]], n_lines: int) -> None:
        self.name = name
        self.n_lines = n_lines
        self._rows = rows
        self.first: tuple[int, Row] | None = next(rows, None)

    def rest(self) -> Iterator[tuple[int, Row]]:
        return self._rows

    def __iter__(self) -> Iterator[tuple[int, Row]]:
        if self.first is not None:
            yield self.first
        yield from self._rows


def read_table(
    input_file: InputFile,
    problems: ProblemList,
    *,
    split: Callable[[str], Row] | None = None,
    progress: Progress | None = None,
) -> Table | None:
    """The file's non-blank rows, or None when it is not UTF-8 text.

    ``split`` splits one physical line into fields (tab-separated files without quoting);
    without it the file is read as CSV. Blank lines are skipped: they carry no judgment.
    """
    n_lines = scan_text(input_file, problems, header_split=_header_split if split else _csv_header)
    if n_lines is None:
        return None
    lines = iter_lines(input_file)
    return Table(
        input_file.name,
        _split_rows(input_file.name, lines, n_lines, split, problems, progress),
        n_lines,
    )


def _header_split(line: str) -> Row:
    """WMT's direct-assessment header: tab-separated, or separated by spaces."""
    return line.split("\t") if "\t" in line else line.split()


def _csv_header(line: str) -> Row:
    try:
        return next(csv.reader([line], dialect=StrictComma), [])
    except csv.Error:
        return line.split(",")


def _split_rows(
    name: str,
    lines: Iterator[str],
    n_lines: int,
    split: Callable[[str], Row] | None,
    problems: ProblemList,
    progress: Progress | None,
) -> Iterator[tuple[int, Row]]:
    if split is not None:
        for number, line in enumerate(lines, 1):
            if progress and number % PROGRESS_EVERY == 0:
                progress(number, n_lines)
            if line.strip():
                yield number, split(line)
        if progress:
            progress(n_lines, n_lines)
        return
    reader = csv.reader((line + "\n" for line in lines), dialect=StrictComma)
    previous_end = 0
    while True:
        line = previous_end + 1
        try:
            row = next(reader)
        except StopIteration:
            if progress:
                progress(n_lines, n_lines)
            return
        except csv.Error as error:
            problems.add(
                name,
                line,
                None,
                f"cannot read the row: {csv_reason(error)}; the rest of the file was not read",
            )
            return
        previous_end = reader.line_num
        if progress and previous_end % PROGRESS_EVERY == 0:
            progress(previous_end, n_lines)
        if row and any(field.strip() for field in row):
            yield line, row


def split_tabs(line: str) -> Row:
    """WMT's direct-assessment rows: tab-separated, no quoting (no field holds text)."""
    return line.split("\t")


class Columns:
    """A header row: which column holds which field, and the missing-column problem."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = [name.strip() for name in names]
        self.index: dict[str, int] = {}
        for position, name in enumerate(self.names):
            self.index.setdefault(name, position)

    def missing(self, required: Sequence[str]) -> list[str]:
        return [name for name in required if name not in self.index]

    def report_missing(
        self, file: str, line: int, required: Sequence[str], problems: ProblemList
    ) -> bool:
        """Report the required columns the header lacks (naming the columns it has); True if
        none is missing."""
        missing = self.missing(required)
        if not missing:
            return True
        listed = ", ".join(f'"{name}"' for name in missing)
        found = ", ".join(self.names) or "nothing"
        problems.add(
            file,
            line,
            None,
            f"missing {'column' if len(missing) == 1 else 'columns'} {listed}; the header "
            f"has: {found}",
        )
        return False

    def get(self, row: Row, name: str) -> str:
        position = self.index.get(name)
        if position is None or position >= len(row):
            return ""
        return row[position]


def width_problem(
    file: str, line: int, width: int, expected: int, problems: ProblemList, separator: str
) -> None:
    problems.add(
        file,
        line,
        None,
        f"{width} fields, but the header has {expected}; check for missing or extra {separator}",
    )
