"""Glue: load one translation campaign's translations, Detect-MT votes, corrections, sentences,
MT outputs and the requester's choices, one ``values_list`` per table (ten queries; one
more when the kept translation is chosen by ranking).

Texts are read (BLEU and chrF need them); rows are plain tuples, joined in dictionaries.

- A row *counts* when its assignment is submitted or approved and not held back (rejected, or
  an MTurk assignment MTurk has not confirmed: ``analytics.loading.held_back_assignment_ids``):
  the translate page saves each sentence as the worker leaves its box, so a started
  assignment's translations are drafts.
- Votes and corrections of excluded workers do not count (as post-editing's verification
  votes); translations of excluded translators are still flagged and scored, never kept.
- With the selection by ranking, rankings from the ranking campaign over the translations (its
  outputs map back to the translations: ``RankedTranslation``) count as that campaign's own
  statistics count them: submitted or approved assignments not held back, workers it does not
  exclude, system slots of regular HITs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q

from analytics.loading import held_back_assignment_ids
from analytics.stats.translation import RankingScore, ranking_scores
from campaigns.kinds.translation.models import SelectionMethod, TranslationChoice
from campaigns.models import Campaign, HitSlot, HitTask, Output, Segment, SlotRole
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    held_back_from_scores,
)

__all__ = [
    "COUNTED_STATUSES",
    "TRANSLATION_TASKS",
    "LoadedTranslation",
    "Row",
    "SegmentRow",
    "load_translation",
    "translation_judgments",
]

TRANSLATION_TASKS = (HitTask.TRANSLATE, HitTask.DETECT_MT, HitTask.POST_EDIT)
COUNTED_STATUSES = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


def translation_judgments(prefix: str = "") -> Q:
    """The judgments a result reflects (translations, votes, corrections): what its
    ``n_judgments`` counts."""
    return Q(**{f"{prefix}slot__hit__task__in": TRANSLATION_TASKS})


@dataclass(frozen=True)
class Row:
    """A translation, vote or correction: the judgment, worker, segment, the judgment it is
    about (votes, corrections), its text or vote, and whether it counts."""

    id: int
    worker: int
    segment: int | None
    about: int | None
    text: str
    yes_no: bool | None
    counted: bool
    held_back: bool


@dataclass(frozen=True)
class SegmentRow:
    id: int
    document: str  # external id
    external_id: str
    source: str
    references: list[str]


@dataclass(frozen=True, eq=False)
class LoadedTranslation:
    campaign_id: int
    translations: list[Row]  # by id
    votes: list[Row]
    corrections: list[Row]
    segments: list[SegmentRow]  # in document order
    outputs: dict[int, dict[int, str]]  # segment -> {system id: text}
    system_names: dict[int, str]  # MT systems (not human references)
    places: dict[int, int] = field(default_factory=dict)  # translation id -> Detect-MT places
    choices: dict[int, int] = field(default_factory=dict)  # segment -> chosen judgment
    excluded_workers: frozenset[int] = frozenset()
    worker_labels: dict[int, str] = field(default_factory=dict)
    ranking: dict[int, RankingScore] = field(default_factory=dict)  # translation id -> score

    @property
    def n_read(self) -> int:
        return len(self.translations) + len(self.votes) + len(self.corrections)


def _rows(values: Iterable[tuple], counted_assignments: set[int], held: set[int]) -> list[Row]:
    rows = [
        Row(
            id=pk,
            worker=worker,
            segment=segment,
            about=about,
            text=(text or "").strip(),
            yes_no=yes_no,
            counted=assignment in counted_assignments and assignment not in held,
            held_back=assignment in held,
        )
        for pk, worker, assignment, segment, about, text, yes_no in values
    ]
    rows.sort(key=lambda row: row.id)
    return rows


def load_translation(campaign_id: int) -> LoadedTranslation:
    """Load campaign ``campaign_id``'s translation data (module docstring)."""
    judgments = list(
        Judgment.objects.filter(translation_judgments(), campaign_id=campaign_id)
        .order_by()
        .values_list(
            "slot__hit__task",
            "id",
            "worker_id",
            "assignment_id",
            "slot__segment_id",
            "slot__about_judgment_id",
            "text",
            "yes_no",
            "worker__external_id",
        )
    )
    counted_assignments = set(
        Assignment.objects.filter(campaign_id=campaign_id, status__in=COUNTED_STATUSES)
        .order_by()
        .values_list("id", flat=True)
    )
    held = set(held_back_assignment_ids(campaign_id).tolist())
    excluded = frozenset(
        CampaignWorker.objects.filter(campaign_id=campaign_id, excluded=True)
        .order_by()
        .values_list("worker_id", flat=True)
    )
    by_task: dict[str, list[tuple]] = {task: [] for task in TRANSLATION_TASKS}
    labels: dict[int, str] = {}
    for task, *values, label in judgments:
        by_task[task].append(tuple(values))
        labels[values[1]] = label
    segments = [
        SegmentRow(pk, document, external, source, list(references or []))
        for pk, document, external, source, references in Segment.objects.filter(
            campaign_id=campaign_id
        )
        .order_by("document__position", "position")
        .values_list("id", "document__external_id", "external_id", "source", "references")
    ]
    outputs: dict[int, dict[int, str]] = {}
    names: dict[int, str] = {}
    for segment, system, name, text in (
        Output.objects.filter(system__campaign_id=campaign_id, system__is_reference=False)
        .order_by("system__name", "system_id")
        .values_list("segment_id", "system_id", "system__name", "text")
    ):
        outputs.setdefault(segment, {})[system] = text
        names[system] = name
    redundancy, selection_method = Campaign.objects.filter(pk=campaign_id).values_list(
        "redundancy", "translation_settings__selection_method"
    ).first() or (0, None)
    # A Detect-MT HIT without its own number of workers takes the campaign's redundancy.
    places = {
        about: redundancy if places is None else places
        for about, places in HitSlot.objects.filter(
            hit__campaign_id=campaign_id, hit__task=HitTask.DETECT_MT, about_judgment__isnull=False
        )
        .order_by()
        .values_list("about_judgment_id", "hit__places")
    }
    choices = dict(
        TranslationChoice.objects.filter(campaign_id=campaign_id)
        .order_by()
        .values_list("segment_id", "judgment_id")
    )
    corrections = [
        row
        for row in _rows(by_task[HitTask.POST_EDIT], counted_assignments, held)
        if row.about is not None
    ]
    return LoadedTranslation(
        campaign_id=campaign_id,
        translations=_rows(by_task[HitTask.TRANSLATE], counted_assignments, held),
        votes=_rows(by_task[HitTask.DETECT_MT], counted_assignments, held),
        corrections=corrections,
        segments=segments,
        outputs=outputs,
        system_names=names,
        places=places,
        choices=choices,
        excluded_workers=excluded,
        worker_labels=labels,
        ranking=_load_ranking(campaign_id)
        if selection_method == SelectionMethod.BEST_RANKED
        else {},
    )


_BALLOT_SHIFT = 16  # HitSlot.group is a smallint


def _load_ranking(campaign_id: int) -> dict[int, RankingScore]:
    """Each ranked translation's score in the ranking campaign over campaign
    ``campaign_id``'s translations (module docstring; one query)."""
    excluded_there = CampaignWorker.objects.filter(
        campaign=OuterRef("campaign"), worker=OuterRef("worker"), excluded=True
    )
    rows = list(
        Judgment.objects.filter(
            slot__output__ranked_translation__campaign_id=campaign_id,
            rank__isnull=False,
            slot__role=SlotRole.SYSTEM,
            slot__hit__is_qualification=False,
            assignment__status__in=COUNTED_STATUSES,
        )
        .exclude(Exists(excluded_there))
        .exclude(held_back_from_scores("assignment__"))
        .order_by()
        .values_list(
            "assignment_id", "slot__group", "slot__output__ranked_translation__judgment_id", "rank"
        )
    )
    if not rows:
        return {}
    return ranking_scores(
        [(assignment << _BALLOT_SHIFT) | group for assignment, group, _, _ in rows],
        [translation for _, _, translation, _ in rows],
        [rank for _, _, _, rank in rows],
    )
