#!/usr/bin/env python
"""Submissions per second through the real endpoints (issue 16, item 1), side by side with a
bare one-INSERT Django view under the same gunicorn settings.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_g \\
    REDIS_URL=redis://127.0.0.1:6379/15 \\
        .venv/bin/python bench/submissions.py [--rounds 3] [--workers 60] [--items 100] \\
            [--clients 2x12] [--gunicorn 3x4] [--warmup 24] [--rate 0]

The parent (no Django) creates the database if missing, migrates it and builds a direct-
assessment campaign in a child process (redundancy 1; ``rounds x workers`` HITs of ``items``
items, one pseudonymous worker each). 100 items is the DA HIT of ../shared/METHODS.md and WMT,
so a HIT's hand-out and first item weigh on its judgments as they do in a campaign (with
``--items 20`` they were about a fifth of a HIT's CPU in one process, 10 ms of 50). Then it
starts the real stack: a Celery worker (deploy/worker.sh, so every judgment's recompute goes
through Redis), evalsite under gunicorn with deploy/web.sh's settings (3 gthread workers x 4
threads, access log on; ``--gunicorn`` tries other counts) and the bare app (bench/bare_app,
one view, one INSERT) under the same
settings, both on loopback only.

First, not measured, ``--warmup`` HITs (24) and as many bare requests as their judgments,
so that the rounds measure the steady state: every gunicorn thread's connection open with
its statements prepared, the Celery worker past its first full read of the campaign. Then
each round runs, alternately, (a) ``workers`` simulated workers doing their DA HIT through
the real endpoints (worker link -> redirect, item, one POST per item), at most
``clients`` (processes x threads) at a time, then (b) as many POSTs to the bare view as
(a) stored judgments, with the same pool. Each client sends its next request as soon as the
last is answered (closed loop: the rate is the most the stack takes, and the latencies
include the queue at that rate); ``--rate R`` paces both apps to R requests a second in all
(open loop, as crowd workers' submissions arrive), for the latencies at a load the machine
carries. A HIT is its 100 submissions plus its link and item requests, so R requests a
second are about 0.98 R judgments. It prints per round judgments/s (stored judgments
over the round's wall time, hand-out and item requests included), the submit requests'
p50/p99, the bare view's rate and p99, the ratio, gunicorn CPU per request and the load
average; then the medians, with the CPU per judgment and per bare request of gunicorn,
PostgreSQL and the load generator itself (its client processes share the two cores with what
they measure); at the end it counts the stored rows: every judgment exactly once (no loss, no
duplicate: one per (assignment, slot) and the exact total), no error response, every bare
row once. The exit status is 1 when a count or an answer is wrong.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CAMPAIGN_NAME = "bench-submissions"
# deploy/web.sh's defaults (WEB_CONCURRENCY x WEB_THREADS); --gunicorn tries others.
GUNICORN_DEFAULT = "3x4"


def gunicorn_args(shape: str) -> list[str]:
    """gunicorn's process and thread counts from "PROCESSESxTHREADS" (gthread, as deploy/web.sh)."""
    processes, threads = (int(n) for n in shape.split("x"))
    return ["--workers", str(processes), "--worker-class", "gthread", "--threads", str(threads)]


# What the other benches start gunicorn with: deploy/web.sh's settings.
GUNICORN_ARGS = gunicorn_args(GUNICORN_DEFAULT)


# --- the child: database set-up and counts (Django) ------------------------------------------


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()


def build(hits: int, items: int) -> dict:
    """Migrate, then a fresh DA campaign of ``hits`` HITs of ``items`` items and one worker
    per HIT; returns the campaign id and the workers' links."""
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import connection, transaction

    with connection.cursor() as cursor:  # the bare app's rows of an earlier run
        cursor.execute("TRUNCATE bare_app_row")

    from campaigns.kinds import new_campaign, save_campaign
    from campaigns.models import (
        Campaign,
        CampaignStatus,
        Document,
        Hit,
        HitSlot,
        HitTask,
        Output,
        Segment,
        System,
        TaskKind,
    )
    from judgments import tokens
    from judgments.models import Platform, Worker

    with transaction.atomic():
        campaign = new_campaign(
            kind=TaskKind.DIRECT_ASSESSMENT,
            settings={"assessment_mode": "adequacy"},
            name=f"{CAMPAIGN_NAME}-{int(time.time())}",
            title="Bench",
            source_language="cs",
            target_language="en",
            redundancy=1,
            status=CampaignStatus.DRAFT,
        ).campaign
        save_campaign(campaign)
        system = System.objects.create(campaign=campaign, name="sys")
        documents = Document.objects.bulk_create(
            Document(campaign=campaign, external_id=f"d{n}", position=n) for n in range(1, hits + 1)
        )
        segments = Segment.objects.bulk_create(
            Segment(
                campaign=campaign,
                document=document,
                external_id=f"s{i}",
                position=i,
                source=f"Zdroj {document.position}.{i}",
                references=[f"Reference {document.position}.{i}"],
            )
            for document in documents
            for i in range(1, items + 1)
        )
        outputs = Output.objects.bulk_create(
            Output(system=system, segment=segment, text=f"Output {segment.source}")
            for segment in segments
        )
        hit_rows = Hit.objects.bulk_create(
            Hit(campaign=campaign, task=HitTask.ASSESS, number=n, document=documents[n - 1])
            for n in range(1, hits + 1)
        )
        HitSlot.objects.bulk_create(
            HitSlot(
                hit=hit,
                position=i,
                segment=segments[(hit.number - 1) * items + i - 1],
                output=outputs[(hit.number - 1) * items + i - 1],
                shown_text=outputs[(hit.number - 1) * items + i - 1].text,
            )
            for hit in hit_rows
            for i in range(1, items + 1)
        )
        Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE)
        workers = Worker.objects.bulk_create(
            Worker(platform=Platform.DIRECT, external_id=f"bench-{campaign.pk}-{n}")
            for n in range(hits)
        )
    links = [f"/work/w/{tokens.worker_token(worker.pk, campaign.pk)}/" for worker in workers]
    return {"campaign": campaign.pk, "links": links}


def count(campaign_id: int) -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(DISTINCT (assignment_id, slot_id)) FROM judgments_judgment"
            " WHERE campaign_id = %s",
            [campaign_id],
        )
        judgments, distinct = cursor.fetchone()
        cursor.execute(
            "SELECT count(*) FROM judgments_assignment WHERE campaign_id = %s"
            " AND status = 'submitted'",
            [campaign_id],
        )
        (submitted,) = cursor.fetchone()
        cursor.execute(
            "SELECT count(*), count(DISTINCT value) FROM bare_app_row WHERE value < %s",
            [10**9],  # not the warm-up's rows
        )
        bare, bare_distinct = cursor.fetchone()
    return {
        "judgments": judgments,
        "distinct": distinct,
        "submitted": submitted,
        "bare": bare,
        "bare_distinct": bare_distinct,
    }


def counts_right(counts: dict, hits: int, items: int, rows: int) -> bool:
    """Print what ``count`` found against what the load sent (every HIT's ``items`` judgments
    and ``rows`` one-INSERT requests, each stored exactly once); False if anything is lost or
    doubled."""
    expected = hits * items
    print(
        f"stored: {counts['judgments']:,} judgments ({counts['distinct']:,} distinct "
        f"(assignment, slot); expected {expected:,}), {counts['submitted']:,} of {hits:,} "
        f"assignments submitted; one-INSERT rows {counts['bare']:,} "
        f"({counts['bare_distinct']:,} distinct; expected {rows:,})"
    )
    right = (
        counts["judgments"] == counts["distinct"] == expected
        and counts["submitted"] == hits
        and counts["bare"] == counts["bare_distinct"] == rows
    )
    if not right:
        print("FAILED: lost or duplicated judgments or rows")
    return right


def child(args: argparse.Namespace) -> None:
    setup_django()
    if args.step == "build":
        print(json.dumps(build(args.hits, args.items)))
    else:
        print(json.dumps(count(args.campaign)))


def run_child(env: dict, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *extra], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{extra} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the load (no Django) ---------------------------------------------------------------------


class Client:
    """One keep-alive connection; each request returns (status, headers, body, seconds).
    ``interval``: seconds between the starts of this client's requests (open loop: a request
    due while the last one is still running goes at once, and the schedule restarts from
    then, so a client that falls behind does not burst to catch up); 0: one after another."""

    def __init__(self, port: int, interval: float = 0.0) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.interval = interval
        self.due = time.perf_counter()

    def pace(self) -> None:
        if not self.interval:
            return
        now = time.perf_counter()
        if self.due > now:
            time.sleep(self.due - now)
        else:
            self.due = now
        self.due += self.interval

    def request(self, method: str, path: str, body: bytes | None = None):
        self.pace()
        headers = {"Host": "localhost"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection: reconnect once. A request
                # that reached the view is safe to repeat (submissions are idempotent).
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt == 2:
                    raise
                continue
            return response.status, response, data, time.perf_counter() - started
        raise AssertionError("unreachable")


def do_hit(client: Client, link: str, seed: int, out: dict) -> None:
    """One simulated worker: their link, the item, then one submit per item."""
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
    score = seed % 101
    while body["next"] is not None:
        position = body["next"]["position"]
        payload = json.dumps({"position": position, "score": score}).encode()
        status, _, data, seconds = client.request("POST", task + "submit", payload)
        out["submit"].append(seconds)
        body = json.loads(data)
        if status != 200 or not body["ok"] or body.get("already_recorded"):
            out["errors"].append(f"submit {status} {data[:200]!r}")
            return
        out["stored"] += 1
        score = (score + 7) % 101


def do_bare(client: Client, values: range, out: dict) -> None:
    for value in values:
        status, _, data, seconds = client.request("POST", f"/insert/?value={value}", b"")
        out["submit"].append(seconds)
        if status != 200:
            out["errors"].append(f"bare {status} {data[:200]!r}")
        else:
            out["stored"] += 1


def load_process(kind: str, port: int, jobs: list, threads: int, interval: float = 0.0) -> dict:
    """Runs in a pool process: ``threads`` threads taking jobs (links, or value ranges), each
    thread's requests ``interval`` seconds apart (0: one after another)."""
    lock = threading.Lock()
    queue = list(reversed(jobs))
    out = {"submit": [], "errors": [], "stored": 0}

    def run() -> None:
        client = Client(port, interval)
        while True:
            with lock:
                if not queue:
                    return
                job = queue.pop()
            if kind == "evalsite":
                do_hit(client, job[1], job[0], out)
            else:
                do_bare(client, job, out)

    started, started_cpu = time.perf_counter(), time.process_time()
    pool = [threading.Thread(target=run) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    out["seconds"] = time.perf_counter() - started
    # The load generator's own CPU: it shares the two cores with what it measures.
    out["cpu"] = time.process_time() - started_cpu
    return out


def value_jobs(first: int, total: int, pieces: int) -> list[range]:
    """The one-INSERT requests' values ``first`` .. ``first + total - 1`` in about ``pieces``
    ranges, the jobs the clients take in turn."""
    step = max(total // pieces, 1)
    return [range(at, min(at + step, first + total)) for at in range(first, first + total, step)]


def run_load(
    executor, kind: str, port: int, jobs: list, processes: int, threads: int, rate: float = 0.0
) -> dict:
    """``jobs`` shared among ``processes`` x ``threads`` clients; ``rate``: requests a second in
    all, paced (open loop), else each client as fast as it is answered (closed loop)."""
    shares = [jobs[i::processes] for i in range(processes)]
    interval = processes * threads / rate if rate else 0.0
    started = time.perf_counter()
    futures = [
        executor.submit(load_process, kind, port, share, threads, interval) for share in shares
    ]
    results = [future.result() for future in futures]
    wall = time.perf_counter() - started
    latencies = sorted(s for result in results for s in result["submit"])
    return {
        "wall": wall,
        "stored": sum(result["stored"] for result in results),
        "errors": [e for result in results for e in result["errors"]],
        "p50": statistics.median(latencies) * 1000 if latencies else 0.0,
        "p99": latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0.0,
        "requests": len(latencies),
        "clients_cpu": sum(result["cpu"] for result in results),
    }


# --- the stack ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited:\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"server did not start:\n{log.read_text()[-3000:]}")


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children (gunicorn's master and workers)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(child) for child in children]
    except OSError:
        pass
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
        except OSError:
            pass
    return total


def database_cpu_seconds() -> float:
    """CPU time of PostgreSQL on this machine, read from /proc: every server process's, plus
    what the postmaster's exited children used (its cutime and cstime), so that a backend
    whose connection closes during a round still counts (counting only the backends alive at
    the end gave figures from -0.05 to 2.6 ms a judgment). Every database's: run the bench
    alone. 0 where PostgreSQL runs elsewhere."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "postgres":
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            parent = Path(f"/proc/{fields[1]}/comm")
            if not parent.exists() or parent.read_text().strip() != "postgres":
                # The postmaster: the CPU of the children it has reaped.
                total += (int(fields[13]) + int(fields[14])) / ticks
        except OSError:
            pass  # the process ended meanwhile (its CPU is in the postmaster's cutime now)
    return total


def cpu_figures(web_pid: int, worker_pid: int) -> tuple[float, float, float]:
    return cpu_seconds(web_pid), database_cpu_seconds(), cpu_seconds(worker_pid)


def stack_env(tmp: Path, pythonpath: str | None = None) -> dict[str, str]:
    """The environment the benches start evalsite's stack with (its servers, worker and
    children): production settings (DEBUG off, no HTTPS redirect on loopback), a bench
    secret unless SECRET_KEY is set, static files collected into ``tmp``, this tree first on
    the path (``pythonpath``: another), and this Python's scripts (gunicorn, celery) first."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "evalsite.settings",
        "DEBUG": "0",
        "HTTPS": "0",
        "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-" + "x" * 50,
        "ALLOWED_HOSTS": "localhost,127.0.0.1",
        "STATIC_ROOT": str(tmp / "static"),
        "PYTHONPATH": pythonpath or str(ROOT),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }


def start(command: list[str], env: dict, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=open(log, "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def ensure_database(url: str) -> None:
    import psycopg2

    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    connection = psycopg2.connect(urllib.parse.urlunsplit(parts._replace(path="/postgres")))
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE DATABASE "{name}"')
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=60, help="simulated workers per round")
    parser.add_argument(
        "--items", type=int, default=100, help="items per DA HIT (METHODS.md's DA HIT: 100)"
    )
    parser.add_argument("--clients", default="2x12", help="processes x threads")
    parser.add_argument(
        "--gunicorn",
        default=GUNICORN_DEFAULT,
        help="gunicorn's processes x threads for both apps (default: deploy/web.sh's)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=24,
        help="HITs done (and as many bare requests as their judgments) before the rounds; 0: none",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="requests a second in all, paced (open loop), for both apps; 0 (default): as fast "
        "as they are answered",
    )
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--hits", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--campaign", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        child(args)
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")) or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL (a PostgreSQL database of its own) and REDIS_URL")
    processes, threads = (int(n) for n in args.clients.split("x"))
    ensure_database(url)

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-submissions-") as tmp:
        env = stack_env(Path(tmp))
        hits = args.rounds * args.workers + args.warmup
        server_args = gunicorn_args(args.gunicorn)
        bare_env = {**env, "DJANGO_SETTINGS_MODULE": "bare_app.settings"}
        bare_env["PYTHONPATH"] = f"{ROOT / 'bench'}{os.pathsep}{ROOT}"
        subprocess.run(
            [sys.executable, "-m", "django", "migrate", "--noinput", "--verbosity", "0"],
            env=bare_env,
            cwd=ROOT / "bench",
            check=True,
        )
        # As deploy/web.sh does: with DEBUG off, a page that links a static file (the message
        # page a worker gets when no task is left) needs the collected manifest.
        subprocess.run(
            [sys.executable, "-m", "django", "collectstatic", "--noinput", "--verbosity", "0"],
            env={**env, "DJANGO_SETTINGS_MODULE": "evalsite.settings"},
            cwd=ROOT,
            check=True,
        )
        built = run_child(env, "--step=build", f"--hits={hits}", f"--items={args.items}")
        campaign, links = built["campaign"], built["links"]
        port, bare_port = free_port(), free_port()
        logs = Path(tmp)
        # deploy/worker.sh and deploy/web.sh's gunicorn line, bound to loopback only.
        worker = start(
            [str(ROOT / "deploy" / "worker.sh"), "--concurrency=1", "--without-gossip"],
            env,
            logs / "worker.log",
        )
        access = ["--access-logfile", "-"]
        web = start(
            [
                "gunicorn",
                "evalsite.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                *server_args,
                *access,
            ],
            env,
            logs / "web.log",
        )
        bare = start(
            [
                "gunicorn",
                "bare_app.wsgi:application",
                "--bind",
                f"127.0.0.1:{bare_port}",
                *server_args,
                *access,
            ],
            bare_env,
            logs / "bare.log",
        )
        failed = False
        try:
            wait_port(port, web, logs / "web.log")
            wait_port(bare_port, bare, logs / "bare.log")
            time.sleep(2)
            pace = (
                f"paced at {args.rate:,.0f} requests/s (open loop: the rates are the pace, "
                "compare the latencies)"
                if args.rate
                else "as fast as answered"
            )
            print(
                f"DA HITs of {args.items} items, {args.workers} simulated workers a round, "
                f"{processes}x{threads} clients {pace}, gunicorn {' '.join(server_args)}"
            )
            print(
                "round  evalsite j/s  p50 ms  p99 ms  CPU ms/j |  bare req/s  p50 ms  p99 ms  "
                "CPU ms/r | ratio  load"
            )
            rows = []
            cpu_rows = []
            bare_value = 0
            with ProcessPoolExecutor(processes) as executor:
                # Warm-up, not measured: both apps serve the same load first, so that the
                # rounds measure the steady state (each gunicorn thread's database connection
                # open and its statements prepared, the Celery worker's first full read of the
                # campaign done) rather than the first minute after a deploy.
                warm_links = links[hits - args.warmup :]
                if warm_links:
                    warm = run_load(
                        executor,
                        "evalsite",
                        port,
                        [(hits - args.warmup + i, link) for i, link in enumerate(warm_links)],
                        processes,
                        threads,
                    )
                    warm_total = warm["stored"]
                    run_load(
                        executor,
                        "bare",
                        bare_port,
                        value_jobs(10**9, warm_total, processes * threads * 4),
                        processes,
                        threads,
                    )
                    print(
                        f"warm-up (not measured): {warm_total:,} judgments, as many bare requests",
                        flush=True,
                    )
                    if warm["errors"]:
                        failed = True
                        print(f"  {len(warm['errors'])} errors, first: {warm['errors'][0]}")
                else:
                    # A few requests to each so both have their connections open.
                    run_load(executor, "bare", bare_port, [range(10**9, 10**9 + 20)], 1, 1)
                bare_value = 0
                for number in range(args.rounds):
                    share = links[number * args.workers : (number + 1) * args.workers]
                    jobs = [(number * args.workers + i, link) for i, link in enumerate(share)]
                    before = cpu_figures(web.pid, worker.pid)
                    ours = run_load(executor, "evalsite", port, jobs, processes, threads, args.rate)
                    after = cpu_figures(web.pid, worker.pid)
                    ours["cpu"], ours["db"], ours["worker"] = (
                        (later - earlier) / max(ours["stored"], 1) * 1000
                        for earlier, later in zip(before, after, strict=True)
                    )
                    total = ours["stored"]
                    bare_jobs = value_jobs(bare_value, total, processes * threads * 4)
                    bare_value += total
                    cpu, db_cpu = cpu_seconds(bare.pid), database_cpu_seconds()
                    theirs = run_load(
                        executor, "bare", bare_port, bare_jobs, processes, threads, args.rate
                    )
                    theirs["cpu"] = (cpu_seconds(bare.pid) - cpu) / max(theirs["stored"], 1) * 1000
                    theirs["db"] = (
                        (database_cpu_seconds() - db_cpu) / max(theirs["stored"], 1) * 1000
                    )
                    cpu_rows.append(
                        (
                            ours["cpu"],
                            ours["db"],
                            ours["worker"],
                            theirs["cpu"],
                            theirs["db"],
                            ours["clients_cpu"] / max(ours["stored"], 1) * 1000,
                            theirs["clients_cpu"] / max(theirs["stored"], 1) * 1000,
                        )
                    )
                    rate = ours["stored"] / ours["wall"]
                    bare_rate = theirs["stored"] / theirs["wall"]
                    load = os.getloadavg()[0]
                    rows.append((rate, ours["p50"], ours["p99"], bare_rate, theirs["p99"]))
                    print(
                        f"{number + 1:>5}  {rate:>12,.0f}  {ours['p50']:>6.1f}  {ours['p99']:>6.1f}"
                        f"  {ours['cpu']:>8.2f} |  {bare_rate:>10,.0f}  {theirs['p50']:>6.1f}"
                        f"  {theirs['p99']:>6.1f}  {theirs['cpu']:>8.2f} | {rate / bare_rate:>5.1%}"
                        f"  {load:.2f}",
                        flush=True,
                    )
                    for errors in (ours["errors"], theirs["errors"]):
                        if errors:
                            failed = True
                            print(f"  {len(errors)} errors, first: {errors[0]}")
            median = [statistics.median(column) for column in zip(*rows, strict=True)]
            print(
                f"median  {median[0]:,.0f} judgments/s (p50 {median[1]:.1f} ms, p99 "
                f"{median[2]:.1f} ms); bare {median[3]:,.0f}/s (p99 {median[4]:.1f} ms); "
                f"ratio {median[0] / median[3]:.1%}; load average {os.getloadavg()}"
            )
            cpu = [statistics.median(column) for column in zip(*cpu_rows, strict=True)]
            print(
                f"CPU ms per judgment (median): gunicorn {cpu[0]:.2f}, PostgreSQL {cpu[1]:.2f}, "
                f"Celery worker {cpu[2]:.2f}; bare per request: gunicorn {cpu[3]:.2f}, "
                f"PostgreSQL {cpu[4]:.2f}; (gunicorn + PostgreSQL) ratio "
                f"{(cpu[0] + cpu[1]) / max(cpu[3] + cpu[4], 1e-9):.1f}x; the load generator "
                f"{cpu[5]:.2f} ms per judgment (every request of a HIT included), {cpu[6]:.2f} "
                "per bare request"
            )
            counts = run_child(env, "--step=count", f"--campaign={campaign}")
            if not counts_right(counts, hits, args.items, bare_value):
                failed = True
        finally:
            for process in (web, bare, worker):
                stop(process)
        if failed:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
