"""Direct assessment's judgment imports (campaigns/importers/judgments/kinds.py): WMT's
direct-assessment TSV and Appraise's score export; one assessment mode per import and per
campaign; raw and standardised scores never mixed in one campaign; a new campaign's
assessment mode from the files, and whose judgments its system table counts (the option
``workers_counted``, issue 12).

Whose judgments count. The reliability test needs bad-reference items; WMT publishes files
that were filtered already (its "good" files: only workers who passed) and files without
quality-control items. Filtering those again (by a different test, or by one that cannot
run) would empty the default table or drop workers WMT counted, so the importer says so with
``workers_counted``: "everyone" (the file was filtered, or holds no QC items) or "reliable"
(test each worker). When the option is not given and the files hold no bad reference, the
new campaign counts everyone and the summary says so: no worker could be tested, so "reliable
only" would always give an empty table, and "everyone" is the only reading under which the
file means anything; an explicit "reliable" for such files is refused, naming the option.
Files with bad references keep the default "reliable" unless the option says otherwise, or
unless their names say WMT filtered them: WMT publishes its filtered judgments as
``ad-<pair>-good-raw.csv`` / ``ad-<pair>-good-stnd.csv`` ("good": only workers who passed its
own reliability test), so a file named with the word "good" counts everyone and the summary
says how to test the workers again (``workers_counted=reliable``). Whether a file was filtered
cannot be seen in its rows; WMT's file names are the only sign, and taking them as published
is what issue 12 asks."""

from __future__ import annotations

import os
import re
from typing import Any

from campaigns.importers.judgments.appraise_scores import parse_appraise_scores
from campaigns.importers.judgments.kinds import JudgmentFormat, JudgmentImportKind
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.judgments.target import ImportOptions
from campaigns.importers.judgments.validation import check_one_mode, note_unpaired_controls
from campaigns.importers.judgments.wmt_da import parse_wmt_da
from campaigns.importers.problems import ProblemList
from campaigns.kinds.direct_assessment.models import WorkersCounted
from campaigns.models import AssessmentMode, Campaign, SlotRole, TaskKind
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
        check_workers_counted(parsed, problems)

    def check_target(
        self,
        campaign: Campaign,
        options: ImportOptions,
        parsed: ParsedJudgments,
        problems: ProblemList,
    ) -> bool:
        label = f'campaign "{campaign.name}"'
        ok = check_same_scale(campaign, options.standardised, problems)
        ok = check_counted_in(campaign, parsed, problems) and ok
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
        counted = parsed.workers_counted
        if counted not in WorkersCounted.values:  # "" or a wrong value (check_parsed said so)
            counted = ""
        if not counted:
            counted = WorkersCounted.RELIABLE.value
            filtered = [
                name for name in parsed.files if FILTERED_BY_WMT.search(os.path.basename(name))
            ]
            if not has_bad_references(parsed):
                counted = WorkersCounted.EVERYONE.value
                parsed.notes.append(
                    "the files hold no bad-reference item, so no worker can be tested for "
                    "reliability: the new campaign counts every worker's judgments (workers "
                    'counted "everyone", as for files filtered before import)'
                )
            elif filtered:
                counted = WorkersCounted.EVERYONE.value
                parsed.notes.append(
                    f'{", ".join(filtered)}: the name says WMT filtered it (a "good" file: only '
                    "workers who passed WMT's reliability test), so the new campaign counts "
                    'every worker\'s judgments (workers counted "everyone"); import with '
                    'workers counted "reliable" to test each worker again'
                )
        return {
            "assessment_mode": next(iter(parsed.modes), AssessmentMode.ADEQUACY.value),
            "workers_counted": counted,
        }

    def describe(self, standardised: bool) -> str:
        scale = "standardised scores" if standardised else "raw 0-100 scores"
        return f"direct assessment, {scale}"


judgment_import = DirectAssessmentImport()


# WMT's filtered files: ad-csen-good-raw.csv, ad-csen-good-stnd.csv ("good" as a word of the
# file's name, between -, _ or . and the ends; a directory's name does not count).
FILTERED_BY_WMT = re.compile(r"(?:^|[-_.])good(?:[-_.]|$)", re.IGNORECASE)


def has_bad_references(parsed: ParsedJudgments) -> bool:
    """Whether any HIT of the files holds a bad-reference item (one step per distinct slot)."""
    bad = SlotRole.BAD_REFERENCE.value
    return any(key[0] == bad for hit in parsed.hits.values() for key in hit.slots)


def check_workers_counted(parsed: ParsedJudgments, problems: ProblemList) -> None:
    """The option's value, and "reliable" only for files the reliability test can run on."""
    counted = parsed.workers_counted
    if not counted:
        return
    if counted not in WorkersCounted.values:
        problems.add(
            None,
            None,
            "workers_counted",
            f'workers counted must be "reliable" or "everyone", not "{counted}"',
        )
    elif counted == WorkersCounted.RELIABLE and parsed.hits and not has_bad_references(parsed):
        problems.add(
            None,
            None,
            "workers_counted",
            'workers counted "reliable" needs bad-reference items, which the reliability '
            "test compares with their outputs, and the files hold none: no worker could pass "
            'and the system table would be empty; import with workers counted "everyone" '
            "(the files were filtered or carry no quality control)",
        )


def check_counted_in(campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList) -> bool:
    """An existing campaign keeps its own setting: an option that contradicts it is refused
    (changing whose judgments count is the requester's decision on the campaign's page); files
    without bad references added to a campaign counting reliable workers get a note."""
    stored = campaign.da_settings.workers_counted
    counted = parsed.workers_counted
    if counted and counted in WorkersCounted.values and counted != stored:
        problems.add(
            None,
            None,
            "workers_counted",
            f'campaign "{campaign.name}" counts {WorkersCounted(stored).label[0].lower()}'
            f'{WorkersCounted(stored).label[1:]}; change its setting "Workers counted" '
            f'first, or import without workers counted "{counted}"',
        )
        return False
    if not counted and stored == WorkersCounted.RELIABLE and not has_bad_references(parsed):
        parsed.notes.append(
            f'the files hold no bad-reference item and campaign "{campaign.name}" counts '
            "reliable workers only: their workers cannot be tested and count in the "
            'every-worker table only (set the campaign\'s "Workers counted" to everyone if '
            "the files were filtered)"
        )
    return True


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
