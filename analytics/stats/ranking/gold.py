"""Gold units: per-worker trust and the auto-takedown decision (002 section 4).

002 section 4.1: CrowdFlower mixes "gold units", items with known labels, into the work;
"workers are required to judge a minimum of four gold units and to be above an accuracy
threshold of 70%" to be trusted; "untrusted workers are automatically blocked ... and their
labels are filtered out"; "CF pauses a job (the auto-takedown feature) if workers are failing
too many gold units".  Section 4.2 defines the two ranking gold schemes on sets of N = 4:

- "best-only" (GOLD^b): "force rank '1' assignment for the gold translation";
- "best+worse" (GOLD^bw): "allow rank '1' or '2' for the gold and rank '3' or '4' for the
  ORACLE-worst (10k) translation".

A gold unit here is one ballot (one worker's ranking of one set) with at least one output
whose ``expected_rank`` the scheme checks; it is passed when every checked output passes:

- ``best_only``: outputs with expected rank 1 are checked; they pass with rank 1 (a tie at
  rank 1 counts, the interface allows ties; 002 notes that this is why best-only gold cannot
  catch workers who give everything the same rank).
- ``best_worst``: every output with an expected rank e is checked and passes when its rank
  is within ``m - 1`` of e, with m = min(margin, N // 2) (margin 2 by default).  For e = 1
  that is rank <= m, for the known worst e = N it is rank >= N - m + 1: for N = 4, "1 or 2"
  and "3 or 4" exactly as in 002; for N = 5, "1 or 2" and "4 or 5"; for N = 3 (m = 1) only
  the exact best and worst ranks.  Capping m at N // 2 keeps the accepted ranges of the best
  and the worst output from overlapping.

Trust (cumulative over all of a worker's gold units): "undecided" before ``min_gold`` units
(still allowed to work), then "trusted" if the share passed is >= ``min_accuracy``, else
"untrusted".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats.ranking.judgments import RankingJudgments

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "GoldScheme",
    "GoldUnits",
    "TrustStatus",
    "WorkerTrust",
    "gold_trust",
    "gold_units",
    "takedown_reason",
]

GoldScheme = Literal["best_only", "best_worst"]
TrustStatus = Literal["trusted", "untrusted", "undecided"]
_EPS = 1e-9  # accuracy thresholds are decimals (0.7); 7/10 must pass 0.7


@dataclass(frozen=True, eq=False)
class GoldUnits:
    """One element per gold unit (gold ballot), sorted by (worker, order)."""

    ballot: NDArray[np.int64]
    worker: NDArray[np.int64]  # index into judgments.workers
    order: NDArray[np.float64]
    correct: NDArray[np.bool_]

    def __len__(self) -> int:
        return int(self.ballot.shape[0])


def gold_units(
    judgments: RankingJudgments, scheme: GoldScheme = "best_only", *, margin: int = 2
) -> GoldUnits:
    """Every gold unit with pass/fail under ``scheme`` (module docstring)."""
    j = judgments
    e = j.expected_rank
    n = j.ballot_size[j.ballot]
    if scheme == "best_only":
        checked = e == 1
        ok = j.rank == 1
    elif scheme == "best_worst":
        if margin < 1:
            raise ValueError("margin must be >= 1")
        m = np.maximum(np.minimum(margin, n // 2), 1)
        checked = e > 0
        ok = np.abs(j.rank - e) <= m - 1
    else:
        raise ValueError(f"scheme must be 'best_only' or 'best_worst', got {scheme!r}")
    n_checked = np.bincount(j.ballot[checked], minlength=j.n_ballots)
    n_failed = np.bincount(j.ballot[checked & ~ok], minlength=j.n_ballots)
    ballots = np.flatnonzero(n_checked > 0)
    worker = j.ballot_worker[ballots]
    order = j.ballot_order[ballots]
    sort = np.lexsort((ballots, order, worker))
    ballots = ballots[sort]
    return GoldUnits(
        ballot=ballots,
        worker=worker[sort],
        order=order[sort],
        correct=n_failed[ballots] == 0,
    )


@dataclass(frozen=True, eq=False)
class WorkerTrust:
    """Per-worker gold statistics and trust, aligned to ``workers`` (sorted ids)."""

    workers: NDArray[np.int64]
    gold_seen: NDArray[np.int64]
    gold_correct: NDArray[np.int64]
    accuracy: NDArray[np.float64]  # NaN before any gold unit
    status: NDArray[np.str_]  # "trusted" / "untrusted" / "undecided"
    scheme: GoldScheme
    min_gold: int
    min_accuracy: float

    @property
    def trusted(self) -> NDArray[np.bool_]:
        return self.status == "trusted"

    @property
    def untrusted(self) -> NDArray[np.bool_]:
        return self.status == "untrusted"

    @property
    def undecided(self) -> NDArray[np.bool_]:
        return self.status == "undecided"

    @property
    def allowed(self) -> NDArray[np.bool_]:
        """May keep working and count in the results: trusted or not yet decided."""
        return ~self.untrusted


def gold_trust(
    judgments: RankingJudgments,
    scheme: GoldScheme = "best_only",
    *,
    min_gold: int = 4,
    min_accuracy: float = 0.7,
    margin: int = 2,
) -> WorkerTrust:
    """Trust per worker from gold units (002 section 4.1: at least 4 units, 70% right)."""
    if min_gold < 1:
        raise ValueError("min_gold must be >= 1")
    units = gold_units(judgments, scheme, margin=margin)
    nw = judgments.n_workers
    seen = np.bincount(units.worker, minlength=nw).astype(np.int64)
    correct = np.bincount(units.worker[units.correct], minlength=nw).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(seen > 0, correct / np.maximum(seen, 1), np.nan)
    decided = seen >= min_gold
    passes = correct >= min_accuracy * seen - _EPS
    status = np.where(decided, np.where(passes, "trusted", "untrusted"), "undecided")
    return WorkerTrust(
        workers=judgments.workers,
        gold_seen=seen,
        gold_correct=correct,
        accuracy=accuracy,
        status=status.astype(np.str_),
        scheme=scheme,
        min_gold=min_gold,
        min_accuracy=float(min_accuracy),
    )


def takedown_reason(
    trust: WorkerTrust, *, threshold: float | None, min_workers: int = 10
) -> str | None:
    """Why the campaign should be paused (002's auto-takedown), or None to keep it running.

    Pause when, among the workers whose trust is decided (trusted or untrusted), there are at
    least ``min_workers`` and the share of untrusted ones is strictly above ``threshold``.
    Undecided workers do not count either way: they have not seen enough gold to fail it.
    ``threshold`` None means never pause automatically.
    """
    if threshold is None:
        return None
    untrusted = int(np.count_nonzero(trust.untrusted))
    decided = untrusted + int(np.count_nonzero(trust.trusted))
    if decided == 0 or decided < min_workers:
        return None
    share = untrusted / decided
    if share <= threshold:
        return None
    return (
        f"{untrusted} of {decided} workers with at least {trust.min_gold} gold units failed "
        f"them (accuracy below {trust.min_accuracy:.0%}): {share:.0%} untrusted, above the "
        f"{threshold:.0%} limit"
    )
