"""Appraise batch files (the batches.json of Appraise's direct-assessment and document tasks).

A batch file is a JSON list of tasks, ``[{"items": [...], "task": {...}}, ...]``. Each item has
itemID, itemType, sourceID, sourceText, targetID, targetText and, in document-level batches,
documentID and isCompleteDocument. What is imported, and what is deliberately not, is listed in
docs/import-formats.md; in short:

- a TGT item is one output: documentID -> document, itemID -> segment id, sourceText -> source,
  targetID -> system, targetText -> output. A targetID "A+B" (Appraise's merge of identical
  outputs of several systems) is one output for each of A and B.
- BAD, CHK and REF items are Appraise's own quality control and are not imported as outputs
  (evalsite builds its own), but they are counted and reported. A REF item's targetText is the
  reference of its segment.
- outputs of a reference system (targetID translator-<X>, the prefix of Appraise's
  create_wmt21/22 scripts, or ref<X> / <prefix>.ref<X> as in WMT23 batches) are imported as a
  reference system and their text is also used as the segment's reference.
- items with isCompleteDocument true (a whole document repeated as one item) and tutorial items
  (an "mqm" object with a "tutorial") are counted and skipped.
"""

from __future__ import annotations

import bisect
import json
import json.decoder
import json.scanner
import re
from collections import Counter
from typing import Any

from campaigns.importers.context import ParseContext, id_problem, text_problem
from campaigns.importers.problems import ProblemList
from campaigns.importers.reading import InputFile, decode
from campaigns.importers.records import Origin, OutputRecord, ParsedImport, SegmentRecord

OUTPUT_TYPE = "TGT"
QC_TYPES = ("BAD", "CHK", "REF")
REFERENCE_SYSTEM = re.compile(r"^translator-.+$|(^|\.)ref[A-Za-z0-9]?$")
INTEGER = re.compile(r"^-?\d+$")


class _Positioned(dict):
    """A JSON object that remembers where it starts in the text."""

    __slots__ = ("offset",)


def _positioned_decoder() -> json.JSONDecoder:
    """A JSON decoder whose objects carry their offset, for line numbers in problems.

    It uses the json module's pure-Python scanner (strings are still decoded in C): about
    1 s for a 40 MB batch file.
    """
    decoder = json.JSONDecoder()

    def parse_object(s_and_end, *args):
        value, end = json.decoder.JSONObject(s_and_end, *args)
        positioned = _Positioned(value)
        positioned.offset = s_and_end[1] - 1
        return positioned, end

    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    return decoder


def parse_appraise(
    input_file: InputFile, context: ParseContext, parsed: ParsedImport, problems: ProblemList
) -> None:
    parsed.files.append(input_file.name)
    text = decode(input_file, problems)
    if text is None:
        return
    try:
        data = _positioned_decoder().decode(text)
    except json.JSONDecodeError as error:
        problems.add(
            input_file.name,
            error.lineno,
            None,
            f"not valid JSON: {error.msg} at column {error.colno}",
        )
        return
    _BatchReader(input_file.name, text, context, parsed, problems).read(data)


class _BatchReader:
    def __init__(
        self,
        name: str,
        text: str,
        context: ParseContext,
        parsed: ParsedImport,
        problems: ProblemList,
    ) -> None:
        self.name = name
        self.context = context
        self.parsed = parsed
        self.problems = problems
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        # (doc, seg) -> (sourceText, origin) of the first item naming the segment, any type.
        self.sources: dict[tuple[str, str], tuple[str, Origin]] = {}
        self.ref_items: dict[tuple[str, str], tuple[str, Origin]] = {}
        self.ref_system_texts: dict[tuple[str, str], dict[str, str]] = {}
        self.ignored: Counter[str] = Counter()
        self.merged = 0

    def line(self, value: Any) -> int | None:
        offset = getattr(value, "offset", None)
        if offset is None:
            return None
        return bisect.bisect_left(self._newlines, offset) + 1

    def problem(self, value: Any, field: str | None, message: str) -> None:
        self.problems.add(self.name, self.line(value), field, message)

    def read(self, data: Any) -> None:
        if not isinstance(data, list):
            self.problem(
                data,
                None,
                "not an Appraise batch file: expected a JSON list of tasks, each "
                '{"items": [...], "task": {...}}',
            )
            return
        for t, task in enumerate(data):
            if not isinstance(task, dict) or not isinstance(task.get("items"), list):
                self.problem(
                    task,
                    f"[{t}].items" if isinstance(task, dict) else f"[{t}]",
                    'every task needs an "items" list',
                )
                self.parsed.rows_rejected = True
                continue
            for i, item in enumerate(task["items"]):
                self.item(item, f"[{t}].items[{i}]")
        self.finish()

    # --- one item -----------------------------------------------------------------------

    def item(self, item: Any, path: str) -> None:
        if not isinstance(item, dict):
            self.problem(item, path, "not a JSON object; every item is one {...} object")
            self.parsed.rows_rejected = True
            return
        if item.get("isCompleteDocument") is True:
            self.ignored["document"] += 1
            return
        mqm = item.get("mqm")
        if isinstance(mqm, dict) and "tutorial" in mqm:
            self.ignored["tutorial"] += 1
            return

        item_type = item.get("itemType")
        if item_type != OUTPUT_TYPE and item_type not in QC_TYPES:
            shown = json.dumps(item_type, ensure_ascii=False)[:40] if "itemType" in item else None
            self.problem(
                item,
                f"{path}.itemType",
                (f"unknown itemType {shown}" if shown else "missing itemType")
                + "; Appraise items are TGT (a system output) or BAD, CHK, REF (quality control)",
            )
            self.parsed.rows_rejected = True
            return

        key = self.segment_key(item, path)
        source = self.string(item, path, "sourceText")
        if key is None or source is None:
            self.parsed.rows_rejected = True
            return
        origin = Origin(self.name, self.line(item), f"{path}.itemID", path)
        first = self.sources.get(key)
        if first is None:
            self.sources[key] = (source, origin)
            message = text_problem(source, "source")
            if message:
                self.problem(item, f"{path}.sourceText", message)
        elif first[0] != source:
            self.problem(
                item,
                f"{path}.sourceText",
                f"doc {key[0]} item {key[1]} has a different sourceText in "
                f"{first[1].describe()}; every item of one segment must have the same source",
            )

        if item_type == "REF":
            self.ignored["REF"] += 1
            self.reference_item(item, path, key, origin)
        elif item_type in QC_TYPES:
            self.ignored[item_type] += 1
        else:
            self.output_item(item, path, key, source, origin)

    def segment_key(self, item: dict, path: str) -> tuple[str, str] | None:
        item_id = item.get("itemID")
        if isinstance(item_id, int) and not isinstance(item_id, bool):
            seg_id = str(item_id)
        elif isinstance(item_id, str) and not id_problem(item_id, "itemID"):
            seg_id = item_id
        else:
            self.problem(
                item,
                f"{path}.itemID",
                "missing itemID" if item_id is None else "itemID must be a number or a string",
            )
            return None

        if "documentID" in item:
            document = item["documentID"]
            field = "documentID"
        else:
            document = item.get("sourceID")  # sentence-level batches: one document per source
            field = "sourceID"
        if isinstance(document, int) and not isinstance(document, bool):
            document = str(document)
        if not isinstance(document, str):
            self.problem(
                item,
                f"{path}.documentID",
                "missing documentID (and no sourceID to name the document by)"
                if document is None
                else "documentID must be a string",
            )
            return None
        # WMT23-style ids carry markers after '#' ("doc#ONLINE-Y#bad4"): the document is the
        # part before the first '#'.
        doc_id = document.split("#", 1)[0]
        message = id_problem(doc_id, "document id")
        if message:
            self.problem(item, f"{path}.{field}", message)
            return None
        return (doc_id, seg_id)

    def string(self, item: dict, path: str, key: str) -> str | None:
        value = item.get(key)
        if isinstance(value, str):
            return value
        self.problem(
            item,
            f"{path}.{key}",
            f"missing {key}" if value is None else f"{key} must be a string",
        )
        return None

    def reference_item(self, item: dict, path: str, key: tuple[str, str], origin: Origin) -> None:
        text = self.string(item, path, "targetText")
        if text is None:
            return
        message = text_problem(text, "reference")
        if message:
            self.problem(item, f"{path}.targetText", message)
            return
        first = self.ref_items.get(key)
        if first is None:
            self.ref_items[key] = (text, origin)
        elif first[0] != text:
            self.problem(
                item,
                f"{path}.targetText",
                f"doc {key[0]} item {key[1]} has a different REF text in {first[1].describe()}",
            )

    def output_item(
        self, item: dict, path: str, key: tuple[str, str], source: str, origin: Origin
    ) -> None:
        target_id = self.string(item, path, "targetID")
        text = self.string(item, path, "targetText")
        if target_id is None or text is None:
            self.parsed.rows_rejected = True
            return
        systems = target_id.split("+")
        for system in systems:
            message = id_problem(system, "system name")
            if message:
                self.problem(item, f"{path}.targetID", message)
                self.parsed.rows_rejected = True
                return
        if key not in self.parsed.segments:
            self.parsed.add_segment(
                SegmentRecord(
                    doc_id=key[0],
                    seg_id=key[1],
                    source=source,
                    references=[],
                    origin=origin,
                    source_origin=Origin(origin.file, origin.line, f"{path}.sourceText", path),
                )
            )
        message = text_problem(text, "output")
        if message:
            self.problem(item, f"{path}.targetText", message)
        for system in systems:
            is_reference = bool(REFERENCE_SYSTEM.search(system))
            self.parsed.add_system(
                system,
                Origin(self.name, origin.line, f"{path}.targetID", path),
                is_reference=is_reference,
            )
            output_key = (key[0], key[1], system)
            previous = self.parsed.outputs.get(output_key)
            if previous is not None:
                if previous.text == text:
                    self.merged += 1
                else:
                    self.problem(
                        item,
                        f"{path}.targetText",
                        f"doc {key[0]} item {key[1]} system {system} has a different targetText "
                        f"in {previous.origin.describe()}; an item repeated across tasks must "
                        "have the same text",
                    )
                continue
            self.parsed.outputs[output_key] = OutputRecord(text, origin)
            if is_reference:
                self.ref_system_texts.setdefault(key, {})[system] = text

    # --- after the last item ------------------------------------------------------------

    def finish(self) -> None:
        parsed = self.parsed
        have_references = bool(self.ref_items) or bool(self.ref_system_texts)
        missing = 0
        for key, segment in parsed.segments.items():
            texts = []
            if key in self.ref_items:
                text, ref = self.ref_items[key]
                texts.append(text)
                segment.reference_origin = Origin(ref.file, ref.line, f"{ref.path}.targetText")
            for _, text in sorted(self.ref_system_texts.get(key, {}).items()):
                texts.append(text)
            segment.references = list(dict.fromkeys(texts))  # unique, in order
            if not segment.references and self.context.needs_reference:
                missing += 1
                if have_references:
                    self.problems.add(
                        self.name,
                        segment.origin.line,
                        segment.origin.path,
                        f"no reference for doc {key[0]} item {key[1]}: no REF item and no "
                        f"reference-system output; a {self.context.kind_label} campaign needs a "
                        "reference for every segment",
                    )
        if missing and not have_references:
            self.problems.add(
                self.name,
                None,
                None,
                "no reference text in this batch (Appraise puts references in REF items, or in "
                "the outputs of a reference system such as translator-A or refA); a "
                f"{self.context.kind_label} campaign needs a reference for every segment",
            )

        # Positions: Appraise shuffles items, so a document whose item ids are all numbers is
        # ordered by them; otherwise by first appearance.
        for keys in parsed.documents.values():
            if all(INTEGER.match(seg_id) for _, seg_id in keys):
                for key in keys:
                    parsed.segments[key].order_key = (int(key[1]),)
        parsed.sort_positions()

        qc = {kind: self.ignored[kind] for kind in QC_TYPES if self.ignored[kind]}
        for kind, count in qc.items():
            parsed.ignored[f"Appraise {kind} items"] += count
        if qc:
            total = sum(qc.values())
            detail = ", ".join(f"{kind} {count}" for kind, count in qc.items())
            parsed.notes.append(
                f"ignored {total} Appraise quality-control {_items(total)} ({detail}): evalsite "
                "builds its own"
                + ("; REF items gave the segments' references" if self.ignored["REF"] else "")
            )
        if self.ignored["document"]:
            count = self.ignored["document"]
            parsed.ignored["Appraise whole-document items"] += count
            parsed.notes.append(
                f"ignored {count} whole-document {_items(count)} (isCompleteDocument): "
                "evalsite shows documents from their segments"
            )
        if self.ignored["tutorial"]:
            count = self.ignored["tutorial"]
            parsed.ignored["Appraise tutorial items"] += count
            parsed.notes.append(f"ignored {count} Appraise tutorial {_items(count)}")
        if self.merged:
            parsed.notes.append(
                f"merged {self.merged} repeated {_items(self.merged)} (the same output in "
                "several tasks)"
            )
        if parsed.systems and any(s.is_reference for s in parsed.systems.values()):
            names = ", ".join(n for n, s in parsed.systems.items() if s.is_reference)
            parsed.notes.append(
                f"imported {names} as reference systems; their text is also the reference"
            )


def _items(count: int) -> str:
    return "item" if count == 1 else "items"
