"""WMT's direct-assessment files (the ``ad-*.csv`` files of the WMT findings' human evaluation).

One row per judgment, tab-separated; the header line names the columns (WMT's own files
separate the header by spaces and the rows by tabs, some rows by spaces and tabs, and quote
some system names; all are read, see :func:`fields_of`):

    HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time

- ``HITId``, ``WorkerId``: the MTurk HIT and worker; one HIT becomes one Hit, one worker on
  one HIT one assignment;
- ``Input.src``, ``Input.trg``: the language codes (one pair per import);
- ``Input.item``: ``ad`` (adequacy) or ``fl`` (fluency) (one per import);
- ``sys_id``: the system; ``sid``: the segment (its line in the test set);
- ``type``: ``SYSTEM`` (a system output), ``REPEAT``, ``BAD_REF`` or ``REF`` (quality
  control: an exact repeat, a degraded output, the reference shown as an output);
- ``score``: 0-100, or a z-score when the file is standardised (WMT's ``*-stnd`` files); the
  importer is told which;
- ``time``: the seconds the worker spent on the whole HIT (WMT repeats it on every row of the
  HIT), spread evenly over the worker's judgments of that HIT;
- ``hit`` and ``rid`` (WMT's HIT number and item batch) are not needed and not stored.
"""

from __future__ import annotations

from campaigns.importers.context import Progress
from campaigns.importers.judgments.records import (
    TEST_SET_DOCUMENT,
    JudgmentRecord,
    ParsedJudgments,
    slot_key,
)
from campaigns.importers.judgments.tables import Columns, read_table, split_tabs
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.models import AssessmentMode, SlotRole

REQUIRED = ("HITId", "WorkerId", "sys_id", "type", "sid", "score")
TYPES = {
    "SYSTEM": SlotRole.SYSTEM.value,
    "REPEAT": SlotRole.REPEAT.value,
    "BAD_REF": SlotRole.BAD_REFERENCE.value,
    "REF": SlotRole.REFERENCE.value,
}
MODES = {
    "ad": AssessmentMode.ADEQUACY.value,
    "adequacy": AssessmentMode.ADEQUACY.value,
    "fl": AssessmentMode.FLUENCY.value,
    "fluency": AssessmentMode.FLUENCY.value,
}


def split_header(line: str) -> list[str]:
    """WMT writes the header with spaces, the rows with tabs; column names have neither."""
    return line.split("\t") if "\t" in line else line.split()


def fields_of(tabbed: list[str], width: int) -> list[str]:
    """A row's fields. WMT's rows are tab-separated, but some published files separate a few
    fields by spaces, or by spaces and tabs (issue 12: e.g. ``HITId WorkerId\tcs\ten ...``),
    and quote some system names (``"online-B"``). No field of the format holds a space, so a
    row that does not split into the header's columns on tabs is split on any white space, as
    WMT's own scripts read these files (``line.split()``); a tab-separated row keeps its empty
    fields (an empty time). Surrounding double quotes are removed from every field."""
    row = tabbed if len(tabbed) == width else "\t".join(tabbed).split()
    return [_unquoted(field) for field in row]


def _unquoted(field: str) -> str:
    text = field.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return field


def parse_wmt_da(
    input_file: InputFile,
    parsed: ParsedJudgments,
    problems: ProblemList,
    progress: Progress | None = None,
) -> None:
    name = input_file.name
    parsed.files.append(name)
    table = read_table(input_file, problems, split=split_tabs, progress=progress)
    if table is None:
        return
    if table.first is None:
        problems.add(name, None, None, "empty file: the header line is missing")
        return
    header_line, header = table.first
    columns = Columns(split_header("\t".join(header)))
    if not columns.report_missing(name, header_line, REQUIRED, problems):
        return
    check = Checker(name, problems)
    width = len(columns.names)
    # (worker, HIT) -> (seconds of the whole HIT, line first given, where this file's rows
    # start among the assignment's rows: parsed.judged[key].rows[start:]).
    hit_times: dict[tuple[str, str], tuple[float | None, int, int]] = {}
    for line, tabbed in table.rest():
        row = fields_of(tabbed, width)
        if len(row) != width:
            problems.add(
                name,
                line,
                None,
                f"{len(row)} fields (separated by tabs or spaces), but the header has "
                f"{width} columns",
            )
            continue
        record = _row(check, columns, line, row, parsed)
        if record is None:
            continue
        seconds = check.seconds(line, "time", columns.get(row, "time"))
        key = (record.worker, record.hit)
        first = hit_times.get(key)
        if first is None:
            hit_times[key] = (seconds, line, len(parsed.judged[key].rows) - 1)
        else:
            if first[0] != seconds:
                shown = "empty" if seconds is None else f"{seconds:g}"
                before = "empty" if first[0] is None else f"{first[0]:g}"
                check.problem(
                    line,
                    "time",
                    f"time {shown} differs from {before} on line {first[1]} for the same "
                    "worker and HIT; WMT's time is the seconds spent on the whole HIT, the "
                    "same on each of its rows",
                )
    for key, (seconds, _, start) in hit_times.items():
        if seconds is not None:
            rows = parsed.judged[key].rows[start:]
            parsed.judgments.set_seconds(rows, seconds / len(rows))  # shared by the HIT's rows


def _row(
    check: Checker, columns: Columns, line: int, row: list[str], parsed: ParsedJudgments
) -> JudgmentRecord | None:
    name = check.file
    # A row of another language pair than the one chosen (ImportOptions.language_pair) is
    # skipped before any check: a file of several pairs is imported one pair at a time.
    source, target = columns.get(row, "Input.src").strip(), columns.get(row, "Input.trg").strip()
    if (source or target) and not parsed.language_pair(
        (source, target), origin(name, line, "Input.src")
    ):
        return None
    hit_id = check.identifier(line, "HITId", columns.get(row, "HITId"), "HITId")
    worker = check.identifier(line, "WorkerId", columns.get(row, "WorkerId"), "WorkerId")
    system = check.identifier(line, "sys_id", columns.get(row, "sys_id"), "system (sys_id)")
    segment = check.identifier(line, "sid", columns.get(row, "sid"), "segment id (sid)")
    kind = columns.get(row, "type").strip()
    role = TYPES.get(kind.upper())
    if role is None:
        check.problem(
            line,
            "type",
            f'unknown type "{kind}"; WMT\'s types are SYSTEM, REPEAT, BAD_REF and REF',
        )
    score = check.score(line, "score", columns.get(row, "score"), parsed.standardised)
    mode_text = columns.get(row, "Input.item").strip()
    if mode_text:
        mode = MODES.get(mode_text.lower())
        if mode is None:
            check.problem(
                line,
                "Input.item",
                f'unknown Input.item "{mode_text}"; WMT uses ad (adequacy) or fl (fluency)',
            )
        else:
            parsed.modes.setdefault(mode, origin(name, line, "Input.item"))
    if None in (hit_id, worker, system, segment, role, score):
        return None
    segment_key = (TEST_SET_DOCUMENT, segment)
    where = origin(name, line, "sid")
    parsed.output(system, segment_key, where)
    hit = parsed.hit(hit_id, f"HIT {hit_id}", where, external_id=hit_id, key_field="HITId")
    record = JudgmentRecord(
        worker=worker,
        hit=hit_id,
        slot=hit.slot(slot_key(role, system, segment_key)),
        file=name,
        line=line,
    )
    if parsed.standardised:
        record.given_z = score
    else:
        record.score = score
    return record if parsed.add(record, hit, check.problems) else None
