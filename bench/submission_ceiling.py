#!/usr/bin/env python
"""What this machine allows a submission (issue 16, item 1): evalsite beside three apps that
do less, alternated in one run, so that the 1,000 judgments/s target can be read against what
the machine itself does.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_g \\
    REDIS_URL=redis://127.0.0.1:6379/15 \\
        .venv/bin/python bench/submission_ceiling.py [--rounds 3] [--workers 60] \\
            [--items 100] [--clients 2x12] [--gunicorn 3x4] [--warmup 24]

Four apps under the same gunicorn settings (deploy/web.sh's 3 gthread workers x 4 threads,
access log on), on loopback, with the real Celery worker (deploy/worker.sh) recomputing:

- ``evalsite``: the product, as bench/submissions.py measures it (worker link, item, one POST
  per item of a 100-item DA HIT);
- ``lean``: the same HITs, but each POST handled by bench/ceiling_apps/lean_submit.py:
  evalsite's own SQL (its prepared read and one-statement write) and recompute signal with
  the leanest Python and no Django request cycle. An upper bound of what any Python over
  evalsite's database work could reach here;
- ``bare``: bench/bare_app, a Django view doing one INSERT (the issue's comparison);
- ``raw``: bench/ceiling_apps/raw_insert.py, the same INSERT with no framework at all.

Each round runs the four in turn (the order rotates from round to round), the two INSERT apps
as many requests as evalsite stored judgments. It prints each app's rate, p50/p99 of its POSTs
and its CPU (gunicorn's, PostgreSQL's) per stored judgment or row (a HIT app's link and item
requests counted in), then the medians and the ratios, and at the end
checks that every judgment and every row was stored exactly once (exit status 1 if not).
The database is built as bench/submissions.py builds it (``--step=build``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import submissions as bench  # noqa: E402 (the path above first): the stack, the load

APPS = ("evalsite", "lean", "bare", "raw")
HIT_APPS = ("evalsite", "lean")  # the others store one row a request
MODULES = {
    "evalsite": "evalsite.wsgi:application",
    "lean": "ceiling_apps.lean_submit:application",
    "bare": "bare_app.wsgi:application",
    "raw": "ceiling_apps.raw_insert:application",
}
# The INSERT apps' values: each app its own range, none below the warm-up's (10**9 up).
VALUE_BASE = {"bare": 0, "raw": 5 * 10**8}


def order_of(round_number: int) -> list[str]:
    """The apps' order in a round: rotated by one each round, so none always runs first."""
    shift = round_number % len(APPS)
    return [*APPS[shift:], *APPS[:shift]]


def measure(executor, name, port, pid, jobs, processes, threads) -> dict:
    """One app's share of a round: the load, its rate and CPU per stored request."""
    kind = "evalsite" if name in HIT_APPS else "bare"
    cpu, db_cpu = bench.cpu_seconds(pid), bench.database_cpu_seconds()
    result = bench.run_load(executor, kind, port, jobs, processes, threads)
    stored = max(result["stored"], 1)
    result["rate"] = result["stored"] / result["wall"]
    result["cpu"] = (bench.cpu_seconds(pid) - cpu) / stored * 1000
    result["db"] = (bench.database_cpu_seconds() - db_cpu) / stored * 1000
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=60, help="simulated workers per round")
    parser.add_argument("--items", type=int, default=100, help="items per DA HIT")
    parser.add_argument("--clients", default="2x12", help="processes x threads")
    parser.add_argument("--gunicorn", default=bench.GUNICORN_DEFAULT)
    parser.add_argument("--warmup", type=int, default=24, help="HITs per HIT app before the rounds")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")) or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL (a PostgreSQL database of its own) and REDIS_URL")
    processes, threads = (int(n) for n in args.clients.split("x"))
    pieces = processes * threads * 4
    bench.ensure_database(url)

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-ceiling-") as tmp:
        logs = Path(tmp)
        # The bench's folder first: the comparison apps (bare_app, ceiling_apps) live there.
        env = bench.stack_env(logs, pythonpath=f"{ROOT / 'bench'}{os.pathsep}{ROOT}")
        app_env = {name: env for name in APPS}
        app_env["bare"] = {**env, "DJANGO_SETTINGS_MODULE": "bare_app.settings"}
        for settings, command in (
            ("bare_app.settings", "migrate"),
            ("evalsite.settings", "collectstatic"),
        ):
            subprocess.run(
                [sys.executable, "-m", "django", command, "--noinput", "--verbosity", "0"],
                env={**env, "DJANGO_SETTINGS_MODULE": settings},
                cwd=ROOT,
                check=True,
            )
        per_app = args.rounds * args.workers + args.warmup
        hits = per_app * len(HIT_APPS)
        built = bench.run_child(env, "--step=build", f"--hits={hits}", f"--items={args.items}")
        links = {"evalsite": built["links"][:per_app], "lean": built["links"][per_app:]}
        worker = bench.start(
            [str(ROOT / "deploy" / "worker.sh"), "--concurrency=1", "--without-gossip"],
            env,
            logs / "worker.log",
        )
        ports, servers = {}, {}
        for name in APPS:
            ports[name] = bench.free_port()
            servers[name] = bench.start(
                [
                    "gunicorn",
                    MODULES[name],
                    "--bind",
                    f"127.0.0.1:{ports[name]}",
                    *bench.gunicorn_args(args.gunicorn),
                    "--access-logfile",
                    "-",
                ],
                app_env[name],
                logs / f"{name}.log",
            )
        failed = False
        try:
            for name in APPS:
                bench.wait_port(ports[name], servers[name], logs / f"{name}.log")
            time.sleep(2)
            print(
                f"DA HITs of {args.items} items, {args.workers} simulated workers a round per "
                f"HIT app, {processes}x{threads} clients, gunicorn {args.gunicorn}"
            )
            results: dict[str, list[dict]] = {name: [] for name in APPS}
            with ProcessPoolExecutor(processes) as executor:
                # Warm-up, not measured: every thread's connection open, statements prepared,
                # the Celery worker past its first read of the campaign.
                warm = {}
                for name in HIT_APPS:
                    share = links[name][args.rounds * args.workers :]
                    warm[name] = bench.run_load(
                        executor,
                        "evalsite",
                        ports[name],
                        list(enumerate(share)),
                        processes,
                        threads,
                    )
                total = max(warm["evalsite"]["stored"], 1)
                for name in ("bare", "raw"):
                    warm[name] = bench.run_load(
                        executor,
                        "bare",
                        ports[name],
                        bench.value_jobs(10**9 + VALUE_BASE[name], total, pieces),
                        processes,
                        threads,
                    )
                for name, result in warm.items():
                    if result["errors"]:
                        failed = True
                        print(
                            f"  warm-up {name}: {len(result['errors'])} errors, first: "
                            f"{result['errors'][0]}"
                        )
                print(
                    f"{'round':>5}  {'app':<8} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
                    f"{'gunicorn ms/r':>14} {'PostgreSQL ms/r':>16}  load"
                )
                inserted = dict.fromkeys(("bare", "raw"), 0)
                for number in range(args.rounds):
                    for name in order_of(number):
                        if name in HIT_APPS:
                            share = links[name][number * args.workers : (number + 1) * args.workers]
                            jobs = [
                                (number * args.workers + i, link) for i, link in enumerate(share)
                            ]
                        else:
                            # As many requests as a HIT app's round stores.
                            count = args.workers * args.items
                            jobs = bench.value_jobs(
                                VALUE_BASE[name] + inserted[name], count, pieces
                            )
                            inserted[name] += count
                        result = measure(
                            executor,
                            name,
                            ports[name],
                            servers[name].pid,
                            jobs,
                            processes,
                            threads,
                        )
                        results[name].append(result)
                        print(
                            f"{number + 1:>5}  {name:<8} {result['rate']:>7,.0f} "
                            f"{result['p50']:>7.1f} {result['p99']:>7.1f} {result['cpu']:>14.2f} "
                            f"{result['db']:>16.2f}  {os.getloadavg()[0]:.2f}",
                            flush=True,
                        )
                        if result["errors"]:
                            failed = True
                            print(f"  {len(result['errors'])} errors, first: {result['errors'][0]}")
            median = {
                name: {
                    key: statistics.median(r[key] for r in rows)
                    for key in ("rate", "p50", "p99", "cpu", "db")
                }
                for name, rows in results.items()
            }
            print("median:")
            for name in APPS:
                m = median[name]
                print(
                    f"  {name:<8} {m['rate']:>7,.0f}/s  p50 {m['p50']:.1f} ms  "
                    f"p99 {m['p99']:.1f} ms"
                    f"  CPU a request: gunicorn {m['cpu']:.2f} ms, PostgreSQL {m['db']:.2f} ms"
                )
            rate = {name: median[name]["rate"] for name in APPS}
            print(
                f"evalsite: {rate['evalsite'] / rate['bare']:.1%} of bare, "
                f"{rate['evalsite'] / rate['raw']:.1%} of raw; "
                f"lean (evalsite's SQL, no Django): {rate['lean'] / rate['bare']:.1%} of bare, "
                f"{rate['lean'] / rate['raw']:.1%} of raw; bare: {rate['bare'] / rate['raw']:.1%}"
                f" of raw; load average {os.getloadavg()}"
            )
            counts = bench.run_child(env, "--step=count", f"--campaign={built['campaign']}")
            if not bench.counts_right(counts, hits, args.items, inserted["bare"] + inserted["raw"]):
                failed = True
        finally:
            for process in (*servers.values(), worker):
                bench.stop(process)
        if failed:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
