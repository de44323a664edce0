"""Reading ready-made reading-comprehension questions: TSV or JSON lines of doc_id, question,
answer (the sample answer) and optionally number, checked line by line (issue 14 item 2: "a
requester can also skip stages 1-2 by importing ready-made questions and answers (TSV/JSONL,
exact errors), as 000's DLPT-style tests do").

This module reads and checks a file on its own (every problem with its file, line and field);
what the file asks of the campaign (its articles, their stages and numbers) is checked, and
the questions written, by campaigns/kinds/reading_comprehension/imports.py.

* TSV: a header row naming the columns (any order; ``number`` optional), then one question a
  row; fields are split on tabs, no quoting (a question holding a tab or a line break goes in
  JSON lines).
* JSON lines: one object a line with the same keys; ``doc_id`` a string (a whole number is
  taken as its digits), ``question`` and ``answer`` strings, ``number`` a whole number or
  null.

Blank lines are skipped; texts are stored trimmed. Within one article, a number may appear
once; rows without one are numbered after the article's highest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campaigns.importers.context import id_problem
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import (
    MAX_TEXT_CHARS,
    FileLike,
    InputFile,
    is_blank,
    iter_lines,
    read_input,
    scan_text,
)

__all__ = [
    "COLUMNS",
    "FORMATS",
    "FORMAT_HELP",
    "ParsedQuestions",
    "QuestionRow",
    "parse_rc_questions",
]

FORMATS = ("tsv", "jsonl")
COLUMNS = ("doc_id", "question", "answer")
OPTIONAL_COLUMNS = ("number",)
EXTENSIONS = {".tsv": "tsv", ".txt": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
# RCQuestion.number is a PositiveSmallIntegerField.
MAX_NUMBER = 32767
FORMAT_HELP = (
    (
        "TSV",
        "A header row naming the columns doc_id, question and answer (the sample answer), and "
        "optionally number; then one question per row, fields separated by tabs (no quoting).",
    ),
    (
        "JSON lines",
        'One object per line with the same keys, e.g. {"doc_id": "d1", "question": "Why did '
        'the bystander call emergency services?", "answer": "He was concerned for her life."}.',
    ),
    (
        "Both",
        "doc_id is an article's document id in the campaign; number (optional, a whole number "
        "from 1) is the question's place in its article, unique there; questions without one "
        "follow the article's last. UTF-8 text; blank lines are skipped.",
    ),
)
_COLUMN_LIST = "doc_id, question, answer and optionally number"


@dataclass(frozen=True)
class QuestionRow:
    line: int
    doc_id: str
    question: str
    answer: str
    number: int | None = None


@dataclass(frozen=True)
class ParsedQuestions:
    file: str
    fmt: str
    rows: tuple[QuestionRow, ...]


def format_of(name: str, fmt: str | None) -> str | None:
    if fmt:
        return fmt if fmt in FORMATS else None
    return EXTENSIONS.get(Path(name).suffix.lower())


def parse_rc_questions(
    file: FileLike, *, fmt: str | None = None, name: str | None = None
) -> ParsedQuestions:
    """The file's questions; ImportFailed (campaigns.importers.problems) listing every
    problem of the file."""
    input_file = read_input(file, name)
    problems = ProblemList([input_file.name])
    chosen = format_of(input_file.name, fmt)
    if chosen is None:
        problems.add(
            input_file.name,
            None,
            None,
            f'unknown format "{fmt}"; use tsv or jsonl'
            if fmt
            else "cannot tell the format from the file name; name it .tsv or .jsonl, or choose "
            "the format",
        )
        raise problems.failure()
    if scan_text(input_file, problems) is None:
        raise problems.failure()
    reader = _read_tsv if chosen == "tsv" else _read_jsonl
    rows = [row for row in reader(input_file, problems) if row is not None]
    if not problems and not rows:
        problems.add(input_file.name, None, None, "no questions: the file has no rows")
    _check_numbers(input_file.name, rows, problems)
    if problems:
        raise problems.failure()
    return ParsedQuestions(input_file.name, chosen, tuple(rows))


def _row(name: str, line: int, values: dict[str, Any], problems: ProblemList) -> QuestionRow | None:
    """One row's values checked; None after reporting its problems."""
    before = len(problems)
    doc_id = values.get("doc_id")
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        doc_id = str(doc_id)
    if doc_id is not None and not isinstance(doc_id, str):
        problems.add(name, line, "doc_id", "doc_id must be text (a JSON string)")
    elif (reason := id_problem(doc_id, "doc_id")) is not None:
        problems.add(name, line, "doc_id", reason)
    texts = {}
    for field, what in (
        ("question", "question; every row needs the question's text"),
        (
            "answer",
            "answer; every question needs a sample answer (graders compare answers with it)",
        ),
    ):
        value = values.get(field)
        if value is not None and not isinstance(value, str):
            problems.add(name, line, field, f"{field} must be text (a JSON string)")
        elif is_blank(value):
            problems.add(name, line, field, f"empty {what}")
        elif "\x00" in value:
            problems.add(name, line, field, f"the {field} contains a NUL character (\\u0000)")
        elif len(value) > MAX_TEXT_CHARS:
            problems.add(
                name,
                line,
                field,
                f"{field} of {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,}",
            )
        else:
            texts[field] = value.strip()
    number = _number(values.get("number"))
    if number is False:
        problems.add(
            name,
            line,
            "number",
            f"not a question number: {json.dumps(values.get('number'), ensure_ascii=False)}; "
            f"use a whole number from 1 to {MAX_NUMBER}, or leave it empty",
        )
    if len(problems) > before:
        return None
    return QuestionRow(line, doc_id.strip(), texts["question"], texts["answer"], number)


def _number(value: Any) -> int | None | bool:
    """The number, None when absent or empty, False when it is not one."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return False
    if isinstance(value, str):
        text = value.strip()
        if not text.isascii() or not text.isdigit():
            return False
        value = int(text)
    if not isinstance(value, int) or not 1 <= value <= MAX_NUMBER:
        return False
    return value


def _read_tsv(input_file: InputFile, problems: ProblemList):
    name = input_file.name
    lines = iter_lines(input_file)
    header_text = next(lines, None)
    if header_text is None or is_blank(header_text):
        problems.add(
            name, 1, None, f"no header row; the first line names the columns: {_COLUMN_LIST}"
        )
        return
    header = [column.strip() for column in header_text.split("\t")]
    bad_header = False
    for column in header:
        if column not in COLUMNS + OPTIONAL_COLUMNS:
            problems.add(
                name,
                1,
                column or None,
                f'unknown column "{column}"; the columns are {_COLUMN_LIST}'
                if column
                else f"a column without a name (an empty header field); the columns are "
                f"{_COLUMN_LIST}",
            )
            bad_header = True
    for column in sorted({c for c in header if header.count(c) > 1 and c}):
        problems.add(name, 1, column, f'the column "{column}" appears twice')
        bad_header = True
    for column in COLUMNS:
        if column not in header:
            problems.add(
                name,
                1,
                None,
                f'missing column "{column}"; the header names {_COLUMN_LIST}',
            )
            bad_header = True
    if bad_header:
        return
    for line, text in enumerate(lines, 2):
        if is_blank(text):
            continue
        fields = text.split("\t")
        if len(fields) != len(header):
            problems.add(
                name,
                line,
                None,
                f"{len(fields)} tab-separated field(s), the header has {len(header)} "
                f"({', '.join(header)})",
            )
            continue
        yield _row(name, line, dict(zip(header, fields, strict=True)), problems)


def _read_jsonl(input_file: InputFile, problems: ProblemList):
    name = input_file.name
    keys = COLUMNS + OPTIONAL_COLUMNS
    for line, text in enumerate(iter_lines(input_file), 1):
        if is_blank(text):
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as error:
            problems.add(name, line, None, f"not valid JSON: {error.msg} at column {error.colno}")
            continue
        if not isinstance(value, dict):
            problems.add(name, line, None, "not a JSON object; every line is one {...} object")
            continue
        unknown = [key for key in value if key not in keys]
        for key in unknown:
            problems.add(name, line, key, f'unknown key "{key}"; the keys are {_COLUMN_LIST}')
        missing = [key for key in COLUMNS if key not in value]
        for key in missing:
            problems.add(name, line, key, f'missing "{key}"')
        if unknown or missing:
            continue
        yield _row(name, line, value, problems)


def _check_numbers(name: str, rows: list[QuestionRow], problems: ProblemList) -> None:
    first: dict[tuple[str, int], int] = {}
    for row in rows:
        if row.number is None:
            continue
        key = (row.doc_id, row.number)
        if key in first:
            problems.add(
                name,
                row.line,
                "number",
                f'duplicate number {row.number} for article "{row.doc_id}" (line {first[key]} '
                "has it too)",
            )
        else:
            first[key] = row.line
