#!/usr/bin/env python
"""Server time of the requester's admin pages on a large campaign: the campaign's own page
(results panel, checklist, form), its judgments' list and its dashboard's progress plot,
alternating the current code with the tree of another commit in the same run.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_f \\
    REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python bench/admin_pages.py --campaign 3 [--rounds 2] [--baseline 5f29573]

The database is one the other benches built and kept (a campaign of a million judgments:
``bench/da_stats.py --judgments 1000000 --keep``; ranking: ``bench/ranking_stats.py --sets
50000 --keep``). Each round runs, for each code (the baseline's first), a fresh Python process
that logs in a superuser (``bench-admin``, created if missing) and asks for each page through
Django's test client, the whole stack but gunicorn: one request to warm up, then ``--repeat``
(3), of which it keeps the fastest, with its queries counted. It prints each page's time and
queries per code and round, then the medians and the ratio. Nothing here is a pass/fail check.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trees import commit_tree  # noqa: E402 (the path above first)

PAGES = (
    ("campaign page", "/admin/campaigns/campaign/{pk}/change/"),
    ("judgments list", "/admin/judgments/judgment/?campaign__id__exact={pk}"),
    ("progress plot", "/admin/campaigns/campaign/{pk}/dashboard/plots/progress/"),
)


def child(tree: Path, campaign: int, repeat: int) -> None:
    """Time the pages with the code of ``tree``; print one JSON line."""
    sys.path.insert(0, str(tree))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    user, _ = get_user_model().objects.get_or_create(username="bench-admin")
    user.is_staff = user.is_superuser = True
    user.save()
    client = Client()
    client.force_login(user)
    result = {}
    for name, path in PAGES:
        url = path.format(pk=campaign)
        if client.get(url).status_code != 200:
            raise SystemExit(f"{url}: not 200")
        best, queries = None, 0
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                client.get(url)
                elapsed = time.perf_counter() - started
            if best is None or elapsed < best:
                best, queries = elapsed, len(captured.captured_queries)
        result[name] = {"ms": 1000 * best, "queries": queries}
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaign", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="a commit to alternate with (its whole tree)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        raise SystemExit("Set DATABASE_URL (a bench database with a large campaign)")
    if args.child:
        child(Path(args.child), args.campaign, args.repeat)
        return
    codes = [("current", ROOT)]
    if args.baseline:
        codes.insert(0, (args.baseline, commit_tree(args.baseline, "admin-pages-baseline-")))
    times: dict[tuple[str, str], list[float]] = {}
    print(f"campaign {args.campaign}; the fastest of {args.repeat} requests a page")
    for round_number in range(1, args.rounds + 1):
        for code, tree in codes:
            out = (
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        str(tree),
                        "--campaign",
                        str(args.campaign),
                    ]
                    + ["--repeat", str(args.repeat)],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd=tree,
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            for name, figures in json.loads(out).items():
                times.setdefault((code, name), []).append(figures["ms"])
                print(
                    f"round {round_number}  {code:>10}  {name:<15} {figures['ms']:8.0f} ms  "
                    f"{figures['queries']:3d} queries"
                )
    print("median")
    for name, _ in PAGES:
        line = "  ".join(
            f"{code} {statistics.median(times[(code, name)]):.0f} ms" for code, _ in codes
        )
        if args.baseline:
            ratio = statistics.median(times[("current", name)]) / statistics.median(
                times[(args.baseline, name)]
            )
            line += f"  (current / baseline {ratio:.2f}x)"
        print(f"  {name:<15} {line}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
