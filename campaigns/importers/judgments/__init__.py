"""Importing published judgment files, shared by the admin page, the API and
``manage.py import_judgments``.

    from campaigns.importers.judgments import ImportOptions, import_judgments

    summary = import_judgments(["ad-csen-good-raw.csv"], ImportOptions("wmt-da", name="WMT21"))

Formats (``docs/judgment-formats.md`` describes each, with an example):

- ``wmt-da``: WMT's direct-assessment TSV (HITId, WorkerId, ..., type, sid, score, time), raw
  0-100 scores or standardised ones (``ImportOptions.standardised``);
- ``appraise``: Appraise's score CSV export (user, systemID, itemID, itemType, src, tgt,
  score, ...);
- ``wmt08-rr`` and ``wmt10-rr``: WMT's relative-ranking CSVs (WMT08's TASK, TYPE, ITEM_ID,
  ...; WMT10-12's srclang, trglang, srcIndex, ...);
- ``mturk-batch``: MTurk's batch result CSV of our own HITs, which reconciles assignment
  statuses instead of adding judgments (``mturk_batch``).

The formats of a kind's judgments, and what an import does that depends on the kind (how
the files are read, the kind's checks, the settings of a new campaign), come from the kind's
module, ``campaigns/kinds/<kind>/imports.py`` (``kinds`` says what a kind provides); the
parsers of the formats are the modules of this package. ``judgment_formats()`` lists them.

Every file is read and checked completely before anything is written; all problems are
collected (``ImportFailed`` lists them with file, line and column) and an import with any
problem writes nothing. The write is one transaction (``writer``). The judgments then get the
statistics of a collected campaign from the same code, ``analytics.actions.recompute_campaign``:
worker reliability, z-scores, system scores, significance and agreement, or for rankings the
win ratios, Expected Wins, Bradley-Terry and TrueSkill with their agreement figures.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from analytics.actions import recompute_campaign, schedule_recompute
from campaigns.importers.context import Progress
from campaigns.importers.judgments.kinds import (
    JudgmentFormat,
    JudgmentImportKind,
    judgment_import,
    kind_formats,
)
from campaigns.importers.judgments.languages import parse_pair
from campaigns.importers.judgments.mturk_batch import (
    COUNT_LABELS,
    BatchRow,
    Reconciliation,
    check_mturk_batch,
    parse_mturk_batch,
    write_mturk_batch,
)
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.target import (
    ImportOptions,
    cannot_create_message,
    resolve_campaign,
)
from campaigns.importers.judgments.validation import (
    check_not_empty,
    check_one_language_pair,
    check_sizes,
)
from campaigns.importers.judgments.writer import write_judgments
from campaigns.importers.problems import ImportFailed, ImportProblem, ProblemList
from campaigns.importers.reading import read_input
from campaigns.models import Campaign

__all__ = [
    "FORMATS",
    "FORMAT_HELP",
    "FORMAT_KINDS",
    "FORMAT_LABELS",
    "MAX_UPLOAD_BYTES",
    "MTURK_BATCH",
    "CheckedJudgmentImport",
    "ImportFailed",
    "ImportOptions",
    "ImportProblem",
    "JudgmentFormat",
    "JudgmentImportKind",
    "JudgmentImportSummary",
    "cannot_create_message",
    "check_judgment_import",
    "import_judgments",
    "judgment_formats",
    "upload_limit_problem",
    "write_checked_judgments",
]

logger = logging.getLogger(__name__)

MTURK_BATCH = "mturk-batch"
# The formats of any kind; each kind's own come from its module (judgment_formats()).
GENERIC_FORMATS = (
    JudgmentFormat(
        MTURK_BATCH,
        None,
        label="MTurk batch results of our own HITs (CSV: reconciles assignment statuses)",
        help="The batch CSV MTurk's requester website downloads for our own HITs: records "
        "MTurk's approvals and rejections on our assignments (the answers are already here).",
    ),
)
# Uploads through the API and the admin page: files are read into memory and checked in the
# web process, so a bigger file goes through ``manage.py import_judgments`` on the server
# (which has no limit). A WMT direct-assessment file of a million judgments is about 100 MB.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024
COUNT_NOUNS = {
    "judgments": "judgment",
    "workers": "worker",
    "assignments": "assignment",
    "hits": "HIT",
    "systems": "system",
    "segments": "segment",
}


def judgment_formats() -> dict[str, JudgmentFormat]:
    """Every judgment-file format by name: each kind's (campaigns/kinds/<kind>/imports.py, the
    kinds in TASK_KINDS order), then those of any kind."""
    return {fmt.name: fmt for fmt in (*kind_formats(), *GENERIC_FORMATS)}


# The format tables by their old names, for callers that import them: computed when asked
# for (module __getattr__), since the kinds register their formats when the campaigns app is
# ready, and this module may be imported before (the admin imports it at start-up).
_FORMAT_TABLES: dict[str, Callable[[dict[str, JudgmentFormat]], Any]] = {
    "FORMATS": lambda formats: tuple(formats),
    "FORMAT_LABELS": lambda formats: {name: fmt.label for name, fmt in formats.items()},
    "FORMAT_HELP": lambda formats: {name: fmt.help for name, fmt in formats.items()},
    "FORMAT_KINDS": lambda formats: {
        name: fmt.kind for name, fmt in formats.items() if fmt.kind is not None
    },
}


def __getattr__(name: str) -> Any:
    table = _FORMAT_TABLES.get(name)
    if table is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return table(judgment_formats())


@dataclass(frozen=True)
class JudgmentImportSummary:
    """What an import wrote (or, for a dry run, would write).

    ``counts``: judgments, workers, assignments, HITs, systems and segments of the import
    (and, once written, how many workers, systems and segments were new to the campaign);
    for an MTurk batch, the assignments matched and what changed. ``ignored``: rows read but
    deliberately not imported, by reason. ``notes``: what a person should know (unpaired
    quality-control items, MTurk conflicts).
    """

    fmt: str
    files: tuple[str, ...]
    campaign_id: int | None
    campaign_name: str
    kind: str
    created: bool
    dry_run: bool
    counts: dict[str, int]
    ignored: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    standardised: bool = False
    # The name asked for, when the new campaign got another one: never since names are unique
    # per owner (issue 11 item 8); kept (always "", null in the API) for clients that read it.
    renamed_from: str = ""

    @property
    def message(self) -> str:
        names = ", ".join(self.files)
        if self.fmt == MTURK_BATCH:
            text = self._batch_message(names)
        else:
            what = _plural(self.counts["judgments"], "judgment")
            where = (
                f'new campaign "{self.campaign_name}" ({self._kind_text()})'
                if self.created
                else f'campaign "{self.campaign_name}"'
            )
            if self.renamed_from:
                where = where[:-1] + f'; the name "{self.renamed_from}" is in use)'

            detail = ", ".join(
                _plural(self.counts[key], COUNT_NOUNS[key])
                for key in ("workers", "assignments", "hits", "systems", "segments")
            )
            if self.dry_run:
                text = (
                    f"Checked {names}: no problems. Importing would add {what} ({detail}) to "
                    f"{where}; nothing was written."
                )
            else:
                text = f"Imported {what} ({detail}) from {names} into {where}."
        if self.ignored:
            text += " Skipped: " + "; ".join(f"{n} {why}" for why, n in self.ignored.items()) + "."
        for note in self.notes:
            note = note.rstrip(".")
            text += f" {note[:1].upper()}{note[1:]}."
        return text

    def _kind_text(self) -> str:
        return judgment_import(self.kind).describe(self.standardised)

    def _batch_message(self, names: str) -> str:
        counts = ", ".join(
            f"{self.counts[key]} {label}"
            for key, label in COUNT_LABELS.items()
            if key != "matched" and self.counts.get(key)
        )
        matched = _plural(self.counts.get("matched", 0), "assignment")
        if self.dry_run:
            return (
                f'Checked {names}: no problems. {matched} of campaign "{self.campaign_name}" '
                f"matched; if imported: {counts or 'nothing changed'}; nothing was written."
            )
        return (
            f'Reconciled {matched} of campaign "{self.campaign_name}" with {names}: '
            f"{counts or 'nothing changed'}."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.fmt,
            "files": list(self.files),
            "campaign": self.campaign_id,
            "campaign_name": self.campaign_name,
            "kind": self.kind,
            "created": self.created,
            "dry_run": self.dry_run,
            "standardised": self.standardised,
            "renamed_from": self.renamed_from or None,
            "counts": dict(self.counts),
            "ignored": dict(self.ignored),
            "notes": list(self.notes),
            "message": self.message,
        }


@dataclass
class CheckedJudgmentImport:
    """An import with no problems, ready for :func:`write_checked_judgments`."""

    options: ImportOptions
    campaign: Campaign
    summary: JudgmentImportSummary
    parsed: ParsedJudgments | None = None
    plan: Reconciliation | None = None


def check_judgment_import(
    files: Sequence[Any], options: ImportOptions, *, parse_progress: Progress | None = None
) -> CheckedJudgmentImport:
    """Read and check everything; write nothing. Raises ImportFailed listing every problem.

    ``files``: paths or binary file objects (uploads), all of the one format.
    """
    formats = judgment_formats()
    if options.fmt not in formats:
        raise ValueError(f"unknown judgment format {options.fmt!r}; use one of {tuple(formats)}")
    if not files:
        raise ImportFailed([ImportProblem(None, None, "file", "choose a file to import")])
    problems = ProblemList()
    inputs = [read_input(file) for file in files]
    if options.fmt == MTURK_BATCH:
        return _check_batch(inputs, options, problems, parse_progress)
    fmt = formats[options.fmt]
    steps = judgment_import(fmt.kind)
    parsed = ParsedJudgments(
        kind=fmt.kind,
        standardised=options.standardised,
        selected_pair=selected_pair(options, problems),
        reference_system=options.reference_system.strip(),
        workers_counted=options.workers_counted.strip(),
    )
    if options.standardised and not fmt.standardised:
        problems.add(
            None,
            None,
            "standardised",
            f"only WMT direct-assessment files come standardised; {options.fmt} files hold raw "
            "scores or ranks",
        )
    steps.read(fmt, inputs, parsed, problems, parse_progress)
    problems.file_order = parsed.files
    check_one_language_pair(parsed, problems)
    steps.check_parsed(parsed, problems)
    check_sizes(parsed, problems)
    check_not_empty(parsed, problems)
    campaign = resolve_campaign(options, parsed, problems)
    if problems or campaign is None:
        raise problems.failure()
    asked = options.name.strip()
    summary = JudgmentImportSummary(
        fmt=options.fmt,
        files=tuple(parsed.files),
        campaign_id=campaign.pk,
        campaign_name=campaign.name,
        kind=campaign.kind,
        created=campaign.pk is None,
        dry_run=True,
        counts={
            "judgments": len(parsed.judgments),
            "workers": len(parsed.workers()),
            "assignments": len(parsed.assignments()),
            "hits": len(parsed.hits),
            "systems": len(parsed.systems),
            "segments": len(parsed.segments),
        },
        ignored=dict(parsed.ignored),
        notes=tuple(parsed.notes),
        standardised=options.standardised,
        renamed_from=asked if campaign.pk is None and campaign.name != asked else "",
    )
    return CheckedJudgmentImport(options, campaign, summary, parsed=parsed)


def selected_pair(options: ImportOptions, problems: ProblemList) -> tuple[str, str] | None:
    """The option ``language_pair`` as ISO 639-1 codes (None: not given, or a problem)."""
    if not options.language_pair.strip():
        return None
    pair = parse_pair(options.language_pair)
    if pair is None:
        problems.add(
            None,
            None,
            "language_pair",
            f'"{options.language_pair.strip()}" is not a language pair; give the source and '
            "target language joined by a hyphen, e.g. de-en",
        )
    return pair


def _check_batch(
    inputs: list, options: ImportOptions, problems: ProblemList, progress: Progress | None
) -> CheckedJudgmentImport:
    rows: list[BatchRow] = []
    for input_file in inputs:
        parse_mturk_batch(input_file, rows, problems, progress)
    problems.file_order = [input_file.name for input_file in inputs]
    plan = check_mturk_batch(rows, options, problems)
    if problems or plan is None:
        raise problems.failure()
    summary = _batch_summary(options, inputs, plan, dry_run=True)
    return CheckedJudgmentImport(options, plan.campaign, summary, plan=plan)


def _batch_summary(
    options: ImportOptions, inputs: list, plan: Reconciliation, *, dry_run: bool
) -> JudgmentImportSummary:
    return JudgmentImportSummary(
        fmt=options.fmt,
        files=tuple(input_file.name for input_file in inputs),
        campaign_id=plan.campaign.pk,
        campaign_name=plan.campaign.name,
        kind=plan.campaign.kind,
        created=False,
        dry_run=dry_run,
        counts={key: plan.counts.get(key, 0) for key in COUNT_LABELS},
        notes=tuple(plan.notes),
    )


def write_checked_judgments(
    checked: CheckedJudgmentImport,
    *,
    progress: Progress | None = None,
    background_statistics: bool = False,
) -> JudgmentImportSummary:
    """Write a checked import in one transaction, then compute the campaign's statistics:
    here, or with ``background_statistics`` by the recompute task (an import job in a Celery
    worker: the import's memory is then the import's alone, issue 11 item 6, and the
    statistics of millions of judgments run as every recompute does)."""
    planned = checked.summary
    if checked.plan is not None:
        write_mturk_batch(checked.plan)
        summary = JudgmentImportSummary(
            **{**planned.__dict__, "dry_run": False, "notes": tuple(checked.plan.notes)}
        )
        summary.counts.update({key: checked.plan.counts.get(key, 0) for key in COUNT_LABELS})
    else:
        counts = write_judgments(checked.campaign, checked.parsed, progress=progress)
        summary = JudgmentImportSummary(
            **{
                **planned.__dict__,
                "campaign_id": checked.campaign.pk,
                "dry_run": False,
                "counts": {
                    **planned.counts,
                    "new_workers": counts.new_workers,
                    "new_systems": counts.new_systems,
                    "new_segments": counts.new_segments,
                },
            }
        )
    if background_statistics:
        campaign_id = checked.campaign.pk
        transaction.on_commit(lambda: schedule_recompute(campaign_id))
        failure = (
            "the campaign's statistics are being computed by a background task: its results "
            "appear on the campaign page within a minute or two"
        )
    else:
        failure = _recompute(checked.campaign)
    if failure:
        summary = JudgmentImportSummary(**{**summary.__dict__, "notes": (*summary.notes, failure)})
    return summary


def _recompute(campaign: Campaign) -> str:
    """Store the statistics, from the same code as a collected campaign's; a note if that
    failed. The import is committed by now, so it stands: the error is logged and the
    periodic sweep retries, since the campaign's stored results do not match its data."""
    try:
        recompute_campaign(campaign)
    except Exception:
        logger.exception("Judgments imported into campaign %s; its statistics failed", campaign.pk)
        return (
            "the judgments are imported, but computing the statistics failed (logged); they "
            "are retried by the periodic sweep"
        )
    return ""


def import_judgments(
    files: Sequence[Any],
    options: ImportOptions,
    *,
    progress: Progress | None = None,
    parse_progress: Progress | None = None,
    dry_run: bool = False,
    background_statistics: bool = False,
) -> JudgmentImportSummary:
    """Check ``files`` and, unless ``dry_run``, write them and compute the statistics (see
    :func:`write_checked_judgments` for ``background_statistics``). Raises ImportFailed,
    writing nothing."""
    checked = check_judgment_import(files, options, parse_progress=parse_progress)
    if dry_run:
        return checked.summary
    return write_checked_judgments(
        checked, progress=progress, background_statistics=background_statistics
    )


def upload_limit_problem(size: int, what: str = "the upload") -> str | None:
    """Why an upload of ``size`` bytes is refused by the API and the admin, or None."""
    if size <= MAX_UPLOAD_BYTES:
        return None
    return (
        f"{what} is {_bytes(size)}; uploads are limited to {_bytes(MAX_UPLOAD_BYTES)}: import "
        "a bigger file with manage.py import_judgments on the server "
        "(docs/judgment-formats.md)"
    )


def _bytes(size: int) -> str:
    if size < 1024 * 1024:
        return _plural(size, "byte")
    megabytes = size / (1024 * 1024)
    return f"{megabytes:,.0f} MB" if megabytes == int(megabytes) else f"{megabytes:,.1f} MB"


def _plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"
