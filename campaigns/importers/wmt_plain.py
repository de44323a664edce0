"""WMT plain-text imports: a source file, reference files and one file per system, one segment
per line, and optionally a document-id file (WMT's .docids, sacrebleu --echo docid).

The segment id is the 1-based line number in the files (WMT practice); a segment's position is
counted from 1 within its document. Without a document-id file all lines form one document
named after the source file. See docs/import-formats.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from campaigns.importers.context import ParseContext, id_problem, text_problem
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import FileLike, decode, file_name, read_input, split_lines
from campaigns.importers.records import Origin, OutputRecord, ParsedImport, SegmentRecord


@dataclass
class WmtFiles:
    """The files of one WMT plain-text import.

    ``systems`` maps each system name to its file. Paths or binary file objects (uploads) are
    both fine; use system_names() to derive names from file names.
    """

    source: FileLike
    references: list[FileLike] = field(default_factory=list)
    systems: dict[str, FileLike] = field(default_factory=dict)
    docids: FileLike | None = None

    def names(self) -> list[str]:
        files = [self.source, *self.references, *self.systems.values()]
        if self.docids is not None:
            files.append(self.docids)
        return [file_name(file) for file in files]


def system_names(file_names: list[str]) -> list[str]:
    """System names for system files given without one, derived from their file names.

    The names are split at dots; the leading and trailing parts that all the files share are
    dropped and the rest is the name: newstest2019.de-en.UEDIN.6749 and
    newstest2019.de-en.online-B.0 give "UEDIN.6749" and "online-B.0". A single file, or files
    for which this leaves an empty or repeated name, keep their whole file names.
    """
    bases = [Path(name).name for name in file_names]
    if len(bases) < 2:
        return bases
    parts = [base.split(".") for base in bases]
    shortest = min(len(p) for p in parts)
    prefix = 0
    while prefix < shortest and len({p[prefix] for p in parts}) == 1:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and len({p[len(p) - 1 - suffix] for p in parts}) == 1:
        suffix += 1
    names = [".".join(p[prefix : len(p) - suffix]) for p in parts]
    if any(not name for name in names) or len(set(names)) != len(names):
        return bases
    return names


def parse_system_args(values: list[str]) -> dict[str, str]:
    """``NAME=PATH`` or a bare ``PATH`` (name derived with system_names()) -> {name: path}.

    A value that is an existing file is taken as a path even if it contains '='.
    """
    named: dict[str, str] = {}
    bare: list[str] = []
    for value in values:
        name, sep, path = value.partition("=")
        if sep and name and path and not os.path.isfile(value):
            if name in named:
                raise ValueError(f'system "{name}" is given twice')
            named[name] = path
        else:
            bare.append(value)
    for name, path in zip(system_names(bare), bare, strict=True):
        if name in named:
            raise ValueError(
                f'system "{name}" (derived from {path}) is given twice; name it with NAME=PATH'
            )
        named[name] = path
    return named


def parse_wmt(
    files: WmtFiles, context: ParseContext, parsed: ParsedImport, problems: ProblemList
) -> None:
    """Read the files of a WMT plain-text import into ``parsed``.

    Every file is read and checked, whatever is wrong with the others (docs/import-formats.md
    promises all problems at once): its encoding, each of its lines (an empty segment, a bad
    document id) and its number of lines against the source's. Segments and outputs are made
    only from files whose lines line up with the source's.
    """
    parsed.files.extend(files.names())
    parsed.output_field = None

    source = read_input(files.source)
    source_text = decode(source, problems)
    source_lines = split_lines(source_text) if source_text is not None else None
    # The number of lines every other file needs; None when the source cannot tell.
    count = len(source_lines) if source_lines else None
    if source_lines is not None:
        if not source_lines:
            problems.add(source.name, None, None, "empty file: no source segments")
        for line, text in enumerate(source_lines, 1):
            if context.parse_progress and line % 10_000 == 0:
                context.parse_progress(line, len(source_lines))
            message = text_problem(text, "source")
            if message:
                problems.add(source.name, line, None, message)

    def other_file(
        file: FileLike, what: str, line_problem: Callable[[str], str | None]
    ) -> tuple[str, list[str] | None]:
        """Read and check a file that needs one line per source line: its lines, or None
        when they cannot be used (unreadable, or not as many as the source's)."""
        input_file = read_input(file)
        text = decode(input_file, problems)
        if text is None:
            return input_file.name, None
        lines = split_lines(text)
        for line, value in enumerate(lines, 1):
            message = line_problem(value)
            if message:
                problems.add(input_file.name, line, None, message)
        if count is None:
            return input_file.name, None
        if len(lines) != count:
            problems.add(
                input_file.name,
                None,
                None,
                f"{_lines(len(lines))}, but the source {source.name} has {count:,}; the {what} "
                "file needs exactly one line per source line",
            )
            return input_file.name, None
        return input_file.name, lines

    # Documents.
    doc_lines: list[str] | None = None
    if files.docids is not None:
        _, doc_lines = other_file(
            files.docids, "document-id", lambda value: id_problem(value, "document id")
        )
    elif count is not None:
        doc_lines = [source.name] * count
    if doc_lines is None or any(id_problem(doc_id, "document id") for doc_id in doc_lines):
        # No segment without its document: the missing-output check would only repeat this.
        parsed.rows_rejected = True
        doc_lines = None

    # References: one list per source line.
    references: list[list[str]] = [[] for _ in range(count or 0)]
    reference_origins: list[Origin | None] = [None] * (count or 0)
    if not files.references and context.needs_reference:
        problems.add(
            None,
            None,
            None,
            f"no reference file; a {context.kind_label} campaign needs one reference per "
            "source line",
        )
    for file in files.references:
        name, lines = other_file(file, "reference", lambda value: text_problem(value, "reference"))
        for line, text in enumerate(lines or [], 1):
            references[line - 1].append(text)
            if reference_origins[line - 1] is None:
                reference_origins[line - 1] = Origin(name, line)

    # Segments.
    if doc_lines is not None and source_lines:
        for line, text in enumerate(source_lines, 1):
            parsed.add_segment(
                SegmentRecord(
                    doc_id=doc_lines[line - 1],
                    seg_id=str(line),
                    source=text,
                    references=references[line - 1],
                    origin=Origin(source.name, line),
                    reference_origin=reference_origins[line - 1],
                )
            )

    if context.parse_progress and count:
        context.parse_progress(count, count)

    # Systems.
    if not files.systems and not context.outputs_optional:
        problems.add(
            None,
            None,
            None,
            f"no system files; a {context.kind_label} campaign needs the systems' outputs",
        )
    for system, file in files.systems.items():
        name, lines = other_file(file, "system", lambda value: text_problem(value, "output"))
        message = id_problem(system, "system name")
        if message:
            problems.add(name, None, None, message)
            continue
        parsed.add_system(system, Origin(name, None))
        if lines is None or doc_lines is None:
            parsed.incomplete_systems.add(system)
            continue
        for line, text in enumerate(lines, 1):
            doc_id = doc_lines[line - 1]
            parsed.outputs[(doc_id, str(line), system)] = OutputRecord(text, Origin(name, line))


def _lines(count: int) -> str:
    return f"{count:,} line{'' if count == 1 else 's'}"
