#!/usr/bin/env python
"""Ranking statistics at scale: 12 systems, 300 workers, 50,000 ranking sets.

    .venv/bin/python bench/ranking_stats.py [--systems 12] [--workers 300] [--sets 50000]
                                            [--outputs-per-set 5] [--sets-per-hit 3]
                                            [--redundancy 1] [--gold-rate 0.1] [--keep]

Creates a ranking campaign with bulk_create: segments with one output per system, HITs of
``--sets-per-hit`` ranking sets of ``--outputs-per-set`` outputs of distinct systems (about
``--gold-rate`` of the sets are best+worst gold sets: the gold translation in place of one
output, expected in the top two, and a known-worst output expected in the bottom two, as the
ranking builder lays them out), each HIT done by ``--redundancy`` workers, and one judgment
per ranked output. 90% of the workers are careful (ranks from the systems' quality plus
noise, the gold translation on top 90% of the time), 10% rank at random and fail the gold
units. Then it times what a recompute does, separately and in total:

- load:    analytics.kinds.ranking.loading.load_ranking_judgments (and counts its queries);
- compute: the pure statistics (gold trust, both variants: win ratios, Expected Wins and
           Bradley-Terry each with a 1000-sample bootstrap, TrueSkill, agreement);
- store:   marking the failing workers untrusted, then replacing the stored results in one
           transaction;
- total:   analytics.actions.recompute_campaign end to end (the signal that would queue a
           follow-up recompute after workers are marked untrusted is disconnected here, as
           this measures the computation, not a broker);

plus the admin panel's reads, the sweep's query and peak memory (tracemalloc's peak during
one extra recompute, and the process's maximum RSS). With DATABASE_URL set it runs against
that database (the campaign and its workers are deleted afterwards unless --keep); without
it, against a temporary SQLite file.

Then, as a Celery worker would run it, each recompute in a fresh process (Django set up and
scipy.stats imported first, as a worker has them): recompute_campaign end to end twice (the
first pays each code's imports on first use: choix, or numba and its compiled kernels read
from numba's on-disk cache, which one process fills first so that no timed run compiles; the
current code loads them in a thread while it waits for its queries; the second is a
worker's steady state), the load's share and the
process's peak RSS, alternating the current code with the previous one
(bench/ranking_baseline_code.py), ``--rounds`` times each, printing medians and ratios with
the load average. ``--campaign`` runs only this part on campaigns kept from earlier runs
(``--keep``), e.g. 10,000, 25,000 and 50,000 sets, and prints seconds per 10,000 sets to show
the growth.

    .venv/bin/python bench/ranking_stats.py --sets 10000 --keep      (likewise 25000, 50000)
    .venv/bin/python bench/ranking_stats.py --campaign 11,12,13 --rounds 3
    .venv/bin/python bench/ranking_stats.py --campaign 11,12,13 --rounds 3 --baseline-commit 5896221

``--baseline-commit`` alternates with that commit's tree as it was (its own current code, run
from a ``git archive`` of it) instead of the code issue 16 replaced, timed by this bench's
measurement (the tree first on the path), so that both codes' steps are printed: the second
run's load, analysis and the rest (storing), each in wall and CPU seconds (all threads).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

from bench.trees import commit_tree  # noqa: E402 (the path above first)

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so"
).split()
RANDOM_SHARE = 0.10
GOLD_RIGHT = 0.95  # careful workers put the gold translation on top this often


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 25))) + "."


class Clock:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    def __call__(self) -> float:
        now = time.perf_counter()
        elapsed, self.started = now - self.started, now
        return elapsed


def build(args, tag: str):
    """The campaign, HITs, workers, assignments and judgments; returns (campaign, info)."""
    import numpy as np
    from django.db import transaction

    from campaigns.kinds import new_campaign
    from campaigns.models import (
        Document,
        Hit,
        HitSlot,
        HitTask,
        Output,
        Segment,
        SlotRole,
        System,
    )
    from judgments.models import Assignment, AssignmentStatus, Judgment, Worker

    rng = random.Random(2013)
    np_rng = np.random.default_rng(2013)
    n = args.outputs_per_set
    margin = min(2, n // 2)
    n_hits = math.ceil(args.sets / args.sets_per_hit)
    n_segments = max(1, args.sets // n)
    campaign = new_campaign(
        settings={
            "outputs_per_set": n,
            "sets_per_hit": args.sets_per_hit,
            "gold_rate": args.gold_rate,
            "gold_scheme": "best_worst",
            "takedown_untrusted_share": 0.5,
        },
        name=f"bench-ranking-{tag}",
        kind="ranking",
        source_language="de",
        target_language="en",
        redundancy=args.redundancy,
        status="active",
    ).save()
    with transaction.atomic():
        document = Document.objects.create(campaign=campaign, external_id="doc", position=1)
        systems = System.objects.bulk_create(
            System(campaign=campaign, name=f"system-{k:02d}") for k in range(args.systems)
        )
        segments = Segment.objects.bulk_create(
            (
                Segment(
                    campaign=campaign,
                    document=document,
                    external_id=str(k + 1),
                    position=k + 1,
                    source=sentence(rng),
                    references=[sentence(rng)],
                )
                for k in range(n_segments)
            ),
            batch_size=2000,
        )
        outputs = Output.objects.bulk_create(
            (Output(system=s, segment=g, text=sentence(rng)) for g in segments for s in systems),
            batch_size=5000,
        )
    m = args.systems
    output_id = np.array([o.pk for o in outputs], dtype=np.int64).reshape(n_segments, m)
    quality = np.linspace(1.0, -1.0, m)  # system 00 best

    hits = Hit.objects.bulk_create(
        (Hit(campaign=campaign, task=HitTask.RANK, number=h + 1) for h in range(n_hits)),
        batch_size=5000,
    )
    # Per set: its segment, the systems shown (positions into `systems`), whether gold.
    set_segment = np_rng.integers(0, n_segments, args.sets)
    set_systems = np.argsort(np_rng.random((args.sets, m)), axis=1)[:, :n]
    gold = np_rng.random(args.sets) < args.gold_rate
    # In a gold set, the known worst is the weakest system shown besides the gold slot.
    per_set_worst = 1 + np.argmin(quality[set_systems[:, 1:]], axis=1)
    slots = []
    for k in range(args.sets):
        hit = hits[k // args.sets_per_hit]
        group = k % args.sets_per_hit
        shown = set_systems[k]
        worst = int(shown[per_set_worst[k]]) if gold[k] else -1
        for i in range(n):
            position = group * n + i + 1
            seg = int(set_segment[k])
            if gold[k] and i == 0:  # the gold translation replaces the first output
                slots.append(
                    HitSlot(
                        hit=hit, position=position, group=group, role=SlotRole.GOLD,
                        segment_id=segments[seg].pk, shown_text="A gold translation.",
                        expected_rank_min=1, expected_rank_max=margin,
                    )
                )  # fmt: skip
                continue
            s = int(shown[i])
            is_worst = s == worst
            slots.append(
                HitSlot(
                    hit=hit, position=position, group=group, role=SlotRole.SYSTEM,
                    segment_id=segments[seg].pk, output_id=int(output_id[seg, s]),
                    shown_text="(output)",
                    expected_rank_min=n - margin + 1 if is_worst else None,
                    expected_rank_max=n if is_worst else None,
                )
            )  # fmt: skip
    slots = HitSlot.objects.bulk_create(slots, batch_size=5000)

    workers = Worker.objects.bulk_create(
        Worker(platform="direct", external_id=f"bench-{tag}-{k:04d}") for k in range(args.workers)
    )
    careless = np_rng.random(args.workers) < RANDOM_SHARE
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    pairs = [
        (hits[h], (h * args.redundancy + r) % args.workers)
        for h in range(n_hits)
        for r in range(args.redundancy)
    ]
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit=hit,
                worker=workers[w],
                status=AssignmentStatus.SUBMITTED,
                expires_at=far,
            )
            for hit, w in pairs
        ),
        batch_size=5000,
    )
    # Per set, the slots (in position order) and what each is: -1 gold, else system position.
    per_set = np.full((args.sets, n), -1, dtype=np.int64)
    for k in range(args.sets):
        for i in range(n):
            per_set[k, i] = -1 if gold[k] and i == 0 else set_systems[k, i]
    slot_ids = np.array([s.pk for s in slots], dtype=np.int64).reshape(args.sets, n)

    judgments = []
    for assignment, (hit, w) in zip(assignments, pairs, strict=True):
        first = (hit.number - 1) * args.sets_per_hit
        for k in range(first, min(first + args.sets_per_hit, args.sets)):
            members = per_set[k]
            if careless[w]:
                ranks = np_rng.integers(1, n + 1, n)
            else:
                merit = np.where(members >= 0, quality[np.maximum(members, 0)], 3.0)
                if gold[k]:
                    merit[per_set_worst[k]] = -3.0  # the known worst is clearly bad (002)
                    if np_rng.random() > GOLD_RIGHT:
                        merit[0] = -3.0
                merit = merit + np_rng.normal(0, 0.6, n)
                ranks = np.empty(n, dtype=np.int64)
                ranks[np.argsort(-merit)] = np.arange(1, n + 1)
            judgments.extend(
                Judgment(
                    campaign=campaign,
                    worker_id=assignment.worker_id,
                    assignment=assignment,
                    slot_id=int(slot),
                    rank=int(rank),
                )
                for slot, rank in zip(slot_ids[k], ranks, strict=True)
            )
    Judgment.objects.bulk_create(judgments, batch_size=5000)
    return campaign, {
        "hits": n_hits,
        "segments": n_segments,
        "outputs": n_segments * m,
        "slots": len(slots),
        "gold_sets": int(gold.sum()),
        "assignments": len(assignments),
        "judgments": len(judgments),
        "careless": int(careless.sum()),
    }


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def measure_one(campaign_id: int, code: str) -> None:
    """Child process: two recompute_campaign runs of ``campaign_id`` with ``code`` ("new" or
    "old"); prints one JSON line (seconds of each, load seconds, RSS after imports, peak)."""
    import json

    from django.conf import settings

    settings.CELERY_TASK_ALWAYS_EAGER = True
    import django

    django.setup()
    import logging

    logging.getLogger("analytics").setLevel(logging.WARNING)
    import scipy.stats  # noqa: F401  (what a worker has imported before its first task)

    from analytics import actions
    from analytics.kinds.ranking import actions as ranking_actions
    from campaigns.models import Campaign
    from judgments.signals import exclusions_changed, judgments_recorded

    exclusions_changed.disconnect(dispatch_uid="analytics.recompute_on_exclusions_changed")
    judgments_recorded.disconnect(dispatch_uid="analytics.recompute_on_judgments_recorded")
    if code == "old":
        sys.path.insert(0, str(ROOT / "bench"))
        import ranking_baseline_code

        ranking_baseline_code.install()
    campaign = Campaign.objects.get(pk=campaign_id)
    load = ranking_actions.load_ranking_judgments
    analyse = ranking_actions.analyse_loaded_ranking
    load_s: list[float] = []
    steps: dict[str, list[float]] = {"load_cpu": [], "analyse": [], "analyse_cpu": []}

    def timed_load(pk, **kwargs):
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            return load(pk, **kwargs)
        finally:
            load_s.append(time.perf_counter() - started)
            steps["load_cpu"].append(time.process_time() - started_cpu)

    def timed_analyse(*args, **kwargs):
        started, started_cpu = time.perf_counter(), time.process_time()
        try:
            return analyse(*args, **kwargs)
        finally:
            steps["analyse"].append(time.perf_counter() - started)
            steps["analyse_cpu"].append(time.process_time() - started_cpu)

    ranking_actions.load_ranking_judgments = timed_load
    ranking_actions.analyse_loaded_ranking = timed_analyse
    rss_before = _rss_mib()
    totals = []
    cpu = []  # CPU seconds of this process (all its threads): far less noisy than wall time
    for _ in range(2):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = actions.recompute_campaign(campaign)
        totals.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "first": totals[0],
                "second": totals[1],
                "cpu_first": cpu[0],
                "cpu_second": cpu[1],
                "load": load_s[1],
                # The second run's steps (wall and CPU of all threads); the rest is storing.
                **{name: values[1] for name, values in steps.items()},
                "rss_before": rss_before,
                "peak": peak,
                "comparisons": result.variant(True)["n_comparisons"],
            }
        )
    )


def compare(campaign_ids: list[int], rounds: int, baseline_commit: str | None = None) -> None:
    """Fresh-process recomputes, current code alternated with the previous one: the code
    issue 16 replaced (bench/ranking_baseline_code.py), or with ``baseline_commit`` that
    commit's tree as it was (``git archive`` into a temporary directory)."""
    import json
    import shutil
    import subprocess

    baseline_tree: Path | None = None
    if baseline_commit:
        baseline_tree = commit_tree(baseline_commit, "ranking-baseline-")

    def run(campaign_id: int, code: str) -> dict:
        tree, as_code = ROOT, code
        if code == "old" and baseline_tree is not None:
            tree, as_code = baseline_tree, "new"  # that commit's own current code
        # This bench's measurement (the same steps timed) on that tree's code.
        out = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "ranking_stats.py")]
            + ["--measure-one", str(campaign_id), "--code", as_code, "--tree", str(tree)],
            check=True,
            capture_output=True,
            text=True,
            cwd=tree,
        ).stdout
        return json.loads(out.strip().splitlines()[-1])

    try:
        _compare(campaign_ids, rounds, baseline_commit, baseline_tree, run)
    finally:
        if baseline_tree is not None:
            shutil.rmtree(baseline_tree, ignore_errors=True)


def _compare(
    campaign_ids: list[int],
    rounds: int,
    baseline_commit: str | None,
    baseline_tree: Path | None,
    run: Callable[[int, str], dict],
) -> None:
    import statistics
    import subprocess

    from judgments.models import Judgment

    # A fresh checkout has no compiled code in numba's on-disk cache yet: the first process
    # would compile it (seconds) where a worker, after its first task ever, only loads it.
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from analytics.stats.ranking import bootstrap_kernel, trueskill_kernel; "
            "bootstrap_kernel.warm_up(); trueskill_kernel.warm_up()",
        ],
        check=True,
        cwd=ROOT,
    )
    if baseline_tree is not None:
        run(campaign_ids[0], "old")  # untimed: fills numba's cache of that tree
    print(f"compiled kernels' cache ready ({time.perf_counter() - started:.1f} s)")
    if baseline_commit:
        print(f"old = commit {baseline_commit} as it was, new = this tree")
    print(
        f"fresh processes, {rounds} rounds, old/new alternated "
        f"(load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    rows = []
    for campaign_id in campaign_ids:
        ranked = Judgment.objects.filter(campaign_id=campaign_id, rank__isnull=False)
        n = ranked.count()
        n_sets = ranked.values_list("slot__hit_id", "slot__group").distinct().count()
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for k in range(rounds):
            for code in ("old", "new") if k % 2 == 0 else ("new", "old"):
                runs[code].append(run(campaign_id, code))
        # A baseline tree's bench may not time every step: only the keys both give.
        keys = set(runs["old"][0]) & set(runs["new"][0])
        med = {
            code: {key: statistics.median(r[key] for r in rs) for key in keys}
            for code, rs in runs.items()
        }
        old, new = med["old"], med["new"]
        print(
            f"  {n_sets:>7,} sets ({n:,} ranked outputs, "
            f"{int(new['comparisons']):,} pairwise comparisons): "
            f"new {new['first']:.3f} s first / {new['second']:.3f} s second (load "
            f"{new['load']:.3f}), peak {new['peak']:.0f} MiB ({new['rss_before']:.0f} after "
            f"imports) | old {old['first']:.3f} / {old['second']:.3f} s (load {old['load']:.3f}), "
            f"peak {old['peak']:.0f} MiB | old/new {old['first'] / new['first']:.1f}x first, "
            f"{old['second'] / new['second']:.1f}x second, {old['peak'] / new['peak']:.2f}x peak;"
            f" CPU s new {new['cpu_first']:.2f} first / {new['cpu_second']:.2f} second, old "
            f"{old['cpu_first']:.2f} / {old['cpu_second']:.2f} (old/new "
            f"{old['cpu_second'] / new['cpu_second']:.1f}x second);"
            " runs new "
            + ", ".join(f"{r['first']:.2f}/{r['second']:.2f}" for r in runs["new"])
            + " | old "
            + ", ".join(f"{r['first']:.2f}/{r['second']:.2f}" for r in runs["old"])
        )
        if "analyse" in new:
            print(
                f"    second run's steps: load {new['load']:.3f} s wall / {new['load_cpu']:.3f} s "
                f"CPU, analysis {new['analyse']:.3f} / {new['analyse_cpu']:.3f}, the rest "
                f"(storing) {new['second'] - new['load'] - new['analyse']:.3f} / "
                f"{new['cpu_second'] - new['load_cpu'] - new['analyse_cpu']:.3f} | old load "
                f"{old['load']:.3f} / {old['load_cpu']:.3f}, analysis {old['analyse']:.3f} / "
                f"{old['analyse_cpu']:.3f}, the rest "
                f"{old['second'] - old['load'] - old['analyse']:.3f} / "
                f"{old['cpu_second'] - old['load_cpu'] - old['analyse_cpu']:.3f}"
            )
        rows.append((n_sets, new["second"], new["peak"] - new["rss_before"]))
        print(f"    load average now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if len(rows) > 1:
        print(
            "  growth (new, second run): "
            + ", ".join(
                f"{n:,} sets: {1e4 * t / n:.3f} s per 10,000 sets, +{m:.0f} MiB over imports"
                for n, t, m in rows
            )
        )
    print(f"  load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=12)
    parser.add_argument("--workers", type=int, default=300)
    parser.add_argument("--sets", type=int, default=50_000)
    parser.add_argument("--outputs-per-set", type=int, default=5)
    parser.add_argument("--sets-per-hit", type=int, default=3)
    parser.add_argument("--redundancy", type=int, default=1)
    parser.add_argument("--gold-rate", type=float, default=0.1)
    parser.add_argument("--keep", action="store_true", help="Keep the campaign (DATABASE_URL).")
    parser.add_argument("--rounds", type=int, default=3, help="Fresh-process runs per code.")
    parser.add_argument("--campaign", help="Only compare, on these kept campaigns (ids, a,b).")
    parser.add_argument(
        "--baseline-commit",
        help="Alternate with this commit's tree instead of bench/ranking_baseline_code.py.",
    )
    parser.add_argument("--measure-one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--code", choices=("new", "old"), default="new", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tree:  # measure that tree's code (a baseline commit's archive)
        sys.path.insert(0, str(Path(args.tree).resolve()))
    if args.measure_one:
        measure_one(args.measure_one, args.code)
        return
    if args.campaign:
        import django

        django.setup()
        compare([int(pk) for pk in args.campaign.split(",")], args.rounds, args.baseline_commit)
        return
    if not 2 <= args.outputs_per_set <= args.systems:
        parser.error("--outputs-per-set must be 2 .. --systems")

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        from django.conf import settings

        temporary_db = not os.environ.get("DATABASE_URL")
        if temporary_db:
            settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
        settings.CELERY_TASK_ALWAYS_EAGER = True

        import django

        django.setup()
        import logging

        for name in ("analytics", "campaigns", "judgments"):
            logging.getLogger(name).setLevel(logging.WARNING)
        from django.core.management import call_command
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from analytics import actions
        from analytics.kinds.ranking import actions as ranking_actions
        from analytics.kinds.ranking.loading import load_ranking_judgments
        from analytics.kinds.ranking.panel import ranking_results_context
        from analytics.models import RankingResult, RankingScore, RankingWorkerStat
        from judgments.models import Worker
        from judgments.signals import exclusions_changed, judgments_recorded

        # Measure the computation: no follow-up recompute through the (eager) task.
        exclusions_changed.disconnect(dispatch_uid="analytics.recompute_on_exclusions_changed")
        judgments_recorded.disconnect(dispatch_uid="analytics.recompute_on_judgments_recorded")

        if temporary_db:
            call_command("migrate", verbosity=0)
        tag = uuid.uuid4().hex[:8]
        clock = Clock()
        campaign, info = build(args, tag)
        generated = clock()
        try:
            database = connection.vendor + (
                f" {connection.pg_version // 10000}"
                if connection.vendor == "postgresql"
                else f" {connection.Database.sqlite_version} (temporary file)"
                if temporary_db
                else ""
            )
            print(f"database:      {database}")
            print(
                f"campaign:      {args.systems} systems, {info['segments']:,} segments, "
                f"{info['outputs']:,} outputs; {info['hits']:,} HITs of {args.sets_per_hit} sets "
                f"of {args.outputs_per_set} ({args.sets:,} sets, {info['gold_sets']:,} gold, "
                f"{info['slots']:,} slots), redundancy {args.redundancy}"
            )
            print(
                f"work:          {args.workers} workers ({info['careless']} careless), "
                f"{info['assignments']:,} assignments, {info['judgments']:,} ranked outputs "
                f"({args.sets * args.redundancy:,} rankings); built in {generated:.1f} s"
            )

            clock()
            with CaptureQueriesContext(connection) as queries:
                loaded = load_ranking_judgments(campaign.pk)
                prior = ranking_actions.load_prior_trust(campaign.pk)
                references = ranking_actions.load_references(campaign)
            load_s = clock()
            config = ranking_actions.ranking_config_for(campaign)
            analysis = ranking_actions.analyse_loaded_ranking(loaded, config, prior, references)
            compute_s = clock()
            marked = ranking_actions.mark_untrusted(campaign, analysis)
            ranking_actions.store_ranking_results(
                campaign, loaded, analysis, timezone.now(), references=references
            )
            store_s = clock()
            j = loaded.judgments
            print(
                f"load:          {load_s:.3f} s  ({len(queries)} queries, {len(loaded):,} rows, "
                f"{j.n_ballots:,} rankings, {len(j.pairs):,} pairs)"
            )
            print(f"compute:       {compute_s:.3f} s")
            n_worker_rows = RankingWorkerStat.objects.filter(campaign=campaign).count()
            n_score_rows = RankingScore.objects.filter(campaign=campaign).count()
            print(
                f"store:         {store_s:.3f} s  ({marked} workers marked untrusted, "
                f"{n_worker_rows} worker rows, {n_score_rows} score rows)"
            )
            print(f"sum:           {load_s + compute_s + store_s:.3f} s")

            totals = []
            for _ in range(2):
                clock()
                result = actions.recompute_campaign(campaign)
                totals.append(clock())
            print(
                "total:         recompute_campaign end to end: "
                + ", ".join(f"{t:.3f}" for t in totals)
                + " s"
            )

            clock()
            with CaptureQueriesContext(connection) as queries:
                context = ranking_results_context(campaign, include_untrusted=False)
            panel_s = clock()
            print(
                f"admin panel:   {panel_s:.3f} s ({len(queries)} queries, "
                f"{len(context['workers'])} trust rows, {len(context['methods'])} method tables)"
            )
            clock()
            stale = list(actions.stale_campaigns().values_list("pk", flat=True))
            sweep_s = clock()
            print(f"sweep query:   {sweep_s:.3f} s (stale campaigns: {len(stale)})")

            result = RankingResult.objects.get(campaign=campaign)
            campaign.refresh_from_db()
            print(
                f"results:       {result.n_trusted} trusted, {result.n_untrusted} untrusted, "
                f"{result.n_undecided} undecided; {result.n_scored_judgments:,} ranked outputs "
                f"in the trusted scores; campaign {campaign.status}"
                + (f" ({campaign.status_reason})" if campaign.status_reason else "")
            )
            trusted = result.variant(False)
            agreement = trusted["agreement"]
            print(
                f"agreement:     inter {agreement['inter']['pr_a']:.3f} "
                f"(kappa {agreement['inter']['kappa']:.3f}, {agreement['inter']['n']:,} pairs); "
                f"Fleiss kappa {agreement['fleiss']['kappa']:.3f}"
            )
            top = (
                RankingScore.objects.filter(
                    campaign=campaign, include_untrusted=False, method="bradley_terry"
                )
                .select_related("system")
                .order_by("position")
            )
            print(
                "ranking (BT):  "
                + ", ".join(f"{s.system.name[-2:]} {s.score:+.2f} (c{s.cluster})" for s in top)
            )

            tracemalloc.start()
            actions.recompute_campaign(campaign)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            print(
                f"memory:        recompute peak {peak / 2**20:.1f} MiB (tracemalloc); "
                f"process max RSS {max_rss:.0f} MiB (includes building the data)"
            )
            print(f"campaign id:   {campaign.pk}")
            if args.rounds:
                compare([campaign.pk], args.rounds)
        finally:
            if not temporary_db and not args.keep:
                clock()
                campaign.delete()
                Worker.objects.filter(external_id__startswith=f"bench-{tag}-").delete()
                print(f"cleanup:       {clock():.1f} s")


if __name__ == "__main__":
    main()
