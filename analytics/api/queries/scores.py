"""Scores the API computes from stored results or from the judgments themselves.

Segment-level scores are computed, not stored: :func:`da_segment_scores` and
:func:`ranking_segment_scores` load the campaign with ``analytics.loading`` (one query per
table), select the rows the stored system scores count, and aggregate per (segment, system)
with numpy, so that the z-scores are the statistics' own (same workers, same
standardisation). That is a load of every judgment, so :func:`segment_scores` computes a
campaign's table once per stored result and keeps it in Django's cache (Redis in production,
local memory in the embedded default) under a key naming the stored result's ``computed_at``:
pages slice the cached table, and a recompute invalidates it by changing the key (DESIGN.md:
no statistics recomputed on every page view). :func:`significance_table` reads the stored
pairwise p-values.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from django.core.cache import cache
from numpy.typing import NDArray

from analytics.actions import da_config_for
from analytics.loading import load_da_judgments, load_ranking_judgments, subset
from analytics.models import (
    CampaignResult,
    RankingMethod,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    SystemScore,
    trust_variant_key,
    variant_key,
)
from analytics.stats.direct_assessment import standardize, worker_reliability
from analytics.stats.direct_assessment.scores import OUTPUT_ROLES
from analytics.stats.significance import significance_marks
from campaigns.models import Campaign, Output, Segment, System, TaskKind

__all__ = [
    "DEFAULT_SIGNIFICANCE_METHOD",
    "SEGMENT_CACHE_SECONDS",
    "SegmentTable",
    "da_segment_scores",
    "ranking_segment_scores",
    "segment_scores",
    "segment_table_cache_key",
    "significance_table",
    "stored_computed_at",
]

# --- Segment-level scores --------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """Scores per (segment, system), as parallel arrays sorted by document, segment position
    and system name; rows become dicts only when sliced (one page at a time), so a paginator
    can take it like a list.

    Direct assessment fills ``n`` (judgments), ``mean_score`` and ``mean_z``; ranking fills
    ``n`` (pairwise comparisons with other systems), ``wins``, ``ties``, ``losses``,
    ``n_ranked`` (outputs ranked) and ``mean_rank``. The other kind's columns are None.
    """

    kind: str
    segment: NDArray[np.int64]
    system: NDArray[np.int64]
    n: NDArray[np.int64]
    columns: dict[str, NDArray]
    segment_info: dict[int, tuple[str, str]]  # id -> (document external id, segment external id)
    system_names: dict[int, str]

    def __len__(self) -> int:
        return int(self.segment.shape[0])

    def for_system(self, system: int) -> SegmentTable:
        """Only ``system``'s rows, in the same order (no query: a filter of the cached
        table)."""
        keep = self.system == system
        return replace(
            self,
            segment=self.segment[keep],
            system=self.system[keep],
            n=self.n[keep],
            columns={name: values[keep] for name, values in self.columns.items()},
        )

    def count(self) -> int:
        return len(self)

    def __getitem__(self, index: slice | int) -> list[dict[str, Any]] | dict[str, Any]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        rows = range(len(self))[index]
        out = []
        for i in rows:
            segment = int(self.segment[i])
            system = int(self.system[i])
            document_id, segment_id = self.segment_info.get(segment, ("", ""))
            row: dict[str, Any] = {
                "segment_id": segment,
                "document_external_id": document_id,
                "segment_external_id": segment_id,
                "system_id": system,
                "system": self.system_names.get(system, ""),
                "n": int(self.n[i]),
            }
            for name in SEGMENT_COLUMNS:
                values = self.columns.get(name)
                row[name] = None if values is None else _plain(values[i])
            out.append(row)
        return out


SEGMENT_COLUMNS = ("mean_score", "mean_z", "wins", "ties", "losses", "n_ranked", "mean_rank")


def _plain(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    value = float(value)
    return value if np.isfinite(value) else None


def _group(
    segment: NDArray[np.int64], system: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Distinct (segment, system) pairs (sorted) and, per row, the index of its pair."""
    if segment.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    pairs, inverse = np.unique(np.stack([segment, system], axis=1), axis=0, return_inverse=True)
    return pairs[:, 0], pairs[:, 1], inverse.reshape(-1).astype(np.int64)


def _sorted_table(
    kind: str,
    campaign_id: int,
    segment: NDArray[np.int64],
    system: NDArray[np.int64],
    n: NDArray[np.int64],
    columns: dict[str, NDArray],
) -> SegmentTable:
    """Order rows by document position, segment position and system name (two queries: the
    campaign's segments and systems)."""
    segments = list(
        Segment.objects.filter(campaign_id=campaign_id)
        .order_by()
        .values_list("id", "document__position", "position", "document__external_id", "external_id")
    )
    names = dict(
        System.objects.filter(campaign_id=campaign_id).order_by().values_list("id", "name")
    )
    place = {row[0]: (row[1], row[2]) for row in segments}
    name_rank = {pk: i for i, pk in enumerate(sorted(names, key=lambda pk: (names[pk], pk)))}
    doc_pos = np.array([place.get(int(s), (0, 0))[0] for s in segment], dtype=np.int64)
    seg_pos = np.array([place.get(int(s), (0, 0))[1] for s in segment], dtype=np.int64)
    sys_rank = np.array([name_rank.get(int(s), -1) for s in system], dtype=np.int64)
    order = np.lexsort((sys_rank, segment, seg_pos, doc_pos))
    return SegmentTable(
        kind=kind,
        segment=segment[order],
        system=system[order],
        n=n[order],
        columns={name: values[order] for name, values in columns.items()},
        segment_info={row[0]: (row[3], row[4]) for row in segments},
        system_names=names,
    )


def da_segment_scores(campaign: Campaign, *, include_unreliable: bool) -> SegmentTable:
    """n, mean raw score and mean z per (segment, system) of a direct-assessment campaign.

    The rows and z-scores are those of the stored system scores (``analytics.actions``): the
    scored judgments (no rejected assignment, no excluded worker), standardised per worker
    over all of them with the campaign's settings, then system outputs and repeats of reliable
    workers only or of every worker. A system's stored mean z is the n-weighted mean of its
    segments' mean z. Eight queries.

    The reliable workers are those of the stored system scores, which
    ``analyse_campaign`` tests over the scored judgments; ``WorkerStat.reliable`` is the
    worker table's test over every judgment, rejected assignments included, and can differ
    from it, so the test is run here on the same scored rows rather than read from there.
    :func:`segment_scores` runs this once per stored result, not per page.
    """
    loaded = load_da_judgments(campaign.pk)
    output_segment = dict(
        Output.objects.filter(system__campaign_id=campaign.pk)
        .order_by()
        .values_list("id", "segment_id")
    )
    config = da_config_for(campaign, include_unreliable=include_unreliable)
    scored = subset(loaded.judgments, loaded.scored)
    z = standardize(scored, exclude_references=config.exclude_references_from_z, ddof=config.ddof)
    include = None
    if not include_unreliable:
        include = worker_reliability(
            scored,
            test=config.reliability_test,
            alpha=config.alpha,
            min_pairs=config.min_pairs,
            assumption_a_test=config.assumption_a_test,
        ).reliable
    rows = np.isin(scored.role, OUTPUT_ROLES) & (scored.system >= 0)
    rows &= scored.worker_mask_to_rows(include)
    item = scored.item[rows]
    # Output ids to segment ids: one lookup per distinct output, then a vectorised take.
    outputs = np.unique(item)
    segment_of = np.array([output_segment.get(int(o), -1) for o in outputs], dtype=np.int64)
    segment = segment_of[np.searchsorted(outputs, item)] if item.size else item
    seg, sys, inverse = _group(segment, scored.system[rows])
    k = seg.shape[0]
    n = np.bincount(inverse, minlength=k).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.bincount(inverse, weights=scored.score[rows], minlength=k) / n
        mean_z = np.bincount(inverse, weights=z.z[rows], minlength=k) / n
    return _sorted_table(
        TaskKind.DIRECT_ASSESSMENT,
        campaign.pk,
        seg,
        sys,
        n,
        {"mean_score": mean_score, "mean_z": mean_z},
    )


def ranking_segment_scores(campaign: Campaign, *, include_untrusted: bool) -> SegmentTable:
    """Pairwise wins, ties and losses and the mean rank per (segment, system) of a ranking
    campaign.

    The rows are those of the stored scores (``analytics.actions.ranking``): no qualification
    test, rejected assignment or excluded worker; by default also no untrusted worker (marked
    untrusted, or left out of the stored scores by their gold units: ``RankingWorkerStat.
    in_scores``). Comparisons are the pairs of two system outputs in one worker's ranking of a
    set (000 section 4); a gold translation takes part in none. Eight queries.
    """
    loaded = load_ranking_judgments(campaign.pk)
    rows = loaded.scored
    if not include_untrusted:
        left_out = np.union1d(
            np.array(
                RankingWorkerStat.objects.filter(campaign=campaign, in_scores=False)
                .order_by()
                .values_list("worker_id", flat=True),
                dtype=np.int64,
            ),
            loaded.untrusted_workers,
        )
        rows = rows & ~np.isin(loaded.judgments.worker, left_out)
    j = loaded.judgments.select(rows)
    ranked = j.system >= 0
    seg, sys, inverse = _group(j.segment[ranked], j.system[ranked])
    k = seg.shape[0]
    n_ranked = np.bincount(inverse, minlength=k).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_rank = np.bincount(inverse, weights=j.rank[ranked], minlength=k) / n_ranked
    pairs = j.pairs if len(j) else None
    wins = np.zeros(k, dtype=np.int64)
    ties = np.zeros(k, dtype=np.int64)
    losses = np.zeros(k, dtype=np.int64)
    if pairs is not None and k:
        between = pairs.between_systems
        segment = np.concatenate([pairs.segment[between]] * 2)
        side = np.concatenate([pairs.system_a[between], pairs.system_b[between]])
        outcome = np.concatenate([pairs.outcome[between], -pairs.outcome[between]])
        # Every compared output was ranked, so its (segment, system) is one of the k pairs,
        # found by one searchsorted on a combined key (systems as small codes: no overflow).
        systems = np.unique(sys)
        width = systems.shape[0]
        keys = seg * width + np.searchsorted(systems, sys)
        at = np.searchsorted(keys, segment * width + np.searchsorted(systems, side))
        wins = np.bincount(at[outcome > 0], minlength=k).astype(np.int64)
        ties = np.bincount(at[outcome == 0], minlength=k).astype(np.int64)
        losses = np.bincount(at[outcome < 0], minlength=k).astype(np.int64)
    return _sorted_table(
        TaskKind.RANKING,
        campaign.pk,
        seg,
        sys,
        wins + ties + losses,
        {
            "wins": wins,
            "ties": ties,
            "losses": losses,
            "n_ranked": n_ranked,
            "mean_rank": mean_rank,
        },
    )


# How long a cached segment table is kept. A recompute changes the key, so this only bounds
# how long the table of a superseded result occupies the cache, and how long a campaign
# nobody looks at keeps one.
SEGMENT_CACHE_SECONDS = 24 * 60 * 60
# Part of the key: a release that changes what the cached SegmentTable holds reads none of
# the tables an earlier release stored.
SEGMENT_CACHE_VERSION = 1


def stored_computed_at(campaign: Campaign) -> datetime | None:
    """When the campaign's stored results were computed (None before the first recompute or
    for kinds without statistics). One query (none for kinds without statistics)."""
    if campaign.kind == TaskKind.DIRECT_ASSESSMENT:
        results = CampaignResult.objects.filter(campaign=campaign)
    elif campaign.kind == TaskKind.RANKING:
        results = RankingResult.objects.filter(campaign=campaign)
    else:
        return None
    return results.order_by().values_list("computed_at", flat=True).first()


def segment_table_cache_key(campaign: Campaign, *, include_all: bool, computed_at: datetime) -> str:
    """The cache key of one variant of the segment table of one stored result.

    ``computed_at`` changes with every stored recompute, so a new result never reads the
    table of an older one. The campaign's creation time is in the key beside its id because
    SQLite hands a deleted campaign's id to the next campaign created.
    """
    variant = (
        trust_variant_key(include_all)
        if campaign.kind == TaskKind.RANKING
        else variant_key(include_all)
    )
    return ":".join(
        [
            f"analytics:api:segments:v{SEGMENT_CACHE_VERSION}",
            str(campaign.pk),
            campaign.created_at.isoformat(),
            variant,
            computed_at.isoformat(),
        ]
    )


def _compute_segment_table(campaign: Campaign, include_all: bool) -> SegmentTable:
    if campaign.kind == TaskKind.DIRECT_ASSESSMENT:
        return da_segment_scores(campaign, include_unreliable=include_all)
    return ranking_segment_scores(campaign, include_untrusted=include_all)


def segment_scores(
    campaign: Campaign, *, include_all: bool, system: int | None = None
) -> SegmentTable:
    """The segment table of the campaign's kind (empty for kinds without scores), of one
    system if ``system`` is given.

    ``include_all``: the "all" variant (unreliable or untrusted workers too). The table of a
    stored result is computed once, on the first request that asks for it, and cached
    (:func:`segment_table_cache_key`); later pages run one query (the stored result's
    ``computed_at``) and a cache read. Before the first recompute there is no result to key
    it on, and the table is computed on each request: live recomputing stores a result
    within seconds of the first judgment (``analytics.actions``).
    """
    if campaign.kind not in (TaskKind.DIRECT_ASSESSMENT, TaskKind.RANKING):
        empty = np.zeros(0, dtype=np.int64)
        return SegmentTable(campaign.kind, empty, empty, empty, {}, {}, {})
    computed_at = stored_computed_at(campaign)
    if computed_at is None:
        table = _compute_segment_table(campaign, include_all)
    else:
        key = segment_table_cache_key(campaign, include_all=include_all, computed_at=computed_at)
        table = cache.get(key)
        if table is None:
            table = _compute_segment_table(campaign, include_all)
            cache.set(key, table, SEGMENT_CACHE_SECONDS)
    return table if system is None else table.for_system(system)


# --- Pairwise significance -------------------------------------------------------------------

# The ranking method whose p-values the significance endpoint shows by default: Expected Wins,
# WMT13's official ranking, bootstrapped with rank ranges (analytics.actions.ranking).
DEFAULT_SIGNIFICANCE_METHOD = RankingMethod.EXPECTED_WINS
DA_TEST = "one-sided Wilcoxon rank-sum (Mann-Whitney U) on z-scores"
BOOTSTRAP_TEST = "bootstrap: (1 + resamples where the row system does not score higher) / (1 + B)"


def _matrix(values: Any, size: int) -> NDArray[np.float64]:
    """A stored JSON matrix (None for NaN) as floats, NaN on the diagonal."""
    matrix = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in (values or [])],
        dtype=np.float64,
    ).reshape(size, size)
    np.fill_diagonal(matrix, np.nan)
    return matrix


def significance_table(
    campaign: Campaign, *, include_all: bool, method: str | None = None
) -> dict[str, Any]:
    """The pairwise significance matrix of the stored results, systems best first.

    Direct assessment: ``CampaignResult.details`` (the one-sided Wilcoxon rank-sum p-values
    of "row system beats column system" on z-scores, best first by mean z). Ranking: the
    bootstrap p-values of ``method`` in ``RankingResult.details``, reordered best first by
    the method's stored positions. Marks are recomputed from the p-values
    (``analytics.stats.significance.significance_marks``). Empty while nothing is stored or
    for kinds without scores. Three queries.
    """
    names = dict(System.objects.filter(campaign=campaign).order_by().values_list("id", "name"))
    table: dict[str, Any] = {
        "kind": campaign.kind,
        "variant": "all",
        "method": None,
        "test": "",
        "computed_at": None,
        "systems": [],
        "p_values": [],
        "marks": [],
    }
    if campaign.kind == TaskKind.DIRECT_ASSESSMENT:
        table.update(variant=variant_key(include_all), test=DA_TEST)
        result = CampaignResult.objects.filter(campaign=campaign).first()
        if result is None:
            return table
        details = result.variant(include_all)
        ids = [int(pk) for pk in details.get("systems", [])]
        p = _matrix(details.get("p_greater"), len(ids))
        scores = dict(
            SystemScore.objects.filter(campaign=campaign, include_unreliable=include_all)
            .order_by()
            .values_list("system_id", "mean_z")
        )
        clusters = [int(c) for c in details.get("clusters", [])] or [None] * len(ids)
        order = list(range(len(ids)))
    elif campaign.kind == TaskKind.RANKING:
        method = method or DEFAULT_SIGNIFICANCE_METHOD
        table.update(variant=trust_variant_key(include_all), method=method, test=BOOTSTRAP_TEST)
        result = RankingResult.objects.filter(campaign=campaign).first()
        if result is None:
            return table
        details = result.variant(include_all)
        ids = [int(pk) for pk in details.get("systems", [])]
        p = _matrix(details.get("p_greater", {}).get(method), len(ids))
        stored = {
            system: (position, score, cluster)
            for system, position, score, cluster in RankingScore.objects.filter(
                campaign=campaign, method=method, include_untrusted=include_all
            )
            .order_by()
            .values_list("system_id", "position", "score", "cluster")
        }
        scores = {system: row[1] for system, row in stored.items()}
        clusters = [stored.get(pk, (0, None, None))[2] for pk in ids]
        order = sorted(range(len(ids)), key=lambda i: (stored.get(ids[i], (len(ids) + 1,))[0], i))
    else:
        return table
    p = p[np.ix_(order, order)] if order else p
    marks = significance_marks(p)
    table.update(
        computed_at=result.computed_at,
        systems=[
            {
                "id": ids[i],
                "name": names.get(ids[i], ""),
                "score": _plain(scores[ids[i]]) if scores.get(ids[i]) is not None else None,
                "cluster": clusters[i],
            }
            for i in order
        ],
        p_values=[[_plain(v) for v in row] for row in p.tolist()],
        marks=marks.tolist(),
    )
    return table
