"""Actions on campaigns, shared by the admin, management commands, the API and Celery tasks."""

from __future__ import annotations

import logging

from django.db import transaction

from campaigns.builders.direct_assessment import DAOutput, build_direct_assessment_hits
from campaigns.models import Campaign, Hit, HitSlot, HitTask, Output, TaskKind

logger = logging.getLogger(__name__)


class HitBuildError(Exception):
    """The campaign's HITs cannot be (re)built; the message says why and what to do."""


def build_hits(campaign: Campaign) -> int:
    """Build and store the campaign's HITs from its outputs; return how many were built.

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


HIT_BUILDERS = {TaskKind.DIRECT_ASSESSMENT: _build_direct_assessment}
