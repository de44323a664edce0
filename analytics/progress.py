"""How far a campaign has come: one computation for the admin's results panels, the API's
campaign progress and the worker's entry page (issue 17: lowering the redundancy mid-campaign
showed "500 of 200 judgments", and the API's places were HITs x redundancy whatever each HIT's
own number of places).

Counted on the regular HITs (a qualification test is outside the redundancy):

- **places**: the sum over HITs of the HIT's places (``Hit.places``, else the campaign's
  redundancy *now*, as the hand-out reads it);
- **places taken / done**: assignments holding a place (started, submitted or approved) / the
  submitted or approved ones, each HIT counting at most its places;
- **units needed**: the sum over HITs of its units x its places, a unit being a slot (a
  judgment) or, for ranking, a set of slots (``group``);
- **units in**: units judged in assignments that hold a place, each HIT counting at most its
  units x places.

What a HIT has beyond its places is counted apart (``*_beyond``) and explained: work handed out
before the redundancy (or the HIT's places) was lowered. It stays stored and counts in the
scores; the progress leaves it out, so it never passes 100%.

Two queries for any number of campaigns (the HITs with their units; the live assignments with
their judged units), then sums per HIT: the API's list runs the same queries
for one campaign as for a page of them. The sums are plain Python (one pass over the HITs'
rows, which the queries hand over as Python tuples anyway): the worker's entry page counts
progress, and a web worker does not import numpy for it (issue 16 item 4, about 12 MiB).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from campaigns.models import Campaign, Hit, HitSlot
from evalsite.page_memo import remembered
from judgments.models import LIVE_ASSIGNMENT_STATUSES, Assignment, AssignmentStatus, Judgment

__all__ = [
    "JUDGMENTS",
    "SETS",
    "CampaignProgress",
    "ProgressRule",
    "attach_progress",
    "campaign_progress",
    "kind_progress",
    "progress_by_campaign",
    "progress_rule",
]

JUDGMENTS = "judgments"
SETS = "sets"
UNIT_WORDS = {JUDGMENTS: ("judgment", "judgments"), SETS: ("ranking set", "ranking sets")}
DONE_STATUSES = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


@dataclass(frozen=True)
class CampaignProgress:
    hits: int = 0
    places: int = 0
    places_taken: int = 0
    places_done: int = 0
    units_needed: int = 0
    units_in: int = 0
    units_beyond: int = 0
    assignments_beyond: int = 0
    unit: str = JUDGMENTS

    @property
    def places_open(self) -> int:
        """Places no assignment holds: tasks a new worker could still be handed."""
        return self.places - self.places_taken

    @property
    def share_done(self) -> float | None:
        """Places done / places (at most 1); None without HITs."""
        return self.places_done / self.places if self.places else None

    @property
    def percent(self) -> float:
        """Units in / units needed, in percent (at most 100); 0 without HITs."""
        return 100.0 * self.units_in / self.units_needed if self.units_needed else 0.0

    @property
    def unit_name(self) -> str:
        """What the units are, plural ("judgments", "ranking sets")."""
        return UNIT_WORDS[self.unit][1]

    @property
    def explanation(self) -> str:
        """Why work beyond the places is left out; empty when there is none."""
        if not self.units_beyond and not self.assignments_beyond:
            return ""
        singular, plural = UNIT_WORDS[self.unit]
        return (
            f"{self.units_beyond:,} {singular if self.units_beyond == 1 else plural} in "
            f"{self.assignments_beyond:,} "
            f"assignment{'s' if self.assignments_beyond != 1 else ''} beyond their HITs' "
            "places are not counted here: they were handed out before the redundancy (or a "
            "HIT's places) was lowered. They stay stored and count in the scores."
        )


@dataclass(frozen=True)
class ProgressRule:
    """What a kind's progress counts (``AnalyticsKind.progress_rule``): the arguments of
    :func:`progress_by_campaign`. The default counts every slot of the regular HITs as a
    judgment; ranking counts ranked sets, post-editing its edit HITs' output slots."""

    tasks: tuple[str, ...] | None = None
    unit: str = JUDGMENTS
    judged: Q | None = None


def progress_rule(campaign: Campaign) -> ProgressRule:
    """The campaign's kind's rule (the default for kinds without statistics): the one rule
    the results panels, the checklist and the dashboard's progress plot all count by."""
    from analytics.kinds import statistics_of

    statistics = statistics_of(campaign)
    rule = None if statistics is None else statistics.progress_rule()
    return rule or ProgressRule()


def kind_progress(campaign: Campaign) -> CampaignProgress:
    """:func:`campaign_progress` of ``campaign`` counted by its kind's :func:`progress_rule`."""
    rule = progress_rule(campaign)
    return campaign_progress(campaign, tasks=rule.tasks, unit=rule.unit, judged=rule.judged)


# The counts of :class:`CampaignProgress` that progress_by_campaign sums over HITs.
_COUNTS = (
    "hits",
    "places",
    "places_taken",
    "places_done",
    "units_needed",
    "units_in",
    "units_beyond",
    "assignments_beyond",
)


def progress_by_campaign(
    campaigns: Iterable[Campaign],
    *,
    tasks: Sequence[str] | None = None,
    unit: str = JUDGMENTS,
    judged: Q | None = None,
) -> dict[int, CampaignProgress]:
    """:class:`CampaignProgress` of each campaign (by id), from two queries.

    ``tasks``: only HITs of these tasks (post-editing's edit HITs without their verification
    HITs); ``unit``: :data:`JUDGMENTS` (a slot) or :data:`SETS` (a ranking set, the slots of
    one ``group``); ``judged``: which judgments count as a judged unit (ranking: a rank given),
    on Judgment's fields.
    """
    redundancy = {campaign.pk: campaign.redundancy for campaign in campaigns}
    ids = list(redundancy)
    result = {pk: CampaignProgress(unit=unit) for pk in ids}
    if not ids:
        return result
    hits = Hit.objects.filter(campaign_id__in=ids, is_qualification=False)
    if tasks is not None:
        hits = hits.filter(task__in=tasks)
    # Counted per HIT and per assignment in correlated subqueries, each through an index that
    # leads with the HIT (the slots' hit_id) or the assignment (the judgments' unique
    # (assignment, slot)), so the work follows the campaign's size. Joined and grouped, the
    # planner walked every slot's and every judgment's row of the database instead (a
    # merge join over the whole hit_id index, a parallel scan of the judgments): 0.1 s and
    # 0.3 s for a campaign of a million judgments, and growing with every other campaign.
    slots = HitSlot.objects.filter(hit=OuterRef("pk")).order_by().values("hit")
    units = slots.annotate(n=Count("group", distinct=True) if unit == SETS else Count("*"))
    rows = list(
        hits.order_by()
        .annotate(n_units=Coalesce(Subquery(units.values("n")), 0))
        .values_list("pk", "campaign_id", "places", "n_units")
    )
    if not rows:
        return result
    hit_index = {row[0]: i for i, row in enumerate(rows)}
    places = [row[2] if row[2] is not None else redundancy[row[1]] for row in rows]

    judgments = Judgment.objects.filter(assignment=OuterRef("pk"))
    if judged is not None:
        judgments = judgments.filter(judged)
    judgments = judgments.order_by().values("assignment")
    # A set is judged once per assignment, however many of its slots carry a judgment.
    # COUNT(*), not of a column the index lacks: an index-only scan (no row of the table read).
    counted = Count("slot__group", distinct=True) if unit == SETS else Count("*")
    judged_units = Coalesce(Subquery(judgments.annotate(n=counted).values("n")), 0)

    taken = [0] * len(rows)
    done = [0] * len(rows)
    judged_in = [0] * len(rows)
    # One row per live assignment (a few per HIT): where it is, and its judged units.
    for hit_id, status, n in (
        Assignment.objects.filter(hit__in=hits, status__in=LIVE_ASSIGNMENT_STATUSES)
        .order_by()
        .values_list("hit_id", "status")
        .annotate(n=judged_units)
    ):
        index = hit_index[hit_id]
        taken[index] += 1
        if status in DONE_STATUSES:
            done[index] += 1
        judged_in[index] += n

    totals = {pk: dict.fromkeys(_COUNTS, 0) for pk in ids}
    for i, row in enumerate(rows):
        needed = row[3] * places[i]
        counted_in = min(judged_in[i], needed)
        sums = totals[row[1]]
        sums["hits"] += 1
        sums["places"] += places[i]
        sums["places_taken"] += min(taken[i], places[i])
        sums["places_done"] += min(done[i], places[i])
        sums["units_needed"] += needed
        sums["units_in"] += counted_in
        sums["units_beyond"] += judged_in[i] - counted_in
        sums["assignments_beyond"] += max(taken[i] - places[i], 0)
    for pk in ids:
        result[pk] = CampaignProgress(unit=unit, **totals[pk])
    return result


def campaign_progress(
    campaign: Campaign,
    *,
    tasks: Sequence[str] | None = None,
    unit: str = JUDGMENTS,
    judged: Q | None = None,
) -> CampaignProgress:
    """:func:`progress_by_campaign` of one campaign; once per campaign and rule on a page
    (:func:`evalsite.page_memo.once_per_page`)."""
    # The redundancy is part of the key: the places are counted by it.
    key = (
        "campaign_progress",
        campaign.pk,
        campaign.redundancy,
        None if tasks is None else tuple(tasks),
        unit,
        repr(judged),
    )
    return remembered(
        key,
        lambda: progress_by_campaign([campaign], tasks=tasks, unit=unit, judged=judged)[
            campaign.pk
        ],
    )


def attach_progress(campaigns: Sequence[Campaign]) -> None:
    """Set ``campaign.progress_detail`` (:class:`CampaignProgress`, in judgments) on each of
    ``campaigns`` (the API's page: two queries whatever its length)."""
    progress = progress_by_campaign(campaigns)
    for campaign in campaigns:
        campaign.progress_detail = progress[campaign.pk]
