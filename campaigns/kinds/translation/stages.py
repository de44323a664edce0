"""The HITs a translation campaign builds by itself from its workers' translations: Detect-MT
HITs (000 section 5.1) and correction HITs (004's second pass).

Both are built by the translation recompute (analytics/kinds/translation), which the coalesced
scheduler runs after every burst of submissions, so the requester has nothing to do; both are
idempotent under the campaign's row lock and take the next free HIT numbers, as post-editing's
verification HITs do (campaigns/kinds/post_editing/verification.py).

* **Detect-MT**: one HIT per submitted (or approved) translation assignment, holding its
  translations in their order, each slot pointing at the translation it shows
  (``HitSlot.about_judgment``), taken by ``detect_mt_voters`` workers (``Hit.places``). One HIT
  per assignment, rather than translations pooled across translators, keeps only the
  translator out of it (the hand-out never shows a worker their own translation), as for
  post-edit verification. 000 does not say how translations were batched. An assignment of a
  translator who is excluded at the time waits (their translations are never kept, so judging
  them costs pay for nothing); it gets its HIT on the first call after a readmission.
* **Correction** (``correction_pass``): one HIT per translation run (the runs of the
  translation HITs, ``HitSlot.group``) holding the run's kept translations, taken by
  ``correctors_per_translation`` workers, built once the run is decided: its translation HIT
  is done (every place submitted or approved) and so is every Detect-MT HIT about its
  translations, or else the requester chose the kept translation of every sentence of the run.
  Building it earlier would send the first translation to arrive for correction, since the
  automatic choice among one translation is that one. A run gets one correction HIT, ever: a
  choice changed afterwards does not build a second one (the analytics count a correction only
  for the translation it corrects).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet

from campaigns.kinds.translation.models import TranslationChoice
from campaigns.models import Campaign, Hit, HitSlot, HitTask, SlotRole
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment

logger = logging.getLogger(__name__)

__all__ = [
    "about_excluded_translator",
    "DONE_STATUSES",
    "build_correction_hits",
    "build_detect_mt_hits",
    "decided_runs",
    "translation_assignments_awaiting_detection",
    "translation_runs",
]


# A HIT is done when as many of its assignments as it has places are in one of these.
DONE_STATUSES = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


def about_excluded_translator():
    """For ``Exists``: a slot of the outer HIT showing the translation of a worker whom the
    HIT's campaign excludes."""
    excluded = CampaignWorker.objects.filter(
        campaign=OuterRef("hit__campaign"), worker=OuterRef("about_judgment__worker"), excluded=True
    )
    return HitSlot.objects.filter(hit=OuterRef("pk")).filter(Exists(excluded))


def translation_assignments_awaiting_detection(campaign: Campaign):
    """Submitted or approved translation assignments of the campaign with no Detect-MT HIT
    yet, of translators not excluded, in the order they were submitted."""
    detected = HitSlot.objects.filter(
        hit__task=HitTask.DETECT_MT, about_judgment__assignment=OuterRef("pk")
    )
    excluded = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    return (
        Assignment.objects.filter(
            campaign=campaign, hit__task=HitTask.TRANSLATE, status__in=DONE_STATUSES
        )
        .exclude(Exists(detected))
        .exclude(Exists(excluded))
        .order_by("submitted_at", "pk")
    )


def build_detect_mt_hits(campaign: Campaign) -> int:
    """Build the Detect-MT HIT of every translation assignment that is done and has none yet;
    return how many were built (0 for a campaign that is not a translation one, one with
    ``detect_mt_voters`` 0, or one whose translations were imported)."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        settings = getattr(campaign, "translation_settings", None)
        if settings is None or campaign.imported_from or not settings.detect_mt_voters:
            return 0
        pending = list(
            translation_assignments_awaiting_detection(campaign).values_list("pk", flat=True)
        )
        if not pending:
            return 0
        rows = (
            Judgment.objects.filter(assignment_id__in=pending, slot__hit__task=HitTask.TRANSLATE)
            .exclude(text="")
            .order_by("assignment_id", "slot__position")
            .values_list(
                "pk",
                "assignment_id",
                "text",
                "slot__segment_id",
                "slot__group",
                "slot__hit__document_id",
            )
        )
        by_assignment: dict[int, list[tuple]] = {}
        for row in rows:
            by_assignment.setdefault(row[1], []).append(row)
        number = campaign.hits.aggregate(last=Max("number"))["last"] or 0
        reward = settings.reward_of(HitTask.DETECT_MT)
        built = 0
        slots: list[HitSlot] = []
        for assignment_id in pending:
            translations = by_assignment.get(assignment_id)
            if not translations:  # nothing translated: nothing to judge
                continue
            number += 1
            hit = Hit.objects.create(
                campaign=campaign,
                task=HitTask.DETECT_MT,
                number=number,
                places=settings.detect_mt_voters,
                reward=reward,
                document_id=translations[0][5],
            )
            built += 1
            slots.extend(
                HitSlot(
                    hit=hit,
                    position=position,
                    group=group,
                    role=SlotRole.SYSTEM,
                    segment_id=segment_id,
                    shown_text=text,
                    about_judgment_id=judgment_id,
                )
                for position, (judgment_id, _, text, segment_id, group, _) in enumerate(
                    translations, start=1
                )
            )
        HitSlot.objects.bulk_create(slots, batch_size=2000)
    if built:
        logger.info("Built %d Detect-MT HIT(s) for campaign %s", built, campaign.pk)
    return built


def translation_runs(campaign: Campaign) -> dict[int, tuple[int | None, list[int]]]:
    """The campaign's translation runs: run number (the slots' group) -> (document id,
    segment ids in order), read from its translation HITs."""
    runs: dict[int, tuple[int | None, list[int]]] = {}
    rows = (
        HitSlot.objects.filter(hit__campaign=campaign, hit__task=HitTask.TRANSLATE)
        .order_by("group", "position")
        .values_list("group", "segment_id", "hit__document_id")
    )
    for group, segment_id, document_id in rows:
        runs.setdefault(group, (document_id, []))[1].append(segment_id)
    return runs


def decided_runs(campaign: Campaign) -> set[int]:
    """Runs whose translations are all in and judged: the translation HIT is done (as many
    assignments submitted or approved as it has places) and, when the campaign runs
    Detect-MT, every translation assignment of the run has its Detect-MT HIT and every such
    HIT is done."""
    done = Count("assignments", filter=Q(assignments__status__in=DONE_STATUSES))

    def done_by_run(hits: QuerySet[Hit]) -> tuple[set[int], set[int]]:
        complete: set[int] = set()
        incomplete: set[int] = set()
        rows = hits.annotate(done=done).values_list("pk", "places", "done")
        hits = {
            pk: done_count >= (places or campaign.redundancy) for pk, places, done_count in rows
        }
        groups = (
            HitSlot.objects.filter(hit_id__in=list(hits)).values_list("hit_id", "group").distinct()
        )
        for hit_id, group in groups:
            (complete if hits[hit_id] else incomplete).add(group)
        return complete, incomplete

    hits = Hit.objects.filter(campaign=campaign)
    translated, untranslated = done_by_run(hits.filter(task=HitTask.TRANSLATE))
    # A Detect-MT HIT about an excluded translator is handed to nobody (kind.py): it does not
    # hold its run back.
    _, unjudged = done_by_run(
        hits.filter(task=HitTask.DETECT_MT).exclude(Exists(about_excluded_translator()))
    )
    settings = getattr(campaign, "translation_settings", None)
    if settings is not None and settings.detect_mt_voters and not campaign.imported_from:
        awaiting = translation_assignments_awaiting_detection(campaign)
        unjudged |= set(
            HitSlot.objects.filter(hit__assignments__in=awaiting).values_list("group", flat=True)
        )
    return translated - untranslated - unjudged


def build_correction_hits(campaign: Campaign, kept: Mapping[int, int]) -> int:
    """Build the correction HIT of each translation run that is decided (:func:`decided_runs`,
    or every sentence chosen by the requester), whose segments all have a kept translation in
    ``kept`` (segment id -> the kept translation's judgment id) and which has no correction
    HIT yet; return how many were built (0 without ``correction_pass``)."""
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        settings = getattr(campaign, "translation_settings", None)
        if settings is None or campaign.imported_from or not settings.correction_pass:
            return 0
        runs = translation_runs(campaign)
        corrected = set(
            HitSlot.objects.filter(hit__campaign=campaign, hit__task=HitTask.POST_EDIT).values_list(
                "group", flat=True
            )
        )
        candidates = {
            group: run
            for group, run in runs.items()
            if group not in corrected and all(s in kept for s in run[1])
        }
        if not candidates:
            return 0
        chosen = set(
            TranslationChoice.objects.filter(campaign=campaign).values_list("segment_id", flat=True)
        )
        decided = decided_runs(campaign)
        ready = {
            group: run
            for group, run in candidates.items()
            if group in decided or all(s in chosen for s in run[1])
        }
        wanted = {kept[s] for _, segments in ready.values() for s in segments}
        # Only a translation of that very segment in this campaign can be kept for it.
        translations = {
            pk: (segment_id, text)
            for pk, segment_id, text in Judgment.objects.filter(
                pk__in=wanted, campaign=campaign, slot__hit__task=HitTask.TRANSLATE
            ).values_list("pk", "slot__segment_id", "text")
        }
        number = campaign.hits.aggregate(last=Max("number"))["last"] or 0
        reward = settings.reward_of(HitTask.POST_EDIT)
        built = 0
        slots: list[HitSlot] = []
        for group in sorted(ready):
            document_id, segments = ready[group]
            judgments = [kept[s] for s in segments]
            if any(
                translations.get(j, (None,))[0] != s
                for j, s in zip(judgments, segments, strict=True)
            ):
                logger.warning(
                    "Campaign %s run %s: a kept judgment is not a translation of its segment; "
                    "no correction HIT",
                    campaign.pk,
                    group,
                )
                continue
            number += 1
            hit = Hit.objects.create(
                campaign=campaign,
                task=HitTask.POST_EDIT,
                number=number,
                places=settings.correctors_per_translation,
                reward=reward,
                document_id=document_id,
            )
            built += 1
            slots.extend(
                HitSlot(
                    hit=hit,
                    position=position,
                    group=group,
                    role=SlotRole.SYSTEM,
                    segment_id=segment_id,
                    shown_text=translations[judgment_id][1],
                    about_judgment_id=judgment_id,
                )
                for position, (segment_id, judgment_id) in enumerate(
                    zip(segments, judgments, strict=True), start=1
                )
            )
        HitSlot.objects.bulk_create(slots, batch_size=2000)
    if built:
        logger.info("Built %d correction HIT(s) for campaign %s", built, campaign.pk)
    return built
