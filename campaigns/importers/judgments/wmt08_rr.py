"""WMT08's relative-ranking judgments (statmt.org/wmt08/results.html, "Human judgments").

Comma-separated, one row per ranked set (or another kind of judgment):

    TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,SYSTEM_1,SCORE_1_A,...

- ``TASK``: the test set and language pair, e.g. ``WMT08 Czech-English News Commentary``
  (one language pair per import: the option ``language_pair`` keeps one pair's rows of a file
  holding several; each task is a document of the campaign);
- ``TYPE``: ``RANK`` rows are imported; other types (``CONSTITUENT``, ``CONSTITUENT_ACCEPT``;
  WMT09's ``EDIT``, ``EDIT_ACCEPT``) judge other things and are skipped, counted;
- ``ITEM_ID``: the segment (its line in the test set, from 0); ``ANNOTATOR_ID``: the worker;
- ``TIME``: seconds spent on the set, spread over its ranked outputs;
- ``SYSTEM_i``, ``SCORE_i_A``: up to five systems and their ranks, 1 (best) to 5, ties
  allowed; ``SCORE_i_B`` is unused for RANK.

With a header row (first field ``TASK``) the columns are found by name, so WMT09's extra
``ANNOTATOR_TYPE_COUNT`` column is fine; without one the layout above is assumed.
"""

from __future__ import annotations

import re

from campaigns.importers.context import Progress
from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.tables import Columns, read_table, width_problem
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile

FIXED = ("TASK", "TYPE", "ITEM_ID", "ANNOTATOR_ID", "TIME")
REQUIRED = ("TASK", "TYPE", "ITEM_ID", "ANNOTATOR_ID", "SYSTEM_0", "SCORE_0_A")
OPTIONAL = ("TIME", "ANNOTATOR_TYPE_COUNT", "EXTRA")
SYSTEM_COLUMN = re.compile(r"^SYSTEM_(\d+)$")
SCORE_COLUMN = re.compile(r"^SCORE_(\d+)_[AB]$")
LANGUAGE_PAIR = re.compile(r"\b([A-Za-z]+)-([A-Za-z]+)\b")
RANK = "RANK"


def parse_wmt08_rr(
    input_file: InputFile,
    parsed: ParsedJudgments,
    problems: ProblemList,
    progress: Progress | None = None,
    sets: RankingSets | None = None,
) -> None:
    name = input_file.name
    parsed.files.append(name)
    table = read_table(input_file, problems, progress=progress)
    if table is None:
        return
    rows = iter(table)
    sets = sets or RankingSets(parsed)
    check = Checker(name, problems)
    if table.first and table.first[1][0].strip().upper() == "TASK":
        header_line, header = table.first
        columns = Columns(header)
        if not columns.report_missing(name, header_line, REQUIRED, problems):
            return
        if not _known_columns(check, header_line, columns):
            return
        systems = sorted(
            int(match.group(1))
            for match in map(SYSTEM_COLUMN.match, columns.names)
            if match is not None
        )
        width = len(columns.names)
        rows = table.rest()
    else:
        columns = None
        systems = []
        width = 0
    for line, row in rows:
        if columns is None:
            if len(row) < len(FIXED) + 2 or (len(row) - len(FIXED)) % 3:
                check.problem(
                    line,
                    None,
                    f"{len(row)} fields; without a header row WMT08's layout is TASK, TYPE, "
                    "ITEM_ID, ANNOTATOR_ID, TIME, then SYSTEM, SCORE_A, SCORE_B for each system",
                )
                continue
            fields = dict(zip(FIXED, row, strict=False))
            for i in range((len(row) - len(FIXED)) // 3):
                start = len(FIXED) + 3 * i
                fields[f"SYSTEM_{i}"] = row[start]
                fields[f"SCORE_{i}_A"] = row[start + 1]
            count = (len(row) - len(FIXED)) // 3
        else:
            if len(row) != width:
                width_problem(name, line, len(row), width, problems, "commas")
                continue
            fields = {column: columns.get(row, column) for column in columns.names}
            count = None
        _row(check, line, fields, systems if count is None else list(range(count)), parsed, sets)


def _known_columns(check: Checker, line: int, columns: Columns) -> bool:
    unknown = [
        name
        for name in columns.names
        if name not in REQUIRED
        and name not in OPTIONAL
        and not SYSTEM_COLUMN.match(name)
        and not SCORE_COLUMN.match(name)
    ]
    for name in unknown:
        check.problem(
            line,
            name,
            f'unknown column "{name}"; WMT08\'s columns are TASK, TYPE, ITEM_ID, ANNOTATOR_ID, '
            "TIME and SYSTEM_i, SCORE_i_A, SCORE_i_B for each system i",
        )
    for name in columns.names:
        match = SYSTEM_COLUMN.match(name)
        if match and f"SCORE_{match.group(1)}_A" not in columns.index:
            check.problem(line, name, f"{name} has no SCORE_{match.group(1)}_A column")
            return False
    return not unknown


def _row(
    check: Checker,
    line: int,
    fields: dict[str, str],
    systems: list[int],
    parsed: ParsedJudgments,
    sets: RankingSets,
) -> None:
    kind = fields["TYPE"].strip()
    if kind.upper() != RANK:
        parsed.ignored[f"{kind or 'untyped'} rows (only RANK rows are imported)"] += 1
        return
    task = check.identifier(line, "TASK", fields["TASK"], "task (TASK)")
    if task is not None:
        pair = LANGUAGE_PAIR.search(task)
        # WMT08's file holds every task: with the option language_pair, other pairs' rows are
        # skipped here (counted by the pair check).
        if not parsed.language_pair(
            pair.groups() if pair else (task,), origin(check.file, line, "TASK")
        ):
            return
    segment = check.identifier(line, "ITEM_ID", fields["ITEM_ID"], "segment id (ITEM_ID)")
    worker = check.identifier(line, "ANNOTATOR_ID", fields["ANNOTATOR_ID"], "annotator")
    seconds = check.seconds(line, "TIME", fields.get("TIME", ""))
    shown: list[tuple[str, str, int | None]] = []
    ok = True
    for i in systems:
        system = fields.get(f"SYSTEM_{i}", "").strip()
        rank_text = fields.get(f"SCORE_{i}_A", "")
        if not system:
            if rank_text.strip() not in ("", "-1"):
                check.problem(line, f"SYSTEM_{i}", f"SCORE_{i}_A has a rank but no system")
                ok = False
            continue
        name = check.identifier(line, f"SYSTEM_{i}", system, "system")
        rank = check.rank(line, f"SCORE_{i}_A", rank_text)
        if name is None or (rank is None and rank_text.strip() not in ("", "-1")):
            ok = False
            continue
        shown.append((name, f"SYSTEM_{i}", rank))
    if task is None or segment is None or worker is None or not ok:
        return
    sets.add(check, line, worker, (task, segment), shown, seconds)
