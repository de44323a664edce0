"""003's ways of combining the edit rates of a segment's editors, and document rankings.

Zaidan & Callison-Burch 2010 [003] section 5: baselines "taking the minimum over the edits,
taking the median, and taking the average" of the editors' edit rates, and a *weighted*
average whose worker weights come from a verification subset of segments where the
professional (gold) edit is known (section 5.1).  Section 4 / 6: documents are ranked by
predicted HTER and the ranking is compared with the gold HTER ranking by Spearman's rho.

Worker weights (section 5.1).  The paper says "the Turker's weight is the absolute difference
between the Turker's edit count and the professional editor's edit count", and next "the
closer a Turker's edit *rate* is to the LDC editor's, the more we should prefer the worker".
Read literally the first sentence would give the *largest* weight to the worst worker, so we
follow the second: the distance of worker w is

    d_w = mean over w's verification segments s of |TER_w,s - TER_gold,s|

(edit *rates*, as the paper stresses, each segment counting once), and the weight is a
decreasing function of it, ``1 / (d_w + epsilon)`` (our choice: the paper gives no formula;
``epsilon`` = 0.05 by default keeps a perfect match finite, worth 20 times a worker who is
0.95 off, and 003's oracle result -- "predicting HTER accurately is mostly a matter of
identifying the best worker" -- favours weights this sharp).  A worker with no verification
segment gets the mean weight of the workers who have one (an average worker); if nobody has
one, every weight is 1 and the weighted mean is the mean.

Documents: a document's predicted (and gold) HTER is the mean of its segments' values, or the
length-weighted mean when segment lengths are given (e.g. words in the MT output, so that the
document score is a corpus-level rate as GALE's document HTER is); the paper does not say how
it aggregates.  Ranks are 1 = lowest HTER (best), average ranks on ties
(``scipy.stats.rankdata``); rho is ``scipy.stats.spearmanr`` (NaN when either side is
constant: a correlation with a constant is undefined).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats._lazy import lazy_module

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
stats = lazy_module("scipy.stats")

__all__ = [
    "DocumentRanking",
    "SegmentCombinations",
    "WorkerWeights",
    "combine_edit_rates",
    "document_scores",
    "rank_all",
    "rank_documents",
    "verification_subset",
    "worker_weights",
]

DEFAULT_EPSILON = 0.05


def _ints(values: ArrayLike) -> NDArray[np.int64]:
    return np.asarray(values, dtype=np.int64).reshape(-1)


def _floats(values: ArrayLike) -> NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64).reshape(-1)


@dataclass(frozen=True, eq=False)
class WorkerWeights:
    """Per worker (sorted ids): verification segments seen, distance d_w (NaN if none), weight."""

    workers: NDArray[np.int64]
    n_verification: NDArray[np.int64]
    distance: NDArray[np.float64]
    weight: NDArray[np.float64]
    epsilon: float

    def of(self, worker: ArrayLike) -> NDArray[np.float64]:
        """The weight of each given worker id; an id not in ``workers`` gets the mean weight
        of the workers with a verification segment, as in :func:`worker_weights`."""
        w = _ints(worker)
        out = np.full(w.shape, _fallback(self.weight[self.n_verification > 0]))
        pos, known = _lookup(self.workers, w)
        out[known] = self.weight[pos[known]]
        return out


def _lookup(
    table: NDArray[np.int64], keys: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Per key, its position in the sorted unique ``table`` and whether it is there."""
    if table.size == 0:
        return np.zeros(keys.shape, dtype=np.int64), np.zeros(keys.shape, dtype=bool)
    pos = np.minimum(np.searchsorted(table, keys), table.shape[0] - 1)
    return pos, table[pos] == keys


def _fallback(known_weights: NDArray[np.float64]) -> float:
    return float(known_weights.mean()) if known_weights.size else 1.0


def verification_subset(segments: ArrayLike, fraction: float, seed: int) -> NDArray[np.int64]:
    """A random ``fraction`` of the distinct ``segments`` (at least one when fraction > 0),
    sorted: 003 section 6.1 chooses the verification segments at random (100 trials a point)."""
    ids = np.unique(_ints(segments))
    if not 0 <= fraction <= 1:
        raise ValueError("fraction must be in [0, 1]")
    k = int(round(fraction * ids.shape[0]))
    if fraction > 0:
        k = max(k, 1)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(ids, size=k, replace=False))


def worker_weights(
    segment: ArrayLike,
    worker: ArrayLike,
    ter: ArrayLike,
    gold_segment: ArrayLike,
    gold_ter: ArrayLike,
    *,
    epsilon: float = DEFAULT_EPSILON,
) -> WorkerWeights:
    """Weights from the verification subset: the segments ``gold_segment`` with the gold
    (professional) edit rate ``gold_ter``.  ``segment``/``worker``/``ter``: one row per edit
    (all edits; those of other segments are ignored here)."""
    seg, wk, rate = _ints(segment), _ints(worker), _floats(ter)
    gseg, grate = _ints(gold_segment), _floats(gold_ter)
    if not (seg.shape == wk.shape == rate.shape):
        raise ValueError("segment, worker and ter must have the same length")
    if gseg.shape != grate.shape or np.unique(gseg).shape != gseg.shape:
        raise ValueError("gold_segment must be unique and as long as gold_ter")
    if epsilon <= 0:
        raise ValueError("epsilon must be > 0")
    workers, wi = np.unique(wk, return_inverse=True)
    wi = wi.reshape(-1)
    order = np.argsort(gseg)
    pos, in_gold = _lookup(gseg[order], seg)
    m = workers.shape[0]
    gold_of_edit = grate[order][pos] if gseg.size else np.zeros(seg.shape)
    diff = np.abs(rate - gold_of_edit)
    n_ver = np.bincount(wi[in_gold], minlength=m).astype(np.int64)
    total = np.bincount(wi[in_gold], weights=diff[in_gold], minlength=m)
    distance = np.full(m, np.nan)
    seen = n_ver > 0
    distance[seen] = total[seen] / n_ver[seen]
    weight = np.empty(m)
    weight[seen] = 1.0 / (distance[seen] + epsilon)
    weight[~seen] = _fallback(weight[seen])
    return WorkerWeights(workers, n_ver, distance, weight, epsilon)


@dataclass(frozen=True, eq=False)
class SegmentCombinations:
    """Per segment (sorted ids): the editors' edit rates combined four ways."""

    segments: NDArray[np.int64]
    n_edits: NDArray[np.int64]
    minimum: NDArray[np.float64]
    median: NDArray[np.float64]
    mean: NDArray[np.float64]
    weighted: NDArray[np.float64]

    def method(self, name: str) -> NDArray[np.float64]:
        if name not in ("minimum", "median", "mean", "weighted"):
            raise ValueError(f"unknown combination {name!r}")
        return getattr(self, name)


def combine_edit_rates(
    segment: ArrayLike, worker: ArrayLike, ter: ArrayLike, weights: WorkerWeights
) -> SegmentCombinations:
    """Minimum, median, mean and weighted mean of the edit rates of each segment's edits
    (one row per edit; ``ter`` = the edit's TER, hypothesis = MT, reference = the edit)."""
    seg, wk, rate = _ints(segment), _ints(worker), _floats(ter)
    if not (seg.shape == wk.shape == rate.shape):
        raise ValueError("segment, worker and ter must have the same length")
    segments, si = np.unique(seg, return_inverse=True)
    si = si.reshape(-1)
    g = segments.shape[0]
    count = np.bincount(si, minlength=g)
    order = np.lexsort((rate, si))
    start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
    sorted_rate = rate[order]
    minimum = sorted_rate[start] if g else np.zeros(0)
    lo = sorted_rate[start + (count - 1) // 2] if g else np.zeros(0)
    hi = sorted_rate[start + count // 2] if g else np.zeros(0)
    w = weights.of(wk)
    mean = np.bincount(si, weights=rate, minlength=g) / count
    weighted = np.bincount(si, weights=w * rate, minlength=g) / np.bincount(
        si, weights=w, minlength=g
    )
    return SegmentCombinations(
        segments=segments,
        n_edits=count.astype(np.int64),
        minimum=minimum,
        median=(lo + hi) / 2,
        mean=mean,
        weighted=weighted,
    )


def document_scores(
    values: ArrayLike, document: ArrayLike, length: ArrayLike | None = None
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """(sorted document ids, per document the mean of its segment ``values``, weighted by
    ``length`` when given)."""
    v, d = _floats(values), _ints(document)
    if v.shape != d.shape:
        raise ValueError("values and document must have the same length")
    w = np.ones_like(v) if length is None else _floats(length)
    docs, di = np.unique(d, return_inverse=True)
    di = di.reshape(-1)
    total_w = np.bincount(di, weights=w, minlength=docs.shape[0])
    return docs, np.bincount(di, weights=w * v, minlength=docs.shape[0]) / total_w


@dataclass(frozen=True, eq=False)
class DocumentRanking:
    """Predicted vs gold document HTER, their ranks (1 = lowest HTER) and Spearman's rho."""

    documents: NDArray[np.int64]
    predicted: NDArray[np.float64]
    gold: NDArray[np.float64]
    predicted_rank: NDArray[np.float64]
    gold_rank: NDArray[np.float64]
    rho: float
    p_value: float


def rank_documents(documents: ArrayLike, predicted: ArrayLike, gold: ArrayLike) -> DocumentRanking:
    """Rank documents by predicted and by gold HTER; Spearman's rho between the two (003
    section 4: rho = 1 - 6 sum d^2 / (n (n^2 - 1)) without ties)."""
    docs, pred, ref = _ints(documents), _floats(predicted), _floats(gold)
    if not (docs.shape == pred.shape == ref.shape):
        raise ValueError("documents, predicted and gold must have the same length")
    constant = docs.size < 2 or np.ptp(pred) == 0 or np.ptp(ref) == 0
    if constant:
        rho, p_value = float("nan"), float("nan")
    else:
        result = stats.spearmanr(pred, ref)
        rho, p_value = float(result.statistic), float(result.pvalue)
    return DocumentRanking(
        documents=docs,
        predicted=pred,
        gold=ref,
        predicted_rank=stats.rankdata(pred),
        gold_rank=stats.rankdata(ref),
        rho=rho,
        p_value=p_value,
    )


def rank_all(
    documents: ArrayLike, predictions: Mapping[str, ArrayLike], gold: ArrayLike
) -> dict[str, DocumentRanking]:
    """:func:`rank_documents` for several named predictions (e.g. "minimum", "weighted",
    "ter" for 003's TER-against-the-reference baseline)."""
    return {name: rank_documents(documents, pred, gold) for name, pred in predictions.items()}
