"""Standardised (z) scores, system scores and test-set difficulty calibration.

Graham et al. (2014, EACL), Section 4 "Overall change in performance": "Average z scores for
each system are also presented, based on the mean and standard deviation of all assessments
provided by an individual worker"; footnote 4: "Scores for reference translations can
optionally be omitted for score standardization."  Graham et al. (2013, LAW), Section 6:
standardising each judge's scores removes judges' individual leniency before comparing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from analytics.stats.direct_assessment._codes import factorise, stable_order
from analytics.stats.direct_assessment._groups import Grouped
from analytics.stats.direct_assessment.judgments import DAJudgments, Role

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "AVERAGINGS",
    "Averaging",
    "Segments",
    "SystemScores",
    "ZScores",
    "calibrated_gain",
    "standardize",
    "system_samples",
    "system_scores",
]

# Roles that are genuine system outputs: repeats count, QC items (bad references,
# references) do not (2014 Section 4 "HIT structure": 80% of assessments are genuine outputs
# "including exact repeat assessments", 20% are quality-control items).
OUTPUT_ROLES = (Role.SYSTEM, Role.REPEAT)

# How a system's judgments become its score (METHODS.md section 2):
# "segments": WMT's official "Ave z" / "Ave raw" (WMT16 onwards): the judgments of each
# (system, segment) are averaged first, then those segment means; every segment weighs the
# same however often it was judged.
# "judgments": the flat mean over judgments (2014 Table 3), where a segment judged five times
# weighs five times one judged once.
Averaging = Literal["segments", "judgments"]
AVERAGINGS: tuple[Averaging, ...] = get_args(Averaging)


@dataclass(frozen=True, eq=False)
class ZScores:
    """Per-row z-scores plus the per-worker mean and sd they were computed from.

    ``mean`` and ``sd`` are aligned to ``judgments.workers``; ``sd`` is NaN where undefined
    (fewer than ddof + 1 scores in the basis) and 0 for a worker whose basis scores are all
    equal.  Both cases give z = 0 for all of that worker's rows.
    """

    z: NDArray[np.float64]
    mean: NDArray[np.float64]
    sd: NDArray[np.float64]
    ddof: int
    exclude_references: bool


def standardize(
    judgments: DAJudgments, *, exclude_references: bool = False, ddof: int = 1
) -> ZScores:
    """z = (score - mean_w) / sd_w with each worker's own mean and sd (2014 Section 4).

    The mean and sd are taken over all of the worker's scores in ``judgments`` (bad
    references included, as in the paper), or over all but references if
    ``exclude_references`` (2014 footnote 4).  Every row gets a z-score, references too.

    ddof = 1 (sample standard deviation) by default: a worker's scores are a sample of how that
    worker uses the scale, and it is what WMT's tooling does (Appraise's ComputeZScores command
    divides the sum of squares by n - 1).  The difference from
    the population sd is a factor sqrt((n-1)/n), about 0.5% for one 100-item HIT; it rescales a
    worker's z-scores but never reorders them.

    Rows with a given z (``judgments.given_z``, imported files that publish only z-scores)
    keep it as their z and are not part of any worker's basis: they were standardised by
    whoever published them, over data we may not have.

    A worker whose basis scores are all identical (sd = 0), or who has too few scores for an sd,
    gets z = 0 everywhere: such a worker expresses no preference between any two items, and 0
    ("at this worker's mean") is the only value that neither invents a preference nor poisons
    means with inf/NaN.  (Appraise does the same by dividing by 1 when sd is 0.)  The constant
    case is detected exactly with min == max, because a float variance of equal scores can come
    out as a tiny positive number and would otherwise produce z = +-1 noise.
    """
    if ddof < 0:
        raise ValueError("ddof must be >= 0")
    g = judgments.n_workers
    w = judgments.worker_index
    given = judgments.has_given_z
    basis = ~given
    if exclude_references:
        basis &= judgments.role != Role.REFERENCE
    grouped = Grouped.build(judgments.score[basis], w[basis], g)
    n = grouped.counts.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, grouped.sums() / np.maximum(n, 1), np.nan)
        dev_basis = grouped.values - mean[grouped.group_of_value]
        ss = grouped.sums(dev_basis * dev_basis)
        sd = np.where(n > ddof, np.sqrt(ss / np.maximum(n - ddof, 1)), np.nan)
    lo, hi = grouped.minmax()
    sd = np.where((n > ddof) & (lo == hi), 0.0, sd)

    usable = np.isfinite(sd) & (sd > 0)
    z = np.zeros(len(judgments))
    rows = usable[w] & ~given
    z[rows] = (judgments.score[rows] - mean[w[rows]]) / sd[w[rows]]
    z[given] = judgments.given_z[given]
    return ZScores(z=z, mean=mean, sd=sd, ddof=ddof, exclude_references=exclude_references)


@dataclass(frozen=True, eq=False)
class SystemScores:
    """Per-system scores, sorted best first by mean z (ties: lower system id first).

    Only systems with at least one included output judgment appear. ``n`` counts the
    system's included judgments (repeats included), ``n_segments`` its distinct segments
    judged. ``mean_score`` / ``mean_z`` are averaged as ``averaging`` says (WMT's "Ave raw" /
    "Ave z" for "segments"). ``mean_score`` is NaN for a system some of whose included
    judgments have no raw score (imported as given z-scores): a raw mean over part of them
    would not be the system's.
    """

    system: NDArray[np.int64]
    n: NDArray[np.int64]
    mean_score: NDArray[np.float64]
    mean_z: NDArray[np.float64]
    n_segments: NDArray[np.int64]
    averaging: Averaging = "segments"

    def __len__(self) -> int:
        return int(self.system.shape[0])


def _output_rows(
    judgments: DAJudgments, include_workers: NDArray[np.bool_] | None
) -> NDArray[np.bool_]:
    rows = _every_output_row(judgments)
    return (
        rows if include_workers is None else rows & judgments.worker_mask_to_rows(include_workers)
    )


def _every_output_row(judgments: DAJudgments) -> NDArray[np.bool_]:
    """Per row: a system output or repeat of a known system (two comparisons, the result of
    ``np.isin(role, OUTPUT_ROLES)``, which sorts at a million rows)."""
    role = judgments.role
    rows = role == OUTPUT_ROLES[0]
    for other in OUTPUT_ROLES[1:]:
        rows |= role == other
    rows &= judgments.system >= 0
    return rows


@dataclass(frozen=True, eq=False)
class Segments:
    """The (system, segment) pairs of every output row of some judgments, numbered once for
    any choice of included workers (:func:`system_scores_and_samples` takes it for each
    variant of one analysis instead of numbering the pairs again).

    ``rows``: per row, an output row (:data:`OUTPUT_ROLES`, a known system); ``code``: per
    output row (in row order), its pair, pairs numbered in (system, item) order as
    :func:`_segment_means` numbers them; ``pair_system``: each pair's system;
    ``worker_index``: each output row's worker (position in ``judgments.workers``).

    A variant's pairs are the pairs of its rows, and each of its sums adds the same rows in
    the same (row) order as :func:`_segment_means` over those rows, so the results are the
    same to the last bit (tests/analytics/stats/test_da_segments.py)."""

    rows: NDArray[np.bool_]
    code: NDArray[np.integer]
    pair_system: NDArray[np.int64]
    worker_index: NDArray[np.integer]
    n_workers: int

    @classmethod
    def of(cls, judgments: DAJudgments) -> Segments:
        rows = _every_output_row(judgments)
        pair_system, code = _segment_codes(judgments, rows)
        return cls(
            rows=rows,
            # Pair numbers fit int32 (fewer pairs than rows): half the memory, same bincounts.
            code=code.astype(np.int32) if code.size < 2**31 else code,
            pair_system=pair_system,
            worker_index=judgments.worker_index[rows],
            n_workers=judgments.n_workers,
        )

    @classmethod
    def of_items(
        cls,
        judgments: DAJudgments,
        item_code: NDArray[np.integer],
        pair_of_item: NDArray[np.integer],
        pair_system: NDArray[np.int64],
    ) -> Segments | None:
        """:meth:`of` from items numbered already (an incremental recompute keeps them between
        runs): ``item_code`` per row (-1: none), ``pair_of_item`` each item's pair and
        ``pair_system`` each pair's system, pairs numbered in (system, item) order. Pairs
        without a row here stay as empty pairs (:meth:`means` leaves them out), so the numbers
        of the others keep :meth:`of`'s order and the results are the same. None when an
        output row has no item or a system other than its item's (then :meth:`of`)."""
        rows = _every_output_row(judgments)
        items = item_code[rows]
        if items.size and items.min() < 0:
            return None
        code = pair_of_item[items]
        del items
        if not np.array_equal(pair_system[code], judgments.system[rows]):
            return None
        return cls(
            rows=rows,
            code=code,
            pair_system=np.asarray(pair_system, dtype=np.int64),
            worker_index=judgments.worker_index[rows],
            n_workers=judgments.n_workers,
        )

    def means(
        self,
        include_workers: NDArray[np.bool_] | None,
        values: list[NDArray[np.float64]],
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], list[NDArray[np.float64]]]:
        """:func:`_segment_means` over the output rows of the included workers (``values``
        per row of the judgments)."""
        k = self.pair_system.shape[0]
        mask = None if include_workers is None else np.asarray(include_workers, dtype=bool)
        if mask is not None and mask.shape != (self.n_workers,):
            raise ValueError(
                f"include_workers must have shape ({self.n_workers},) aligned to .workers"
            )
        # Each array's rows taken in turn, per variant, and let go once summed: at a million
        # judgments the memory counts (this is a recompute's peak) more than the few ms of
        # taking them again.
        if mask is None or mask.all():
            code, rows = self.code, self.rows
        else:
            rows = self.rows.copy()
            rows[rows] = mask[self.worker_index]
            code = self.code[rows[self.rows]]
        n = np.bincount(code, minlength=k)
        present = n > 0
        n = n[present]
        means = []
        for v in values:
            taken = v[rows]
            means.append(np.bincount(code, weights=taken, minlength=k)[present] / n)
            del taken
        return self.pair_system[present], n.astype(np.int64), means


def _check_averaging(averaging: str) -> None:
    if averaging not in AVERAGINGS:
        raise ValueError(f"averaging must be one of {AVERAGINGS}, got {averaging!r}")


def _segment_means(
    judgments: DAJudgments, rows: NDArray[np.bool_], values: list[NDArray[np.float64]]
) -> tuple[NDArray[np.int64], NDArray[np.int64], list[NDArray[np.float64]]]:
    """Per (system, segment) among ``rows``: its system id, its number of judgments and the
    mean of each array in ``values``, sorted by (system, segment).

    The segment of an output judgment is its ``item`` (the output id: a system has one output
    per segment, and a repeat carries the id of the output it repeats), so (system, item) is
    (system, segment). System and item ids are numbered by :func:`._codes.factorise` (no
    sort for dense ids). When every item belongs to one system, as output ids do, the pairs
    are the items, put in (system, item) order by a sort of the distinct items only; else
    they are numbered by an int64 key (system code x number of distinct items + item code).
    Either way the pairs' numbering is that of sorted (system, item) and each mean sums its
    judgments in row order, so the results are those of ``np.unique`` over the pairs.
    """
    pair_system, code = _segment_codes(judgments, rows)
    k = pair_system.shape[0]
    n = np.bincount(code, minlength=k)
    means = [np.bincount(code, weights=v[rows], minlength=k) / n for v in values]
    return pair_system, n.astype(np.int64), means


def _segment_codes(
    judgments: DAJudgments, rows: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """The (system, segment) pairs among ``rows``, sorted: each pair's system id, and per row
    of ``rows`` (in row order) its pair (see :func:`_segment_means`)."""
    systems, system_code = factorise(judgments.system[rows])
    items, item_code = factorise(judgments.item[rows])
    n_items = items.shape[0]
    item_system = np.full(n_items, -1, dtype=np.intp)
    item_system[item_code] = system_code
    if (item_system[item_code] == system_code).all():
        # Items by system, in item order within one: np.lexsort((arange, item_system)), as
        # one 16-bit radix pass over the system codes (a stable sort keeps item order).
        pair_items = stable_order(item_system)
        rank = np.empty(n_items, dtype=np.intp)
        rank[pair_items] = np.arange(n_items)
        code = rank[item_code]
        pair_system = systems[item_system[pair_items]]
        del rank, item_system, item_code, system_code
    else:
        width = np.int64(max(n_items, 1))
        pair_keys, code = factorise(system_code.astype(np.int64) * width + item_code)
        pair_system = systems[pair_keys // width]
    return pair_system.astype(np.int64), code


def system_scores(
    judgments: DAJudgments,
    z: NDArray[np.float64] | ZScores,
    *,
    include_workers: NDArray[np.bool_] | None = None,
    averaging: Averaging = "segments",
) -> SystemScores:
    """Mean raw score, mean z, judgments and segments per system over system outputs and
    repeats (QC items never count).

    ``averaging="segments"`` (the default): WMT's official "Ave raw" and "Ave z" (WMT16 on):
    the mean over the system's segments of the mean over each segment's judgments.
    ``averaging="judgments"``: the flat mean over the judgments (2014 Table 3).
    ``include_workers`` is a boolean mask aligned to ``judgments.workers`` (for instance
    ``WorkerReliability.reliable``, the default in the paper); None includes every worker.
    """
    return system_scores_and_samples(
        judgments, z, include_workers=include_workers, averaging=averaging, unit=None
    )[0]


def system_scores_and_samples(
    judgments: DAJudgments,
    z: NDArray[np.float64] | ZScores,
    *,
    include_workers: NDArray[np.bool_] | None = None,
    averaging: Averaging = "segments",
    unit: Averaging | None = "segments",
    segments: Segments | None = None,
) -> tuple[SystemScores, list[NDArray[np.float64]] | None]:
    """:func:`system_scores` and, unless ``unit`` is None, :func:`system_samples` of the
    z-scores for its systems, with the segment means computed once for both. ``segments``:
    the pairs of ``judgments`` numbered already (:meth:`Segments.of`, shared by the variants
    of one analysis); the results are the same."""
    _check_averaging(averaging)
    if unit is not None:
        _check_averaging(unit)
    zz = z.z if isinstance(z, ZScores) else np.asarray(z, dtype=np.float64)
    if zz.shape != (len(judgments),):
        raise ValueError("z must have one value per judgment")
    if segments is not None:
        if segments.rows.shape != (len(judgments),):
            raise ValueError("segments are of other judgments")
        seg_system, seg_n, (seg_score, seg_z) = segments.means(
            include_workers, [judgments.score, zz]
        )
    else:
        rows = _output_rows(judgments, include_workers)
        seg_system, seg_n, (seg_score, seg_z) = _segment_means(
            judgments, rows, [judgments.score, zz]
        )
    systems, seg_code = factorise(seg_system)
    m = systems.shape[0]
    n_segments = np.bincount(seg_code, minlength=m)
    n = np.bincount(seg_code, weights=seg_n, minlength=m)
    if averaging == "segments":
        mean_score = np.bincount(seg_code, weights=seg_score, minlength=m) / n_segments
        mean_z = np.bincount(seg_code, weights=seg_z, minlength=m) / n_segments
    else:
        # Segment means weighted by their judgments = the flat mean over judgments.
        mean_score = np.bincount(seg_code, weights=seg_score * seg_n, minlength=m) / n
        mean_z = np.bincount(seg_code, weights=seg_z * seg_n, minlength=m) / n
    # Best first; lexsort's last key is primary.  Ties broken by system id for determinism.
    order = np.lexsort((systems, -mean_z))
    scores = SystemScores(
        system=systems[order],
        n=n[order].astype(np.int64),
        mean_score=mean_score[order],
        mean_z=mean_z[order],
        n_segments=n_segments[order].astype(np.int64),
        averaging=averaging,
    )
    if unit is None:
        return scores, None
    if unit == "segments":
        return scores, _split_by_system(seg_system, seg_z, scores.system)
    if segments is not None:
        rows = _output_rows(judgments, include_workers)
    return scores, _split_by_system(judgments.system[rows], zz[rows], scores.system)


def _split_by_system(
    sys_ids: NDArray[np.int64], vals: NDArray[np.float64], systems: NDArray[np.int64]
) -> list[NDArray[np.float64]]:
    """Per system in ``systems`` order, the values of ``vals`` whose ``sys_ids`` is it (in
    their order): one stable sort and one split, not a mask per system."""
    order = stable_order(sys_ids)
    sys_sorted, vals_sorted = sys_ids[order], vals[order]
    lo = np.searchsorted(sys_sorted, systems, side="left")
    hi = np.searchsorted(sys_sorted, systems, side="right")
    return [vals_sorted[a:b] for a, b in zip(lo, hi, strict=True)]


def system_samples(
    judgments: DAJudgments,
    values: NDArray[np.float64],
    systems: NDArray[np.int64],
    *,
    include_workers: NDArray[np.bool_] | None = None,
    unit: Averaging = "segments",
) -> list[NDArray[np.float64]]:
    """Per system in ``systems`` order, the sample its significance tests compare.

    ``unit="segments"`` (the default, WMT's official test): the system's segment means of
    ``values`` (e.g. its segment-mean z-scores), one per segment.  ``unit="judgments"``: its
    included output values, one per judgment.  The input to
    :func:`analytics.stats.significance.pairwise_rank_sum`.  One sort and one split, not a
    mask per system.
    """
    _check_averaging(unit)
    rows = _output_rows(judgments, include_workers)
    vals = np.asarray(values, dtype=np.float64)
    if unit == "segments":
        sys_ids, _, (vals,) = _segment_means(judgments, rows, [vals])
    else:
        sys_ids, vals = judgments.system[rows], vals[rows]
    return _split_by_system(sys_ids, vals, systems)


def calibrated_gain(
    best_new: float, best_old: float, benchmark_on_old: float, benchmark_on_new: float
) -> tuple[float, float]:
    """Test-set difficulty calibration, 2014 Section 4 and Table 3.

    One fixed benchmark system translates both test sets; delta = benchmark_on_old -
    benchmark_on_new is how much harder the new test set is.  The calibrated gain of the
    state of the art is (best_new - best_old) + delta.  Returns (gain, delta).
    """
    delta = benchmark_on_old - benchmark_on_new
    return (best_new - best_old) + delta, delta
