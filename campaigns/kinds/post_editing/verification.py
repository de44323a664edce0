"""Verification HITs, built by themselves from the edits as they arrive (issue 13 item 4).

000 section 5.2 checks every edit with a second HIT: other workers read the reference (or,
in a bilingual campaign, the source) and an edited translation and answer two yes/no
questions (same meaning? acceptable <target language>?). Here every submitted (or approved)
edit assignment gets one verification HIT holding its edits in their order, each slot
pointing at the edit it shows (``HitSlot.about_judgment``), taken by the campaign's
``verifiers_per_edit`` workers (``Hit.places``), each paid the ``verification_reward`` (none:
the campaign's; ``Hit.reward``).

One HIT per edit assignment, rather than edits pooled across editors, means that only the
edit's own author is kept out of a verification HIT (never verifying one's own edit is the
hand-out's rule, campaigns/kinds/post_editing/kind.py); pooled HITs would keep every one of
their editors out and run short of verifiers. The papers do not say how edits were batched.

Called by the post-editing recompute (analytics/kinds/post_editing), which the coalesced
scheduler runs after every submission, so no requester step is needed; idempotent under the
campaign's lock (an assignment that already has its HIT is skipped).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Exists, Max, OuterRef

from campaigns.models import Campaign, Hit, HitSlot, HitTask, SlotRole

logger = logging.getLogger(__name__)

__all__ = ["build_verification_hits", "edit_assignments_awaiting_verification"]


def edit_assignments_awaiting_verification(campaign: Campaign):
    """Submitted or approved edit assignments of the campaign with no verification HIT yet,
    in the order they were submitted."""
    from judgments.models import Assignment, AssignmentStatus

    verified = HitSlot.objects.filter(
        hit__task=HitTask.VERIFY_EDIT, about_judgment__assignment=OuterRef("pk")
    )
    return (
        Assignment.objects.filter(
            campaign=campaign,
            hit__task=HitTask.POST_EDIT,
            status__in=(AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED),
        )
        .exclude(Exists(verified))
        .order_by("submitted_at", "pk")
    )


def build_verification_hits(campaign: Campaign) -> int:
    """Build the verification HIT of every edit assignment that is done and has none yet;
    return how many were built (0 for a campaign that is not a post-editing one, or whose
    edits were imported)."""
    from judgments.models import Judgment

    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        settings = getattr(campaign, "post_editing_settings", None)
        if settings is None or campaign.imported_from:
            # A campaign of imported post-edits is analysed, not run: nobody could take its
            # verification HITs, and its edits count as passed (published corpora are
            # verified by their makers).
            return 0
        awaiting = edit_assignments_awaiting_verification(campaign)
        pending = list(awaiting.values_list("pk", flat=True))
        if not pending:
            return 0
        edits = (
            Judgment.objects.filter(assignment_id__in=pending, slot__hit__task=HitTask.POST_EDIT)
            .order_by("assignment_id", "slot__position")
            .values_list(
                "pk", "assignment_id", "text", "slot__segment_id", "slot__output_id", "slot__group"
            )
        )
        by_assignment: dict[int, list[tuple]] = {}
        for row in edits:
            by_assignment.setdefault(row[1], []).append(row)
        number = campaign.hits.aggregate(last=Max("number"))["last"] or 0
        built = 0
        slots: list[HitSlot] = []
        for assignment_id in pending:
            rows = by_assignment.get(assignment_id)
            if not rows:  # a submitted assignment without edits has nothing to verify
                continue
            number += 1
            hit = Hit.objects.create(
                campaign=campaign,
                task=HitTask.VERIFY_EDIT,
                number=number,
                places=settings.verifiers_per_edit,
                # The verification reward (None: the campaign's), read under the lock that
                # campaigns.pay.reprice_task_hits takes when the requester changes it.
                reward=settings.verification_reward,
            )
            built += 1
            slots.extend(
                HitSlot(
                    hit=hit,
                    position=position,
                    group=group,
                    role=SlotRole.SYSTEM,
                    segment_id=segment_id,
                    output_id=output_id,
                    shown_text=text,
                    about_judgment_id=judgment_id,
                )
                for position, (judgment_id, _, text, segment_id, output_id, group) in enumerate(
                    rows, start=1
                )
            )
        HitSlot.objects.bulk_create(slots, batch_size=2000)
    if built:
        logger.info("Built %d verification HIT(s) for campaign %s", built, campaign.pk)
    return built
