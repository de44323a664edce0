"""Annotations of the rows the API lists: campaigns (progress, cost), HITs, workers,
assignments and judgments.

The figures of a row are annotations of the page's one query (correlated subqueries, one per
figure, so that counting assignments never multiplies rows with a join on judgments), or come
from one grouped query over the whole page afterwards (``attach_*``), never from a query per
row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce

from analytics.kinds import registry
from analytics.reports.cost import (
    MTURK,
    PROLIFIC,
    ZERO,
    AssignmentCostRow,
    BonusCostRow,
    cost_report,
    work_platform,
)
from campaigns.models import Campaign, Hit, HitSlot, MTurkHit
from evalsite.subquery_counts import correlated_count, related_count
from judgments.models import (
    Assignment,
    AssignmentStatus,
    Bonus,
    BonusStatus,
    CampaignWorker,
    Judgment,
    Worker,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "PAID_STATUSES",
    "CampaignCost",
    "WorkerStatistics",
    "WorkerTiming",
    "annotate_assignment_counts",
    "annotate_assignments",
    "annotate_campaign_cost",
    "annotate_campaign_progress",
    "annotate_campaign_results",
    "annotate_hits",
    "annotate_judgments",
    "attach_campaign_costs",
    "attach_worker_timing",
    "campaign_workers",
]

# Assignments the requester pays for: submitted ones are approved automatically after the
# campaign's auto-approval delay unless rejected, so they are money committed.
PAID_STATUSES = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


def annotate_assignment_counts(queryset: QuerySet, outer: str) -> QuerySet:
    """``assignments_<status>``: the row's assignments in each status (``outer``: the
    Assignment field that points at the row, "campaign" or "hit")."""
    return queryset.annotate(
        **{
            f"assignments_{status}": correlated_count(
                Assignment.objects.filter(**{outer: OuterRef("pk"), "status": status}), outer
            )
            for status in AssignmentStatus.values
        }
    )


# --- Campaigns -------------------------------------------------------------------------------


def annotate_campaign_progress(queryset: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """HITs, assignments by status, judgments, and the assignments that count as done.

    ``n_hits`` are the regular HITs (a qualification test is outside the redundancy);
    ``n_done`` the submitted or approved assignments on them (uncapped). Places, the share
    done and the judgments needed come from :mod:`analytics.progress` (each HIT's own places,
    capped per HIT), attached by the view (:class:`~analytics.api.serializers.ProgressSerializer`).
    """
    queryset = annotate_assignment_counts(queryset, "campaign")
    return queryset.annotate(
        n_hits=correlated_count(
            Hit.objects.filter(campaign=OuterRef("pk"), is_qualification=False), "campaign"
        ),
        n_qualification_hits=correlated_count(
            Hit.objects.filter(campaign=OuterRef("pk"), is_qualification=True), "campaign"
        ),
        n_done=correlated_count(
            Assignment.objects.filter(
                campaign=OuterRef("pk"),
                status__in=PAID_STATUSES,
                hit__is_qualification=False,
            ),
            "campaign",
        ),
        n_judgments=related_count(Judgment, "campaign"),
    )


def annotate_campaign_cost(queryset: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """Where the campaign's HITs are published: ``on_mturk``, some HIT on MTurk (sandbox or
    production); ``on_mturk_production``, on the production marketplace, where MTurk charges
    its fee. The money is :func:`attach_campaign_costs`'."""
    return queryset.annotate(
        on_mturk=Exists(MTurkHit.objects.filter(hit__campaign=OuterRef("pk"))),
        on_mturk_production=Exists(
            MTurkHit.objects.filter(hit__campaign=OuterRef("pk"), sandbox=False)
        ),
    )


def annotate_campaign_results(queryset: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """When the stored results were computed and over what, whichever kind's they are (a
    campaign has at most one result row: its kind's, ``AnalyticsKind.result_relation``). The
    results' JSON details are not read."""
    relations = [statistics.result_relation for statistics in registry]

    def first_of(name: str) -> Combinable:
        values = [F(f"{relation}__{name}") for relation in relations]
        if not values:
            return Value(None)
        return values[0] if len(values) == 1 else Coalesce(*values)

    return queryset.annotate(
        results_computed_at=first_of("computed_at"),
        results_n_judgments=first_of("n_judgments"),
        results_n_scored_judgments=first_of("n_scored_judgments"),
        results_n_workers=first_of("n_workers"),
    )


@dataclass(frozen=True)
class CampaignCost:
    """A campaign's cost so far in US dollars, in the campaign report's words and by its
    arithmetic (``analytics.reports.cost``): ``paid`` is the report's "Paid so far"
    (approved assignments and sent bonuses, with the platforms' fees), ``committed`` its
    "Committed" (paid, plus submitted assignments awaiting review, which MTurk approves and
    pays automatically unless they are rejected). Each assignment at the reward it was taken
    at; work on MTurk's sandbox counted at no cost; imported judgments not counted."""

    reward: Decimal
    approved_assignments: int
    awaiting_review_assignments: int
    rewards: Decimal
    bonuses_sent: Decimal
    mturk_fees: Decimal
    prolific_fees: Decimal
    paid: Decimal
    committed: Decimal
    on_mturk: bool
    on_mturk_production: bool
    currency: str = "USD"

    @property
    def committed_assignments(self) -> int:
        return self.approved_assignments + self.awaiting_review_assignments


def attach_campaign_costs(campaigns: Sequence[Campaign]) -> None:
    """Set ``campaign.cost`` (:class:`CampaignCost`) on campaigns annotated by
    :func:`annotate_campaign_cost`.

    The figures are the campaign report's (``analytics.reports.cost.cost_report``: the same
    lines, the same fees, rounded to the cent per assignment and per bonus as the platforms
    charge them), from two grouped queries over the page's campaigns: approved and submitted
    assignments by platform, MTurk HIT size and reward; sent bonuses by platform and amount.
    Never a query per campaign.
    """
    ids = [campaign.pk for campaign in campaigns]
    assignments: dict[int, list[AssignmentCostRow]] = {pk: [] for pk in ids}
    bonuses: dict[int, list[BonusCostRow]] = {pk: [] for pk in ids}
    if ids:
        grouped = (
            Assignment.objects.filter(campaign_id__in=ids, status__in=PAID_STATUSES)
            .order_by()
            .values_list(
                "campaign_id",
                "status",
                "worker__platform",
                "hit__mturk__sandbox",
                "hit__mturk__max_assignments",
                "reward",
            )
            .annotate(n=Count("pk"))
        )
        for campaign_id, status, platform, sandbox, size, reward, n in grouped:
            assignments[campaign_id].append(
                AssignmentCostRow(
                    status=status,
                    platform=work_platform(platform, sandbox),
                    # None only for imported judgments, which count nowhere.
                    reward=ZERO if reward is None else reward,
                    mturk_sandbox=sandbox,
                    mturk_max_assignments=size,
                    n=n,
                )
            )
        sent = (
            Bonus.objects.filter(assignment__campaign_id__in=ids, status=BonusStatus.SENT)
            .order_by()
            .values_list(
                "assignment__campaign_id",
                "amount",
                "worker__platform",
                "assignment__hit__mturk__sandbox",
            )
            .annotate(n=Count("pk"))
        )
        for campaign_id, amount, platform, sandbox, n in sent:
            bonuses[campaign_id].append(
                BonusCostRow(
                    amount=amount,
                    sent=True,
                    platform=work_platform(platform, sandbox),
                    mturk_sandbox=sandbox,
                    n=n,
                )
            )
    for campaign in campaigns:
        report = cost_report(
            assignments[campaign.pk], [], bonuses[campaign.pk], masters=campaign.mturk_masters
        )
        lines, fees = report.lines, report.fees_by_platform  # no place or pending bonus here
        campaign.cost = CampaignCost(
            reward=campaign.reward,
            approved_assignments=lines["approved"].count,
            awaiting_review_assignments=lines["submitted"].count,
            rewards=lines["approved"].rewards + lines["submitted"].rewards,
            bonuses_sent=lines["bonuses_sent"].rewards,
            mturk_fees=fees.get(MTURK, ZERO),
            prolific_fees=fees.get(PROLIFIC, ZERO),
            paid=report.paid,
            committed=report.committed,
            on_mturk=campaign.on_mturk,
            on_mturk_production=campaign.on_mturk_production,
        )


# --- HITs and workers ------------------------------------------------------------------------


def annotate_hits(queryset: QuerySet[Hit]) -> QuerySet[Hit]:
    """Slots, assignments by status and the MTurk HIT id of each HIT."""
    queryset = annotate_assignment_counts(queryset, "hit")
    return queryset.annotate(
        n_slots=related_count(HitSlot, "hit"),
        mturk_hit_id=F("mturk__mturk_hit_id"),
    )


def campaign_workers(campaign: Campaign) -> QuerySet[Worker]:
    """The workers of a campaign (an assignment or a membership in it) with their standing
    there: the membership's flags and background, each kind's stored row of the worker (e.g.
    their reliability in direct assessment or trust in ranking: ``AnalyticsKind.
    annotate_workers``), and their number of assignments. One query: the per-campaign rows
    are LEFT JOINs restricted to the campaign (each is unique per campaign and worker)."""
    in_campaign = Exists(
        Assignment.objects.filter(campaign=campaign, worker=OuterRef("pk"))
    ) | Exists(CampaignWorker.objects.filter(campaign=campaign, worker=OuterRef("pk")))
    workers = Worker.objects.filter(in_campaign).annotate(
        membership=FilteredRelation(
            "campaigns_joined", condition=Q(campaigns_joined__campaign=campaign)
        ),
    )
    for statistics in registry:
        workers = statistics.annotate_workers(workers, campaign)
    return workers.annotate(
        # When the stored statistics the kinds' rows above come from were computed (a
        # subquery of the page's query; null before the first computation or for a kind
        # without statistics), so that the live counts beside them can be told apart
        # (issue 17: the list mixed both without saying when). attach_worker_timing counts
        # the judgments stored by then.
        statistics_computed_at=_stored_computed_at(campaign),
        n_assignments=correlated_count(
            Assignment.objects.filter(campaign=campaign, worker=OuterRef("pk")), "worker"
        ),
        excluded=Coalesce(F("membership__excluded"), Value(False)),
        untrusted=Coalesce(F("membership__untrusted"), Value(False)),
        qualification_passed=F("membership__qualification_passed"),
        years_source_language=F("membership__years_source_language"),
        years_target_language=F("membership__years_target_language"),
    ).order_by("external_id", "pk")


def _stored_computed_at(campaign: Campaign) -> Combinable:
    """The campaign's stored result's ``computed_at`` as an expression of the page's query
    (its kind's result row, ``AnalyticsKind.result_model``), or NULL."""
    statistics = registry.get(campaign.kind)
    if statistics is None:
        return Value(None, output_field=DateTimeField())
    computed = (
        statistics.result_model.objects.filter(campaign=campaign)
        .order_by()
        .values("computed_at")[:1]
    )
    return Subquery(computed, output_field=DateTimeField())


@dataclass(frozen=True)
class WorkerStatistics:
    """What the stored statistics of a worker reflect: when they were computed (None before
    the first computation) and how many of the worker's judgments in the campaign had been
    stored by then (None before the first computation). The live count is
    ``WorkerTiming.n_judgments``; the two differ while a recompute is pending."""

    computed_at: datetime | None
    n_judgments: int | None


@dataclass(frozen=True)
class WorkerTiming:
    """A worker's judgments in one campaign and the seconds they took. Seconds per judgment are
    the browser's measurement when present, else the server's (as ``analytics.loading``);
    ``n_timed`` judgments have either. Mean, median and total are over those (None if none)."""

    n_judgments: int
    n_timed: int
    mean_seconds: float | None
    median_seconds: float | None
    total_seconds: float | None


def _timings(
    worker: NDArray[np.int64], seconds: NDArray[np.float64], wanted: NDArray[np.int64]
) -> dict[int, WorkerTiming]:
    """Per worker of ``wanted``: counts, mean, median and total of ``seconds`` (NaN: untimed),
    with one sort for all workers (the median of each group is read at its middle)."""
    timed = ~np.isnan(seconds)
    ids, code = np.unique(worker, return_inverse=True)
    code = code.reshape(-1)
    k = ids.shape[0]
    n_all = np.bincount(code, minlength=k)
    t_code, t_seconds = code[timed], seconds[timed]
    n = np.bincount(t_code, minlength=k)
    total = np.bincount(t_code, weights=t_seconds, minlength=k)
    order = np.lexsort((t_seconds, t_code))
    ordered = t_seconds[order]
    start = np.cumsum(n) - n
    low = start + np.maximum(n - 1, 0) // 2
    high = start + n // 2
    median = np.full(k, np.nan)
    has = n > 0
    median[has] = (ordered[low[has]] + ordered[np.minimum(high[has], ordered.shape[0] - 1)]) / 2
    found = {int(worker_id): i for i, worker_id in enumerate(ids.tolist())}
    out: dict[int, WorkerTiming] = {}
    for worker_id in wanted.tolist():
        i = found.get(int(worker_id))
        if i is None or n[i] == 0:
            out[int(worker_id)] = WorkerTiming(
                n_judgments=0 if i is None else int(n_all[i]),
                n_timed=0,
                mean_seconds=None,
                median_seconds=None,
                total_seconds=None,
            )
            continue
        out[int(worker_id)] = WorkerTiming(
            n_judgments=int(n_all[i]),
            n_timed=int(n[i]),
            mean_seconds=float(total[i] / n[i]),
            median_seconds=float(median[i]),
            total_seconds=float(total[i]),
        )
    return out


def attach_worker_timing(workers: Sequence[Worker], campaign_id: int) -> None:
    """Set ``worker.timing`` (:class:`WorkerTiming`) and ``worker.statistics``
    (:class:`WorkerStatistics`) from one query over the page's workers.

    Workers from :func:`campaign_workers` carry ``statistics_computed_at``; the same query
    flags each judgment stored at or before it (``submitted_at <= computed_at``: the stored
    result's ``computed_at`` is taken before its load reads the judgments)."""
    ids = np.array([w.pk for w in workers], dtype=np.int64)
    if ids.size == 0:
        return
    computed_at = getattr(workers[0], "statistics_computed_at", None)
    before = (
        Case(When(submitted_at__lte=computed_at, then=Value(1)), default=Value(0))
        if computed_at is not None
        else Value(0)
    )
    rows = list(
        Judgment.objects.filter(campaign_id=campaign_id, worker_id__in=ids.tolist())
        .order_by()
        .annotate(before=before)
        .values_list("worker_id", "client_duration_ms", "server_duration_ms", "before")
    )
    table = np.array(rows, dtype=np.float64).reshape(-1, 4)
    client, server = table[:, 1], table[:, 2]
    seconds = np.where(np.isnan(client), server, client) / 1000.0
    worker_of = table[:, 0].astype(np.int64)
    timing = _timings(worker_of, seconds, ids)
    # Judgments stored by computed_at, per worker: one bincount over the sorted page ids.
    sorted_ids = np.sort(ids)
    counts = np.bincount(
        np.searchsorted(sorted_ids, worker_of), weights=table[:, 3], minlength=ids.size
    )
    reflected = dict(zip(sorted_ids.tolist(), counts.tolist(), strict=True))
    for worker in workers:
        worker.timing = timing[worker.pk]
        worker.statistics = WorkerStatistics(
            computed_at=computed_at,
            n_judgments=None if computed_at is None else int(reflected[worker.pk]),
        )


# --- Assignments and judgments ---------------------------------------------------------------


def annotate_assignments(queryset: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """Each assignment with its HIT and worker (joined) and its number of judgments."""
    return queryset.select_related("hit", "worker").annotate(
        n_judgments=related_count(Judgment, "assignment")
    )


# What a judgment is about, for the judgment exports and the API alike. A slot that shows a
# system's output names its system and document through the output; a reading-comprehension
# HIT names them on the HIT instead (the article, and the system whose translation an answering
# HIT shows: none for the human translation, the control). A grade or a verification is about
# another judgment (``about_judgment``), whose row carries that judgment's system.
JUDGED_SYSTEM_ID = Coalesce(F("slot__output__system_id"), F("slot__hit__system_id"))
JUDGED_SYSTEM_NAME = Coalesce(F("slot__output__system__name"), F("slot__hit__system__name"))
JUDGED_DOCUMENT = Coalesce(
    F("slot__segment__document__external_id"),
    F("slot__output__segment__document__external_id"),
    F("slot__hit__document__external_id"),
)


def judged_system_filter(queryset: QuerySet[Judgment], name: str, value: Any) -> QuerySet:
    """The judgments of one system (``name`` "id" or "name"): of its outputs, and of the
    reading-comprehension HITs that show its translation."""
    if value in (None, ""):
        return queryset
    field = "system_id" if name == "id" else "system__name"
    return queryset.filter(
        Q(**{f"slot__output__{field}": value})
        | Q(slot__output__isnull=True, **{f"slot__hit__{field}": value})
    )


def annotate_judgments(queryset: QuerySet[Judgment]) -> QuerySet[Judgment]:
    """Each judgment with what an analyst reads beside it, joined in the same query: the HIT
    number and task, slot position, group and role, the judgment a grade or verification is
    about, the system judged and the document (:data:`JUDGED_SYSTEM_ID`,
    :data:`JUDGED_DOCUMENT`), the segment id (the slot's segment, else its output's), the
    worker's platform id and the assignment's status. Only the columns shown are read (no
    texts of the slot or output)."""
    return queryset.annotate(
        hit_number=F("slot__hit__number"),
        task=F("slot__hit__task"),
        slot_position=F("slot__position"),
        slot_group=F("slot__group"),
        role=F("slot__role"),
        about_judgment=F("slot__about_judgment_id"),
        system_id=JUDGED_SYSTEM_ID,
        system_name=JUDGED_SYSTEM_NAME,
        document_external_id=JUDGED_DOCUMENT,
        segment_external_id=Coalesce(
            F("slot__segment__external_id"), F("slot__output__segment__external_id")
        ),
        worker_external_id=F("worker__external_id"),
        assignment_status=F("assignment__status"),
    ).only(
        "id",
        "campaign_id",
        "assignment_id",
        "worker_id",
        "score",
        "given_z",
        "rank",
        "text",
        "yes_no",
        "yes_no_second",
        "client_duration_ms",
        "server_duration_ms",
        "submitted_at",
    )
