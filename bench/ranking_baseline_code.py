"""The code issue 16 replaced in the ranking recompute, kept for bench/ranking_stats.py's
alternated baseline (as bench/da_baseline_code.py is for direct assessment).

As it was at commit bd9c1bc: ``load_ranking_judgments`` (one ``values_list`` per table, lists
of Python tuples, then the arrays); the bootstrap (each method draws its own replicates,
Bradley-Terry calls choix once per replicate; a system a replicate did not draw counted as
ranked last); TrueSkill's updates as a Python loop (``engine="python"``, the same arithmetic);
the included workers' agreement computed again when everyone is included. :func:`install`
puts them back in place of the current ones, in a bench process only.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import choix
import numpy as np
import scipy.sparse as sp
from django.db.models import Q
from numpy.typing import ArrayLike, NDArray

from analytics.kinds.ranking.loading import (
    _RANKING_ROLES,
    _SET_SHIFT,
    LoadedRanking,
    _expected_rank,
    _gold_system_ids,
)
from analytics.loading import held_back_assignment_ids, id_array, lookup, nullable_ids
from analytics.stats.ranking import RankingJudgments
from analytics.stats.ranking.bootstrap import _CHUNK_CELLS, BootstrapResult, Method, Unit, _point
from analytics.stats.ranking.judgments import Pairs
from analytics.stats.ranking.scores import (
    DEFAULT_BT_ALPHA,
    BTTies,
    SystemScores,
    TieRule,
    _cells,
    bt_matrix,
    competition_ranks,
    expected_wins_batch,
    pair_counts,
    win_ratio_batch,
)
from analytics.stats.significance import ClusterMethod, rank_ranges, wmt_clusters
from campaigns.models import HitSlot, Output, SlotRole
from judgments.models import CampaignWorker, Judgment


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


def load_ranking_judgments(campaign_id: int, **_current_options: object) -> LoadedRanking:
    """Load campaign ``campaign_id``'s ranking judgments (five queries in all); the current
    loader's options (the kernels' warm-up) are ignored."""
    judgment_rows = list(
        Judgment.objects.filter(campaign_id=campaign_id, rank__isnull=False)
        .order_by("id")
        .values_list("id", "worker_id", "assignment_id", "slot_id", "rank")
    )
    slot_rows = list(
        HitSlot.objects.filter(hit__campaign_id=campaign_id)
        .order_by("id")
        .values_list(
            "id",
            "hit_id",
            "group",
            "role",
            "segment_id",
            "output_id",
            "expected_rank_min",
            "expected_rank_max",
            "hit__is_qualification",
        )
    )
    output_rows = list(
        Output.objects.filter(system__campaign_id=campaign_id)
        .order_by("id")
        .values_list("id", "system_id", "segment_id")
    )
    # Rejected, or opened from MTurk and not confirmed by MTurk yet (analytics.loading).
    rejected_assignments = held_back_assignment_ids(campaign_id)
    flags = list(
        CampaignWorker.objects.filter(campaign_id=campaign_id)
        .filter(Q(excluded=True) | Q(untrusted=True))
        .order_by("worker_id")
        .values_list("worker_id", "excluded", "untrusted")
    )
    excluded_workers = id_array([worker for worker, excluded, _ in flags if excluded])
    untrusted_workers = id_array([worker for worker, _, untrusted in flags if untrusted])

    table = np.array(judgment_rows, dtype=np.int64).reshape(-1, 5)
    order, worker, assignment, slot, rank = (table[:, i] for i in range(5))
    n_read = int(table.shape[0])

    if slot_rows:
        ids, hits, groups, roles, segments, outputs, lows, highs, qualification = zip(
            *slot_rows, strict=True
        )
        slot_id = id_array(list(ids))
        slot_hit = id_array(list(hits))
        slot_group = id_array(list(groups))
        slot_role = np.array([_RANKING_ROLES.get(role, 0) for role in roles], dtype=np.int8)
        slot_segment = nullable_ids(segments)
        slot_output = nullable_ids(outputs)
        slot_expected = _expected_rank(nullable_ids(lows), nullable_ids(highs))
        slot_qualification = np.array(qualification, dtype=bool)
    else:
        slot_id = slot_hit = slot_group = slot_segment = slot_output = slot_expected = id_array([])
        slot_role = np.zeros(0, dtype=np.int8)
        slot_qualification = np.zeros(0, dtype=bool)

    at = lookup(slot_id, slot, "judged slot(s)")
    qualification = slot_qualification[at]
    role = slot_role[at]
    keep = ~qualification & (role > 0)
    n_qualification = int(np.count_nonzero(qualification))
    n_skipped = int(np.count_nonzero(~qualification & (role == 0)))
    # As the sweep counts them: every ranking of a rejected (or unconfirmed MTurk) assignment
    # outside the test.
    n_rejected_read = int(
        np.count_nonzero(np.isin(assignment, rejected_assignments) & ~qualification)
    )
    order, worker, assignment, slot, rank, at, role = (
        column[keep] for column in (order, worker, assignment, slot, rank, at, role)
    )

    output = np.array(output_rows, dtype=np.int64).reshape(-1, 3)
    item = slot_output[at]
    segment = slot_segment[at]
    system = np.full(item.shape[0], -1, dtype=np.int64)
    is_system = role == _RANKING_ROLES[SlotRole.SYSTEM.value]
    with_output = item >= 0
    if with_output.any():
        out_at = lookup(output[:, 0], item[with_output], "ranked output(s)")
        system[with_output] = output[out_at, 1]
        segment[with_output & (segment < 0)] = output[out_at, 2][segment[with_output] < 0]
    if (is_system & ~with_output).any():
        missing = slot[is_system & ~with_output][:5].tolist()
        raise ValueError(f"system slot(s) {missing} have no output")
    ranking_set = (slot_hit[at] << _SET_SHIFT) | slot_group[at]
    gold = ~is_system
    system[gold] = _gold_system_ids(assignment[gold], ranking_set[gold], slot[gold])

    judgments = RankingJudgments(
        worker=worker,
        assignment=assignment,
        ranking_set=ranking_set,
        segment=segment,
        system=system,
        rank=rank,
        expected_rank=slot_expected[at],
        order=order.astype(np.float64),
    )
    rejected = np.isin(assignment, rejected_assignments)
    return LoadedRanking(
        campaign_id=campaign_id,
        judgments=judgments,
        slot=slot,
        rejected=rejected,
        excluded=np.isin(worker, excluded_workers),
        excluded_workers=excluded_workers,
        untrusted_workers=untrusted_workers,
        n_read=n_read,
        n_rejected_read=n_rejected_read,
        n_qualification=n_qualification,
        n_skipped=n_skipped,
    )


def install() -> None:
    """Use the previous code (this process only)."""
    from analytics.kinds.ranking import actions, loading
    from analytics.stats.ranking import report
    from analytics.stats.ranking.trueskill_rating import trueskill_ratings

    loading.load_ranking_judgments = load_ranking_judgments
    actions.load_ranking_judgments = load_ranking_judgments
    report.bootstrap_scores = bootstrap_scores
    actions.bootstrap_counting_scores = bootstrap_counting_scores
    report.trueskill_ratings = partial(trueskill_ratings, engine="python")
    current = report.analyse_ranking

    def analyse_ranking(judgments, config=None, **kwargs):
        result = current(judgments, config, **kwargs)
        # The previous code computed the included workers' agreement in any case.
        chance = result.config.agreement_chance
        report.intra_annotator_agreement(
            judgments, chance=chance, include_workers=result.included_workers
        )
        report.inter_annotator_agreement(
            judgments, chance=chance, include_workers=result.included_workers
        )
        return result

    actions.analyse_ranking = analyse_ranking
