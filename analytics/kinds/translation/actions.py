"""Crowd translation's stored statistics (METHODS.md section 6; issue 15 items 2-5).

:func:`recompute_translation` is what ``analytics.actions.recompute_campaign`` runs for a
translation campaign (through the kind's ``recompute``), after every burst of
``judgments_recorded`` and from the sweep (:func:`stale_translation_campaigns`). One run:

1. builds the Detect-MT HITs of newly submitted translation assignments
   (``campaigns.kinds.translation.stages.build_detect_mt_hits``, idempotent);
2. loads the campaign (``analytics.kinds.translation.loading``) and computes
   (:func:`analyse_loaded_translation`, pure): each translation's similarity to the imported
   MT outputs and Detect-MT outcome, the flags (``analytics.stats.translation.flags`` says
   what counts in a flag rate), each translator's flag rate, who is to be excluded, the kept
   translation of each sentence and its correction, BLEU and chrF of every translator and of
   the kept test set against the professional references, and every imported system on the
   professional and the crowd test sets with 004's percentage of baseline;
3. excludes the translators newly at or above the exclusion rate
   (``judgments.actions.membership.set_excluded``, the reason giving the rate and the
   threshold). A translator the recompute excluded once is never excluded again
   automatically (``TranslationWorkerStat.auto_excluded``), so the requester's readmission
   stands;
4. stores the results in one transaction (``analytics.kinds.translation.store``);
5. with the correction pass on, builds the correction HITs of the runs whose sentences all
   have a final kept translation (``stages.build_correction_hits``).

What counts (our choices where the papers are silent):

- A kept translation is *final* when the requester chose it, or when the sentence has all
  its translations (the campaign's redundancy, counted ones) and none is still waiting for
  Detect-MT votes (chosen by ranking, ``best_ranked``: and each of its eligible
  translations has been ranked at least once in the ranking campaign); until then it is
  provisional (shown, exported, scored, not corrected).
- Eligible for the automatic choice: a counted translation, not flagged, whose translator is
  not excluded. The requester's choice overrides everything (even a flagged translation).
- The crowd test set is every sentence with a kept translation; the system table scores each
  system on those sentences (the crowd test sets) and on those of them with professional
  references (the professional one), so every column covers the same sentences when every
  sentence has references. The baseline of 004's percentage is the best system by BLEU on
  the professional references (on the crowd test set when there are none); the API and the
  panel take ``?baseline=<system id>`` for another.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.actions.common import held_back_count, newest_submitted_at
from analytics.kinds.translation.loading import (
    COUNTED_STATUSES,
    LoadedTranslation,
    load_translation,
    translation_judgments,
)
from analytics.kinds.translation.store import store_translation_results
from analytics.models import TranslationResult, TranslationWorkerStat
from analytics.stats.translation import (
    Candidate,
    CorpusScore,
    DetectOutcome,
    FlagRate,
    TranslationFlag,
    best_system,
    choose_correction,
    corpus_score,
    flag_rates,
    flag_translation,
    mt_similarity,
    percent_of_baseline,
    select_translation,
    sentence_scores,
    similarity_signature,
    workers_to_exclude,
)
from analytics.stats.translation.flags import MIN_DECIDED
from campaigns.kinds.translation.models import TranslationChoice
from campaigns.models import Campaign, TaskKind
from judgments.models import CampaignWorker, Judgment, held_back_from_scores

__all__ = [
    "SystemRow",
    "TranslationAnalysis",
    "TranslationConfig",
    "analyse_loaded_translation",
    "exclusion_reason",
    "recompute_translation",
    "stale_translation_campaigns",
    "translation_config_for",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class TranslationConfig:
    """The campaign's settings as one run uses them."""

    metric: str = "chrf"
    threshold: Decimal = Decimal("90")
    exclusion_rate: Decimal = Decimal("0.3")
    selection_method: str = "consensus"
    correction_pass: bool = False
    redundancy: int = 5
    min_decided: int = MIN_DECIDED


def translation_config_for(campaign: Campaign) -> TranslationConfig:
    settings_row = getattr(campaign, "translation_settings", None)
    if settings_row is None:
        return TranslationConfig(redundancy=campaign.redundancy)
    return TranslationConfig(
        metric=settings_row.mt_similarity_metric,
        threshold=Decimal(settings_row.mt_similarity_threshold),
        exclusion_rate=Decimal(settings_row.detect_mt_exclusion_rate),
        selection_method=settings_row.selection_method,
        correction_pass=settings_row.correction_pass,
        redundancy=campaign.redundancy,
    )


# --- Computing (pure) ------------------------------------------------------------------------


@dataclass
class TranslationRow:
    """One translation's numbers (aligned to ``loaded.translations``)."""

    similarity: float | None = None
    similar_system: int | None = None
    detect: DetectOutcome = field(default_factory=DetectOutcome)
    flag: TranslationFlag | None = None  # None: not counted
    eligible: bool = False
    consensus: float | None = None
    kept: bool = False
    bleu: float | None = None
    chrf: float | None = None


@dataclass(frozen=True)
class KeptRow:
    segment: int
    judgment: int
    how: str  # "requester" or the selection method
    final: bool
    correction: int | None
    text: str
    raw_text: str
    n_translations: int
    n_eligible: int


@dataclass(frozen=True)
class SystemRow:
    system: int
    test_set: str
    bleu: float
    chrf: float
    n_segments: int
    percent_of_baseline: float | None
    position: int = 0


@dataclass(frozen=True, eq=False)
class TranslationAnalysis:
    config: TranslationConfig
    similarity_signature: str
    rows: list[TranslationRow]
    rates: dict[int, FlagRate]
    newly_excluded: list[int]  # translators this run excludes
    excluded: frozenset[int]  # after this run
    auto_excluded: frozenset[int]  # excluded by a recompute, this one or an earlier one
    kept: list[KeptRow]
    worker_scores: dict[int, CorpusScore]
    votes_by: dict[int, int]
    corrections_by: dict[int, int]
    testset: CorpusScore | None
    raw: CorpusScore | None
    systems: list[SystemRow]
    baseline: int | None

    @property
    def flagged_count(self) -> int:
        return sum(1 for row in self.rows if row.flag is not None and row.flag.flagged)


def _ranking_score(loaded: LoadedTranslation, translation: int) -> float | None:
    score = loaded.ranking.get(translation)
    return score.score if score is not None else None


def _corpus(pairs: list[tuple[str, list[str]]]) -> CorpusScore | None:
    if not pairs:
        return None
    return corpus_score([hyp for hyp, _ in pairs], [refs for _, refs in pairs])


def system_table(
    loaded: LoadedTranslation, kept: list[KeptRow], baseline: int | None = None
) -> tuple[list[SystemRow], int | None]:
    """Every imported system's corpus BLEU and chrF on the professional references and on the
    crowd test sets (corrected and raw), over the sentences with a kept translation (module
    docstring), with the percentage of ``baseline`` (default: the best on the professional
    references, else on the crowd test set); and the baseline used."""
    references = {segment.id: segment.references for segment in loaded.segments}
    sets: dict[str, dict[int, CorpusScore]] = {"professional": {}, "crowd": {}, "crowd_raw": {}}
    for system in loaded.system_names:
        rows = [
            (loaded.outputs[k.segment][system], k)
            for k in kept
            if system in loaded.outputs.get(k.segment, {})
        ]
        for name, refs_of in (
            ("professional", lambda k: references.get(k.segment, [])),
            ("crowd", lambda k: [k.text]),
            ("crowd_raw", lambda k: [k.raw_text]),
        ):
            score = _corpus([(hyp, refs_of(k)) for hyp, k in rows])
            if score is not None:
                sets[name][system] = score
    professional = {s: c.bleu for s, c in sets["professional"].items()}
    crowd = {s: c.bleu for s, c in sets["crowd"].items()}
    ordering = professional or crowd
    if baseline is None or baseline not in loaded.system_names:
        baseline = best_system(ordering) if ordering else None
    names = loaded.system_names
    order = sorted(names, key=lambda s: (-(ordering.get(s, float("-inf"))), names[s], s))
    position = {system: i + 1 for i, system in enumerate(order)}
    out: list[SystemRow] = []
    for name, scores in sets.items():
        percents = (
            percent_of_baseline({s: c.bleu for s, c in scores.items()}, baseline)
            if baseline is not None
            else {}
        )
        out.extend(
            SystemRow(
                system=system,
                test_set=name,
                bleu=score.bleu,
                chrf=score.chrf,
                n_segments=score.n_segments,
                percent_of_baseline=percents.get(system),
                position=position[system],
            )
            for system, score in scores.items()
        )
    out.sort(key=lambda row: (row.position, row.test_set))
    return out, baseline


def analyse_loaded_translation(
    loaded: LoadedTranslation,
    config: TranslationConfig,
    auto_excluded_before: frozenset[int] = frozenset(),
) -> TranslationAnalysis:
    """Run the statistics on a loaded campaign: pure, no database (module docstring)."""
    excluded_now = loaded.excluded_workers
    machine: dict[int, int] = defaultdict(int)
    human: dict[int, int] = defaultdict(int)
    votes_by: dict[int, int] = defaultdict(int)
    for vote in loaded.votes:
        if vote.counted and vote.yes_no is not None and vote.worker not in excluded_now:
            votes_by[vote.worker] += 1
            if vote.about is not None:
                (machine if vote.yes_no else human)[vote.about] += 1

    rows: list[TranslationRow] = []
    for t in loaded.translations:
        row = TranslationRow()
        sim = mt_similarity(t.text, loaded.outputs.get(t.segment or -1, {}), config.metric)
        if sim is not None:
            row.similarity, row.similar_system = sim.score, int(sim.system)
        row.detect = DetectOutcome(machine[t.id], human[t.id], loaded.places.get(t.id, 0))
        if t.counted:
            row.flag = flag_translation(row.similarity, config.threshold, row.detect)
        rows.append(row)

    counted = [i for i, t in enumerate(loaded.translations) if t.counted]
    rates = flag_rates(
        [loaded.translations[i].worker for i in counted],
        [rows[i].flag for i in counted],  # type: ignore[misc]
    )
    over = workers_to_exclude(rates, config.exclusion_rate, config.min_decided)
    newly = sorted(int(w) for w in over if w not in excluded_now and w not in auto_excluded_before)
    excluded = frozenset(excluded_now | set(newly))
    auto_excluded = frozenset(auto_excluded_before | set(newly))

    # The kept translation of each sentence.
    by_segment: dict[int, list[int]] = defaultdict(list)
    for i in counted:
        by_segment[loaded.translations[i].segment or -1].append(i)
    index = {t.id: i for i, t in enumerate(loaded.translations)}
    corrections: dict[int, list[tuple[int, str]]] = defaultdict(list)
    corrections_by: dict[int, int] = defaultdict(int)
    for c in loaded.corrections:
        if c.counted and c.text and c.worker not in excluded:
            corrections[c.about or -1].append((c.id, c.text))
            corrections_by[c.worker] += 1
    kept: list[KeptRow] = []
    for segment in loaded.segments:
        members = by_segment.get(segment.id, [])
        eligible = [
            i
            for i in members
            if not rows[i].flag.flagged  # type: ignore[union-attr]
            and loaded.translations[i].worker not in excluded
            and loaded.translations[i].text
        ]
        for i in eligible:
            rows[i].eligible = True
        chosen = loaded.choices.get(segment.id)
        how = "requester"
        final = True
        if chosen is None or chosen not in index:
            candidates = [
                Candidate(
                    loaded.translations[i].id,
                    loaded.translations[i].text,
                    rows[i].detect.machine_share,
                    _ranking_score(loaded, loaded.translations[i].id),
                )
                for i in eligible
            ]
            chosen, scores = select_translation(candidates, config.selection_method)
            for i, score in zip(eligible, scores, strict=True):
                rows[i].consensus = score
            how = config.selection_method
            final = len(members) >= config.redundancy and all(
                rows[i].flag.settled  # type: ignore[union-attr]
                for i in members
            )
            if config.selection_method == "best_ranked" and len(eligible) > 1:
                # Final once every eligible translation has been ranked.
                final = final and all(
                    _ranking_score(loaded, loaded.translations[i].id) is not None for i in eligible
                )
        if chosen is None:
            continue
        rows[index[chosen]].kept = True
        raw = loaded.translations[index[chosen]].text
        correction = choose_correction(corrections.get(chosen, []))
        text = raw
        if correction is not None:
            text = dict(corrections[chosen])[correction]
        kept.append(
            KeptRow(
                segment=segment.id,
                judgment=chosen,
                how=how,
                final=final,
                correction=correction,
                text=text,
                raw_text=raw,
                n_translations=len(members),
                n_eligible=len(eligible),
            )
        )

    # Quality against the professional references.
    references = {segment.id: segment.references for segment in loaded.segments}
    per_worker: dict[int, list[tuple[str, list[str]]]] = defaultdict(list)
    for i in counted:
        t = loaded.translations[i]
        refs = references.get(t.segment or -1, [])
        scores = sentence_scores(t.text, refs) if t.text else None
        if scores is not None:
            rows[i].bleu, rows[i].chrf = scores
            per_worker[t.worker].append((t.text, refs))
    worker_scores = {
        w: score for w, pairs in per_worker.items() if (score := _corpus(pairs)) is not None
    }
    testset = _corpus([(k.text, references.get(k.segment, [])) for k in kept])
    raw = _corpus([(k.raw_text, references.get(k.segment, [])) for k in kept])
    systems, baseline = system_table(loaded, kept)
    return TranslationAnalysis(
        config=config,
        similarity_signature=similarity_signature(config.metric),  # type: ignore[arg-type]
        rows=rows,
        rates=rates,  # type: ignore[arg-type]
        newly_excluded=newly,
        excluded=excluded,
        auto_excluded=auto_excluded,
        kept=kept,
        worker_scores=worker_scores,
        votes_by=dict(votes_by),
        corrections_by=dict(corrections_by),
        testset=testset,
        raw=raw,
        systems=systems,
        baseline=baseline,
    )


def exclusion_reason(rate: FlagRate, threshold: Decimal) -> str:
    return (
        f"Flagged as machine translation in {rate.n_flagged} of {rate.n_decided} decided "
        f"translations ({100 * (rate.rate or 0):.0f}%), at or above the campaign's exclusion "
        f"rate of {100 * float(threshold):.0f}% (a Detect-MT majority or similarity to an "
        "imported MT output)."
    )


# --- The run ---------------------------------------------------------------------------------


def _stages() -> Any:
    """``campaigns.kinds.translation.stages`` (the campaigns side builds the Detect-MT and
    correction HITs), or None while it does not exist."""
    try:
        from campaigns.kinds.translation import stages
    except ModuleNotFoundError as missing:
        if missing.name != "campaigns.kinds.translation.stages":
            raise
        return None
    return stages


def _exclude(campaign: Campaign, analysis: TranslationAnalysis) -> None:
    from judgments.actions.membership import set_excluded

    for worker in analysis.newly_excluded:
        membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker_id=worker)
        reason = exclusion_reason(analysis.rates[worker], analysis.config.exclusion_rate)
        set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, reason)
        logger.info(
            "Excluded worker %s from translation campaign %s: %s", worker, campaign.pk, reason
        )


def recompute_translation(campaign: Campaign) -> TranslationResult | None:
    """Build Detect-MT HITs, load, compute, exclude, store, build correction HITs (module
    docstring); None, with any stored results removed, while the campaign has no judgment."""
    stages = _stages()
    if stages is not None:
        stages.build_detect_mt_hits(campaign)
    computed_at = timezone.now()
    started = time.perf_counter()
    loaded = load_translation(campaign.pk)
    if loaded.n_read == 0:
        store_translation_results(campaign, None, None, computed_at)
        return None
    campaign = Campaign.objects.select_related("translation_settings").get(pk=campaign.pk)
    config = translation_config_for(campaign)
    before = frozenset(
        TranslationWorkerStat.objects.filter(campaign=campaign, auto_excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    analysis = analyse_loaded_translation(loaded, config, before)
    _exclude(campaign, analysis)
    seconds = time.perf_counter() - started
    result = store_translation_results(
        campaign, loaded, analysis, computed_at, compute_seconds=seconds
    )
    if config.correction_pass and stages is not None:
        final = {k.segment: k.judgment for k in analysis.kept if k.final}
        if final:
            stages.build_correction_hits(campaign, final)
    logger.info(
        "Recomputed translation campaign %s: %d translations, %d votes, %d corrections in %.3fs",
        campaign.pk,
        len(loaded.translations),
        len(loaded.votes),
        len(loaded.corrections),
        seconds,
    )
    return result


# --- The periodic sweep ----------------------------------------------------------------------


def stale_translation_campaigns() -> QuerySet[Campaign]:
    """Translation campaigns whose stored results no longer match their data: judgments but
    no result; another number of them, or of them in submitted or approved assignments, or in
    held-back ones, or one newer than the result; a worker excluded or re-admitted since; a
    requester's choice made since; a ranking in the ranking campaign over its translations
    newer than the result. One query."""
    read = Judgment.objects.filter(translation_judgments(), campaign=OuterRef("pk")).order_by()
    per_campaign = read.values("campaign")
    n_now = Coalesce(Subquery(per_campaign.annotate(n=Count("pk")).values("n")), 0)
    newest = newest_submitted_at(read)
    n_scored_now = Coalesce(
        Subquery(
            per_campaign.filter(assignment__status__in=COUNTED_STATUSES)
            .exclude(held_back_from_scores("assignment__"))
            .annotate(n=Count("pk"))
            .values("n")
        ),
        0,
    )
    n_rejected_now = held_back_count(read)
    newest_choice = Subquery(
        TranslationChoice.objects.filter(campaign=OuterRef("pk"))
        .order_by()
        .values("campaign")
        .annotate(t=Max("chosen_at"))
        .values("t")
    )
    excluded_now = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    # Rankings of the ranking campaign over the translations (the selection by ranking). Max
    # grouped by campaign, not newest_submitted_at: these judgments are not filtered by their
    # own campaign, so a first-row plan could walk every judgment's submitted_at backwards.
    newest_ranking = Subquery(
        Judgment.objects.filter(
            slot__output__ranked_translation__campaign=OuterRef("pk"), rank__isnull=False
        )
        .order_by()
        .values("slot__output__ranked_translation__campaign")
        .annotate(t=Max("submitted_at"))
        .values("t")
    )
    exclusion_changed = Exists(
        TranslationWorkerStat.objects.filter(campaign=OuterRef("pk"))
        .annotate(excluded_now=Exists(excluded_now))
        .exclude(excluded=F("excluded_now"))
    )
    result = "translation_result"
    return (
        Campaign.objects.filter(kind=TaskKind.TRANSLATION)
        .alias(
            n_now=n_now,
            newest=newest,
            n_scored_now=n_scored_now,
            n_rejected_now=n_rejected_now,
            newest_choice=newest_choice,
            newest_ranking=newest_ranking,
            exclusion_changed=exclusion_changed,
        )
        .filter(
            Q(**{f"{result}__isnull": True}, n_now__gt=0)
            | Q(**{f"{result}__isnull": False})
            & (
                ~Q(**{f"{result}__n_judgments": F("n_now")})
                | ~Q(**{f"{result}__n_scored_judgments": F("n_scored_now")})
                | Q(**{f"{result}__computed_at__lt": F("newest")})
                | Q(**{f"{result}__computed_at__lt": F("newest_choice")})
                | Q(**{f"{result}__computed_at__lt": F("newest_ranking")})
                | ~Q(**{f"{result}__n_rejected_judgments": F("n_rejected_now")})
                | Q(exclusion_changed=True)
            )
        )
        .order_by("pk")
    )
