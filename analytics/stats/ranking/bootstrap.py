"""Bootstrap confidence intervals, rank ranges and significance clusters for system scores.

Resampling unit: the *ranking set* (default) -- all ballots of a set (its redundant workers)
are drawn together, because judgments of the same outputs are not independent; ``unit =
"ballot"`` resamples single ballots instead.  Each replicate draws as many units as there are,
with replacement (seeded: ``numpy.random.default_rng(seed)``), recounts the win / tie matrices
and rescores.  WMT13 (Bojar et al. 2013, section 3) used the same bootstrap (1000 samples) to
give each system a rank range instead of a single rank; its reference code resampled single
pairwise judgments (keisks/wmt-trueskill src/infer_EW.py).

Reported, for a score method (Bradley-Terry, Expected Wins or a win ratio):

- ``ci_low`` / ``ci_high``: percentile interval of the score at ``level`` (default 95%).
- ``rank_low`` / ``rank_high``: WMT13's rank range: the empirical (inverted-CDF) quantiles
  (1 - level)/2 and (1 + level)/2 of the system's rank over the replicates, i.e. the ranks
  left after dropping the top and bottom 2.5% of replicates.
- ``p_greater[i, j]``: one-sided bootstrap p-value of "i scores higher than j",
  (1 + #{replicates with score_i <= score_j}) / (1 + B) (the +1 keeps p > 0 and makes it a
  valid p-value for a finite number of replicates; Davison & Hinkley 1997, eq. 4.11).
- ``clusters`` / ``cluster_rank_best`` / ``cluster_rank_worst``: WMT-style clusters from
  :func:`analytics.stats.significance.wmt_clusters` on the point scores and ``p_greater`` at
  ``alpha`` (default 0.05; see that module for the exact definition: every system of a
  higher cluster significantly beats every system of every lower cluster), with
  :func:`~analytics.stats.significance.rank_ranges`.

Systems a replicate did not draw (small campaigns: a system in few sets may be in none of
the drawn ones) are left out of that replicate, as WMT13's resampling code does (a resample
scores and ranks only the systems it has; a system's rank range is over the samples it is
in): no score, no rank, not an opponent in Expected Wins' mean, not fitted by Bradley-Terry;
its interval and rank range are over the replicates that have it, and a p-value of two
systems over the replicates that have both (:func:`_summarise`). Nothing changes when every
replicate has every system, as in any campaign of useful size.

Speed: from :data:`COMPILED_FROM_DRAWS` draws (or once numba is loaded) the draws, their
counting per unit and the replicates' totals per cell are one compiled pass
(:mod:`~analytics.stats.ranking.bootstrap_kernel`: the same draws from the same PCG64 stream,
integer totals); otherwise per-unit outcome counts are stored once as a sparse
(2m^2 x units) matrix and a chunk of replicates is one integer draw, one bincount (unit
multiplicities) and one sparse-dense product. Either way the cost does not grow with the
number of pairs per replicate. The replicates
are drawn once per (pairs, systems, samples, seed, unit) and shared by every method
(:func:`replicates`). Win ratios and Expected Wins then score all replicates in one
vectorised call; Bradley-Terry fits all replicates at once (:func:`ilsr_dense_batch`: choix's
I-LSR iteration on a batch of m x m matrices), warm-started at the full-data estimate.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.ranking.judgments import Pairs, RankingJudgments, _dense_codes
from analytics.stats.ranking.scores import (
    DEFAULT_BT_ALPHA,
    BTTies,
    PairCounts,
    SystemScores,
    TieRule,
    _cells,
    bradley_terry,
    bt_matrix,
    competition_ranks,
    expected_wins,
    expected_wins_batch,
    pair_counts,
    win_ratio_batch,
    win_ratios,
)
from analytics.stats.significance import ClusterMethod, rank_ranges, wmt_clusters

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
sp = lazy_module("scipy.sparse")

__all__ = [
    "BootstrapResult",
    "Method",
    "Replicates",
    "Unit",
    "bootstrap_counting_scores",
    "bootstrap_scores",
    "bt_batch",
    "COMPILED_FROM_DRAWS",
    "ilsr_dense_batch",
    "replicate_counts",
    "replicates",
    "use_compiled",
]

Method = Literal["bradley_terry", "expected_wins", "win_ratio"]
Unit = Literal["set", "ballot"]

# From this many draws (units x replicates) the bootstrap draws and counts with the compiled
# kernel even when numba is not loaded yet: importing numba and loading the kernel from its
# cache costs a fresh process about 0.5 s of CPU once, the kernel saves about 10 ns a draw
# (0.4-0.5 s per variant at 50,000 sets and 1000 replicates). 2,000 sets of 5 outputs have
# about 18,000 comparisons, where TrueSkill loads numba anyway (COMPILED_FROM_MATCHES).
COMPILED_FROM_DRAWS = 2_000_000
# numpy draws a range above 2**32 by another algorithm, which the kernel does not copy.
_LARGEST_COMPILED_UNITS = 0xFFFFFFFF

# Unit multiplicities per chunk of replicates are a dense (chunk x units) float array; keep it
# near 32 MB.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Point scores with bootstrap intervals, rank ranges, p-values and clusters.

    Everything is aligned to ``scores.systems`` (sorted ids); ``samples`` holds the score of
    every system in every replicate (B x m).
    """

    scores: SystemScores
    level: float
    alpha: float
    n_samples: int
    unit: Unit
    seed: int
    samples: NDArray[np.float64]
    ci_low: NDArray[np.float64]
    ci_high: NDArray[np.float64]
    rank_low: NDArray[np.int64]
    rank_high: NDArray[np.int64]
    p_greater: NDArray[np.float64]
    clusters: NDArray[np.int64]
    cluster_rank_best: NDArray[np.int64]
    cluster_rank_worst: NDArray[np.int64]

    @property
    def systems(self) -> NDArray[np.int64]:
        return self.scores.systems

    @property
    def score(self) -> NDArray[np.float64]:
        return self.scores.score


def _unit_cells(
    pairs: Pairs, systems: NDArray[np.int64], unit: Unit
) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Per counted pair, its cell (win cells 0 .. m^2 - 1, then the tie cells) and its unit's
    code (0 .. n_units - 1, in unit id order), and the number of units.

    Only units (sets or ballots) with at least one counted pair are resampled, so dropping
    workers or systems upstream does not leave empty units diluting the replicates.
    """
    m = systems.shape[0]
    cells, tie_cells = _cells(pairs, systems)
    col = np.where(cells >= 0, cells, np.where(tie_cells >= 0, m * m + tie_cells, -1))
    keep = col >= 0
    if unit == "set":
        raw_unit = pairs.set_index[keep]
    elif unit == "ballot":
        raw_unit = pairs.ballot[keep]
    else:
        raise ValueError(f"unit must be 'set' or 'ballot', got {unit!r}")
    # Set and ballot indices are dense codes already: their own short range, no sort.
    n_units, unit_code = _dense_codes(raw_unit)
    return col[keep], unit_code, n_units


def _unit_matrix(col: NDArray[np.int64], unit_code: NDArray[np.int64], m: int, n_units: int):
    """The per-unit outcome counts as a sparse (2 m^2 x units) matrix (numpy path)."""
    # Duplicate (cell, unit) entries are summed by the sparse constructor.
    return sp.csr_matrix(
        (np.ones(col.shape[0]), (col, unit_code)),
        shape=(2 * m * m, n_units),
    )


def use_compiled(n_draws: int, n_units: int) -> bool:
    """Whether to draw and count with the compiled kernel (``bootstrap_kernel``; the same
    draws and counts): from :data:`COMPILED_FROM_DRAWS` draws on, or once numba is loaded in
    this process anyway (TrueSkill's kernel), when its import is no longer to pay."""
    if not 1 <= n_units <= _LARGEST_COMPILED_UNITS:
        return False
    return n_draws >= COMPILED_FROM_DRAWS or _numba_loaded()


def _numba_loaded() -> bool:
    return "numba" in sys.modules


def _replicate_chunks(
    pairs: Pairs,
    systems: NDArray[np.int64],
    n_samples: int,
    rng: np.random.Generator,
    unit: Unit,
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    m = systems.shape[0]
    col, unit_code, n_units = _unit_cells(pairs, systems, unit)
    if n_units == 0:
        yield np.zeros((n_samples, m, m)), np.zeros((n_samples, m, m))
        return
    if use_compiled(n_units * n_samples, n_units) and type(rng.bit_generator) is np.random.PCG64:
        # The same draws, counted and multiplied out where they are made (bootstrap_kernel).
        from analytics.stats.ranking.bootstrap_kernel import replicate_totals

        totals = replicate_totals(rng, n_samples, n_units, unit_code, col, 2 * m * m)
        yield _wins_ties(totals, m)
        return
    by_unit = _unit_matrix(col, unit_code, m, n_units)
    # Counts are integers, exact in float32 below 2**24: a replicate's pairs number at most
    # the units drawn times the largest unit's pairs. float32 halves what the product reads.
    largest = float(np.asarray(by_unit.sum(axis=0)).max())
    value_type = np.float32 if n_units * largest < 2**24 else np.float64
    # Unit-major (CSC): the product below walks the units in order, reading each unit's
    # multiplicities (one contiguous row of ``mult``) once and adding them to the unit's few
    # cells, whose output rows stay in cache; row-major (CSR) read the multiplicities of a
    # random unit per non-zero, 4x slower at 50,000 sets (issue 16).
    by_unit = by_unit.astype(value_type).tocsc()
    chunk = max(1, min(n_samples, _CHUNK_CELLS // n_units))
    for start in range(0, n_samples, chunk):
        size = min(chunk, n_samples - start)
        # int64 draws are the same numbers as int32 ones (numpy draws both from 32-bit values
        # when the range fits; test_replicate_counts_match_a_direct_recount checks the
        # stream), and bincount counts int64 (intp) without first copying them: int32 draws
        # cost a conversion that took longer than the counting (issue 16).
        draws = rng.integers(0, n_units, size=(size, n_units), dtype=np.int64)
        # Multiplicities: one bincount over replicate-offset draws (each replicate's
        # counts in its own contiguous block, so the counting stays in cache), then laid
        # out units x replicates for the sparse product, which reads each unit's row
        # contiguously.
        draws += (np.arange(size, dtype=draws.dtype) * n_units)[:, None]
        mult = np.bincount(draws.reshape(-1), minlength=size * n_units)
        del draws
        mult = np.ascontiguousarray(mult.reshape(size, n_units).T, dtype=value_type)
        totals = np.asarray(by_unit @ mult).T.astype(np.float64)  # (size, 2 m^2)
        del mult
        yield _wins_ties(totals, m)


def _wins_ties(
    totals: NDArray[np.float64], m: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(wins, ties) of shape (size, m, m) from per-replicate cell totals (size, 2 m^2)."""
    size = totals.shape[0]
    wins = totals[:, : m * m].reshape(size, m, m)
    upper = totals[:, m * m :].reshape(size, m, m)
    return wins, upper + np.swapaxes(upper, 1, 2)


def replicate_counts(
    pairs: Pairs,
    systems: NDArray[np.int64],
    n_samples: int,
    rng: np.random.Generator,
    unit: Unit = "set",
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Yield (wins, ties) of shape (chunk, m, m) for n_samples bootstrap replicates in chunks.

    Each replicate draws as many units as there are, uniformly with replacement
    (``rng.integers(0, n_units, (chunk, n_units))``); only units (sets or ballots) with at
    least one counted pair are resampled, so dropping workers or systems upstream does not
    leave empty units diluting the replicates.
    """
    yield from _replicate_chunks(pairs, systems, n_samples, rng, unit)


@dataclass(frozen=True, eq=False)
class Replicates:
    """Every replicate's counts, drawn once and shared by every method (module docstring).

    ``wins`` / ``ties`` are (B, m, m); ``absent[b, i]``: system i has comparisons in the
    data but none in replicate b (it was not drawn): it is left out of that replicate.
    """

    wins: NDArray[np.float64]
    ties: NDArray[np.float64]
    absent: NDArray[np.bool_]

    @property
    def left_out(self) -> NDArray[np.int64]:
        """Per replicate, how many systems it leaves out."""
        return self.absent.sum(axis=1)


def replicates(
    pairs: Pairs, systems: NDArray[np.int64], n_samples: int, seed: int, unit: Unit = "set"
) -> Replicates:
    """The bootstrap replicates of ``pairs`` for ``systems`` (sorted ids), ``n_samples`` of
    them drawn from ``numpy.random.default_rng(seed)``: the same draws
    :func:`replicate_counts` makes. Kept on ``pairs`` (a few MB), so that Bradley-Terry,
    Expected Wins and the win ratios of one analysis resample once."""
    cache = pairs.__dict__.setdefault("_replicates", {})
    key = (systems.tobytes(), int(n_samples), int(seed), unit)
    if key in cache:
        return cache[key]
    m = systems.shape[0]
    wins = np.empty((n_samples, m, m))
    ties = np.empty((n_samples, m, m))
    at = 0
    for w, t in _replicate_chunks(pairs, systems, n_samples, np.random.default_rng(seed), unit):
        wins[at : at + w.shape[0]] = w
        ties[at : at + w.shape[0]] = t
        at += w.shape[0]
    in_data = pair_counts(pairs, systems).comparisons.sum(axis=1) > 0
    played = (wins.sum(axis=2) + wins.sum(axis=1) + ties.sum(axis=2)) > 0
    result = Replicates(wins=wins, ties=ties, absent=in_data[None, :] & ~played)
    cache[key] = result
    return result


def _point(
    counts: PairCounts, method: Method, win_ties: TieRule, bt_ties: BTTies, bt_alpha: float
) -> SystemScores:
    if method == "bradley_terry":
        return bradley_terry(counts, ties=bt_ties, alpha=bt_alpha)
    if method == "expected_wins":
        return expected_wins(counts)
    if method == "win_ratio":
        return win_ratios(counts, ties=win_ties)
    raise ValueError(f"method must be one of bradley_terry, expected_wins, win_ratio: {method!r}")


def _replicate_scores(
    reps: Replicates,
    method: Method,
    win_ties: TieRule,
    bt_ties: BTTies,
    bt_alpha: float,
    point: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(B, m) scores of every replicate; NaN for a system the replicate left out."""
    if method == "win_ratio":
        samples = win_ratio_batch(reps.wins, reps.ties, win_ties)
    elif method == "expected_wins":
        # A system the resample did not draw is not in that replicate at all (WMT13's
        # resampling code only knows the systems it drew), so the mean over opponents is over
        # the others it has.
        samples = expected_wins_batch(reps.wins, left_out=reps.left_out)
    else:
        samples = bt_batch(bt_matrix(reps.wins, reps.ties, bt_ties), point, bt_alpha, reps.absent)
    samples[reps.absent] = np.nan
    return samples


def bootstrap_scores(
    data: RankingJudgments | Pairs,
    method: Method = "bradley_terry",
    *,
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    alpha: float = 0.05,
    unit: Unit = "set",
    win_ties: TieRule = "better_or_equal",
    bt_ties: BTTies = "half",
    bt_alpha: float = DEFAULT_BT_ALPHA,
    cluster_method: ClusterMethod = "wmt",
    systems: ArrayLike | None = None,
) -> BootstrapResult:
    """Score systems by ``method`` and bootstrap it (module docstring for every output).

    ``data``: the judgments (all pairs used) or a subset of their pairs (e.g. only trusted
    workers).  ``systems``: ids to score (default all systems in the judgments).
    """
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    pairs = data.pairs if isinstance(data, RankingJudgments) else data
    counts = pair_counts(pairs, systems)
    point = _point(counts, method, win_ties, bt_ties, bt_alpha)
    reps = replicates(pairs, counts.systems, n_samples, seed, unit)
    samples = _replicate_scores(reps, method, win_ties, bt_ties, bt_alpha, point.score)
    return _summarise(
        point, samples, reps.absent, level, alpha, n_samples, unit, seed, cluster_method
    )


def bootstrap_counting_scores(
    data: RankingJudgments | Pairs,
    methods: dict[str, tuple[Method, TieRule]],
    *,
    n_samples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    alpha: float = 0.05,
    unit: Unit = "set",
    cluster_method: ClusterMethod = "wmt",
    systems: ArrayLike | None = None,
) -> dict[str, BootstrapResult]:
    """Several scores that are plain functions of the pair counts (win ratios, Expected Wins),
    bootstrapped from ONE set of resamples: each gets exactly what :func:`bootstrap_scores`
    with the same seed would give, for the cost of one draw (shared with Bradley-Terry's
    bootstrap of the same pairs too: :func:`replicates`). ``methods`` maps a name of the
    caller's to (method, tie rule); Bradley-Terry is not a counting score and is refused."""
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    if any(method == "bradley_terry" for method, _ in methods.values()):
        raise ValueError("bootstrap Bradley-Terry with bootstrap_scores")
    pairs = data.pairs if isinstance(data, RankingJudgments) else data
    counts = pair_counts(pairs, systems)
    reps = replicates(pairs, counts.systems, n_samples, seed, unit)
    out: dict[str, BootstrapResult] = {}
    for name, (method, ties) in methods.items():
        point = _point(counts, method, ties, "half", DEFAULT_BT_ALPHA)
        samples = _replicate_scores(reps, method, ties, "half", DEFAULT_BT_ALPHA, point.score)
        out[name] = _summarise(
            point, samples, reps.absent, level, alpha, n_samples, unit, seed, cluster_method
        )
    return out


def _rank_range(
    ranks: NDArray[np.int64], absent: NDArray[np.bool_], point_rank: NDArray[np.int64], q: float
) -> NDArray[np.int64]:
    """Per system, the inverted-CDF quantile ``q`` of its rank over the replicates that have
    it (WMT13: a system's ranks are collected from the samples it is in); the point rank
    for a system no replicate has."""
    m = ranks.shape[1]
    out = np.empty(m, dtype=np.int64)
    if not absent.any():
        return np.quantile(ranks, q, axis=0, method="inverted_cdf").astype(np.int64)
    for i in range(m):  # per system (m is small), not per replicate or pair
        have = ranks[~absent[:, i], i]
        out[i] = int(np.quantile(have, q, method="inverted_cdf")) if have.size else point_rank[i]
    return out


def _summarise(
    point: SystemScores,
    samples: NDArray[np.float64],
    absent: NDArray[np.bool_],
    level: float,
    alpha: float,
    n_samples: int,
    unit: Unit,
    seed: int,
    cluster_method: ClusterMethod,
) -> BootstrapResult:
    """Intervals, rank ranges, bootstrap p-values and clusters from the replicates.

    A system a replicate left out (``absent``, the resample drew none of its comparisons)
    has no score and no rank there (NaN): its interval and rank range are over the
    replicates that have it, the others are ranked among the systems present, and a p-value
    of two systems counts the replicates that have both. This is what WMT13's bootstrap
    does (keisks/wmt-trueskill: each resample scores and ranks the systems it drew, and a
    system's rank range is taken over the samples it appears in); counting a left-out system
    as last gave a small campaign's unbeaten system a "1-4" range around a one-point
    interval (issue 17).
    """
    m = point.systems.shape[0]
    tail = (1.0 - level) / 2.0
    if m:
        ci_low, ci_high = np.nanquantile(samples, [tail, 1.0 - tail], axis=0)
        ranks = competition_ranks(samples)
        point_rank = competition_ranks(point.score)
        rank_low = _rank_range(ranks, absent, point_rank, tail)
        rank_high = _rank_range(ranks, absent, point_rank, 1.0 - tail)
    else:
        ci_low = ci_high = np.zeros(0)
        rank_low = rank_high = np.zeros(0, dtype=np.int64)

    # p[i, j] = (1 + #{b: s_b[i] <= s_b[j]}) / (1 + #{b}), over the replicates b that have
    # both systems; NaN scores (no comparison that counts) never count as higher.
    s = np.where(np.isnan(samples), -np.inf, samples)
    not_higher = s[:, :, None] <= s[:, None, :]
    if absent.any():
        both = ~absent[:, :, None] & ~absent[:, None, :]
        n_both = both.sum(axis=0)
        not_higher &= both
    else:
        n_both = samples.shape[0]
    p = (1.0 + not_higher.sum(axis=0)) / (1.0 + n_both)
    np.fill_diagonal(p, np.nan)
    # wmt_clusters refuses NaN; a system without comparisons (NaN win ratio) sorts last.
    finite = point.score[np.isfinite(point.score)]
    floor = float(finite.min()) - 1.0 if finite.size else 0.0
    point_score = np.where(np.isnan(point.score), floor, point.score)
    clusters = wmt_clusters(point_score, p, alpha=alpha, method=cluster_method)
    best, worst = rank_ranges(clusters)
    return BootstrapResult(
        scores=point,
        level=level,
        alpha=alpha,
        n_samples=n_samples,
        unit=unit,
        seed=seed,
        samples=samples,
        ci_low=ci_low,
        ci_high=ci_high,
        rank_low=rank_low,
        rank_high=rank_high,
        p_greater=p,
        clusters=clusters,
        cluster_rank_best=best,
        cluster_rank_worst=worst,
    )


def _stationary(generator: NDArray[np.float64]) -> NDArray[np.float64]:
    """Stationary distributions of a batch of Markov-chain generators (B, n, n), scaled to
    sum to n as choix.utils.statdist does: pi Q = 0 with pi_n = 1, solved for the rest."""
    n = generator.shape[-1]
    a = np.swapaxes(generator, 1, 2)
    x = np.linalg.solve(a[:, :-1, :-1], -a[:, :-1, -1:])[..., 0]
    res = np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)
    return (n / res.sum(axis=1, keepdims=True)) * res


def ilsr_dense_batch(
    comp: NDArray[np.float64],
    alpha: float,
    initial_params: NDArray[np.float64],
    max_iter: int = 500,
    tol: float = 1e-10,
) -> NDArray[np.float64]:
    """choix.ilsr_pairwise_dense on a batch of (n x n) comparison matrices at once.

    The same iteration (choix's lsr_pairwise_dense: the LSR chain with every rate
    ``alpha`` plus comp[j, i] / (w_i + w_j), its stationary distribution, centred logs) and
    the same stopping rule per matrix (choix's NormOfDifferenceTest: the L1 change of the
    centred parameters at most ``tol`` * n, from the second iteration on), each matrix
    frozen when it stops; the stationary distribution is solved directly rather than through
    choix's LU of the singular generator, which agrees to rounding (tests).
    """
    b, n = comp.shape[0], comp.shape[1]
    params = np.broadcast_to(np.asarray(initial_params, dtype=np.float64), (b, n)).copy()
    if n < 2 or b == 0:
        return np.zeros((b, n))
    comp_t = np.swapaxes(comp, 1, 2)
    previous: NDArray[np.float64] | None = None
    active = np.arange(b)
    for _ in range(max_iter):
        p = params[active]
        ws = np.exp(p - p.mean(axis=1, keepdims=True))
        ws = (n / ws.sum(axis=1, keepdims=True)) * ws
        chain = alpha + comp_t[active] / (ws[:, None, :] + ws[:, :, None])
        chain -= chain.sum(axis=2)[:, :, None] * np.eye(n)
        dist = _stationary(chain)
        logs = np.log(dist)
        new = logs - logs.mean(axis=1, keepdims=True)
        params[active] = new
        centred = new - new.mean(axis=1, keepdims=True)
        if previous is None:
            previous = np.full((b, n), np.nan)
            previous[active] = centred
            continue
        change = np.abs(previous[active] - centred).sum(axis=1)
        previous[active] = centred
        active = active[~(change <= tol * n)]
        if active.size == 0:
            return params
    raise RuntimeError(f"Did not converge after {max_iter} iterations")


def bt_batch(
    comp: NDArray[np.float64],
    start: NDArray[np.float64],
    bt_alpha: float,
    absent: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """Bradley-Terry θ of every replicate (B, m), warm-started at the full-data estimate;
    each replicate is fitted on the systems it has (``absent`` ones get NaN, and θ is
    centred over the others), replicates with the same systems left out in one batch."""
    b, m = comp.shape[0], comp.shape[1]
    out = np.full((b, m), np.nan)
    if b == 0:
        return out
    patterns, which = np.unique(absent, axis=0, return_inverse=True)
    which = which.reshape(-1)
    for k, pattern in enumerate(patterns):
        rows = np.flatnonzero(which == k)
        keep = np.flatnonzero(~pattern)
        sub = comp[rows][:, keep][:, :, keep]
        theta = (
            ilsr_dense_batch(sub, bt_alpha, start[keep], max_iter=500, tol=1e-10)
            if keep.size >= 2
            else np.zeros((rows.size, keep.size))
        )
        out[np.ix_(rows, keep)] = theta
    return out
