#!/usr/bin/env python
"""Memory of one web worker (issue 16 item 4): evalsite under gunicorn as deploy/web.sh runs it,
side by side with the bare one-INSERT Django app (bench/bare_app) under the same settings.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_e \\
        .venv/bin/python bench/web_memory.py [--rounds 2] [--requests 300]

The parent (no Django) migrates the database (evalsite's and the bare app's tables), collects
static files into a temporary directory (as deploy/web.sh does) and builds,
in a child process, a direct-assessment campaign of one 10-item HIT with one worker's
assignment. Then, alternately in each round, it starts evalsite (gunicorn evalsite.wsgi with
deploy/web.sh's worker class and threads, 2 workers, loopback only) and the bare app the same
way, reads each gunicorn worker's RSS (/proc/<pid>/status VmRSS) once it answers, sends
``--requests`` requests (evalsite: the task page, its item endpoint, the campaign's entry page
and /healthz in turn; the bare app: its one INSERT view), reads the RSS again and stops it.
It prints MiB per worker (the larger of the two), the ratio to the bare worker and the load
average. The target: an evalsite worker under 80 MiB after start; the exit status is 1 when
a round misses it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MIB = 80.0
GUNICORN_ARGS = ["--workers", "2", "--worker-class", "gthread", "--threads", "4"]
HEADERS = {"X-Forwarded-Proto": "https"}

BUILD = """
import json, django
django.setup()
from django.urls import reverse
from judgments import tokens
from judgments.models import Assignment
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory
# Built once per database (the factories' sequences restart in every process).
a = Assignment.objects.filter(hit__campaign__name="memory-bench").first()
if a is None:
    campaign = CampaignFactory(name="memory-bench", title="Memory bench", redundancy=1)
    hit = HitFactory(campaign=campaign, number=1)
    for position in range(1, 11):
        HitSlotFactory(hit=hit, position=position)
    a = AssignmentFactory(hit=hit)
# A later run finds the assignment past its deadline: open it again for a year.
from datetime import timedelta
from django.utils import timezone
Assignment.objects.filter(pk=a.pk).update(
    status="started", expires_at=timezone.now() + timedelta(days=365)
)
token = tokens.assignment_token(a.pk, a.worker_id)
print(json.dumps([reverse("judgments:task", args=[token]),
                  reverse("judgments:task-item", args=[token]),
                  reverse("judgments:campaign-entry", args=[a.hit.campaign_id]), "/healthz"]))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def workers_of(master: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    except OSError:
        return []


def request(url: str, data: bytes | None = None) -> int:
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=data, headers=HEADERS), timeout=30
        ) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def serve(label, command, env, cwd, paths, count, log) -> tuple[float, float]:
    port = free_port()
    process = subprocess.Popen(
        [*command, "--bind", f"127.0.0.1:{port}", *GUNICORN_ARGS],
        cwd=cwd,
        env=env,
        stdout=open(log, "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"{label} did not start:\n{Path(log).read_text()[-3000:]}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                if len(workers_of(process.pid)) == 2:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        # Each worker loads the application after the fork (no --preload): wait until both
        # workers' RSS has not moved for 2 s.
        last, steady = None, 0
        while steady < 4 and time.monotonic() < deadline:
            time.sleep(0.5)
            now = [rss_mib(pid) for pid in workers_of(process.pid)]
            steady = steady + 1 if now == last else 0
            last = now
        after_start = max(rss_mib(pid) for pid in workers_of(process.pid))
        for i in range(count):
            path, data = paths[i % len(paths)]
            status = request(base + path, data)
            if status >= 400:
                tail = Path(log).read_text()[-3000:]
                raise SystemExit(f"{label}: {path} answered {status}\n{tail}")
        after_requests = max(rss_mib(pid) for pid in workers_of(process.pid))
        return after_start, after_requests
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("set DATABASE_URL to a PostgreSQL database of its own")
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-memory-") as tmp:
        env = {
            **{k: v for k, v in os.environ.items() if k != "REDIS_URL"},
            "DJANGO_SETTINGS_MODULE": "evalsite.settings",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + "x" * 50,
            "ALLOWED_HOSTS": "localhost,127.0.0.1",
            "PYTHONPATH": str(ROOT),
            "STATIC_ROOT": str(Path(tmp) / "static"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        bare_env = {**env, "DJANGO_SETTINGS_MODULE": "bare_app.settings"}
        bare_env["PYTHONPATH"] = f"{ROOT / 'bench'}{os.pathsep}{ROOT}"
        python = [sys.executable, "-m", "django"]
        subprocess.run([*python, "migrate", "--noinput", "-v0"], env=env, cwd=ROOT, check=True)
        subprocess.run(
            [*python, "collectstatic", "--noinput", "-v0"], env=env, cwd=ROOT, check=True
        )
        subprocess.run(
            [*python, "migrate", "--noinput", "-v0"], env=bare_env, cwd=ROOT / "bench", check=True
        )
        built = subprocess.run(
            [sys.executable, "-c", BUILD], env=env, cwd=ROOT, check=True, capture_output=True
        )
        evalsite_paths = [(p, None) for p in json.loads(built.stdout.decode().splitlines()[-1])]
        bare_paths = [("/insert/", b"value=1")]
        print(f"gunicorn {' '.join(GUNICORN_ARGS)}; {args.requests} requests; RSS of the larger")
        print("round  evalsite start  after  |  bare start  after  | ratio start  after  load")
        missed = False
        for round_ in range(1, args.rounds + 1):
            e = serve(
                "evalsite",
                ["gunicorn", "evalsite.wsgi:application"],
                env,
                ROOT,
                evalsite_paths,
                args.requests,
                Path(tmp) / "evalsite.log",
            )
            b = serve(
                "bare",
                ["gunicorn", "bare_app.wsgi:application"],
                bare_env,
                ROOT / "bench",
                bare_paths,
                args.requests,
                Path(tmp) / "bare.log",
            )
            load = os.getloadavg()[0]
            print(
                f"{round_:5d}  {e[0]:10.1f} MiB {e[1]:6.1f}  |  {b[0]:6.1f} MiB {b[1]:6.1f}  |"
                f"  {e[0] / b[0]:6.2f}x {e[1] / b[1]:6.2f}x  {load:.2f}"
            )
            missed |= e[0] >= TARGET_MIB
        verdict = "MISSED" if missed else "met"
        print(f"target: evalsite worker < {TARGET_MIB:.0f} MiB after start: {verdict}")
        sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
