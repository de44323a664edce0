#!/usr/bin/env python
"""Memory of a big import run as a job (issue 11 item 6) by a real Celery worker process.

    REDIS_URL=redis://127.0.0.1:6379/5 [DATABASE_URL=postgres://.../a_scratch_db] \\
        .venv/bin/python bench/import_job.py [--megabytes 200] [--only tsv|wmt-da]

The parent (no Django: see bench/import_memory.py, whose files it writes) migrates the
database (DATABASE_URL, which it fills with bench campaigns: give it a scratch database; else
a temporary SQLite file), starts ``deploy/worker.sh --pool=solo`` on a queue of its own (the
import runs in the worker's main process), and for each file runs a child that does what the
admin page does with a big upload: ``create_segment_job`` / ``create_judgment_job`` (the
upload is copied into IMPORT_UPLOAD_ROOT and the job sent to the worker), then follows the
job to its end. It prints the worker's peak RSS (``VmHWM`` in /proc) before and after each
job, the extra, the job's time and its result, and the submitting process's extra memory.
The target is the issue's: at most 300 MB extra in the worker for a 200 MB import (scaled by
--megabytes / 200); the exit status is 1 when a job misses it or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

from bench.import_memory import TARGET_BYTES_PER_200MB, mb, write_tsv, write_wmt_da  # noqa: E402

SQLITE_VAR = "EVALSITE_BENCH_SQLITE"
WORKER_READY_TIMEOUT = 60


def setup_django() -> None:
    import django
    from django.conf import settings

    sqlite = os.environ.get(SQLITE_VAR)
    if sqlite:
        settings.DATABASES["default"]["NAME"] = sqlite
    settings.DEBUG = False
    django.setup()


def submit(step: str, path: str) -> dict:
    """Create the job as the admin page does, then follow it to its end."""
    import resource

    from django.contrib.auth import get_user_model
    from django.core.files import File

    from campaigns.import_jobs.actions import create_judgment_job, create_segment_job
    from campaigns.importers.judgments import ImportOptions
    from campaigns.kinds import new_campaign, save_campaign
    from campaigns.models import TaskKind

    owner, _ = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    with open(path, "rb") as handle:
        upload = File(handle, name=Path(path).name)
        upload.size = os.path.getsize(path)
        if step == "tsv":
            campaign = new_campaign(
                kind=TaskKind.DIRECT_ASSESSMENT,
                settings={"assessment_mode": "adequacy"},
                name=f"bench-job-{uuid.uuid4().hex[:8]}",
                source_language="cs",
                target_language="en",
                owner=owner,
            ).campaign
            save_campaign(campaign)
            job = create_segment_job(owner, campaign, "tsv", upload)
        else:
            options = ImportOptions("wmt-da", name=f"bench-da-{uuid.uuid4().hex[:8]}", owner=owner)
            job = create_judgment_job([upload], options, dry_run=False)
    submitted = time.perf_counter() - started
    submit_extra = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    samples = []
    while True:
        job.refresh_from_db()
        samples.append((job.status, job.phase, job.done, job.total))
        if job.ended:
            break
        time.sleep(0.5)
    distinct = sorted(set(samples), key=samples.index)
    return {
        "job": job.pk,
        "status": job.status,
        "message": job.message[:300],
        "problems": job.problems[:3],
        "submit_seconds": submitted,
        "submit_extra": submit_extra,
        "seconds": (job.finished_at - job.started_at).total_seconds() if job.started_at else 0,
        "progress_seen": len(distinct),
        "last_progress": distinct[-2] if len(distinct) > 1 else distinct[-1],
    }


def child(args: argparse.Namespace) -> None:
    setup_django()
    if args.step == "migrate":
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        print("{}")
        return
    print(json.dumps(submit(args.step, args.path)))


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc (Linux only)")


def run_child(env: dict, *extra: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, *extra], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{extra} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=200)
    parser.add_argument("--only", choices=["tsv", "wmt-da"])
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        child(args)
        return
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("set REDIS_URL (a Redis database of its own): the job needs a broker")

    size = int(args.megabytes * 1e6)
    target = TARGET_BYTES_PER_200MB * args.megabytes / 200
    failed = []
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-job-") as tmp:
        queue = f"bench-import-{uuid.uuid4().hex[:8]}"
        env = {
            **os.environ,
            "IMPORT_UPLOAD_ROOT": str(Path(tmp) / "uploads"),
            "IMPORT_JOB_QUEUE": queue,
            "DEBUG": "0",
            "SECRET_KEY": os.environ.get("SECRET_KEY") or "bench-" + "x" * 50,
            "ALLOWED_HOSTS": "localhost",
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        if not os.environ.get("DATABASE_URL"):
            env[SQLITE_VAR] = str(Path(tmp) / "bench.sqlite3")
        run_child(env, "--step=migrate")
        files = {}
        if args.only in (None, "tsv"):
            files["tsv"] = Path(tmp) / "segments.tsv"
            rows = write_tsv(files["tsv"], size)
            print(f"segments TSV:  {files['tsv'].stat().st_size / 1e6:,.1f} MB, {rows:,} rows")
        if args.only in (None, "wmt-da"):
            files["wmt-da"] = Path(tmp) / "ad-csen-good-raw.csv"
            rows = write_wmt_da(files["wmt-da"], size)
            print(f"WMT DA file:   {files['wmt-da'].stat().st_size / 1e6:,.1f} MB, {rows:,} rows")
        print(f"database:      {'PostgreSQL' if os.environ.get('DATABASE_URL') else 'SQLite'}")
        print(f"target:        at most {mb(target)} extra in the worker per import")

        log = open(Path(tmp) / "worker.log", "wb")
        worker_env = dict(env)
        if SQLITE_VAR in env:
            # The worker reads settings only: point DATABASE_URL at the same SQLite file.
            worker_env["DATABASE_URL"] = f"sqlite:///{env[SQLITE_VAR]}"
        worker = subprocess.Popen(
            [
                str(ROOT / "deploy" / "worker.sh"),
                "--pool=solo",
                "--concurrency=1",
                f"--queues={queue}",
                f"--hostname={queue}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=worker_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + WORKER_READY_TIMEOUT
            while b" ready." not in (Path(tmp) / "worker.log").read_bytes():
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit((Path(tmp) / "worker.log").read_text(errors="replace"))
                time.sleep(0.2)
            # celery's worker.sh execs celery: the pid is the worker's (pool=solo: the import
            # runs in it).
            for step, path in files.items():
                before = peak_rss(worker.pid)
                figures = run_child(env, f"--step={step}", f"--path={path}")
                after = peak_rss(worker.pid)
                extra = after - before
                ok = figures["status"] == "done" and extra <= target
                if not ok:
                    failed.append(step)
                print(
                    f"{step + ':':<15}worker peak RSS {mb(before)} before, {mb(after)} after: "
                    f"{mb(extra)} extra; job {figures['job']} {figures['status']} in "
                    f"{figures['seconds']:.1f} s{'' if ok else '  OVER THE TARGET OR FAILED'}"
                )
                print(
                    f"{'':15}submitting (upload kept, job sent): "
                    f"{figures['submit_seconds']:.1f} s, "
                    f"{mb(figures['submit_extra'])} extra; {figures['progress_seen']} distinct "
                    f"progress states seen, the last before the end {figures['last_progress']}"
                )
                print(f"{'':15}{figures['message']}")
                for problem in figures["problems"]:
                    print(f"{'':15}problem: {problem}")
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
            log.close()
    if failed:
        raise SystemExit(f"over the target or failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
