"""Direct assessment's judgment imports (campaigns/importers/judgments/kinds.py): WMT's
direct-assessment TSV and Appraise's score export; one assessment mode per import and per
campaign; raw and standardised scores never mixed in one campaign; a new campaign's
assessment mode from the files."""

from __future__ import annotations

from typing import Any

from campaigns.importers.judgments.appraise_scores import parse_appraise_scores
from campaigns.importers.judgments.kinds import JudgmentFormat, JudgmentImportKind
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.target import ImportOptions
from campaigns.importers.judgments.validation import check_one_mode, note_unpaired_controls
from campaigns.importers.judgments.wmt_da import parse_wmt_da
from campaigns.importers.problems import ProblemList
from campaigns.models import AssessmentMode, Campaign, TaskKind
from judgments.models import Judgment

WMT_DA = JudgmentFormat(
    "wmt-da",
    TaskKind.DIRECT_ASSESSMENT.value,
    label="WMT direct assessment (TSV: HITId, WorkerId, ..., type, sid, score, time)",
    help="WMT's human-evaluation files, one row per judgment, tab-separated. Types "
    "SYSTEM, REPEAT, BAD_REF and REF become system outputs and quality-control items; tick "
    "standardised for WMT's *-stnd files (z-scores instead of 0-100 scores).",
    parse=parse_wmt_da,
    standardised=True,
)
APPRAISE = JudgmentFormat(
    "appraise",
    TaskKind.DIRECT_ASSESSMENT.value,
    label="Appraise score export (CSV: user, systemID, itemID, itemType, src, tgt, score)",
    help="The output of Appraise's ExportSystemScoresToCSV: TGT, CHK (repeat), BAD and "
    "REF items with their 0-100 scores; one HIT per Appraise batch (with --batch-info) or per "
    "annotator.",
    parse=parse_appraise_scores,
)


class DirectAssessmentImport(JudgmentImportKind):
    kind = TaskKind.DIRECT_ASSESSMENT
    label = "direct-assessment"
    formats = (WMT_DA, APPRAISE)

    def check_parsed(self, parsed: ParsedJudgments, problems: ProblemList) -> None:
        check_one_mode(parsed, problems)
        note_unpaired_controls(parsed)

    def check_target(
        self,
        campaign: Campaign,
        options: ImportOptions,
        parsed: ParsedJudgments,
        problems: ProblemList,
    ) -> bool:
        label = f'campaign "{campaign.name}"'
        ok = check_same_scale(campaign, options.standardised, problems)
        if len(parsed.modes) == 1:
            mode = next(iter(parsed.modes))
            if mode != campaign.da_settings.assessment_mode:
                origin = parsed.modes[mode]
                problems.add(
                    origin.file,
                    origin.line,
                    origin.field,
                    f"{label} is {campaign.da_settings.assessment_mode}, and this file {mode}; "
                    "fluency and "
                    "adequacy are separate campaigns",
                )
                ok = False
        return ok

    def check_before_write(
        self, campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList
    ) -> None:
        check_same_scale(campaign, parsed.standardised, problems)

    def new_campaign_settings(self, parsed: ParsedJudgments) -> dict[str, Any]:
        return {"assessment_mode": next(iter(parsed.modes), AssessmentMode.ADEQUACY.value)}

    def describe(self, standardised: bool) -> str:
        scale = "standardised scores" if standardised else "raw 0-100 scores"
        return f"direct assessment, {scale}"


judgment_import = DirectAssessmentImport()


def check_same_scale(campaign: Campaign, standardised: bool, problems: ProblemList) -> bool:
    """Raw scores and given z-scores are never mixed in one campaign: a worker's z from
    their raw scores and a published z are standardised over different data. Run again by
    the writer under the campaign's lock, since another import may have written meanwhile."""
    judged = Judgment.objects.filter(campaign=campaign)
    has_given = judged.filter(given_z__isnull=False).exists()
    has_raw = judged.filter(score__isnull=False).exists()
    if standardised and has_raw or not standardised and has_given:
        held, this = ("raw 0-100", "standardised") if has_raw else ("standardised", "raw 0-100")
        problems.add(
            None,
            None,
            "standardised",
            f'campaign "{campaign.name}" holds {held} scores and this file {this} ones; they '
            "cannot be standardised together, so import the file into a new campaign",
        )
        return False
    return True
