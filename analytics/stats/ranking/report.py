"""One call for a whole ranking campaign: trust, weights, combination, scores, agreement.

This is what a Celery task calls after loading a campaign's :class:`RankingJudgments`; every
step is also available on its own (see the package docstring).  Order of the steps:

0. ``exclude_systems`` (e.g. the human reference, as WMT's tables do) are left out of every
   score and of the other systems' comparisons;
1. gold trust per worker (002 section 4); untrusted workers' labels are excluded from
   scores unless ``include_untrusted`` (002: "their labels are filtered out"), and the
   auto-takedown decision;
2. optionally (``combine``) Schulze-combine the ballots of each set, weighted by
   ``weighting`` (000), and score the combined rankings instead of the single ballots;
3. scores: the three win ratios, Expected Wins, Bradley-Terry with the bootstrap (CIs, rank ranges,
   clusters) and optionally TrueSkill;
4. agreement on the individual ballots (intra, inter; against experts and the oracle when
   given) over everyone and over the included workers, and Spearman's rho of the "better
   than or equal" ranking (000 Figure 3) against a reference ranking when given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats.ranking.agreement import (
    AgreementResult,
    Chance,
    InterAnnotatorAgreement,
    SpearmanResult,
    inter_annotator_agreement,
    intra_annotator_agreement,
    oracle_agreement,
    reference_agreement,
    spearman,
)
from analytics.stats.ranking.bootstrap import BootstrapResult, Unit, bootstrap_scores
from analytics.stats.ranking.gold import GoldScheme, WorkerTrust, gold_trust, takedown_reason
from analytics.stats.ranking.judgments import Pairs, RankingJudgments
from analytics.stats.ranking.schulze import combine_rankings
from analytics.stats.ranking.scores import (
    DEFAULT_BT_ALPHA,
    BTTies,
    SystemScores,
    expected_wins,
    pair_counts,
    win_ratios,
)
from analytics.stats.ranking.trueskill_rating import TrueSkillResult, trueskill_ratings
from analytics.stats.ranking.weights import (
    WorkerWeights,
    expert_weights,
    gold_weights,
    peer_weights,
)
from analytics.stats.significance import ClusterMethod

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["RankingConfig", "RankingReport", "Weighting", "analyse_ranking"]

Weighting = Literal["none", "peers", "experts", "gold"]


@dataclass(frozen=True)
class RankingConfig:
    """Every knob of the analysis, with the papers' defaults."""

    gold_scheme: GoldScheme = "best_only"
    trust_min_gold: int = 4  # 002 section 4.1
    trust_min_accuracy: float = 0.7  # 002 section 4.1
    gold_margin: int = 2  # best+worst: rank 1-2 / N-1..N
    include_untrusted: bool = False
    takedown_threshold: float | None = None  # None: never pause automatically
    takedown_min_workers: int = 10
    combine: bool = False  # score Schulze-combined set rankings (000)
    weighting: Weighting = "none"
    weight_first_k: int = 10  # 000: "the 10 initial judgments"
    bt_ties: BTTies = "half"
    bt_alpha: float = DEFAULT_BT_ALPHA
    bootstrap_samples: int = 1000
    bootstrap_unit: Unit = "set"
    seed: int = 0
    level: float = 0.95
    significance_alpha: float = 0.05
    cluster_method: ClusterMethod = "wmt"
    trueskill: bool = True
    agreement_chance: Chance = "uniform"
    # Systems left out of the scores (WMT's tables leave out the human reference): they get
    # no score, and their comparisons leave every other system's counts and denominators.
    # Agreement is still over every ranked output.
    exclude_systems: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class RankingReport:
    """Everything the dashboards show for one ranking campaign.

    Per-system results are aligned to sorted system ids (``systems``).  ``included_workers``
    is the worker mask the scores used (aligned to ``trust.workers``).
    """

    config: RankingConfig
    trust: WorkerTrust
    takedown: str | None
    included_workers: NDArray[np.bool_]
    weights: WorkerWeights | None
    systems: NDArray[np.int64]
    n_comparisons: int
    win_ratio_better_or_equal: SystemScores
    win_ratio_better: SystemScores
    win_ratio_decisive: SystemScores
    expected_wins: SystemScores
    bradley_terry: BootstrapResult
    trueskill: TrueSkillResult | None
    intra_all: AgreementResult
    intra_included: AgreementResult
    inter_all: InterAnnotatorAgreement
    inter_included: InterAnnotatorAgreement
    experts: AgreementResult | None
    oracle: AgreementResult | None
    spearman: SpearmanResult | None
    # The pairs every score above was computed from: the included workers' ballots, or the
    # Schulze-combined set rankings when ``combine`` is on (callers bootstrap further scores
    # from these, so that every method sees the same data).
    scored_pairs: Pairs


def analyse_ranking(
    judgments: RankingJudgments,
    config: RankingConfig | None = None,
    *,
    experts: RankingJudgments | None = None,
    oracle: Sequence[Sequence[int]] | None = None,
    reference_systems: ArrayLike | None = None,
    reference_ranks: ArrayLike | None = None,
) -> RankingReport:
    """Run the full ranking analysis of one campaign (pure; no I/O).

    ``experts``: imported expert judgments of the same segments (agreement, and the
    "experts" weighting).  ``oracle``: declared orderings of systems, best first.
    ``reference_systems`` / ``reference_ranks``: a reference ranking (1 = best) for Spearman.
    """
    cfg = config or RankingConfig()
    j = judgments
    trust = gold_trust(
        j,
        cfg.gold_scheme,
        min_gold=cfg.trust_min_gold,
        min_accuracy=cfg.trust_min_accuracy,
        margin=cfg.gold_margin,
    )
    included = np.ones(j.n_workers, dtype=bool) if cfg.include_untrusted else trust.allowed
    takedown = takedown_reason(
        trust, threshold=cfg.takedown_threshold, min_workers=cfg.takedown_min_workers
    )

    weights: WorkerWeights | None = None
    if cfg.weighting == "peers":
        weights = peer_weights(j, include_workers=included)
    elif cfg.weighting == "experts":
        if experts is None:
            raise ValueError("weighting='experts' needs the experts' judgments")
        weights = expert_weights(j, experts, first_k=cfg.weight_first_k)
    elif cfg.weighting == "gold":
        weights = gold_weights(
            j, cfg.gold_scheme, first_k=cfg.weight_first_k, margin=cfg.gold_margin
        )
    elif cfg.weighting != "none":
        raise ValueError(f"unknown weighting {cfg.weighting!r}")

    if cfg.combine:
        combined = combine_rankings(
            j, None if weights is None else weights.weight, include_workers=included
        )
        scored_pairs = combined.as_judgments().pairs
    else:
        # Everyone included (a variant of a campaign's analysis): the pairs themselves, not
        # a copy of all of them kept beside them (38 MiB at 50,000 sets, issue 16).
        scored_pairs = j.pairs if included.all() else j.pairs.subset(included[j.pairs.worker])
    systems = np.setdiff1d(j.systems, np.asarray(cfg.exclude_systems, dtype=np.int64))
    counts = pair_counts(scored_pairs, systems)
    bt = bootstrap_scores(
        scored_pairs,
        "bradley_terry",
        n_samples=cfg.bootstrap_samples,
        seed=cfg.seed,
        level=cfg.level,
        alpha=cfg.significance_alpha,
        unit=cfg.bootstrap_unit,
        bt_ties=cfg.bt_ties,
        bt_alpha=cfg.bt_alpha,
        cluster_method=cfg.cluster_method,
        systems=systems,
    )
    ts = trueskill_ratings(scored_pairs, seed=cfg.seed, systems=systems) if cfg.trueskill else None
    geq = win_ratios(counts, "better_or_equal")

    chance = cfg.agreement_chance
    intra_all = intra_annotator_agreement(j, chance=chance)
    inter_all = inter_annotator_agreement(j, chance=chance)
    # Everyone included (include_untrusted, or nobody untrusted): the same figures.
    everyone = bool(included.all())
    intra_included = (
        intra_all
        if everyone
        else intra_annotator_agreement(j, chance=chance, include_workers=included)
    )
    inter_included = (
        inter_all
        if everyone
        else inter_annotator_agreement(j, chance=chance, include_workers=included)
    )
    rho = None
    if reference_systems is not None and reference_ranks is not None:
        rho = spearman(systems, geq.score, reference_systems, reference_ranks)
    return RankingReport(
        config=cfg,
        trust=trust,
        takedown=takedown,
        included_workers=included,
        weights=weights,
        systems=systems,
        n_comparisons=int(counts.comparisons.sum() // 2),
        win_ratio_better_or_equal=geq,
        win_ratio_better=win_ratios(counts, "better"),
        win_ratio_decisive=win_ratios(counts, "decisive"),
        expected_wins=expected_wins(counts),
        bradley_terry=bt,
        trueskill=ts,
        intra_all=intra_all,
        intra_included=intra_included,
        inter_all=inter_all,
        inter_included=inter_included,
        experts=None if experts is None else reference_agreement(j, experts, chance=chance),
        oracle=None if oracle is None else oracle_agreement(j, oracle, chance=chance),
        spearman=rho,
        scored_pairs=scored_pairs,
    )
