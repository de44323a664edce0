#!/usr/bin/env python
"""Server time of the task page's item and submit responses on a campaign of a million
judgments (issue 16 item 5), side by side with the bare one-INSERT view, same gunicorn.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_e \\
    REDIS_URL=redis://127.0.0.1:6379/10 \\
        .venv/bin/python bench/page_speed.py [--rounds 3] [--workers 20] [--items 10]

The parent (no Django) creates the database if missing and migrates it; a child process
builds, once per database, a direct-assessment campaign of a million judgments with open HITs
and unused workers (bench/freshness_build.py: COPY from numpy arrays, about a minute). Then
it starts the real stack on loopback: a Celery worker (deploy/worker.sh), evalsite under
gunicorn with deploy/web.sh's settings (3 gthread workers x 4 threads) and the bare app
(bench/bare_app) the same way, both writing gunicorn's access log with the request's server
time (``%(D)s``, microseconds from reading the request to the response's end).

Each round, alternately: ``workers`` of the campaign's unused workers, one at a time (one
client: the time of a request alone, not queued behind others), open their link (hand-out),
fetch the item and answer ``items`` items; then as many POSTs to the bare view as there were
item and submit requests. It prints per round the p50/p99 server time of the item requests,
the submit requests and the bare view's, and the ratios to the bare view's p50, with the load
average; at the end the medians. The target: item and submit p50 under 10 ms. The exit status
is 1 on any error response or when a p50 misses the target.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.submissions import (  # noqa: E402 (the path above)
    GUNICORN_ARGS,
    Client,
    ensure_database,
    free_port,
    stack_env,
    start,
    stop,
    wait_port,
)

TAG = "page-speed"
TARGET_MS = 10.0
JUDGMENTS = 1_000_000
ACCESS_FORMAT = "%(m)s %(U)s %(s)s %(D)s"


# --- the child: the campaign (Django) ---------------------------------------------------------


def child(args: argparse.Namespace) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.db import connection

    from bench.freshness_build import build_campaign
    from campaigns.models import Campaign
    from judgments import tokens
    from judgments.models import CampaignWorker, Worker

    campaign = Campaign.objects.filter(name__contains=TAG).order_by("-pk").first()
    if campaign is None or campaign.judgments.count() < JUDGMENTS:
        built = build_campaign(JUDGMENTS, tag=TAG)
        campaign = Campaign.objects.get(pk=built["campaign"])
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE bare_app_row")
    # The build's load workers who never came to the campaign (a hand-out makes them a
    # member): each takes one of the open HITs.
    members = CampaignWorker.objects.filter(campaign=campaign).values("worker_id")
    unused = (
        Worker.objects.filter(external_id__startswith=f"fresh-{campaign.pk}-")
        .exclude(pk__in=members)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    links = [f"/work/w/{tokens.worker_token(pk, campaign.pk)}/" for pk in unused]
    print(
        json.dumps(
            {"campaign": campaign.pk, "judgments": campaign.judgments.count(), "links": links}
        )
    )


def run_child(env: dict, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *extra], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{extra} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the load (no Django) ---------------------------------------------------------------------


def evalsite_round(port: int, links: list[str], items: int) -> tuple[int, list[str]]:
    """One client walks the workers' tasks; returns (requests made, errors)."""
    client, requests, errors = Client(port), 0, []
    for link in links:
        status, response, data, _ = client.request("GET", link)
        if status != 302:
            errors.append(f"link {status} {data[:200]!r}")
            continue
        task = urllib.parse.urlsplit(response.getheader("Location")).path
        status, _, data, _ = client.request("GET", task + "item")
        requests += 1
        body = json.loads(data)
        if status != 200 or not body["ok"]:
            errors.append(f"item {status} {data[:200]!r}")
            continue
        for answered in range(items):
            if body["next"] is None:
                break
            position = body["next"]["position"]
            payload = json.dumps({"position": position, "score": 40 + answered}).encode()
            status, _, data, _ = client.request("POST", task + "submit", payload)
            requests += 1
            body = json.loads(data)
            if status != 200 or not body["ok"]:
                errors.append(f"submit {status} {data[:200]!r}")
                break
    return requests, errors


def bare_round(port: int, start_value: int, count: int) -> list[str]:
    client, errors = Client(port), []
    for value in range(start_value, start_value + count):
        status, _, data, _ = client.request("POST", f"/insert/?value={value}", b"")
        if status != 200:
            errors.append(f"bare {status} {data[:200]!r}")
    return errors


def server_times(log: Path, offset: int) -> tuple[dict[str, list[float]], int]:
    """Milliseconds per kind of request ("item", "submit", "bare") in the access log lines
    written since ``offset``; returns them and the new offset."""
    with open(log, "rb") as handle:
        handle.seek(offset)
        text = handle.read()
        offset = handle.tell()
    times: dict[str, list[float]] = {"item": [], "submit": [], "bare": []}
    for line in text.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) != 4 or not parts[3].isdigit():
            continue  # not an access log line (the app's own log goes to the same file)
        method, path, status, micros = parts
        kind = (
            "item"
            if path.endswith("/item")
            else "submit"
            if path.endswith("/submit")
            else "bare"
            if path.startswith("/insert/")
            else None
        )
        if kind and status == "200":
            times[kind].append(int(micros) / 1000)
    return times, offset


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=20, help="tasks walked per round")
    parser.add_argument("--items", type=int, default=10, help="items answered per task")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        child(args)
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")) or not os.environ.get("REDIS_URL"):
        raise SystemExit("set DATABASE_URL (a PostgreSQL database of its own) and REDIS_URL")
    ensure_database(url)

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-page-speed-") as tmp:
        env = stack_env(Path(tmp))
        bare_env = {**env, "DJANGO_SETTINGS_MODULE": "bare_app.settings"}
        bare_env["PYTHONPATH"] = f"{ROOT / 'bench'}{os.pathsep}{ROOT}"
        subprocess.run(
            [sys.executable, "-m", "django", "migrate", "--noinput", "--verbosity", "0"],
            env={**env, "DJANGO_SETTINGS_MODULE": "evalsite.settings"},
            cwd=ROOT,
            check=True,
        )
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
        started = time.perf_counter()
        built = run_child(env, "--step=build")
        links = built["links"]
        needed = args.rounds * args.workers
        if len(links) < needed:
            raise SystemExit(f"{len(links)} unused workers left, {needed} needed: a new database")
        print(
            f"campaign {built['campaign']}: {built['judgments']:,} judgments "
            f"(ready in {time.perf_counter() - started:.0f} s)"
        )
        port, bare_port = free_port(), free_port()
        logs = Path(tmp)
        access = ["--access-logfile", "-", "--access-logformat", ACCESS_FORMAT]
        worker = start(
            [str(ROOT / "deploy" / "worker.sh"), "--concurrency=1", "--without-gossip"],
            env,
            logs / "worker.log",
        )
        web = start(
            ["gunicorn", "evalsite.wsgi:application", "--bind", f"127.0.0.1:{port}"]
            + GUNICORN_ARGS
            + access,
            env,
            logs / "web.log",
        )
        bare = start(
            ["gunicorn", "bare_app.wsgi:application", "--bind", f"127.0.0.1:{bare_port}"]
            + GUNICORN_ARGS
            + access,
            bare_env,
            logs / "bare.log",
        )
        failed = False
        try:
            wait_port(port, web, logs / "web.log")
            wait_port(bare_port, bare, logs / "bare.log")
            bare_round(bare_port, 10**9, 20)  # warm-up: connections open
            time.sleep(1)
            web_offset = bare_offset = 0
            _, web_offset = server_times(logs / "web.log", 0)
            _, bare_offset = server_times(logs / "bare.log", 0)
            print(
                "round | item p50  p99 | submit p50  p99 | bare p50  p99 | item/bare "
                "submit/bare (p50) | load"
            )
            rows, value = [], 0
            for number in range(args.rounds):
                share = links[number * args.workers : (number + 1) * args.workers]
                requests, errors = evalsite_round(port, share, args.items)
                errors += bare_round(bare_port, value, requests)
                value += requests
                time.sleep(0.5)  # the access log is written after the response
                ours, web_offset = server_times(logs / "web.log", web_offset)
                theirs, bare_offset = server_times(logs / "bare.log", bare_offset)
                row = (
                    statistics.median(ours["item"]),
                    percentile(ours["item"], 0.99),
                    statistics.median(ours["submit"]),
                    percentile(ours["submit"], 0.99),
                    statistics.median(theirs["bare"]),
                    percentile(theirs["bare"], 0.99),
                )
                rows.append(row)
                print(
                    f"{number + 1:>5} | {row[0]:>8.2f} {row[1]:>5.1f} | {row[2]:>10.2f} "
                    f"{row[3]:>5.1f} | {row[4]:>8.2f} {row[5]:>5.1f} | {row[0] / row[4]:>8.1f}x "
                    f"{row[2] / row[4]:>6.1f}x | {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
                if errors:
                    failed = True
                    print(f"  {len(errors)} errors, first: {errors[0]}")
            median = [statistics.median(column) for column in zip(*rows, strict=True)]
            print(
                f"median: item p50 {median[0]:.2f} ms (p99 {median[1]:.1f}), submit p50 "
                f"{median[2]:.2f} ms (p99 {median[3]:.1f}), bare p50 {median[4]:.2f} ms "
                f"(p99 {median[5]:.1f}); load average {os.getloadavg()}"
            )
            if median[0] >= TARGET_MS or median[2] >= TARGET_MS:
                failed = True
                print(f"MISSED: a p50 at or over {TARGET_MS:.0f} ms")
        finally:
            for process in (web, bare, worker):
                stop(process)
        if failed:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
