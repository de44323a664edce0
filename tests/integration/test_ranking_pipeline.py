"""Live ranking statistics on the real stack: three workers' ranking sets go through the real
submission code path (next_assignment_for, record_judgment, which sends judgments_recorded
after each commit) and a real Celery worker (deploy/worker.sh) recomputes them through Redis
into PostgreSQL: the worker who fails the gold units is marked untrusted and cut off, the
campaign is paused automatically with its reason, and the scores by every method appear.

The helpers at the top (a 4-system campaign with gold answers built by
campaigns.actions.build_hits, careful and careless answers) are shared with
tests/e2e/test_ranking_full_loop.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pytest

from analytics import actions as analytics_actions
from analytics.kinds.ranking.loading import load_ranking_judgments
from analytics.models import RankingResult, RankingScore, RankingWorkerStat
from analytics.stats.ranking import RankingConfig, analyse_ranking
from campaigns.actions import build_hits
from campaigns.models import Campaign, CampaignStatus, GoldAnswer, HitSlot, SlotRole, TaskKind
from judgments import actions as judgment_actions
from judgments.models import Assignment, CampaignWorker, Judgment
from tests.factories import (
    CampaignFactory,
    DocumentFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
)
from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

# --- Shared with the browser test --------------------------------------------------------

# Systems best first, as careful workers see them.
QUALITY = ["sys-good", "sys-fair", "sys-poor", "sys-bad"]
GOLD = "gold"


def build_ranking_campaign(segments: int = 30, **fields) -> Campaign:
    """A ranking campaign of four systems, one gold answer (a gold translation) per segment,
    best-only gold on a quarter of the sets, trust decided after 2 gold units, and its HITs
    built by the real builder (30 segments: 14 HITs of 3 sets of 4, 11 of them gold)."""
    settings = {
        "kind": TaskKind.RANKING,
        "redundancy": 1,
        "outputs_per_set": 4,
        "sets_per_hit": 3,
        "gold_rate": Decimal("0.250"),
        "gold_scheme": "best_only",
        "trust_min_gold": 2,
        "trust_min_accuracy": Decimal("0.700"),
        **fields,
    }
    campaign = CampaignFactory(**settings)
    analytics_actions.clear_recompute_flag(campaign.pk)  # a flag left by an earlier run
    document = DocumentFactory(campaign=campaign)
    systems = [SystemFactory(campaign=campaign, name=name) for name in QUALITY]
    for position in range(1, segments + 1):
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position} ist ein deutscher Satz.",
            references=[f"Sentence {position} is the reference."],
        )
        for system in systems:
            OutputFactory(
                segment=segment, system=system, text=f"Sentence {position} by {system.name}."
            )
        GoldAnswer.objects.create(
            segment=segment, gold_text=f"Sentence {position}, translated perfectly."
        )
    build_hits(campaign)
    return campaign


@dataclass(frozen=True)
class SlotInfo:
    position: int
    group: int
    what: str  # a system name, or GOLD


def sets_of(assignment: Assignment) -> dict[int, list[SlotInfo]]:
    """Server-side knowledge of each set of the assignment's HIT, slots in position order."""
    rows = (
        HitSlot.objects.filter(hit=assignment.hit_id)
        .order_by("position")
        .values_list("position", "group", "role", "output__system__name")
    )
    sets: dict[int, list[SlotInfo]] = {}
    for position, group, role, system in rows:
        sets.setdefault(group, []).append(
            SlotInfo(position, group, GOLD if role == SlotRole.GOLD else system)
        )
    return sets


def careful_ranks(slots: list[SlotInfo]) -> list[int]:
    """The gold translation first, then the systems by quality (ranks 1..N, no ties)."""
    order = [GOLD, *QUALITY]
    merit = sorted(slots, key=lambda slot: order.index(slot.what))
    rank = {slot.position: n for n, slot in enumerate(merit, start=1)}
    return [rank[slot.position] for slot in slots]


def careless_ranks(slots: list[SlotInfo]) -> list[int]:
    """Everything backwards: the gold translation last."""
    n = len(slots)
    return [n + 1 - rank for rank in careful_ranks(slots)]


def gold_seen(worker_id: int) -> int:
    return (
        Judgment.objects.filter(worker_id=worker_id, slot__role=SlotRole.GOLD)
        .values("assignment_id", "slot__group")
        .distinct()
        .count()
    )


# --- The pipeline --------------------------------------------------------------------------

WORKER_READY_TIMEOUT = 30
RESULTS_TIMEOUT = 90
REASON = (
    "Paused automatically: 1 of 3 workers (33%) failed the gold units (threshold 30%). "
    "Review the trust table, then reactivate."
)


def do_hit(worker, campaign, choose) -> Assignment | None:
    """One worker's next HIT through the real code path, one commit per ranking set; None
    when the hand-out gives nothing."""
    hand_out = judgment_actions.next_assignment_for(worker, campaign)
    if hand_out.assignment is None:
        return None
    assignment = hand_out.assignment
    for group, slots in sorted(sets_of(assignment).items()):
        ranks = choose(slots)
        judgment_actions.record_judgment(
            assignment.pk,
            worker.pk,
            {
                "set": group,
                "ranks": {
                    str(slot.position): rank for slot, rank in zip(slots, ranks, strict=True)
                },
                "client_duration_ms": 9000,
            },
        )
    return assignment


def test_a_celery_worker_cuts_off_a_worker_who_fails_gold_and_pauses_the_campaign(
    postgres_required,
    redis_url,
    unique_queue,
    subprocess_env,
    start_service,
    settings,
):
    from evalsite.celery import app as celery_app

    assert celery_app.conf.task_always_eager is False  # sent through Redis, not inline
    settings.ANALYTICS_RECOMPUTE_QUEUE = unique_queue
    settings.ANALYTICS_RECOMPUTE_COUNTDOWN = 1.0
    campaign = build_ranking_campaign(
        takedown_untrusted_share=Decimal("0.300"), takedown_min_workers=3
    )
    assert campaign.hits.count() == 14

    # The worker's own follow-up recomputes (after marking workers untrusted) go to the same
    # queue, so that nothing is left in Redis for other workers.
    env = {**subprocess_env, "ANALYTICS_RECOMPUTE_QUEUE": unique_queue}
    worker = start_service(
        "celery-worker",
        [
            str(DEPLOY_DIR / "worker.sh"),
            "--pool=solo",
            "--concurrency=1",
            f"--queues={unique_queue}",
            f"--hostname={unique_queue}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    def reflects_everything() -> bool:
        result = RankingResult.objects.filter(campaign=campaign).first()
        n_now = Judgment.objects.filter(campaign=campaign, rank__isnull=False).count()
        return result is not None and result.n_judgments == n_now

    first, second, careless = (judgment_actions.create_pseudonymous_worker() for _ in range(3))
    for _ in range(4):
        do_hit(first, campaign, careful_ranks)
        do_hit(second, campaign, careful_ranks)
    assert gold_seen(first.pk) >= 2 and gold_seen(second.pk) >= 2

    # The careless worker asks for work again after each HIT, once the worker has caught up.
    done = 0
    while do_hit(careless, campaign, careless_ranks) is not None:
        done += 1
        worker.wait_until(reflects_everything, RESULTS_TIMEOUT, "results over every ranking")
    assert gold_seen(careless.pk) >= 2  # enough to decide
    assert done < 14 - 8, "the careless worker was never cut off"
    print(f"\nThe careless worker was cut off after {done} HIT(s), {gold_seen(careless.pk)} gold")
    worker.wait_until(
        lambda: Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.PAUSED,
        RESULTS_TIMEOUT,
        "the automatic pause",
    )

    campaign.refresh_from_db()
    assert campaign.status_reason == REASON
    membership = CampaignWorker.objects.get(campaign=campaign, worker=careless)
    assert membership.untrusted is True
    assert membership.untrusted_reason.startswith("Automatic: failed the gold units")
    statuses = dict(
        RankingWorkerStat.objects.filter(campaign=campaign).values_list("worker_id", "status")
    )
    assert statuses == {first.pk: "trusted", second.pk: "trusted", careless.pk: "untrusted"}

    # Every method's scores, in both variants; the trusted ones are the careful workers'.
    worker.wait_until(reflects_everything, RESULTS_TIMEOUT, "results over every ranking")
    # Six methods (issue 12 added WMT12's "> others", win_ratio_wmt12), four systems, two variants.
    assert RankingScore.objects.filter(campaign=campaign).count() == 6 * 4 * 2
    for method in (
        "win_ratio_geq",
        "win_ratio_gt",
        "win_ratio_wmt12",
        "expected_wins",
        "bradley_terry",
        "trueskill",
    ):
        ranked = list(
            RankingScore.objects.filter(campaign=campaign, method=method, include_untrusted=False)
            .order_by("position")
            .values_list("system__name", flat=True)
        )
        assert ranked == QUALITY, method
    loaded = load_ranking_judgments(campaign.pk)
    careful_rows = np.isin(loaded.judgments.worker, [first.pk, second.pk])
    report = analyse_ranking(
        loaded.judgments.select(careful_rows),
        RankingConfig(trust_min_gold=2, include_untrusted=True),
    )
    stored = dict(
        RankingScore.objects.filter(
            campaign=campaign, method="win_ratio_geq", include_untrusted=False
        ).values_list("system_id", "score")
    )
    for system, score in zip(
        report.systems.tolist(), report.win_ratio_better_or_equal.score.tolist(), strict=True
    ):
        assert stored[system] == pytest.approx(score, abs=1e-12)

    # The requester reactivates: the careless worker stays cut off, and the rule does not
    # pause the campaign again for the same state.
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, status_reason="")
    hand_out = judgment_actions.next_assignment_for(careless, campaign)
    assert hand_out.reason == judgment_actions.NoWorkReason.UNTRUSTED
    assert do_hit(first, campaign, careful_ranks) is not None
    worker.wait_until(reflects_everything, RESULTS_TIMEOUT, "results after the reactivation")
    assert Campaign.objects.get(pk=campaign.pk).status == CampaignStatus.ACTIVE
    analytics_actions.clear_recompute_flag(campaign.pk)
