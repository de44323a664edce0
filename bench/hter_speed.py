#!/usr/bin/env python
"""HTER edit statistics of 10,000 (MT output, post-edit) pairs: one process vs a process pool.

    .venv/bin/python bench/hter_speed.py [--pairs 10000] [--repeats 3] [--processes N]
                                         [--chunk-size 250] [--seed 13] [--budget 5]

Issue 13's performance paragraph: HTER import of 10,000 post-edits in at most 5 s on this
2-core machine, sacrebleu alone taking about 9 s single-threaded.  This times the part that
costs, :func:`analytics.stats.post_editing.edit_stats_batch` (sacrebleu TER with tercom
defaults, hypothesis = MT output, reference = the edit), with ``processes=1`` and with
``processes=N`` (default: all cores).

Pairs: MT outputs of 10 to 45 words (mean ~27, like 003's 28-40 words per segment) drawn with
a seed from a 5,000-word vocabulary, each edited by 1 to 6 random word operations
(substitution, insertion, deletion, moving a word or a 2-3 word block); no pair is left
unchanged or repeated, so the batch's exact shortcuts (unchanged edits, repeated pairs) save
nothing here and the figures are for TER itself.  The machine is shared and noisy: the two
modes alternate, ``--repeats`` times each, and the medians and their ratio are printed, with
the check that both give identical numbers.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analytics.stats.post_editing import edit_stats_batch


def make_pairs(n: int, seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    mts: list[str] = []
    edits: list[str] = []
    while len(mts) < n:
        words = [rng.choice(vocab) for _ in range(rng.randint(10, 45))]
        edit = list(words)
        for _ in range(rng.randint(1, 6)):
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
        if edit == words:
            continue
        mts.append(" ".join(words))
        edits.append(" ".join(edit))
    return mts, edits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk-size", type=int, default=250)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--budget", type=float, default=5.0, help="seconds allowed")
    args = parser.parse_args()

    mts, edits = make_pairs(args.pairs, args.seed)
    words = sum(len(m.split()) for m in mts) / len(mts)
    print(
        f"{len(mts)} pairs, {words:.1f} MT words on average; {os.cpu_count()} cores; "
        f"pool of {args.processes} processes, chunks of {args.chunk_size}"
    )
    times: dict[str, list[float]] = {"single": [], "multi": []}
    results = {}
    for r in range(args.repeats):
        # Alternate which mode goes first so that a slow spell hits both alike.
        modes = ("single", "multi") if r % 2 == 0 else ("multi", "single")
        for mode in modes:
            procs = 1 if mode == "single" else args.processes
            start = time.perf_counter()
            out = edit_stats_batch(mts, edits, processes=procs, chunk_size=args.chunk_size)
            elapsed = time.perf_counter() - start
            times[mode].append(elapsed)
            results[mode] = out
            print(f"  run {r + 1} {mode:6s} {elapsed:6.2f} s  ({len(mts) / elapsed:7.0f} pairs/s)")
    same = (results["single"].edits == results["multi"].edits).all() and (
        results["single"].ref_length == results["multi"].ref_length
    ).all()
    single = statistics.median(times["single"])
    multi = statistics.median(times["multi"])
    print(f"signature: {results['multi'].signature}")
    print(f"identical numbers single vs multi: {bool(same)}")
    print(f"mean TER: {results['multi'].ter.mean():.4f}")
    print(f"median single-process: {single:.2f} s = {len(mts) / single:.0f} pairs/s")
    print(f"median {args.processes}-process:    {multi:.2f} s = {len(mts) / multi:.0f} pairs/s")
    print(f"speed-up (single / multi): {single / multi:.2f}x")
    fits = multi <= args.budget
    print(f"{len(mts)} pairs within {args.budget:g} s with the pool: {'yes' if fits else 'NO'}")


if __name__ == "__main__":
    main()
