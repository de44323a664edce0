"""Ranking sets of WMT's relative-ranking files as HITs (shared by the WMT08 and WMT10-12
layouts).

A row of these files is one annotator's ranking of the outputs of up to five systems for one
segment. The files carry no HIT ids, so the HITs are rebuilt from what was ranked: one HIT per
ranking set, i.e. per segment and set of systems shown, with one slot per system (in the order
first seen; the order each annotator saw is not kept). The annotators who ranked the same set
are the redundant workers of that HIT, one assignment each, so their ballots are of one set
(what Schulze combination and agreement per set need). WMT also showed some sets to the same
annotator again, for intra-annotator agreement: the annotator's second ranking of a set goes
to a second HIT of that set, and so on, since a worker has one assignment per HIT.

Outputs left unranked (-1 or an empty rank) are shown in the set but get no judgment.

A HIT's natural key is ``ranking set <document>/<segment>/<systems>#<occurrence>``; the
occurrence counts an annotator's rankings of the set within one import, so an annotator's
repeated rankings of a set belong in one import (split over two, the second import's first
ranking would be taken for the first's again and refused).
"""

from __future__ import annotations

from collections import Counter

from campaigns.importers.judgments.records import (
    JudgmentRecord,
    ParsedJudgments,
    SegmentKey,
    slot_key,
)
from campaigns.importers.judgments.validation import Checker, origin
from campaigns.models import SlotRole

UNRANKED = "outputs left unranked (-1 or empty)"


class RankingSets:
    """Turns ranked rows into HITs and judgments (one instance per import)."""

    def __init__(self, parsed: ParsedJudgments) -> None:
        self.parsed = parsed
        # (worker, segment, systems) -> how many rankings of that set the worker has given.
        self.seen: Counter[tuple] = Counter()

    def add(
        self,
        check: Checker,
        line: int,
        worker: str,
        segment: SegmentKey,
        shown: list[tuple[str, str, int | None]],
        seconds: float | None,
    ) -> None:
        """One row: ``shown`` lists (system, column, rank or None) in the row's order.

        The same system twice in one set is a problem (a set compares different systems).
        ``seconds``, the time spent on the whole set, is spread over its ranked outputs.
        """
        parsed = self.parsed
        columns: dict[str, str] = {}
        for system, column, _ in shown:
            if system in columns:
                check.problem(
                    line,
                    column,
                    f'system "{system}" is also in {columns[system]}; a ranking set compares '
                    "different systems",
                )
                return
            columns[system] = column
        ranked = [(system, rank) for system, _, rank in shown if rank is not None]
        if len(ranked) < len(shown):  # (a Counter keeps a key added with 0)
            parsed.ignored[UNRANKED] += len(shown) - len(ranked)
        if not ranked:
            return
        systems = tuple(sorted(columns))
        occurrence = self.seen[(worker, segment, systems)]
        self.seen[(worker, segment, systems)] += 1
        where = origin(check.file, line, None)
        for system in columns:
            parsed.output(system, segment, where)
        key = f"set {segment[0]}/{segment[1]}/{'|'.join(systems)}#{occurrence + 1}"
        label = f"the ranking set of segment {segment[1]} on line {line}"
        # The natural key (records.py): the set and the annotator's occurrence of it, so the
        # same file imported again is recognised, and other annotators' rankings of the set,
        # imported later, are not taken for a repeat (the check is per worker and HIT).
        hit = parsed.hit(key, label, where, f"ranking {key}")
        for system in columns:
            hit.slot(slot_key(SlotRole.SYSTEM.value, system, segment))
        share = None if seconds is None else seconds / len(ranked)
        for system, rank in ranked:
            record = JudgmentRecord(
                worker=worker,
                hit=key,
                slot=slot_key(SlotRole.SYSTEM.value, system, segment),
                file=check.file,
                line=line,
                rank=rank,
                seconds=share,
            )
            parsed.add(record, hit, check.problems)
