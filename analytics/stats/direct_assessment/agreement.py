"""Agreement on a continuous scale (Graham et al. 2013, LAW, Section 6, Tables 1-3).

Table 1: mean and sd of the absolute score difference for the same output scored twice by the
same judge (repeat / "ask again" pairs) and by two distinct judges.
Tables 2-3: Cohen's kappa after mapping scores to categories: 5, 4 or 2 equal-width intervals
of the raw scale, and 5 categories by percentile of the z-scores ("use percentiles of the
combined set of all scores to map z-scores to categories where a score falling in the bottom
20th percentile corresponds to strongly disagree ...").

kappa = (Pr(a) - Pr(e)) / (1 - Pr(e)).  The paper does not spell out Pr(e), but its tables pin
it down as 1/k, chance agreement on k equally likely categories: Table 2's 59.7% -> 0.496,
64.6% (4 categories) -> 0.528 and 85.2% (2) -> 0.704 all satisfy (Pr(a) - 1/k) / (1 - 1/k).
That is the default ("uniform").  "pooled" takes Pr(e) = sum_c p_c**2 from the pooled category
distribution of the paired judgments (Scott's pi), for chance corrected for a skewed use of
the scale.

Distinct-judge pairs: every unordered pair of different workers who scored the same output
(``item``) as a SYSTEM slot, one judgment per (worker, item) (the first row if a worker met the
same output in two HITs).  With k judges of an output that is k(k-1)/2 pairs; we never list
them: counts of agreeing pairs, sums of |difference| and of squared differences are computed
per output in closed form from sorted values (O(n log n) in judgments, not quadratic).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats.direct_assessment._codes import factorise, stable_order
from analytics.stats.direct_assessment.judgments import DAJudgments, Role
from analytics.stats.direct_assessment.scores import ZScores

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Agreement",
    "Binning",
    "ChanceModel",
    "KappaResult",
    "PairAgreement",
    "agreement",
    "equal_width_categories",
    "kappa_coefficient",
    "percentile_categories",
    "prepare_agreement",
    "z_percentile_edges",
]

ChanceModel = Literal["uniform", "pooled"]
# _categories_by_edges counts the edges below a value by comparisons up to this many edges.
_COUNTED_EDGES = 16
# Rows per block where a per-member temporary is built a block at a time (memory).
_BLOCK = 1 << 18
Binning = Literal["equal_width", "z_percentile"]


@dataclass(frozen=True)
class KappaResult:
    binning: Binning
    categories: int
    pr_a: float
    pr_e: float
    kappa: float


@dataclass(frozen=True)
class PairAgreement:
    """Agreement over one kind of pair (same judge or distinct judges)."""

    n_pairs: int
    mean_abs_diff: float
    sd_abs_diff: float
    kappas: tuple[KappaResult, ...]

    def kappa(self, categories: int, binning: Binning = "equal_width") -> KappaResult:
        for result in self.kappas:
            if result.categories == categories and result.binning == binning:
                return result
        raise KeyError(f"no kappa computed for {categories} {binning} categories")


@dataclass(frozen=True)
class Agreement:
    same_judge: PairAgreement
    distinct_judges: PairAgreement


def kappa_coefficient(pr_a: float, pr_e: float) -> float:
    """kappa = (Pr(a) - Pr(e)) / (1 - Pr(e)); NaN when Pr(e) = 1 (no room for agreement)."""
    if np.isnan(pr_a) or np.isnan(pr_e) or pr_e >= 1:
        return float("nan")
    return float((pr_a - pr_e) / (1 - pr_e))


def equal_width_categories(
    scores: ArrayLike, k: int, scale_max: float = 100.0
) -> NDArray[np.int64]:
    """Map raw scores to k equal-width categories 0..k-1 of [0, scale_max].

    Intervals are closed on the left, [0, 20), [20, 40), ... for k = 5; the top score
    (scale_max itself) belongs to the top interval.  For k = 2 this is "below the midpoint"
    vs "at or above it".
    """
    return _equal_width_codes(np.asarray(scores, dtype=np.float64), k, scale_max).astype(np.int64)


def _equal_width_codes(
    scores: NDArray[np.float64], k: int, scale_max: float
) -> NDArray[np.integer]:
    """:func:`equal_width_categories` in the narrowest integer type (int8 for any k used),
    computed in place in one float temporary."""
    codes = scores * k
    codes /= scale_max
    np.floor(codes, out=codes)
    np.minimum(codes, k - 1, out=codes)
    return codes.astype(_code_type(k))


def _equal_width_binning(
    scores: NDArray[np.float64], small: NDArray | None, k: int, scale_max: float
) -> Callable[[], NDArray[np.integer]]:
    """What makes :func:`_equal_width_codes` of ``scores``; ``small``: the scores as uint8
    codes (:func:`_small_integer_codes`), when they are, to look the codes up in a table."""
    if small is None or small.dtype != np.uint8:
        return partial(_equal_width_codes, scores, k, scale_max)
    table = _equal_width_codes(np.arange(256, dtype=np.float64), k, scale_max)
    return partial(np.take, table, small)


def _code_type(k: int) -> type:
    return np.int8 if k <= np.iinfo(np.int8).max else np.int64


def percentile_categories(values: ArrayLike, k: int, reference: ArrayLike) -> NDArray[np.int64]:
    """Map values to k categories by the percentiles of ``reference`` (2013 Section 6).

    Edges are the 1/k, 2/k, ... quantiles of ``reference`` (numpy's default linear
    interpolation); a value equal to an edge goes to the upper category.
    """
    return _categories_by_edges(values, _percentile_edges(reference, k)).astype(np.int64)


def _percentile_edges(
    reference: ArrayLike, k: int, *, overwrite: bool = False
) -> NDArray[np.float64] | None:
    """The 1/k, 2/k, ... quantiles of ``reference``; None when it is empty. ``overwrite``:
    ``reference`` is a temporary that may be reordered (no copy is made)."""
    ref = np.asarray(reference, dtype=np.float64)
    if ref.size == 0:
        return None
    return np.quantile(ref, np.arange(1, k) / k, overwrite_input=overwrite)


def _z_categories(
    z: Callable[[], NDArray[np.float64]], edges: NDArray[np.float64] | None
) -> NDArray[np.integer]:
    return _categories_by_edges(z(), edges)


def _categories_by_edges(
    values: ArrayLike, edges: NDArray[np.float64] | None
) -> NDArray[np.integer]:
    """Category codes 0..len(edges) in the narrowest integer type (see _equal_width_codes):
    ``np.searchsorted(edges, values, side="right")``, the number of edges at or below each
    value.

    For a few sorted edges without NaN (the percentile edges of a kappa) that number is
    counted with one comparison per edge: the same codes (a NaN value, which searchsorted
    places after every edge, gets len(edges)) at a tenth of the time of the binary search
    (at a million compared judgments, 0.04 s a binning)."""
    v = np.asarray(values, dtype=np.float64)
    if edges is None:
        return np.zeros(v.shape, dtype=np.int8)
    code_type = _code_type(edges.shape[0] + 1)
    if edges.shape[0] > _COUNTED_EDGES or np.isnan(edges).any() or (edges[1:] < edges[:-1]).any():
        return np.searchsorted(edges, v, side="right").astype(code_type)
    codes = np.zeros(v.shape, dtype=code_type)
    at_or_above = np.empty(v.shape, dtype=bool)
    for edge in edges:
        np.greater_equal(v, edge, out=at_or_above)
        codes += at_or_above
    del at_or_above
    nan = np.isnan(v)
    if nan.any():
        codes[nan] = edges.shape[0]
    return codes


def _pairs_within(sizes: NDArray[np.int64]) -> int:
    """The number of within-group pairs, sum n (n - 1) / 2 over the groups' sizes: exact
    integers, in one temporary as large as the sizes."""
    pairs = sizes - 1
    pairs *= sizes
    pairs //= 2
    return int(pairs.sum())


@dataclass(frozen=True)
class _Groups:
    """Judgments grouped so that every within-group pair of members is one compared pair."""

    group: NDArray[np.int64]  # per member, group code 0..n_groups-1
    n_groups: int
    # True when the members come already in (group, value, member) order (see
    # _DistinctJudges.restricted); else diff_moments sorts.
    presorted: bool = False
    # True when group g is members 2g and 2g + 1 (repeat pairs): diff_moments then orders
    # each pair by comparing its two values instead of sorting them all.
    pairs: bool = False

    @property
    def sizes(self) -> NDArray[np.int64]:
        return np.bincount(self.group, minlength=self.n_groups)

    @property
    def n_pairs(self) -> int:
        return _pairs_within(self.sizes)

    def diff_moments(self, x: NDArray[np.float64]) -> tuple[float, float, float]:
        """(number of pairs, sum of |x_i - x_j|, sum of (x_i - x_j)**2) over within-group pairs.

        For sorted values x_(1..n) of one group, sum_{i<j} |x_i - x_j| = sum_j x_(j) (2j - n - 1)
        and sum_{i<j} (x_i - x_j)**2 = n * sum (x - mean)**2.
        """
        if self.pairs:
            return self._pair_moments(x)
        n = self.sizes
        # Counted before the arrays over every member below exist (the recompute's peak).
        n_pairs = _pairs_within(n)
        if self.presorted:
            xs, gs = x, self.group
        else:
            order = np.lexsort((x, self.group))
            xs, gs = x[order], self.group[order]
            del order
        starts = np.cumsum(n) - n
        # The weight 2j - n + 1 of each sorted value (j = i - start its 0-based rank within
        # its group, i its position): 2i - (2 start + n - 1), built in place in one float array,
        # the per-group part subtracted a block at a time. These integers are exact in float64,
        # and a float times an int64 array converts the ints the same way, so the sum is
        # bit-identical to np.sum(xs * (2 * j - n[gs] + 1)) without its five temporaries over
        # every member (the memory peak of a recompute).
        offset = (2 * starts + n - 1).astype(np.float64)
        weight = np.arange(xs.shape[0], dtype=np.float64)
        weight *= 2
        for begin in range(0, xs.shape[0], _BLOCK):
            end = begin + _BLOCK
            weight[begin:end] -= offset[gs[begin:end]]
        weight *= xs
        abs_sum = float(np.sum(weight))
        del weight
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.bincount(gs, weights=xs, minlength=self.n_groups) / np.maximum(n, 1)
        dev = mean[gs]
        np.subtract(xs, dev, out=dev)
        del xs
        dev *= dev
        ss = np.bincount(gs, weights=dev, minlength=self.n_groups)
        return float(n_pairs), abs_sum, float(np.sum(n * ss))

    def _pair_moments(self, x: NDArray[np.float64]) -> tuple[float, float, float]:
        """:meth:`diff_moments` of groups of two (members 2g, 2g + 1), bit for bit: the same
        arrays summed in the same order, without the sort. Sorted, pair g is (lo, hi) with
        the first member first when the two are equal (lexsort is stable); its weights are
        -1 and +1, so the weighted values are -lo, hi; the group sums and squared deviations
        are accumulated as np.bincount does, from 0.0, in member order."""
        first, second = x[0::2], x[1::2]
        swap = second < first
        lo = np.where(swap, second, first)
        hi = np.where(swap, first, second)
        del swap
        weighted = np.empty(x.shape[0], dtype=np.float64)
        np.negative(lo, out=weighted[0::2])
        weighted[1::2] = hi
        abs_sum = float(np.sum(weighted))
        del weighted
        mean = lo + 0.0
        mean += hi
        mean /= 2
        dev_lo = lo - mean
        dev_lo *= dev_lo
        dev_hi = hi - mean
        dev_hi *= dev_hi
        ss = dev_lo + 0.0
        ss += dev_hi
        return float(self.n_groups), abs_sum, float(np.sum(2 * ss))

    def agreeing_pairs(self, cats: NDArray[np.integer], k: int) -> int:
        # (group, category) codes in the narrowest type that holds them (int32 for any
        # campaign): half the memory of int64 codes, the same counts.
        code_type = np.int32 if self.n_groups * k < np.iinfo(np.int32).max else np.int64
        codes = self.group.astype(code_type)
        codes *= k
        codes += cats
        counts = np.bincount(codes, minlength=self.n_groups * k)
        del codes
        # sum c (c - 1) / 2 over the cells, as (sum c**2 - sum c) / 2: exact in int64 (each
        # c (c - 1) is even), without three temporaries as large as the counts.
        return int((np.dot(counts, counts) - int(counts.sum())) // 2)

    def pooled_chance(self, cats: NDArray[np.int64], k: int) -> float:
        """Sum_c p_c**2, each member weighted by the number of pairs it takes part in."""
        weight = (self.sizes - 1)[self.group].astype(np.float64)
        total = weight.sum()
        if total == 0:
            return float("nan")
        p = np.bincount(cats, weights=weight, minlength=k) / total
        return float(np.sum(p * p))


def _pair_agreement(
    groups: _Groups,
    scores: NDArray[np.float64],
    z: Callable[[], NDArray[np.float64]] | None,
    z_edges: dict[int, NDArray[np.float64] | None] | None,
    categories: Sequence[int],
    z_categories: Sequence[int],
    chance: ChanceModel,
    scale_max: float,
) -> PairAgreement:
    # Judgments imported as given z-scores have no raw score: the raw-scale figures (|d| and
    # the equal-width kappas) are then missing (NaN), the z-percentile kappas are not.
    raw = bool(np.isfinite(scores).all())
    if raw:
        n_pairs, abs_sum, sq_sum = groups.diff_moments(scores)
    else:
        n_pairs, abs_sum, sq_sum = float(groups.n_pairs), float("nan"), float("nan")
    if n_pairs > 0 and raw:
        mean = abs_sum / n_pairs
    else:
        mean = float("nan")
    if n_pairs > 1 and raw:
        # Sample sd of |d| over pairs from its first two moments (clip rounding below 0).
        sd = float(np.sqrt(max(sq_sum - n_pairs * mean * mean, 0.0) / (n_pairs - 1)))
    else:
        sd = float("nan")

    # Each binning's categories are made when its kappa is computed and let go after it (all
    # of them at once were four int64 arrays over every compared judgment: the peak of a
    # recompute at a million judgments).
    # Slider scores (whole numbers 0-100) as uint8 codes: each binning's categories are then
    # looked up in a table of the same function over 0..255 (one pass over one byte per
    # judgment, not five over float64: the same codes).
    small = _small_integer_codes(scores) if raw and len(categories) else None
    binnings: list[tuple[Binning, int, Callable[[], NDArray[np.integer]] | None]] = [
        ("equal_width", k, _equal_width_binning(scores, small, k, scale_max) if raw else None)
        for k in categories
    ]
    if z is not None and z_edges is not None:
        binnings += [
            ("z_percentile", k, partial(_z_categories, z, z_edges[k])) for k in z_categories
        ]
    kappas = []
    for binning, k, categorise in binnings:
        cats = None if categorise is None else categorise()
        if cats is None:
            nan = float("nan")
            kappas.append(KappaResult(binning, k, nan, nan, nan))
            continue
        pr_a = groups.agreeing_pairs(cats, k) / n_pairs if n_pairs else float("nan")
        pr_e = 1.0 / k if chance == "uniform" else groups.pooled_chance(cats, k)
        kappas.append(KappaResult(binning, k, pr_a, pr_e, kappa_coefficient(pr_a, pr_e)))
        del cats
    return PairAgreement(int(n_pairs), mean, sd, tuple(kappas))


def agreement(
    judgments: DAJudgments,
    z: NDArray[np.float64] | ZScores | None = None,
    *,
    include_workers: NDArray[np.bool_] | None = None,
    categories: Sequence[int] = (5, 4, 2),
    z_categories: Sequence[int] = (5,),
    chance: ChanceModel = "uniform",
    z_edges: Mapping[int, NDArray[np.float64] | None] | None = None,
) -> Agreement:
    """Intra- and inter-annotator agreement as in 2013 Tables 1-3.

    ``include_workers`` (mask aligned to ``judgments.workers``) restricts both kinds of pair
    to those workers (the "filtered" columns); None = everyone ("unfiltered").  If ``z`` is
    given, kappa is also reported for ``z_categories`` percentile bins of the z-scores of all
    included judgments.  Mean/sd of |difference| are on the raw scale, as in Table 1 (NaN,
    with the equal-width kappas, when some of the compared judgments have only a given z).
    ``z_edges``: :func:`z_percentile_edges` of the same arguments, computed earlier (e.g. in
    another thread), instead of here.
    """
    if chance not in ("uniform", "pooled"):
        raise ValueError("chance must be 'uniform' or 'pooled'")
    rows_ok = judgments.worker_mask_to_rows(include_workers)
    zz = None
    if z is None:
        z_edges = None
    else:
        zz = z.z if isinstance(z, ZScores) else np.asarray(z, dtype=np.float64)
        if z_edges is None:
            z_edges = z_percentile_edges(judgments, zz, include_workers, z_categories)

    # Same judge: repeat pairs, as groups of two (original row, repeat row).
    rep = judgments.control_pairs(Role.REPEAT)
    keep = rows_ok[rep.control_row]
    members = np.stack([rep.original_row[keep], rep.control_row[keep]], axis=1).reshape(-1)
    same_groups = _Groups(
        np.repeat(np.arange(np.count_nonzero(keep)), 2), int(keep.sum()), pairs=True
    )
    del rows_ok

    distinct_rows, distinct_groups = _distinct_judges(judgments).restricted(
        include_workers, judgments
    )

    def measure(groups: _Groups, rows: NDArray[np.int64]) -> PairAgreement:
        return _pair_agreement(
            groups,
            judgments.score[rows],
            # The compared z-scores are taken only while their categories are made.
            None if zz is None else partial(zz.__getitem__, rows),
            z_edges,
            categories,
            z_categories,
            chance,
            judgments.scale_max,
        )

    return Agreement(
        same_judge=measure(same_groups, members),
        distinct_judges=measure(distinct_groups, distinct_rows),
    )


def z_percentile_edges(
    judgments: DAJudgments,
    z: NDArray[np.float64] | ZScores,
    include_workers: NDArray[np.bool_] | None,
    z_categories: Sequence[int],
) -> dict[int, NDArray[np.float64] | None]:
    """Per number of categories k, the percentile edges :func:`agreement` bins z-scores by:
    the 1/k, 2/k, ... quantiles of the z-scores of every judgment of the included workers
    (the same edges for both kinds of pair)."""
    zz = z.z if isinstance(z, ZScores) else np.asarray(z, dtype=np.float64)
    if include_workers is None:
        return {k: _percentile_edges(zz, k) for k in z_categories}
    # A subset's z-scores are a copy of its own: its quantiles partition it in place (the
    # same order statistics in any order of the values) instead of a second copy.
    reference = zz[judgments.worker_mask_to_rows(include_workers)]
    return {k: _percentile_edges(reference, k, overwrite=True) for k in z_categories}


class _DistinctJudges:
    """Distinct-judge pairs of one :class:`DAJudgments`, for every worker: one SYSTEM
    judgment per (worker, item) (the first row), grouped by item, in (item, worker) order;
    and, once asked, the members' order by (item, raw score). Kept per judgments object
    (:data:`_DISTINCT_JUDGES`): the unfiltered and the filtered agreement of a report, and of
    both variants of stored results, restrict it to their workers instead of sorting again.
    """

    def __init__(self, judgments: DAJudgments) -> None:
        cand = np.flatnonzero(judgments.role == Role.SYSTEM)
        _, item_code = factorise(judgments.item[cand])
        # In int64 whatever the codes' type, built in place (one array, not three).
        pair_key = item_code.astype(np.int64)
        pair_key *= max(judgments.n_workers, 1)
        pair_key += judgments.worker_index[cand]
        # The first row of each (item, worker), as np.unique(return_index=True) finds it.
        order = stable_order(pair_key)
        sorted_key = pair_key[order]
        del pair_key
        first = np.empty(sorted_key.shape[0], dtype=bool)
        first[:1] = True
        np.not_equal(sorted_key[1:], sorted_key[:-1], out=first[1:])
        del sorted_key
        chosen = order[first]
        del order, first
        # Positions and codes as int32 (they fit far beyond any campaign): half the memory.
        self.rows = cand[chosen].astype(np.int32)
        self.item = item_code[chosen].astype(np.int32)
        self._by_score: NDArray[np.intp] | None = None
        self._scores = judgments.score

    def by_score(self) -> NDArray[np.intp]:
        """Members ordered by (item, score, member): ``np.lexsort((score, item))``, as a
        stable sort of the scores then a stable (radix) sort of their items."""
        if self._by_score is None:
            values = self._scores[self.rows]
            by_value = np.argsort(_small_integer_codes(values), kind="stable")
            del values
            self._by_score = by_value[stable_order(self.item[by_value])].astype(np.int32)
        return self._by_score

    def restricted(
        self, include_workers: NDArray[np.bool_] | None, judgments: DAJudgments
    ) -> tuple[NDArray[np.int64], _Groups]:
        """The members of the included workers and their groups, numbered among the items
        they judged: what grouping the included judgments alone would give."""
        raw = bool(np.isfinite(judgments.score[self.rows]).all())
        order: NDArray[np.integer] | None
        if include_workers is None:
            rows, item = self.rows, self.item
            order = self.by_score() if raw else None
        else:
            member = judgments.worker_mask_to_rows(include_workers)[self.rows]
            rows, item = self.rows[member], self.item[member]
            order = None
            if raw:
                full_order = self.by_score()
                # Positions and group codes as int32, like the unfiltered ones (they fit far
                # beyond any campaign): the second agreement of a recompute holds a recompute's
                # peak.
                position = np.cumsum(member, dtype=np.int32)
                position -= 1
                order = position[full_order[member[full_order]]]
                del position
        if order is not None:
            # The members in (item, score) order: the compared values are then taken sorted,
            # and diff_moments needs no sorted copy of them.
            rows, item = rows[order], item[order]
            del order
        presorted = raw
        present = np.bincount(item) > 0 if item.size else np.zeros(0, dtype=bool)
        if present.all():
            group = item
        else:
            renumber = np.cumsum(present, dtype=np.int32)
            renumber -= 1
            group = renumber[item]
        n_groups = int(group.max()) + 1 if group.size else 0
        return rows, _Groups(group, n_groups, presorted)


def _small_integer_codes(values: NDArray[np.float64]) -> NDArray:
    """``values`` as uint8 when every one is a whole number in 0..255 (the slider's 0-100
    scores), else unchanged. A stable sort of the codes gives exactly the stable sort of the
    values (the same order, ties in the same order) and numpy sorts 8-bit keys by radix:
    about ten times faster than a float sort at a million judgments."""
    if values.size == 0 or not (values.min() >= 0 and values.max() <= 255):
        return values
    codes = values.astype(np.uint8)
    if not np.array_equal(codes, values):  # a fraction (imported scores): the floats
        return values
    return codes


_DISTINCT_JUDGES: weakref.WeakKeyDictionary[DAJudgments, _DistinctJudges] = (
    weakref.WeakKeyDictionary()
)


def prepare_agreement(judgments: DAJudgments) -> None:
    """Do now what :func:`agreement` on ``judgments`` needs whatever its workers and z-scores:
    the distinct-judge pairs and their order by score (kept per judgments object). A recompute
    runs this in a second thread while it computes the z-scores and system scores
    (``report.analyse_campaign``); then both agreements only read what it made."""
    found = _distinct_judges(judgments)
    if bool(np.isfinite(judgments.score[found.rows]).all()):
        found.by_score()


def _distinct_judges(judgments: DAJudgments) -> _DistinctJudges:
    found = _DISTINCT_JUDGES.get(judgments)
    if found is None:
        found = _DISTINCT_JUDGES[judgments] = _DistinctJudges(judgments)
    return found
