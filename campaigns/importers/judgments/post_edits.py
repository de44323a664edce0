"""Published post-edits: one row per post-edit of one MT output (issue 13 item 7).

A TSV, CSV or JSONL file with, on every row, the source, the MT output and its post-edited
version, and optionally the reference, the system, the document, the segment and the editor,
under the names published post-editing corpora use (WMT's APE and QE data: ``src``, ``mt``,
``pe``, ``ref``; DivEMT: ``src_text``, ``mt_text``, ``subject_id``, ``item_id``; the usual
names of ids and annotators: ``doc_id``, ``seg_id``, ``editor``, ``annotator``; evalsite's own
segment files: ``source``, ``output``, ``reference``, ``system``). Column names are matched
without case and without punctuation (``Post-Edit``, ``post_edit`` and ``postedit`` are one
name); :data:`FIELDS` lists every name read, and docs/judgment-formats.md documents them.

Which format a file is in is seen on its first line: a JSON object starts a JSONL file, a tab
a TSV header, anything else a CSV header. TSV is read as published corpora write it: split on
tabs, quotes are text (and count as words in TER: ``"Yes," she said.`` is read as it is), except
a field in the form pandas and spreadsheets give a text with quotes in it, wrapped in quotes
with every inner quote doubled (``"He said ""hi"" twice"``), which is unquoted: DivEMT's TSV is
written so, and plain text practically never looks like it. CSV is RFC 4180, quoted as
spreadsheets write it; JSONL has one object per line with the same names as keys.

What the rows become is post-editing's structure (campaigns/kinds/post_editing, SPEC of issue
13): segments with their source and reference, one output per (system, segment) with the MT
text, edit HITs of ``HitTask.POST_EDIT`` (one per system and run of consecutive segments of a
document, as the HIT builder cuts runs; the slots' group is the run), one assignment per editor
and HIT, and one judgment per post-edit whose text is the edit. Its details say what the edit
page's server would: ``unchanged`` (the edit equals the MT output after whitespace
normalisation) and ``copied_reference`` (it equals the reference; false without one). The
page's own counters (keystrokes, resets, pasting) are unknown for imported edits and left out,
not set to 0, which would read as "did nothing".

Defaults for absent columns (chosen so that a file imported twice is recognised as such, and
the same as the other judgment formats without such columns):

- no ``system``: every output is one system named ``mt``. A published post-editing corpus is
  nearly always the output of one MT system (WMT APE, QT21, MLQE-PE); naming it after the file
  would make the train and test files of one system two systems;
- no ``doc_id``: one document, ``testset`` (records.TEST_SET_DOCUMENT);
- no ``seg_id``: a row's number among the file's rows (1, 2, ...), as WMT numbers line-aligned
  files;
- no ``editor``: the first post-edit of an output in the import is by ``editor-1``, the second
  by ``editor-2``, and so on. A file that repeats an output (five post-edits of each output in
  000) without naming the editors has different editors for them, which is the only reading
  under which several edits of one output mean anything; one editor for the whole file would
  make the repeats duplicates. A corpus of one post-edit per output is then one editor,
  ``editor-1``, which is what such corpora are (one professional team). Importing the same
  file again is then refused as imported before; so is a second import of other anonymous
  edits of the same outputs (their editors cannot be told apart): such files need an editor
  column.

Every row is checked before anything is written; problems name the file, the line and the
column as the file names it. Several rows of one output (the same system, document and
segment) are post-edits by several editors and must carry the same MT output; the rows of one
segment the same source and reference; an editor post-edits an output once.

The texts are kept in memory between the check and the write (post-editing corpora are tens of
thousands of rows, not millions like WMT's DA files).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any

from campaigns.builders.post_editing import run_lengths
from campaigns.importers.context import Progress, id_problem, text_problem
from campaigns.importers.judgments.records import (
    TEST_SET_DOCUMENT,
    JudgmentRecord,
    ParsedJudgments,
    SegmentKey,
    slot_key,
)
from campaigns.importers.judgments.tables import read_table, split_tabs, width_problem
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import (
    MAX_TEXT_CHARS,
    UTF8_BOM,
    InputFile,
    is_blank,
    iter_lines,
    scan_text,
)
from campaigns.importers.records import Origin
from campaigns.kinds.post_editing.models import PostEditingSettings
from campaigns.models import SlotRole

__all__ = [
    "AMBIGUOUS",
    "ANONYMOUS_EDITOR",
    "DEFAULT_SYSTEM",
    "FIELDS",
    "PostEditRows",
    "PostEdits",
    "normalise_whitespace",
    "parse_post_edits",
]

DEFAULT_SYSTEM = "mt"
ANONYMOUS_EDITOR = "editor-{}"
# Runs of imported edits: the HIT builder's default length; the runs only group the slots of
# an imported campaign, which hands out nothing.
SEGMENTS_PER_RUN: int = PostEditingSettings._meta.get_field("segments_per_hit").default
PROGRESS_EVERY = 10_000
# Added to a disagreement found on a row whose segment id is its place in the file.
NUMBERED_ROWS_HINT = (
    " (without a seg_id column a row's segment is its place in the file, 1, 2, ...: give "
    "the files doc_id and seg_id columns, or import them into separate campaigns)"
)


@dataclass(frozen=True)
class Field:
    """One field of a row: its name in messages (the first of ``names``), what it is, and
    every column name it is read from, in order of preference."""

    names: tuple[str, ...]
    what: str

    @property
    def name(self) -> str:
        return self.names[0]


SRC = Field(
    ("src", "source", "src_text", "source_text", "source_sentence", "source_segment", "original"),
    "the source",
)
MT = Field(
    ("mt", "mt_output", "mt_text", "mt_translation", "machine_translation", "raw_mt", "hyp",
     "hypothesis", "output"),
    "the MT output",
)  # fmt: skip
PE = Field(
    ("pe", "post_edit", "post_edited", "post_edition", "pe_text", "post_edited_text", "edited",
     "edit"),
    "the post-edit",
)  # fmt: skip
REF = Field(
    ("ref", "reference", "ref_text", "reference_text", "reference_translation"), "the reference"
)
SYSTEM = Field(
    ("system", "sys", "system_id", "sys_id", "system_name", "mt_system", "engine"), "the system"
)
DOC = Field(("doc_id", "document_id", "document", "doc", "doc_name"), "the document id")
SEG = Field(
    ("seg_id", "segment_id", "segment", "seg", "sid", "sent_id", "sentence_id", "item_id",
     "line_id", "id"),
    "the segment id",
)  # fmt: skip
EDITOR = Field(
    ("editor", "editor_id", "post_editor", "post_editor_id", "annotator", "annotator_id",
     "translator", "translator_id", "worker", "worker_id", "user", "user_id", "subject_id",
     "participant_id", "rater"),
    "the editor",
)  # fmt: skip
PAIR = Field(("lp", "language_pair", "lang_pair", "langs", "pair"), "the language pair")
SRC_LANG = Field(("src_lang", "source_language", "source_lang", "sl"), "the source language")
TGT_LANG = Field(
    ("tgt_lang", "target_language", "target_lang", "trglang", "tl"), "the target language"
)
FIELDS = (SRC, MT, PE, REF, SYSTEM, DOC, SEG, EDITOR, PAIR, SRC_LANG, TGT_LANG)
REQUIRED = (SRC, MT, PE)
# Names corpora use for different things: "target" is the MT output in MQM and COMET files
# and the post-edit in others (DivEMT's tgt_text); "translation" is MLQE's MT output and a
# human translation elsewhere. Not read; named in the problem when mt or pe is missing.
AMBIGUOUS = ("target", "tgt", "tgt_text", "target_text", "trg", "translation")


def normalise(name: str) -> str:
    """A column name as matched: lower case, letters and digits only."""
    return re.sub(r"[^0-9a-z]", "", name.strip().lower())


_BY_NAME: dict[str, tuple[Field, int]] = {}
for _field in FIELDS:
    for _rank, _name in enumerate(_field.names):
        assert normalise(_name) not in _BY_NAME, _name
        _BY_NAME[normalise(_name)] = (_field, _rank)
_AMBIGUOUS = {normalise(name) for name in AMBIGUOUS}


def normalise_whitespace(text: str) -> str:
    """What the edit page compares (SPEC: unchanged, copied_reference): words separated by
    single spaces, no leading or trailing space."""
    return " ".join(text.split())


# --- What the files hold --------------------------------------------------------------------


@dataclass(slots=True)
class _Edit:
    file: str
    line: int
    editor: str
    system: str
    segment: SegmentKey
    text: str
    # The file names no editor: ``editor`` is ANONYMOUS_EDITOR numbered per output.
    anonymous: bool = False


@dataclass
class PostEdits:
    """The texts of an import (``ParsedJudgments.texts``) and where each was first read, for
    the writer and for the checks against a campaign that holds some of them already."""

    # (document, segment) -> (source, reference or "", where first read)
    segments: dict[SegmentKey, tuple[str, str, Origin]] = field(default_factory=dict)
    # (system, (document, segment)) -> (MT output, where first read)
    outputs: dict[tuple[str, SegmentKey], tuple[str, Origin]] = field(default_factory=dict)
    # In the order of ParsedJudgments.judgments.
    edits: list[_Edit] = field(default_factory=list)
    # Columns the files name for each field ({"pe": "post_edit"}), for problems found later.
    columns: dict[str, dict[str, str]] = field(default_factory=dict)

    def segment(self, key: SegmentKey) -> tuple[str, list[str]]:
        source, reference, _ = self.segments[key]
        return source, [reference] if reference else []

    def output(self, system: str, segment: SegmentKey) -> str:
        return self.outputs[(system, segment)][0]

    def judgment(self, row: int) -> tuple[str, dict[str, Any]]:
        edit = self.edits[row]
        _, reference, _ = self.segments[edit.segment]
        typed = normalise_whitespace(edit.text)
        mt = self.outputs[(edit.system, edit.segment)][0]
        return edit.text, {
            "unchanged": typed == normalise_whitespace(mt),
            "copied_reference": bool(reference) and typed == normalise_whitespace(reference),
        }

    def column(self, file: str, fld: Field) -> str:
        """The column ``file`` reads ``fld`` from (its own spelling), or the field's name."""
        return self.columns.get(file, {}).get(fld.name, fld.name)


class PostEditRows:
    """The rows of every file of one import, checked as they are read; :meth:`finish` then
    builds the HITs and the judgments (the HITs' slots are in document order, which is known
    once every file is read)."""

    def __init__(self, parsed: ParsedJudgments) -> None:
        self.parsed = parsed
        self.texts = PostEdits()
        parsed.texts = self.texts
        # (system, segment) -> editor -> (file, line) of their edit; and how many edits of
        # the output had no editor named (the next anonymous editor's number).
        self.editors: dict[tuple[str, SegmentKey], dict[str, tuple[str, int]]] = {}
        self.anonymous: dict[tuple[str, SegmentKey], int] = {}
        # Which defaults the files needed, and the columns they have that are not read.
        self.defaulted: dict[str, list[str]] = {}
        self.unread: dict[str, list[str]] = {}

    # --- Reading ---------------------------------------------------------------------------

    def read(
        self, input_file: InputFile, problems: ProblemList, progress: Progress | None = None
    ) -> None:
        name = input_file.name
        self.parsed.files.append(name)
        first = _first_line(input_file)
        if first.startswith("{"):
            self._read_jsonl(input_file, problems, progress)
        else:
            self._read_table(input_file, problems, progress, tabs="\t" in first)

    def _read_table(
        self, input_file: InputFile, problems: ProblemList, progress: Progress | None, tabs: bool
    ) -> None:
        name = input_file.name
        table = read_table(
            input_file, problems, split=_split_tsv if tabs else None, progress=progress
        )
        if table is None:
            return
        if table.first is None:
            problems.add(name, None, None, "empty file: the header line is missing")
            return
        header_line, header = table.first
        columns = self._columns(name, header_line, header, problems)
        if columns is None:
            return
        width = len(header)
        for ordinal, (line, row) in enumerate(table.rest(), 1):
            if len(row) != width:
                width_problem(name, line, len(row), width, problems, "tabs" if tabs else "commas")
                continue
            values = {fld.name: row[position] for fld, position in columns.items()}
            self._row(name, line, ordinal, values, problems)

    def _columns(
        self, name: str, line: int, header: list[str], problems: ProblemList
    ) -> dict[Field, int] | None:
        """Which column each field is read from (the best-ranked of its names), after
        reporting a column given twice and the required ones missing."""
        chosen: dict[Field, tuple[int, int]] = {}  # field -> (rank, position)
        seen: dict[str, str] = {}
        unread: list[str] = []
        ambiguous: list[str] = []
        ok = True
        for position, raw in enumerate(header):
            label = raw.strip().lstrip(UTF8_BOM.decode("utf-8"))
            key = normalise(label)
            if key in seen:
                problems.add(
                    name,
                    line,
                    label,
                    f'columns "{seen[key]}" and "{label}" are the same column; keep one',
                )
                ok = False
                continue
            seen[key] = label
            found = _BY_NAME.get(key)
            if found is None:
                if key in _AMBIGUOUS:
                    ambiguous.append(label)
                if key:
                    unread.append(label)
                continue
            fld, rank = found
            held = chosen.get(fld)
            if held is None or rank < held[0]:
                if held is not None:
                    unread.append(header[held[1]].strip())
                chosen[fld] = (rank, position)
            else:
                unread.append(label)
        labels = {fld: header[position].strip() for fld, (_, position) in chosen.items()}
        missing = [fld for fld in REQUIRED if fld not in chosen]
        if missing:
            problems.add(
                name,
                line,
                None,
                _missing_message(missing, "column", ambiguous)
                + f"; the header has: {', '.join(h.strip() for h in header) or 'nothing'}",
            )
            ok = False
        if not ok:
            return None
        self._note_columns(name, set(chosen), unread, labels)
        return {fld: position for fld, (_, position) in chosen.items()}

    def _note_columns(
        self, name: str, present: set[Field], unread: list[str], labels: dict[Field, str]
    ) -> None:
        self.texts.columns[name] = {fld.name: label for fld, label in labels.items()}
        if unread:
            self.unread[name] = unread
        for fld in (SYSTEM, DOC, SEG, EDITOR):
            if fld not in present:
                self.defaulted.setdefault(fld.name, []).append(name)

    def _read_jsonl(
        self, input_file: InputFile, problems: ProblemList, progress: Progress | None
    ) -> None:
        name = input_file.name
        n_lines = scan_text(input_file, problems)
        if n_lines is None:
            return
        # Keys of one line resolved once per distinct set of keys (a corpus repeats one).
        resolved: dict[tuple[str, ...], tuple[dict[Field, str], list[str], list[str]]] = {}
        present: set[Field] = set()
        unread: dict[str, None] = {}
        labels: dict[Field, str] = {}
        ordinal = 0
        for line, text in enumerate(iter_lines(input_file), 1):
            if progress and line % PROGRESS_EVERY == 0:
                progress(line, n_lines)
            if is_blank(text):
                continue
            ordinal += 1
            try:
                value = json.loads(text)
            except json.JSONDecodeError as error:
                problems.add(
                    name, line, None, f"not valid JSON: {error.msg} at column {error.colno}"
                )
                continue
            if not isinstance(value, dict):
                problems.add(name, line, None, "not a JSON object; every line is one {...} object")
                continue
            keys = tuple(value)
            if keys not in resolved:
                resolved[keys] = _resolve_keys(keys)
            chosen, line_unread, ambiguous = resolved[keys]
            missing = [fld for fld in REQUIRED if fld not in chosen]
            if missing:
                problems.add(name, line, None, _missing_message(missing, "key", ambiguous))
                continue
            row: dict[str, str] = {}
            ok = True
            for fld, key in chosen.items():
                item = value[key]
                if item is None:
                    row[fld.name] = ""
                elif isinstance(item, str):
                    row[fld.name] = item
                elif fld in (DOC, SEG) and isinstance(item, int) and not isinstance(item, bool):
                    row[fld.name] = str(item)
                else:
                    allowed = "a string or a whole number" if fld in (DOC, SEG) else "a string"
                    shown = json.dumps(item, ensure_ascii=False)[:40]
                    problems.add(name, line, key, f"{shown} is not {allowed}")
                    ok = False
            present.update(chosen)
            for fld, key in chosen.items():
                labels.setdefault(fld, key)
            unread.update(dict.fromkeys(line_unread))
            if ok:
                self._row(name, line, ordinal, row, problems, columns=chosen)
        if progress:
            progress(n_lines, n_lines)
        if not ordinal:
            problems.add(name, None, None, "empty file: no JSON lines")
            return
        self._note_columns(name, present, list(unread), labels)

    # --- One row ---------------------------------------------------------------------------

    def _row(
        self,
        name: str,
        line: int,
        ordinal: int,
        values: dict[str, str],
        problems: ProblemList,
        columns: dict[Field, str] | None = None,
    ) -> None:
        """Check one row and keep it. ``values``: field name -> the row's text, for the
        fields the file has; ``columns`` (JSONL, whose lines may spell keys differently):
        the key each field was read from on this line."""
        labels = self.texts.columns.get(name, {})

        def column(fld: Field) -> str:
            if columns is not None:
                return columns.get(fld, fld.name)
            return labels.get(fld.name, fld.name)

        def problem(fld: Field, message: str) -> None:
            problems.add(name, line, column(fld), message)

        if not self._language_pair(name, line, values, column):
            return
        ok = True
        texts: dict[str, str] = {}
        for fld, what in ((SRC, "source"), (MT, "MT output"), (PE, "post-edit")):
            message = text_problem(values[fld.name], what)
            if message:
                problem(fld, message)
                ok = False
            texts[fld.name] = values[fld.name]
        reference = values.get(REF.name, "")
        if is_blank(reference):
            reference = ""
        elif "\x00" in reference or len(reference) > MAX_TEXT_CHARS:
            problem(REF, text_problem(reference, "reference") or "")
            ok = False
        ids: dict[str, str] = {}
        for fld, what, default in (
            (SYSTEM, "system name", DEFAULT_SYSTEM),
            (DOC, "document id", TEST_SET_DOCUMENT),
            (SEG, "segment id", str(ordinal)),
            (EDITOR, "editor id", ""),
        ):
            if fld.name not in values:
                ids[fld.name] = default
                continue
            message = id_problem(values[fld.name], what)
            if message:
                problem(fld, message)
                ok = False
            else:
                # Interned: a file repeats its ids on every row.
                ids[fld.name] = sys.intern(values[fld.name].strip())
        if not ok:
            return
        segment = (ids[DOC.name], ids[SEG.name])
        system = ids[SYSTEM.name]
        origin = Origin(name, line, None)
        hint = "" if SEG.name in values else NUMBERED_ROWS_HINT
        if not self._same_segment(origin, segment, texts[SRC.name], reference, problem, hint):
            return
        output = (system, segment)
        stored = self.texts.outputs.get(output)
        if stored is None:
            self.texts.outputs[output] = (texts[MT.name], origin)
        elif stored[0] != texts[MT.name]:
            problem(
                MT,
                f"the MT output differs from the one on {_where(stored[1], name)} for system "
                f"{system}, document {segment[0]}, segment {segment[1]}; the rows of one output "
                f"(its post-edits by several editors) carry the same MT output{hint}",
            )
            return
        editor = ids[EDITOR.name]
        anonymous = not editor
        editors = self.editors.setdefault(output, {})
        if anonymous:
            number = self.anonymous.get(output, 0) + 1
            self.anonymous[output] = number
            editor = ANONYMOUS_EDITOR.format(number)
        if editor in editors:
            before = editors[editor]
            where = f"line {before[1]}" if before[0] == name else f"{before[0]} line {before[1]}"
            problem(
                EDITOR,
                f"editor {editor} already post-edited the output of system {system} on "
                f"document {segment[0]}, segment {segment[1]} on {where}; an editor edits each "
                "output once",
            )
            return
        editors[editor] = (name, line)
        self.parsed.output(system, segment, origin)
        self.texts.edits.append(
            _Edit(name, line, editor, system, segment, texts[PE.name], anonymous)
        )

    def _language_pair(self, name: str, line: int, values: dict[str, str], column) -> bool:
        """Record the row's languages, if the file names them; False for a row of another
        pair than the one chosen (ImportOptions.language_pair), which is skipped."""
        pair: tuple[str, ...] | None = None
        if PAIR.name in values and values[PAIR.name].strip():
            text = values[PAIR.name].strip()
            parts = [part for part in re.split(r"[-_]", text) if part.strip()]
            pair = tuple(parts) if len(parts) == 2 else (text,)
            where = column(PAIR)
        elif values.get(SRC_LANG.name, "").strip() or values.get(TGT_LANG.name, "").strip():
            pair = (values.get(SRC_LANG.name, "").strip(), values.get(TGT_LANG.name, "").strip())
            where = column(SRC_LANG)
        if pair is None:
            return True
        return self.parsed.language_pair(pair, Origin(name, line, where))

    def _same_segment(
        self, origin: Origin, segment: SegmentKey, source: str, reference: str, problem, hint: str
    ) -> bool:
        stored = self.texts.segments.get(segment)
        if stored is None:
            self.texts.segments[segment] = (source, reference, origin)
            return True
        for fld, given, first in ((SRC, source, stored[0]), (REF, reference, stored[1])):
            if given != first:
                what = "source" if fld is SRC else "reference"
                problem(
                    fld,
                    f"the {what} differs from the one on {_where(stored[2], origin.file)} for "
                    f"document {segment[0]}, segment {segment[1]}; the rows of one segment "
                    f"carry the same {what}{hint}",
                )
                return False
        return True

    # --- Building ---------------------------------------------------------------------------

    def finish(self) -> None:
        """HITs (one per system and run of consecutive segments of a document, slots in
        document order, the slots' group the run) and the judgments, in the order read."""
        parsed = self.parsed
        documents: dict[str, list[str]] = {}
        for document, segment in self.texts.segments:
            documents.setdefault(document, []).append(segment)
        systems = list(parsed.systems)
        hit_of: dict[tuple[str, SegmentKey], str] = {}
        run = 0
        for document, segment_ids in documents.items():
            ordered = sorted(segment_ids, key=_natural)
            start = 0
            for length in run_lengths(len(ordered), SEGMENTS_PER_RUN):
                segments = [(document, s) for s in ordered[start : start + length]]
                start += length
                run += 1
                for system in systems:
                    present = [s for s in segments if (system, s) in self.texts.outputs]
                    if not present:
                        continue
                    first, last = present[0][1], present[-1][1]
                    key = f"{run}\x1f{system}"
                    span = f"segment {first}" if first == last else f"segments {first} to {last}"
                    # No natural key across imports (external_id ""): a post-edit imported
                    # before is recognised by its editor and output (imports.py), which does
                    # not depend on how runs fall.
                    hit = parsed.hit(
                        key,
                        f"the HIT of system {system} on document {document}, {span}",
                        self.texts.outputs[(system, present[0])][1],
                        external_id="",
                    )
                    hit.group = run
                    for segment in present:
                        hit.slot(slot_key(SlotRole.SYSTEM.value, system, segment))
                        hit_of[(system, segment)] = key
        system_role = SlotRole.SYSTEM.value
        for edit in self.texts.edits:
            key = hit_of[(edit.system, edit.segment)]
            record = JudgmentRecord(
                worker=edit.editor,
                hit=key,
                slot=slot_key(system_role, edit.system, edit.segment),
                file=edit.file,
                line=edit.line,
            )
            added = parsed.add(record, parsed.hits[key], ProblemList())
            assert added, "an editor's second edit of an output is refused when read"
        self._notes()

    def _notes(self) -> None:
        notes = self.parsed.notes
        for name, columns in self.unread.items():
            # A corpus's own HTER column is not needed: HTER is computed from the texts with
            # the campaign's TER settings, like a collected campaign's.
            notes.append(
                f"{name}: column{'s' if len(columns) != 1 else ''} not read: {', '.join(columns)}"
            )
        files = self.defaulted
        if files.get(SYSTEM.name):
            notes.append(
                f"{', '.join(files[SYSTEM.name])}: no system column, so every MT output is "
                f'system "{DEFAULT_SYSTEM}"'
            )
        if files.get(DOC.name):
            notes.append(
                f"{', '.join(files[DOC.name])}: no doc_id column, so the segments are one "
                f'document, "{TEST_SET_DOCUMENT}"'
            )
        if files.get(SEG.name):
            notes.append(
                f"{', '.join(files[SEG.name])}: no seg_id column, so each row is a segment "
                "numbered by its place in the file (1, 2, ...)"
            )
        if files.get(EDITOR.name):
            notes.append(
                f"{', '.join(files[EDITOR.name])}: no editor column, so the first post-edit of "
                f'each output is by "{ANONYMOUS_EDITOR.format(1)}", a second one by '
                f'"{ANONYMOUS_EDITOR.format(2)}", and so on'
            )


def parse_post_edits(
    input_file: InputFile,
    parsed: ParsedJudgments,
    problems: ProblemList,
    progress: Progress | None = None,
    rows: PostEditRows | None = None,
) -> None:
    """Read one file of post-edits. The kind's ``read`` passes one :class:`PostEditRows` for
    every file of an import and calls :meth:`PostEditRows.finish` after the last; alone, this
    reads one file and finishes it."""
    if rows is not None:
        rows.read(input_file, problems, progress)
        return
    rows = PostEditRows(parsed)
    rows.read(input_file, problems, progress)
    rows.finish()


# --- Helpers ------------------------------------------------------------------------------------


def _first_line(input_file: InputFile) -> str:
    """The file's first non-blank line, as far as it decodes (scan_text reports bad bytes)."""
    with input_file.open() as stream:
        for number, raw in enumerate(iter(lambda: stream.readline(1 << 16), b""), 1):
            if number == 1 and raw.startswith(UTF8_BOM):
                raw = raw[len(UTF8_BOM) :]
            text = raw.decode("utf-8", errors="replace").strip()
            if text:
                return text
    return ""


def _split_tsv(line: str) -> list[str]:
    """A TSV line's fields: split on tabs, a pandas-quoted field unquoted (module docstring)."""
    return [_unquoted(value) if value[:1] == '"' else value for value in split_tabs(line)]


def _unquoted(value: str) -> str:
    """``"He said ""hi"" twice"`` -> ``He said "hi" twice``: wrapped in quotes, at least one
    doubled quote inside and no lone one. Anything else is text as it is (``"Yes," she
    said.``, ``"Yes."``)."""
    inner = value[1:-1]
    if len(value) >= 4 and value[-1] == '"' and '""' in inner:
        if '"' not in inner.replace('""', ""):
            return inner.replace('""', '"')
    return value


def _resolve_keys(keys: tuple[str, ...]) -> tuple[dict[Field, str], list[str], list[str]]:
    """A JSON line's keys: the key each field is read from (the best-ranked of its names),
    the keys not read, and the ambiguous ones among them."""
    chosen: dict[Field, tuple[int, str]] = {}
    unread: list[str] = []
    ambiguous: list[str] = []
    for key in keys:
        normal = normalise(key)
        found = _BY_NAME.get(normal)
        if found is None:
            if normal in _AMBIGUOUS:
                ambiguous.append(key)
            unread.append(key)
            continue
        fld, rank = found
        held = chosen.get(fld)
        if held is None or rank < held[0]:
            if held is not None:
                unread.append(held[1])
            chosen[fld] = (rank, key)
        else:
            unread.append(key)
    return {fld: key for fld, (_, key) in chosen.items()}, unread, ambiguous


def _missing_message(missing: list[Field], noun: str, ambiguous: list[str]) -> str:
    described = [
        f'"{fld.name}" ({fld.what}; also read as {", ".join(fld.names[1:])})' for fld in missing
    ]
    listed = described[0] if len(described) == 1 else ", ".join(described[:-1])
    if len(described) > 1:
        listed += f" and {described[-1]}"
    message = f"missing {noun}{'s' if len(missing) > 1 else ''} {listed}"
    if ambiguous:
        names = ", ".join(f'"{name}"' for name in ambiguous)
        message += (
            f"; {names} {'is' if len(ambiguous) == 1 else 'are'} not read, since corpora use "
            "such names for the MT output and for the post-edit alike: rename it mt or pe"
        )
    return message


def _where(origin: Origin, name: str) -> str:
    return f"line {origin.line}" if origin.file == name else f"{origin.file} line {origin.line}"


def _natural(segment: str) -> tuple:
    """Segment ids in the order the writer gives them positions (writer._natural): numeric
    ids numerically (2 before 10), then the others."""
    return (0, int(segment), "") if segment.isdigit() else (1, 0, segment)
