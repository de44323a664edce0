#!/usr/bin/env python
"""Freshness of the stored results under load (issue 16 item 3): how long after a judgment's
submission the stored results reflect it, on a campaign of a million DA judgments receiving
200 judgments a second, the previous scheduling alternated with the incremental one.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_d_bench \\
    REDIS_URL=redis://127.0.0.1:6379/11 \\
        .venv/bin/python bench/freshness.py [--judgments 1000000] [--campaign ID] \\
            [--rate 200] [--warmup 90] [--seconds 40] [--rounds 2] \\
            [--modes full:5,incremental:1,incremental:0] [--clients 2x40] [--clients-nice 0] \\
            [--baseline-commit SHA]

The parent (no Django) creates the database if missing; a child migrates it and builds the
campaign (bench/freshness_build.py: HITs as production builds them, the judgments by COPY;
``--campaign`` reuses one kept from an earlier run) and makes fresh workers for the load.
Each phase then starts the real stack with the phase's settings, on loopback only: evalsite
under gunicorn as deploy/web.sh runs it, a Celery worker (deploy/worker.sh) and beat
(deploy/beat.sh, the sweep), all on PostgreSQL and Redis, and runs the load: simulated
workers doing DA HITs through the real endpoints (worker link, item, one submit per item),
paced to ``--rate`` submissions a second in all (open loop: a client that falls behind sends
at once, so the rate is bounded).

Modes: ``full:W``, the previous scheduling (ANALYTICS_INCREMENTAL=0: every recompute reads and
computes the whole campaign) with a coalescing window of W seconds (5, the default before);
``incremental:W``, the worker keeps the campaign's arrays and reads what is new
(analytics.incremental), window W (ANALYTICS_INCREMENTAL_COUNTDOWN; the default is 0);
``incremental:W:S``, the same with runs at least S ms apart (ANALYTICS_INCREMENTAL_SPACING_MS;
the default is 1000), so that spacings alternate in one sitting.

Freshness: a thread polls the stored result's ``computed_at`` (when its judgments were read;
taken before reading) every 20 ms. A submission is reflected by the first stored result read
after its response arrived (its judgment committed before); its delay is from sending the
submit to seeing that result (an overestimate by at most the request's own latency).
Submissions of the first ``--warmup`` seconds of each phase are not sampled (the worker's
first recompute reads everything: about 50 s at 1M on a loaded machine); after
``--seconds`` of sampling the load stops and the bench waits for the results to catch up.

``--baseline-commit SHA``: every mode runs twice a round, with the stack of the current tree
("head") and, alternately, with that commit's (``git archive``: its web, worker and beat; its
numba kernels compiled first, untimed), so that a session's change is measured against its
start in the same sitting. Before each phase the bench empties its Redis database (tasks,
flags, counters of the phase before) and, once, collects the static files as deploy/web.sh
does (DEBUG=0 pages with static files fail without the manifest).

Printed per phase: submissions a second reached, delay p50/p95/max, recomputes stored, the
Celery worker's CPU seconds per second of load (the window vs CPU trade-off) and its process's
peak RSS; from the worker's log, the CPU and wall seconds of each incremental run from the
cached arrays (p50/p95: CPU per run is what a loaded machine changes least), the full reads in
the sampled window and how many pool processes recomputed (each keeps its own cache); then
medians per mode over the rounds and their ratios to the first mode, with the load average.
The exit status is 1 if an answer was an error or a sampled submission was never reflected.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import submissions  # noqa: E402 (the path above first)
from bench.submissions import (  # noqa: E402
    Client,
    cpu_seconds,
    ensure_database,
    free_port,
    stack_env,
    start,
    stop,
    wait_port,
)
from bench.trees import commit_tree  # noqa: E402

# deploy/web.sh's gunicorn settings, as the submissions bench runs them.
GUNICORN_ARGS = submissions.GUNICORN_ARGS

POLL_SECONDS = 0.02
ITEMS_PER_HIT = 100


# --- the child: database set-up (Django) ------------------------------------------------------


def child(args: argparse.Namespace) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    import logging

    logging.getLogger("campaigns").setLevel(logging.WARNING)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    if args.step == "build":
        from bench.freshness_build import build_campaign

        built = build_campaign(args.judgments, load_workers=0)
        built.pop("links")
        print(json.dumps(built))
        return
    from campaigns.models import Campaign
    from judgments import tokens
    from judgments.models import Worker

    campaign = Campaign.objects.get(pk=args.campaign)
    # Earlier phases' load workers stopped mid-HIT: their started assignments would hold their
    # HITs until their deadline (hours); expire them now, as the deadline would, so that the
    # HITs return to the pool and a kept campaign serves bench after bench.
    from django.utils import timezone

    from judgments.actions.membership import expire_abandoned_assignments
    from judgments.models import Assignment, AssignmentStatus

    Assignment.objects.filter(
        campaign=campaign,
        status=AssignmentStatus.STARTED,
        worker__external_id__startswith=f"fresh-load-{campaign.pk}-",
    ).update(expires_at=timezone.now())
    expire_abandoned_assignments(campaign=campaign)
    # Each load worker takes a HIT place of its own, and a kept campaign's places run out after
    # some runs: say so rather than measure a load whose workers find no task.
    from django.db.models import Count, Q

    from judgments.models import LIVE_ASSIGNMENT_STATUSES

    hits = campaign.hits.filter(is_qualification=False).annotate(
        live=Count("assignments", filter=Q(assignments__status__in=LIVE_ASSIGNMENT_STATUSES))
    )
    left = sum(max((hit.places or campaign.redundancy) - hit.live, 0) for hit in hits)
    if left < args.n:
        raise SystemExit(
            f"campaign {campaign.pk} has {left:,} HIT places left for new workers and a phase "
            f"needs {args.n:,}: build a new campaign (leave out --campaign)"
        )
    stamp = int(time.time())
    workers = Worker.objects.bulk_create(
        Worker(platform="direct", external_id=f"fresh-load-{campaign.pk}-{stamp}-{n}")
        for n in range(args.n)
    )
    links = [f"/work/w/{tokens.worker_token(w.pk, campaign.pk)}/" for w in workers]
    print(json.dumps({"links": links, "judgments": campaign.judgments.count()}))


def run_child(env: dict, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *extra], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{extra} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the load (no Django) ---------------------------------------------------------------------


def load_process(
    port: int,
    links: list[str],
    threads: int,
    rate: float,
    until: float,
    stagger: float,
    niceness: int = 0,
) -> dict:
    """``threads`` simulated workers, each paced to ``rate`` submissions a second until the
    wall clock reaches ``until``; each does HITs from ``links`` (one link, one HIT).
    ``niceness``: this process's (``--clients-nice``)."""
    if niceness:
        os.nice(niceness)
    lock = threading.Lock()
    queue = list(reversed(links))
    out: dict = {"samples": [], "errors": [], "links_used": 0}

    def next_link() -> str | None:
        with lock:
            if not queue:
                return None
            out["links_used"] += 1
            return queue.pop()

    def run(seed: int) -> None:
        try:
            simulate(seed)
        except Exception as error:  # a timeout or a closed connection: counted, not hidden
            out["errors"].append(repr(error))

    def simulate(seed: int) -> None:
        client = Client(port)
        rng = random.Random(seed)
        interval = 1.0 / rate
        # Clients start spread over the first seconds, not all at one hand-out.
        time.sleep(rng.random() * stagger)
        due = time.time() + rng.random() * interval
        while time.time() < until:
            link = next_link()
            if link is None:
                out["errors"].append("out of worker links")
                return
            status, response, _, _ = client.request("GET", link)
            if status != 302:
                out["errors"].append(f"link {status}")
                return
            task = urllib.parse.urlsplit(response.getheader("Location")).path
            status, _, data, _ = client.request("GET", task + "item")
            body = json.loads(data)
            if status != 200 or not body["ok"]:
                out["errors"].append(f"item {status} {data[:200]!r}")
                return
            while body["next"] is not None and time.time() < until:
                pause = due - time.time()
                if pause > 0:
                    time.sleep(pause)
                due = max(due + interval, time.time() - interval)  # open loop, bounded
                score = rng.randint(0, 100)
                payload = json.dumps({"position": body["next"]["position"], "score": score})
                sent = time.time()
                status, _, data, _ = client.request("POST", task + "submit", payload.encode())
                received = time.time()
                body = json.loads(data)
                if status != 200 or not body["ok"] or body.get("already_recorded"):
                    out["errors"].append(f"submit {status} {data[:200]!r}")
                    return
                out["samples"].append((sent, received))

    cpu = time.process_time()
    pool = [threading.Thread(target=run, args=(seed,)) for seed in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    # The load generator's own CPU (it shares the machine with what it measures).
    out["cpu"] = time.process_time() - cpu
    return out


class Poller(threading.Thread):
    """Polls the campaign's stored result; ``seen`` is (wall time seen, computed_at, n)."""

    def __init__(self, url: str, campaign: int) -> None:
        super().__init__(daemon=True)
        import psycopg2

        self.connection = psycopg2.connect(url)
        self.connection.autocommit = True
        self.campaign = campaign
        self.seen: list[tuple[float, float, int]] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        last = None
        with self.connection.cursor() as cursor:
            while not self.stopped.is_set():
                cursor.execute(
                    "SELECT computed_at, n_judgments FROM analytics_campaignresult"
                    " WHERE campaign_id = %s",
                    [self.campaign],
                )
                row = cursor.fetchone()
                if row is not None and row[0] != last:
                    last = row[0]
                    self.seen.append((time.time(), row[0].timestamp(), row[1]))
                time.sleep(POLL_SECONDS)
        self.connection.close()

    def latest_read_at(self) -> float:
        return self.seen[-1][1] if self.seen else 0.0


def delays(samples: list[tuple[float, float]], seen: list) -> tuple[list[float], int]:
    """Each sample's delay until a stored result read after its response; and how many
    were never reflected."""
    out, missing = [], 0
    for sent, received in samples:
        for observed, read_at, _ in seen:
            if read_at >= received:
                out.append(observed - sent)
                break
        else:
            missing += 1
    return out, missing


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)] if ordered else float("nan")


def peak_rss_mib(pid: int) -> float:
    """The highest VmHWM of a process tree (the Celery prefork children do the work)."""
    peak = 0.0
    pids = [pid]
    for one in list(pids):
        try:
            pids += [int(c) for c in Path(f"/proc/{one}/task/{one}/children").read_text().split()]
        except OSError:
            pass
    for one in pids:
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak = max(peak, int(line.split()[1]) / 1024)
        except OSError:
            pass
    return peak


RUN_LINE = re.compile(
    r"(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*?(?P<process>ForkPoolWorker-\d+|MainProcess)"
    r".*Recomputed campaign \d+ from (?P<source>a full read|the cached arrays).*? in "
    r"(?P<wall>[\d.]+)s \(reading [\d.]+s\), (?P<cpu>[\d.]+) CPU s"
)


def worker_runs(log: Path, since: float, until: float) -> dict:
    """The incremental runs the Celery worker logged between ``since`` and ``until`` (wall
    clock): CPU seconds and wall seconds of each run from the cached arrays, the full reads, and
    how many pool processes ran recomputes (each keeps its own cache)."""
    cached_cpu, cached_wall, full_reads, processes = [], [], 0, set()
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        match = RUN_LINE.search(line)
        if match is None:
            continue
        at = datetime.strptime(match["at"], "%Y-%m-%d %H:%M:%S,%f").timestamp()
        processes.add(match["process"])
        if not since <= at <= until:
            continue
        if match["source"] == "a full read":
            full_reads += 1
        else:
            cached_cpu.append(float(match["cpu"]))
            cached_wall.append(float(match["wall"]))
    return {
        "cpu": cached_cpu,
        "wall": cached_wall,
        "full_reads": full_reads,
        "processes": len(processes),
    }


def print_row(number: int, row: dict, judgments: int) -> None:
    d, runs = row["delays"], row["runs"]
    print(
        f"{number + 1:>5}  {row['mode']:<19}  {judgments:>9,}  "
        f"{row['rate']:>6.0f}  {percentile(d, 0.5):>5.2f}  {percentile(d, 0.95):>5.2f}"
        f"  {max(d, default=float('nan')):>5.2f}  {row['missing']:>7}  "
        f"{row['recomputes']:>10}  {row['worker_cpu']:>12.2f}  {row['web_cpu']:>9.2f}"
        f"  {row['worker_peak']:>15.0f}  {os.getloadavg()[0]:.2f}\n"
        f"         runs: CPU {percentile(runs['cpu'], 0.5):.3f}/{percentile(runs['cpu'], 0.95):.3f}"
        f" s, wall {percentile(runs['wall'], 0.5):.2f}/{percentile(runs['wall'], 0.95):.2f} s, "
        f"{runs['full_reads']} full reads, {runs['processes']} process(es); the load "
        f"generator's CPU {row['clients_cpu']:.2f} s/s",
        flush=True,
    )


def warm(port: int) -> None:
    """A few requests, so that every gunicorn worker has imported the app and connected."""
    deadline = time.time() + 120
    answered = 0
    while answered < 6 and time.time() < deadline:
        try:
            status, _, _, _ = Client(port).request("GET", "/healthz")
            answered += status in (200, 503)
        except OSError:
            time.sleep(0.5)


def run_phase(
    args,
    env: dict,
    campaign: int,
    mode: str,
    window: int,
    links: list,
    tmp: Path,
    tree: Path,
    spacing: int | None = None,
):
    """One phase: the stack of ``tree`` (ROOT, or the baseline commit's tree) under load;
    ``spacing``: ANALYTICS_INCREMENTAL_SPACING_MS (None: the settings' default)."""
    phase_env = {
        **env,
        "PYTHONPATH": str(tree),
        "ANALYTICS_INCREMENTAL": "1" if mode == "incremental" else "0",
        "ANALYTICS_RECOMPUTE_COUNTDOWN": str(window),
        "ANALYTICS_INCREMENTAL_COUNTDOWN": str(window),
    }
    label = f"{mode}:{window}" if spacing is None else f"{mode}:{window}:{spacing}"
    if spacing is not None:
        phase_env["ANALYTICS_INCREMENTAL_SPACING_MS"] = str(spacing)
    # Nothing left from the phase before in the bench's Redis database (its own: REDIS_URL):
    # queued or countdown tasks, coalescing flags, the run counter and turns.
    import redis

    redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    port = free_port()
    code = "base" if tree != ROOT else "head"
    logs = tmp / f"{label.replace(':', '-')}-{code}-{int(time.time())}"
    logs.mkdir()
    worker_args = [str(tree / "deploy" / "worker.sh"), "--without-gossip", "--without-mingle"]
    if args.worker_concurrency:
        worker_args.append(f"--concurrency={args.worker_concurrency}")
    worker = start(worker_args, phase_env, logs / "worker.log")
    beat = start(
        [str(tree / "deploy" / "beat.sh"), "--schedule", str(logs / "beat-schedule")],
        phase_env,
        logs / "beat.log",
    )
    web = start(
        [
            "gunicorn",
            "evalsite.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--chdir",
            str(tree),
            *GUNICORN_ARGS,
            "--access-logfile",
            "/dev/null",
        ],
        phase_env,
        logs / "web.log",
    )
    poller = Poller(env["DATABASE_URL"], campaign)
    try:
        wait_port(port, web, logs / "web.log")
        warm(port)
        poller.start()
        processes, threads = (int(n) for n in args.clients.split("x"))
        per_client = args.rate / (processes * threads)
        started = time.time()
        sample_from = started + args.warmup
        until = sample_from + args.seconds
        cpu_worker = None
        with ProcessPoolExecutor(processes) as executor:
            futures = [
                executor.submit(
                    load_process,
                    port,
                    links[i::processes],
                    threads,
                    per_client,
                    until,
                    args.warmup / 3,
                    args.clients_nice,
                )
                for i in range(processes)
            ]
            time.sleep(max(sample_from - time.time(), 0))
            cpu_worker, cpu_web = cpu_seconds(worker.pid), cpu_seconds(web.pid)
            results = [future.result() for future in futures]
        ended = time.time()
        cpu_worker = cpu_seconds(worker.pid) - cpu_worker
        cpu_web = cpu_seconds(web.pid) - cpu_web
        samples = [
            s for result in results for s in result["samples"] if sample_from <= s[0] < until
        ]
        errors = [e for result in results for e in result["errors"]]
        last_received = max((s[1] for s in samples), default=0.0)
        deadline = time.time() + args.drain
        while poller.latest_read_at() < last_received and time.time() < deadline:
            time.sleep(0.2)
        poller.stopped.set()
        poller.join()
        measured = delays(samples, poller.seen)
        in_window = [s for s in poller.seen if sample_from <= s[0] <= ended + 1]
        used = sum(result["links_used"] for result in results)
        return {
            "mode": label,
            "rate": len(samples) / args.seconds,
            "delays": measured[0],
            "missing": measured[1],
            "errors": errors,
            "recomputes": len(in_window),
            "worker_cpu": cpu_worker / max(ended - sample_from, 1e-9),
            "web_cpu": cpu_web / max(ended - sample_from, 1e-9),
            "clients_cpu": sum(result["cpu"] for result in results) / max(ended - started, 1e-9),
            "worker_peak": peak_rss_mib(worker.pid),
            "links_used": used,
            "logs": logs,
            "runs": worker_runs(logs / "worker.log", sample_from, ended),
        }
    finally:
        poller.stopped.set()
        for process in (web, beat, worker):
            stop(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--campaign", type=int, help="reuse a campaign kept from a run")
    parser.add_argument("--rate", type=float, default=200.0, help="submissions a second")
    parser.add_argument("--warmup", type=float, default=90.0)
    parser.add_argument("--seconds", type=float, default=40.0, help="sampled seconds a phase")
    parser.add_argument("--drain", type=float, default=90.0, help="longest wait to catch up")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default="full:5,incremental:1,incremental:0")
    parser.add_argument("--clients", default="2x40", help="processes x threads")
    parser.add_argument(
        "--clients-nice",
        type=int,
        default=0,
        help="run the load generator's processes at this niceness: in production the crowd's "
        "browsers are not on the server, here they share its two cores (0: as the stack)",
    )
    parser.add_argument("--worker-concurrency", type=int, help="default: deploy/worker.sh's")
    parser.add_argument("--logs", help="keep the servers' logs in this directory")
    parser.add_argument(
        "--baseline-commit",
        help="alternate every mode with the stack (web, worker, beat) of this commit's tree",
    )
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        child(args)
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")) or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL (a PostgreSQL database of its own) and REDIS_URL")
    ensure_database(url)
    modes = [_mode(m) for m in args.modes.split(",")]
    if any(mode not in ("full", "incremental") for mode, _, _ in modes):
        parser.error("modes are full:W, incremental:W or incremental:W:S")

    trees = [("head", ROOT)]
    if args.baseline_commit:
        trees.append(("base", baseline_tree(args.baseline_commit)))
    run_all(args, url, modes, trees)  # the baseline's tree is removed at exit


def _mode(text: str) -> tuple[str, int, int | None]:
    """``full:W``, ``incremental:W`` or ``incremental:W:S`` (S: the spacing in ms)."""
    parts = text.split(":")
    return parts[0], int(parts[1]), int(parts[2]) if len(parts) > 2 else None


def baseline_tree(commit: str) -> Path:
    """The commit's tree as it was (git archive), its numba kernels compiled once (untimed)."""
    tree = commit_tree(commit, "freshness-baseline-")
    compile_kernels = tree / "deploy" / "compile_kernels.py"
    if compile_kernels.exists():
        subprocess.run(
            [sys.executable, str(compile_kernels)],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            check=True,
            capture_output=True,
        )
    return tree


def run_all(args, url: str, modes: list, trees: list) -> None:
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-freshness-") as tmp:
        env = stack_env(Path(tmp))
        # As deploy/web.sh does before gunicorn: with DEBUG=0 a page whose template names a
        # static file (the message page of a link with no task left) fails without the manifest.
        subprocess.run(
            [sys.executable, "-m", "django", "collectstatic", "--noinput", "-v0"],
            env=env,
            cwd=ROOT,
            check=True,
        )
        campaign = args.campaign
        if campaign is None:
            built = run_child(env, "--step=build", f"--judgments={args.judgments}")
            campaign = built["campaign"]
            print(f"built campaign {campaign}: {built}")
        # Every submission of a phase needs a HIT slot: one link does one 100-item HIT.
        per_phase = int(args.rate * (args.warmup + args.seconds) / ITEMS_PER_HIT * 1.3) + 100
        print(
            f"campaign {campaign}; load {args.rate:g} submissions/s through the real endpoints "
            f"({args.clients} clients, niceness {args.clients_nice}), {args.warmup:g} s warm-up"
            f" + {args.seconds:g} s sampled a phase; gunicorn {' '.join(GUNICORN_ARGS)}; "
            f"Celery worker {args.worker_concurrency or 'default'} process(es) + beat"
        )
        print(
            "round  mode/code            judgments  rate/s  p50 s  p95 s  max s  missing  "
            "recomputes  worker CPU/s  web CPU/s  worker peak MiB  load"
        )
        print(
            "         incremental runs: CPU s per run p50/p95, wall s p50/p95, full reads, "
            "pool processes that recomputed"
        )
        rows: dict[str, list[dict]] = {}
        failed = False
        for number in range(args.rounds):
            for mode, window, spacing in modes:
                for code, tree in trees:
                    links = run_child(
                        env, "--step=links", f"--campaign={campaign}", f"--n={per_phase}"
                    )
                    logs = Path(args.logs) if args.logs else Path(tmp)
                    logs.mkdir(parents=True, exist_ok=True)
                    row = run_phase(
                        args, env, campaign, mode, window, links["links"], logs, tree, spacing
                    )
                    row["mode"] = f"{row['mode']} {code}"
                    rows.setdefault(row["mode"], []).append(row)
                    print_row(number, row, links["judgments"])
                    if row["errors"] or row["missing"]:
                        failed = True
                        first = row["errors"][0] if row["errors"] else "-"
                        print(
                            f"  {len(row['errors'])} errors (first: {first}); logs: {row['logs']}"
                        )
        print("\nmedian over rounds (p50/p95/max of each phase), ratio of p95 to the first mode's")
        base = None
        for name, phases in rows.items():
            p50 = statistics.median(percentile(r["delays"], 0.5) for r in phases)
            p95 = statistics.median(percentile(r["delays"], 0.95) for r in phases)
            worst = statistics.median(max(r["delays"], default=float("nan")) for r in phases)
            cpu = statistics.median(r["worker_cpu"] for r in phases)
            per_min = statistics.median(r["recomputes"] / args.seconds * 60 for r in phases)
            run_cpu = (
                statistics.median(
                    percentile(r["runs"]["cpu"], 0.5) for r in phases if r["runs"]["cpu"]
                )
                if any(r["runs"]["cpu"] for r in phases)
                else float("nan")
            )
            peak = max(r["worker_peak"] for r in phases)
            base = base or (p95, run_cpu)
            print(
                f"  {name:<19}  p50 {p50:5.2f} s  p95 {p95:5.2f} s  max {worst:5.2f} s  "
                f"({p95 / base[0]:.2f}x)  {per_min:4.1f} recomputes/min  worker CPU {cpu:.2f} s/s"
                f"  CPU per run {run_cpu:.3f} s ({run_cpu / base[1]:.2f}x)  peak {peak:.0f} MiB"
            )
        print(f"load average {os.getloadavg()}; {datetime.now().isoformat(timespec='seconds')}")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
