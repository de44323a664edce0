#!/usr/bin/env python
"""Direct-assessment statistics at scale: 10 systems, 500 workers, 100,000 judgments.

    .venv/bin/python bench/da_stats.py [--systems 10] [--workers 500] [--judgments 100000]
                                       [--redundancy 5] [--keep] [--rounds 3]
    .venv/bin/python bench/da_stats.py --campaign ID[,ID...] [--rounds 3]

Builds a direct-assessment campaign the way production does (outputs, then
campaigns.actions.build_hits: 100-item HITs of 10 sets of 10 with bad references, repeats and
references linked to the outputs they control), hands each worker HITs (every HIT done by
``--redundancy`` workers), and bulk-creates one judgment per slot: 90% careful workers (output
quality by system, a personal leniency, noise; bad references 30 lower), 10% random clickers
(uniform scores, fast). 2% of the assignments are rejected and 5 workers excluded, as a
requester would. Then it times what a recompute does, separately and in total:

- load:    analytics.kinds.direct_assessment.loading.load_da_judgments (and counts its queries);
- compute: the pure statistics (worker reliability, z, both system-score variants,
           significance, clusters, agreement);
- store:   replacing the stored results in one transaction;
- total:   analytics.actions.recompute_campaign end to end (a second time: rows replaced);

plus the admin panel's reads, the sweep's query, and peak memory (the process's maximum RSS,
and tracemalloc's peak during one extra recompute).

Then, as a Celery worker would run it, each recompute in a fresh process (Django set up and
the statistics' modules imported first): recompute_campaign end to end and the process's peak
RSS, alternating the current code with the previous one (bench/da_baseline_code.py: the
values_list loader and one scipy call per ordered pair of systems), ``--rounds`` times each,
printing medians and ratios with the load average, and CPU seconds beside the times (the
recompute's, the whole child process's, and the database server's: all its processes',
the load's own connections included, so run the bench alone); ``--baseline
COMMIT``: the previous code is that commit's whole tree instead. ``--campaign`` runs only
this part on campaigns kept from earlier runs (``--keep``), e.g. 100k, 300k and 1M
judgments, and prints seconds per judgment to show the growth. With DATABASE_URL set, it
runs against that database (the campaign and its workers are deleted afterwards unless
--keep); without it, against a temporary SQLite file with the project's default SQLite
settings.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
import uuid
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
REJECTED_SHARE = 0.02
EXCLUDED_WORKERS = 5


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
    """The campaign, its HITs, workers, assignments and judgments; returns (campaign, info)."""
    import numpy as np
    from django.db import transaction

    from campaigns.actions import build_hits
    from campaigns.kinds import new_campaign
    from campaigns.models import Document, HitSlot, Output, Segment, System
    from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment, Worker

    rng = random.Random(2014)
    n_assignments = args.judgments // 100
    n_hits = n_assignments // args.redundancy
    segments = n_hits * 70 // args.systems  # every system's outputs fill its HIT shares
    campaign = new_campaign(
        settings={"assessment_mode": "adequacy"},
        name=f"bench-da-{tag}",
        kind="direct_assessment",
        source_language="de",
        target_language="en",
        redundancy=args.redundancy,
        status="active",
    ).save()
    with transaction.atomic():
        document = Document.objects.create(campaign=campaign, external_id="doc", position=1)
        systems = System.objects.bulk_create(
            System(campaign=campaign, name=f"system-{n:02d}") for n in range(args.systems)
        )
        segs = Segment.objects.bulk_create(
            (
                Segment(
                    campaign=campaign,
                    document=document,
                    external_id=str(n + 1),
                    position=n + 1,
                    source=sentence(rng),
                    references=[sentence(rng)],
                )
                for n in range(segments)
            ),
            batch_size=2000,
        )
        Output.objects.bulk_create(
            (Output(system=s, segment=g, text=sentence(rng)) for g in segs for s in systems),
            batch_size=5000,
        )
    hits = build_hits(campaign)

    workers = Worker.objects.bulk_create(
        Worker(platform="direct", external_id=f"bench-{tag}-{n:04d}") for n in range(args.workers)
    )
    CampaignWorker.objects.bulk_create(
        CampaignWorker(campaign=campaign, worker=w, excluded=n < EXCLUDED_WORKERS)
        for n, w in enumerate(workers)
    )
    hit_ids = list(campaign.hits.order_by("number").values_list("pk", flat=True))
    # HIT h goes to workers h*r .. h*r + r-1 (mod the worker count): distinct per HIT.
    pairs = [
        (hit_ids[h], workers[(h * args.redundancy + j) % len(workers)])
        for h in range(len(hit_ids))
        for j in range(args.redundancy)
    ]
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    assignments = Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit_id=hit,
                worker=worker,
                status=AssignmentStatus.REJECTED
                if rng.random() < REJECTED_SHARE
                else AssignmentStatus.SUBMITTED,
                expires_at=far,
            )
            for hit, worker in pairs
        ),
        batch_size=2000,
    )

    # Slots in (HIT, position) order, with the quality of the output behind each.
    slots = list(
        HitSlot.objects.filter(hit__campaign=campaign)
        .order_by("hit__number", "position")
        .values_list("hit_id", "pk", "role", "output_id", "output__system_id")
    )
    np_rng = np.random.default_rng(2014)
    system_ids = [s.pk for s in systems]
    system_quality = dict(zip(system_ids, np.linspace(75, 40, len(system_ids)), strict=True))
    output_ids = sorted({row[3] for row in slots})
    output_quality = dict(
        zip(output_ids, np_rng.normal(0, 10, len(output_ids)).tolist(), strict=True)
    )
    by_hit: dict[int, list] = {}
    for hit, pk, role, output, system in slots:
        base = system_quality[system] + output_quality[output]
        by_hit.setdefault(hit, []).append((pk, role, base))
    random_workers = {w.pk for w in workers if rng.random() < RANDOM_SHARE}

    judgments = []
    for assignment in assignments:
        items = by_hit[assignment.hit_id]
        n = len(items)
        if assignment.worker_id in random_workers:
            scores = np_rng.integers(0, 101, n).astype(float)
            ms = np_rng.lognormal(np.log(1500), 0.3, n)
        else:
            leniency = np_rng.normal(0, 8)
            base = np.array([item[2] for item in items])
            role = np.array([item[1] for item in items])
            base = np.where(role == "reference", 88.0, base)
            base = np.where(role == "bad_reference", base - 30, base)
            scores = np.clip(np.rint(base + leniency + np_rng.normal(0, 7, n)), 0, 100)
            ms = np_rng.lognormal(np.log(12000), 0.5, n)
        judgments.extend(
            Judgment(
                campaign=campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot_id=item[0],
                score=float(score),
                client_duration_ms=int(duration),
                server_duration_ms=int(duration) + 150,
            )
            for item, score, duration in zip(items, scores, ms, strict=True)
        )
    Judgment.objects.bulk_create(judgments, batch_size=5000)
    return campaign, {
        "hits": hits,
        "segments": segments,
        "outputs": segments * args.systems,
        "slots": len(slots),
        "assignments": len(assignments),
        "judgments": len(judgments),
        "random_workers": len(random_workers),
    }


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _worker_imports() -> None:
    """What a Celery worker (deploy/worker.sh) has imported before its first recompute: every
    app's and kind's ``tasks`` module (evalsite.celery's autodiscovery; no scipy.stats since
    the DA statistics stopped using it) and the cache's client (its first task, or the sweep's
    heartbeat, has used the cache), and scipy.special, which the statistics import on first
    use (a worker's earlier recompute has: this bench imported scipy.stats here before, when
    the statistics used it). The timed recompute then pays for no import it does not make in
    a running worker; its peak RSS counts every module (they are all imported by then)."""
    import importlib
    import importlib.util

    from django.core.cache import cache

    from evalsite.celery import _task_packages

    for package in _task_packages():
        if importlib.util.find_spec(f"{package}.tasks") is not None:
            importlib.import_module(f"{package}.tasks")
    cache.get("bench-da-stats-warm-up")
    import scipy.special  # noqa: F401

    # The full loads' reader (asyncpg), imported by a worker's first full recompute, as
    # scipy.special is; older trees (a baseline) have no such module.
    if importlib.util.find_spec("analytics.copies") is not None:
        importlib.import_module("analytics.copies")


def measure_one(campaign_id: int, code: str) -> None:
    """Child process: one recompute_campaign of ``campaign_id`` with ``code`` ("new"/"old");
    prints one JSON line (seconds, load seconds, RSS after imports, peak RSS)."""
    import json

    from django.conf import settings

    settings.CELERY_TASK_ALWAYS_EAGER = True
    import django

    django.setup()
    import logging

    logging.getLogger("analytics").setLevel(logging.WARNING)
    _worker_imports()

    from analytics import actions
    from analytics.kinds.direct_assessment import actions as da_actions
    from campaigns.models import Campaign

    if code == "old":
        sys.path.insert(0, str(ROOT / "bench"))
        import da_baseline_code

        da_baseline_code.install()
    campaign = Campaign.objects.get(pk=campaign_id)
    load = da_actions.load_da_judgments
    load_s = []

    def timed_load(pk):
        started = time.perf_counter()
        try:
            return load(pk)
        finally:
            load_s.append(time.perf_counter() - started)

    da_actions.load_da_judgments = timed_load
    # The load reads on connections of its own (analytics/copies.py): the server's CPU is
    # that of all its processes, reaped ones included (run the bench alone).
    from submissions import database_cpu_seconds

    rss_before = _rss_mib()
    db_started = database_cpu_seconds()
    started, cpu_started = time.perf_counter(), time.process_time()
    result = actions.recompute_campaign(campaign)
    total = time.perf_counter() - started
    recompute_cpu = time.process_time() - cpu_started
    db_cpu = database_cpu_seconds() - db_started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "db_cpu": db_cpu,
                "recompute_cpu": recompute_cpu,
                "total": total,
                "load": load_s[0],
                "compute": result.compute_seconds - load_s[0],
                "rss_before": rss_before,
                "peak": peak,
                "judgments": result.n_judgments if hasattr(result, "n_judgments") else None,
            }
        )
    )


def compare(campaign_ids: list[int], rounds: int, baseline: str | None = None) -> None:
    """Fresh-process recomputes, current code alternated with the previous one: the code of
    bench/da_baseline_code.py, or with ``baseline`` the whole tree of that commit (``git
    archive`` into a temporary directory, its own bench/da_stats.py measuring it)."""
    import json
    import statistics
    import subprocess

    from judgments.models import Judgment

    baseline_tree = commit_tree(baseline, "da-stats-baseline-") if baseline else None

    def run(campaign_id: int, code: str) -> dict:
        script, cwd = Path(__file__), ROOT
        if code == "old" and baseline_tree is not None:
            script, cwd, code = baseline_tree / "bench" / "da_stats.py", baseline_tree, "new"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(
            [sys.executable, str(script), "--measure-one", str(campaign_id), "--code", code],
            check=True,
            capture_output=True,
            text=True,
            cwd=cwd,
        ).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        measured = json.loads(out.strip().splitlines()[-1])
        # The whole child's CPU (imports included), measured here so that a baseline tree's
        # own script need not report it; the database's CPU only the current script reports.
        measured["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        measured.setdefault("db_cpu", float("nan"))
        measured.setdefault("recompute_cpu", float("nan"))
        return measured

    print(
        f"fresh processes, {rounds} rounds, old/new alternated; old = "
        + (f"the tree of commit {baseline}" if baseline else "bench/da_baseline_code.py")
        + f" (load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    rows = []
    for campaign_id in campaign_ids:
        n = Judgment.objects.filter(campaign_id=campaign_id).count()
        runs: dict[str, list[dict]] = {"old": [], "new": []}
        for k in range(rounds):
            for code in ("old", "new") if k % 2 == 0 else ("new", "old"):
                runs[code].append(run(campaign_id, code))
        med = {
            code: {
                key: statistics.median(r[key] for r in rs) for key in rs[0] if key != "judgments"
            }
            for code, rs in runs.items()
        }
        old, new = med["old"], med["new"]
        print(
            f"  {n:>9,} judgments: new {new['total']:.3f} s (load {new['load']:.3f}, compute "
            f"{new['compute']:.3f}), peak {new['peak']:.0f} MiB ({new['rss_before']:.0f} after "
            f"imports) | old {old['total']:.3f} s (load {old['load']:.3f}, compute "
            f"{old['compute']:.3f}), peak {old['peak']:.0f} MiB | CPU s (recompute / process "
            f"incl. imports / database): new {new['recompute_cpu']:.2f} / {new['cpu']:.2f} / "
            f"{new['db_cpu']:.2f}, old {old['recompute_cpu']:.2f} / {old['cpu']:.2f} / "
            f"{old['db_cpu']:.2f} | old/new "
            f"{old['total'] / new['total']:.1f}x time, {old['peak'] / new['peak']:.1f}x peak; "
            "runs new "
            + ", ".join(f"{r['total']:.2f}" for r in runs["new"])
            + " / old "
            + ", ".join(f"{r['total']:.2f}" for r in runs["old"])
        )
        rows.append((n, new["total"], new["peak"] - new["rss_before"]))
    if len(rows) > 1:
        print(
            "  growth (new): "
            + ", ".join(
                f"{n:,}: {1e6 * t / n:.2f} s per million, +{m:.0f} MiB over imports"
                for n, t, m in rows
            )
        )
    print(f"  load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--workers", type=int, default=500)
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument("--redundancy", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="Keep the campaign (DATABASE_URL).")
    parser.add_argument("--rounds", type=int, default=3, help="Fresh-process runs per code.")
    parser.add_argument("--campaign", help="Only compare, on these kept campaigns (ids, a,b).")
    parser.add_argument(
        "--baseline",
        help="Alternate with this commit's whole tree instead of bench/da_baseline_code.py "
        "(e.g. the commit before a change, to measure that change alone).",
    )
    parser.add_argument("--measure-one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--code", choices=("new", "old"), default="new", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_one:
        measure_one(args.measure_one, args.code)
        return
    if args.campaign:
        import django

        django.setup()
        compare([int(pk) for pk in args.campaign.split(",")], args.rounds, args.baseline)
        return
    if args.judgments % (100 * args.redundancy):
        parser.error("--judgments must be a multiple of 100 x --redundancy")

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        from django.conf import settings

        temporary_db = not os.environ.get("DATABASE_URL")
        if temporary_db:
            settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
        # Inline and quiet: this measures the computation, not a broker; no signal fires here.
        settings.CELERY_TASK_ALWAYS_EAGER = True

        import django

        django.setup()
        import logging

        logging.getLogger("analytics").setLevel(logging.WARNING)
        logging.getLogger("campaigns").setLevel(logging.WARNING)
        from django.core.management import call_command
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from analytics import actions
        from analytics.kinds.direct_assessment import actions as da_actions
        from analytics.kinds.direct_assessment.loading import load_da_judgments
        from analytics.kinds.direct_assessment.panel import da_results_context
        from analytics.models import SystemScore, WorkerStat
        from judgments.models import Worker

        if temporary_db:
            call_command("migrate", verbosity=0)
        tag = uuid.uuid4().hex[:8]
        clock = Clock()
        campaign, info = build(args, tag)
        generated = clock()
        try:
            database = connection.vendor + (
                f" {connection.Database.sqlite_version} (temporary file)"
                if connection.vendor == "sqlite" and temporary_db
                else f" {connection.pg_version // 10000}"
                if connection.vendor == "postgresql"
                else ""
            )
            print(f"database:      {database}")
            print(
                f"campaign:      {args.systems} systems, {info['segments']:,} segments, "
                f"{info['outputs']:,} outputs, {info['hits']} HITs x 100 slots "
                f"({info['slots']:,}), redundancy {args.redundancy}"
            )
            print(
                f"work:          {args.workers} workers ({info['random_workers']} random "
                f"clickers, {5} excluded), {info['assignments']:,} assignments "
                f"({REJECTED_SHARE:.0%} rejected), {info['judgments']:,} judgments; "
                f"built in {generated:.1f} s"
            )

            clock()
            with CaptureQueriesContext(connection) as queries:
                loaded = load_da_judgments(campaign.pk)
            load_s = clock()
            analysis = da_actions.analyse_loaded(loaded, da_actions.da_config_for(campaign))
            compute_s = clock()
            from django.utils import timezone

            da_actions.store_results(campaign, loaded, analysis, timezone.now())
            store_s = clock()
            print(f"load:          {load_s:.3f} s  ({len(queries)} queries, {len(loaded):,} rows)")
            print(f"compute:       {compute_s:.3f} s")
            n_worker_rows = WorkerStat.objects.filter(campaign=campaign).count()
            n_system_rows = SystemScore.objects.filter(campaign=campaign).count()
            print(
                f"store:         {store_s:.3f} s  ({n_worker_rows} worker rows, "
                f"{n_system_rows} system rows)"
            )
            print(f"sum:           {load_s + compute_s + store_s:.3f} s")

            totals = []
            for _ in range(3):
                clock()
                result = actions.recompute_campaign(campaign)
                totals.append(clock())
            print(
                "total:         recompute_campaign end to end, rows replaced: "
                + ", ".join(f"{t:.3f}" for t in totals)
                + " s"
            )

            clock()
            with CaptureQueriesContext(connection) as queries:
                context = da_results_context(campaign, include_unreliable=False)
            panel_s = clock()
            print(
                f"admin panel:   {panel_s:.3f} s ({len(queries)} queries, "
                f"{len(context['workers'])} worker rows)"
            )
            clock()
            stale = list(actions.stale_campaigns().values_list("pk", flat=True))
            sweep_s = clock()
            print(f"sweep query:   {sweep_s:.3f} s (stale campaigns: {len(stale)})")

            reliable = WorkerStat.objects.filter(campaign=campaign, reliable=True).count()
            print(
                f"results:       {reliable} of {result.n_workers} workers reliable; "
                f"{result.n_scored_judgments:,} judgments in scores; "
                f"{result.compute_seconds:.3f} s load+compute in the last recompute"
            )
            top = (
                SystemScore.objects.filter(campaign=campaign, include_unreliable=False)
                .select_related("system")
                .order_by("position")
            )
            print(
                "ranking:       "
                + ", ".join(f"{s.system.name} {s.mean_z:+.3f} (c{s.cluster})" for s in top)
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
                compare([campaign.pk], args.rounds, args.baseline)
        finally:
            if not temporary_db and not args.keep:
                clock()
                campaign.delete()
                Worker.objects.filter(external_id__startswith=f"bench-{tag}-").delete()
                print(f"cleanup:       {clock():.1f} s")


if __name__ == "__main__":
    main()
