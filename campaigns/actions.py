"""Actions on campaigns, shared by the admin, management commands, the API and Celery tasks."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, QuerySet
from django.utils import timezone

from campaigns.builders.problems import BuildProblem
from campaigns.kinds import HitBuildError, kind_of, kind_settings, registry
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Document,
    GoldAnswer,
    Hit,
    HitSlot,
    Output,
    Segment,
    System,
)
from campaigns.names import same_owner_campaign

logger = logging.getLogger(__name__)


__all__ = [
    "FollowUpError",
    "HitBuildError",
    "build_hits",
    "delete_unstarted_hits",
    "create_follow_up",
    "explain",
    "has_hit_builder",
    "hits_frozen_reason",
    "output_gaps",
    "segments_outside_hits",
    "set_status",
]


class FollowUpError(Exception):
    """No follow-up campaign can be made; the message says why and what to do."""


def hits_frozen_reason(campaign: Campaign) -> str:
    """Why the campaign's HITs can no longer be rebuilt ('' while they can): a worker holds an
    assignment (judgments point at the HITs' slots and are never deleted) or HITs are published
    on MTurk (workers there may be doing them). One or two queries."""
    frozen_by = campaign.hits_frozen_by()
    if frozen_by == "workers":
        return (
            "Workers have already started this campaign's HITs, so they cannot be rebuilt. "
            "Create a new campaign to evaluate with a different layout."
        )
    if frozen_by == "mturk":
        return (
            "This campaign's HITs are published on MTurk, so they cannot be rebuilt. Expire "
            "them (action 'Expire MTurk HITs') and create a new campaign for a different layout."
        )
    return ""


def build_hits(campaign: Campaign) -> int:
    """Build and store the campaign's HITs from its outputs; return how many were built (a
    ranking campaign's qualification-test HIT is built too but not counted).

    Rebuilding replaces HITs that nobody has started, so a requester may change the seed or
    the layout and build again; once a worker holds an assignment the HITs are frozen, because
    judgments point at their slots and judgments are never deleted. The same seed and the same
    outputs give the same HITs.

    A builder's problem (:class:`~campaigns.builders.problems.BuildProblem`, in the ids the
    pure builders work with) is told with the systems' and segments' names.
    """
    if not has_hit_builder(campaign.kind):
        raise HitBuildError(
            f"Building HITs for {campaign.get_kind_display()} campaigns is not available yet."
        )
    with transaction.atomic():
        # Lock the campaign row so two builds (or a build and a hand-out) cannot interleave.
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        frozen = hits_frozen_reason(campaign)
        if frozen:
            raise HitBuildError(frozen)
        gaps = output_gaps(campaign)
        if gaps:
            raise HitBuildError(gaps)
        campaign.hits.all().delete()
        try:
            count = kind_of(campaign).build_hits(campaign)
        except HitBuildError as error:
            cause = error.__cause__
            if isinstance(cause, BuildProblem):
                raise HitBuildError(explain(cause, campaign)) from cause
            raise
    logger.info("Built %d HIT(s) for campaign %s", count, campaign.pk)
    return count


def delete_unstarted_hits(campaign: Campaign) -> int:
    """Delete the campaign's HITs while nobody has started them, so that a late system can
    join its segments before the HITs are built again; return how many went. HitBuildError
    with the reason once they are frozen (:func:`hits_frozen_reason`)."""
    with transaction.atomic():
        # The lock of build_hits: no hand-out can take one of them meanwhile.
        campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
        frozen = hits_frozen_reason(campaign)
        if frozen:
            raise HitBuildError(frozen)
        count = campaign.hits.count()
        campaign.hits.all().delete()
    logger.info("Deleted %d unstarted HIT(s) of campaign %s", count, campaign.pk)
    return count


def output_gaps(campaign: Campaign, segments: int | None = None) -> str:
    """Systems HITs would silently leave out, as the problem that stops the build, with what
    to do; '' when there are none. Two queries (one when ``segments``, the campaign's number
    of segments, is given).

    The builders work from the outputs: a system with no output is in no HIT and never
    evaluated, in every kind; where the kind's HITs compare systems on the same segments
    (``CampaignKind.needs_every_output``), a system with outputs for fewer segments than the
    campaign has is judged on other segments than the rest. Imports never leave such a
    system (campaigns.importers.checks), but systems added in the admin, or outputs deleted
    there, do.
    """
    if segments is None:
        segments = campaign.segments.count()
    counts = (
        System.objects.filter(campaign=campaign)
        .order_by("name")
        .annotate(n=Count("outputs"))
        .values_list("name", "n")
    )
    every = kind_of(campaign).needs_every_output
    empty = [name for name, n in counts if n == 0]
    short = [(name, n) for name, n in counts if 0 < n < segments] if every else []
    if not empty and not short:
        return ""
    systems = [*empty, *(name for name, _ in short)]
    plural = len(systems) > 1
    them, they = ("them", "they") if plural else ("it", "it")
    if not plural:
        found = (
            f'System "{empty[0]}" has no outputs'
            if empty
            else f'System "{short[0][0]}" has outputs for only {short[0][1]:,} of the '
            f"{segments:,} segments"
        )
    else:
        parts = [f'"{name}" has none' for name in empty]
        parts += [f'"{name}" has {n:,} of the {segments:,}' for name, n in short]
        found = f"Not every system has an output for every segment ({_joined(parts)})"
    if short:
        why = (
            f"HITs leave missing outputs out, so {they} would be judged on other segments than "
            "the other systems, or not at all"
        )
    else:
        why = f"HITs would leave {them} out, and nobody would evaluate {them}"
    fix = (
        f"import the missing outputs (rows with the segments' doc and seg ids, source and "
        f"reference, and the system's name and output), or delete {them} in the Systems "
        "section of the campaign's page if not to be evaluated"
    )
    if hits_frozen_reason(campaign):
        fix = (
            "this campaign's HITs are frozen (workers have started them, or they are on MTurk): "
            f"evaluate {them} in a new campaign"
        )
    elif campaign.hits.exists():
        fix = (
            "first delete the HITs (nobody has started them: the checklist's Delete HITs), "
            f"then {fix}, and build the HITs again"
        )
    return f"{found}: {why}. To evaluate {them}, {fix}."


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def explain(problem: BuildProblem, campaign: Campaign) -> str:
    """A builder's problem told with names: systems by name, segments as the imported file's
    ids (``segment "3" of document "news-1"``), outputs as system and segment. Three queries."""
    systems = dict(
        System.objects.filter(campaign=campaign, pk__in=problem.ids_of("systems")).values_list(
            "pk", "name"
        )
    )
    segments = {
        pk: _segment_words(seg, doc)
        for pk, seg, doc in Segment.objects.filter(
            campaign=campaign, pk__in=problem.ids_of("segments")
        ).values_list("pk", "external_id", "document__external_id")
    }
    outputs = {
        pk: f'the output of "{system}" for {_segment_words(seg, doc)}'
        for pk, system, seg, doc in Output.objects.filter(
            segment__campaign=campaign, pk__in=problem.ids_of("outputs")
        ).values_list(
            "pk", "system__name", "segment__external_id", "segment__document__external_id"
        )
    }
    return problem.told({"systems": systems, "segments": segments, "outputs": outputs})


def _segment_words(segment_id: str, document_id: str) -> str:
    return f'segment "{segment_id}" of document "{document_id}"'


def has_hit_builder(kind: str) -> bool:
    implementation = registry.get(kind)
    return implementation is not None and implementation.builds_hits


def set_status(campaigns: QuerySet[Campaign], status: str) -> int:
    """Activate, pause or finish ``campaigns``; return how many were changed. The reason of an
    automatic pause is cleared (it no longer holds). ``update()`` skips ``auto_now``, so
    ``updated_at`` is stamped here: the MTurk sync reads it to keep syncing a campaign for a
    while after it finished."""
    CampaignStatus(status)  # a ValueError for anything else
    return campaigns.update(status=status, status_reason="", updated_at=timezone.now())


def segments_outside_hits(campaign: Campaign) -> QuerySet[Segment]:
    """The campaign's segments that no HIT shows: in no slot (by their own or their outputs'
    reference) and of no document a HIT covers (reading comprehension's articles, post-editing
    and translation runs). Segments imported after the HITs were built are the usual ones."""
    slots = HitSlot.objects.filter(hit__campaign=campaign)
    # Three NOT EXISTS, not NOT (EXISTS OR EXISTS OR EXISTS): the same rows, but PostgreSQL
    # plans each as an anti-join instead of hashing every slot of the campaign with its
    # output on each campaign page (the checklist): 0.37 s -> 0.16 s at 200,000 slots.
    return (
        campaign.segments.exclude(Exists(slots.filter(segment=OuterRef("pk"))))
        .exclude(Exists(slots.filter(output__segment=OuterRef("pk"))))
        .exclude(Exists(Hit.objects.filter(campaign=campaign, document=OuterRef("document"))))
    )


def follow_up_name(campaign: Campaign) -> str:
    """'<name> (follow-up)', numbered when the owner has that name already."""
    base = f"{campaign.name} (follow-up"
    number = 1
    while True:
        name = f"{base})" if number == 1 else f"{base} {number})"
        if same_owner_campaign(name, campaign.owner_id) is None:
            return name
        number += 1


# Fields a follow-up campaign does not take over: its identity, state and history, and what
# belongs to one study or qualification on a crowd platform.
_NOT_COPIED = {
    "id",
    "name",
    "owner",
    "status",
    "status_reason",
    "imported_from",
    "created_at",
    "updated_at",
    "prolific_study_id",
    "mturk_qualification_type_id",
}


def create_follow_up(campaign: Campaign, owner=None) -> Campaign:
    """A new draft campaign with ``campaign``'s settings (its kind's too) and the segments no
    HIT of ``campaign`` shows (their documents, systems, outputs and gold answers), ready to
    build HITs: the way forward for segments imported after the HITs were frozen (issue 17).
    ``owner`` (default: the campaign's) owns it. Raises :class:`FollowUpError` when every
    segment is in a HIT already. One transaction of bulk inserts."""
    with transaction.atomic():
        segments = list(segments_outside_hits(campaign).select_related("document").order_by("pk"))
        if not segments:
            raise FollowUpError(
                f'Every segment of "{campaign}" is in one of its HITs: there is nothing for a '
                "follow-up campaign. Import the new segments first."
            )
        values = {
            field.name: getattr(campaign, field.attname)
            for field in Campaign._meta.concrete_fields
            if field.name not in _NOT_COPIED
        }
        # attname values: foreign keys (none are copied today) stay ids.
        new = Campaign(
            **values,
            name=follow_up_name(campaign),
            owner=owner if owner is not None else campaign.owner,
            status=CampaignStatus.DRAFT,
        )
        new.save()
        outputs = list(
            Output.objects.filter(segment__in=[s.pk for s in segments])
            .select_related("system")
            .order_by("pk")
        )
        systems = _copy_systems(new, {output.system for output in outputs})
        _copy_settings(campaign, new, systems)
        documents = _copy_documents(new, {s.document for s in segments})
        new_segments = Segment.objects.bulk_create(
            Segment(
                campaign=new,
                document=documents[s.document_id],
                external_id=s.external_id,
                position=s.position,
                source=s.source,
                references=s.references,
            )
            for s in segments
        )
        segment_map = {old.pk: made for old, made in zip(segments, new_segments, strict=True)}
        new_outputs = Output.objects.bulk_create(
            Output(system=systems[o.system_id], segment=segment_map[o.segment_id], text=o.text)
            for o in outputs
        )
        output_map = {old.pk: made for old, made in zip(outputs, new_outputs, strict=True)}
        GoldAnswer.objects.bulk_create(
            GoldAnswer(
                segment=segment_map[gold.segment_id],
                best_output=output_map.get(gold.best_output_id),
                gold_text=gold.gold_text,
                worst_output=output_map.get(gold.worst_output_id),
            )
            for gold in GoldAnswer.objects.filter(segment__in=list(segment_map))
        )
    logger.info(
        "Follow-up campaign %s of campaign %s with %d segment(s)",
        new.pk,
        campaign.pk,
        len(new_segments),
    )
    return new


def _copy_systems(new: Campaign, used: Iterable[System]) -> dict[int, System]:
    made = System.objects.bulk_create(
        System(campaign=new, name=s.name, is_reference=s.is_reference)
        for s in sorted(used, key=lambda s: s.name)
    )
    by_name = {system.name: system for system in made}
    return {s.pk: by_name[s.name] for s in used}


def _copy_documents(new: Campaign, used: Iterable[Document]) -> dict[int, Document]:
    ordered = sorted(used, key=lambda d: d.position)
    made = Document.objects.bulk_create(
        Document(campaign=new, external_id=d.external_id, position=d.position) for d in ordered
    )
    return {old.pk: doc for old, doc in zip(ordered, made, strict=True)}


def _copy_settings(campaign: Campaign, new: Campaign, systems: dict[int, System]) -> None:
    """The kind's settings row, its foreign keys to systems pointing at the follow-up's
    systems of the same name (a system without outputs there: left empty)."""
    settings = kind_settings(campaign)
    if settings is None:
        return
    model = type(settings)
    values = {}
    by_name = {system.name: system for system in systems.values()}
    for field in model._meta.concrete_fields:
        if field.name == "campaign":
            continue
        if field.is_relation and field.related_model is System:
            old = getattr(settings, field.name)
            values[field.name] = None if old is None else by_name.get(old.name)
        else:
            values[field.name] = getattr(settings, field.attname)
    model.objects.create(campaign=new, **values)
