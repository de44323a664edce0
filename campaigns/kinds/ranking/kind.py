"""Ranking on the requester's side: its settings in the admin and its HIT builder: ranking
sets (000 section 4, 002 sections 3.4-4.2), gold sets at the campaign's gold rate, and the
qualification test's training sets (002's training phase)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from campaigns.builders import ranking as ranking_builder
from campaigns.gold import GoldUnit
from campaigns.kinds import CampaignKind, HitBuildError, registry
from campaigns.kinds.ranking.gold import gold_supply
from campaigns.kinds.ranking.models import RankingSettings
from campaigns.models import Campaign, Hit, HitSlot, HitTask, Output, TaskKind

if TYPE_CHECKING:
    from campaigns.importers.judgments.kinds import JudgmentImportKind


@registry.register
class Ranking(CampaignKind):
    kind = TaskKind.RANKING
    checklist_notes = "campaigns.kinds.ranking.checklist"
    hit_tasks = (HitTask.RANK,)
    settings_model = RankingSettings
    settings_accessor = "ranking_settings"
    settings_layout_fields = (
        "outputs_per_set",
        "sets_per_hit",
        "gold_rate",
        "gold_count",
        "gold_best_system",
        "gold_worst_system",
    )
    settings_fieldsets = (
        ("HIT layout", {"fields": (("outputs_per_set", "sets_per_hit"),)}),
        ("Results", {"fields": ("rank_by", ("reference_system", "exclude_reference"))}),
        (
            "Quality control",
            {
                "fields": (
                    "ranking_combination",
                    ("gold_rate", "gold_scheme"),
                    ("gold_count", "gold_best_system", "gold_worst_system"),
                    ("trust_min_gold", "trust_min_accuracy"),
                    ("takedown_untrusted_share", "takedown_min_workers"),
                    "qualification_sets",
                )
            },
        ),
    )
    result_settings = (
        "ranking_combination",
        "reference_system",
        "exclude_reference",
        "gold_scheme",
        "trust_min_gold",
        "trust_min_accuracy",
        "takedown_untrusted_share",
        "takedown_min_workers",
    )
    builds_hits = True
    import_hit_task = HitTask.RANK

    def judgment_import(self) -> JudgmentImportKind:
        # Imported when first asked for: imports.py loads the import machinery (parsers,
        # writer, the statistics' recompute), which registering the kind at start-up does
        # not need.
        from campaigns.kinds.ranking.imports import judgment_import

        return judgment_import

    def admin_inlines(self, campaign: Campaign | None) -> list[type]:
        # References name the campaign's systems: shown once the campaign is saved.
        if campaign is None or campaign.pk is None:
            return []
        from campaigns.kinds.ranking.admin import RankingReferenceInline

        return [RankingReferenceInline]

    def admin_urls(self, model_admin: Any) -> list:
        # The import of a file of gold answers (ranking/admin.py).
        from campaigns.kinds.ranking.admin import gold_import_urls

        return gold_import_urls(model_admin)

    def build_hits(self, campaign: Campaign) -> int:
        """Ranking sets (000 section 4, 002 sections 3.4-4.2), gold sets at the campaign's gold
        rate, and, when the campaign requires it, one qualification HIT of training sets (002's
        training phase) numbered after the regular HITs."""
        settings = campaign.ranking_settings
        outputs = [
            ranking_builder.RankingOutput(output_id=pk, system_id=system, segment_id=seg, text=text)
            for pk, system, seg, text in Output.objects.filter(segment__campaign=campaign)
            .order_by("pk")
            .values_list("pk", "system_id", "segment_id", "text")
        ]
        if not outputs:
            raise HitBuildError("The campaign has no system outputs yet. Import segments first.")
        # The same gold the campaign page's checklist reads (ranking/gold.py): its problem is
        # the checklist's, so the checklist never calls done what the build then refuses.
        supply = gold_supply(campaign, settings)
        if supply.problem:
            raise HitBuildError(supply.problem)
        units = list(supply.units)
        training: list[GoldUnit] = []
        try:
            if campaign.qualification_required:
                training, units = ranking_builder.split_gold_units(
                    units, settings.qualification_sets, seed=campaign.hit_seed
                )
            plans = ranking_builder.build_ranking_hits(
                outputs,
                seed=campaign.hit_seed,
                outputs_per_set=settings.outputs_per_set,
                sets_per_hit=settings.sets_per_hit,
                gold_rate=settings.gold_rate if units else 0,
                gold_scheme=settings.gold_scheme,
                gold_units=units,
            )
            if training:
                plans.append(
                    ranking_builder.build_training_sets(
                        outputs,
                        training,
                        count=len(training),
                        seed=campaign.hit_seed,
                        outputs_per_set=settings.outputs_per_set,
                        gold_scheme=settings.gold_scheme,
                    )
                )
        except ValueError as error:
            raise HitBuildError(str(error)) from error

        hits = Hit.objects.bulk_create(
            Hit(
                campaign=campaign,
                task=HitTask.RANK,
                number=number,
                is_qualification=bool(training) and number == len(plans),
            )
            for number in range(1, len(plans) + 1)
        )
        HitSlot.objects.bulk_create(
            (
                HitSlot(
                    hit=hit,
                    position=slot.position,
                    group=slot.set_index,
                    role=slot.role,
                    segment_id=slot.segment_id,
                    output_id=slot.output_id,
                    shown_text=slot.shown_text,
                    expected_rank_min=slot.expected_rank_min,
                    expected_rank_max=slot.expected_rank_max,
                )
                for hit, plan in zip(hits, plans, strict=True)
                for slot in plan
            ),
            batch_size=2000,
        )
        return len(hits) - bool(training)
