"""WMT15-16's pairwise relative-ranking files, put back together into ranking sets.

From WMT15, annotators ranked five *distinct outputs* and every system whose output was one
of them got its rank; WMT's ``xml2csv.py`` (github.com/cfedermann/wmt16, scripts/) then wrote
each ranking as its pairwise comparisons, one row per pair of systems, the rows of one
ranking sharing a ``rankingID``::

    srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID
    deu,eng,1020,1020,judge5,newstest2016.jhu-syntax.4517.de-en,4,newstest2016.jhu-pbmt.4530.de-en,3,181

The rows of one ``rankingID`` are one annotator's ranking of one segment, so they become one
ranking set here (a HIT with one slot per system, as the 5-way rows do): every system
compared in them, with its rank. Pairing the systems of the set again gives back exactly the
file's pairs (the file holds every pair of the ranking), and the set keeps what agreement and
Schulze combination need. WMT's "collapsed" files (``data/collapsed/``) join the systems of
one output with ``+``; they are kept as one name each (import the expanded files to score
systems, as WMT did).

Checked: a ranking's rows agree on the judge, the segment and the language pair, a system
has one rank within a ranking, and a pair compares two different systems.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campaigns.importers.judgments.ranking import RankingSets
from campaigns.importers.judgments.records import TEST_SET_DOCUMENT, ParsedJudgments
from campaigns.importers.judgments.validation import Checker, origin

__all__ = ["PairwiseRankings"]

UNRANKED = ("", "-1")


@dataclass
class _Ranking:
    """The rows of one rankingID read so far."""

    line: int
    worker: str
    segment: str
    pair: tuple[str, str]
    # system -> (rank or None, the column it was first read from, its line)
    ranks: dict[str, tuple[int | None, str, int]] = field(default_factory=dict)
    broken: bool = False


class PairwiseRankings:
    """Collects one file's pairwise rows by rankingID, then adds each ranking as a set."""

    def __init__(
        self, check: Checker, parsed: ParsedJudgments, sets: RankingSets, shown: dict[str, str]
    ) -> None:
        self.check = check
        self.parsed = parsed
        self.sets = sets
        self.shown = shown
        self.rankings: dict[str, _Ranking] = {}

    def _name(self, column: str) -> str:
        return self.shown.get(column, column)

    def row(self, line: int, fields: dict[str, str]) -> None:
        check, parsed = self.check, self.parsed
        pair = (fields["srclang"].strip(), fields["trglang"].strip())
        # A row of another pair than the one chosen (option language_pair) is skipped.
        if not parsed.language_pair(pair, origin(check.file, line, "srclang")):
            return
        judge = self._name("judgeId")
        ranking_id = check.identifier(
            line, self._name("rankingID"), fields["rankingID"], "ranking (rankingID)"
        )
        segment = check.identifier(line, "srcIndex", fields["srcIndex"], "segment (srcIndex)")
        worker = check.identifier(line, judge, fields["judgeId"], f"judge ({judge})")
        systems: list[tuple[str, int | None, str]] = []
        ok = True
        for number in (1, 2):
            id_column = self._name(f"system{number}Id")
            rank_column = self._name(f"system{number}rank")
            rank_text = fields[f"system{number}rank"]
            name = check.identifier(line, id_column, fields[f"system{number}Id"], "system")
            rank = check.rank(line, rank_column, rank_text)
            if name is None or (rank is None and rank_text.strip() not in UNRANKED):
                ok = False
                continue
            systems.append((name, rank, id_column))
        if ok and systems[0][0] == systems[1][0]:
            check.problem(
                line,
                systems[1][2],
                f'system "{systems[0][0]}" is compared with itself; a pair compares two '
                "different systems",
            )
            ok = False
        if ranking_id is None or segment is None or worker is None or not ok:
            if ranking_id is not None and ranking_id in self.rankings:
                self.rankings[ranking_id].broken = True
            return
        ranking = self.rankings.get(ranking_id)
        if ranking is None:
            ranking = self.rankings[ranking_id] = _Ranking(line, worker, segment, pair)
        elif (ranking.worker, ranking.segment, ranking.pair) != (worker, segment, pair):
            check.problem(
                line,
                self._name("rankingID"),
                f"ranking {ranking_id} is of judge {ranking.worker}, segment {ranking.segment} "
                f"and {'-'.join(ranking.pair)} on line {ranking.line}, and here of judge "
                f"{worker}, segment {segment} and {'-'.join(pair)}; the rows of one ranking "
                "share them",
            )
            ranking.broken = True
            return
        for name, rank, column in systems:
            known = ranking.ranks.get(name)
            if known is None:
                ranking.ranks[name] = (rank, column, line)
            elif known[0] != rank:
                check.problem(
                    line,
                    column,
                    f'system "{name}" has rank {_rank_text(rank)} here and '
                    f"{_rank_text(known[0])} on line {known[2]} in the same ranking "
                    f"{ranking_id}; a system has one rank in a ranking",
                )
                ranking.broken = True

    def finish(self) -> None:
        """Add every complete ranking as a ranking set, in the order first seen."""
        for ranking in self.rankings.values():
            if ranking.broken:
                continue
            shown = [(name, column, rank) for name, (rank, column, _) in ranking.ranks.items()]
            self.sets.add(
                self.check,
                ranking.line,
                ranking.worker,
                (TEST_SET_DOCUMENT, ranking.segment),
                shown,
                None,
            )
        self.rankings.clear()


def _rank_text(rank: int | None) -> str:
    return "-1 (unranked)" if rank is None else str(rank)
