"""Post-editing's judgment imports (campaigns/importers/judgments/kinds.py): published
post-edits, a TSV, CSV or JSONL file of source, MT output and post-edit per row
(campaigns/importers/judgments/post_edits.py; docs/judgment-formats.md, "Post-edits").

The rows become what a collected post-editing campaign holds (edit HITs, one assignment per
editor and HIT, the edits as judgment texts), so that the same statistics read them: after the
write, the import hands the campaign to the recompute (``write_checked_judgments``: here, or
in an import job by the recompute task), whose first step scores every edit not yet scored
for the campaign's TER settings (``analytics.kinds.post_editing.scoring.score_pending_edits``).
HTER is therefore always computed with the campaign's settings: tercom's defaults for a
new campaign, an existing campaign's own (case, normalisation) when adding to it. Imported
edits have no verification votes, so they count as passed (SPEC of issue 13).

Adding to an imported post-editing campaign: the segments and outputs it holds already must
have the same texts in the files (a stored segment or output is never changed by an import),
and an editor's post-edit of an output it holds already is refused as imported before
(checked per editor and output, whatever HITs the earlier import made), so that importing a
file twice cannot count its edits twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from campaigns.importers.context import Progress
from campaigns.importers.judgments.kinds import JudgmentFormat, JudgmentImportKind
from campaigns.importers.judgments.post_edits import (
    EDITOR,
    MT,
    REF,
    SRC,
    Field,
    PostEditRows,
    PostEdits,
    parse_post_edits,
)
from campaigns.importers.judgments.records import ParsedJudgments
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile
from campaigns.importers.records import Origin
from campaigns.kinds.post_editing.models import PostEditingMode
from campaigns.models import HitTask, Output, Segment, TaskKind

if TYPE_CHECKING:
    from campaigns.importers.judgments.target import ImportOptions
    from campaigns.models import Campaign

POST_EDITS = JudgmentFormat(
    "post-edits",
    TaskKind.POST_EDITING.value,
    label="Post-edits (TSV, CSV or JSONL: src, mt, pe; optional ref, system, doc_id, seg_id, "
    "editor)",
    help="Published post-edits, one row per post-edit of one MT output, as post-editing "
    "corpora ship them (WMT APE and QE, QT21, HTER sets): the source, the MT output and its "
    "post-edited version, optionally the reference, system, document, segment and editor "
    "(other names read: docs/judgment-formats.md). HTER is computed on import with the "
    "campaign's TER settings.",
    parse=parse_post_edits,
)


class PostEditingImport(JudgmentImportKind):
    kind = TaskKind.POST_EDITING
    label = "post-editing"
    formats = (POST_EDITS,)

    def read(
        self,
        fmt: JudgmentFormat,
        inputs: Sequence[InputFile],
        parsed: ParsedJudgments,
        problems: ProblemList,
        progress: Progress | None,
    ) -> None:
        # One PostEditRows for all the files: the edits of one output may come from several
        # files, and the HITs are built once every segment is known.
        rows = PostEditRows(parsed)
        for input_file in inputs:
            parse_post_edits(input_file, parsed, problems, progress, rows)
        rows.finish()

    def check_target(
        self,
        campaign: Campaign,
        options: ImportOptions,
        parsed: ParsedJudgments,
        problems: ProblemList,
    ) -> bool:
        return check_stored(campaign, parsed, problems)

    def check_before_write(
        self, campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList
    ) -> None:
        check_stored(campaign, parsed, problems)

    def new_campaign_settings(self, parsed: ParsedJudgments) -> dict[str, Any]:
        texts = parsed.texts
        if isinstance(texts, PostEdits) and texts.segments:
            if not any(reference for _, reference, _ in texts.segments.values()):
                # A monolingual editor sees the reference (000); without one, the editors can
                # only have worked from the source (003).
                parsed.notes.append(
                    "the files hold no reference, so the new campaign is bilingual (editors "
                    "shown the source)"
                )
                return {"mode": PostEditingMode.BILINGUAL.value}
        return {}

    def describe(self, standardised: bool) -> str:
        return "post-editing, HTER with tercom's defaults"


judgment_import = PostEditingImport()


def check_stored(campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList) -> bool:
    """What the campaign holds already agrees with the files: stored segments have the same
    source and reference, stored outputs the same MT output, and no editor's post-edit of an
    output is in it already. Three queries, whatever the sizes (the campaign's segments,
    outputs and edits: an imported campaign is what its files were); run again by the writer
    under the campaign's lock."""
    texts = parsed.texts
    if campaign.pk is None or not isinstance(texts, PostEdits):
        return True
    from judgments.models import Judgment

    ok = True
    label = f'campaign "{campaign.name}"'
    for document, segment, source, references in Segment.objects.filter(
        campaign=campaign
    ).values_list("document__external_id", "external_id", "source", "references"):
        given = texts.segments.get((document, segment))
        if given is None:
            continue
        reference = references[0] if references else ""
        for fld, file_text, stored_text in ((SRC, given[0], source), (REF, given[1], reference)):
            if file_text != stored_text:
                where = f"segment {segment} of document {document}"
                ok = _differs(problems, texts, given[2], fld, label, where)
                break
    for system, document, segment, text in Output.objects.filter(
        system__campaign=campaign
    ).values_list("system__name", "segment__document__external_id", "segment__external_id", "text"):
        given = texts.outputs.get((system, (document, segment)))
        if given is not None and given[0] != text:
            where = f"system {system}'s output on segment {segment} of document {document}"
            ok = _differs(problems, texts, given[1], MT, label, where)
    stored_edits = set(
        Judgment.objects.filter(campaign=campaign, slot__hit__task=HitTask.POST_EDIT).values_list(
            "worker__external_id",
            "slot__output__system__name",
            "slot__segment__document__external_id",
            "slot__segment__external_id",
        )
    )
    if stored_edits:
        for edit in texts.edits:
            if (edit.editor, edit.system, *edit.segment) in stored_edits:
                document, segment = edit.segment
                problems.add(
                    edit.file,
                    edit.line,
                    texts.column(edit.file, EDITOR),
                    f"editor {edit.editor}'s post-edit of system {edit.system}'s output on "
                    f"document {document}, segment {segment} is already in {label} (imported "
                    "before); importing it again would count it twice"
                    + (ANONYMOUS_HINT if edit.anonymous else ""),
                )
                ok = False
    return ok


# Anonymous editors are numbered per output in each import: a second import of other edits
# of the same outputs cannot be told from the first one imported again.
ANONYMOUS_HINT = (
    " (the file names no editors, so its edits of an output are by editor-1, editor-2, ...: "
    "if these are other editors' edits, give the file an editor column)"
)


def _differs(
    problems: ProblemList, texts: PostEdits, origin: Origin, fld: Field, label: str, what: str
) -> bool:
    problems.add(
        origin.file,
        origin.line,
        texts.column(origin.file, fld),
        f"{fld.what} differs from the one {label} holds for {what} (imported before); an "
        "import adds post-edits and never changes stored texts",
    )
    return False
