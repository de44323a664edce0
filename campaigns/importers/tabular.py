"""Tabular imports: TSV, CSV and JSONL, one row per system output.

Columns (JSONL: keys): doc_id, seg_id, source, reference, system, output, and any number of
reference_<name> columns holding further references, in column order. See
docs/import-formats.md.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace

from campaigns.importers.context import ParseContext, id_problem, text_problem
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import (
    READ_LINE_LIMIT,
    InputFile,
    is_blank,
    iter_lines,
    scan_text,
)
from campaigns.importers.records import Origin, ParsedImport, SegmentRecord

REQUIRED_COLUMNS = ("doc_id", "seg_id", "source", "reference", "system", "output")
EXTRA_REFERENCE = re.compile(r"^reference_.+$")
ALLOWED_TEXT = (
    "the allowed columns are doc_id, seg_id, source, reference, system, output, and "
    "reference_<name> (e.g. reference_2) for each further reference"
)
PROGRESS_EVERY = 10_000

Row = dict[str, str]


class _Dialect(csv.Dialect):
    """The csv module's excel dialects, but strict: a field that starts with a quote must be
    properly quoted. Otherwise '"Yes," she said.' would silently lose its quotes."""

    doublequote = True
    escapechar = None
    quotechar = '"'
    quoting = csv.QUOTE_MINIMAL
    skipinitialspace = False
    lineterminator = "\r\n"
    strict = True


class StrictTab(_Dialect):
    delimiter = "\t"


class StrictComma(_Dialect):
    delimiter = ","


class StrictSemicolon(_Dialect):
    """CSV as Excel saves it where the comma is the decimal separator (German, French, ...
    Excel's "CSV" is semicolon-separated there)."""

    delimiter = ";"


SEPARATOR_NAMES = {"\t": "tab", ",": "comma", ";": "semicolon"}


def known_column(name: str) -> bool:
    return name in REQUIRED_COLUMNS or bool(EXTRA_REFERENCE.match(name))


def header_delimiter(line: str) -> str | None:
    """The separator of a header line: the tab, comma or semicolon that splits it into the
    most known column names (at least two), or None.

    The column names are known, so this is exact where the csv module's Sniffer guesses from
    how often characters recur (and raises when it cannot decide).
    """
    line = line.lstrip("\ufeff")
    best, most = None, 1
    for delimiter in SEPARATOR_NAMES:
        names = [name.strip().strip('"') for name in line.split(delimiter)]
        known = sum(1 for name in names if known_column(name))
        if known > most:
            best, most = delimiter, known
    return best


def dialect_for(fmt: str, header: str) -> type[_Dialect]:
    """The dialect of a TSV or CSV file with this header line.

    A CSV file whose header is separated by semicolons is read with semicolons: that is how
    Excel saves "CSV" in the many locales whose decimal separator is the comma, requesters
    there cannot easily make anything else, and the header tells it for certain (column names
    contain neither commas nor semicolons), so a comma-separated file is never misread.
    Quoting is the same. TSV is always tab-separated.
    """
    if fmt == "tsv":
        return StrictTab
    return StrictSemicolon if header_delimiter(header) == ";" else StrictComma


def parse_tabular(
    input_file: InputFile,
    fmt: str,
    context: ParseContext,
    parsed: ParsedImport,
    problems: ProblemList,
) -> None:
    """Read one tabular file into ``parsed``, reporting every problem found in it."""
    parsed.files.append(input_file.name)
    parsed.output_field = "system"
    dialect = None if fmt == "jsonl" else dialect_for(fmt, first_line(input_file))
    n_lines = scan_text(
        input_file,
        problems,
        header_split=None if dialect is None else _header_splitter(dialect),
        delimiter=None if dialect is None else dialect.delimiter,
    )
    if n_lines is None:
        return
    table = _reader(input_file.name, iter_lines(input_file), n_lines, fmt, dialect, problems)
    table.reread = lambda: iter_lines(input_file)
    processor = None
    for line, row in table.rows(context):
        # The columns are known once the first row is read; rows are processed as they come
        # (a file's rows are never all in memory).
        if processor is None:
            processor = _RowProcessor(
                input_file.name, table.extra_references, context, parsed, problems
            )
        processor.row(line, row)
    if context.parse_progress:
        context.parse_progress(n_lines, n_lines)
    if table.rejected:
        parsed.rows_rejected = True
    parsed.output_texts = _output_texts(
        input_file, fmt, dialect, replace(context, parse_progress=None)
    )


def _reader(
    name: str,
    lines: Iterator[str],
    n_lines: int,
    fmt: str,
    dialect: type[_Dialect] | None,
    problems: ProblemList,
) -> _Table:
    if dialect is None:
        return _JsonlReader(name, lines, n_lines, fmt, problems)
    return _DelimitedReader(name, lines, n_lines, fmt, problems, dialect=dialect)


def first_line(input_file: InputFile) -> str:
    """The file's first line, as well as it decodes (the scan reports bad bytes)."""
    with input_file.open() as stream:
        raw = stream.readline(READ_LINE_LIMIT)
    return raw.decode("utf-8", errors="replace").lstrip("\ufeff").rstrip("\r\n")


def _output_texts(
    input_file: InputFile, fmt: str, dialect: type[_Dialect] | None, context: ParseContext
):
    """The outputs' texts, read again from the file when the import is written (the check
    keeps only where each output is); the file had no problem, so every row is good."""

    def texts() -> Iterator[tuple[tuple[str, str, str], str]]:
        problems = ProblemList()
        table = _reader(input_file.name, iter_lines(input_file), 0, fmt, dialect, problems)
        table.reread = lambda: iter_lines(input_file)
        for _, row in table.rows(context):
            if not is_blank(row["system"]):
                yield (row["doc_id"], row["seg_id"], row["system"]), row["output"]
        if problems:  # the file changed since it was checked
            raise problems.failure()

    return texts


def _header_splitter(dialect: type[csv.Dialect]):
    def split(line: str) -> list[str]:
        try:
            return next(csv.reader([line], dialect=dialect), [])
        except csv.Error:
            return line.split(dialect.delimiter)

    return split


class _Table:
    def __init__(
        self, name: str, lines: Iterator[str], n_lines: int, fmt: str, problems: ProblemList
    ) -> None:
        self.name = name
        self.lines = lines
        self.n_lines = n_lines
        self.fmt = fmt
        self.problems = problems
        self.columns: list[str] | None = None
        self.extra_references: list[str] = []
        self.rejected = False
        # How to read the lines again from the start (JSON lines are read twice).
        self.reread: Callable[[], Iterator[str]] | None = None

    def report_progress(self, context: ParseContext, line: int) -> None:
        if context.parse_progress and line % PROGRESS_EVERY == 0:
            context.parse_progress(line, self.n_lines)

    def blank_lines(self, blanks: list[int]) -> None:
        """Blank lines between rows are reported; blank lines at the end of a file are not."""
        for line in blanks:
            self.problems.add(
                self.name, line, None, "empty line; every line after the header is one row"
            )
            self.rejected = True

    def check_columns(self, names: list[str], line: int | None) -> list[str] | None:
        ok = True
        seen: set[str] = set()
        for name in names:
            if name in seen:
                self.problems.add(self.name, line, name, f'column "{name}" appears twice')
                ok = False
            seen.add(name)
            if not known_column(name):
                self.problems.add(self.name, line, name, f'unknown column "{name}"; {ALLOWED_TEXT}')
                ok = False
        missing = [name for name in REQUIRED_COLUMNS if name not in seen]
        if missing:
            listed = ", ".join(f'"{name}"' for name in missing)
            self.problems.add(
                self.name,
                line,
                None,
                f"missing {'column' if len(missing) == 1 else 'columns'} {listed}; every row "
                f"needs doc_id, seg_id, source, reference, system and output (system and output "
                "may be empty only in translation campaigns)",
            )
            ok = False
        self.extra_references = [name for name in names if EXTRA_REFERENCE.match(name)]
        return names if ok else None


class _DelimitedReader(_Table):
    def __init__(self, *args, dialect: type[_Dialect]) -> None:
        super().__init__(*args)
        self.dialect = dialect

    def rows(self, context: ParseContext) -> Iterator[tuple[int, Row]]:
        first: list[str] = []

        def physical() -> Iterator[str]:
            for line in self.lines:
                if not first:
                    first.append(line)
                yield line + "\n"

        reader = csv.reader(physical(), dialect=self.dialect)
        try:
            header = next(reader, None)
        except csv.Error as error:
            self._unreadable(1, error)
            return
        if header is None:
            self.problems.add(self.name, None, None, "empty file: the header row is missing")
            return
        names = [name.strip() for name in header]
        hint = self.separator_hint(first[0] if first else "", names)
        if hint:
            # One problem, not an "unknown column" for the whole line and "missing" for all.
            self.problems.add(self.name, 1, None, hint)
            return
        self.columns = self.check_columns(names, 1)
        if self.columns is None:
            return
        width = len(self.columns)
        blanks: list[int] = []
        previous_end = reader.line_num
        while True:
            line = previous_end + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as error:
                self._unreadable(line, error)
                return
            previous_end = reader.line_num
            self.report_progress(context, previous_end)
            if not row or row == [""]:
                blanks.append(line)
                continue
            self.blank_lines(blanks)
            blanks = []
            if len(row) != width:
                separator = SEPARATOR_NAMES[self.dialect.delimiter] + "s"
                self.problems.add(
                    self.name,
                    line,
                    None,
                    f"{len(row)} fields, but the header has {width}; check for missing or "
                    f"extra {separator} (quote a field that contains one)",
                )
                self.rejected = True
                continue
            yield line, dict(zip(self.columns, row, strict=True))

    def separator_hint(self, line: str, names: list[str]) -> str:
        """When the header does not give the columns but splits into them at another
        separator: which one the file seems to use, and which format reads it. '' otherwise."""
        if all(name in names for name in REQUIRED_COLUMNS):
            return ""
        found = header_delimiter(line)
        if found is None or found == self.dialect.delimiter:
            return ""
        mine = SEPARATOR_NAMES[self.dialect.delimiter]
        columns = ", ".join(name.strip().strip('"') for name in line.split(found))
        fmt = "tsv" if found == "\t" else "csv"
        what = {
            "\t": "a TSV file",
            ",": "a CSV file",
            ";": "a CSV file as Excel saves it in many languages",
        }[found]
        accepted = ", which accepts semicolons" if found == ";" else ""
        return (
            f"the header is not {mine}-separated but {SEPARATOR_NAMES[found]}-separated "
            f"({columns}): this looks like {what}; import it as {fmt.upper()}{accepted} (the "
            f"format on the import page, --format {fmt} with manage.py import_segments)"
        )

    def _unreadable(self, line: int, error: csv.Error) -> None:
        self.problems.add(
            self.name,
            line,
            None,
            f"cannot read the row: {_csv_reason(error)}; the rest of the file was not read",
        )
        self.rejected = True


def _objects(lines: Iterator[str]) -> Iterator[tuple[int, dict]]:
    """The JSON objects of the lines (the first pass reported every other line)."""
    for line, text in enumerate(lines, 1):
        if is_blank(text):
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield line, value


def _csv_reason(error: csv.Error) -> str:
    """The csv module's error in words a person can act on."""
    text = str(error)
    if "expected after" in text:
        return (
            "a field starts with a double quote but has more text after its closing quote; "
            'quote the whole field and double every quote inside it ("")'
        )
    if "unexpected end of data" in text:
        return "a quoted field is never closed (a double quote is missing)"
    if "new-line character seen in unquoted field" in text:
        return "a carriage return (\\r) inside a field; quote the field"
    if "field larger than field limit" in text:
        return "a field is longer than the csv module's limit (probably an unclosed quote)"
    return text.replace("\t", "\\t")


class _JsonlReader(_Table):
    """JSON lines, read twice: once for the columns (every key of every line) and the
    problems of each line, then again for the rows, so that the objects of a big file are
    never all in memory."""

    def rows(self, context: ParseContext) -> Iterator[tuple[int, Row]]:
        keys: dict[str, int] = {}  # every key, in order of first appearance: its first line
        kept: list[tuple[int, dict]] = []  # the objects, when the file cannot be read again
        found = False
        blanks: list[int] = []
        for line, text in enumerate(self.lines, 1):
            self.report_progress(context, line)
            if is_blank(text):
                blanks.append(line)
                continue
            self.blank_lines(blanks)
            blanks = []
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                self.problems.add(
                    self.name, line, None, f"not valid JSON: {error.msg} at column {error.colno}"
                )
                self.rejected = True
                continue
            if not isinstance(value, dict):
                self.problems.add(
                    self.name, line, None, "not a JSON object; every line is one {...} object"
                )
                self.rejected = True
                continue
            found = True
            for key in value:
                keys.setdefault(key, line)
            if self.reread is None:
                kept.append((line, value))
        if not found:
            if not self.rejected:
                self.problems.add(self.name, None, None, "empty file: no JSON lines")
            return

        unknown_ok = True
        for key, line in keys.items():
            if key not in REQUIRED_COLUMNS and not EXTRA_REFERENCE.match(key):
                self.problems.add(self.name, line, key, f'unknown key "{key}"; {ALLOWED_TEXT}')
                unknown_ok = False
        self.extra_references = [key for key in keys if EXTRA_REFERENCE.match(key)]
        self.columns = [*REQUIRED_COLUMNS, *self.extra_references] if unknown_ok else None
        if self.columns is None:
            return
        objects = kept if self.reread is None else _objects(self.reread())

        for line, value in objects:
            missing = [key for key in REQUIRED_COLUMNS if key not in value]
            if missing:
                listed = ", ".join(f'"{key}"' for key in missing)
                self.problems.add(
                    self.name,
                    line,
                    None,
                    f"missing {'key' if len(missing) == 1 else 'keys'} {listed}; every line "
                    'needs doc_id, seg_id, source, reference, system and output (use "" for '
                    "an empty one)",
                )
                self.rejected = True
                continue
            row: Row = {}
            ok = True
            for key in self.columns:
                item = value.get(key)
                if item is None:
                    row[key] = ""
                elif isinstance(item, str):
                    row[key] = item
                elif (
                    key in ("doc_id", "seg_id")
                    and isinstance(item, int)
                    and not isinstance(item, bool)
                ):
                    row[key] = str(item)
                else:
                    ids = key in ("doc_id", "seg_id")
                    allowed = "a string or a whole number" if ids else "a string"
                    shown = json.dumps(item, ensure_ascii=False)[:40]
                    self.problems.add(self.name, line, key, f"{shown} is not {allowed}")
                    ok = False
            if not ok:
                self.rejected = True
                continue
            yield line, row


class _RowProcessor:
    """Turns rows into segments and outputs; checks agreement between rows of one segment."""

    def __init__(
        self,
        name: str,
        extra_references: list[str],
        context: ParseContext,
        parsed: ParsedImport,
        problems: ProblemList,
    ) -> None:
        self.name = name
        self.extra_references = extra_references
        self.context = context
        self.parsed = parsed
        self.problems = problems
        # (doc, seg) -> the row values that must agree: source, reference, reference_*.
        self.first_values: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}

    def problem(self, line: int, field: str | None, message: str) -> None:
        self.problems.add(self.name, line, field, message)

    def row(self, line: int, row: Row) -> None:
        # Interned: a file repeats its ids on every row, and each row's split makes new copies.
        doc_id, seg_id = sys.intern(row["doc_id"]), sys.intern(row["seg_id"])
        bad_id = False
        for key, what in (("doc_id", "document id"), ("seg_id", "segment id")):
            message = id_problem(row[key], what)
            if message:
                self.problem(line, key, message)
                bad_id = True
        if bad_id:
            self.parsed.rows_rejected = True
            return
        key = (doc_id, seg_id)
        agreeing = (row["source"], row["reference"], *(row[c] for c in self.extra_references))
        if key in self.first_values:
            self.check_agreement(line, key, agreeing)
        else:
            self.first_values[key] = (line, agreeing)
            self.new_segment(line, row, key)
        self.output(line, row, key)

    def new_segment(self, line: int, row: Row, key: tuple[str, str]) -> None:
        message = text_problem(row["source"], "source")
        if message:
            self.problem(line, "source", message)
        references = []
        main = row["reference"]
        if is_blank(main):
            if self.context.needs_reference:
                self.problem(
                    line,
                    "reference",
                    f"empty reference; a {self.context.kind_label} campaign needs a reference "
                    "for every segment",
                )
            filled = [c for c in self.extra_references if not is_blank(row[c])]
            if filled:
                self.problem(
                    line,
                    "reference",
                    f"empty, but {filled[0]} is not; put the main reference in the reference "
                    "column",
                )
        else:
            references.append(main)
            message = text_problem(main, "reference")
            if message:
                self.problem(line, "reference", message)
        for column in self.extra_references:
            value = row[column]
            if is_blank(value):
                continue  # this segment has fewer references than others
            message = text_problem(value, "reference")
            if message:
                self.problem(line, column, message)
            references.append(value)
        self.parsed.add_segment(
            SegmentRecord(
                doc_id=key[0],
                seg_id=key[1],
                source=row["source"],
                references=references,
                origin=Origin(self.name, line, "seg_id"),
                source_origin=Origin(self.name, line, "source"),
                reference_origin=Origin(self.name, line, "reference"),
            )
        )

    def check_agreement(self, line: int, key: tuple[str, str], values: tuple[str, ...]) -> None:
        first_line, first = self.first_values[key]
        columns = ("source", "reference", *self.extra_references)
        for column, mine, theirs in zip(columns, values, first, strict=True):
            if mine != theirs:
                self.problem(
                    line,
                    column,
                    f"doc {key[0]} seg {key[1]} has a different {column} on line {first_line}; "
                    f"every row of one segment must have the same source and references",
                )
                return

    def output(self, line: int, row: Row, key: tuple[str, str]) -> None:
        system, text = row["system"], row["output"]
        if is_blank(system):
            if not is_blank(text):
                self.problem(line, "system", "empty system name for a non-empty output")
            elif not self.context.outputs_optional:
                self.problem(
                    line,
                    "system",
                    "empty system name; every row is one system's output (only translation "
                    "campaigns may import segments without outputs)",
                )
            return
        message = id_problem(system, "system name")
        if message:
            self.problem(line, "system", message)
            return
        system = sys.intern(system)
        if system not in self.parsed.systems:
            self.parsed.add_system(system, Origin(self.name, line, "system"))
        output_key = (key[0], key[1], system)
        previous = self.parsed.outputs.get(output_key)
        if previous is not None:
            self.problem(
                line,
                "system",
                f"duplicate id: doc {key[0]} seg {key[1]} system {system} is also on line "
                f"{previous}; a system has one output per segment",
            )
            return
        self.parsed.outputs[output_key] = line  # the text is read again when written
        message = text_problem(text, "output")
        if message:
            self.problem(line, "output", message)
