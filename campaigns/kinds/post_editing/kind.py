"""Post-editing on the requester's side: settings, the edit-HIT builder and who may be handed
which HIT (METHODS.md section 3; 000 section 5.2, 003).

A campaign holds two HIT tasks: edit HITs, built from the outputs by :meth:`build_hits`
(campaigns/builders/post_editing.py), and verification HITs, built by themselves as edits
arrive (campaigns/kinds/post_editing/verification.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When

from campaigns.builders.post_editing import PEOutput, PESegment, build_post_editing_hits
from campaigns.kinds import CampaignKind, HitBuildError, registry
from campaigns.kinds.post_editing.models import PostEditingSettings
from campaigns.models import Campaign, Hit, HitSlot, HitTask, Output, Segment, SlotRole, TaskKind

if TYPE_CHECKING:
    from campaigns.importers.judgments.kinds import JudgmentImportKind
    from judgments.models import Worker


@registry.register
class PostEditing(CampaignKind):
    kind = TaskKind.POST_EDITING
    checklist_notes = "campaigns.kinds.post_editing.checklist"
    hit_tasks = (HitTask.POST_EDIT, HitTask.VERIFY_EDIT)
    settings_model = PostEditingSettings
    settings_accessor = "post_editing_settings"
    settings_layout_fields = ("mode", "segments_per_hit")
    settings_fieldsets = (
        (
            "HIT layout (editors per segment: the campaign's redundancy, 5 in 000)",
            {"fields": ("mode", "segments_per_hit", "verifiers_per_edit")},
        ),
        ("Pay (editing HITs: the campaign's reward)", {"fields": ("verification_reward",)}),
        (
            "HTER (tercom's defaults reproduce published figures)",
            {"fields": (("ter_case_sensitive", "ter_normalized"), "gold_editor")},
        ),
    )
    result_settings = ("ter_case_sensitive", "ter_normalized", "gold_editor")
    task_rewards = ((HitTask.VERIFY_EDIT, "verification_reward", "Verification HITs"),)
    builds_hits = True
    # A run's HITs form a Latin square of its segments and systems; a missing output leaves
    # a hole, and HTER would compare systems on different segments.
    needs_every_output = True
    import_hit_task = HitTask.POST_EDIT

    def judgment_import(self) -> JudgmentImportKind:
        # Imported when first asked for, like the other kinds' import modules.
        from campaigns.kinds.post_editing.imports import judgment_import

        return judgment_import

    def build_hits(self, campaign: Campaign) -> int:
        settings = campaign.post_editing_settings
        segments = [
            PESegment(segment_id=pk, document_id=doc, document_position=doc_pos, position=pos)
            for pk, doc, doc_pos, pos in Segment.objects.filter(campaign=campaign).values_list(
                "pk", "document_id", "document__position", "position"
            )
        ]
        outputs = [
            PEOutput(output_id=pk, system_id=system, segment_id=segment, text=text)
            for pk, system, segment, text in Output.objects.filter(segment__campaign=campaign)
            .order_by("pk")
            .values_list("pk", "system_id", "segment_id", "text")
        ]
        try:
            plans = build_post_editing_hits(
                segments,
                outputs,
                segments_per_hit=settings.segments_per_hit,
                seed=campaign.hit_seed,
            )
        except ValueError as error:
            raise HitBuildError(str(error)) from error
        hits = Hit.objects.bulk_create(
            Hit(campaign=campaign, task=HitTask.POST_EDIT, number=number)
            for number in range(1, len(plans) + 1)
        )
        HitSlot.objects.bulk_create(
            (
                HitSlot(
                    hit=hit,
                    position=slot.position,
                    group=slot.run,
                    role=SlotRole.SYSTEM,
                    segment_id=slot.segment_id,
                    output_id=slot.output_id,
                    shown_text=slot.shown_text,
                )
                for hit, plan in zip(hits, plans, strict=True)
                for slot in plan
            ),
            batch_size=2000,
        )
        return len(hits)

    def hits_for_worker(
        self, campaign: Campaign, worker: Worker, hits: QuerySet[Hit]
    ) -> QuerySet[Hit]:
        from judgments.models import Assignment

        # Runs of segments the worker has held an edit HIT of, in any status: having seen one
        # output of a segment, a second edit of it would follow the first (issue 13 item 2).
        held_runs = HitSlot.objects.filter(
            hit__campaign=campaign,
            hit__task=HitTask.POST_EDIT,
            hit__assignments__worker=worker,
        ).values("group")
        same_run = HitSlot.objects.filter(hit=OuterRef("pk"), group__in=held_runs)
        held_by_worker = Assignment.objects.filter(hit=OuterRef("pk"), worker=worker)
        # A verification HIT holding one of the worker's own edits (issue 13 item 4).
        own_edit = HitSlot.objects.filter(hit=OuterRef("pk"), about_judgment__worker=worker)
        return hits.exclude(
            Q(task=HitTask.POST_EDIT) & Exists(same_run) & ~Exists(held_by_worker)
        ).exclude(Q(task=HitTask.VERIFY_EDIT) & Exists(own_edit))

    def hit_preference(self) -> tuple[Any, ...]:
        # Verification first: an edit counts as passed until its verifiers have voted, so
        # verifying early keeps the live HTER close to the final one.
        return (
            Case(
                When(task=HitTask.VERIFY_EDIT, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
        )
