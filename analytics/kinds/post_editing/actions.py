"""Post-editing campaigns' stored statistics: verification, HTER, 000's subsampling table,
003's combinations, worker profiles (METHODS.md section 3; issue 13 item 5).

:func:`recompute_post_editing` is what ``analytics.actions.recompute_campaign`` runs for a
post-editing campaign (through the kind's ``recompute``), after every ``judgments_recorded``
and from the sweep (:func:`stale_post_editing_campaigns`). One run:

1. builds the verification HITs of newly submitted edits
   (``campaigns.kinds.post_editing.verification.build_verification_hits``, idempotent);
2. scores the edits that have no stored TER under the campaign's signature
   (``analytics.kinds.post_editing.scoring``; a large backlog in a Celery worker goes to chunk
   tasks instead, and this run stores nothing: the last chunk schedules the next);
3. loads the stored numbers (``analytics.kinds.post_editing.loading``) and aggregates them
   with the pure statistics (:func:`analyse_loaded_post_editing`): no TER is computed here;
4. stores the results in one transaction (``analytics.kinds.post_editing.store``).

What counts (our choices where the papers are silent, said where they are made):

- Verification: a vote is yes when both answers are yes (000); an edit passes by majority of
  its votes, ties fail (``analytics.stats.post_editing.verify_edits``); an edit without a vote
  yet counts as passed (provisional: a live campaign's newest edits and imported corpora have
  none). Votes of excluded workers and of rejected assignments do not count.
- Edits: those of rejected (or unconfirmed MTurk) assignments and of excluded workers stay
  stored and count nowhere; the gold editor's (``PostEditingSettings.gold_editor``) are the
  professional edits of 003: not crowd edits, they give the worker weights and the gold
  document ranking.
- Variants: by default the edits of workers flagged for doing nothing or copying the
  reference (003 section 7's profile) are left out of the scores, as direct assessment leaves
  out unreliable workers: unverified, such edits would pass and pull HTER to 0 (or to the
  reference). ``include_flagged`` (stored as "all") keeps them.
- Outputs scored: those with at least one counted edit in the variant; an output whose edits
  all failed is scored against the reference (000), or left out when it has no reference.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import held_back_count, newest_submitted_at
from analytics.kinds.post_editing.loading import LoadedPostEditing, judged, load_post_editing
from analytics.kinds.post_editing.scoring import (
    fan_out_scoring,
    pending_edit_ids,
    pending_reference_ids,
    score_pending_edits,
    score_pending_references,
    should_defer_references,
    should_fan_out,
    ter_options_for,
)
from analytics.kinds.post_editing.store import store_post_editing_results
from analytics.models import PostEditingResult, PostEditingWorkerStat
from analytics.stats.post_editing import (
    Outputs,
    PostEdits,
    SegmentHTER,
    SubsamplingTable,
    SystemHTER,
    WorkerProfiles,
    WorkerWeights,
    combine_edit_rates,
    document_scores,
    edit_rate,
    editor_subsampling,
    rank_all,
    segment_hter,
    system_hter,
    ter_signature,
    verify_edits,
    worker_profiles,
    worker_weights,
)
from campaigns.models import Campaign, TaskKind
from judgments.models import CampaignWorker, Judgment

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "COMBINATIONS",
    "PostEditingAnalysis",
    "PostEditingConfig",
    "Variant",
    "analyse_loaded_post_editing",
    "post_editing_config_for",
    "recompute_post_editing",
    "stale_post_editing_campaigns",
    "variant_segments",
    "verification",
]

logger = logging.getLogger(__name__)

# 003's combinations, in the order the panel and the details list them; "ter" is 003's
# baseline, the MT output's TER against the reference.
COMBINATIONS = ("minimum", "median", "mean", "weighted")


@dataclass(frozen=True)
class PostEditingConfig:
    """The settings of one run. The bootstrap and test are ``system_hter``'s defaults (1000
    samples over segments, seed 0, 95% intervals, paired one-sided Wilcoxon at 0.05, systems
    ordered by mean HTER); the profile thresholds ``worker_profiles``'s (unchanged: TER 0 to
    the MT output; copied: TER at most 0.1 to the reference; flagged: at least 80% of at
    least 3 edits). Subsets of editors: all of them up to 100 per size, else 100 random ones
    (000's five editors give at most 10 per size)."""

    signature: str
    ter_case_sensitive: bool = False
    ter_normalized: bool = False
    gold_editor: str = ""
    include_flagged: bool = False
    n_samples: int = 1000
    seed: int = 0
    level: float = 0.95
    alpha: float = 0.05
    max_subsets: int = 100
    n_extreme: int = 10  # best and worst segments kept for the panel


def post_editing_config_for(
    campaign: Campaign, *, include_flagged: bool = False
) -> PostEditingConfig:
    """The campaign's TER and gold settings as the run's configuration."""
    options = ter_options_for(campaign)
    settings_row = getattr(campaign, "post_editing_settings", None)
    return PostEditingConfig(
        signature=ter_signature(options),
        ter_case_sensitive=options.case_sensitive,
        ter_normalized=options.normalized,
        gold_editor=settings_row.gold_editor if settings_row is not None else "",
        include_flagged=include_flagged,
    )


# --- Computing (pure) ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Variant:
    """The scores over one variant's edits (``rows``, a mask over the loaded edits).

    ``segments``: segment HTER of the outputs scored (``output_rows``: their rows in the
    loaded outputs); ``chosen_edit``: per output the loaded edit chosen, -1 when scored against
    the reference. ``systems`` is None when no output could be scored. ``per_system`` counts
    edits, passed and verified edits per system of ``systems``.
    """

    rows: NDArray[np.bool_]
    output_rows: NDArray[np.int64]
    segments: SegmentHTER
    chosen_edit: NDArray[np.int64]
    systems: SystemHTER | None
    per_system: dict[str, NDArray[np.int64]]
    subsampling: SubsamplingTable | None
    combinations: dict[str, Any] | None
    extremes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class PostEditingAnalysis:
    """Everything one run stores. Per-edit arrays are aligned to the loaded edits; per-worker
    ones to ``workers`` (everyone with an edit or a vote, sorted)."""

    config: PostEditingConfig
    yes: NDArray[np.int64]
    no: NDArray[np.int64]
    verified: NDArray[np.bool_]
    passed: NDArray[np.bool_]  # unverified edits count as passed
    ter: NDArray[np.float64]  # TER(MT -> edit), NaN while unscored
    profiles: WorkerProfiles  # over every scored edit
    flagged_workers: NDArray[np.int64]
    weights: WorkerWeights | None
    workers: NDArray[np.int64]
    worker: dict[str, NDArray]
    variants: dict[bool, Variant]

    def outcome_counts(self, rows: NDArray[np.bool_]) -> tuple[int, int, int]:
        """(passed, failed, unverified) among the edits of ``rows``."""
        verified = self.verified[rows]
        passed = self.passed[rows]
        return (
            int(np.count_nonzero(verified & passed)),
            int(np.count_nonzero(verified & ~passed)),
            int(np.count_nonzero(~verified)),
        )


def _verification(loaded: LoadedPostEditing):
    counted = loaded.counted_votes
    outcome = verify_edits(
        loaded.vote_edit[counted],
        loaded.vote_same[counted] == 1,
        loaded.vote_acceptable[counted] == 1,
        loaded.n_edits,
    )
    return outcome.yes, outcome.no, outcome.verified, outcome.passed | ~outcome.verified


def _sub_segments(seg: SegmentHTER, keep: NDArray[np.bool_]) -> SegmentHTER:
    return SegmentHTER(
        **{
            name: getattr(seg, name)[keep]
            for name in (
                "system",
                "segment",
                "edits",
                "ref_length",
                "chosen",
                "n_edits",
                "n_passed",
            )
        }
    )


def _outputs(loaded: LoadedPostEditing, rows: NDArray[np.int64]) -> Outputs:
    """The outputs of ``rows`` (loaded output rows) with their TER against the reference
    (0 / 0 where there is none: those are only ever scored by a passed edit)."""
    return Outputs(
        system=loaded.output_system[rows],
        segment=loaded.output_segment[rows],
        ref_edits=np.nan_to_num(loaded.output_ref_edits[rows]).astype(np.int64),
        ref_length=np.nan_to_num(loaded.output_ref_length[rows]),
    )


def _post_edits(loaded: LoadedPostEditing, edits: NDArray[np.int64], passed) -> PostEdits:
    return PostEdits(
        system=loaded.edit_system[edits],
        segment=loaded.edit_segment[edits],
        edits=loaded.edits[edits].astype(np.int64),
        ref_length=loaded.ref_length[edits],
        passed=passed[edits],
        worker=loaded.edit_worker[edits],
    )


def _extremes(loaded, seg: SegmentHTER, output_rows, chosen_edit, n: int) -> dict[str, list]:
    """The ``n`` worst and best outputs by segment HTER (ties: fewer words last, then id)."""
    hter = seg.hter

    def row(i: int) -> dict[str, Any]:
        return {
            "output": int(loaded.output_id[output_rows[i]]),
            "system": int(seg.system[i]),
            "segment": int(seg.segment[i]),
            "hter": float(hter[i]),
            "edits": int(seg.edits[i]),
            "ref_length": float(seg.ref_length[i]),
            "n_edits": int(seg.n_edits[i]),
            "n_passed": int(seg.n_passed[i]),
            "from_reference": bool(seg.chosen[i] < 0),
            "judgment": int(loaded.edit_id[chosen_edit[i]]) if chosen_edit[i] >= 0 else None,
        }

    ids = loaded.output_id[output_rows]
    worst = np.lexsort((ids, -seg.ref_length, -hter))[:n]
    best = np.lexsort((ids, -seg.ref_length, hter))[:n]
    return {"worst": [row(int(i)) for i in worst], "best": [row(int(i)) for i in best]}


def _gold_rates(loaded: LoadedPostEditing, ter: NDArray[np.float64]):
    """Per output with a gold edit (loaded output rows, sorted) the gold TER: the smallest
    of its gold edits' (a professional edits an output once; should there be several, the
    closest edit is the one 000 would keep)."""
    rows = loaded.scored & loaded.gold & ~loaded.rejected
    outputs = loaded.edit_output[rows]
    rates = ter[rows]
    if outputs.size == 0:
        return outputs, rates
    order = np.lexsort((rates, outputs))
    outputs, rates = outputs[order], rates[order]
    first = np.r_[True, outputs[1:] != outputs[:-1]]
    return outputs[first], rates[first]


def _combinations(
    loaded: LoadedPostEditing,
    rows: NDArray[np.bool_],
    ter: NDArray[np.float64],
    weights: WorkerWeights,
    gold_outputs: NDArray[np.int64],
    gold_ter: NDArray[np.float64],
) -> dict[str, Any] | None:
    """003's minimum, median, mean and weighted mean of each output's crowd edit rates, and
    the documents (one system's translation of one document, as 003's MT documents) ranked
    by each and by the MT output's TER against the reference, against the gold ranking;
    over the outputs with both a gold edit and a crowd edit. The weights come from the same
    outputs (in-sample: every gold edit is used, none is held out)."""
    edits = np.flatnonzero(rows)
    if edits.size == 0 or gold_outputs.size == 0:
        return None
    output = loaded.edit_output[edits]
    combined = combine_edit_rates(output, loaded.edit_worker[edits], ter[edits], weights)
    both = np.intersect1d(combined.segments, gold_outputs)
    if both.size == 0:
        return None
    at = np.searchsorted(combined.segments, both)
    gold = gold_ter[np.searchsorted(gold_outputs, both)]
    predictions = {name: combined.method(name)[at] for name in COMBINATIONS}
    with_reference = ~np.isnan(loaded.output_ref_edits[both])
    if with_reference.all():
        predictions["ter"] = edit_rate(
            loaded.output_ref_edits[both], loaded.output_ref_length[both]
        )
    systems = loaded.output_system[both]
    documents = loaded.output_document[both]
    pairs, code = np.unique(np.stack([systems, documents], 1), axis=0, return_inverse=True)
    code = code.reshape(-1)
    docs, gold_doc = document_scores(gold, code)
    doc_predictions = {
        name: document_scores(values, code)[1] for name, values in predictions.items()
    }
    ranked = rank_all(docs, doc_predictions, gold_doc)
    return {
        "n_outputs": int(both.size),
        "n_documents": int(docs.size),
        "gold_mean": float(gold.mean()),
        "methods": {
            name: {
                "mean": float(predictions[name].mean()),
                "rho": ranked[name].rho,
                "p_value": ranked[name].p_value,
            }
            for name in predictions
        },
        "documents": [
            {
                "system": int(pairs[d, 0]),
                "document": int(pairs[d, 1]),
                "gold": float(gold_doc[d]),
                "gold_rank": float(ranked["mean"].gold_rank[d]),
                **{name: float(doc_predictions[name][d]) for name in predictions},
            }
            for d in range(docs.size)
        ],
    }


def variant_segments(
    loaded: LoadedPostEditing, rows: NDArray[np.bool_], passed: NDArray[np.bool_]
) -> tuple[NDArray[np.int64], SegmentHTER, NDArray[np.int64]]:
    """Segment HTER of the outputs with an edit among ``rows``: (their loaded output rows,
    :class:`SegmentHTER`, per output the loaded edit chosen or -1). An output none of whose
    edits passed and that has no reference cannot be scored and is left out."""
    edits = np.flatnonzero(rows)
    output_rows = np.unique(loaded.edit_output[edits])
    seg = segment_hter(_outputs(loaded, output_rows), _post_edits(loaded, edits, passed))
    keep = (seg.chosen >= 0) | ~np.isnan(loaded.output_ref_edits[output_rows])
    seg = _sub_segments(seg, keep)
    chosen_edit = np.where(seg.chosen >= 0, edits[np.maximum(seg.chosen, 0)], -1)
    return output_rows[keep], seg, chosen_edit


def verification(
    loaded: LoadedPostEditing,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Per loaded edit: yes votes, no votes, verified (a vote), passed (majority of yes, or
    no vote yet) from the counted votes."""
    return _verification(loaded)


def _variant(
    loaded: LoadedPostEditing,
    rows: NDArray[np.bool_],
    passed: NDArray[np.bool_],
    verified: NDArray[np.bool_],
    ter: NDArray[np.float64],
    config: PostEditingConfig,
    weights: WorkerWeights | None,
    gold: tuple[NDArray[np.int64], NDArray[np.float64]],
) -> Variant:
    edits = np.flatnonzero(rows)
    output_rows, seg, chosen_edit = variant_segments(loaded, rows, passed)
    systems = None
    per_system: dict[str, NDArray[np.int64]] = {}
    if len(seg):
        systems = system_hter(
            seg, n_samples=config.n_samples, seed=config.seed, level=config.level,
            alpha=config.alpha,
        )  # fmt: skip
        edit_systems = loaded.edit_system[edits]
        m = systems.systems.shape[0]
        pos = np.searchsorted(systems.systems, edit_systems)
        known = (pos < m) & (systems.systems[np.minimum(pos, m - 1)] == edit_systems)
        pos, counted = pos[known], edits[known]
        per_system = {
            "n_edits": np.bincount(pos, minlength=m).astype(np.int64),
            "n_passed": np.bincount(pos, weights=passed[counted], minlength=m).astype(np.int64),
            "n_verified": np.bincount(pos, weights=verified[counted], minlength=m).astype(np.int64),
        }
    # 000 Table 2 needs the "0 editors" column: outputs with a reference only.
    subsampling = None
    with_reference = output_rows[~np.isnan(loaded.output_ref_edits[output_rows])]
    sub_edits = edits[np.isin(loaded.edit_output[edits], with_reference)]
    if sub_edits.size:
        subsampling = editor_subsampling(
            _outputs(loaded, with_reference),
            _post_edits(loaded, sub_edits, passed),
            max_enumerate=config.max_subsets,
            n_random=config.max_subsets,
            seed=config.seed,
        )
    combinations = None
    if weights is not None:
        combinations = _combinations(loaded, rows, ter, weights, *gold)
    return Variant(
        rows=rows,
        output_rows=output_rows,
        segments=seg,
        chosen_edit=chosen_edit,
        systems=systems,
        per_system=per_system,
        subsampling=subsampling,
        combinations=combinations,
        extremes=_extremes(loaded, seg, output_rows, chosen_edit, config.n_extreme),
    )


def _per_worker(index: NDArray[np.int64], m: int, weights: NDArray | None = None) -> NDArray:
    return np.bincount(index, weights=weights, minlength=m)


def analyse_loaded_post_editing(
    loaded: LoadedPostEditing, config: PostEditingConfig
) -> PostEditingAnalysis:
    """Run the statistics on a loaded campaign: pure, no database (module docstring)."""
    yes, no, verified, passed = _verification(loaded)
    ter = np.where(loaded.scored, edit_rate(np.nan_to_num(loaded.edits), loaded.ref_length), np.nan)
    has_ref_distance = ~np.isnan(loaded.reference_edits)
    to_reference = np.where(
        has_ref_distance,
        edit_rate(np.nan_to_num(loaded.reference_edits), np.nan_to_num(loaded.reference_length)),
        np.nan,
    )
    mt_to_reference = edit_rate(
        np.nan_to_num(loaded.output_ref_edits), np.nan_to_num(loaded.output_ref_length)
    )[loaded.edit_output]
    mt_to_reference = np.where(
        np.isnan(loaded.output_ref_edits[loaded.edit_output]), np.inf, mt_to_reference
    )
    scored = loaded.scored
    # Profiles over every scored edit of a worker (rejected and excluded ones too: they are
    # the worker's work all the same); no reference: never "copied".
    profiles = worker_profiles(
        loaded.edit_worker[scored],
        ter[scored],
        np.where(has_ref_distance, to_reference, np.inf)[scored],
        mt_to_reference=mt_to_reference[scored],
    )
    flagged_workers = profiles.workers[profiles.did_nothing | profiles.copied_reference]
    flagged_workers = np.setdiff1d(flagged_workers, loaded.gold_workers)

    gold = _gold_rates(loaded, ter)
    weights = None
    crowd = loaded.crowd
    if gold[0].size:
        weights = worker_weights(
            loaded.edit_output[crowd], loaded.edit_worker[crowd], ter[crowd], gold[0], gold[1]
        )
    default_rows = crowd & ~np.isin(loaded.edit_worker, flagged_workers)
    default = _variant(loaded, default_rows, passed, verified, ter, config, weights, gold)
    everyone = (
        default
        if np.array_equal(default_rows, crowd)
        else _variant(loaded, crowd, passed, verified, ter, config, weights, gold)
    )

    workers = np.union1d(loaded.edit_worker, loaded.vote_worker)
    m = workers.shape[0]
    wi = np.searchsorted(workers, loaded.edit_worker)
    vi = np.searchsorted(workers, loaded.vote_worker)
    sc = scored
    n_with_reference = _per_worker(wi[sc & has_ref_distance], m)
    sum_to_reference = _per_worker(
        wi[sc & has_ref_distance], m, np.nan_to_num(to_reference[sc & has_ref_distance])
    )
    profile_at = np.searchsorted(profiles.workers, workers)
    in_profiles = np.isin(workers, profiles.workers)
    profile_at = np.where(in_profiles, np.minimum(profile_at, max(len(profiles.workers) - 1, 0)), 0)

    def profile(values: NDArray, missing: Any) -> NDArray:
        if not len(profiles.workers):
            return np.full(m, missing)
        return np.where(in_profiles, values[profile_at], missing)

    with np.errstate(invalid="ignore", divide="ignore"):
        mean_to_reference = np.where(
            n_with_reference > 0, sum_to_reference / n_with_reference, np.nan
        )
    outcome_verified = sc & verified
    excluded = np.isin(workers, loaded.excluded_workers)
    gold_worker = np.isin(workers, loaded.gold_workers)
    flagged = np.isin(workers, flagged_workers)
    worker = {
        "n_edits": _per_worker(wi, m).astype(np.int64),
        "n_votes": _per_worker(vi, m).astype(np.int64),
        "n_rejected": (
            _per_worker(wi[loaded.rejected], m) + _per_worker(vi[loaded.vote_rejected], m)
        ).astype(np.int64),
        "mean_ter_to_mt": profile(profiles.mean_ter_to_mt, np.nan),
        "mean_ter_to_reference": mean_to_reference,
        "share_unchanged": profile(profiles.share_unchanged, np.nan),
        "share_copied": profile(profiles.share_copied, np.nan),
        "did_nothing": profile(profiles.did_nothing, False).astype(bool) & ~gold_worker,
        "copied_reference": profile(profiles.copied_reference, False).astype(bool) & ~gold_worker,
        "n_passed": _per_worker(wi[outcome_verified & passed], m).astype(np.int64),
        "n_failed": _per_worker(wi[outcome_verified & ~passed], m).astype(np.int64),
        "n_unverified": _per_worker(wi[sc & ~verified], m).astype(np.int64),
        "excluded": excluded,
        "gold": gold_worker,
        "in_scores": ~excluded & ~gold_worker & ~flagged,
    }
    if weights is not None:
        at = np.searchsorted(weights.workers, workers)
        known = np.isin(workers, weights.workers)
        at = np.where(known, np.minimum(at, max(len(weights.workers) - 1, 0)), 0)
        worker["n_gold_segments"] = np.where(known, weights.n_verification[at], 0)
        worker["gold_distance"] = np.where(known, weights.distance[at], np.nan)
        worker["weight"] = np.where(known & ~gold_worker, weights.of(workers), np.nan)
    return PostEditingAnalysis(
        config=config,
        yes=yes,
        no=no,
        verified=verified,
        passed=passed,
        ter=ter,
        profiles=profiles,
        flagged_workers=flagged_workers,
        weights=weights,
        workers=workers,
        worker=worker,
        variants={False: default, True: everyone},
    )


# --- The run ---------------------------------------------------------------------------------


def _score_references(campaign: Campaign, signature: str) -> None:
    """The distances to the reference still missing: scored here when few (live edits), sent
    to chunk tasks when many (after a large import's HTER; once per fan-out in flight). Until
    they are stored, the statistics that need them (a worker's distance to the reference, the
    copied-reference flag, an output's fallback HTER, "0 editors") leave those edits out."""
    waiting = pending_reference_ids(campaign.pk, signature)
    if not waiting:
        return
    if should_defer_references(len(waiting)):
        fan_out_scoring(campaign, waiting, part="references")
    else:
        score_pending_references(campaign)


def recompute_post_editing(campaign: Campaign) -> PostEditingResult | None:
    """Build verification HITs, score new edits, load, aggregate and store (module
    docstring); None, with any stored results removed, while the campaign has no edit and no
    vote. While a backlog is being scored by chunk tasks, the stored result is returned as
    it is (None before the first)."""
    from campaigns.kinds.post_editing.verification import build_verification_hits

    computed_at = timezone.now()
    build_verification_hits(campaign)
    config = post_editing_config_for(campaign)
    pending = pending_edit_ids(campaign.pk, config.signature)
    if should_fan_out(len(pending)):
        fan_out_scoring(campaign, pending)
        return PostEditingResult.objects.filter(campaign=campaign).first()
    if pending:
        # A large backlog's HTER first; its distances to the reference follow in chunk tasks.
        score_pending_edits(campaign, references=not should_defer_references(len(pending)))
    _score_references(campaign, config.signature)
    started = time.perf_counter()
    loaded = load_post_editing(campaign.pk, config.signature, config.gold_editor)
    if loaded.n_read == 0:
        store_post_editing_results(campaign, None, None, computed_at)
        return None
    analysis = analyse_loaded_post_editing(loaded, config)
    seconds = time.perf_counter() - started
    result, _ = store_post_editing_results(
        campaign, loaded, analysis, computed_at, compute_seconds=seconds
    )
    logger.info(
        "Recomputed post-editing campaign %s: %d edits, %d votes in %.3fs",
        campaign.pk,
        loaded.n_edits,
        loaded.n_votes,
        seconds,
    )
    return result


# --- The periodic sweep ----------------------------------------------------------------------


def stale_post_editing_campaigns() -> QuerySet[Campaign]:
    """Post-editing campaigns whose stored results no longer match their data: edits or votes
    but no result; another number of them, or one newer than the result; another number in
    rejected assignments; a worker excluded or re-admitted since; other TER or gold settings
    (then every edit is scored again). One query."""
    read = Judgment.objects.filter(judged(), campaign=OuterRef("pk")).order_by()
    per_campaign = read.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = newest_submitted_at(read)
    n_rejected_now = held_back_count(read)
    excluded_now = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    exclusion_changed = Exists(
        PostEditingWorkerStat.objects.filter(campaign=OuterRef("pk"))
        .annotate(excluded_now=Exists(excluded_now))
        .exclude(excluded=F("excluded_now"))
    )
    result = "post_editing_result"
    settings = "post_editing_settings"
    return (
        Campaign.objects.filter(kind=TaskKind.POST_EDITING)
        .alias(
            n_now=n_now,
            newest=newest,
            n_rejected_now=n_rejected_now,
            exclusion_changed=exclusion_changed,
        )
        .filter(
            Q(**{f"{result}__isnull": True}, n_now__gt=0)
            | Q(**{f"{result}__isnull": False})
            & (
                ~Q(**{f"{result}__n_judgments": F("n_now")})
                | Q(**{f"{result}__computed_at__lt": F("newest")})
                | ~Q(**{f"{result}__n_rejected_judgments": F("n_rejected_now")})
                | Q(exclusion_changed=True)
                | ~Q(**{f"{result}__ter_case_sensitive": F(f"{settings}__ter_case_sensitive")})
                | ~Q(**{f"{result}__ter_normalized": F(f"{settings}__ter_normalized")})
                | ~Q(**{f"{result}__gold_editor": F(f"{settings}__gold_editor")})
            )
        )
        .order_by("pk")
    )
