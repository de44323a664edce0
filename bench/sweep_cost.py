#!/usr/bin/env python
"""The analytics sweep's cost when nothing is stale (issue 11, item 10).

    [DATABASE_URL=postgres://...] .venv/bin/python bench/sweep_cost.py
        [--judgments 1000000] [--campaigns 1] [--runs 20]

The sweep (``analytics.tasks.recompute_stale_campaigns``) runs every ANALYTICS_SWEEP_SECONDS
(15 s) so that a recompute lost with a killed worker is repaired within 30 s; it must be cheap
when nothing is stale. This builds ``--campaigns`` direct-assessment campaigns of
``--judgments`` judgments in all (bench/export_judgments.py's builder), computes their results,
then times ``analytics.actions.recompute_stale_campaigns()`` ``--runs`` times and prints the
queries per run and the median and worst time. Without DATABASE_URL it runs on a temporary
SQLite file; with it, the campaigns are deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--campaigns", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()

    import export_judgments as builder

    temporary = None if os.environ.get("DATABASE_URL") else tempfile.mkdtemp()
    builder.setup_django(str(Path(temporary) / "sweep.sqlite3") if temporary else None)

    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from analytics import actions

    if temporary:
        call_command("migrate", verbosity=0)
    built = []
    started = time.perf_counter()
    per_campaign = argparse.Namespace(
        judgments=args.judgments // args.campaigns, systems=10, workers=500, redundancy=5
    )
    for _ in range(args.campaigns):
        tag = uuid.uuid4().hex[:8]
        campaign, info = builder.build(per_campaign, tag)
        built.append((campaign, tag, info["judgments"]))
        actions.recompute_campaign(campaign)
    print(f"database:   {connection.vendor}")
    print(
        f"built:      {sum(n for *_, n in built):,} judgments in {len(built)} campaign(s), "
        f"results computed, in {time.perf_counter() - started:.1f} s"
    )
    try:
        times, queries = [], set()
        for _ in range(args.runs):
            with CaptureQueriesContext(connection) as captured:
                t0 = time.perf_counter()
                stale = actions.recompute_stale_campaigns()
                times.append(time.perf_counter() - t0)
            queries.add(len(captured.captured_queries))
            assert stale == [], f"stale after the recompute: {stale}"
        print(f"sweep:      {sorted(queries)} quer(y/ies) per run, nothing stale")
        print(
            f"time:       median {statistics.median(times) * 1000:.1f} ms, "
            f"worst {max(times) * 1000:.1f} ms over {args.runs} runs"
        )
    finally:
        if not temporary:
            for campaign, tag, _ in built:
                builder.cleanup(campaign.pk, tag)


if __name__ == "__main__":
    main()
