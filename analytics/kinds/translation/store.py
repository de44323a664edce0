"""Store a translation campaign's results: the rows of every table replaced in one
transaction (a reader sees the old results or the new ones)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction

from analytics.kinds.translation.loading import LoadedTranslation
from analytics.models import (
    TranslationKeptSegment,
    TranslationResult,
    TranslationStat,
    TranslationSystemScore,
    TranslationWorkerStat,
)
from campaigns.models import Campaign

if TYPE_CHECKING:  # actions imports this module to store its analysis
    from analytics.kinds.translation.actions import TranslationAnalysis

__all__ = ["store_translation_results"]

TABLES = (
    TranslationStat,
    TranslationWorkerStat,
    TranslationKeptSegment,
    TranslationSystemScore,
)


def store_translation_results(
    campaign: Campaign,
    loaded: LoadedTranslation | None,
    analysis: TranslationAnalysis | None,
    computed_at: datetime,
    *,
    compute_seconds: float = 0.0,
) -> TranslationResult | None:
    """Replace the campaign's stored results with ``analysis`` (None: remove them)."""
    with transaction.atomic():
        for model in TABLES:
            model.objects.filter(campaign=campaign).delete()
        if loaded is None or analysis is None:
            TranslationResult.objects.filter(campaign=campaign).delete()
            return None
        return _store(campaign, loaded, analysis, computed_at, compute_seconds)


def _store(
    campaign: Campaign,
    loaded: LoadedTranslation,
    analysis: TranslationAnalysis,
    computed_at: datetime,
    compute_seconds: float,
) -> TranslationResult:
    config = analysis.config
    translations = loaded.translations
    TranslationStat.objects.bulk_create(
        [
            TranslationStat(
                campaign=campaign,
                judgment_id=t.id,
                segment_id=t.segment,
                worker_id=t.worker,
                counted=t.counted,
                mt_similarity=row.similarity,
                mt_system_id=row.similar_system,
                similar=bool(row.flag and row.flag.similar),
                machine_votes=row.detect.machine,
                human_votes=row.detect.human,
                vote_places=row.detect.places,
                detected=bool(row.flag and row.flag.detected),
                flagged=bool(row.flag and row.flag.flagged),
                decided=bool(row.flag and row.flag.decided),
                eligible=row.eligible,
                consensus=row.consensus,
                kept=row.kept,
                bleu=row.bleu,
                chrf=row.chrf,
            )
            for t, row in zip(translations, analysis.rows, strict=True)
            if t.segment is not None
        ],
        batch_size=1000,
    )
    kept_by: dict[int, int] = {}
    worker_of = {t.id: t.worker for t in translations}
    for k in analysis.kept:
        kept_by[worker_of[k.judgment]] = kept_by.get(worker_of[k.judgment], 0) + 1
    workers = sorted(
        {t.worker for t in translations}
        | {v.worker for v in loaded.votes}
        | {c.worker for c in loaded.corrections}
    )
    n_translations: dict[int, int] = {}
    for t in translations:
        n_translations[t.worker] = n_translations.get(t.worker, 0) + 1
    worker_rows = []
    for worker in workers:
        rate = analysis.rates.get(worker)
        score = analysis.worker_scores.get(worker)
        worker_rows.append(
            TranslationWorkerStat(
                campaign=campaign,
                worker_id=worker,
                n_translations=n_translations.get(worker, 0),
                n_decided=rate.n_decided if rate else 0,
                n_flagged=rate.n_flagged if rate else 0,
                flag_rate=rate.rate if rate else None,
                n_votes=analysis.votes_by.get(worker, 0),
                n_corrections=analysis.corrections_by.get(worker, 0),
                n_kept=kept_by.get(worker, 0),
                bleu=score.bleu if score else None,
                chrf=score.chrf if score else None,
                n_scored=score.n_segments if score else 0,
                excluded=worker in analysis.excluded,
                auto_excluded=worker in analysis.auto_excluded,
            )
        )
    TranslationWorkerStat.objects.bulk_create(worker_rows, batch_size=1000)
    TranslationKeptSegment.objects.bulk_create(
        [
            TranslationKeptSegment(
                campaign=campaign,
                segment_id=k.segment,
                judgment_id=k.judgment,
                how=k.how,
                final=k.final,
                correction_id=k.correction,
                text=k.text,
                raw_text=k.raw_text,
                n_translations=k.n_translations,
                n_eligible=k.n_eligible,
            )
            for k in analysis.kept
        ],
        batch_size=1000,
    )
    TranslationSystemScore.objects.bulk_create(
        [
            TranslationSystemScore(
                campaign=campaign,
                system_id=row.system,
                test_set=row.test_set,
                position=row.position,
                bleu=row.bleu,
                chrf=row.chrf,
                n_segments=row.n_segments,
                percent_of_baseline=row.percent_of_baseline,
            )
            for row in analysis.systems
        ]
    )
    all_rows = [*translations, *loaded.votes, *loaded.corrections]
    testset, raw = analysis.testset, analysis.raw
    signature_source = testset or next(iter(analysis.worker_scores.values()), None)
    result, _ = TranslationResult.objects.update_or_create(
        campaign=campaign,
        defaults={
            "computed_at": computed_at,
            "n_judgments": len(all_rows),
            "n_scored_judgments": sum(1 for row in all_rows if row.counted),
            "n_rejected_judgments": sum(1 for row in all_rows if row.held_back),
            "n_workers": len(workers),
            "n_translations": len(translations),
            "n_votes": len(loaded.votes),
            "n_corrections": len(loaded.corrections),
            "n_flagged": analysis.flagged_count,
            "n_segments": len(loaded.segments),
            "n_kept": len(analysis.kept),
            "n_final": sum(1 for k in analysis.kept if k.final),
            "n_to_correct": (
                sum(1 for k in analysis.kept if k.final) if config.correction_pass else 0
            ),
            "n_corrected": sum(1 for k in analysis.kept if k.correction is not None),
            "n_excluded": sum(1 for worker in n_translations if worker in analysis.excluded),
            "similarity_metric": config.metric,
            "similarity_threshold": float(config.threshold),
            "similarity_signature": analysis.similarity_signature,
            "exclusion_rate": float(config.exclusion_rate),
            "bleu_signature": signature_source.bleu_signature if signature_source else "",
            "chrf_signature": signature_source.chrf_signature if signature_source else "",
            "testset_bleu": testset.bleu if testset else None,
            "testset_chrf": testset.chrf if testset else None,
            "raw_bleu": raw.bleu if raw else None,
            "raw_chrf": raw.chrf if raw else None,
            "n_testset_scored": testset.n_segments if testset else 0,
            "baseline_id": analysis.baseline,
            "compute_seconds": compute_seconds,
            "details": {
                "selection_method": config.selection_method,
                "correction_pass": config.correction_pass,
                "min_decided": config.min_decided,
                "newly_excluded": analysis.newly_excluded,
            },
        },
    )
    return result
