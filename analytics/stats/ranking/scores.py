"""System scores from pairwise comparisons: win ratios, Expected Wins, Bradley-Terry.

All three are functions of two m x m count matrices over the m systems (:class:`PairCounts`):
``wins[i, j]`` = comparisons in which system i's output was ranked better than system j's,
``ties[i, j]`` (symmetric) = comparisons in which they were tied.  Pairs involving a non-system
output (a gold translation, negative system id) are not counted.

- Win ratio (METHODS.md section 1): the share of a system's comparisons that it wins, in
  three variants, each a rule for ties:

  * ``"better_or_equal"``: (wins + ties) / all comparisons, ties counting as wins (000, WMT08:
    "≥ others");
  * ``"better"``: wins / all comparisons (002 section 5.2: "the average number of times that
    a system was judged better than any other system"), ties in the denominator only;
  * ``"decisive"``: wins / (wins + losses), ties left out of numerator and denominator:
    WMT12's official "> others" (Callison-Burch et al. 2012, "Findings of the 2012 Workshop
    on Statistical Machine Translation", section 3.1).

  A system with no comparison that counts (none at all; for "decisive", only ties) has NaN.
- Expected Wins (WMT12-13: Koehn 2012, "Simulating human judgment in machine translation
  evaluation campaigns", IWSLT; Bojar et al. 2013, "Findings of the 2013 Workshop on
  Statistical Machine Translation", section 3): ties are ignored and each opponent counts
  equally, whatever the number of comparisons against it::

      score(S_i) = 1/|{S_j}| * sum_{j != i} win(S_i, S_j) / (win(S_i, S_j) + win(S_j, S_i))

  with |{S_j}| = m - 1 other systems.  An opponent never decisively compared with S_i has an
  undefined term; like the reference implementation of the WMT13/14 organisers
  (keisks/wmt-trueskill, src/infer_EW.py, which catches the ZeroDivisionError and adds
  nothing) it contributes 0 and still counts in m - 1.
- Bradley-Terry (Bradley & Terry 1952): P(i beats j) = e^θi / (e^θi + e^θj), fitted by
  maximum likelihood with choix's I-LSR (Maystre & Grossglauser 2015) on the dense win
  matrix.  Ties are either split as half a win for each side (``ties="half"``, the default:
  a tie is evidence that two systems are close, and dropping it would treat a system that
  mostly ties the best system like one never compared with it) or dropped (``ties="drop"``).
  θ is centred (mean 0, choix's convention) so it is identified.  ``alpha`` is choix's
  regularisation (added to every transition rate of the LSR Markov chain): a small positive
  default keeps the strength of a system that never lost finite, which matters in bootstrap
  replicates of small campaigns and is negligible at campaign sizes; pass 0 for the plain MLE.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.ranking.judgments import BETTER, TIE, Pairs

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16; choix
# imports scipy).
choix = lazy_module("choix")

__all__ = [
    "DEFAULT_BT_ALPHA",
    "TIE_RULES",
    "BTTies",
    "PairCounts",
    "SystemScores",
    "TieRule",
    "bradley_terry",
    "competition_ranks",
    "expected_wins",
    "pair_counts",
    "win_ratios",
]

TieRule = Literal["better_or_equal", "better", "decisive"]
TIE_RULES: tuple[str, ...] = ("better_or_equal", "better", "decisive")
BTTies = Literal["half", "drop"]
DEFAULT_BT_ALPHA = 0.01


@dataclass(frozen=True, eq=False)
class PairCounts:
    """Pairwise outcome counts between m systems (``systems`` sorted ids; matrices aligned)."""

    systems: NDArray[np.int64]
    wins: NDArray[np.float64]  # wins[i, j]: i ranked better than j
    ties: NDArray[np.float64]  # symmetric; diagonal 0

    @property
    def comparisons(self) -> NDArray[np.float64]:
        """n[i, j] = all comparisons between i and j (symmetric)."""
        return self.wins + self.wins.T + self.ties


@dataclass(frozen=True, eq=False)
class SystemScores:
    """One score per system, aligned to ``systems`` (sorted ids), higher = better.

    ``rank`` is 1 + the number of systems with a strictly higher score (ties share a rank);
    ``order`` lists system positions best first (ties keep id order).  ``wins``, ``ties``,
    ``losses`` and ``comparisons`` are each system's totals over all its opponents.
    """

    method: str
    systems: NDArray[np.int64]
    score: NDArray[np.float64]
    wins: NDArray[np.float64]
    ties: NDArray[np.float64]
    losses: NDArray[np.float64]
    comparisons: NDArray[np.float64]

    @property
    def rank(self) -> NDArray[np.int64]:
        return competition_ranks(self.score)

    @property
    def order(self) -> NDArray[np.int64]:
        return np.argsort(-self.score, kind="stable")

    @property
    def ranked_systems(self) -> NDArray[np.int64]:
        """System ids, best first."""
        return self.systems[self.order]


def competition_ranks(score: ArrayLike) -> NDArray[np.int64]:
    """Rank 1 = highest score; ties share the best rank ("1, 1, 3").  Works on (..., m).

    NaN scores rank last.
    """
    s = np.asarray(score, dtype=np.float64)
    s = np.where(np.isnan(s), -np.inf, s)
    return 1 + np.sum(s[..., None, :] > s[..., :, None], axis=-1).astype(np.int64)


def pair_counts(pairs: Pairs, systems: ArrayLike | None = None) -> PairCounts:
    """Count wins and ties per ordered system pair (pairs with a non-system output dropped).

    ``systems``: the system ids to report, sorted (default: every system in the judgments).
    Pairs with a system not in the list are dropped. Kept on ``pairs`` per list of systems
    (read-only matrices): an analysis counts the same pairs for its scores, both bootstraps
    and the replicates' check of who is in the data (four times per variant, issue 16).
    """
    sys_ids = (
        pairs.judgments.systems
        if systems is None
        else np.unique(np.asarray(systems, dtype=np.int64))
    )
    cache = pairs.__dict__.setdefault("_pair_counts", {})
    key = sys_ids.tobytes()
    if key not in cache:
        m = sys_ids.shape[0]
        cells, tie_cells = _cells(pairs, sys_ids)
        wins = np.bincount(cells[cells >= 0], minlength=m * m).astype(np.float64)
        tflat = np.bincount(tie_cells[tie_cells >= 0], minlength=m * m).astype(np.float64)
        ties = tflat.reshape(m, m)
        counts = PairCounts(systems=sys_ids, wins=wins.reshape(m, m), ties=ties + ties.T)
        for array in (counts.systems, counts.wins, counts.ties):
            array.setflags(write=False)
        cache[key] = counts
    return cache[key]


def _cells(pairs: Pairs, sys_ids: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per pair, the flat index winner*m + loser of its win cell, or a*m + b of its tie cell.

    -1 where the pair does not go in that matrix (the other outcome, or a system not listed).
    Kept on ``pairs`` per list of systems (read-only): an analysis counts the same pairs for
    several scores and for the bootstrap (ten times for a campaign's two variants, issue 16).
    """
    cache = pairs.__dict__.setdefault("_cells", {})
    key = sys_ids.tobytes()
    if key not in cache:
        cells, tie_cells = _compute_cells(pairs, sys_ids)
        cells.setflags(write=False)
        tie_cells.setflags(write=False)
        cache[key] = (cells, tie_cells)
    return cache[key]


def system_positions(sys_ids: NDArray[np.int64], values: NDArray[np.int64]) -> NDArray[np.int64]:
    """Per value, its position in ``sys_ids`` (sorted, distinct), or -1 where it is not one.

    A lookup table over the ids' range when that is short (database ids of one campaign's
    systems), one indexing pass instead of a binary search per value (issue 16)."""
    m = sys_ids.shape[0]
    if m == 0:
        return np.full(values.shape[0], -1, dtype=np.int64)
    low, high = int(sys_ids[0]), int(sys_ids[-1])
    if high - low > 4 * values.shape[0] + 1024:
        at = np.minimum(np.searchsorted(sys_ids, values), m - 1)
        return np.where(sys_ids[at] == values, at, -1)
    # The table's last entry (-1) stands for every value outside [low, high].
    table = np.full(high - low + 2, -1, dtype=np.int64)
    table[sys_ids - low] = np.arange(m, dtype=np.int64)
    offset = values - low
    offset[(offset < 0) | (offset > high - low)] = high - low + 1
    return table[offset]


def _compute_cells(
    pairs: Pairs, sys_ids: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    m = sys_ids.shape[0]
    if m == 0:
        none = np.full(len(pairs), -1, dtype=np.int64)
        return none, none.copy()
    ia = system_positions(sys_ids, pairs.system_a)
    ib = system_positions(sys_ids, pairs.system_b)
    known = (ia >= 0) & (ib >= 0)
    # outcome +1: a beat b -> cell (a, b); -1: b beat a -> cell (b, a).
    win = np.where(pairs.outcome == BETTER, ia * m + ib, ib * m + ia)
    cells = np.where(known & (pairs.outcome != TIE), win, -1)
    tie_cells = np.where(known & (pairs.outcome == TIE), ia * m + ib, -1)
    return cells.astype(np.int64), tie_cells.astype(np.int64)


# ------------------------------------------------------------------------ score functions
# The *_batch functions take wins/ties of shape (..., m, m) and return (..., m): the bootstrap
# scores all its replicates in one call.
def win_ratio_batch(
    wins: NDArray[np.float64], ties: NDArray[np.float64], rule: TieRule
) -> NDArray[np.float64]:
    w = wins.sum(axis=-1)
    t = ties.sum(axis=-1)
    lost = wins.sum(axis=-2)
    # WMT12's "> others" leaves ties out of the denominator; the other two count them.
    n = w + lost if rule == "decisive" else w + lost + t
    num = w + t if rule == "better_or_equal" else w
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, num / np.where(n > 0, n, 1), np.nan)


def expected_wins_batch(
    wins: NDArray[np.float64], left_out: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """``left_out`` (shape ``wins.shape[:-2]``): systems a bootstrap replicate does not have,
    which are not opponents there (m - 1 - left_out of them)."""
    m = wins.shape[-1]
    decisive = wins + np.swapaxes(wins, -1, -2)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(decisive > 0, wins / np.where(decisive > 0, decisive, 1), 0.0)
    # Undefined terms (no decisive comparison) add 0 but still count in m - 1, as in WMT's
    # reference implementation (module docstring).
    if left_out is None:
        return share.sum(axis=-1) / max(m - 1, 1)
    opponents = np.maximum(m - 1 - np.asarray(left_out), 1).astype(np.float64)
    return share.sum(axis=-1) / opponents[..., None]


def bt_matrix(wins: NDArray[np.float64], ties: NDArray[np.float64], rule: BTTies) -> NDArray:
    if rule == "half":
        return wins + ties / 2.0
    if rule == "drop":
        return wins
    raise ValueError(f"ties must be 'half' or 'drop', got {rule!r}")


def bt_fit(comp: NDArray[np.float64], alpha: float) -> NDArray[np.float64]:
    """choix I-LSR on one dense m x m matrix comp[i, j] = wins of i over j; centred θ."""
    m = comp.shape[0]
    if m == 0:
        return np.zeros(0)
    if m == 1:
        return np.zeros(1)
    return np.asarray(choix.ilsr_pairwise_dense(comp, alpha=alpha, max_iter=500, tol=1e-10))


def _totals(counts: PairCounts) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    wins = counts.wins.sum(axis=1)
    losses = counts.wins.sum(axis=0)
    ties = counts.ties.sum(axis=1)
    return wins, ties, losses, wins + ties + losses


def win_ratios(counts: PairCounts, ties: TieRule = "better_or_equal") -> SystemScores:
    """Share of each system's comparisons that it wins, ties by ``ties`` (module docstring);
    NaN if none counts. ``comparisons`` stays every comparison (ties included) whatever the
    rule, with ``wins``, ``ties`` and ``losses``: the counts each ratio is made of."""
    if ties not in TIE_RULES:
        raise ValueError(f"ties must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    w, t, lo, n = _totals(counts)
    score = win_ratio_batch(counts.wins, counts.ties, ties)
    return SystemScores(f"win_ratio_{ties}", counts.systems, score, w, t, lo, n)


def expected_wins(counts: PairCounts) -> SystemScores:
    """WMT13 Expected Wins (module docstring): mean over opponents of decisive win share."""
    w, t, lo, n = _totals(counts)
    return SystemScores(
        "expected_wins", counts.systems, expected_wins_batch(counts.wins), w, t, lo, n
    )


def bradley_terry(
    counts: PairCounts, ties: BTTies = "half", alpha: float = DEFAULT_BT_ALPHA
) -> SystemScores:
    """Bradley-Terry log-strengths θ (centred), fitted with choix (module docstring)."""
    w, t, lo, n = _totals(counts)
    theta = bt_fit(bt_matrix(counts.wins, counts.ties, ties), alpha)
    return SystemScores(f"bradley_terry_{ties}", counts.systems, theta, w, t, lo, n)
