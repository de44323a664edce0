"""The translation results panel on the campaign's admin page, read from the stored results
(seven queries whatever the campaign's size)."""

from __future__ import annotations

from typing import Any

from analytics.kinds.translation.loading import translation_judgments
from analytics.models import (
    TranslationResult,
    TranslationSystemScore,
    TranslationTestSet,
    TranslationWorkerStat,
)
from analytics.panels import Progress, number, workers_url
from campaigns.models import Campaign
from judgments.models import CampaignWorker, Judgment

__all__ = ["system_rows", "translation_results_context"]


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}%"


def system_rows(
    scores: list[TranslationSystemScore], baseline: int | None = None
) -> tuple[list[dict[str, Any]], int | None]:
    """The system table: one row per system with BLEU, chrF and % of baseline on each test
    set. ``baseline``: another system's id than the stored one (the percentages are then
    computed from the stored BLEU); returns the baseline used, None to keep the stored."""
    from analytics.stats.translation import percent_of_baseline

    by_system: dict[int, dict[str, Any]] = {}
    names: dict[int, str] = {}
    for score in scores:
        names[score.system_id] = score.system.name
        row = by_system.setdefault(
            score.system_id, {"id": score.system_id, "position": score.position, "sets": {}}
        )
        row["sets"][score.test_set] = score
    if baseline is not None and baseline not in by_system:
        baseline = None
    percents: dict[str, dict[Any, float | None]] = {}
    for test_set in TranslationTestSet.values:
        bleu = {
            system: row["sets"][test_set].bleu
            for system, row in by_system.items()
            if test_set in row["sets"]
        }
        if baseline is not None:
            percents[test_set] = percent_of_baseline(bleu, baseline)
        else:
            percents[test_set] = {
                system: row["sets"][test_set].percent_of_baseline
                for system, row in by_system.items()
                if test_set in row["sets"]
            }
    rows = []
    for system, row in sorted(by_system.items(), key=lambda item: item[1]["position"]):
        cells = []
        for test_set in TranslationTestSet.values:
            score = row["sets"].get(test_set)
            cells.append(
                {
                    "test_set": test_set,
                    "bleu": number(score.bleu if score else None, ".2f"),
                    "chrf": number(score.chrf if score else None, ".2f"),
                    "percent": _percent(percents[test_set].get(system)),
                    "n": score.n_segments if score else 0,
                }
            )
        rows.append({"id": system, "name": names[system], "cells": cells})
    return rows, baseline


def translation_results_context(
    campaign: Campaign, include_all: bool = False, baseline: int | None = None
) -> dict[str, Any]:
    result = TranslationResult.objects.filter(campaign=campaign).select_related("baseline").first()
    n_now = Judgment.objects.filter(translation_judgments(), campaign=campaign).count()
    scores = list(
        TranslationSystemScore.objects.filter(campaign=campaign)
        .select_related("system")
        .order_by("position", "test_set")
    )
    systems, chosen_baseline = system_rows(scores, baseline)
    baseline_name = next((row["name"] for row in systems if row["id"] == chosen_baseline), None)
    if baseline_name is None and result is not None and result.baseline is not None:
        baseline_name = result.baseline.name
    excluded_now = set(
        CampaignWorker.objects.filter(campaign=campaign, excluded=True).values_list(
            "worker_id", flat=True
        )
    )
    workers = []
    for stat in (
        TranslationWorkerStat.objects.filter(campaign=campaign)
        .select_related("worker")
        .order_by("-n_translations", "worker__external_id")
    ):
        workers.append(
            {
                "id": stat.worker_id,
                "worker": stat.worker.external_id,
                "platform": stat.worker.get_platform_display(),
                # Direct links: the requester's note on whom the link was for, so that the
                # worker to exclude can be found (the pseudonymous id says nothing).
                "label": stat.worker.label,
                "n_translations": stat.n_translations,
                "flags": f"{stat.n_flagged} of {stat.n_decided}" if stat.n_decided else "–",
                "flag_rate": _percent(None if stat.flag_rate is None else 100 * stat.flag_rate),
                "bleu": number(stat.bleu, ".2f"),
                "chrf": number(stat.chrf, ".2f"),
                "n_scored": stat.n_scored,
                "n_kept": stat.n_kept,
                "n_votes": stat.n_votes,
                "n_corrections": stat.n_corrections,
                "excluded": stat.worker_id in excluded_now,
                "auto_excluded": stat.auto_excluded,
                "excluded_pending": (stat.worker_id in excluded_now) != stat.excluded,
            }
        )
    n_segments = result.n_segments if result else campaign.segments.count()
    return {
        "campaign": campaign,
        "result": result,
        "progress": Progress(done=result.n_kept if result else 0, needed=n_segments),
        "n_judgments_now": n_now,
        "pending": result is None
        or result.n_judgments != n_now
        or any(row["excluded_pending"] for row in workers),
        "test_sets": [label for _, label in TranslationTestSet.choices],
        "systems": systems,
        "baseline_name": baseline_name,
        "testset": {
            "bleu": number(result.testset_bleu if result else None, ".2f"),
            "chrf": number(result.testset_chrf if result else None, ".2f"),
            "raw_bleu": number(result.raw_bleu if result else None, ".2f"),
            "raw_chrf": number(result.raw_chrf if result else None, ".2f"),
        },
        "workers": workers,
        "workers_url": workers_url(campaign),
    }
