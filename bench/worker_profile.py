#!/usr/bin/env python
"""Where a worker request's time goes, in one process (issue 16, items 1 and 5): the hand-out
(the worker link), the item and the submit endpoints, each timed through the whole Django
stack (the test client: URL resolving, every middleware, the view) and through the view alone
(RequestFactory), with its queries counted, then a cProfile of the submit loop.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_h4_prof \\
    REDIS_URL=redis://127.0.0.1:6379/4 \\
        .venv/bin/python bench/worker_profile.py [--hits 60] [--items 20] [--top 40]

The database is migrated and a fresh direct-assessment campaign is built in it (the
submissions bench's campaign: one worker per HIT). Times are CPU seconds of this process
(``time.process_time``) and wall seconds; the PostgreSQL server's own time is in the wall
time only. Nothing here is a pass/fail check: it prints where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hits", type=int, default=60)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--top", type=int, default=40, help="profile lines to print")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        raise SystemExit("Set DATABASE_URL (a database of its own) and REDIS_URL")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    from django.db import connection
    from django.test import Client, RequestFactory
    from django.test.utils import CaptureQueriesContext

    with connection.cursor() as cursor:  # the submissions bench's build empties this table
        cursor.execute("CREATE TABLE IF NOT EXISTS bare_app_row (id serial, value integer)")
    from bench.submissions import build
    from judgments import views

    built = build(args.hits, args.items)
    links = built["links"]
    half = len(links) // 2
    client = Client()
    factory = RequestFactory()
    # endpoint -> way -> [cpu seconds, wall seconds, requests, queries]
    totals: dict[str, dict[str, list[float]]] = {}

    def timed(endpoint: str, way: str, call):
        started_cpu, started = time.process_time(), time.perf_counter()
        with CaptureQueriesContext(connection) as queries:
            response = call()
        cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started
        row = totals.setdefault(endpoint, {}).setdefault(way, [0.0, 0.0, 0, 0])
        row[0] += cpu
        row[1] += wall
        row[2] += 1
        row[3] += len(queries)
        return response

    def walk(link: str, way: str) -> None:
        """One worker's HIT: the link (hand-out), the item, one submit per item."""
        token = link.rstrip("/").rsplit("/", 1)[1]
        if way == "stack":
            response = timed("link", way, lambda: client.get(link))
        else:
            request = factory.get(link)
            response = timed("link", way, lambda: views.worker_link(request, token))
        task = response["Location"]
        task_token = task.rstrip("/").rsplit("/", 1)[1]
        if way == "stack":
            response = timed("item", way, lambda: client.get(task + "item"))
        else:
            request = factory.get(task + "item")
            response = timed("item", way, lambda: views.task_item(request, task_token))
        body = json.loads(response.content)
        score = 50
        while body["next"] is not None:
            payload = json.dumps({"position": body["next"]["position"], "score": score})
            if way == "stack":
                response = timed(
                    "submit",
                    way,
                    lambda payload=payload: client.post(
                        task + "submit", payload, content_type="application/json"
                    ),
                )
            else:
                request = factory.post(task + "submit", payload, content_type="application/json")
                response = timed(
                    "submit",
                    way,
                    lambda request=request: views.task_submit(request, task_token),
                )
            body = json.loads(response.content)
            assert body["ok"], body

    # Warm up (imports, the hot SQL's statements built once), then alternate the two ways.
    walk(links[0], "stack")
    totals.clear()
    for index, link in enumerate(links[1:half]):
        walk(link, "stack" if index % 2 else "view")
    print(f"{'endpoint':8} {'way':6} {'requests':>8} {'cpu ms':>8} {'wall ms':>8} {'queries':>8}")
    for endpoint, ways in totals.items():
        for way, (cpu, wall, requests, queries) in sorted(ways.items()):
            print(
                f"{endpoint:8} {way:6} {requests:8d} {cpu / requests * 1000:8.2f} "
                f"{wall / requests * 1000:8.2f} {queries / requests:8.2f}"
            )

    profile = cProfile.Profile()
    profile.enable()
    for link in links[half:]:
        walk(link, "stack")
    profile.disable()
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    stats.sort_stats("cumulative").print_stats(args.top)
    stats.sort_stats("tottime").print_stats(args.top)
    print(text.getvalue())


if __name__ == "__main__":
    main()
