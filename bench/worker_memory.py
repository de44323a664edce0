#!/usr/bin/env python
"""Memory of a Celery worker recomputing a big direct-assessment campaign (issue 16 item 4:
under 300 MiB, peak, whole process), side by side with the previous code.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_f \\
    REDIS_URL=redis://127.0.0.1:6379/8 \\
        .venv/bin/python bench/worker_memory.py --campaign 1 [--rounds 2] [--baseline 57c688c] \\
            [--modes incremental,full]

Each round starts, alternately, a worker of the current tree and one of the baseline commit
(``git archive`` of it into a temporary directory), each exactly as deploy/worker.sh runs it
(``celery -A evalsite worker``, here with ``--concurrency 1`` and loopback PostgreSQL and
Redis), waits until it is ready, sends ``analytics.tasks.recompute_campaign_results`` for the
campaign through Redis (the broker of REDIS_URL: use a Redis database of your own), waits for
the worker's "succeeded" log line, and stops the worker. Meanwhile it samples every 20 ms the
RSS (/proc/<pid>/status VmRSS) of the worker's main process and of its pool process (the one
that runs the task), and reads the pool process's own peak (VmHWM) before stopping it. It
prints per code: the pool process's RSS when idle and its peak (VmHWM: exact), the whole
worker's peak (main + pool as proportional set sizes, /proc/<pid>/smaps_rollup Pss, so that
the pages the fork shares with its parent count once; sampled), the task's seconds as the
worker logs them, the ratios and the load average.

Both ways a worker recomputes are measured (``--modes``, by default both, alternated too):
``incremental``, the default setting (``ANALYTICS_INCREMENTAL=1``), where the worker's first
recompute reads the campaign in full into the arrays it keeps for the next runs
(``analytics.incremental``) and analyses it while holding them; and ``full``
(``ANALYTICS_INCREMENTAL=0``), which keeps nothing. The exit status is 1 when the current
code's whole-worker peak is not under ``--target`` MiB (300) in either.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trees import commit_tree  # noqa: E402 (the path above first)

RECOMPUTE_TASK = "analytics.tasks.recompute_campaign_results"
SAMPLE_SECONDS = 0.02


def _status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of a process, MiB (empty if it is gone)."""
    out: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    out[line.split(":")[0]] = int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def _pss(pid: int) -> float:
    """Proportional set size, MiB: pages shared by the main process and its fork counted
    once between them, so that main + pool is the worker's memory."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) / 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0.0


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []


class Sampler(threading.Thread):
    """Samples the RSS of a worker's main process and its children until stopped."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_total = 0.0
        self.peak_child = 0.0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            pool = _children(self.pid)
            self.peak_total = max(self.peak_total, _pss(self.pid) + sum(map(_pss, pool)))
            self.peak_child = max([self.peak_child, *(_status(c).get("VmRSS", 0.0) for c in pool)])
            time.sleep(SAMPLE_SECONDS)


def _send(campaign_id: int, broker: str) -> None:
    from celery import Celery

    app = Celery("bench", broker=broker)
    app.send_task(RECOMPUTE_TASK, args=[campaign_id])
    app.close()


def run_worker(tree: Path, campaign_id: int, env: dict[str, str], timeout: float) -> dict:
    """One worker of ``tree``: started as deploy/worker.sh does, one recompute, stopped."""
    log_path = Path(tempfile.mkstemp(prefix="worker-memory-", suffix=".log")[1])
    venv_bin = str(Path(sys.executable).parent)
    worker_env = {**env, "PATH": f"{venv_bin}:{env.get('PATH', '')}"}
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [
                "bash",
                str(tree / "deploy" / "worker.sh"),
                "--concurrency",
                "1",
                "--without-mingle",
                "--without-gossip",
                "-n",
                f"bench-memory-{os.getpid()}@localhost",
            ],
            cwd=tree,
            env=worker_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        started = time.monotonic()
        text = ""
        while "ready." not in text:
            if process.poll() is not None or time.monotonic() - started > timeout:
                raise RuntimeError(f"worker did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
            text = log_path.read_text()
        time.sleep(1.0)  # let the pool process finish booting
        pool = _children(process.pid)
        if len(pool) != 1:
            raise RuntimeError(f"expected one pool process, found {pool}")
        idle_child = _status(pool[0]).get("VmRSS", 0.0)
        idle_total = _pss(process.pid) + _pss(pool[0])
        sampler = Sampler(process.pid)
        sampler.start()
        _send(campaign_id, env["REDIS_URL"])
        done = re.compile(r"recompute_campaign_results\[[^\]]+\] (succeeded|raised)[^\n]*")
        match = None
        while match is None:
            if process.poll() is not None or time.monotonic() - started > timeout:
                raise RuntimeError(f"no recompute finished:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.1)
            match = done.search(log_path.read_text())
        if match.group(1) != "succeeded":
            raise RuntimeError(f"the recompute failed:\n{log_path.read_text()[-3000:]}")
        seconds = float(re.search(r"in ([0-9.]+)s", match.group(0)).group(1))
        time.sleep(0.1)
        sampler.stopped.set()
        sampler.join()
        child_hwm = _status(pool[0]).get("VmHWM", 0.0)
        return {
            "idle_child": idle_child,
            "idle_total": idle_total,
            "peak_child": max(child_hwm, sampler.peak_child),
            "peak_total": sampler.peak_total,
            "seconds": seconds,
        }
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log_path.unlink(missing_ok=True)


MODES = {"incremental": "1", "full": "0"}  # ANALYTICS_INCREMENTAL


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaign", type=int, required=True, help="A kept DA campaign's id.")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--baseline",
        default="57c688c",
        help="Commit of the previous code (default: before this issue's memory work).",
    )
    parser.add_argument(
        "--modes",
        default="incremental,full",
        help="Comma-separated: incremental (the default setting), full.",
    )
    parser.add_argument("--target", type=float, default=300.0, help="MiB, whole worker.")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    for name in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            parser.error(f"{name} must be set (PostgreSQL and a Redis database of your own)")
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    unknown = sorted(set(modes) - set(MODES))
    if unknown or not modes:
        parser.error(f"--modes: unknown {unknown}; choose among {', '.join(MODES)}")
    print(
        f"campaign {args.campaign}: one recompute per worker start, {args.rounds} rounds, "
        f"modes {', '.join(modes)}, current tree vs {args.baseline} alternated "
        f"(load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    trees = {"current": ROOT, "baseline": commit_tree(args.baseline, "worker-memory-")}
    runs: dict[tuple[str, str], list[dict]] = {}
    for k in range(args.rounds):
        codes = ("baseline", "current") if k % 2 == 0 else ("current", "baseline")
        for mode in modes:
            env = {**os.environ, "ANALYTICS_INCREMENTAL": MODES[mode]}
            for code in codes:
                result = run_worker(trees[code], args.campaign, env, args.timeout)
                runs.setdefault((mode, code), []).append(result)
                print(
                    f"  round {k + 1} {mode:11s} {code:8s}: pool process "
                    f"{result['idle_child']:.0f} MiB idle, peak {result['peak_child']:.0f} MiB; "
                    f"whole worker peak {result['peak_total']:.0f} MiB; "
                    f"task {result['seconds']:.2f} s",
                    flush=True,
                )
    med = {
        key: {name: statistics.median(r[name] for r in rs) for name in rs[0]}
        for key, rs in runs.items()
    }
    met = True
    for mode in modes:
        cur, base = med[(mode, "current")], med[(mode, "baseline")]
        met = met and cur["peak_total"] < args.target
        print(
            f"median, {mode}: current whole worker peak {cur['peak_total']:.0f} MiB (pool "
            f"process {cur['peak_child']:.0f}, {cur['idle_child']:.0f} idle), task "
            f"{cur['seconds']:.2f} s | baseline {base['peak_total']:.0f} MiB (pool "
            f"{base['peak_child']:.0f}, {base['idle_child']:.0f} idle), task "
            f"{base['seconds']:.2f} s | baseline/current "
            f"{base['peak_total'] / cur['peak_total']:.2f}x memory, "
            f"{base['seconds'] / cur['seconds']:.2f}x time; target {args.target:.0f} MiB: "
            + ("met" if cur["peak_total"] < args.target else "missed")
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
