"""Ranking campaigns' stored statistics: gold trust, the cut-off, auto-takedown and scores.

:func:`recompute_ranking` is what ``analytics.actions.recompute_campaign`` runs for a ranking
campaign (through the kind's ``recompute``), so the live path of every kind (signal,
coalesced schedule, Celery task, the periodic sweep, whose ranking part is
:func:`stale_ranking_campaigns`) serves ranking unchanged. One run:

1. loads the campaign (``analytics.kinds.ranking.loading.load_ranking_judgments``), the
   previous trust table's memory (:func:`load_prior_trust`) and the requester's references
   (:func:`load_references`);
2. analyses them, pure (:func:`analyse_loaded_ranking`): gold trust per worker over all of
   their ranking sets (qualification tests aside; rejected assignments and excluded workers
   included, since they are the worker's answers all the same), who to mark untrusted, the
   auto-takedown verdict, and per variant the scores by every method with the agreement
   figures;
3. marks newly untrusted workers (``judgments.actions.set_untrusted``, idempotent; the
   hand-out then gives them nothing more);
4. stores the results in one transaction
   (:func:`~analytics.kinds.ranking.store.store_ranking_results`);
5. pauses the campaign when the takedown rule says so (:func:`apply_takedown`).

Which rankings count in the scores: never those of qualification HITs, rejected assignments
or excluded workers. The default variant ("trusted", ``include_untrusted=False``) also leaves
out untrusted workers: those marked untrusted (``CampaignWorker.untrusted``) and those whose
gold units say so; the "all" variant keeps them. Each variant is one
:func:`~analytics.stats.ranking.analyse_ranking` call on its rows (so its agreement figures are
over the same workers as its scores; a reference system the settings name and leave out is in
no score and no other system's comparisons, as in WMT's tables), plus a bootstrap of Expected
Wins with the same draws as Bradley-Terry's (seed, samples, unit): the two methods WMT ranked
systems by with bootstrap rank ranges (WMT13, and Bradley-Terry as the model behind TrueSkill's
successors) get intervals, rank ranges and clusters. The win ratios are stored with their
comparisons and their plain ranks, as WMT08-12 and 002 report them; bootstrapping them too
would add about half again to a large campaign's recompute (bench/ranking_stats.py). TrueSkill
has sigma.

Decisions on repeated runs (every recompute sees the whole campaign again):

- *Trusting again.* A worker is marked untrusted once. If a person clears the mark (the
  results panel's "Trust again", or ``CampaignWorker`` directly), the next run notices (the
  stored row said flagged, the membership no longer does), remembers how many gold units the
  worker had then (``RankingWorkerStat.trust_override_gold_seen``), counts the worker as
  trusted and does not mark them again until they have seen more gold units and still fail.
- *Auto-takedown.* The campaign is paused when :func:`~analytics.stats.ranking.takedown_reason`
  gives a reason (``Campaign.takedown_untrusted_share`` set; at least
  ``takedown_min_workers`` workers decided; the untrusted share above it) and the campaign is
  active. The number of untrusted workers at the pause is remembered
  (``RankingResult.auto_paused_untrusted``). A campaign the requester reactivated after that
  is **not** paused again for the same state: only when more workers have become untrusted
  since (new evidence) does the rule pause it again, with a new reason. While it stays
  paused, the reason is kept up to date with the counts.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import AUTO_PAUSE_PREFIX, held_back_count, newest_submitted_at
from analytics.kinds.ranking.loading import LoadedRanking, load_ranking_judgments
from analytics.kinds.ranking.store import store_ranking_results
from analytics.models import (
    RankingMethod,
    RankingReference,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    ReferenceTextError,
    parse_oracle,
    parse_reference_ranking,
)
from analytics.stats.ranking import (
    BootstrapResult,
    RankingConfig,
    RankingReport,
    SpearmanResult,
    SystemScores,
    WorkerTrust,
    analyse_ranking,
    bootstrap_counting_scores,
    gold_trust,
    spearman,
    takedown_reason,
)
from campaigns.models import Campaign, CampaignStatus, RankingCombination, TaskKind
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

logger = logging.getLogger(__name__)

__all__ = [
    "AUTO_PAUSE_PREFIX",
    "PriorTrust",
    "RankingAnalysis",
    "References",
    "analyse_loaded_ranking",
    "apply_takedown",
    "excluded_reference",
    "load_prior_trust",
    "load_references",
    "mark_untrusted",
    "ranking_config_for",
    "recompute_ranking",
    "stale_ranking_campaigns",
    "store_ranking_results",
    "takedown_message",
    "untrusted_reason",
]

# Schulze combination (000 section 4) and the weights of the ballots it combines.
COMBINATION_WEIGHTING = {
    RankingCombination.NONE: "none",
    RankingCombination.SCHULZE: "none",
    RankingCombination.SCHULZE_PEERS: "peers",
    RankingCombination.SCHULZE_GOLD: "gold",
}


def excluded_reference(campaign: Campaign) -> tuple[int, ...]:
    """The system ids left out of the scores: the campaign's reference system when it names
    one and leaves it out (``RankingSettings.exclude_reference``, WMT's tables); one query
    then, none otherwise. A name no system has leaves nothing out (the system may come with
    a later import)."""
    settings = campaign.ranking_settings
    if not settings.reference_system or not settings.exclude_reference:
        return ()
    return tuple(
        campaign.systems.filter(name=settings.reference_system).values_list("pk", flat=True)
    )


def ranking_config_for(campaign: Campaign, *, include_untrusted: bool = False) -> RankingConfig:
    """The campaign's gold, takedown and reference settings as the statistics' configuration."""
    share = campaign.ranking_settings.takedown_untrusted_share
    combination = campaign.ranking_settings.ranking_combination
    return RankingConfig(
        exclude_systems=excluded_reference(campaign),
        combine=combination != RankingCombination.NONE,
        weighting=COMBINATION_WEIGHTING[combination],
        gold_scheme=campaign.ranking_settings.gold_scheme,
        trust_min_gold=campaign.ranking_settings.trust_min_gold,
        trust_min_accuracy=float(campaign.ranking_settings.trust_min_accuracy),
        include_untrusted=include_untrusted,
        takedown_threshold=None if share is None else float(share),
        takedown_min_workers=campaign.ranking_settings.takedown_min_workers,
    )


# --- What the run reads besides the judgments ------------------------------------------------


@dataclass(frozen=True)
class References:
    """The requester's reference ranking (for Spearman) and oracle, as system ids.

    ``problems`` lists what could not be read (e.g. a system renamed since the text was
    saved); the figure that needs it is then left out rather than failing the recompute."""

    reference_systems: list[int] | None = None
    reference_ranks: list[int] | None = None
    oracle: list[list[int]] | None = None
    problems: list[str] = field(default_factory=list)


def load_references(campaign: Campaign) -> References:
    """Parse the campaign's :class:`RankingReference`, if any (two queries at most)."""
    reference = RankingReference.objects.filter(campaign=campaign).first()
    if reference is None or not (reference.reference_ranking.strip() or reference.oracle.strip()):
        return References()
    names = dict(campaign.systems.values_list("name", "pk"))
    found: dict[str, Any] = {}
    problems: list[str] = []
    if reference.reference_ranking.strip():
        try:
            found["reference_systems"], found["reference_ranks"] = parse_reference_ranking(
                reference.reference_ranking, names
            )
        except ReferenceTextError as error:
            problems.append(f"Reference ranking: {error}")
    if reference.oracle.strip():
        try:
            found["oracle"] = parse_oracle(reference.oracle, names)
        except ReferenceTextError as error:
            problems.append(f"Oracle: {error}")
    return References(**found, problems=problems)


@dataclass(frozen=True, eq=False)
class PriorTrust:
    """What the stored trust table remembers, per worker (sorted ids): whether the worker was
    flagged untrusted, their gold units then, and a requester's override (-1: none)."""

    workers: NDArray[np.int64]
    flagged: NDArray[np.bool_]
    gold_seen: NDArray[np.int64]
    override: NDArray[np.int64]

    @classmethod
    def empty(cls) -> PriorTrust:
        none = np.zeros(0, dtype=np.int64)
        return cls(none, np.zeros(0, dtype=bool), none, none)


def load_prior_trust(campaign_id: int) -> PriorTrust:
    """The stored trust table's memory (one query)."""
    rows = list(
        RankingWorkerStat.objects.filter(campaign_id=campaign_id)
        .order_by("worker_id")
        .values_list("worker_id", "flagged", "gold_seen", "trust_override_gold_seen")
    )
    if not rows:
        return PriorTrust.empty()
    workers, flagged, seen, override = zip(*rows, strict=True)
    return PriorTrust(
        workers=np.array(workers, dtype=np.int64),
        flagged=np.array(flagged, dtype=bool),
        gold_seen=np.array(seen, dtype=np.int64),
        override=np.array([-1 if v is None else v for v in override], dtype=np.int64),
    )


# --- Computing (pure) ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Variant:
    """The scores and agreement over one variant's rows."""

    rows: NDArray[np.bool_]
    report: RankingReport
    bootstrapped: dict[str, BootstrapResult]  # the win ratios, Expected Wins, Bradley-Terry
    spearman: dict[str, SpearmanResult]  # per method; empty without a reference ranking

    @property
    def win_ratios(self) -> dict[str, SystemScores]:
        return {
            RankingMethod.WIN_RATIO_GEQ: self.report.win_ratio_better_or_equal,
            RankingMethod.WIN_RATIO_GT: self.report.win_ratio_better,
            RankingMethod.WIN_RATIO_WMT12: self.report.win_ratio_decisive,
        }

    @property
    def n_workers_included(self) -> int:
        return int(self.report.trust.workers.shape[0])


@dataclass(frozen=True, eq=False)
class RankingAnalysis:
    """Everything one run decides and stores, computed from a :class:`LoadedRanking`.

    Per-worker arrays are aligned to ``trust.workers`` (every worker with rankings).
    ``trust`` is the gold trust over all of their rankings; ``effective`` the same with the
    requester's overrides counted as trusted (what the takedown rule sees). ``flagged``: the
    worker is marked untrusted after this run (``newly_untrusted`` are the ids this run
    marks). ``in_scores``: counted in the default variant. ``variants`` is keyed by
    ``include_untrusted``.
    """

    config: RankingConfig
    trust: WorkerTrust
    effective: WorkerTrust
    override: NDArray[np.int64]
    flagged: NDArray[np.bool_]
    newly_untrusted: NDArray[np.int64]
    in_scores: NDArray[np.bool_]
    excluded: NDArray[np.bool_]
    n_judgments: NDArray[np.int64]
    n_ballots: NDArray[np.int64]
    n_rejected: NDArray[np.int64]
    takedown: str | None
    variants: dict[bool, Variant]

    @property
    def n_untrusted(self) -> int:
        return int(np.count_nonzero(self.effective.untrusted))

    @property
    def n_decided(self) -> int:
        return self.n_untrusted + int(np.count_nonzero(self.effective.trusted))


def _aligned(
    prior_ids: NDArray[np.int64], values: NDArray, workers: NDArray[np.int64], missing: Any
) -> NDArray:
    """``values`` (aligned to sorted ``prior_ids``) re-aligned to ``workers``."""
    out = np.full(workers.shape[0], missing, dtype=values.dtype)
    if prior_ids.size and workers.size:
        pos = np.minimum(np.searchsorted(prior_ids, workers), prior_ids.size - 1)
        hit = prior_ids[pos] == workers
        out[hit] = values[pos[hit]]
    return out


def _variant(
    loaded: LoadedRanking, rows: NDArray[np.bool_], config: RankingConfig, refs: References
) -> Variant:
    judgments = loaded.judgments.select(rows)
    report = analyse_ranking(
        judgments,
        replace(config, include_untrusted=True, takedown_threshold=None),
        oracle=refs.oracle,
        reference_systems=refs.reference_systems,
        reference_ranks=refs.reference_ranks,
    )
    # The counting scores share one set of resamples (the same draws Bradley-Terry's bootstrap
    # makes with this seed), so intervals and clusters cost one draw for all three.
    counting = bootstrap_counting_scores(
        report.scored_pairs,
        {
            RankingMethod.WIN_RATIO_GEQ: ("win_ratio", "better_or_equal"),
            RankingMethod.WIN_RATIO_GT: ("win_ratio", "better"),
            RankingMethod.WIN_RATIO_WMT12: ("win_ratio", "decisive"),
            RankingMethod.EXPECTED_WINS: ("expected_wins", "better_or_equal"),
        },
        n_samples=config.bootstrap_samples,
        seed=config.seed,
        level=config.level,
        alpha=config.significance_alpha,
        unit=config.bootstrap_unit,
        cluster_method=config.cluster_method,
        systems=report.systems,
    )
    expected = counting[RankingMethod.EXPECTED_WINS]
    bootstrapped = {**counting, RankingMethod.BRADLEY_TERRY: report.bradley_terry}
    rho: dict[str, SpearmanResult] = {}
    if refs.reference_systems is not None:
        points = {
            RankingMethod.WIN_RATIO_GEQ: report.win_ratio_better_or_equal.score,
            RankingMethod.WIN_RATIO_GT: report.win_ratio_better.score,
            RankingMethod.WIN_RATIO_WMT12: report.win_ratio_decisive.score,
            RankingMethod.EXPECTED_WINS: expected.score,
            RankingMethod.BRADLEY_TERRY: report.bradley_terry.score,
        }
        if report.trueskill is not None:
            points[RankingMethod.TRUESKILL] = report.trueskill.mu
        rho = {
            method: spearman(report.systems, score, refs.reference_systems, refs.reference_ranks)
            for method, score in points.items()
        }
    return Variant(rows=rows, report=report, bootstrapped=bootstrapped, spearman=rho)


# From this many ranked outputs the two variants are computed at once, one in a thread
# (analyse_loaded_ranking): 50,000 sets, about 0.6 s each of CPU (issue 16).
PARALLEL_VARIANTS_FROM_JUDGMENTS = 10_000


def analyse_loaded_ranking(
    loaded: LoadedRanking,
    config: RankingConfig,
    prior: PriorTrust | None = None,
    references: References | None = None,
) -> RankingAnalysis:
    """Run the statistics on a loaded ranking campaign: pure, no database (module docstring)."""
    prior = prior or PriorTrust.empty()
    refs = references or References()
    j = loaded.judgments
    trust = gold_trust(
        j,
        config.gold_scheme,
        min_gold=config.trust_min_gold,
        min_accuracy=config.trust_min_accuracy,
        margin=config.gold_margin,
    )
    workers = trust.workers
    flagged_before = np.isin(workers, loaded.untrusted_workers)
    was_flagged = _aligned(prior.workers, prior.flagged, workers, False)
    seen_then = _aligned(prior.workers, prior.gold_seen, workers, 0)
    override = _aligned(prior.workers, prior.override, workers, -1)
    # A person cleared the mark since the last run: they trust what the worker did so far.
    override = np.where(was_flagged & ~flagged_before, seen_then, override)
    override = np.where(flagged_before, -1, override)
    overridden = (override >= 0) & (trust.gold_seen <= override)
    newly = trust.untrusted & ~flagged_before & ~overridden
    override = np.where(newly, -1, override)
    flagged = flagged_before | newly
    out_of_scores = flagged | (trust.untrusted & ~overridden)
    status = np.where(trust.untrusted & overridden, "trusted", trust.status).astype(np.str_)
    effective = replace(trust, status=status)

    scored = loaded.scored
    trusted_rows = scored & ~out_of_scores[j.worker_index]
    if np.array_equal(trusted_rows, scored):
        trusted = everyone = _variant(loaded, scored, config, refs)
    elif len(j) < PARALLEL_VARIANTS_FROM_JUDGMENTS:
        trusted = _variant(loaded, trusted_rows, config, refs)
        everyone = _variant(loaded, scored, config, refs)
    else:
        # The two variants share nothing but the loaded arrays (read only): the second runs
        # on the other core while this thread computes the first. Their compiled kernels
        # and most of numpy's work release the GIL; the results are the same as in turn.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ranking-variant") as pool:
            pending = pool.submit(_variant, loaded, scored, config, refs)
            trusted = _variant(loaded, trusted_rows, config, refs)
            everyone = pending.result()
    nw = j.n_workers
    return RankingAnalysis(
        config=config,
        trust=trust,
        effective=effective,
        override=override,
        flagged=flagged,
        newly_untrusted=workers[newly],
        in_scores=~out_of_scores & ~np.isin(workers, loaded.excluded_workers),
        excluded=np.isin(workers, loaded.excluded_workers),
        n_judgments=np.bincount(j.worker_index, minlength=nw).astype(np.int64),
        n_ballots=np.bincount(j.ballot_worker, minlength=nw).astype(np.int64),
        n_rejected=np.bincount(j.worker_index[loaded.rejected], minlength=nw).astype(np.int64),
        takedown=takedown_reason(
            effective,
            threshold=config.takedown_threshold,
            min_workers=config.takedown_min_workers,
        ),
        variants={False: trusted, True: everyone},
    )


def untrusted_reason(config: RankingConfig) -> str:
    """Why a worker was marked untrusted (stored on the membership, never shown to them)."""
    return (
        f"Automatic: failed the gold units (fewer than {config.trust_min_accuracy:.0%} right "
        f"after at least {config.trust_min_gold}; 002 section 4). See the campaign's trust table."
    )


def takedown_message(untrusted: int, decided: int, threshold: float) -> str:
    """The campaign's status reason after an automatic pause."""
    share = untrusted / decided if decided else 0.0
    return (
        f"{AUTO_PAUSE_PREFIX} {untrusted} of {decided} workers ({share:.0%}) failed the gold "
        f"units (threshold {threshold:.0%}). Review the trust table, then reactivate."
    )


# --- The run ---------------------------------------------------------------------------------

# From this many ranked outputs the statistics run compiled kernels (numba: the bootstrap's
# draws from bootstrap.COMPILED_FROM_DRAWS, TrueSkill from COMPILED_FROM_MATCHES).
WARM_UP_FROM_JUDGMENTS = 10_000


class KernelWarmUp:
    """Loads the compiled kernels in a thread while the recompute waits for its queries.

    A process's first recompute of a large campaign pays numba's import and the loading of
    its compiled code from the on-disk cache, about 1 s of CPU (bench/ranking_stats.py, first
    run); the loading waits on PostgreSQL for most of its time (at 50,000 sets, ~0.6 s of
    its ~0.9 s), so the thread does that work then, on the other core. Later recomputes find
    numba loaded and start nothing. Results do not depend on it: the statistics load the same
    kernels themselves when they need them (a failed warm-up is only logged)."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None

    def start_if_large(self, n_judgments: int) -> None:
        if n_judgments < WARM_UP_FROM_JUDGMENTS or "numba" in sys.modules:
            return
        self.thread = threading.Thread(target=self._load, name="ranking-kernels", daemon=True)
        self.thread.start()

    @staticmethod
    def _load() -> None:
        try:
            from analytics.stats.ranking import bootstrap_kernel, trueskill_kernel

            bootstrap_kernel.warm_up()
            trueskill_kernel.warm_up()
        except Exception:  # the statistics load the kernels themselves
            logger.exception("Loading the ranking kernels ahead failed")

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()
            self.thread = None


def recompute_ranking(campaign: Campaign) -> RankingResult | None:
    """Load, compute, mark, store and maybe pause (module docstring); None, with any stored
    results removed, while the campaign has no ranking judgment at all."""
    computed_at = timezone.now()
    started = time.perf_counter()
    kernels = KernelWarmUp()
    loaded = load_ranking_judgments(campaign.pk, on_judgments_read=kernels.start_if_large)
    if loaded.n_read == 0:
        with transaction.atomic():
            RankingScore.objects.filter(campaign=campaign).delete()
            RankingWorkerStat.objects.filter(campaign=campaign).delete()
            RankingResult.objects.filter(campaign=campaign).delete()
        return None
    config = ranking_config_for(campaign)
    references = load_references(campaign)
    analysis = analyse_loaded_ranking(loaded, config, load_prior_trust(campaign.pk), references)
    kernels.join()
    seconds = time.perf_counter() - started
    if analysis.newly_untrusted.size:
        from judgments.actions import set_untrusted

        marked = set_untrusted(
            campaign, analysis.newly_untrusted.tolist(), untrusted_reason(config)
        )
        logger.info("Campaign %s: %d worker(s) marked untrusted", campaign.pk, marked)
    result, stored = store_ranking_results(
        campaign, loaded, analysis, computed_at, references=references, compute_seconds=seconds
    )
    if stored:
        apply_takedown(campaign, analysis, result)
    logger.info(
        "Recomputed ranking campaign %s: %d judgments, %d workers in %.3fs",
        campaign.pk,
        loaded.n_read,
        analysis.trust.workers.shape[0],
        seconds,
    )
    return result


def mark_untrusted(campaign: Campaign, analysis: RankingAnalysis) -> int:
    """Mark the run's newly untrusted workers (``judgments.actions.set_untrusted``: the
    hand-out then refuses them); return how many changed."""
    if not analysis.newly_untrusted.size:
        return 0
    from judgments.actions import set_untrusted

    marked = set_untrusted(
        campaign, analysis.newly_untrusted.tolist(), untrusted_reason(analysis.config)
    )
    logger.info("Campaign %s: %d worker(s) marked untrusted", campaign.pk, marked)
    return marked


def apply_takedown(campaign: Campaign, analysis: RankingAnalysis, result: RankingResult) -> bool:
    """Pause the campaign when the takedown rule says so (module docstring); True if paused.

    Conditional updates only: a campaign that is not active (or, to refresh the reason, not
    paused by this rule) is left as the requester set it."""
    if analysis.takedown is None or analysis.config.takedown_threshold is None:
        return False
    untrusted = analysis.n_untrusted
    if result.auto_paused_untrusted is not None and untrusted <= result.auto_paused_untrusted:
        return False  # the requester reactivated after this state, or it is paused already
    now = timezone.now()
    reason = takedown_message(untrusted, analysis.n_decided, analysis.config.takedown_threshold)
    with transaction.atomic():
        campaigns = Campaign.objects.filter(pk=campaign.pk)
        paused = campaigns.filter(status=CampaignStatus.ACTIVE).update(
            status=CampaignStatus.PAUSED, status_reason=reason, updated_at=now
        )
        refreshed = 0
        if not paused and result.auto_paused_untrusted is not None:
            refreshed = campaigns.filter(
                status=CampaignStatus.PAUSED, status_reason__startswith=AUTO_PAUSE_PREFIX
            ).update(status_reason=reason, updated_at=now)
        if paused or refreshed:
            values = {"auto_paused_untrusted": untrusted}
            if paused:
                values["auto_paused_at"] = now
            RankingResult.objects.filter(pk=result.pk).update(**values)
            for name, value in values.items():
                setattr(result, name, value)
    if paused:
        campaign.status, campaign.status_reason = CampaignStatus.PAUSED, reason
        logger.warning("Campaign %s paused automatically: %s", campaign.pk, analysis.takedown)
    return bool(paused)


# --- The periodic sweep ----------------------------------------------------------------------


def _membership_changed(stat_model, stored: str, current: str) -> Exists:
    """A stored worker row whose flag (``stored``) differs from the membership's (``current``)
    now: the requester excluded, re-admitted, distrusted or trusted a worker since."""
    now_set = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), **{current: True}
    )
    return Exists(
        stat_model.objects.filter(campaign=OuterRef("pk"))
        .annotate(flag_now=Exists(now_set))
        .exclude(**{stored: F("flag_now")})
    )


def stale_ranking_campaigns() -> QuerySet[Campaign]:
    """Ranking campaigns whose stored results no longer match their data: rankings but no
    result; another number of ranked outputs, or one newer than the result; another number
    in rejected assignments; a worker excluded, re-admitted, marked untrusted or trusted
    again since; other gold settings; references edited since; scores stored before WMT12's
    win ratio was. One query."""
    ranked = Judgment.objects.filter(campaign=OuterRef("pk"), rank__isnull=False).order_by()
    per_campaign = ranked.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = newest_submitted_at(ranked)
    # Rejected or unconfirmed MTurk assignments, as the loader masks them (issue 11).
    n_rejected_now = held_back_count(ranked, hit__is_qualification=False)
    # Results stored before WMT12's win ratio was (issue 12): scores without its rows.
    has_scores = Exists(RankingScore.objects.filter(campaign=OuterRef("pk")))
    has_wmt12 = Exists(
        RankingScore.objects.filter(campaign=OuterRef("pk"), method=RankingMethod.WIN_RATIO_WMT12)
    )
    references_edited = Exists(
        RankingReference.objects.filter(
            campaign=OuterRef("pk"), updated_at__gt=OuterRef("ranking_result__computed_at")
        )
    )
    return (
        Campaign.objects.filter(kind=TaskKind.RANKING)
        .alias(
            n_now=n_now,
            newest=newest,
            n_rejected_now=n_rejected_now,
            exclusion_changed=_membership_changed(RankingWorkerStat, "excluded", "excluded"),
            trust_changed=_membership_changed(RankingWorkerStat, "flagged", "untrusted"),
            references_edited=references_edited,
            has_scores=has_scores,
            has_wmt12=has_wmt12,
        )
        .filter(
            Q(ranking_result__isnull=True, n_now__gt=0)
            | Q(ranking_result__isnull=False)
            & (
                ~Q(ranking_result__n_judgments=F("n_now"))
                | Q(ranking_result__computed_at__lt=F("newest"))
                | ~Q(ranking_result__n_rejected_judgments=F("n_rejected_now"))
                | Q(exclusion_changed=True)
                | Q(trust_changed=True)
                | Q(references_edited=True)
                | Q(has_scores=True, has_wmt12=False)
                | ~Q(ranking_result__gold_scheme=F("ranking_settings__gold_scheme"))
                | ~Q(ranking_result__trust_min_gold=F("ranking_settings__trust_min_gold"))
                | ~Q(ranking_result__trust_min_accuracy=F("ranking_settings__trust_min_accuracy"))
            )
        )
        .order_by("pk")
    )
