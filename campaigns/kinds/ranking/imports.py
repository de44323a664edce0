"""Ranking's judgment imports (campaigns/importers/judgments/kinds.py): WMT's relative-ranking
files, WMT08's layout and WMT10-12's, whose rows become ranking sets shared across the files
of one import (campaigns/importers/judgments/ranking.py)."""

from __future__ import annotations

from collections.abc import Sequence

from campaigns.importers.context import Progress
from campaigns.importers.judgments.kinds import JudgmentFormat, JudgmentImportKind
from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.wmt08_rr import parse_wmt08_rr
from campaigns.importers.judgments.wmt10_rr import parse_wmt10_rr
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.models import TaskKind

WMT08_RR = JudgmentFormat(
    "wmt08-rr",
    TaskKind.RANKING.value,
    label="WMT08 relative ranking (CSV: TASK, TYPE, ITEM_ID, ANNOTATOR_ID, TIME, SYSTEM_0)",
    help="WMT08's human judgments: RANK rows become ranking sets of up to five systems "
    "(other types are skipped); the task names the test set.",
    parse=parse_wmt08_rr,
)
WMT10_RR = JudgmentFormat(
    "wmt10-rr",
    TaskKind.RANKING.value,
    label="WMT10-12 relative ranking (CSV: srclang, trglang, srcIndex, ..., judgeId)",
    help="WMT10-12's RNK results (and Appraise's WMT13-16 exports): one ranking set of "
    "up to five systems per row; -1 marks an unranked output.",
    parse=parse_wmt10_rr,
)


class RankingImport(JudgmentImportKind):
    kind = TaskKind.RANKING
    label = "ranking"
    formats = (WMT08_RR, WMT10_RR)

    def read(
        self,
        fmt: JudgmentFormat,
        inputs: Sequence[InputFile],
        parsed: ParsedJudgments,
        problems: ProblemList,
        progress: Progress | None,
    ) -> None:
        # One RankingSets for all the files: an annotator's repeated rankings of a set count
        # across the files of one import.
        assert fmt.parse is not None
        sets = RankingSets(parsed)
        for input_file in inputs:
            fmt.parse(input_file, parsed, problems, progress, sets)

    def describe(self, standardised: bool) -> str:
        return "ranking"


judgment_import = RankingImport()
