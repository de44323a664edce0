"""Segment importers, shared by the admin upload page and ``manage.py import_segments``.

    from campaigns.importers import run_import, WmtFiles, ImportFailed

    summary = run_import(campaign, "tsv", "demo.tsv")
    summary = run_import(campaign, "wmt", WmtFiles(source=..., references=[...], systems={...}))

Every file is read and checked completely before anything is written: all problems are
collected (ImportFailed lists them, with file, line and field) and a file with any problem
imports nothing. The write is one transaction of bulk inserts. The formats are described in
docs/import-formats.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from campaigns.importers.appraise import parse_appraise
from campaigns.importers.checks import CampaignState, check_against_campaign, check_not_empty
from campaigns.importers.context import ParseContext, Progress
from campaigns.importers.problems import SHOWN_PROBLEMS, ImportFailed, ImportProblem, ProblemList
from campaigns.importers.reading import read_input
from campaigns.importers.records import ParsedImport
from campaigns.importers.tabular import header_delimiter, parse_tabular
from campaigns.importers.wmt_plain import WmtFiles, parse_system_args, parse_wmt, system_names
from campaigns.importers.writer import write_import
from campaigns.models import Campaign

__all__ = [
    "FORMATS",
    "FORMAT_LABELS",
    "SHOWN_PROBLEMS",
    "CheckedImport",
    "ImportFailed",
    "ImportProblem",
    "ImportSummary",
    "WmtFiles",
    "check_import",
    "format_for_content",
    "format_for_file",
    "parse_system_args",
    "run_import",
    "system_names",
    "write_checked",
]

FORMATS = ("tsv", "csv", "jsonl", "wmt", "appraise")
FORMAT_LABELS = {
    "tsv": "TSV (tab-separated, header row)",
    "csv": "CSV (comma-separated, or semicolon-separated as Excel saves it; header row)",
    "jsonl": "JSON lines (one object per line)",
    "wmt": "WMT plain text (source, references, one file per system)",
    "appraise": "Appraise batch JSON",
}
EXTENSIONS = {".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".json": "appraise"}


def format_for_file(name: str) -> str | None:
    """The format a file name's extension implies (.tsv .csv .jsonl .json), or None."""
    return EXTENSIONS.get(Path(name).suffix.lower())


def format_for_content(name: str, head: bytes) -> str | None:
    """The format of a file from its name (:func:`format_for_file`), else from its first bytes:
    a JSON object on the first line is JSON lines, a JSON array an Appraise batch, a header
    line with a tab TSV, with a comma or semicolon (and no tab) CSV; None when neither tells.

    A file named .tsv or .csv whose header line is separated by another separator (column
    names split at commas in a .tsv file, at tabs or semicolons in a .csv) is taken for what
    its header says: the column names are known, so the header tells for certain, and file
    names are often wrong (a spreadsheet's "CSV" saved as .tsv).
    """
    by_name = format_for_file(name)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip(" \r\n")
    header = text.split("\n", 1)[0]
    if by_name in (None, "tsv", "csv"):
        delimiter = header_delimiter(header)
        if delimiter is not None:
            return "tsv" if delimiter == "\t" else "csv"
    if by_name is not None:
        return by_name
    if text.startswith("{"):
        return "jsonl"
    if text.startswith("["):
        return "appraise"
    if "\t" in header:
        return "tsv"
    if "," in header or ";" in header:
        return "csv"
    return None


@dataclass(frozen=True)
class ImportSummary:
    """What an import wrote (or, for a dry run, would write).

    ``documents``, ``segments`` and ``outputs`` count new rows; ``systems`` counts the systems
    created, ``systems_used`` all systems the file has outputs for. ``ignored`` counts items
    read but deliberately not imported (Appraise's quality-control items), ``notes`` says so.
    """

    files: tuple[str, ...]
    documents: int
    segments: int
    systems: int
    outputs: int
    systems_used: int = 0
    ignored: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    dry_run: bool = False
    # Issue 17: the campaign already has HITs, which do not show the new segments (and, when
    # they are frozen, never will): what to do about it. '' when the campaign has no HITs.
    hits_note: str = ""
    # Segments already in the campaign that the import adds outputs to (a late system's), and
    # those outputs (counted in ``outputs`` too).
    stored_segments: int = 0
    stored_outputs: int = 0

    @property
    def message(self) -> str:
        outputs = (
            f"{_count(self.outputs, 'output')} of {_count(self.systems_used, 'system')} "
            f"({self.systems} new)"
        )
        stored = _count(self.stored_segments, "segment")
        if self.stored_segments and not self.segments:
            counts = f"{outputs} for {stored} already in the campaign"
        else:
            counts = (
                f"{_count(self.documents, 'new document')}, {_count(self.segments, 'segment')} "
                f"and {outputs}"
            )

        names = ", ".join(self.files)
        if self.dry_run:
            text = (
                f"Checked {names}: no problems. Importing would add {counts}; nothing was written."
            )
        else:
            text = f"Imported {counts} from {names}."
        if self.stored_segments and self.segments:
            text += (
                f" {self.stored_outputs:,} of the outputs are for {stored} already in the campaign."
            )
        for note in self.notes:
            text += f" {note[:1].upper()}{note[1:]}."
        if self.hits_note:
            text += f" {self.hits_note}"
        return text

    def __str__(self) -> str:
        return self.message


@dataclass
class CheckedImport:
    """A parsed import with no problems, ready for write_checked()."""

    campaign: Campaign
    fmt: str
    parsed: ParsedImport
    summary: ImportSummary


def check_import(
    campaign: Campaign, fmt: str, files: Any, *, parse_progress: Progress | None = None
) -> CheckedImport:
    """Read and check everything; write nothing. Raises ImportFailed listing every problem.

    ``campaign`` may be unsaved (a campaign to create with the import).
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown import format {fmt!r}; use one of {', '.join(FORMATS)}")
    context = ParseContext.for_campaign(campaign, parse_progress)
    parsed = ParsedImport()
    problems = ProblemList()
    if fmt == "wmt":
        if not isinstance(files, WmtFiles):
            raise TypeError("the wmt format takes a WmtFiles(source, references, systems, docids)")
        parse_wmt(files, context, parsed, problems)
    else:
        if isinstance(files, list | tuple):
            if len(files) != 1:
                raise TypeError(f"the {fmt} format takes one file, not {len(files)}")
            files = files[0]
        input_file = read_input(files)
        if fmt == "appraise":
            parse_appraise(input_file, context, parsed, problems)
        else:
            parse_tabular(input_file, fmt, context, parsed, problems)
    problems.file_order = parsed.files
    state = CampaignState.load(campaign, parsed)
    check_against_campaign(parsed, campaign, state, problems)
    check_not_empty(parsed, problems)
    if problems:
        raise problems.failure()
    stored = sum(1 for key in parsed.segments if key in state.segment_pks)
    new_segments = len(parsed.segments) - stored
    summary = ImportSummary(
        files=tuple(parsed.files),
        documents=sum(1 for doc_id in parsed.documents if doc_id not in state.documents),
        segments=new_segments,
        systems=sum(1 for name in parsed.systems if name not in state.systems),
        outputs=len(parsed.outputs),
        systems_used=len(parsed.systems),
        ignored=dict(parsed.ignored),
        notes=tuple(parsed.notes),
        dry_run=True,
        hits_note=hits_note(campaign, new_segments),
        stored_segments=stored,
        stored_outputs=sum(1 for key in parsed.outputs if key[:2] in state.segment_pks),
    )
    return CheckedImport(campaign, fmt, parsed, summary)


def hits_note(campaign: Campaign, new_segments: int) -> str:
    """What a requester must know when segments are added to a campaign that has HITs: no HIT
    shows them until the HITs are rebuilt, and once the HITs are frozen (a worker started one,
    or they are on MTurk) nobody ever will in this campaign: a follow-up campaign takes them
    (issue 17). '' for a campaign without HITs (or an unsaved one)."""
    if campaign.pk is None or not new_segments or not campaign.hits.exists():
        return ""
    from campaigns.actions import hits_frozen_reason

    segments = f"{new_segments:,} new segment{'' if new_segments == 1 else 's'}"
    if hits_frozen_reason(campaign):
        return (
            f"Warning: this campaign's HITs are frozen (workers have started them, or they are "
            f"on MTurk), so no HIT will show the {segments} and nobody will see them here. "
            "Create a follow-up campaign with them: the campaign page's checklist, \"Create "
            'follow-up campaign" (or python manage.py follow_up_campaign '
            f"{campaign.pk}), which copies this campaign's settings."
        )
    return (
        f"This campaign's HITs were built before this import and do not show the {segments}: "
        'rebuild them (the campaign page\'s checklist, "Rebuild HITs") to include them.'
    )


def write_checked(checked: CheckedImport, *, progress: Progress | None = None) -> ImportSummary:
    """Write a checked import in one transaction; returns what was written."""
    counts = write_import(checked.campaign, checked.parsed, progress=progress)
    planned = checked.summary
    return ImportSummary(
        files=planned.files,
        documents=counts.documents,
        segments=counts.segments,
        systems=counts.systems,
        outputs=counts.outputs,
        systems_used=planned.systems_used,
        ignored=planned.ignored,
        notes=planned.notes,
        dry_run=False,
        hits_note=planned.hits_note,
        stored_segments=planned.stored_segments,
        stored_outputs=planned.stored_outputs,
    )


def run_import(
    campaign: Campaign,
    fmt: str,
    files: Any,
    *,
    progress: Progress | None = None,
    parse_progress: Progress | None = None,
    dry_run: bool = False,
) -> ImportSummary:
    """Import ``files`` in format ``fmt`` into ``campaign``.

    ``fmt`` is "tsv", "csv", "jsonl", "appraise" (``files``: one path or binary file object) or
    "wmt" (``files``: a WmtFiles). ``progress(done, total)`` is called while writing (rows),
    ``parse_progress(done, total)`` while reading big files (lines). With ``dry_run`` nothing
    is written and the summary says what would be. Raises ImportFailed, writing nothing.
    """
    checked = check_import(campaign, fmt, files, parse_progress=parse_progress)
    if dry_run:
        return checked.summary
    return write_checked(checked, progress=progress)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
