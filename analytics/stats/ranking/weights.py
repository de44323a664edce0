"""Worker weights for weighted voting (000 section 4, "Weighting votes").

000: "We weighted votes in two ways: Votes were weighted by measuring agreement with experts on
the 10 initial judgments made. [...] Votes were weighted based on how often one Turker agreed
with the rest of the Turkers over the whole data set.  This does not require any gold standard
calibration data."  The weights then enter Schulze's method (each ballot counts with its
worker's weight, :func:`analytics.stats.ranking.schulze.combine_rankings`), and the combined
set rankings feed the system scores.

A weight is an agreement proportion on pairwise labels (A > B, A = B, A < B), the measure of
000's Figure 1:

- :func:`expert_weights`: agreement with reference (expert) labels on the same pairs of
  outputs, over the worker's first ``first_k`` ballots (by ``order``) that share at least one
  pair with the reference: "the 10 initial judgments" that can be checked.  Every (worker
  label, expert label) combination counts once.
- :func:`gold_weights`: the same idea with this platform's gold units (002 section 4): the
  share of the worker's first ``first_k`` gold units passed under a gold scheme.
- :func:`peer_weights`: for each of the worker's labels, the share of the *other* workers'
  labels of the same pair of outputs that agree with it, pooled over all the worker's labels
  (agreeing label pairs / compared label pairs) across the whole data set.

Workers with nothing to compare get ``default`` (None: the mean weight of the workers that
have one, a neutral choice that neither trusts nor ignores them; 1.0 if nobody has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.ranking.agreement import N_LABELS, reference_counts
from analytics.stats.ranking.gold import GoldScheme, gold_units
from analytics.stats.ranking.judgments import Pairs, RankingJudgments

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["WorkerWeights", "expert_weights", "gold_weights", "peer_weights"]


@dataclass(frozen=True, eq=False)
class WorkerWeights:
    """Per-worker weight, aligned to ``workers`` (sorted ids).

    ``agree`` / ``compared``: the counts behind the weight (agreeing and compared label pairs,
    or gold units passed and seen); ``has_evidence`` is False where ``weight`` is the default.
    """

    source: str
    workers: NDArray[np.int64]
    weight: NDArray[np.float64]
    agree: NDArray[np.float64]
    compared: NDArray[np.float64]

    @property
    def has_evidence(self) -> NDArray[np.bool_]:
        return self.compared > 0


def _finish(
    source: str,
    workers: NDArray[np.int64],
    agree: NDArray[np.float64],
    compared: NDArray[np.float64],
    default: float | None,
) -> WorkerWeights:
    known = compared > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(known, agree / np.where(known, compared, 1.0), np.nan)
    if default is None:
        default = float(np.mean(rate[known])) if known.any() else 1.0
    weight = np.where(known, rate, default)
    return WorkerWeights(source, workers, weight, agree, compared)


def peer_weights(
    judgments: RankingJudgments,
    *,
    include_workers: NDArray[np.bool_] | None = None,
    default: float | None = None,
) -> WorkerWeights:
    """Agreement of each worker with all other workers on the same pairs (whole data set).

    ``include_workers`` restricts who counts as a peer (and who gets a weight); excluded
    workers get ``default``.
    """
    j = judgments
    pairs = j.pairs
    if include_workers is not None:
        mask = np.asarray(include_workers, dtype=bool)
        pairs = pairs.subset(mask[pairs.worker])
    nw = j.n_workers
    key = pairs.key.astype(np.int64)
    lab = pairs.labels()
    n_keys = int(key.max()) + 1 if key.size else 0
    # Labels per key, and per (worker, key): the worker's own labels are not "others".
    per_key = np.bincount(key * N_LABELS + lab, minlength=n_keys * N_LABELS)
    key_total = np.bincount(key, minlength=n_keys)
    wk = key * nw + pairs.worker
    _, wk_code = np.unique(wk, return_inverse=True)
    wk_code = wk_code.reshape(-1)
    n_wk = int(wk_code.max()) + 1 if wk_code.size else 0
    own = np.bincount(wk_code * N_LABELS + lab, minlength=n_wk * N_LABELS)
    own_total = np.bincount(wk_code, minlength=n_wk)
    agree_each = per_key[key * N_LABELS + lab] - own[wk_code * N_LABELS + lab]
    total_each = key_total[key] - own_total[wk_code]
    agree = np.bincount(pairs.worker, weights=agree_each, minlength=nw)
    compared = np.bincount(pairs.worker, weights=total_each, minlength=nw)
    return _finish("peers", j.workers, agree, compared, default)


def _first_k_ballots(
    judgments: RankingJudgments, eligible: NDArray[np.bool_], first_k: int
) -> NDArray[np.bool_]:
    """Ballot mask: per worker, the first ``first_k`` eligible ballots by order."""
    j = judgments
    ballots = np.flatnonzero(eligible)
    worker = j.ballot_worker[ballots]
    sort = np.lexsort((ballots, j.ballot_order[ballots], worker))
    ballots, worker = ballots[sort], worker[sort]
    starts = np.searchsorted(worker, np.arange(j.n_workers))
    position = np.arange(ballots.shape[0]) - starts[worker]
    keep = np.zeros(j.n_ballots, dtype=bool)
    keep[ballots[position < first_k]] = True
    return keep


def expert_weights(
    judgments: RankingJudgments,
    experts: RankingJudgments | Pairs,
    *,
    first_k: int = 10,
    default: float | None = None,
) -> WorkerWeights:
    """Agreement with expert labels on each worker's first ``first_k`` checkable ballots."""
    j = judgments
    crowd = j.pairs
    ref = experts.pairs if isinstance(experts, RankingJudgments) else experts
    agree_each, total_each = reference_counts(crowd, ref)
    checkable = np.bincount(crowd.ballot[total_each > 0], minlength=j.n_ballots) > 0
    keep_ballot = _first_k_ballots(j, checkable, first_k)
    sel = keep_ballot[crowd.ballot]
    nw = j.n_workers
    agree = np.bincount(crowd.worker[sel], weights=agree_each[sel], minlength=nw)
    compared = np.bincount(crowd.worker[sel], weights=total_each[sel], minlength=nw)
    return _finish("experts", j.workers, agree, compared, default)


def gold_weights(
    judgments: RankingJudgments,
    scheme: GoldScheme = "best_only",
    *,
    first_k: int = 10,
    margin: int = 2,
    default: float | None = None,
) -> WorkerWeights:
    """Share of each worker's first ``first_k`` gold units passed (gold-unit pretest)."""
    j = judgments
    units = gold_units(j, scheme, margin=margin)
    is_unit = np.zeros(j.n_ballots, dtype=bool)
    is_unit[units.ballot] = True
    keep = _first_k_ballots(j, is_unit, first_k)[units.ballot]
    nw = j.n_workers
    compared = np.bincount(units.worker[keep], minlength=nw).astype(np.float64)
    agree = np.bincount(units.worker[keep & units.correct], minlength=nw).astype(np.float64)
    return _finish(f"gold_{scheme}", j.workers, agree, compared, default)
