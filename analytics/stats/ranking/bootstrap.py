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

Speed: per-unit outcome counts are stored once as a sparse (units x 2m^2) matrix; a chunk of
replicates is one integer draw, one bincount (unit multiplicities) and one sparse-dense
product, so the cost does not grow with the number of pairs per replicate.  Win ratios and
Expected Wins then score all replicates in one vectorised call; Bradley-Terry calls choix
once per replicate on an m x m matrix, warm-started at the full-data estimate.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from analytics.stats._lazy import lazy_module
from analytics.stats.ranking.judgments import Pairs, RankingJudgments
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

# Imported on first use: a web worker loads this module but never computes (issue 16; choix
# imports scipy).
choix = lazy_module("choix")
sp = lazy_module("scipy.sparse")

__all__ = [
    "BootstrapResult",
    "Method",
    "Unit",
    "bootstrap_counting_scores",
    "bootstrap_scores",
    "replicate_counts",
]

Method = Literal["bradley_terry", "expected_wins", "win_ratio"]
Unit = Literal["set", "ballot"]

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


def replicate_counts(
    pairs: Pairs,
    systems: NDArray[np.int64],
    n_samples: int,
    rng: np.random.Generator,
    unit: Unit = "set",
) -> Iterator[tuple[NDArray[np.float64], NDArray[np.float64]]]:
    """Yield (wins, ties) of shape (chunk, m, m) for n_samples bootstrap replicates in chunks.

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
    _, unit_code = np.unique(raw_unit, return_inverse=True)
    n_units = int(unit_code.max()) + 1 if unit_code.size else 0
    if n_units == 0:
        yield np.zeros((n_samples, m, m)), np.zeros((n_samples, m, m))
        return
    # Duplicate (unit, cell) entries are summed by the sparse constructor.
    per_unit = sp.csr_matrix(
        (np.ones(int(keep.sum())), (unit_code.reshape(-1), col[keep])),
        shape=(n_units, 2 * m * m),
    )
    cells_by_unit = per_unit.T.tocsr()
    chunk = max(1, min(n_samples, _CHUNK_CELLS // n_units))
    for start in range(0, n_samples, chunk):
        size = min(chunk, n_samples - start)
        draws = rng.integers(0, n_units, size=(size, n_units))
        offsets = (np.arange(size, dtype=np.int64) * n_units)[:, None]
        mult = np.bincount((draws + offsets).reshape(-1), minlength=size * n_units)
        mult = mult.reshape(size, n_units).astype(np.float64)
        totals = np.asarray(cells_by_unit @ mult.T).T  # (size, 2 m^2)
        wins = totals[:, : m * m].reshape(size, m, m)
        upper = totals[:, m * m :].reshape(size, m, m)
        yield wins, upper + np.swapaxes(upper, 1, 2)


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
    rng = np.random.default_rng(seed)

    parts: list[NDArray[np.float64]] = []
    for wins, ties in replicate_counts(pairs, counts.systems, n_samples, rng, unit):
        if method == "win_ratio":
            parts.append(win_ratio_batch(wins, ties, win_ties))
        elif method == "expected_wins":
            parts.append(expected_wins_batch(wins))
        else:
            comp = bt_matrix(wins, ties, bt_ties)
            parts.append(np.stack([_bt_replicate(c, point.score, bt_alpha) for c in comp]))
    return _summarise(point, parts, level, alpha, n_samples, unit, seed, cluster_method)


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
    with the same seed would give, for the cost of one draw. ``methods`` maps a name of the
    caller's to (method, tie rule); Bradley-Terry is not a counting score and is refused."""
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    if any(method == "bradley_terry" for method, _ in methods.values()):
        raise ValueError("bootstrap Bradley-Terry with bootstrap_scores")
    pairs = data.pairs if isinstance(data, RankingJudgments) else data
    counts = pair_counts(pairs, systems)
    points = {
        name: _point(counts, method, ties, "half", DEFAULT_BT_ALPHA)
        for name, (method, ties) in methods.items()
    }
    parts: dict[str, list[NDArray[np.float64]]] = {name: [] for name in methods}
    rng = np.random.default_rng(seed)
    for wins, ties_counts in replicate_counts(pairs, counts.systems, n_samples, rng, unit):
        for name, (method, ties) in methods.items():
            if method == "win_ratio":
                parts[name].append(win_ratio_batch(wins, ties_counts, ties))
            else:
                parts[name].append(expected_wins_batch(wins))
    return {
        name: _summarise(
            points[name], parts[name], level, alpha, n_samples, unit, seed, cluster_method
        )
        for name in methods
    }


def _summarise(
    point: SystemScores,
    parts: list[NDArray[np.float64]],
    level: float,
    alpha: float,
    n_samples: int,
    unit: Unit,
    seed: int,
    cluster_method: ClusterMethod,
) -> BootstrapResult:
    """Intervals, rank ranges, bootstrap p-values and clusters from the replicates."""
    m = point.systems.shape[0]
    samples = np.concatenate(parts, axis=0) if parts else np.zeros((0, m))

    tail = (1.0 - level) / 2.0
    if m:
        ci_low, ci_high = np.nanquantile(samples, [tail, 1.0 - tail], axis=0)
        ranks = competition_ranks(samples)
        rank_low = np.quantile(ranks, tail, axis=0, method="inverted_cdf").astype(np.int64)
        rank_high = np.quantile(ranks, 1.0 - tail, axis=0, method="inverted_cdf").astype(np.int64)
    else:
        ci_low = ci_high = np.zeros(0)
        rank_low = rank_high = np.zeros(0, dtype=np.int64)

    # p[i, j] = (1 + #{b: s_b[i] <= s_b[j]}) / (1 + B); NaN scores never count as higher.
    s = np.where(np.isnan(samples), -np.inf, samples)
    not_higher = np.sum(s[:, :, None] <= s[:, None, :], axis=0)
    p = (1.0 + not_higher) / (1.0 + samples.shape[0])
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


def _bt_replicate(
    comp: NDArray[np.float64], start: NDArray[np.float64], bt_alpha: float
) -> NDArray[np.float64]:
    if comp.shape[0] < 2:
        return np.zeros(comp.shape[0])
    return np.asarray(
        choix.ilsr_pairwise_dense(
            comp, alpha=bt_alpha, initial_params=start, max_iter=500, tol=1e-10
        )
    )
