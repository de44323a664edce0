"""Appraise's score exports (``manage.py ExportSystemScoresToCSV <campaign>``).

Comma-separated, no header (a first row naming the columns ``user,systemID,itemID,itemType,
...`` is recognised and skipped), one row per judgment. The columns depend on the task type
and the export options; each row's number of fields says which layout it has:

    segment-level (DirectAssessment*): user, systemID, itemID, itemType, src, tgt, score
        + startTime, endTime (9 fields; the export's default) + batchNo, itemPK (11, with
        --batch-info)
    document-level (DirectAssessmentDocument): user, systemID, itemID, itemType, src, tgt,
        score, documentID, isCompleteDocument, mqm (10) + startTime, endTime (12)
        + batchNo, itemPK (14)

- ``itemType``: ``TGT`` a system output, ``CHK`` an exact repeat, ``BAD`` a bad reference,
  ``REF`` the reference shown as an output (Appraise's quality control);
- ``itemID`` is the segment (within ``documentID`` when there is one); ``src``/``tgt`` the
  language codes (one pair per import); ``score`` 0-100;
- a row with ``isCompleteDocument`` True scores a whole document, not a segment: skipped and
  counted;
- times are Unix seconds; the judgment's seconds are ``endTime - startTime``;
- HITs: with ``batchNo`` one HIT per Appraise batch (its annotators share it, as redundant
  workers of a HIT do); without it one HIT per annotator, holding all of their judgments.
  Their natural keys, ``appraise batch <batchNo>`` and ``appraise user <user>``, recognise a
  second import of the same export.
"""

from __future__ import annotations

from campaigns.importers.context import Progress
from campaigns.importers.judgments.records import (
    TEST_SET_DOCUMENT,
    JudgmentRecord,
    ParsedJudgments,
    slot_key,
)
from campaigns.importers.judgments.tables import read_table
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.models import SlotRole

SEGMENT_LEVEL = ("user", "systemID", "itemID", "itemType", "src", "tgt", "score")
DOCUMENT_LEVEL = (*SEGMENT_LEVEL, "documentID", "isCompleteDocument", "mqm")
TIMES = ("startTime", "endTime")
BATCH = ("batchNo", "itemPK")
LAYOUTS: dict[int, tuple[str, ...]] = {
    7: SEGMENT_LEVEL,
    9: (*SEGMENT_LEVEL, *TIMES),
    11: (*SEGMENT_LEVEL, *TIMES, *BATCH),
    10: DOCUMENT_LEVEL,
    12: (*DOCUMENT_LEVEL, *TIMES),
    14: (*DOCUMENT_LEVEL, *TIMES, *BATCH),
}
ITEM_TYPES = {
    "TGT": SlotRole.SYSTEM.value,
    "CHK": SlotRole.REPEAT.value,
    "BAD": SlotRole.BAD_REFERENCE.value,
    "REF": SlotRole.REFERENCE.value,
}
WHOLE_DOCUMENTS = "whole-document scores (isCompleteDocument)"


def parse_appraise_scores(
    input_file: InputFile,
    parsed: ParsedJudgments,
    problems: ProblemList,
    progress: Progress | None = None,
) -> None:
    name = input_file.name
    parsed.files.append(name)
    table = read_table(input_file, problems, progress=progress)
    if table is None:
        return
    rows = iter(table)
    if table.first and [cell.strip().lower() for cell in table.first[1][:4]] in (
        ["user", "systemid", "itemid", "itemtype"],
        ["username", "systemid", "itemid", "itemtype"],
    ):
        rows = table.rest()  # a header row added by hand
    check = Checker(name, problems)
    for line, row in rows:
        layout = LAYOUTS.get(len(row))
        if layout is None:
            check.problem(
                line,
                None,
                f"{len(row)} fields; Appraise's score exports have 7, 9 or 11 fields "
                "(segment-level tasks) or 10, 12 or 14 (document-level tasks)",
            )
            continue
        _row(check, dict(zip(layout, row, strict=True)), line, parsed)


def _row(check: Checker, fields: dict[str, str], line: int, parsed: ParsedJudgments) -> None:
    name = check.file
    if fields.get("isCompleteDocument", "").strip().lower() == "true":
        parsed.ignored[WHOLE_DOCUMENTS] += 1
        return
    worker = check.identifier(line, "user", fields["user"], "user")
    system = check.identifier(line, "systemID", fields["systemID"], "system (systemID)")
    segment = check.identifier(line, "itemID", fields["itemID"], "segment id (itemID)")
    document = TEST_SET_DOCUMENT
    if "documentID" in fields:
        document = check.identifier(
            line, "documentID", fields["documentID"], "document id (documentID)"
        )
    item_type = fields["itemType"].strip()
    role = ITEM_TYPES.get(item_type.upper())
    if role is None:
        check.problem(
            line,
            "itemType",
            f'unknown itemType "{item_type}"; Appraise\'s types are TGT (a system output), '
            "CHK (a repeat), BAD (a bad reference) and REF (a reference)",
        )
    score = check.score(line, "score", fields["score"], standardised=False)
    source, target = fields["src"].strip(), fields["tgt"].strip()
    parsed.language_pair((source, target), origin(name, line, "src"))
    seconds = started = None
    if "startTime" in fields:
        started = check.epoch(line, "startTime", fields["startTime"])
        ended = check.epoch(line, "endTime", fields["endTime"])
        if started is not None and ended is not None:
            seconds = (ended - started).total_seconds()
            if seconds < 0:
                check.problem(line, "endTime", "ends before its startTime")
                return
    batch = None
    if "batchNo" in fields:
        batch = check.identifier(line, "batchNo", fields["batchNo"], "batch number (batchNo)")
        if batch is None:
            return
    if None in (worker, system, segment, document, role, score):
        return
    segment_key = (document, segment)
    where = origin(name, line, "itemID")
    parsed.output(system, segment_key, where)
    # The natural keys (records.py): a batch, or an annotator, of an Appraise export.
    if batch is not None:
        hit = parsed.hit(
            f"batch {batch}", f"batch {batch}", where, f"appraise batch {batch}", "batchNo"
        )
    else:
        hit = parsed.hit(
            f"user {worker}", f"annotator {worker}'s HIT", where, f"appraise user {worker}", "user"
        )
    record = JudgmentRecord(
        worker=worker,
        hit=hit.key,
        slot=hit.slot(slot_key(role, system, segment_key)),
        file=name,
        line=line,
        score=score,
        seconds=seconds,
        started_at=started,
    )
    parsed.add(record, hit, check.problems)
