#!/usr/bin/env python
"""Post-editing at scale: a full recompute of a campaign with 50,000 stored edits, and the TER
scoring of 10,000 new edits with one and two processes (issue 13's performance paragraph).

    DATABASE_URL=postgres://... .venv/bin/python bench/hter_recompute.py
        [--edits 50000] [--systems 4] [--redundancy 5] [--segments-per-hit 10]
        [--workers 250] [--votes 3] [--gold-share 0.1] [--repeats 3] [--budget 2]
        [--score-edits 10000] [--celery] [--keep]

Part 1, the recompute (target: at most 2 s once the edits are stored). A post-editing campaign
is inserted directly with bulk_create, the way the live pipeline leaves it: documents of
``--segments-per-hit`` segments, one edit HIT per system and run (a Latin square), each done
by ``--redundancy`` editors, one verification HIT per edit assignment with ``--votes`` votes
per crowd edit, a gold editor ("pro") who edited ``--gold-share`` of the runs, 5% of the
editors leaving every segment untouched; and, as the scoring would have stored them, one
PostEditScore per edit and one PostEditOutputScore per output under the campaign's TER
signature. Then ``analytics.actions.recompute_campaign`` runs end to end (verification HITs
to build: none; edits to score: none; load, statistics, store), alternating ``--repeats``
times with the baseline: the bare read of the same rows (the loader's queries into Python
lists, no numpy, no statistics, no store), the floor any recompute pays. Medians, their ratio
and the share of the budget are printed, with the recompute split into its steps.

Part 2, scoring (``analytics.kinds.post_editing.scoring.score_pending_edits``): a campaign of
``--score-edits`` new edits with real texts (references of 10-45 words from a 5,000-word
vocabulary, each system's output 2-8 word operations away from its reference, each edit 1-6
operations away from its output: substitutions, insertions, deletions, moved blocks), none
scored yet; per edit two TERs (against the MT output and against the reference) and per
output one. Timed with ``processes=1`` and ``processes=2``, alternating, the rows deleted
between runs; medians and ratio.

``--celery`` also measures the same scoring inside a Celery prefork worker (2 processes,
started here on REDIS_URL, queue ``pe-bench``), where a process pool cannot start: one task
scoring every edit in one process, against the fan-out (``fan_out_scoring``: chunk tasks of
1,000 edits that both worker processes take). The time is until every row is stored.

With DATABASE_URL unset it runs on a temporary SQLite file (no ``--celery`` then). The
campaigns and their workers are deleted afterwards unless ``--keep``. The campaigns are built
by bench/hter_recompute_build.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
BENCH_QUEUE = "pe-bench"


class Clock:
    def __init__(self) -> None:
        self.started = time.perf_counter()

    def __call__(self) -> float:
        now = time.perf_counter()
        elapsed, self.started = now - self.started, now
        return elapsed


def median(values: list[float]) -> float:
    return statistics.median(values)


# --- Part 1: the recompute, its baseline and its steps -----------------------------------------


def analyze_tables() -> None:
    """Fresh planner statistics, as autovacuum keeps them on a live database: right after a
    bulk insert of this size PostgreSQL plans the anti-joins as if the tables were empty
    (nested loops over 200,000 rows, tens of seconds), which no live campaign sees."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def baseline_read(campaign_id: int, signature: str) -> int:
    """The loader's queries, rows into Python lists and nothing else: the floor of a load."""
    from analytics.kinds.post_editing.scoring import edit_judgments
    from analytics.loading import held_back_assignment_ids
    from analytics.models import PostEditOutputScore, PostEditScore
    from campaigns.models import HitTask, Output
    from judgments.models import CampaignWorker, Judgment

    rows = 0
    for queryset in (
        edit_judgments(campaign_id).values_list(
            "id", "worker_id", "assignment_id", "slot__output_id"
        ),
        PostEditScore.objects.filter(campaign_id=campaign_id, signature=signature).values_list(
            "judgment_id", "edits", "ref_length", "reference_edits", "reference_length"
        ),
        Judgment.objects.filter(
            campaign_id=campaign_id, slot__hit__task=HitTask.VERIFY_EDIT
        ).values_list(
            "worker_id", "assignment_id", "slot__about_judgment_id", "yes_no", "yes_no_second"
        ),
        Output.objects.filter(system__campaign_id=campaign_id).values_list(
            "id", "system_id", "segment_id", "segment__document_id"
        ),
        PostEditOutputScore.objects.filter(
            campaign_id=campaign_id, signature=signature
        ).values_list("output_id", "edits", "ref_length"),
        CampaignWorker.objects.filter(campaign_id=campaign_id, excluded=True).values_list(
            "worker_id"
        ),
    ):
        rows += len(list(queryset.order_by()))
    return rows + len(held_back_assignment_ids(campaign_id))


def recompute_steps(campaign):
    """The recompute's steps timed one by one (as recompute_post_editing runs them)."""
    from django.utils import timezone

    from analytics.kinds.post_editing import actions as pe
    from analytics.kinds.post_editing.loading import load_post_editing
    from campaigns.kinds.post_editing.verification import build_verification_hits

    clock = Clock()
    computed_at = timezone.now()
    built = build_verification_hits(campaign)
    config = pe.post_editing_config_for(campaign)
    pending = pe.pending_edit_ids(campaign.pk, config.signature)
    checks = clock()
    loaded = load_post_editing(campaign.pk, config.signature, config.gold_editor)
    load = clock()
    analysis = pe.analyse_loaded_post_editing(loaded, config)
    compute = clock()
    pe.store_post_editing_results(campaign, loaded, analysis, computed_at)
    store = clock()
    assert built == 0 and not pending, (built, len(pending))
    return {"checks": checks, "load": load, "compute": compute, "store": store}, loaded, analysis


# --- Part 2: scoring new edits -------------------------------------------------------------------


def drop_scores(campaign) -> None:
    from analytics.models import PostEditOutputScore, PostEditScore

    PostEditScore.objects.filter(campaign=campaign).delete()
    PostEditOutputScore.objects.filter(campaign=campaign).delete()


def wait_scored(campaign, n: int, timeout: float = 600) -> float:
    from analytics.models import PostEditScore

    started = time.perf_counter()
    while PostEditScore.objects.filter(campaign=campaign).count() < n:
        if time.perf_counter() - started > timeout:
            raise TimeoutError("the worker did not score every edit")
        time.sleep(0.1)
    return time.perf_counter() - started


def start_worker():
    env = dict(os.environ, ANALYTICS_RECOMPUTE_QUEUE=BENCH_QUEUE)
    worker = subprocess.Popen(
        [str(ROOT / ".venv/bin/celery"), "-A", "evalsite", "worker", "--pool", "prefork",
         "--concurrency", "2", "-Q", BENCH_QUEUE, "--loglevel", "WARNING", "-n",
         f"pe-bench-{uuid.uuid4().hex[:6]}@%h"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    from evalsite.celery import app

    for _ in range(100):
        if app.control.ping(timeout=0.5):
            return worker
        time.sleep(0.3)
    worker.terminate()
    raise RuntimeError("the Celery worker did not start")


def celery_scoring(campaign, n: int, repeats: int) -> dict[str, list[float]]:
    from analytics.kinds.post_editing import scoring
    from analytics.kinds.post_editing import tasks as post_editing_tasks

    times: dict[str, list[float]] = {"one task": [], "fan-out": []}
    worker = start_worker()
    try:
        for r in range(repeats):
            modes = ("one task", "fan-out") if r % 2 == 0 else ("fan-out", "one task")
            for mode in modes:
                drop_scores(campaign)
                ids = scoring.pending_edit_ids(campaign.pk, scoring.ter_signature_for(campaign))
                scoring.cache_delete(
                    scoring.fan_out_key(campaign.pk, scoring.ter_signature_for(campaign))
                )
                started = time.perf_counter()
                if mode == "one task":
                    post_editing_tasks.score_edit_chunk.apply_async(
                        args=[campaign.pk, scoring.ter_signature_for(campaign), ids],
                        queue=BENCH_QUEUE,
                    )
                else:
                    assert scoring.fan_out_scoring(campaign, ids)
                wait_scored(campaign, n)
                times[mode].append(time.perf_counter() - started)
                print(f"  celery run {r + 1} {mode:8s} {times[mode][-1]:6.2f} s")
    finally:
        worker.terminate()
        worker.wait(30)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--systems", type=int, default=4)
    parser.add_argument("--redundancy", type=int, default=5)
    parser.add_argument("--segments-per-hit", type=int, default=10)
    parser.add_argument("--workers", type=int, default=250)
    parser.add_argument("--votes", type=int, default=3)
    parser.add_argument("--gold-share", type=float, default=0.1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=2.0, help="seconds for the recompute")
    parser.add_argument("--score-edits", type=int, default=10_000, help="0: no part 2")
    parser.add_argument(
        "--score-repeats", type=int, default=1, help="runs of each scoring mode (alternated)"
    )
    parser.add_argument("--celery", action="store_true", help="also score in a Celery worker")
    parser.add_argument("--keep", action="store_true", help="Keep the campaigns (DATABASE_URL).")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        from django.conf import settings

        temporary_db = not os.environ.get("DATABASE_URL")
        if temporary_db:
            settings.DATABASES["default"]["NAME"] = str(Path(tmp) / "bench.sqlite3")
            if args.celery:
                parser.error("--celery needs DATABASE_URL and REDIS_URL")
        if args.celery:
            os.environ["ANALYTICS_RECOMPUTE_QUEUE"] = BENCH_QUEUE
        settings.ANALYTICS_RECOMPUTE_QUEUE = BENCH_QUEUE if args.celery else ""

        import django

        django.setup()
        import logging

        for name in ("analytics", "campaigns", "judgments"):
            logging.getLogger(name).setLevel(logging.WARNING)
        from django.core.management import call_command
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        from analytics import actions
        from analytics.kinds.post_editing import scoring
        from analytics.kinds.post_editing.panel import post_editing_results_context
        from analytics.models import PostEditingResult, PostEditingSystemScore
        from bench.hter_recompute_build import build_stored, build_unscored
        from evalsite.celery import app
        from judgments.models import Worker
        from judgments.signals import exclusions_changed, judgments_recorded

        exclusions_changed.disconnect(dispatch_uid="analytics.recompute_on_exclusions_changed")
        judgments_recorded.disconnect(dispatch_uid="analytics.recompute_on_judgments_recorded")
        # This process only measures: tasks it sends (the chunks' recomputes) run inline
        # unless --celery sends them to the worker.
        app.conf.task_always_eager = not args.celery

        if temporary_db:
            call_command("migrate", verbosity=0)
        tag = uuid.uuid4().hex[:8]
        clock = Clock()
        campaign, info = build_stored(args, tag)
        generated = clock()
        analyze_tables()
        campaigns = [campaign]
        try:
            database = connection.vendor + (
                f" {connection.pg_version // 10000}"
                if connection.vendor == "postgresql"
                else f" {connection.Database.sqlite_version} (temporary file)"
            )
            print(f"database:      {database}; {os.cpu_count()} cores")
            print(
                f"campaign:      {args.systems} systems, {info['segments']:,} segments in "
                f"{info['runs']:,} documents, {info['outputs']:,} outputs, {info['edit_hits']:,} "
                f"edit HITs of {args.segments_per_hit}, redundancy {args.redundancy}"
            )
            print(
                f"stored:        {info['edits']:,} edits ({info['gold_edits']:,} gold, "
                f"{info['lazy_workers']} of {args.workers} editors did nothing) with their TER, "
                f"{info['verify_hits']:,} verification HITs, {info['votes']:,} votes; "
                f"built in {generated:.1f} s"
            )
            signature = scoring.ter_signature_for(campaign)
            actions.recompute_campaign(campaign)  # warm up (imports, caches, first store)

            times: dict[str, list[float]] = {"recompute": [], "baseline": []}
            cpu: dict[str, list[float]] = {"recompute": [], "baseline": []}
            print(f"load average:  {os.getloadavg()[0]:.1f} (the machine is shared)")
            for r in range(args.repeats):
                modes = ("baseline", "recompute") if r % 2 == 0 else ("recompute", "baseline")
                for mode in modes:
                    clock()
                    started_cpu = time.process_time()
                    if mode == "recompute":
                        actions.recompute_campaign(campaign)
                    else:
                        rows = baseline_read(campaign.pk, signature)
                    times[mode].append(clock())
                    cpu[mode].append(time.process_time() - started_cpu)
                    print(
                        f"  run {r + 1} {mode:9s} {times[mode][-1]:6.3f} s "
                        f"(this process's CPU {cpu[mode][-1]:.3f} s)"
                    )
            recompute, baseline = median(times["recompute"]), median(times["baseline"])
            print(
                f"recompute:     median {recompute:.3f} s end to end (recompute_campaign: "
                f"verification and scoring checks, load, statistics, store)"
            )
            print(
                f"baseline:      median {baseline:.3f} s (the same {rows:,} rows read, "
                "nothing else)"
            )
            print(
                f"CPU here:      median {median(cpu['recompute']):.3f} s recompute, "
                f"{median(cpu['baseline']):.3f} s baseline (PostgreSQL's own time not counted); "
                f"load average now {os.getloadavg()[0]:.1f}"
            )
            print(
                f"ratio:         recompute / baseline = {recompute / baseline:.2f}; "
                f"{recompute / args.budget:.0%} of the {args.budget:g} s budget: "
                + ("within" if recompute <= args.budget else "OVER")
            )
            with CaptureQueriesContext(connection) as queries:
                steps, loaded, analysis = recompute_steps(campaign)
            print(
                "steps:         "
                + ", ".join(f"{name} {seconds:.3f} s" for name, seconds in steps.items())
                + f" ({len(queries)} queries)"
            )
            result = PostEditingResult.objects.get(campaign=campaign)
            top = (
                PostEditingSystemScore.objects.filter(campaign=campaign, include_flagged=False)
                .select_related("system")
                .order_by("position")
            )
            print(
                f"results:       {result.n_passed:,} passed, {result.n_failed:,} failed, "
                f"{result.n_unverified:,} unverified; HTER "
                + ", ".join(f"{s.system.name[-2:]} {s.corpus:.3f} (c{s.cluster})" for s in top)
            )
            combinations = result.variant(False)["combinations"] or {}
            rho = {k: round(v["rho"], 2) for k, v in combinations.get("methods", {}).items()}
            print(
                f"003:           {combinations.get('n_documents', 0)} documents ranked, rho {rho}"
            )
            clock()
            with CaptureQueriesContext(connection) as queries:
                post_editing_results_context(campaign, False)
            print(f"admin panel:   {clock():.3f} s ({len(queries)} queries)")
            clock()
            stale = list(actions.stale_campaigns().values_list("pk", flat=True))
            print(f"sweep query:   {clock():.3f} s (this campaign stale: {campaign.pk in stale})")

            # Part 2: scoring new edits.
            if args.score_edits <= 0:
                return
            clock()
            unscored, sinfo = build_unscored(args, tag)
            campaigns.append(unscored)
            analyze_tables()
            print(
                f"\nscoring:       {sinfo['edits']:,} new edits of {sinfo['outputs']:,} outputs "
                f"(built in {clock():.1f} s): {2 * sinfo['edits'] + sinfo['outputs']:,} TER pairs"
            )
            score_times: dict[int, list[float]] = {1: [], 2: []}
            for r in range(args.score_repeats):
                for processes in (1, 2) if r % 2 == 0 else (2, 1):
                    drop_scores(unscored)
                    clock()
                    n = scoring.score_pending_edits(unscored, processes=processes)
                    score_times[processes].append(clock())
                    assert n == sinfo["edits"]
                    print(
                        f"  run {r + 1} processes={processes} {score_times[processes][-1]:6.2f} s"
                    )
            one, two = median(score_times[1]), median(score_times[2])
            print(
                f"score_pending_edits: {one:.2f} s with 1 process, {two:.2f} s with 2 "
                f"(speed-up {one / two:.2f}x)"
            )
            if args.celery:
                celery = celery_scoring(unscored, sinfo["edits"], args.score_repeats)
                single, fan = median(celery["one task"]), median(celery["fan-out"])
                print(
                    f"in a Celery worker (prefork, 2 processes): {single:.2f} s in one task, "
                    f"{fan:.2f} s fanned out in chunks of {scoring.CHUNK_EDITS} "
                    f"(speed-up {single / fan:.2f}x)"
                )
        finally:
            if not temporary_db and not args.keep:
                clock()
                from campaigns.models import Hit, HitTask
                from judgments.models import Judgment

                for built in campaigns:
                    # Votes and verification slots first: a slot protects the edit it shows.
                    Judgment.objects.filter(
                        campaign=built, slot__hit__task=HitTask.VERIFY_EDIT
                    ).delete()
                    Hit.objects.filter(campaign=built, task=HitTask.VERIFY_EDIT).delete()
                    built.delete()
                Worker.objects.filter(external_id__contains=tag).delete()
                print(f"cleanup:       {clock():.1f} s")


if __name__ == "__main__":
    main()
