"""Crowd translation on the requester's side: settings, the translation-HIT builder and who
may be handed which HIT (METHODS.md section 6; 000 section 5.1, 004).

A campaign holds three HIT tasks: translation HITs, built from the segments by
:meth:`Translation.build_hits` (campaigns/builders/translation.py); Detect-MT HITs and, with
the correction pass, correction HITs (``post_edit``, served by the post-editing page), both
built by themselves as translations arrive (stages.py). Translators per sentence is the
campaign's redundancy (5 in 000).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Case, Exists, IntegerField, OuterRef, Q, QuerySet, Value, When

from campaigns.builders.translation import TSegment, build_translation_runs
from campaigns.kinds import CampaignKind, HitBuildError, registry
from campaigns.kinds.translation.models import TranslationSettings
from campaigns.kinds.translation.stages import about_excluded_translator
from campaigns.models import Campaign, Hit, HitSlot, HitTask, Segment, SlotRole, TaskKind

if TYPE_CHECKING:
    from judgments.models import Worker


@registry.register
class Translation(CampaignKind):
    kind = TaskKind.TRANSLATION
    checklist_notes = "campaigns.kinds.translation.checklist"
    hit_tasks = (HitTask.TRANSLATE, HitTask.DETECT_MT, HitTask.POST_EDIT)
    settings_model = TranslationSettings
    settings_accessor = "translation_settings"
    settings_layout_fields = ("segments_per_hit",)
    task_rewards = (
        (HitTask.DETECT_MT, "detect_mt_reward", "Detect-MT HITs"),
        (HitTask.POST_EDIT, "correction_reward", "Correction HITs"),
    )
    settings_fieldsets = (
        (
            "HIT layout (translators per sentence: the campaign's redundancy, 5 in 000)",
            {"fields": ("segments_per_hit",)},
        ),
        (
            "Against pasted machine translation (004: the source as an image; ours: "
            "similarity to the imported MT outputs)",
            {
                "fields": (
                    ("source_as_image", "source_font_size"),
                    ("mt_similarity_metric", "mt_similarity_threshold"),
                )
            },
        ),
        (
            "Detect-MT (000: other workers judge each translation; translators flagged 30% "
            "of the time are excluded)",
            {"fields": ("detect_mt_voters", "detect_mt_exclusion_rate")},
        ),
        ("Choosing the translation kept per sentence", {"fields": ("selection_method",)}),
        (
            "Correction pass (004: other workers fix typos and grammar of the kept translations)",
            {"fields": ("correction_pass", "correctors_per_translation")},
        ),
        (
            "Pay per task (translation: the campaign's reward)",
            {"fields": ("detect_mt_reward", "correction_reward")},
        ),
    )
    # What the flags, the exclusions and the kept translations depend on; the voters and the
    # correction pass too, since turning them on makes the recompute build the HITs they ask
    # for (Detect-MT HITs of translations already in, correction HITs of decided runs).
    result_settings = (
        "mt_similarity_metric",
        "mt_similarity_threshold",
        "detect_mt_voters",
        "detect_mt_exclusion_rate",
        "selection_method",
        "correction_pass",
    )
    # The crowd makes the references: imported segments need none, nor system outputs (MT
    # outputs, when imported, are what pasted translations are compared with, and the
    # systems scored on the crowd's test set).
    needs_reference = False
    outputs_optional = True
    builds_hits = True

    def build_hits(self, campaign: Campaign) -> int:
        settings = campaign.translation_settings
        segments = [
            TSegment(
                segment_id=pk,
                document_id=doc,
                document_position=doc_pos,
                position=pos,
                source=source,
            )
            for pk, doc, doc_pos, pos, source in Segment.objects.filter(
                campaign=campaign
            ).values_list("pk", "document_id", "document__position", "position", "source")
        ]
        runs = build_translation_runs(segments, segments_per_hit=settings.segments_per_hit)
        if not runs:
            raise HitBuildError(
                "The campaign has no source sentences yet. Import segments first (a source "
                "column is enough: no reference and no system output is needed)."
            )
        reward = settings.reward_of(HitTask.TRANSLATE)
        hits = Hit.objects.bulk_create(
            Hit(
                campaign=campaign,
                task=HitTask.TRANSLATE,
                number=run.number,
                document_id=run.document_id,
                reward=reward,
            )
            for run in runs
        )
        HitSlot.objects.bulk_create(
            (
                HitSlot(
                    hit=hit,
                    position=slot.position,
                    group=run.number,
                    role=SlotRole.SOURCE,
                    segment_id=slot.segment_id,
                    shown_text=slot.shown_text,
                )
                for hit, run in zip(hits, runs, strict=True)
                for slot in run.slots
            ),
            batch_size=2000,
        )
        return len(hits)

    def hits_for_worker(
        self, campaign: Campaign, worker: Worker, hits: QuerySet[Hit]
    ) -> QuerySet[Hit]:
        # Never one's own translation to judge or to correct (000: "other Turkers"; 004).
        own = Exists(HitSlot.objects.filter(hit=OuterRef("pk"), about_judgment__worker=worker))
        # Nor a Detect-MT HIT about a translator excluded since it was built: their
        # translations are never kept, so judging them would be paid for nothing (a
        # readmission hands it out again).
        return hits.exclude(Q(task__in=(HitTask.DETECT_MT, HitTask.POST_EDIT)) & own).exclude(
            Q(task=HitTask.DETECT_MT) & Exists(about_excluded_translator())
        )

    def hit_preference(self) -> tuple[Any, ...]:
        # Checking work before making more: Detect-MT first (its votes decide exclusions,
        # which stop a paster early), then corrections (they finish the test set), then new
        # translations.
        return (
            Case(
                When(task=HitTask.DETECT_MT, then=Value(0)),
                When(task=HitTask.POST_EDIT, then=Value(1)),
                default=Value(2),
                output_field=IntegerField(),
            ),
        )

    def admin_inlines(self, campaign: Campaign | None) -> list[type]:
        # The choices (and the link to the page making them) of a saved campaign only.
        if campaign is None or campaign.pk is None:
            return []
        from campaigns.kinds.translation.admin import TranslationChoiceInline

        return [TranslationChoiceInline]

    def admin_urls(self, model_admin: Any) -> list:
        from campaigns.kinds.translation.admin import choose_urls

        return choose_urls(model_admin)
