"""Ranking's judgment imports (campaigns/importers/judgments/kinds.py): WMT's relative-ranking
files, WMT08's layout and WMT10-16's (5-way and pairwise), whose rows become ranking sets
shared across the files of one import (campaigns/importers/judgments/ranking.py).

The human reference: WMT13-14's files rank it with the systems as ``_ref`` (Appraise: ``ref``),
and WMT's tables leave it out. An import names the reference system of the campaign it
creates (``RankingSettings.reference_system``, left out of the scores by default): the one
the importer names (``ImportOptions.reference_system``), else the one system the files call
``_ref`` or ``ref``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from campaigns.importers.context import Progress
from campaigns.importers.judgments.kinds import JudgmentFormat, JudgmentImportKind
from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.wmt08_rr import parse_wmt08_rr
from campaigns.importers.judgments.wmt10_rr import parse_wmt10_rr
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.kinds.ranking.models import RankingSettings, is_reference_name
from campaigns.models import TaskKind

if TYPE_CHECKING:
    from campaigns.importers.judgments.target import ImportOptions
    from campaigns.models import Campaign

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
    label="WMT10-16 relative ranking (CSV: srclang, trglang, srcIndex, ..., judgeId; "
    "5-way or pairwise)",
    help="WMT10-14's 5-way files (RNK results, WMT13-14 judgments): one ranking set of up to "
    "five systems per row, -1 marks an unranked output; WMT15-16's pairwise files (judgeID, "
    "system1Id, system1rank, system2Id, system2rank, rankingID): the pairs of one rankingID "
    "make one ranking set.",
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

    def check_parsed(self, parsed: ParsedJudgments, problems: ProblemList) -> None:
        """Which system is the reference: the one named with the import (it must be in the
        files), else the one the files call ``_ref`` or ``ref`` (two such: ask for the name)."""
        named = parsed.reference_system
        if named:
            if named not in parsed.systems and parsed.systems:
                problems.add(
                    None,
                    None,
                    "reference_system",
                    f'the files have no system named "{named}"; their systems are: '
                    + ", ".join(sorted(parsed.systems)),
                )
            return
        found = sorted(name for name in parsed.systems if is_reference_name(name))
        if len(found) == 1:
            parsed.reference_system = found[0]
            parsed.notes.append(
                f'system "{found[0]}" is taken for the human reference (WMT\'s name for it) and '
                "left out of the scores, as WMT's tables do (settings: reference system)"
            )
        elif len(found) > 1:
            problems.add(
                None,
                None,
                "reference_system",
                "several systems are named like the reference ("
                + ", ".join(found)
                + "); name the one that is the reference with the option reference_system",
            )

    def check_target(
        self,
        campaign: Campaign,
        options: ImportOptions,
        parsed: ParsedJudgments,
        problems: ProblemList,
    ) -> bool:
        return _same_reference(campaign, parsed, problems)

    def check_before_write(
        self, campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList
    ) -> None:
        """Under the campaign's lock, in the write's transaction: the reference check again,
        and a campaign without a reference gets the files' (so the recompute after the
        import leaves it out)."""
        settings = RankingSettings.objects.select_for_update().get(pk=campaign.pk)
        campaign.ranking_settings = settings
        if _same_reference(campaign, parsed, problems) and (
            parsed.reference_system and not settings.reference_system
        ):
            settings.reference_system = parsed.reference_system
            settings.save(update_fields=["reference_system"])

    def new_campaign_settings(self, parsed: ParsedJudgments) -> dict[str, Any]:
        return {"reference_system": parsed.reference_system} if parsed.reference_system else {}

    def describe(self, standardised: bool) -> str:
        return "ranking"


def _same_reference(campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList) -> bool:
    """A campaign names one reference: the files' must be the campaign's, if it has one."""
    stored = campaign.ranking_settings.reference_system
    if parsed.reference_system and stored and stored != parsed.reference_system:
        problems.add(
            None,
            None,
            "reference_system",
            f'campaign "{campaign.name}" names "{stored}" as its reference system, not '
            f'"{parsed.reference_system}"',
        )
        return False
    return True


judgment_import = RankingImport()
