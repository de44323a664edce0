"""The campaign report's rows, loaded with one query per table, and the report computed from
them (:mod:`.cost` and :mod:`.summary` do the arithmetic, without Django).

Queries: the assignments (with the reward each was taken at, their HIT's MTurk publication and
their worker's platform, joined), the regular HITs (places, the reward their next assignment
pays, MTurk publication), the judgments grouped
by assignment (count, seconds, first and last), the bonuses, the workers (country), and the
kind's trust table: six, whatever the campaign's size; and what the kind adds (post-editing's
verification places still to come: two more).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Exists, Max, Min, OuterRef, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from analytics.reports.cost import (
    CENT,
    ZERO,
    AssignmentCostRow,
    BonusCostRow,
    CostReport,
    HitPlacesRow,
    cost_report,
    offered_on,
    work_platform,
)
from analytics.reports.kinds import kind_report, trust_rule
from analytics.reports.summary import (
    CountryRow,
    EvaluationPeriod,
    TimePerAssignment,
    TrustRow,
    countries,
    evaluation_period,
    time_per_assignment,
    trust_split,
)
from campaigns.models import Campaign, Hit
from campaigns.pay import TaskReward, task_rewards
from judgments.models import (
    LIVE_ASSIGNMENT_STATUSES,
    Assignment,
    AssignmentStatus,
    Bonus,
    BonusStatus,
    CampaignWorker,
    Judgment,
    Worker,
)

__all__ = ["CampaignReport", "campaign_report"]

DONE = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


@dataclass(frozen=True)
class CampaignReport:
    """Everything the report page, its downloads and the API show for one campaign."""

    campaign_id: int
    campaign_name: str
    kind: str
    generated_at: datetime
    reward: Decimal
    task_rewards: list[TaskReward]
    redundancy: int
    n_judgments: int
    assignments_by_status: dict[str, int]
    cost: CostReport
    time: TimePerAssignment
    period: EvaluationPeriod
    trust: list[TrustRow]
    trust_meaning: str
    countries: list[CountryRow]


def _assignments(campaign: Campaign) -> list[tuple]:
    return list(
        Assignment.objects.filter(campaign=campaign)
        .order_by()
        .values_list(
            "id",
            "status",
            "worker__platform",
            # The reward the worker took the assignment at, never today's: a change of the
            # campaign's reward re-prices only work still to come (campaigns.pay).
            "reward",
            "hit__is_qualification",
            "hit__mturk__sandbox",
            "hit__mturk__max_assignments",
            "hit_id",
        )
    )


def _hits(campaign: Campaign) -> list[tuple]:
    return list(
        Hit.objects.filter(campaign=campaign, is_qualification=False)
        .order_by()
        .values_list(
            "id",
            Coalesce("places", "campaign__redundancy"),
            # What its next assignment will pay (campaigns.pay.offered_reward): on MTurk the
            # reward it was published with.
            Coalesce("mturk__reward", "reward", "campaign__reward"),
            "mturk__sandbox",
            "mturk__max_assignments",
        )
    )


def _judgments(campaign: Campaign) -> list[tuple]:
    """Per assignment: worker, judgments, timed judgments, their seconds, first and last."""
    duration = Coalesce("client_duration_ms", "server_duration_ms")
    return list(
        Judgment.objects.filter(campaign=campaign)
        .order_by()
        .values_list("assignment_id", "worker_id")
        .annotate(
            n=Count("pk"),
            n_timed=Count(duration),
            ms=Sum(duration),
            first=Min("submitted_at"),
            last=Max("submitted_at"),
        )
    )


def _bonuses(campaign: Campaign) -> list[tuple]:
    return list(
        Bonus.objects.filter(assignment__campaign=campaign)
        .order_by()
        .values_list("amount", "status", "worker__platform", "assignment__hit__mturk__sandbox")
    )


def _workers(campaign: Campaign) -> dict[int, str]:
    in_campaign = Exists(
        Assignment.objects.filter(campaign=campaign, worker=OuterRef("pk"))
    ) | Exists(CampaignWorker.objects.filter(campaign=campaign, worker=OuterRef("pk")))
    return dict(Worker.objects.filter(in_campaign).order_by().values_list("id", "country"))


def campaign_report(campaign: Campaign) -> CampaignReport:
    """The report of ``campaign`` now (six queries; module docstring)."""
    assignments = _assignments(campaign)
    hits = _hits(campaign)
    judgments = _judgments(campaign)
    bonuses = _bonuses(campaign)
    country_by_worker = _workers(campaign)
    rule = trust_rule(campaign)
    status_by_worker = rule.load(campaign)
    # HITs the kind builds as work arrives (post-editing's verification): their places.
    places_to_come = kind_report(campaign).places_to_come
    to_come = places_to_come(campaign) if places_to_come is not None else []

    live: dict[int, int] = {}
    by_status = dict.fromkeys(AssignmentStatus.values, 0)
    done_regular: set[int] = set()
    for pk, status, _, _, qualification, _, _, hit in assignments:
        by_status[status] += 1
        if status in LIVE_ASSIGNMENT_STATUSES:
            live[hit] = live.get(hit, 0) + 1
        if status in DONE and not qualification:
            done_regular.add(pk)
    cost = cost_report(
        [
            AssignmentCostRow(
                status=status,
                platform=work_platform(platform, sandbox),
                # None only for imported judgments, which count nowhere.
                reward=ZERO if reward is None else Decimal(reward),
                mturk_sandbox=sandbox,
                mturk_max_assignments=size,
            )
            for _, status, platform, reward, _, sandbox, size, _ in assignments
        ],
        [
            HitPlacesRow(
                places=places,
                live=live.get(pk, 0),
                # In cents: SQLite reads a coalesced decimal as a 15-digit float.
                reward=Decimal(reward).quantize(CENT),
                offered_on=offered_on(sandbox is not None, bool(campaign.prolific_study_id)),
                mturk_sandbox=sandbox,
                mturk_max_assignments=size,
            )
            for pk, places, reward, sandbox, size in hits
        ],
        [
            BonusCostRow(
                amount=Decimal(amount),
                sent=status == BonusStatus.SENT,
                platform=work_platform(platform, sandbox),
                mturk_sandbox=sandbox,
            )
            for amount, status, platform, sandbox in bonuses
        ],
        masters=campaign.mturk_masters,
        to_come=to_come,
    )
    judgments_by_worker: dict[int, int] = {}
    seconds: list[float | None] = []
    for assignment, worker, n, n_timed, ms, _, _ in judgments:
        judgments_by_worker[worker] = judgments_by_worker.get(worker, 0) + n
        if assignment in done_regular:
            seconds.append(ms / 1000.0 if n_timed else None)
    # Done assignments without any judgment stored have no time either.
    with_judgments = {row[0] for row in judgments}
    seconds.extend(None for pk in done_regular if pk not in with_judgments)
    return CampaignReport(
        campaign_id=campaign.pk,
        campaign_name=campaign.name,
        kind=campaign.kind,
        generated_at=timezone.now(),
        reward=campaign.reward,
        task_rewards=task_rewards(campaign),
        redundancy=campaign.redundancy,
        n_judgments=sum(judgments_by_worker.values()),
        assignments_by_status=by_status,
        cost=cost,
        time=time_per_assignment(seconds),
        period=evaluation_period((row[5] for row in judgments), (row[6] for row in judgments)),
        trust=trust_split(judgments_by_worker, status_by_worker),
        trust_meaning=rule.meaning,
        countries=countries(country_by_worker, judgments_by_worker),
    )
