"""Pure statistics for relative ranking of MT outputs; numpy/scipy/choix/trueskill, no Django.

Sources: Callison-Burch (2009), "Fast, Cheap, and Creative" (EMNLP), section 4 [000]; Paul
et al. (2013), crowd-based MT evaluation for non-English target languages, sections 4-5 [002];
WMT findings 2008-2014 for the scores; /work/shared/METHODS.md sections 1 and 5.

Input: :class:`RankingJudgments`, one campaign's judgments as parallel arrays, one row per
ranked output: ``worker``, ``assignment``, ``ranking_set`` (the N outputs of one segment
ranked together; redundant workers share it), ``segment``, ``system`` (negative for a
non-system output such as a gold translation), ``rank`` (1 = best, ties share a rank) and the
optional ``expected_rank`` (gold units: 1 for the gold translation, N for the known worst
output) and ``order`` (when the judgment was made).  One worker's ranking of one set (one
assignment, one set) is a *ballot*.  Per-worker results are aligned to
``RankingJudgments.workers`` and per-system results to the sorted system ids; worker masks
(``include_workers``) are boolean arrays over ``workers``.

Steps (each usable alone; :func:`analyse_ranking` runs the usual ones):

- :func:`pairwise` / ``RankingJudgments.pairs`` -- N(N-1)/2 labelled pairs per ballot.
- :func:`pair_counts`, :func:`win_ratios` (ties as wins, 000/WMT08; ties in the
  denominator only, 002; ties left out, WMT12's "> others"),
  :func:`expected_wins` (WMT13), :func:`bradley_terry` (choix).
- :func:`bootstrap_scores` -- seeded bootstrap over ranking sets: CIs, WMT13 rank ranges,
  p-values and WMT-style clusters (:mod:`analytics.stats.significance`).
- :func:`trueskill_ratings` -- TrueSkill mu/sigma with WMT14's settings or the library's.
- :func:`combine_rankings` (Schulze's method, optionally weighted), :func:`schulze_ranks`.
- :func:`peer_weights`, :func:`expert_weights`, :func:`gold_weights` -- 000's weighted voting.
- Agreement: :func:`label_agreement`, :func:`cohen_kappa`, :func:`fleiss_kappa`,
  :func:`intra_annotator_agreement`, :func:`inter_annotator_agreement`,
  :func:`reference_agreement` (experts), :func:`oracle_agreement`; :func:`spearman`.
- Gold units: :func:`gold_trust` (002's trusted / untrusted / undecided),
  :func:`takedown_reason` (auto-takedown).
"""

from analytics.stats.ranking.agreement import (
    AgreementResult,
    Chance,
    FleissResult,
    InterAnnotatorAgreement,
    SpearmanResult,
    cohen_kappa,
    fleiss_kappa,
    inter_annotator_agreement,
    intra_annotator_agreement,
    kappa_coefficient,
    label_agreement,
    oracle_agreement,
    oracle_pairs,
    reference_agreement,
    spearman,
)
from analytics.stats.ranking.bootstrap import (
    BootstrapResult,
    bootstrap_counting_scores,
    bootstrap_scores,
)
from analytics.stats.ranking.gold import (
    GoldScheme,
    GoldUnits,
    WorkerTrust,
    gold_trust,
    gold_units,
    takedown_reason,
)
from analytics.stats.ranking.judgments import (
    BETTER,
    TIE,
    WORSE,
    Pairs,
    RankingJudgments,
    pairwise,
)
from analytics.stats.ranking.report import RankingConfig, RankingReport, analyse_ranking
from analytics.stats.ranking.schulze import (
    CombinedRankings,
    choose_ballots,
    combine_rankings,
    schulze_ranks,
    strongest_paths,
)
from analytics.stats.ranking.scores import (
    PairCounts,
    SystemScores,
    bradley_terry,
    competition_ranks,
    expected_wins,
    pair_counts,
    win_ratios,
)
from analytics.stats.ranking.trueskill_rating import (
    TrueSkillResult,
    TrueSkillSettings,
    trueskill_ratings,
)
from analytics.stats.ranking.weights import (
    WorkerWeights,
    expert_weights,
    gold_weights,
    peer_weights,
)

__all__ = [
    "BETTER",
    "TIE",
    "WORSE",
    "AgreementResult",
    "BootstrapResult",
    "Chance",
    "CombinedRankings",
    "FleissResult",
    "GoldScheme",
    "GoldUnits",
    "InterAnnotatorAgreement",
    "PairCounts",
    "Pairs",
    "RankingConfig",
    "RankingJudgments",
    "RankingReport",
    "SpearmanResult",
    "SystemScores",
    "TrueSkillResult",
    "TrueSkillSettings",
    "WorkerTrust",
    "WorkerWeights",
    "analyse_ranking",
    "bootstrap_counting_scores",
    "bootstrap_scores",
    "bradley_terry",
    "choose_ballots",
    "cohen_kappa",
    "combine_rankings",
    "competition_ranks",
    "expected_wins",
    "expert_weights",
    "fleiss_kappa",
    "gold_trust",
    "gold_units",
    "gold_weights",
    "inter_annotator_agreement",
    "intra_annotator_agreement",
    "kappa_coefficient",
    "label_agreement",
    "oracle_agreement",
    "oracle_pairs",
    "pair_counts",
    "pairwise",
    "peer_weights",
    "reference_agreement",
    "schulze_ranks",
    "spearman",
    "strongest_paths",
    "takedown_reason",
    "trueskill_ratings",
    "win_ratios",
]
