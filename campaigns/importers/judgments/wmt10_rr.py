"""WMT10-12's relative-ranking judgments (e.g. ``wmt12.RNK_results.txt``; also what
Appraise's WMT13-16 ``export_wmt1X_results`` scripts print).

Comma-separated, one row per ranked set, with a header row:

    srclang,trglang,srcIndex,documentId,segmentId,judgeId,
    system1Number,system1Id,...,system5Number,system5Id,system1rank,...,system5rank

- ``srclang``, ``trglang``: the languages (names such as ``Czech`` in WMT10-12; one pair per
  import; the campaign's language codes are given with the import);
- ``srcIndex``: the segment (its line in the test set, from 1); ``documentId`` and
  ``segmentId`` repeat it (WMT: "can be ignored") and are not used;
- ``judgeId``: the worker; ``systemNId``: the system shown N-th; ``systemNrank``: its rank,
  1 (best) to 5, ties allowed, -1 when left blank (not imported);
- ``systemNNumber`` is WMT's anonymous number for the system and is not needed.

Without a header row the layout above is assumed, with as many systems as the row has
(six fixed fields, then number and id per system, then the ranks).
"""

from __future__ import annotations

import re

from campaigns.importers.context import Progress
from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import TEST_SET_DOCUMENT, ParsedJudgments
from campaigns.importers.judgments.tables import Columns, read_table, width_problem
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile

FIXED = ("srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId")
REQUIRED = ("srclang", "trglang", "srcIndex", "judgeId", "system1Id", "system1rank")
SYSTEM_COLUMN = re.compile(r"^system(\d+)(Id|Number|rank)$")


def parse_wmt10_rr(
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
    columns: Columns | None = None
    systems: list[int] = []
    if table.first and table.first[1][0].strip() == "srclang":
        header_line, header = table.first
        columns = Columns(header)
        if not columns.report_missing(name, header_line, REQUIRED, problems):
            return
        systems = _systems(check, header_line, columns)
        if not systems:
            return
        rows = table.rest()
    for line, row in rows:
        if columns is None:
            count, remainder = divmod(len(row) - len(FIXED), 3)
            if remainder or count < 1:
                check.problem(
                    line,
                    None,
                    f"{len(row)} fields; without a header row the layout is srclang, trglang, "
                    "srcIndex, documentId, segmentId, judgeId, then systemNNumber and "
                    "systemNId for each system, then each systemNrank",
                )
                continue
            fields = dict(zip(FIXED, row, strict=False))
            for i in range(count):
                fields[f"system{i + 1}Id"] = row[len(FIXED) + 2 * i + 1]
                fields[f"system{i + 1}rank"] = row[len(FIXED) + 2 * count + i]
            numbers = list(range(1, count + 1))
        else:
            if len(row) != len(columns.names):
                width_problem(name, line, len(row), len(columns.names), problems, "commas")
                continue
            fields = {column: columns.get(row, column) for column in columns.names}
            numbers = systems
        _row(check, line, fields, numbers, parsed, sets)


def _systems(check: Checker, line: int, columns: Columns) -> list[int]:
    """The system numbers the header has, each with its Id and rank columns."""
    numbers = set()
    ok = True
    for name in columns.names:
        match = SYSTEM_COLUMN.match(name)
        if match:
            numbers.add(int(match.group(1)))
        elif name not in FIXED:
            check.problem(
                line,
                name,
                f'unknown column "{name}"; the columns are srclang, trglang, srcIndex, '
                "documentId, segmentId, judgeId and systemNNumber, systemNId, systemNrank for "
                "each system N",
            )
            ok = False
    for number in sorted(numbers):
        for part in ("Id", "rank"):
            if f"system{number}{part}" not in columns.index:
                check.problem(line, None, f'missing column "system{number}{part}"')
                ok = False
    return sorted(numbers) if ok else []


def _row(
    check: Checker,
    line: int,
    fields: dict[str, str],
    numbers: list[int],
    parsed: ParsedJudgments,
    sets: RankingSets,
) -> None:
    pair = (fields["srclang"].strip(), fields["trglang"].strip())
    parsed.language_pair(pair, origin(check.file, line, "srclang"))
    segment = check.identifier(line, "srcIndex", fields["srcIndex"], "segment (srcIndex)")
    worker = check.identifier(line, "judgeId", fields["judgeId"], "judge (judgeId)")
    shown: list[tuple[str, str, int | None]] = []
    ok = True
    for number in numbers:
        id_column, rank_column = f"system{number}Id", f"system{number}rank"
        system = fields.get(id_column, "").strip()
        rank_text = fields.get(rank_column, "")
        if not system:
            if rank_text.strip() not in ("", "-1"):
                check.problem(line, id_column, f"{rank_column} has a rank but no system")
                ok = False
            continue
        name = check.identifier(line, id_column, system, "system")
        rank = check.rank(line, rank_column, rank_text)
        if name is None or (rank is None and rank_text.strip() not in ("", "-1")):
            ok = False
            continue
        shown.append((name, id_column, rank))
    if segment is None or worker is None or not ok:
        return
    sets.add(check, line, worker, (TEST_SET_DOCUMENT, segment), shown, None)
