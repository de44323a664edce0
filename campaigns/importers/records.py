"""The parsed import, the same for every format: what the checks look at and the writer writes.

Parsers fill a ParsedImport and report what is wrong with each file; the campaign checks
(checks.py) and the writer (writer.py) never look at a format again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Origin:
    """Where something came from, to name it in a problem."""

    file: str
    line: int | None
    # The field a problem about this thing names: "seg_id", "system", a JSON path such as
    # "[0].items[3].itemID", or None for a whole line (WMT plain text).
    field: str | None = None
    path: str | None = None  # JSON path of the object (Appraise), e.g. "[0].items[3]"

    def describe(self) -> str:
        """How another problem points here: "line 3" or "[0].items[3] (line 12)"."""
        if self.path:
            return f"{self.path} (line {self.line})" if self.line else self.path
        return f"line {self.line}" if self.line else self.file


@dataclass(slots=True)
class SegmentRecord:
    doc_id: str
    seg_id: str
    source: str
    references: list[str]
    origin: Origin
    # Positions are decided when parsing is over (first appearance, or itemID order).
    order_key: tuple = ()
    # Where the source and the (first) reference were read, when that is not ``origin``: a
    # problem about a stored segment's texts names them (the field "source", the reference
    # file's line).
    source_origin: Origin | None = None
    reference_origin: Origin | None = None


@dataclass(slots=True)
class OutputRecord:
    text: str
    origin: Origin


@dataclass(slots=True)
class SystemRecord:
    name: str
    origin: Origin
    is_reference: bool = False


@dataclass
class ParsedImport:
    """Everything read from the files of one import, in first-appearance order."""

    files: list[str] = field(default_factory=list)
    # doc_id -> segment keys in position order (filled by finish_positions()).
    documents: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    segments: dict[tuple[str, str], SegmentRecord] = field(default_factory=dict)
    # (doc_id, seg_id, system) -> output; or, when ``output_texts`` is set, the line of the
    # output only (its text is read again when written: a big file's texts are never all
    # in memory).
    outputs: dict[tuple[str, str, str], OutputRecord | int] = field(default_factory=dict)
    # The outputs' texts, read again from the files: ((doc_id, seg_id, system), text) in the
    # order of ``outputs``. None: the texts are the OutputRecords' own.
    output_texts: Callable[[], Iterator[tuple[tuple[str, str, str], str]]] | None = None
    systems: dict[str, SystemRecord] = field(default_factory=dict)
    # Systems whose outputs could not all be read (e.g. a file of the wrong length): the
    # missing-output check skips them instead of reporting every line again.
    incomplete_systems: set[str] = field(default_factory=set)
    # Set when rows were rejected: the missing-output check would only repeat those problems.
    rows_rejected: bool = False
    # The field named by "missing output" problems (at the segment's first line).
    output_field: str | None = None
    # Items read but deliberately not imported, by kind (Appraise QC items and the like).
    ignored: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def add_segment(self, record: SegmentRecord) -> None:
        key = (record.doc_id, record.seg_id)
        self.segments[key] = record
        self.documents.setdefault(record.doc_id, []).append(key)

    def add_system(self, name: str, origin: Origin, *, is_reference: bool = False) -> None:
        if name not in self.systems:
            self.systems[name] = SystemRecord(name, origin, is_reference)

    def sort_positions(self) -> None:
        """Order each document's segments by their order_key (stable: ties keep file order)."""
        for doc_id, keys in self.documents.items():
            if any(self.segments[key].order_key for key in keys):
                self.documents[doc_id] = sorted(keys, key=lambda k: self.segments[k].order_key)

    def output_items(self) -> Iterator[tuple[tuple[str, str, str], str]]:
        """Every output's key and text, in ``outputs`` order."""
        if self.output_texts is not None:
            yield from self.output_texts()
            return
        for key, record in self.outputs.items():
            assert isinstance(record, OutputRecord)
            yield key, record.text
