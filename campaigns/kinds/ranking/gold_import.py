"""Importing a ranking campaign's gold answers from a small TSV or CSV file: one row per gold
segment naming the system whose output is best and, optionally, the one whose output is worst
(002 section 4: the best-only and best-and-worst gold schemes).

The file has a header row naming its columns (in any order): ``doc_id``, ``seg_id``,
``best_system`` and, optionally, ``worst_system``. Every row is checked against the campaign
(its documents, segments, systems and their outputs, its gold scheme, the gold answers it
already has) and every problem is reported with its file, line and field, as the segment
importers report theirs (:mod:`campaigns.importers.problems`); a file with any problem writes
nothing, a good one is written in one transaction. Ids and system names are matched exactly
as written, as the segment import stores them.

Reachable from the admin (the campaign's gold answers: "Import gold answers", and the
checklist's gold step), from ``manage.py import_gold_answers`` and from
:func:`import_gold_answers` itself. docs/import-formats.md describes the format.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import (
    FileLike,
    InputFile,
    is_blank,
    iter_lines,
    read_input,
    scan_text,
)
from campaigns.kinds.ranking.models import GoldScheme
from campaigns.models import Campaign, GoldAnswer, Hit, Output, Segment, TaskKind

__all__ = ["COLUMNS", "FORMATS", "GoldImportSummary", "GoldRow", "import_gold_answers"]

FORMATS = ("tsv", "csv")
COLUMNS = ("doc_id", "seg_id", "best_system")
OPTIONAL_COLUMNS = ("worst_system",)
EXTENSIONS = {".tsv": "tsv", ".txt": "tsv", ".csv": "csv"}
DIALECTS = {"tsv": "excel-tab", "csv": "excel"}
_ALLOWED = ", ".join((*COLUMNS, *OPTIONAL_COLUMNS))
# How many names a message lists.
LISTED = 10


@dataclass(frozen=True)
class GoldRow:
    line: int
    doc_id: str
    seg_id: str
    best_system: str
    worst_system: str  # "" when none is given


@dataclass(frozen=True)
class GoldImportSummary:
    file: str
    answers: int
    replaced: int = 0
    hits_built: bool = False
    dry_run: bool = False

    @property
    def message(self) -> str:
        answers = f"{self.answers} gold answer{'' if self.answers == 1 else 's'}"
        if self.dry_run:
            return f"Checked {self.file}: no problems. Importing would add {answers}."
        text = f"Imported {answers} from {self.file}"
        if self.replaced:
            text += f", replacing the campaign's {self.replaced} earlier ones"
        text += "."
        if self.hits_built:
            text += (
                " The HITs already built keep the gold sets they were built with: rebuild them "
                "(possible until a worker starts one) to use these."
            )
        return text

    def __str__(self) -> str:
        return self.message


def format_of(name: str, fmt: str | None) -> str | None:
    if fmt:
        return fmt if fmt in FORMATS else None
    return EXTENSIONS.get(Path(name).suffix.lower())


def import_gold_answers(
    campaign: Campaign,
    file: FileLike,
    *,
    fmt: str | None = None,
    name: str | None = None,
    replace: bool = False,
    dry_run: bool = False,
) -> GoldImportSummary:
    """Check the file and the campaign, then write the gold answers (``replace``: instead of
    the campaign's present ones; ``dry_run``: nothing). ImportFailed listing every problem,
    nothing written."""
    input_file = read_input(file, name)
    file_name = input_file.name
    problems = ProblemList([file_name])
    # The rows that read well; the file's problems so far, to which the campaign's are added
    # (every problem of the file is reported at once).
    rows = _parse(input_file, fmt, problems)
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        answers = _check(campaign, file_name, rows, replace, problems)
        if problems:
            raise problems.failure()
        existing = GoldAnswer.objects.filter(segment__campaign=campaign)
        replaced = existing.count() if replace else 0
        hits_built = Hit.objects.filter(campaign=campaign).exists()
        if dry_run:
            return GoldImportSummary(file_name, len(answers), replaced, hits_built, dry_run=True)
        if replace:
            existing.delete()
        GoldAnswer.objects.bulk_create(answers)
    return GoldImportSummary(file_name, len(answers), replaced, hits_built)


# --- reading the file ------------------------------------------------------------------------


def _parse(input_file: InputFile, fmt: str | None, problems: ProblemList) -> list[GoldRow]:
    """The rows that read well, after adding the others' problems; ImportFailed when the file
    cannot be read as a table (its format, encoding or header row)."""
    file_name = input_file.name
    chosen = format_of(file_name, fmt)
    if chosen is None:
        problems.add(
            file_name,
            None,
            None,
            f'unknown format "{fmt}"; use tsv or csv'
            if fmt
            else "cannot tell the format from the file name; name it .tsv or .csv, or choose "
            "the format",
        )
        raise problems.failure()
    dialect = DIALECTS[chosen]

    def split(text: str) -> list[str]:
        return next(csv.reader([text], dialect=dialect, strict=True), [])

    if scan_text(input_file, problems, header_split=_lenient(split)) is None:
        raise problems.failure()
    lines = iter_lines(input_file)
    header_text = next(lines, None)
    if header_text is None or is_blank(header_text):
        problems.add(
            file_name, 1, None, f"no header row; the first line names the columns: {_ALLOWED}"
        )
        raise problems.failure()
    header = _header(file_name, header_text, split, problems)
    if header is None:
        raise problems.failure()
    rows = []
    for number, text in enumerate(lines, start=2):
        if is_blank(text):
            continue
        row = _row(file_name, number, text, header, split, problems)
        if row is not None:
            rows.append(row)
    if not problems and not rows:
        problems.add(file_name, None, None, "no gold answers: the file has a header row only")
        raise problems.failure()
    return rows


def _lenient(split):
    def header_split(text: str) -> list[str]:
        try:
            return split(text)
        except csv.Error:
            return []

    return header_split


def _header(file_name: str, text: str, split, problems: ProblemList) -> list[str] | None:
    try:
        names = [name.strip() for name in split(text)]
    except csv.Error as error:
        problems.add(file_name, 1, None, f"the header row cannot be read: {error}")
        return None
    before = len(problems)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            problems.add(file_name, 1, name, f'column "{name}" is given twice')
        seen.add(name)
        if name not in COLUMNS and name not in OPTIONAL_COLUMNS:
            problems.add(
                file_name, 1, name or None, f'unknown column "{name}"; the columns are {_ALLOWED}'
            )
    for name in COLUMNS:
        if name not in seen:
            problems.add(file_name, 1, None, f'missing column "{name}"; the columns are {_ALLOWED}')
    return names if len(problems) == before else None


EMPTY = {
    "doc_id": "empty doc_id; every row names the document of its segment",
    "seg_id": "empty seg_id; every row names its segment",
    "best_system": "empty best_system; every row names the system whose output is best",
}


def _row(
    file_name: str, line: int, text: str, header: list[str], split, problems: ProblemList
) -> GoldRow | None:
    try:
        fields = split(text)
    except csv.Error as error:
        problems.add(file_name, line, None, f"the line cannot be read: {error}")
        return None
    if len(fields) != len(header):
        problems.add(
            file_name,
            line,
            None,
            f"{len(fields)} fields, and the header row names {len(header)} columns",
        )
        return None
    values = dict(zip(header, fields, strict=True))
    before = len(problems)
    for column, message in EMPTY.items():
        if is_blank(values[column]):
            problems.add(file_name, line, column, message)
    if len(problems) > before:
        return None
    worst = values.get("worst_system", "")
    return GoldRow(
        line,
        values["doc_id"],
        values["seg_id"],
        values["best_system"],
        "" if is_blank(worst) else worst,
    )


# --- checking the rows against the campaign --------------------------------------------------


def _check(
    campaign: Campaign, file_name: str, rows: list[GoldRow], replace: bool, problems: ProblemList
) -> list[GoldAnswer]:
    """The gold answers to write, after reporting what the rows ask that the campaign cannot
    give. A fixed number of queries."""
    if campaign.kind != TaskKind.RANKING:
        problems.add(
            file_name,
            None,
            None,
            f'campaign "{campaign}" is a {campaign.get_kind_display()} campaign; gold answers '
            "are for ranking campaigns",
        )
        return []
    scheme = campaign.ranking_settings.gold_scheme
    documents = {row.doc_id for row in rows}
    segments = {
        (doc, seg): pk
        for pk, seg, doc in Segment.objects.filter(
            campaign=campaign, document__external_id__in=documents
        ).values_list("pk", "external_id", "document__external_id")
    }
    known_documents = {doc for doc, _ in segments}
    systems = dict(campaign.systems.values_list("name", "pk"))
    outputs = {
        (segment, system): (pk, text)
        for pk, segment, system, text in Output.objects.filter(
            segment__in=set(segments.values())
        ).values_list("pk", "segment_id", "system_id", "text")
    }
    answered = set(
        GoldAnswer.objects.filter(segment__campaign=campaign).values_list("segment_id", flat=True)
    )
    first_line: dict[int, int] = {}
    answers = []
    for row in rows:
        where = f'segment "{row.seg_id}" of document "{row.doc_id}"'
        segment = segments.get((row.doc_id, row.seg_id))
        if segment is None:
            if row.doc_id not in known_documents:
                problems.add(
                    file_name, row.line, "doc_id", f'the campaign has no document "{row.doc_id}"'
                )
            else:
                problems.add(
                    file_name,
                    row.line,
                    "seg_id",
                    f'document "{row.doc_id}" has no segment "{row.seg_id}"',
                )
            continue
        if segment in first_line:
            problems.add(
                file_name,
                row.line,
                "seg_id",
                f"{where} is given twice: on line {first_line[segment]} and here",
            )
            continue
        first_line[segment] = row.line
        if segment in answered and not replace:
            problems.add(
                file_name,
                row.line,
                "seg_id",
                f"{where} already has a gold answer; delete it under Gold answers, or import "
                'with "Replace the campaign\'s gold answers"',
            )
        chosen = {}
        for column, name in (("best_system", row.best_system), ("worst_system", row.worst_system)):
            if not name:
                continue
            system = systems.get(name)
            if system is None:
                problems.add(
                    file_name,
                    row.line,
                    column,
                    f'the campaign has no system "{name}"; its systems are {_names(systems)}',
                )
            elif (segment, system) not in outputs:
                problems.add(
                    file_name, row.line, column, f'system "{name}" has no output for {where}'
                )
            else:
                chosen[column] = outputs[(segment, system)]
        if row.worst_system and row.worst_system == row.best_system:
            problems.add(
                file_name,
                row.line,
                "worst_system",
                f'"{row.worst_system}" is both the best and the worst system; name two '
                "different systems",
            )
            continue
        if not row.worst_system and scheme == GoldScheme.BEST_WORST:
            problems.add(
                file_name,
                row.line,
                "worst_system",
                "empty worst_system; the campaign's gold scheme is best and worst, whose gold "
                "sets show the known-worst output",
            )
        best, worst = chosen.get("best_system"), chosen.get("worst_system")
        if best is not None and worst is not None and _same_text(best[1], worst[1]):
            problems.add(
                file_name,
                row.line,
                "worst_system",
                f'the outputs of "{row.best_system}" and "{row.worst_system}" for {where} are '
                "the same text, so no worker can rank one best and the other worst",
            )
        if best is not None:
            answers.append(
                GoldAnswer(
                    segment_id=segment,
                    best_output_id=best[0],
                    worst_output_id=worst[0] if worst is not None else None,
                )
            )
    return answers


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _names(systems: dict[str, int]) -> str:
    names = sorted(systems)
    listed = ", ".join(f'"{name}"' for name in names[:LISTED])
    rest = len(names) - LISTED
    return f"{listed} and {rest} more" if rest > 0 else listed or "none yet"
