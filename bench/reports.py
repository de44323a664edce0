#!/usr/bin/env python
"""What the campaign report and "judgments still needed" cost, next to a recompute.

    .venv/bin/python bench/reports.py [--judgments 100000] [--systems 10] [--rounds 5]

Builds a direct-assessment campaign as bench/da_stats.py does (its ``build``: 100-item HITs,
90% careful and 10% random workers, rejections and exclusions), computes its results once,
then alternates, ``--rounds`` times in one process: the baseline, a full recompute
(``analytics.actions.recompute_campaign``, what every submission burst triggers), then the
report (``analytics.reports.loading.campaign_report``: six queries and the arithmetic) and
the still-needed estimate (the kind's estimator called directly, bypassing its cache, as the
first page view after a recompute runs it). Prints each one's median seconds, its ratio to the
recompute's, the report's query count, and the load average (the machine is shared: ratios
are what to compare). With DATABASE_URL set it runs against that database and deletes the
campaign afterwards; without, against a temporary SQLite file.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--workers", type=int, default=500)
    parser.add_argument("--judgments", type=int, default=100_000)
    parser.add_argument("--redundancy", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        from django.conf import settings

        temporary_db = not os.environ.get("DATABASE_URL")
        if temporary_db:
            settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
        settings.CELERY_TASK_ALWAYS_EAGER = True
        import django

        django.setup()
        import logging

        logging.getLogger("analytics").setLevel(logging.WARNING)
        logging.getLogger("campaigns").setLevel(logging.WARNING)
        from da_stats import build
        from django.core.management import call_command
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from analytics import actions
        from analytics.kinds import statistics_of
        from analytics.reports.estimates import StillNeeded
        from analytics.reports.kinds import kind_report
        from analytics.reports.loading import campaign_report

        if temporary_db:
            call_command("migrate", verbosity=0)
        campaign, info = build(args, f"reports{os.getpid()}")
        print(f"campaign {campaign.pk}: {info}")
        actions.recompute_campaign(campaign)
        estimate = kind_report(campaign).estimate
        base = StillNeeded(
            campaign_id=campaign.pk,
            campaign_name=campaign.name,
            kind=campaign.kind,
            computed_at=statistics_of(campaign).stored_computed_at(campaign),
            available=False,
        )
        times: dict[str, list[float]] = {"recompute": [], "report": [], "still_needed": []}
        result = None
        for _ in range(args.rounds):
            for name, run in (
                ("recompute", lambda: actions.recompute_campaign(campaign)),
                ("report", lambda: campaign_report(campaign)),
                ("still_needed", lambda: estimate(campaign, replace(base))),
            ):
                started = time.perf_counter()
                result = run()
                times[name].append(time.perf_counter() - started)
                if name == "still_needed":
                    pairs = result.pairs
        with CaptureQueriesContext(connection) as queries:
            campaign_report(campaign)
        baseline = statistics.median(times["recompute"])
        print(f"load average {os.getloadavg()}")
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{name:13s} median {median:.3f} s  ratio to recompute {median / baseline:.2f}")
        print(f"report queries: {len(queries)}; still needed: {len(pairs)} open pairs")
        if not temporary_db:
            from campaigns.models import Campaign

            Campaign.objects.filter(pk=campaign.pk).delete()


if __name__ == "__main__":
    main()
