"""WMT10-16's relative-ranking judgments in "the WMT CSV format": WMT10-12's RNK results
(e.g. ``wmt12.RNK_results.txt``), WMT13-14's judgments (``wmt14-judgments-anonymized.csv``,
what Appraise's ``export_wmt1X_results`` scripts print) and WMT15-16's pairwise files
(``wmt16.deu-eng.csv``, made from Appraise's XML by WMT's ``xml2csv.py``).

Comma-separated, with a header row whose names are matched without case (WMT10-14 write
``judgeId``, WMT15-16 ``judgeID``). Two layouts, told apart by the header:

- **5-way** (WMT10-14), one row per ranked set::

      srclang,trglang,srcIndex,documentId,segmentId,judgeId,
      system1Number,system1Id,...,system5Number,system5Id,system1rank,...,system5rank

- **pairwise** (WMT15-16; the header has ``rankingID``), one row per pair of a ranked set;
  the rows of one ranking share its ``rankingID`` and are put back together into the set
  (:mod:`campaigns.importers.judgments.wmt15_rr`)::

      srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID

Fields:

- ``srclang``, ``trglang``: the languages (names such as ``Czech`` in WMT10-14, Appraise's
  three-letter codes such as ``cze``, ``deu`` in WMT15-16). One pair per import; the option
  ``language_pair`` keeps one pair's rows of a file holding several (the campaign's codes are
  given with the import, or come from ``language_pair``);
- ``srcIndex``: the segment (its line in the test set, from 1); ``documentId`` and
  ``segmentId`` repeat it (WMT: "can be ignored") and are not used;
- ``judgeId``: the worker; ``systemNId``: the system shown N-th; ``systemNrank``: its rank,
  1 (best) to 5, ties allowed, -1 when left blank (not imported);
- ``systemNNumber`` is WMT's anonymous number for the system and is not needed.

Without a header row the 5-way layout is assumed, with as many systems as the row has
(six fixed fields, then number and id per system, then the ranks).
"""

from __future__ import annotations

import re

from campaigns.importers.context import Progress
from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import TEST_SET_DOCUMENT, ParsedJudgments
from campaigns.importers.judgments.tables import Columns, read_table, width_problem
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.importers.judgments.wmt15_rr import PairwiseRankings
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile

FIXED = ("srclang", "trglang", "srcIndex", "documentId", "segmentId", "judgeId")
REQUIRED = ("srclang", "trglang", "srcIndex", "judgeId", "system1Id", "system1rank")
# The pairwise layout's column that groups the pairs of one ranking (WMT15-16).
RANKING_ID = "rankingID"
PAIRWISE_REQUIRED = (*REQUIRED, "system2Id", "system2rank", RANKING_ID)
SYSTEM_COLUMN = re.compile(r"^system(\d+)(id|number|rank)$", re.IGNORECASE)
_PARTS = {"id": "Id", "number": "Number", "rank": "rank"}
_CANONICAL = {name.lower(): name for name in (*FIXED, RANKING_ID)}


def canonical(name: str) -> str:
    """A header name in the spelling this module uses (``judgeID`` -> ``judgeId``,
    ``System1RANK`` -> ``system1rank``); unknown names as they are."""
    name = name.strip()
    match = SYSTEM_COLUMN.match(name)
    if match:
        return f"system{int(match.group(1))}{_PARTS[match.group(2).lower()]}"
    return _CANONICAL.get(name.lower(), name)


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
    # Canonical field name -> the file's own column name (problems name the file's column).
    shown: dict[str, str] = {}
    systems: list[int] = []
    pairwise: PairwiseRankings | None = None
    if table.first and table.first[1][0].strip().lower() == "srclang":
        header_line, header = table.first
        columns = Columns([canonical(column) for column in header])
        shown = {canonical(column): column.strip() for column in header}
        required = PAIRWISE_REQUIRED if RANKING_ID in columns.index else REQUIRED
        if not columns.report_missing(name, header_line, required, problems):
            return
        systems = _systems(check, header_line, columns, shown)
        if not systems:
            return
        if RANKING_ID in columns.index:
            pairwise = PairwiseRankings(check, parsed, sets, shown)
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
        if pairwise is not None:
            pairwise.row(line, fields)
        else:
            _row(check, line, fields, numbers, parsed, sets, shown)
    if pairwise is not None:
        pairwise.finish()


def _systems(check: Checker, line: int, columns: Columns, shown: dict[str, str]) -> list[int]:
    """The system numbers the header has, each with its Id and rank columns."""
    numbers = set()
    ok = True
    for name in columns.names:
        match = SYSTEM_COLUMN.match(name)
        if match:
            numbers.add(int(match.group(1)))
        elif name not in FIXED and name != RANKING_ID:
            check.problem(
                line,
                shown.get(name, name),
                f'unknown column "{shown.get(name, name)}"; the columns are srclang, trglang, '
                "srcIndex, documentId, segmentId, judgeId and systemNNumber, systemNId, "
                "systemNrank for each system N (and rankingID in WMT15-16's pairwise files)",
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
    shown: dict[str, str],
) -> None:
    pair = (fields["srclang"].strip(), fields["trglang"].strip())
    # A row of another pair than the one chosen (option language_pair) is skipped, counted.
    if not parsed.language_pair(pair, origin(check.file, line, "srclang")):
        return
    judge = shown.get("judgeId", "judgeId")
    segment = check.identifier(line, "srcIndex", fields["srcIndex"], "segment (srcIndex)")
    worker = check.identifier(line, judge, fields["judgeId"], f"judge ({judge})")
    ranked: list[tuple[str, str, int | None]] = []
    ok = True
    for number in numbers:
        id_column, rank_column = f"system{number}Id", f"system{number}rank"
        id_shown, rank_shown = shown.get(id_column, id_column), shown.get(rank_column, rank_column)
        system = fields.get(id_column, "").strip()
        rank_text = fields.get(rank_column, "")
        if not system:
            if rank_text.strip() not in ("", "-1"):
                check.problem(line, id_shown, f"{rank_shown} has a rank but no system")
                ok = False
            continue
        name = check.identifier(line, id_shown, system, "system")
        rank = check.rank(line, rank_shown, rank_text)
        if name is None or (rank is None and rank_text.strip() not in ("", "-1")):
            ok = False
            continue
        ranked.append((name, id_shown, rank))
    if segment is None or worker is None or not ok:
        return
    sets.add(check, line, worker, (TEST_SET_DOCUMENT, segment), ranked, None)
