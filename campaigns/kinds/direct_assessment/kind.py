"""Direct assessment on the requester's side: its settings in the admin and its HIT builder
(the 2014 layout of 001, Table 2: ten sets of ten items, with bad references, repeats and
references hidden among them; METHODS.md section 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from campaigns.builders.direct_assessment import (
    DAOutput,
    build_direct_assessment_hits,
    hit_size_problem,
)
from campaigns.kinds import CampaignKind, HitBuildError, registry
from campaigns.kinds.direct_assessment.models import DirectAssessmentSettings
from campaigns.models import Campaign, Hit, HitSlot, HitTask, Output, TaskKind

if TYPE_CHECKING:
    from campaigns.importers.judgments.kinds import JudgmentImportKind


@registry.register
class DirectAssessment(CampaignKind):
    kind = TaskKind.DIRECT_ASSESSMENT
    checklist_notes = "campaigns.kinds.direct_assessment.checklist"
    hit_tasks = (HitTask.ASSESS,)
    settings_model = DirectAssessmentSettings
    settings_accessor = "da_settings"
    settings_fieldsets = (
        ("HIT layout", {"fields": ("assessment_mode", "items_per_hit")}),
        (
            "Quality control",
            {
                "fields": (
                    "degradation",
                    ("reliability_test", "reliability_alpha"),
                    ("min_score_sd", "min_seconds_per_item"),
                )
            },
        ),
        (
            "System scores (WMT's official way by default)",
            {"fields": ("workers_counted", "score_averaging", "significance_unit")},
        ),
    )
    # The 2014 HIT is 100 items (10 sets of 7 outputs and their 3 controls): the builder
    # refuses any other size (hit_size_problem), so the page shows the number, not an input.
    settings_readonly_fields = ("items_per_hit",)
    settings_layout_fields = ("assessment_mode", "degradation")
    result_settings = (
        "reliability_test",
        "reliability_alpha",
        "min_score_sd",
        "min_seconds_per_item",
        "workers_counted",
        "score_averaging",
        "significance_unit",
    )
    builds_hits = True
    # Systems are scored on the same segments (a system missing some would be compared on
    # others): every system needs an output for every segment.
    needs_every_output = True
    import_hit_task = HitTask.ASSESS

    def judgment_import(self) -> JudgmentImportKind:
        # Imported when first asked for: imports.py loads the import machinery (parsers,
        # writer, the statistics' recompute), which registering the kind at start-up does
        # not need.
        from campaigns.kinds.direct_assessment.imports import judgment_import

        return judgment_import

    def build_hits(self, campaign: Campaign) -> int:
        settings = campaign.da_settings
        problem = hit_size_problem(settings.items_per_hit)  # the settings form's rule too
        if problem:
            raise HitBuildError(problem)
        rows = (
            Output.objects.filter(segment__campaign=campaign)
            .order_by("pk")
            .values_list("pk", "system_id", "segment_id", "text", "segment__references")
        )
        outputs = [
            DAOutput(
                output_id=pk,
                system_id=system_id,
                segment_id=segment_id,
                text=text,
                reference=references[0] if references else "",
                alternative_references=tuple(references[1:]),
            )
            for pk, system_id, segment_id, text, references in rows
        ]
        if not outputs:
            raise HitBuildError("The campaign has no system outputs yet. Import segments first.")
        try:
            plans = build_direct_assessment_hits(
                outputs,
                mode=settings.assessment_mode,
                language=campaign.target_language,
                seed=campaign.hit_seed,
                degradation=settings.degradation,
            )
        except ValueError as error:
            raise HitBuildError(str(error)) from error

        hits = Hit.objects.bulk_create(
            Hit(campaign=campaign, task=HitTask.ASSESS, number=number)
            for number in range(1, len(plans) + 1)
        )
        slots: list[HitSlot] = []
        for hit, plan in zip(hits, plans, strict=True):
            slots.extend(
                HitSlot(
                    hit=hit,
                    position=slot.position,
                    group=slot.set_index,
                    role=slot.role,
                    segment_id=slot.segment_id,
                    output_id=slot.output_id,
                    shown_text=slot.shown_text,
                )
                for slot in plan
            )
        HitSlot.objects.bulk_create(slots, batch_size=2000)

        # Second pass: link each control slot to the slot it checks, now that both have ids.
        by_position = {(slot.hit_id, slot.position): slot for slot in slots}
        linked = []
        for hit, plan in zip(hits, plans, strict=True):
            for slot in plan:
                if slot.controls_position is not None:
                    control = by_position[(hit.pk, slot.position)]
                    control.controls = by_position[(hit.pk, slot.controls_position)]
                    linked.append(control)
        HitSlot.objects.bulk_update(linked, ["controls"], batch_size=2000)
        return len(hits)
