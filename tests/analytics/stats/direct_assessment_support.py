"""What the direct-assessment statistics tests share (test_direct_assessment_*.py): ``Builder``,
which assembles DAJudgments row by row for small hand-made cases, and ``REL``, the tight
tolerance of their expectations (exact formulas, not simulations)."""

from __future__ import annotations

from dataclasses import dataclass, field

from analytics.stats.direct_assessment import DAJudgments

REL = 1e-12  # tight tolerance: expectations are exact formulas, not simulations


# ------------------------------------------------------------------------------ builder
@dataclass
class Builder:
    """Assemble DAJudgments row by row for small hand-made cases (test helper only)."""

    rows: list[dict] = field(default_factory=list)
    _slot: int = 0

    def add(
        self,
        worker: int,
        role: str,
        score: float,
        *,
        system: int = -1,
        item: int = -1,
        pair: int = -1,
        assignment: int | None = None,
        seconds: float = float("nan"),
    ) -> int:
        self._slot += 1
        self.rows.append(
            dict(
                worker=worker,
                assignment=worker if assignment is None else assignment,
                slot=self._slot,
                role=role,
                system=system,
                item=item if item >= 0 else 10_000 + self._slot,
                pair_slot=pair,
                score=score,
                seconds=seconds,
            )
        )
        return self._slot

    def bad_pairs(self, worker: int, pairs: list[tuple[float, float]], system: int = 0) -> None:
        """(source output score, bad reference score) pairs."""
        for original, bad in pairs:
            s = self.add(worker, "system", original, system=system)
            self.add(worker, "bad_reference", bad, pair=s)

    def repeat_pairs(self, worker: int, pairs: list[tuple[float, float]], system: int = 0) -> None:
        """(first score, repeat score) pairs."""
        for first, again in pairs:
            s = self.add(worker, "system", first, system=system)
            self.add(worker, "repeat", again, system=system, pair=s)

    def build(self) -> DAJudgments:
        cols = {k: [r[k] for r in self.rows] for k in self.rows[0]} if self.rows else {}
        return DAJudgments(**cols)
