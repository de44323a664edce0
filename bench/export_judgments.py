#!/usr/bin/env python
"""Streamed judgment exports at scale: 1,000,000 judgments as CSV and as JSON Lines.

    DATABASE_URL=postgres://... .venv/bin/python bench/export_judgments.py
        [--judgments 1000000] [--systems 10] [--workers 500] [--redundancy 5]
        [--keep] [--campaign ID]

Builds a direct-assessment campaign with ``--judgments`` judgments (HITs of 100 slots, each
done by ``--redundancy`` workers; texts with quotes, commas, tabs, line breaks and non-ASCII
characters so that the CSV writer has to quote), bulk-inserted: the HITs' slots with
bulk_create, the judgments with one INSERT ... SELECT. Then it downloads
``/api/campaigns/<id>/export/judgments.csv`` and ``.../judgments.jsonl`` through the real
view (Django's test Client: URL routing, middleware, token authentication, the permission
check, the streaming response), as an analyst granted access, reading
``response.streaming_content`` chunk by chunk, and prints for each format: rows, bytes,
seconds, the time to the first byte, and peak memory.

Building and each download run in child processes of a parent that never imports Django, so
that a download's maximum RSS (resource.getrusage) is its own, not the building's. Each
format is downloaded twice: untraced (time, rows, bytes, max RSS, and the RSS before the
request, i.e. Django and the apps' imports after a warm-up request) and under tracemalloc (the
peak of Python allocations during the request; tracemalloc slows Python down, so that run's
time is not the one reported). The target is a max RSS under 200 MB (200,000,000 bytes) for
the whole process; the script exits with status 1 if a download misses it or returns the
wrong number of rows.

With DATABASE_URL set, it runs against that database (the campaign, its workers and the
analyst are deleted afterwards unless --keep; --campaign ID exports a kept campaign again
without building one); without it, against a temporary SQLite file.
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
import uuid
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

SQLITE_VAR = "EVALSITE_BENCH_SQLITE"
TARGET_BYTES = 200_000_000
SLOTS_PER_HIT = 100
WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "Übersetzung naïve café «quoted» <tag> & 東京 مرحبا"
).split()
# Fragments that make the CSV writer quote and the JSON encoder escape.
NASTY = ['"quoted", he said', "a\ttab", "two\nlines", "<script>x</script>", "50% & $5"]
ROLES = (
    ["system"] * 70 + ["bad_reference"] * 10 + ["repeat"] * 10 + ["reference"] * 10
)  # a 100-slot direct-assessment HIT (2014 design)
STATUSES = ["approved"] * 90 + ["submitted"] * 8 + ["rejected"] * 2
AT = datetime(2024, 5, 17, 9, 30, 5, 123456, tzinfo=UTC)


def sentence(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 25)))
    return f"{words} {rng.choice(NASTY)}." if rng.random() < 0.3 else f"{words}."


def setup_django(sqlite_path: str | None) -> None:
    from django.conf import settings

    if sqlite_path:
        settings.DATABASES["default"]["NAME"] = sqlite_path
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # The test Client calls itself "testserver"; a production ALLOWED_HOSTS may not list it.
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    import django

    django.setup()
    import logging

    logging.getLogger("django.request").setLevel(logging.ERROR)


class Clock:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    def __call__(self) -> float:
        now = time.perf_counter()
        elapsed, self.started = now - self.started, now
        return elapsed


# --- Building the data -------------------------------------------------------------------------

# Every column of judgments_judgment that is NOT NULL or that the export shows, filled from the
# assignment and the slot; scores and durations vary with the ids ("%%": a literal % beside
# the query parameters).
INSERT_JUDGMENTS = """
INSERT INTO judgments_judgment (
    campaign_id, worker_id, assignment_id, slot_id, score, given_z, rank, text, yes_no,
    yes_no_second, details, client_started_at, client_duration_ms, served_at, submitted_at,
    server_duration_ms
)
SELECT a.campaign_id, a.worker_id, a.id, s.id, (a.id * 7 + s.id * 13) %% 101, NULL, NULL, '',
    NULL, NULL, '{}', %s, 1000 + (a.id * 31 + s.id * 17) %% 20000, %s, %s,
    1150 + (a.id * 31 + s.id * 17) %% 20000
FROM judgments_assignment a
JOIN campaigns_hitslot s ON s.hit_id = a.hit_id
WHERE a.campaign_id = %s
"""


def build(args, tag: str):
    """The campaign, its HITs, workers, assignments and judgments; returns (campaign, info)."""
    from django.db import connection, transaction

    from campaigns.kinds import new_campaign
    from campaigns.models import Document, Hit, HitSlot, Output, Segment, System
    from judgments.models import Assignment, Judgment, Worker

    rng = random.Random(2024)
    n_assignments = args.judgments // SLOTS_PER_HIT
    n_hits = n_assignments // args.redundancy
    n_segments = max(1, n_hits * SLOTS_PER_HIT // (args.systems * 10))
    campaign = new_campaign(
        settings={"assessment_mode": "adequacy"},
        name=f"bench-export-{tag}",
        kind="direct_assessment",
        source_language="de",
        target_language="en",
        redundancy=args.redundancy,
        status="active",
    ).save()
    with transaction.atomic():
        documents = Document.objects.bulk_create(
            Document(campaign=campaign, external_id=f"doc-{n:03d}", position=n + 1)
            for n in range(max(1, n_segments // 100))
        )
        systems = System.objects.bulk_create(
            System(campaign=campaign, name=f"system_{n:02d}") for n in range(args.systems)
        )
        segments = Segment.objects.bulk_create(
            (
                Segment(
                    campaign=campaign,
                    document=documents[n % len(documents)],
                    external_id=str(n + 1),
                    position=n // len(documents) + 1,
                    source=sentence(rng),
                    references=[sentence(rng)],
                )
                for n in range(n_segments)
            ),
            batch_size=2000,
        )
        outputs = Output.objects.bulk_create(
            (Output(system=s, segment=g, text=sentence(rng)) for g in segments for s in systems),
            batch_size=5000,
        )
        hits = Hit.objects.bulk_create(
            (Hit(campaign=campaign, task="assess", number=n + 1) for n in range(n_hits)),
            batch_size=5000,
        )
        # Slots in batches of 100 HITs, so that 200,000 slot objects never sit in memory.
        for start in range(0, n_hits, 100):
            HitSlot.objects.bulk_create(
                HitSlot(
                    hit=hit,
                    position=p + 1,
                    group=p // 10,
                    role=ROLES[p],
                    segment_id=output.segment_id,
                    output=output,
                    shown_text=output.text,
                )
                for h, hit in enumerate(hits[start : start + 100], start=start)
                for p in range(SLOTS_PER_HIT)
                for output in (outputs[(h * SLOTS_PER_HIT + p * 7919) % len(outputs)],)
            )
    workers = Worker.objects.bulk_create(
        Worker(platform="mturk", external_id=f"BENCH{tag}W{n:05d}") for n in range(args.workers)
    )
    far = campaign.created_at.replace(year=campaign.created_at.year + 1)
    Assignment.objects.bulk_create(
        (
            Assignment(
                campaign=campaign,
                reward=campaign.reward,
                hit=hits[a // args.redundancy],
                # HIT h goes to workers h*r .. h*r + r-1 (mod the worker count): distinct.
                worker=workers[a % len(workers)],
                status=rng.choice(STATUSES),
                platform_assignment_id=f"BENCH{tag}A{a:07d}",
                expires_at=far,
            )
            for a in range(n_assignments)
        ),
        batch_size=5000,
    )
    stamp = connection.ops.adapt_datetimefield_value(AT)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(INSERT_JUDGMENTS, [stamp, stamp, stamp, campaign.pk])
    n_judgments = Judgment.objects.filter(campaign=campaign).count()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE judgments_judgment")
    return campaign, {
        "hits": n_hits,
        "segments": n_segments,
        "outputs": len(outputs),
        "assignments": n_assignments,
        "judgments": n_judgments,
    }


def cleanup(campaign_id: int, tag: str) -> None:
    """Deletes in SQL what Django's collector would load row by row (a million judgments,
    the slots that refer to each other), then the rest with the ORM."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from campaigns.models import Campaign
    from judgments.models import Worker

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM judgments_judgment WHERE campaign_id = %s", [campaign_id])
        cursor.execute(
            "DELETE FROM campaigns_hitslot WHERE hit_id IN "
            "(SELECT id FROM campaigns_hit WHERE campaign_id = %s)",
            [campaign_id],
        )
        Campaign.objects.filter(pk=campaign_id).delete()
        Worker.objects.filter(external_id__startswith=f"BENCH{tag}W").delete()
        get_user_model().objects.filter(username=f"bench-analyst-{tag}").delete()


# --- Measuring one download (in a child process) -------------------------------------------------


def measure(campaign_id: int, token: str, fmt: str, traced: bool) -> dict:
    """Downloads one export through the test Client; figures as a dict."""
    import tracemalloc

    from django.test import Client

    client = Client()
    line_end = b"\r\n" if fmt == "csv" else b"\n"
    # Warm up as a serving process is: the URLconf, every view module and DRF imported (the
    # first request of a fresh process would otherwise count ~15 MiB of imports as export).
    client.get("/api/campaigns/0/export/judgments.csv", HTTP_AUTHORIZATION=f"Token {token}")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    response = client.get(
        f"/api/campaigns/{campaign_id}/export/judgments.{fmt}",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    if response.status_code != 200:
        raise SystemExit(f"{fmt}: HTTP {response.status_code}: {response.content[:500]!r}")
    first_byte = None
    n_bytes = n_lines = n_chunks = 0
    for chunk in response.streaming_content:
        if first_byte is None:
            first_byte = time.perf_counter() - started
        n_bytes += len(chunk)
        n_lines += chunk.count(line_end)
        n_chunks += 1
    response.close()
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if traced else None
    if traced:
        tracemalloc.stop()
    return {
        "format": fmt,
        "traced": traced,
        # CSV: a header line, and line breaks inside texts are "\n" only (never "\r\n").
        "rows": n_lines - (fmt == "csv"),
        "bytes": n_bytes,
        "chunks": n_chunks,
        "seconds": seconds,
        "first_byte": first_byte,
        "tracemalloc_peak": peak,
        "rss_before": rss_before,
        "max_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def prepare(args, temporary_db: bool) -> dict:
    """The child that builds the campaign (or finds the kept one) and an analyst's token."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from analytics.models import CampaignAccess
    from campaigns.models import Campaign

    if temporary_db:
        call_command("migrate", verbosity=0)
    clock = Clock()
    if args.campaign:
        campaign = Campaign.objects.get(pk=args.campaign)
        tag = campaign.name.removeprefix("bench-export-")
        info = {"judgments": campaign.judgments.count(), "built": None}
    else:
        tag = uuid.uuid4().hex[:8]
        campaign, info = build(args, tag)
        info["built"] = clock()
    analyst, _ = get_user_model().objects.get_or_create(username=f"bench-analyst-{tag}")
    CampaignAccess.objects.get_or_create(campaign=campaign, user=analyst)
    version = (
        f"{connection.pg_version // 10000}"
        if connection.vendor == "postgresql"
        else f"{connection.Database.sqlite_version} (temporary file)"
    )
    return {
        **info,
        "campaign": campaign.pk,
        "name": campaign.name,
        "tag": tag,
        "token": Token.objects.get_or_create(user=analyst)[0].key,
        "database": f"{connection.vendor} {version}",
    }


def run_step(step: list[str], sqlite: str | None, token: str = "") -> dict:
    """One step in a fresh child process; its figures from the JSON on its last line.

    The parent never imports Django and holds no data, and that matters: Linux carries a
    process's peak RSS across exec into the new program's getrusage() ru_maxrss, so a child
    forked from a parent that had built a million rows would report the parent's peak."""
    env = {**os.environ, "EVALSITE_BENCH_TOKEN": token}
    if sqlite:
        env[SQLITE_VAR] = sqlite
    done = subprocess.run(
        [sys.executable, __file__, *step], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{' '.join(step)} failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


# --- Main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--workers", type=int, default=500)
    parser.add_argument("--redundancy", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="Keep the campaign (DATABASE_URL).")
    parser.add_argument("--campaign", type=int, help="Export this kept campaign; build none.")
    # The children's steps.
    parser.add_argument("--step", choices=["prepare", "measure", "cleanup"], help=argparse.SUPPRESS)
    parser.add_argument("--format", choices=["csv", "jsonl"], help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tag", help=argparse.SUPPRESS)
    args = parser.parse_args()
    temporary_db = not os.environ.get("DATABASE_URL")

    if args.step:
        setup_django(os.environ.get(SQLITE_VAR))
        if args.step == "prepare":
            figures = prepare(args, temporary_db)
        elif args.step == "measure":
            token = os.environ["EVALSITE_BENCH_TOKEN"]
            figures = measure(args.campaign, token, args.format, args.traced)
        else:
            clock = Clock()
            cleanup(args.campaign, args.tag)
            figures = {"seconds": clock()}
        print(json.dumps(figures))
        return

    if args.judgments % (SLOTS_PER_HIT * args.redundancy):
        parser.error(f"--judgments must be a multiple of {SLOTS_PER_HIT} x --redundancy")
    if args.workers < args.redundancy:
        parser.error("--workers must be at least --redundancy")
    if args.campaign and temporary_db:
        parser.error("--campaign needs DATABASE_URL (the temporary database is gone)")
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        sqlite = str(Path(tmp) / "bench.sqlite3") if temporary_db else None
        build_args = [
            f"--{name}={getattr(args, name)}"
            for name in ("judgments", "systems", "workers", "redundancy")
        ]
        if args.campaign:
            build_args.append(f"--campaign={args.campaign}")
        world = run_step(["--step=prepare", *build_args], sqlite)
        if world["built"] is None:
            print(f"campaign:      {world['name']} (kept), {world['judgments']:,} judgments")
        else:
            print(
                f"campaign:      {world['judgments']:,} judgments: {world['hits']:,} HITs x "
                f"{SLOTS_PER_HIT} slots, redundancy {args.redundancy} "
                f"({world['assignments']:,} assignments), {args.workers} workers, "
                f"{args.systems} systems, {world['segments']:,} segments; built in "
                f"{world['built']:.1f} s"
            )
        print(f"database:      {world['database']}")
        failed = []
        try:
            for fmt in ("csv", "jsonl"):
                step = ["--step=measure", f"--format={fmt}", f"--campaign={world['campaign']}"]
                timed = run_step(step, sqlite, world["token"])
                traced = run_step([*step, "--traced"], sqlite, world["token"])
                print(
                    f"{fmt + ':':<15}{timed['rows']:,} rows, {timed['bytes'] / 1e6:,.1f} MB in "
                    f"{timed['seconds']:.1f} s ({timed['rows'] / timed['seconds']:,.0f} rows/s, "
                    f"{timed['bytes'] / 1e6 / timed['seconds']:.1f} MB/s); first byte after "
                    f"{timed['first_byte']:.2f} s; {timed['chunks']:,} chunks"
                )
                print(
                    f"{'':15}memory: process max RSS {mib(timed['max_rss'])} "
                    f"({timed['max_rss'] / 1e6:.0f} MB), of which "
                    f"{mib(timed['rss_before'])} before the request (Django, the apps and "
                    f"their imports) and {mib(timed['max_rss'] - timed['rss_before'])} added "
                    f"by the export; tracemalloc peak during the request "
                    f"{mib(traced['tracemalloc_peak'])} (traced run: {traced['seconds']:.1f} s)"
                )
                for run in (timed, traced):
                    if run["rows"] != world["judgments"]:
                        failed.append(f"{fmt}: {run['rows']:,} rows, not {world['judgments']:,}")
                # The untraced run: tracemalloc's own bookkeeping inflates the traced one's RSS.
                if timed["max_rss"] >= TARGET_BYTES:
                    failed.append(f"{fmt}: max RSS {timed['max_rss'] / 1e6:.0f} MB")
        finally:
            if args.keep:
                print(
                    f"kept:          campaign {world['campaign']} (--campaign {world['campaign']})"
                )
            elif not temporary_db:
                step = [
                    "--step=cleanup",
                    f"--campaign={world['campaign']}",
                    f"--tag={world['tag']}",
                ]
                print(f"cleanup:       {run_step(step, sqlite)['seconds']:.1f} s")
        if failed:
            print("target:        MISSED: " + "; ".join(failed))
            raise SystemExit(1)
        print("target:        every download under 200 MB of max RSS, every row exported")


if __name__ == "__main__":
    main()
