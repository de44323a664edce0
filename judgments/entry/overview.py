"""What the campaign's entry page tells a worker before they press Start (issue 17: it said
only "2 tasks in this campaign"): what the task is, in words; how long one takes; what it
pays; how many tasks are open; and the requester's consent line (``Campaign.consent_text``,
escaped by the template like every text a requester writes).

Nothing here may reveal quality control: the words describe what a worker does, never that
some items check them.

How long a task takes: the items of a HIT (its slots, averaged over the regular HITs) times
the seconds a judgment takes. Measured when finished tasks exist: for each of the latest
:data:`MEASURED_ASSIGNMENTS` submitted or approved assignments, the time of its units (a unit
- an item, a ranking set - stores its duration on each of its judgments: counted once per
unit, the browser's measurement, else the server's) divided by its judgments; the median of
those. Else a default per kind of task (the task page's ``default_seconds_per_judgment``).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, fields
from decimal import Decimal

from django.conf import settings
from django.db.models import Avg, Count, DecimalField, Max, Min, Value
from django.db.models.functions import Coalesce

from analytics.progress import CampaignProgress, campaign_progress
from campaigns.models import Campaign, Hit
from evalsite.cachesafe import cache_get, cache_set
from judgments.entry.words import duration_words, pay_words
from judgments.kinds import kind_of, task_page
from judgments.models import Assignment, AssignmentStatus, Judgment

__all__ = ["EntryOverview", "entry_overview"]

# What a worker does and how long a judgment takes before any is measured are the kinds' own
# (JudgmentKind.description, TaskPage.default_seconds_per_judgment).
FALLBACK_SECONDS_PER_JUDGMENT = 30
MEASURED_ASSIGNMENTS = 200
FINISHED = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


@dataclass(frozen=True)
class EntryOverview:
    what: str
    items_per_task: float | None
    minutes: int | None
    measured_from: int  # finished tasks the time was measured on (0: the kind's default)
    pay_low: Decimal | None
    pay_high: Decimal | None
    consent: str
    progress: CampaignProgress

    @property
    def pay(self) -> str:
        """ "$0.50 per task.", "$0.20 to $1.00 per task." or "Unpaid.", in the active language."""
        return pay_words(self.pay_low, self.pay_high)

    @property
    def duration(self) -> str:
        return duration_words(self.minutes, self.measured_from)


def _median_per_assignment(rows: list[tuple]) -> tuple[float | None, int]:
    """Median over assignments of (seconds of its units / its judgments), and how many
    assignments had a time; rows: (assignment, served_at, client ms, server ms)."""
    seconds: dict[int, float] = {}
    judgments: dict[int, int] = {}
    units: set[tuple] = set()
    for assignment_id, served_at, client_ms, server_ms in rows:
        judgments[assignment_id] = judgments.get(assignment_id, 0) + 1
        ms = client_ms if client_ms is not None else server_ms
        unit = (assignment_id, served_at, ms)
        if ms is None or unit in units:
            continue  # the unit's other judgments carry the same duration
        units.add(unit)
        seconds[assignment_id] = seconds.get(assignment_id, 0.0) + ms / 1000
    per_judgment = [seconds[pk] / judgments[pk] for pk in seconds]
    if not per_judgment:
        return None, 0
    # The median by hand (numpy's would cost a web worker some 12 MiB to import, issue 16).
    per_judgment.sort()
    middle = len(per_judgment) // 2
    if len(per_judgment) % 2:
        median = per_judgment[middle]
    else:
        median = (per_judgment[middle - 1] + per_judgment[middle]) / 2
    return float(median), len(per_judgment)


@dataclass(frozen=True)
class _CampaignFacts:
    """What the entry page reads from the campaign's HITs and assignments (all campaign-wide
    aggregates): kept for a few seconds (:func:`_cached_facts`)."""

    pay_low: Decimal | None
    pay_high: Decimal | None
    items: float | None
    first_task: str | None
    measured: float | None  # seconds a judgment, the median of the finished tasks
    finished: int
    progress: CampaignProgress


# In the cache key: facts kept by a release whose classes had other fields are not read back
# by this one (a deploy within the few seconds they are kept).
_FACTS_SHAPE = zlib.crc32(
    ",".join(f.name for cls in (_CampaignFacts, CampaignProgress) for f in fields(cls)).encode()
)


def _campaign_facts(campaign: Campaign) -> _CampaignFacts:
    """Six queries whatever the campaign's size, but each reads all its HITs or assignments."""
    regular = Hit.objects.filter(campaign=campaign, is_qualification=False)
    facts = regular.aggregate(
        pay_low=Min(Coalesce("reward", Value(campaign.reward, output_field=DecimalField()))),
        pay_high=Max(Coalesce("reward", Value(campaign.reward, output_field=DecimalField()))),
    )
    shape = regular.annotate(n_slots=Count("slots")).aggregate(items=Avg("n_slots"))
    first_task = regular.order_by("number").values_list("task", flat=True).first()
    latest = list(
        Assignment.objects.filter(hit__in=regular, status__in=FINISHED)
        .order_by("-submitted_at", "-pk")
        .values_list("pk", flat=True)[:MEASURED_ASSIGNMENTS]
    )
    rows = (
        list(
            Judgment.objects.filter(assignment_id__in=latest)
            .order_by()
            .values_list("assignment_id", "served_at", "client_duration_ms", "server_duration_ms")
        )
        if latest
        else []
    )
    measured, finished = _median_per_assignment(rows)
    return _CampaignFacts(
        pay_low=facts["pay_low"],
        pay_high=facts["pay_high"],
        items=shape["items"],
        first_task=first_task,
        measured=measured,
        finished=finished,
        progress=campaign_progress(campaign),
    )


def _cached_facts(campaign: Campaign) -> _CampaignFacts:
    """:func:`_campaign_facts`, kept ``ENTRY_PAGE_FACTS_SECONDS`` (10 by default; 0: not
    kept) in the cache. Every arriving worker's first page reads them, and each of their
    queries reads the whole campaign: 72 ms at 2,000 HITs, 273 ms at 20,000 (issue 16). Facts
    a few seconds old are as true to a worker deciding whether to start ("places open now")
    as fresh ones. The key changes with every save of the campaign (its pay, redundancy)."""
    seconds = settings.ENTRY_PAGE_FACTS_SECONDS
    if seconds <= 0:
        return _campaign_facts(campaign)
    key = (
        f"entry-facts:{_FACTS_SHAPE}:{campaign.pk}:{campaign.created_at.timestamp()}:"
        f"{campaign.updated_at.timestamp()}"
    )
    facts = cache_get(key)
    if not isinstance(facts, _CampaignFacts):
        facts = _campaign_facts(campaign)
        cache_set(key, facts, seconds)
    return facts


def entry_overview(campaign: Campaign) -> EntryOverview:
    """The entry page's facts about ``campaign`` (at most six queries whatever its size)."""
    facts = _cached_facts(campaign)
    items = facts.items
    if facts.measured is None:
        page = task_page(facts.first_task) if facts.first_task else None
        per_judgment = page.default_seconds_per_judgment if page else FALLBACK_SECONDS_PER_JUDGMENT
    else:
        per_judgment = facts.measured
    minutes = None if not items else max(1, math.ceil(items * per_judgment / 60))
    return EntryOverview(
        what=kind.description if (kind := kind_of(campaign)) else "",
        items_per_task=float(items) if items else None,
        minutes=minutes,
        measured_from=facts.finished,
        pay_low=facts.pay_low,
        pay_high=facts.pay_high,
        consent=campaign.consent_text.strip(),
        progress=facts.progress,
    )
