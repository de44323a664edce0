"""What every judgment format is parsed into, before the campaign checks and the writer.

A parser fills one :class:`ParsedJudgments` per import (several files may go into one) with
the rows a collected campaign has: segments, systems, HITs with their slots, and one
:class:`JudgmentRecord` per answer. The checks (``target.py``) and the writer (``writer.py``)
never look at a format again, as in the segment importers (``campaigns.importers.records``).

Keys, chosen so that the same thing read twice is the same row:

- a segment is ``(document, segment id)``; formats without documents use one document,
  :data:`TEST_SET_DOCUMENT`, since their segment ids are line numbers of one test set;
- a slot is ``(role, system, document, segment id)`` within its HIT: the judged output of
  ``system`` on that segment, shown in that role (``campaigns.models.SlotRole`` values);
- a HIT is ``HitRecord.key`` (the file's HITId, or a key the format builds for its
  ranking sets); an assignment is one worker on one HIT.

Every HIT also has a natural key across imports, ``HitRecord.external_id``, stored on its
assignments (``Assignment.platform_hit_id``, where a collected campaign keeps MTurk's HITId):
an assignment of the same worker on a HIT of the same natural key is already in the
campaign when a file is imported a second time, and is refused (``target.py``).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from campaigns.importers.judgments.columns import AssignmentRows, JudgmentColumns
from campaigns.importers.judgments.languages import pair_matches
from campaigns.importers.problems import ProblemList
from campaigns.importers.records import Origin
from campaigns.models import SlotRole

# The document of formats whose segment ids are line numbers of one test set.
TEST_SET_DOCUMENT = "testset"
# Judgment.client_duration_ms is a 32-bit column: about 24.8 days.
MAX_DURATION_MS = 2**31 - 1
# HitSlot.position is a small integer.
MAX_SLOTS_PER_HIT = 2**15 - 1

# Assignment.platform_hit_id, which holds a HIT's natural key, is 200 characters.
MAX_HIT_KEY_CHARS = 200

SlotKey = tuple[str, str, str, str]  # (role, system, document, segment id)
SegmentKey = tuple[str, str]  # (document, segment id)


def slot_key(role: str, system: str, segment: SegmentKey) -> SlotKey:
    return (role, system, segment[0], segment[1])


def natural_key(text: str) -> str:
    """``text`` as a HIT's natural key: itself when it fits ``Assignment.platform_hit_id``,
    else its start and a digest of the whole, so that the same text always gives the same
    key (a ranking set of five long system names on a long WMT08 task can be longer)."""
    if len(text) <= MAX_HIT_KEY_CHARS:
        return text
    tail = f"... sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:40]}"
    return text[: MAX_HIT_KEY_CHARS - len(tail)] + tail


@dataclass(slots=True)
class HitRecord:
    """One HIT: its slots in first-appearance order (position = index + 1).

    ``external_id`` is the HIT's natural key (see the module docstring): WMT's HITId as it
    is, or in formats without HIT ids what defines the HIT (an Appraise batch or annotator,
    a ranking set and its occurrence) after a word naming the format ("appraise batch 3"),
    so that keys of different formats never meet. ``key_field``: the column a repeat is
    reported on.
    """

    key: str
    label: str
    origin: Origin
    external_id: str = ""
    key_field: str | None = None
    # The slots' group (HitSlot.group): 0 for none; else a number within the import (a
    # post-editing run), stored after the campaign's highest group.
    group: int = 0
    slots: dict[SlotKey, int] = field(default_factory=dict)
    # The import's one copy of each slot key (shared by the HITs): a file of a million rows
    # then holds a key per distinct (role, system, segment), not one per row.
    keys: dict[SlotKey, SlotKey] | None = None

    def slot(self, key: SlotKey) -> SlotKey:
        if self.keys is not None:
            key = self.keys.setdefault(key, key)
        if key not in self.slots:
            self.slots[key] = len(self.slots) + 1
        return key


@dataclass(slots=True)
class JudgmentRecord:
    """One answer: a worker's score (raw or given z) or rank on one slot of one HIT."""

    worker: str
    hit: str
    slot: SlotKey
    file: str
    line: int
    score: float | None = None
    given_z: float | None = None
    rank: int | None = None
    seconds: float | None = None
    started_at: datetime | None = None


class ImportTexts(Protocol):
    """The texts of a format that carries them (post-edits). The judgment files of the other
    formats carry none: without this, sources, outputs, shown texts and judgment texts are
    stored empty."""

    def segment(self, key: SegmentKey) -> tuple[str, list[str]]:
        """The segment's source and references (main reference first)."""

    def output(self, system: str, segment: SegmentKey) -> str:
        """The system's output on the segment; also the shown text of its system slots."""

    def judgment(self, row: int) -> tuple[str, dict[str, Any]]:
        """Judgment.text and Judgment.details of the import's ``row``-th judgment (in the
        order of ``ParsedJudgments.judgments``)."""


@dataclass
class ParsedJudgments:
    """Everything read from the files of one import, in first-appearance order.

    ``language_pairs`` and ``modes`` record what the files say about the campaign (each with
    where it was first seen and on how many rows), so that one import holds one language pair
    and, for direct assessment, one assessment mode. ``ignored`` counts rows read but
    deliberately not imported, by reason; ``notes`` says what a person should know.
    """

    kind: str
    files: list[str] = field(default_factory=list)
    segments: dict[SegmentKey, Origin] = field(default_factory=dict)
    systems: dict[str, Origin] = field(default_factory=dict)
    hits: dict[str, HitRecord] = field(default_factory=dict)
    # By column (columns.py): a file of millions of rows in bounded memory (issue 11 item 6).
    judgments: JudgmentColumns = field(default_factory=lambda: JudgmentColumns(JudgmentRecord))
    language_pairs: dict[tuple[str, ...], tuple[Origin, int]] = field(default_factory=dict)
    modes: dict[str, Origin] = field(default_factory=dict)
    ignored: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    # (worker, HIT) -> the slot positions judged (a bit each) and the rows: the duplicate
    # check, at a bit per row rather than a dict entry (columns.AssignmentRows).
    judged: dict[tuple[str, str], AssignmentRows] = field(default_factory=dict)
    slot_keys: dict[SlotKey, SlotKey] = field(default_factory=dict)
    standardised: bool = False
    # Judgments whose time was too long to store (kept, without a time).
    too_long: int = 0
    # The one language pair to keep (ImportOptions.language_pair, as ISO 639-1 codes), for
    # files holding several: rows of other pairs are skipped, counted in ``other_pairs``.
    # None keeps every row (and one import must then hold one pair).
    selected_pair: tuple[str, str] | None = None
    other_pairs: dict[tuple[str, ...], tuple[Origin, int]] = field(default_factory=dict)
    # The reference system the importer names (ImportOptions.reference_system); the kind's
    # checks say which system is the reference (ranking: this, or WMT's "_ref" / "ref").
    reference_system: str = ""
    # Whose judgments the system table counts (ImportOptions.workers_counted; "" = not said):
    # the kind's checks decide (direct assessment: campaigns/kinds/direct_assessment/imports.py).
    workers_counted: str = ""
    # The texts, for formats that carry them (post-edits); None: stored empty.
    texts: ImportTexts | None = None

    def hit(
        self,
        key: str,
        label: str,
        origin: Origin,
        external_id: str,
        key_field: str | None = None,
    ) -> HitRecord:
        """The HIT of ``key``, created on first sight with its natural key ``external_id``."""
        record = self.hits.get(key)
        if record is None:
            record = self.hits[key] = HitRecord(
                key, label, origin, natural_key(external_id), key_field, keys=self.slot_keys
            )
        return record

    def output(self, system: str, segment: SegmentKey, origin: Origin) -> None:
        """Note that ``system`` has an output on ``segment`` (segments and systems are created
        from these)."""
        self.segments.setdefault(segment, origin)
        self.systems.setdefault(system, origin)

    def language_pair(self, pair: tuple[str, ...], origin: Origin) -> bool:
        """Record a row's language pair; False when the row is of another pair than the one
        selected (the parser then skips the row)."""
        if self.selected_pair is not None and not pair_matches(self.selected_pair, pair):
            first, count = self.other_pairs.get(pair, (origin, 0))
            self.other_pairs[pair] = (first, count + 1)
            return False
        first, count = self.language_pairs.get(pair, (origin, 0))
        self.language_pairs[pair] = (first, count + 1)
        return True

    def add(self, record: JudgmentRecord, hit: HitRecord, problems: ProblemList) -> bool:
        """Add one judgment unless the worker already judged that slot of that HIT (then a
        problem names both lines); True if added."""
        judged = self.judged.get((record.worker, record.hit))
        if judged is None:
            judged = self.judged[(record.worker, record.hit)] = AssignmentRows()
        position = hit.slots.get(record.slot)
        if position is None:
            record.slot = hit.slot(record.slot)
            position = hit.slots[record.slot]
        if judged.judged(position):
            role, system, _, segment = record.slot
            previous = self.judgments.record(self.judgments.row_of_slot(judged.rows, record.slot))
            where = f"line {previous.line}"
            if previous.file != record.file:
                where = f"{previous.file} {where}"
            problems.add(
                record.file,
                record.line,
                None,
                f"duplicate judgment: worker {record.worker} already judged the "
                f"{_ROLE_WORDS.get(role, role)} of system {system} on segment {segment} in "
                f"{hit.label} on {where}; a worker judges each item of a HIT once",
            )
            return False
        if record.seconds is not None and record.seconds * 1000 > MAX_DURATION_MS:
            record.seconds = None
            self.too_long += 1
        judged.mark(position, self.judgments.append(record))
        return True

    def workers(self) -> list[str]:
        return self.judgments.workers()

    def assignments(self) -> list[tuple[str, str]]:
        """(worker, HIT) pairs in first-appearance order."""
        return list(self.judged)


_ROLE_WORDS = {
    SlotRole.SYSTEM.value: "output",
    SlotRole.REPEAT.value: "repeat",
    SlotRole.BAD_REFERENCE.value: "bad reference",
    SlotRole.REFERENCE.value: "reference",
}
