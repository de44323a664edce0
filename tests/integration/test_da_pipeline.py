"""Live direct-assessment statistics on the real stack: two workers' submissions through the
real submission code path (record_judgment, which sends judgments_recorded after each commit)
are recomputed by a real Celery worker (deploy/worker.sh) through Redis into PostgreSQL.

The helpers at the top (a 4-system campaign built by campaigns.actions.build_hits, a careful
and a random-clicking worker's scores) are shared with tests/e2e/test_da_full_loop.py.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass

import pytest

from analytics import actions as analytics_actions
from analytics.models import CampaignResult, SystemScore, WorkerStat
from campaigns.actions import build_hits
from campaigns.models import Campaign, HitSlot, SlotRole, TaskKind
from judgments import actions as judgment_actions
from judgments.models import Assignment, Judgment
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

# System quality the careful worker perceives, best first; references are better still.
QUALITY = {"sys-good": 85, "sys-fair": 68, "sys-poor": 50, "sys-bad": 33}
REFERENCE_SCORE = 94
BAD_REFERENCE_DROP = 35
RANDOM_SEED = 20140426


def build_da_campaign(segments: int = 28, **fields) -> Campaign:
    """A direct-assessment campaign with four systems of known quality and its HITs, built by
    the real builder: 4 x 28 = 112 outputs make two 100-item HITs (redundancy 1)."""
    campaign = CampaignFactory(kind=TaskKind.DIRECT_ASSESSMENT, redundancy=1, **fields)
    analytics_actions.clear_recompute_flag(campaign.pk)  # a flag left by an earlier run
    document = DocumentFactory(campaign=campaign)
    systems = [SystemFactory(campaign=campaign, name=name) for name in QUALITY]
    for position in range(1, segments + 1):
        segment = SegmentFactory(
            document=document,
            external_id=str(position),
            position=position,
            source=f"Satz {position} ist ein deutscher Satz mit mehreren Wörtern.",
            references=[f"Sentence {position} is the reference with several words in it."],
        )
        for system in systems:
            OutputFactory(
                segment=segment,
                system=system,
                text=f"Sentence {position} as {system.name} translated it, in some words.",
            )
    assert build_hits(campaign) == 2
    return campaign


@dataclass(frozen=True)
class SlotInfo:
    role: str
    system: str  # the system whose output is behind the slot
    output_id: int


def slots_of(assignment: Assignment) -> dict[int, SlotInfo]:
    """Server-side knowledge of what each position of the assignment's HIT is (one query)."""
    rows = HitSlot.objects.filter(hit=assignment.hit_id).values_list(
        "position", "role", "output__system__name", "output_id"
    )
    return {pos: SlotInfo(role, system, output) for pos, role, system, output in rows}


def careful_score(slot: SlotInfo) -> int:
    """A careful worker: outputs by their system's quality (plus a little noise that repeats
    reproduce, since it depends on the output), references high, bad references far lower
    than the output they were made from."""
    noise = slot.output_id * 7919 % 7 - 3  # -3 .. 3
    if slot.role == SlotRole.REFERENCE:
        return REFERENCE_SCORE + noise
    score = QUALITY[slot.system] + noise
    if slot.role == SlotRole.BAD_REFERENCE:
        score -= BAD_REFERENCE_DROP
    return max(0, min(100, score))


def random_scores(seed: int = RANDOM_SEED):
    """A random clicker: uniform integer scores from a fixed seed, whatever is shown."""
    rng = random.Random(seed)
    return lambda slot: rng.randint(0, 100)


def expected_reliable_systems(worker_id: int) -> dict[str, tuple[int, float, float]]:
    """(n, Ave raw, Ave z) per system over one worker's outputs and repeats, worked out with
    the statistics module: z over all of the worker's scores, sample sd (n - 1); WMT's Ave
    (issue 12): each segment's (output's: a repeat shows the output it repeats) judgments
    averaged first, then the segment means."""
    rows = list(
        Judgment.objects.filter(worker_id=worker_id).values_list(
            "score", "slot__role", "slot__output__system__name", "slot__output_id"
        )
    )
    scores = [score for score, _, _, _ in rows]
    mean, sd = statistics.mean(scores), statistics.stdev(scores)
    by_segment = defaultdict(list)
    for score, role, system, output in rows:
        if role in (SlotRole.SYSTEM, SlotRole.REPEAT):
            by_segment[system, output].append(score)
    by_system = defaultdict(list)
    for (system, _), s in by_segment.items():
        by_system[system].append(s)
    return {
        system: (
            sum(len(s) for s in segments),
            statistics.mean(statistics.mean(s) for s in segments),
            statistics.mean(statistics.mean((x - mean) / sd for x in s) for s in segments),
        )
        for system, segments in by_system.items()
    }


# --- The pipeline --------------------------------------------------------------------------

WORKER_READY_TIMEOUT = 30
RESULTS_TIMEOUT = 60
TASK_LINE = re.compile(
    r"Task analytics\.tasks\.recompute_campaign_results\[[0-9a-f-]+\] succeeded in \S+: (\d+)$",
    re.MULTILINE,
)


def do_hit(worker, campaign, choose, seconds):
    """One worker's whole HIT through record_judgment, each answer its own commit."""
    assignment = judgment_actions.next_assignment_for(worker, campaign).assignment
    slots = slots_of(assignment)
    for position in range(1, 101):
        judgment_actions.record_judgment(
            assignment.pk,
            worker.pk,
            {
                "position": position,
                "score": choose(slots[position]),
                "client_duration_ms": seconds * 1000,
            },
        )
    return assignment


def test_a_celery_worker_recomputes_live_as_two_workers_submit(
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
    campaign = build_da_campaign()

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
        subprocess_env,
    )
    worker.wait_until(lambda: " ready." in worker.log(), WORKER_READY_TIMEOUT, "worker ready")

    careful = judgment_actions.create_pseudonymous_worker()
    clicker = judgment_actions.create_pseudonymous_worker()
    do_hit(careful, campaign, careful_score, seconds=7)
    do_hit(clicker, campaign, random_scores(), seconds=1)
    assert Judgment.objects.filter(campaign=campaign).count() == 200

    def reflects_everything() -> bool:
        result = CampaignResult.objects.filter(campaign=campaign).first()
        return result is not None and result.n_judgments == 200

    worker.wait_until(reflects_everything, RESULTS_TIMEOUT, "results over all 200 judgments")

    flags = dict(WorkerStat.objects.filter(campaign=campaign).values_list("worker", "reliable"))
    assert flags == {careful.pk: True, clicker.pk: False}
    assert WorkerStat.objects.get(worker=clicker).recommendation == "reject"

    expected = expected_reliable_systems(careful.pk)
    stored = {
        score.system.name: score
        for score in SystemScore.objects.filter(
            campaign=campaign, include_unreliable=False
        ).select_related("system")
    }
    assert set(stored) == set(QUALITY)
    for name, (n, raw, z) in expected.items():
        assert stored[name].n == n
        assert stored[name].mean_score == pytest.approx(raw, abs=1e-9)
        assert stored[name].mean_z == pytest.approx(z, abs=1e-9)
    ranking = sorted(stored.values(), key=lambda score: score.position)
    assert [score.system.name for score in ranking] == list(QUALITY)

    # Coalesced: far fewer recomputes than the 200 submissions, the last over all of them.
    runs = [int(n) for n in TASK_LINE.findall(worker.log())]
    assert runs and runs[-1] == 200
    assert len(runs) < 50, f"{len(runs)} recomputes for 200 submissions"
    print(f"\n200 submissions -> {len(runs)} recomputes by the worker: {runs}")
    analytics_actions.clear_recompute_flag(campaign.pk)
