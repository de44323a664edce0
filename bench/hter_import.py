#!/usr/bin/env python
"""HTER import of 10,000 post-edits end to end: parse, validate, write, TER, statistics.

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/<scratch db> \\
        .venv/bin/python bench/hter_import.py [--edits 10000] [--repeats 3] [--no-reference]
                                              [--processes N] [--seed 13] [--budget 5]

Issue 13's performance paragraph: HTER import of 10,000 post-edits in at most 5 s on this
2-core machine. This writes a post-edit TSV (docs/import-formats.md, "Post-edits") and imports
it with ``import_judgments`` as ``manage.py import_judgments`` does (a new campaign, the
statistics computed in the importing process), timing where the time goes:

- ``check``: reading and checking the file (``check_judgment_import``: nothing written);
- ``write``: the one transaction of bulk inserts (``write_judgments``);
- then the recompute the import hands the campaign to (``recompute_campaign``), split into
  ``verification HITs`` (``build_verification_hits``), ``TER`` (``score_pending_edits``: the
  HTER pairs, MT output -> edit, with fast_ter, stored) and ``statistics`` (the rest: load,
  aggregate, store);
- ``references after``, not part of the import: the edits' and outputs' TER against the
  reference (worker profiles, the fallback of outputs without a passed edit, "0 editors"),
  which a large import leaves to chunk tasks on the Celery workers; timed here in this
  process with the pool.

At the end, the TER floor: the file's HTER pairs scored by sacrebleu alone in one process
(the issue's "about 9 s"), by fast_ter (numpy) in one process, by the compiled kernel
(ter_kernel, numba) in one process and by the import's batch with the pool, alternated, with
the numbers checked equal.

Each timed import runs in a forked process of its own, as ``manage.py import_judgments`` runs
in a fresh one: the compiled TER kernel is then not loaded yet, and its loading (about a
second of CPU per process that scores with it) is in the figures. Before the timed runs the
kernel is compiled to its on-disk cache once (a fresh clone's first use compiles it: that
time is printed, not counted).

The file: 500 segments in documents of 20, 4 systems, 5 editors per output (000's design):
10,000 post-edits. Per segment a translation of 10 to 45 words (mean ~27, like 003's
segments) drawn with a seed from a 5,000-word vocabulary, as in bench/hter_speed.py; the
reference is it with 2 to 6 random word operations (substitution, insertion, deletion, moving
a block), each system's MT output it with 3 to 10, and each editor's edit the MT output with 1
to 6, or (one edit in eight) the MT output unchanged, which is common in post-editing and
which the batch scores without sacrebleu (equal token lists: 0 edits). So outputs, edits and
reference resemble each other as translations of one source do. ``--no-reference``: no
references, so only the MT-to-edit pairs are scored.

Modes, alternated ``--repeats`` times each so that a slow spell of the shared machine hits
both alike: ``pool`` (TER in a process pool of ``--processes``, default every core: what the
import does) and its baseline ``single`` (TER in the importing process). Each run imports
into a fresh campaign of the scratch database (deleted afterwards). The medians per phase and
their ratios are printed, then the TER floor (above).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

SYSTEMS = 4
EDITORS = 5
SEGMENTS_PER_DOC = 20
PHASES = (
    "check",
    "write",
    "verification HITs",
    "TER",
    "statistics",
    "total",
    "CPU",
    "references after",
)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its waited-for children (the pool's
    processes once it is shut down). PostgreSQL's own work is not in it. On a shared machine
    the wall clock depends on the others' load; CPU seconds much less."""
    import resource

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _edited(words: list[str], rng: random.Random, vocab: list[str], low: int, high: int):
    edit = list(words)
    for _ in range(rng.randint(low, high)):
        op = rng.random()
        i = rng.randrange(len(edit))
        if op < 0.3:
            edit[i] = rng.choice(vocab)
        elif op < 0.55:
            edit.insert(i, rng.choice(vocab))
        elif op < 0.75 and len(edit) > 3:
            del edit[i]
        else:
            size = rng.randint(1, 3)
            block = edit[i : i + size]
            del edit[i : i + size]
            j = rng.randrange(len(edit) + 1)
            edit[j:j] = block
    return edit


def write_file(path: Path, edits: int, seed: int, reference: bool) -> dict[str, float]:
    """The post-edit TSV; what it holds (rows, unchanged share, mean MT words)."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    segments = max(1, edits // (SYSTEMS * EDITORS))
    rows = unchanged = words = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("doc_id\tseg_id\tsrc\tref\tsystem\tmt\tpe\teditor\n")
        for segment in range(segments):
            doc = f"doc{segment // SEGMENTS_PER_DOC + 1}"
            seg = segment % SEGMENTS_PER_DOC + 1
            translation = [rng.choice(vocab) for _ in range(rng.randint(10, 45))]
            source = " ".join(f"s{word}" for word in translation)
            ref = " ".join(_edited(translation, rng, vocab, 2, 6)) if reference else ""
            for system in range(SYSTEMS):
                mt_words = _edited(translation, rng, vocab, 3, 10)
                mt = " ".join(mt_words)
                for editor in range(EDITORS):
                    if rows >= edits:
                        break
                    if rng.random() < 1 / 8:
                        pe = mt
                        unchanged += 1
                    else:
                        pe = " ".join(_edited(mt_words, rng, vocab, 1, 6))
                    out.write(
                        f"{doc}\t{seg}\t{source}\t{ref}\tsys{system}\t{mt}\t{pe}\ted{editor}\n"
                    )
                    rows += 1
                    words += len(mt_words)
    return {"rows": rows, "unchanged": unchanged / rows, "mt_words": words / rows}


class Timer:
    """Wraps functions of the import and the recompute to time them (seconds per name)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, name: str, function: Callable, **fixed) -> Callable:
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **{**kwargs, **fixed})
            finally:
                self.seconds[name] += time.perf_counter() - start

        return timed


def run_once(path: Path, processes: int, counts: dict[str, int]) -> dict[str, float]:
    import analytics.actions
    import analytics.kinds.post_editing.actions as pe_actions
    import campaigns.importers.judgments as importers
    import campaigns.kinds.post_editing.verification as verification
    from analytics.kinds.post_editing.scoring import score_pending_references
    from analytics.models import PostEditOutputScore, PostEditScore
    from campaigns.models import Campaign

    timer = Timer()
    deferred: list[tuple[str, int]] = []
    originals = (
        importers.write_judgments,
        importers.recompute_campaign,
        pe_actions.score_pending_edits,
        verification.build_verification_hits,
        pe_actions.fan_out_scoring,
    )
    importers.write_judgments = timer.wrap("write", originals[0])
    importers.recompute_campaign = timer.wrap("recompute", originals[1])
    pe_actions.score_pending_edits = timer.wrap("TER", originals[2], processes=processes)
    verification.build_verification_hits = timer.wrap("verification HITs", originals[3])

    # What the Celery workers get after the import: the reference pairs, in chunk tasks. Here
    # they are recorded instead of sent, and scored below, timed apart.
    def record(campaign, pending, part="all"):
        deferred.append((part, len(pending)))
        return True

    pe_actions.fan_out_scoring = record
    name = f"bench hter import {uuid.uuid4().hex[:8]}"
    cpu = cpu_seconds()
    try:
        start = time.perf_counter()
        checked = importers.check_judgment_import(
            [str(path)], importers.ImportOptions("post-edits", name=name, language_pair="de-en")
        )
        timer.seconds["check"] = time.perf_counter() - start
        summary = importers.write_checked_judgments(checked)
        timer.seconds["total"] = time.perf_counter() - start
        timer.seconds["CPU"] = cpu_seconds() - cpu
    finally:
        (
            importers.write_judgments,
            importers.recompute_campaign,
            pe_actions.score_pending_edits,
            verification.build_verification_hits,
            pe_actions.fan_out_scoring,
        ) = originals
    assert analytics.actions  # the recompute's module, wrapped above through the importer
    if summary.notes and "failed" in " ".join(summary.notes):
        raise SystemExit(f"the statistics failed: {summary.notes}")
    campaign = Campaign.objects.get(pk=summary.campaign_id)
    counts["HTER stored at the end of the import"] = PostEditScore.objects.filter(
        campaign=campaign
    ).count()
    counts["deferred"] = sum(n for part, n in deferred if part == "references")
    start = time.perf_counter()
    score_pending_references(campaign, processes=processes)
    timer.seconds["references after"] = time.perf_counter() - start
    counts["edits"] = PostEditScore.objects.filter(campaign=campaign).count()
    counts["edit-reference pairs"] = PostEditScore.objects.filter(
        campaign=campaign, reference_edits__isnull=False
    ).count()
    counts["output-reference pairs"] = PostEditOutputScore.objects.filter(
        campaign=campaign, edits__isnull=False
    ).count()
    timer.seconds["statistics"] = (
        timer.seconds["recompute"] - timer.seconds["TER"] - timer.seconds["verification HITs"]
    )
    _delete(campaign)
    return dict(timer.seconds)


def _delete(campaign) -> None:
    """The bench's campaign goes (verification slots point at the edits: they go first)."""
    from analytics.models import PostEditOutputScore, PostEditScore
    from campaigns.models import Hit, HitTask
    from judgments.models import Judgment

    PostEditScore.objects.filter(campaign=campaign).delete()
    PostEditOutputScore.objects.filter(campaign=campaign).delete()
    Judgment.objects.filter(campaign=campaign, slot__hit__task=HitTask.VERIFY_EDIT).delete()
    Hit.objects.filter(campaign=campaign, task=HitTask.VERIFY_EDIT).delete()
    campaign.delete()


def _isolated_child(connection, path: Path, processes: int) -> None:
    counts: dict[str, int] = {}
    try:
        connection.send((run_once(path, processes, counts), counts))
    except BaseException as error:  # reported by the parent
        connection.send(error)
        raise


def run_isolated(path: Path, processes: int, counts: dict[str, int]) -> dict[str, float]:
    """:func:`run_once` in a forked process (a fresh import process: nothing of the TER
    kernel loaded); the parent's database connections are closed first, so that the child
    opens its own."""
    import multiprocessing

    from django.db import connections

    connections.close_all()
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(send, path, processes))
    child.start()
    answer = receive.recv()
    child.join()
    if isinstance(answer, BaseException):
        raise SystemExit(f"the import failed: {answer!r}")
    seconds, child_counts = answer
    counts.update(child_counts)
    return seconds


def compile_kernel() -> float:
    """Compile (or load) the TER kernel in a separate process so that its on-disk cache
    exists before the timed runs; seconds taken."""
    import subprocess

    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from analytics.stats.post_editing.ter_kernel import edit_counts; "
            "edit_counts([['a', 'b']], [['b', 'a']])",
        ],
        check=True,
        cwd=ROOT,
    )
    return time.perf_counter() - start


def ter_floor(path: Path, processes: int) -> dict[str, float]:
    """The file's MT-to-edit pairs scored three ways, alternated twice (medians): sacrebleu
    alone in one process (the issue's "about 9 s"), fast_ter (numpy) in one process, the
    compiled kernel in one process (its first call, loading numba and the code, timed
    apart), and the import's batch with the pool; the numbers are checked to be equal."""
    import csv

    from sacrebleu.metrics import TER

    from analytics.stats.post_editing import edit_stats_batch
    from analytics.stats.post_editing.fast_ter import translation_edit_rate

    with path.open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file, delimiter="\t", quoting=csv.QUOTE_NONE))
    mts, pes = [r["mt"] for r in rows], [r["pe"] for r in rows]
    changed = sum(1 for mt, pe in zip(mts, pes, strict=True) if mt.split() != pe.split())
    seconds: dict[str, list[float]] = defaultdict(list)
    # The pairs as edit_stats_batch tokenises them (tercom's tokeniser, lower case): the
    # bench's words have neither case nor punctuation, so split() is the same.
    hyp_words = [mt.lower().split() for mt in mts]
    ref_words = [pe.lower().split() for pe in pes]
    start, cpu = time.perf_counter(), time.process_time()
    from analytics.stats.post_editing.ter_kernel import edit_counts

    edit_counts([["a", "b"]], [["b", "a"]])
    seconds["kernel load"].append(time.perf_counter() - start)
    seconds["kernel load CPU"].append(time.process_time() - cpu)
    for _ in range(2):
        start, cpu = time.perf_counter(), time.process_time()
        expected = TER()._extract_corpus_statistics(mts, [pes])
        seconds["sacrebleu"].append(time.perf_counter() - start)
        seconds["sacrebleu CPU"].append(time.process_time() - cpu)
        start, cpu = time.perf_counter(), time.process_time()
        numpy_port = [
            translation_edit_rate(h, r) if h != r else (0, len(r))
            for h, r in zip(hyp_words, ref_words, strict=True)
        ]
        seconds["fast_ter"].append(time.perf_counter() - start)
        seconds["fast_ter CPU"].append(time.process_time() - cpu)
        start, cpu = time.perf_counter(), time.process_time()
        single = edit_stats_batch(mts, pes, processes=1)
        seconds["compiled"].append(time.perf_counter() - start)
        seconds["compiled CPU"].append(time.process_time() - cpu)
        start = time.perf_counter()
        pooled = edit_stats_batch(mts, pes, processes=processes)
        seconds["pool"].append(time.perf_counter() - start)
        want = [int(e) for e, _ in expected]
        if single.edits.tolist() != want or pooled.edits.tolist() != want:
            raise SystemExit("the compiled kernel's edit counts differ from sacrebleu's")
        if [int(e) for e, _ in numpy_port] != want:
            raise SystemExit("fast_ter's edit counts differ from sacrebleu's")
    floor = {name: statistics.median(values) for name, values in seconds.items()}
    floor["changed"] = changed
    return floor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds allowed")
    parser.add_argument("--no-reference", action="store_true")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        raise SystemExit("Set DATABASE_URL to a scratch PostgreSQL database (see the docstring).")

    import django
    from django.conf import settings

    # As in production (DEBUG keeps every query's SQL) and with a broker (tasks are not run
    # inline), so that a large import leaves its reference pairs to the workers; the chunk
    # tasks are recorded rather than sent (run_once), any other message goes to an in-memory
    # broker.
    settings.DEBUG = False
    settings.CELERY_TASK_ALWAYS_EAGER = False
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    with tempfile.TemporaryDirectory(prefix="evalsite-bench-") as tmp:
        path = Path(tmp) / "post-edits.tsv"
        shape = write_file(path, args.edits, args.seed, not args.no_reference)
        print(
            f"{shape['rows']:,.0f} post-edits ({SYSTEMS} systems x {EDITORS} editors per "
            f"output, {shape['unchanged']:.0%} unchanged, {shape['mt_words']:.1f} MT words on "
            f"average, {'with' if not args.no_reference else 'without'} references), "
            f"{path.stat().st_size / 1e6:.1f} MB; {os.cpu_count()} cores; PostgreSQL; load "
            f"average {os.getloadavg()}"
        )
        times: dict[str, list[dict[str, float]]] = {"pool": [], "single": []}
        counts: dict[str, int] = {}
        print(f"TER kernel compiled or loaded in a fresh process: {compile_kernel():.1f} s")
        # Untimed: the first import of a process loads modules and fills caches (the forked
        # processes of the timed runs inherit them, but not the TER kernel: run_isolated).
        warm = Path(tmp) / "warm-up.tsv"
        write_file(warm, 200, args.seed + 1, not args.no_reference)
        run_once(warm, args.processes, {})
        for r in range(args.repeats):
            modes = ("pool", "single") if r % 2 == 0 else ("single", "pool")
            for mode in modes:
                processes = args.processes if mode == "pool" else 1
                seconds = run_isolated(path, processes, counts)
                times[mode].append(seconds)
                print(
                    f"  run {r + 1} {mode:6s} "
                    + "  ".join(f"{phase} {seconds[phase]:5.2f}" for phase in PHASES)
                )
        pairs = counts["edits"] + counts["edit-reference pairs"] + counts["output-reference pairs"]
        print(
            f"At the end of the import: {counts['HTER stored at the end of the import']:,} "
            f"edits with their HTER stored; {counts['deferred']:,} edits' reference pairs "
            "left to the Celery workers' chunk tasks (scored here afterwards: "
            "'references after')"
        )
        print(
            f"TER pairs per import: {counts['edits']:,} MT-to-edit (HTER), "
            f"{counts['edit-reference pairs']:,} edit-to-reference (worker profiles), "
            f"{counts['output-reference pairs']:,} output-to-reference (no edit passed; 0 "
            f"editors) = {pairs:,}"
        )
        print(f"median seconds   {'pool':>8s} {'single':>8s}  single/pool")
        medians = {
            mode: {phase: statistics.median(run[phase] for run in runs) for phase in PHASES}
            for mode, runs in times.items()
        }
        for phase in PHASES:
            pool, single = medians["pool"][phase], medians["single"][phase]
            ratio = f"{single / pool:5.2f}x" if pool > 0 else "   -"
            print(f"  {phase:18s} {pool:6.2f} {single:8.2f}   {ratio}")
        pool_total = medians["pool"]["total"]
        print(
            f"10,000-edit budget {args.budget:g} s: {pool_total:.2f} s with the pool: "
            f"{'met' if pool_total <= args.budget else 'NOT met'}"
        )
        floor = ter_floor(path, args.processes)
        changed = int(floor["changed"])
        print(
            f"TER alone on the file's {shape['rows']:,.0f} MT-to-edit pairs "
            f"({changed:,} changed), median of 2 alternated runs:\n"
            f"  sacrebleu, one process     {floor['sacrebleu']:6.2f} s "
            f"({floor['sacrebleu CPU']:.2f} CPU s, "
            f"{floor['sacrebleu CPU'] / changed * 1000:.2f} ms a changed pair)\n"
            f"  fast_ter (numpy), one process  {floor['fast_ter']:6.2f} s "
            f"({floor['fast_ter CPU']:.2f} CPU s): {floor['sacrebleu'] / floor['fast_ter']:.1f}x\n"
            f"  compiled kernel, first call    {floor['kernel load']:6.2f} s "
            f"({floor['kernel load CPU']:.2f} CPU s: importing numba, loading the code)\n"
            f"  compiled, one process (batch)  {floor['compiled']:6.2f} s "
            f"({floor['compiled CPU']:.2f} CPU s, tokenising included): "
            f"{floor['sacrebleu'] / floor['compiled']:.1f}x\n"
            f"  compiled, {args.processes} processes (batch)  {floor['pool']:6.2f} s: "
            f"{floor['sacrebleu'] / floor['pool']:.1f}x sacrebleu alone"
        )
        other = pool_total - medians["pool"]["TER"]
        print(
            f"  the import's TER with the pool {medians['pool']['TER']:.2f} s; everything "
            f"but TER {other:.2f} s; the reference pairs after the import (Celery's chunk "
            f"tasks, timed here with the pool) {medians['pool']['references after']:.2f} s"
        )
        print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
