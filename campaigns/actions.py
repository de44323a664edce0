"""Actions on campaigns, shared by the admin, management commands, the API and Celery tasks."""

from __future__ import annotations

import logging

from django.db import transaction

from campaigns.builders import ranking as ranking_builder
from campaigns.builders.direct_assessment import DAOutput, build_direct_assessment_hits
from campaigns.gold import (
    GoldMark,
    GoldUnit,
    SegmentReferences,
    choose_gold_units,
    gold_units_from_marks,
)
from campaigns.models import (
    Campaign,
    GoldAnswer,
    GoldScheme,
    Hit,
    HitSlot,
    HitTask,
    MTurkHit,
    Output,
    Segment,
    TaskKind,
)

logger = logging.getLogger(__name__)


class HitBuildError(Exception):
    """The campaign's HITs cannot be (re)built; the message says why and what to do."""


def build_hits(campaign: Campaign) -> int:
    """Build and store the campaign's HITs from its outputs; return how many were built (a
    ranking campaign's qualification-test HIT is built too but not counted).

    Rebuilding replaces HITs that nobody has started, so a requester may change the seed or
    the layout and build again; once a worker holds an assignment the HITs are frozen, because
    judgments point at their slots and judgments are never deleted. The same seed and the same
    outputs give the same HITs.
    """
    if not has_hit_builder(campaign.kind):
        raise HitBuildError(
            f"Building HITs for {campaign.get_kind_display()} campaigns is not available yet."
        )
    with transaction.atomic():
        # Lock the campaign row so two builds (or a build and a hand-out) cannot interleave.
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        if campaign.assignments.exists():
            raise HitBuildError(
                "Workers have already started this campaign's HITs, so they cannot be rebuilt. "
                "Create a new campaign to evaluate with a different layout."
            )
        if MTurkHit.objects.filter(hit__campaign=campaign).exists():
            raise HitBuildError(
                "This campaign's HITs are published on MTurk, so they cannot be rebuilt. Expire "
                "them (action 'Expire MTurk HITs') and create a new campaign for a different "
                "layout."
            )
        campaign.hits.all().delete()
        count = HIT_BUILDERS[campaign.kind](campaign)
    logger.info("Built %d HIT(s) for campaign %s", count, campaign.pk)
    return count


def has_hit_builder(kind: str) -> bool:
    return kind in HIT_BUILDERS


def _build_direct_assessment(campaign: Campaign) -> int:
    if campaign.items_per_hit != 100:
        # The builder implements the 2014 layout (10 sets of 10, Table 2) exactly.
        raise HitBuildError(
            f"Direct-assessment HITs follow the 2014 design of 100 items; this campaign asks "
            f"for {campaign.items_per_hit}. Set 'Items per HIT' to 100."
        )
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
            other_references=tuple(references[1:]),
        )
        for pk, system_id, segment_id, text, references in rows
    ]
    if not outputs:
        raise HitBuildError("The campaign has no system outputs yet. Import segments first.")
    try:
        plans = build_direct_assessment_hits(
            outputs,
            mode=campaign.assessment_mode,
            language=campaign.target_language,
            seed=campaign.hit_seed,
            degradation=campaign.degradation,
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


def _build_ranking(campaign: Campaign) -> int:
    """Ranking sets (000 section 4, 002 sections 3.4-4.2), gold sets at the campaign's gold
    rate, and, when the campaign requires it, one qualification HIT of training sets (002's
    training phase) numbered after the regular HITs."""
    outputs = [
        ranking_builder.RankingOutput(output_id=pk, system_id=system, segment_id=seg, text=text)
        for pk, system, seg, text in Output.objects.filter(segment__campaign=campaign)
        .order_by("pk")
        .values_list("pk", "system_id", "segment_id", "text")
    ]
    if not outputs:
        raise HitBuildError("The campaign has no system outputs yet. Import segments first.")
    units = _gold_units(campaign, outputs)
    training: list[GoldUnit] = []
    if campaign.qualification_required:
        if len(units) <= campaign.qualification_sets:
            raise HitBuildError(
                f"The qualification test needs {campaign.qualification_sets} gold answers of "
                f"its own plus some for the gold sets, and the campaign has {len(units)}. Add "
                "gold answers, lower 'Qualification sets', or turn the qualification test off."
            )
        training, units = ranking_builder.split_gold_units(
            units, campaign.qualification_sets, seed=campaign.hit_seed
        )
    if campaign.gold_rate > 0 and not units:
        raise HitBuildError(
            f"The gold rate is {campaign.gold_rate:.0%} but the campaign has no gold answers. "
            "Give gold answers per segment (admin: Gold answers), or choose the best system "
            "so that gold translations are chosen from alternative references (002), or set "
            "the gold rate to 0."
        )
    try:
        plans = ranking_builder.build_ranking_hits(
            outputs,
            seed=campaign.hit_seed,
            outputs_per_set=campaign.outputs_per_set,
            sets_per_hit=campaign.sets_per_hit,
            gold_rate=campaign.gold_rate if units else 0,
            gold_scheme=campaign.gold_scheme,
            gold_units=units,
        )
        if training:
            plans.append(
                ranking_builder.build_training_sets(
                    outputs,
                    training,
                    count=len(training),
                    seed=campaign.hit_seed,
                    outputs_per_set=campaign.outputs_per_set,
                    gold_scheme=campaign.gold_scheme,
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


def _gold_units(campaign: Campaign, outputs: list) -> list[GoldUnit]:
    """The requester's gold answers when there are any; otherwise the automatic choice from
    alternative references when the best system is named (002 section 4.2); otherwise none."""
    marks = [
        GoldMark(segment_id=seg, best_output_id=best, gold_text=text or None, worst_output_id=worst)
        for seg, best, text, worst in GoldAnswer.objects.filter(segment__campaign=campaign)
        .order_by("segment_id")
        .values_list("segment_id", "best_output_id", "gold_text", "worst_output_id")
    ]
    try:
        if marks:
            return gold_units_from_marks(marks, outputs)
        if campaign.gold_best_system_id is None:
            return []
        segments = [
            SegmentReferences(segment_id=pk, references=references)
            for pk, references in Segment.objects.filter(campaign=campaign)
            .order_by("pk")
            .values_list("pk", "references")
        ]
        return choose_gold_units(
            segments,
            outputs,
            language=campaign.target_language,
            count=campaign.gold_count,
            best_system_id=campaign.gold_best_system_id,
            worst_system_id=campaign.gold_worst_system_id,
            require_worst=campaign.gold_scheme == GoldScheme.BEST_WORST,
        )
    except ValueError as error:
        raise HitBuildError(f"Gold answers: {error}") from error


HIT_BUILDERS = {
    TaskKind.DIRECT_ASSESSMENT: _build_direct_assessment,
    TaskKind.RANKING: _build_ranking,
}
