#!/usr/bin/env python
"""Memory of big imports: a segments TSV and a WMT direct-assessment file, 200 MB each.

    .venv/bin/python bench/import_memory.py [--megabytes 200] [--only tsv|wmt-da]

The parent (which never imports Django, so that its memory does not count: Linux carries a
process's peak RSS across exec into the child's getrusage() ru_maxrss) writes the two files
into a temporary directory, migrates a temporary SQLite database in one child, then runs
each step in a fresh child process and prints its maximum RSS before the import (Django and
the importers imported), after it, and the extra:

- ``baseline``: a bare Django process that imports the importers and does nothing else;
- ``tsv``: ``run_import()`` of the segments TSV into a new direct-assessment campaign
  (a real write: documents, segments, systems, outputs);
- ``wmt-da``: a dry run of ``import_judgments()`` of the WMT DA file (what the admin's and
  the API's check step do).

The target (issue 11) is at most 300 MB (300,000,000 bytes) of extra memory for a 200 MB
import; the script exits with status 1 if a step misses it (scaled by --megabytes / 200).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

SQLITE_VAR = "EVALSITE_BENCH_SQLITE"
TARGET_BYTES_PER_200MB = 300_000_000
WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "Übersetzung naïve café «quoted» <tag> & 東京 مرحبا"
).split()
SYSTEMS = 10
SEGMENTS_PER_DOC = 20


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 25))) + "."


def write_tsv(path: Path, size: int) -> int:
    """Segments of 20-segment documents, each with one output of each of 10 systems."""
    rng = random.Random(1)
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write("doc_id\tseg_id\tsource\treference\tsystem\toutput\n")
        written = 0
        segment = 0
        while written < size:
            doc = f"doc{segment // SEGMENTS_PER_DOC}"
            seg = str(segment % SEGMENTS_PER_DOC + 1)
            source, reference = sentence(rng), sentence(rng)
            for system in range(SYSTEMS):
                line = f"{doc}\t{seg}\t{source}\t{reference}\tsys{system}\t{sentence(rng)}\n"
                out.write(line)
                written += len(line.encode("utf-8"))
                rows += 1
            segment += 1
    return rows


def write_wmt_da(path: Path, size: int) -> int:
    """WMT's DA layout: HITs of 100 SYSTEM rows, each HIT done by one worker."""
    rng = random.Random(2)
    rows = 0
    with path.open("w", encoding="utf-8", newline="") as out:
        out.write(
            "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
        )
        written = 0
        hit = 0
        while written < size:
            hit_id = f"3{hit:019d}ABCDEFGHIJ"
            worker = f"A{rng.randrange(2000):012d}XY"
            seconds = rng.randint(300, 3000)
            for item in rng.sample(range(3000 * SYSTEMS), 100):  # distinct (system, segment)
                line = (
                    f"{hit_id}\t{worker}\tcs\ten\tad\t{hit}\tsystem-{item % SYSTEMS}"
                    f"\t{hit % 7}\tSYSTEM\t{item // SYSTEMS + 1}\t{rng.randint(0, 100)}"
                    f"\t{seconds}\n"
                )
                out.write(line)
                written += len(line)
                rows += 1
            hit += 1
    return rows


# --- Children --------------------------------------------------------------------------------


def setup_django(sqlite_path: str | None) -> None:
    import django
    from django.conf import settings

    if sqlite_path:
        settings.DATABASES["default"]["NAME"] = sqlite_path
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # As in production: with DEBUG on, Django keeps the SQL of every query (the bulk inserts
    # with all their texts) in connection.queries.
    settings.DEBUG = False
    django.setup()


def max_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(step: str, path: str | None) -> dict:
    from django.core.management import call_command

    if step == "migrate":
        call_command("migrate", verbosity=0)
        return {}
    import campaigns.importers
    import campaigns.importers.judgments  # noqa: F401

    before = max_rss()
    started = time.perf_counter()
    message = ""
    if step == "tsv":
        from campaigns.importers import run_import
        from campaigns.kinds import new_campaign
        from campaigns.models import TaskKind

        campaign = new_campaign(
            kind=TaskKind.DIRECT_ASSESSMENT,
            settings={"assessment_mode": "adequacy"},
            name=f"bench-import-{os.getpid()}",
            source_language="cs",
            target_language="en",
        ).campaign
        message = run_import(campaign, "tsv", path).message
    elif step == "wmt-da":
        from campaigns.importers.judgments import ImportOptions, import_judgments

        options = ImportOptions("wmt-da", name=f"bench-da-{os.getpid()}")
        message = import_judgments([path], options, dry_run=True).message
    return {
        "before": before,
        "after": max_rss(),
        "seconds": time.perf_counter() - started,
        "message": message[:300],
    }


def run_step(step: str, sqlite: str, path: str | None = None) -> dict:
    env = {**os.environ, SQLITE_VAR: sqlite}
    command = [sys.executable, __file__, f"--step={step}"]
    if path:
        command.append(f"--path={path}")
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{step} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mb(n: float) -> str:
    return f"{n / 1e6:,.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--megabytes", type=float, default=200)
    parser.add_argument("--only", choices=["tsv", "wmt-da"])
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--path", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        setup_django(os.environ.get(SQLITE_VAR))
        print(json.dumps(child(args.step, args.path)))
        return

    size = int(args.megabytes * 1e6)
    target = TARGET_BYTES_PER_200MB * args.megabytes / 200
    failed = []
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        sqlite = str(Path(tmp) / "bench.sqlite3")
        run_step("migrate", sqlite)
        steps = {"baseline": None}
        if args.only in (None, "tsv"):
            tsv = Path(tmp) / "segments.tsv"
            rows = write_tsv(tsv, size)
            print(f"segments TSV:  {tsv.stat().st_size / 1e6:,.1f} MB, {rows:,} rows")
            steps["tsv"] = str(tsv)
        if args.only in (None, "wmt-da"):
            da = Path(tmp) / "ad-csen-good-raw.csv"
            rows = write_wmt_da(da, size)
            print(f"WMT DA file:   {da.stat().st_size / 1e6:,.1f} MB, {rows:,} rows")
            steps["wmt-da"] = str(da)
        print(f"target:        at most {mb(target)} extra per import")
        for step, path in steps.items():
            figures = run_step(step, sqlite, path)
            extra = figures["after"] - figures["before"]
            ok = step == "baseline" or extra <= target
            if not ok:
                failed.append(step)
            print(
                f"{step + ':':<15}max RSS {mb(figures['before'])} before, "
                f"{mb(figures['after'])} after: {mb(extra)} extra in "
                f"{figures['seconds']:.1f} s{'' if ok else '  OVER THE TARGET'}"
            )
            if figures["message"]:
                print(f"{'':15}{figures['message']}")
    if failed:
        raise SystemExit(f"over the target: {', '.join(failed)}")


if __name__ == "__main__":
    main()
