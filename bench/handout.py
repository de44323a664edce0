#!/usr/bin/env python
"""The hand-out's time as a campaign grows (issue 16: the link a worker opens for each new
HIT), and the completion page's check whether another task is there, side by side with a
previous commit's code.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_handout \\
        .venv/bin/python bench/handout.py [--hits 2000,20000] [--rounds 3] [--baseline 2d03246]

Builds (once; ``--campaign`` reuses them) direct-assessment campaigns of ``--hits`` HITs at
redundancy 3: in each size, one whose HITs are all full but the last ten (the usual case: the
hand-out finds the first HIT with room) and one whose HITs are all full (every worker's visit
answers "all taken"). Each round then runs, alternately, this tree's code and the baseline
commit's (``git archive`` of it), each in a fresh process on the same database: for every
campaign one hand-out that is kept (so that the campaign's hand-out frontier is stored, as it
is after any hand-out), then ``--repeat`` hand-outs to new workers, each in a transaction that
is rolled back, so that each finds the same campaign; then as many checks of the completion
page (``work_for``: read-only) for one more worker. Prints per campaign the median
milliseconds of both codes and their ratio. One client, loopback PostgreSQL: the hand-out holds
the campaign's lock for this long, so it bounds how many workers a campaign can take on a
second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trees import commit_tree  # noqa: E402 (the path above first)

REDUNDANCY = 3
OPEN_TAIL = 10
HITS_PER_WORKER = 20


def _holders(workers: list, index: int, size: int) -> list:
    """The REDUNDANCY distinct workers holding HIT ``index`` of a campaign of ``size`` HITs,
    each worker holding about HITS_PER_WORKER HITs."""
    n = min(len(workers), max(-(-size * REDUNDANCY // HITS_PER_WORKER), REDUNDANCY))
    return [workers[(index * REDUNDANCY + r) % n] for r in range(REDUNDANCY)]


def _setup(tree: Path) -> None:
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()


def build(sizes: list[int]) -> list[int]:
    """Two campaigns per size (the last ten HITs open; every HIT full); their ids."""
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from campaigns.kinds import registry
    from campaigns.kinds.direct_assessment.models import AssessmentMode
    from campaigns.models import Campaign, CampaignStatus, Hit, TaskKind
    from judgments.models import Assignment, AssignmentStatus, Worker

    direct_assessment = registry.get(TaskKind.DIRECT_ASSESSMENT)

    call_command("migrate", verbosity=0)
    # Each holder holds HITS_PER_WORKER HITs' places, as people who did that many HITs: the
    # planner's statistics then see workers as they are in a real campaign.
    needed = max(-(-max(sizes) * REDUNDANCY // HITS_PER_WORKER), REDUNDANCY)
    have = Worker.objects.filter(external_id__startswith="bench-handout-holder-").count()
    Worker.objects.bulk_create(
        Worker(platform="direct", external_id=f"bench-handout-holder-{i}")
        for i in range(have, needed)
    )
    workers = list(
        Worker.objects.filter(external_id__startswith="bench-handout-holder-").order_by("pk")
    )
    expires = timezone.now() + timedelta(days=365)
    ids = []
    for size in sizes:
        for full in (False, True):
            campaign = Campaign.objects.create(
                name=f"bench handout {size} {'full' if full else 'open tail'}",
                kind=TaskKind.DIRECT_ASSESSMENT,
                status=CampaignStatus.ACTIVE,
                source_language="de",
                target_language="en",
                redundancy=REDUNDANCY,
            )
            direct_assessment.settings_model.objects.create(
                campaign=campaign, assessment_mode=AssessmentMode.ADEQUACY
            )
            hits = Hit.objects.bulk_create(
                Hit(campaign=campaign, task="assess", number=n) for n in range(1, size + 1)
            )
            filled = hits if full else hits[:-OPEN_TAIL]
            Assignment.objects.bulk_create(
                (
                    Assignment(
                        campaign=campaign,
                        reward=campaign.reward,
                        hit=hit,
                        worker=worker,
                        status=AssignmentStatus.SUBMITTED,
                        expires_at=expires,
                    )
                    for index, hit in enumerate(filled)
                    for worker in _holders(workers, index, size)
                ),
                batch_size=5000,
            )
            ids.append(campaign.pk)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            print(f"built campaign {campaign.pk}: {campaign.name}", file=sys.stderr, flush=True)
    return ids


def measure(campaign_ids: list[int], repeat: int) -> dict[str, list[float]]:
    """Per campaign (``"<id>"``): the milliseconds of ``repeat`` hand-outs to new workers,
    rolled back; and (``"<id> page"``) of as many checks of the completion page whether another
    task is there for a worker (judgments.entry.availability.work_for)."""
    from django.db import transaction

    from campaigns.models import Campaign
    from judgments.actions import next_assignment_for
    from judgments.entry.availability import work_for
    from judgments.models import Worker

    class Rollback(Exception):
        pass

    out: dict[str, list[float]] = {}
    for campaign_id in campaign_ids:
        campaign = Campaign.objects.get(pk=campaign_id)
        # Kept: the frontier of this code (if it has one) is then stored.
        next_assignment_for(
            Worker.objects.create(
                platform="direct", external_id=f"bench-handout-kept-{time.time_ns()}"
            ),
            campaign,
        )
        times = []
        for i in range(repeat):
            try:
                with transaction.atomic():
                    worker = Worker.objects.create(
                        platform="direct", external_id=f"bench-handout-{i}"
                    )
                    started = time.perf_counter()
                    next_assignment_for(worker, campaign)
                    times.append((time.perf_counter() - started) * 1000)
                    raise Rollback
            except Rollback:
                pass
        out[str(campaign_id)] = times
        looker = Worker.objects.create(
            platform="direct", external_id=f"bench-handout-looker-{time.time_ns()}"
        )
        page = []
        for _ in range(repeat):
            started = time.perf_counter()
            work_for(looker, campaign)
            page.append((time.perf_counter() - started) * 1000)
        out[f"{campaign_id} page"] = page
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", default="2000,20000", help="campaign sizes, in HITs")
    parser.add_argument("--campaign", help="reuse these campaigns (ids, comma-separated)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=20, help="hand-outs timed per campaign")
    parser.add_argument("--baseline", default="2d03246", help="the commit to alternate with")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("set DATABASE_URL to a PostgreSQL database of its own")

    if args.measure:
        _setup(Path(args.tree))
        ids = [int(pk) for pk in args.measure.split(",")]
        print(json.dumps(measure(ids, args.repeat)))
        return

    _setup(ROOT)
    if args.campaign:
        ids = [int(pk) for pk in args.campaign.split(",")]
    else:
        ids = build([int(size) for size in args.hits.split(",")])
    from campaigns.models import Campaign
    from judgments.models import AssignmentStatus

    names = {
        c.pk: (
            c.hits.count(),
            c.hits.filter(assignments__status=AssignmentStatus.SUBMITTED).distinct().count(),
        )
        for c in Campaign.objects.filter(pk__in=ids)
    }
    baseline = commit_tree(args.baseline, "handout-baseline-")
    trees = {"current": ROOT, "baseline": baseline}
    results: dict[str, dict[str, list[float]]] = {"current": {}, "baseline": {}}
    for round_number in range(args.rounds):
        order = ["current", "baseline"] if round_number % 2 == 0 else ["baseline", "current"]
        for code in order:
            command = [sys.executable, str(ROOT / "bench" / "handout.py")]
            command += ["--measure", ",".join(map(str, ids)), "--tree", str(trees[code])]
            command += ["--repeat", str(args.repeat)]
            run = subprocess.run(
                command, check=True, capture_output=True, text=True, cwd=trees[code]
            )
            for pk, times in json.loads(run.stdout.strip().splitlines()[-1]).items():
                results[code].setdefault(pk, []).extend(times)
        print(f"round {round_number + 1} done", file=sys.stderr, flush=True)

    print(
        f"median ms of {args.rounds} x {args.repeat} "
        f"(this tree vs {args.baseline}, alternated; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    header = f"{'campaign':>9} {'HITs':>7} {'full':>7}  {'current':>8} {'baseline':>9}  speed-up"
    for what, suffix in (("hand-out", ""), ("completion page's availability check", " page")):
        print(f"{what}:")
        print(header)
        for pk in ids:
            current = statistics.median(results["current"][f"{pk}{suffix}"])
            before = statistics.median(results["baseline"][f"{pk}{suffix}"])
            hits, full = names[pk]
            print(
                f"{pk:>9} {hits:>7,} {full:>7,}  {current:>8.2f} {before:>9.2f}  "
                f"{before / current:>6.1f}x"
            )


if __name__ == "__main__":
    main()
