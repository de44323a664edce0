#!/usr/bin/env python
"""fast_ter against sacrebleu's TER on the HTER bench's pairs: same numbers, CPU per pair.

    .venv/bin/python bench/fast_ter.py [--segments 300] [--repeats 5] [--seed 13]

The pairs are made as bench/hter_import.py makes its file (its ``_edited``): per segment a
translation of 10 to 45 words from a 5,000-word vocabulary, the reference is it with 2 to 6
word operations, an MT output it with 3 to 10 and a post-edit the MT output with 1 to 6. Two
kinds are scored: MT output -> post-edit (HTER: hypothesis = MT, reference = the edit) and
post-edit -> reference (the worker profiles' distance to the reference: two independent
edits of one translation, the slow kind). Unchanged edits are left out: the import scores
them without TER.

sacrebleu's ``lib_ter.translation_edit_rate`` and
``analytics.stats.post_editing.fast_ter.translation_edit_rate`` run on the same token lists,
alternated ``--repeats`` times in this one process (which goes first alternates too), so a
slow spell of the shared machine hits both. Every result of every run must be equal (the
script stops otherwise). Printed: CPU milliseconds per pair (process time, median over the
runs) of each, per kind, and sacrebleu / fast_ter.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from hter_import import _edited  # noqa: E402  (bench/ is not a package)
from sacrebleu.metrics import lib_ter  # noqa: E402

from analytics.stats.post_editing import fast_ter  # noqa: E402


def make_pairs(segments: int, seed: int) -> dict[str, list[tuple[list[str], list[str]]]]:
    """The bench's (hypothesis, reference) token lists of both kinds."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(5000)]
    pairs: dict[str, list[tuple[list[str], list[str]]]] = {
        "MT -> edit": [],
        "edit -> reference": [],
    }
    for _ in range(segments):
        translation = [rng.choice(vocab) for _ in range(rng.randint(10, 45))]
        reference = _edited(translation, rng, vocab, 2, 6)
        mt = _edited(translation, rng, vocab, 3, 10)
        edit = _edited(mt, rng, vocab, 1, 6)
        if edit != mt:
            pairs["MT -> edit"].append((mt, edit))
        if edit != reference:
            pairs["edit -> reference"].append((edit, reference))
    return pairs


def run(function, pairs: list[tuple[list[str], list[str]]]) -> tuple[float, list]:
    """CPU seconds of scoring every pair, and the results."""
    start = time.process_time()
    results = [function(hyp, ref) for hyp, ref in pairs]
    return time.process_time() - start, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()

    kinds = make_pairs(args.segments, args.seed)
    functions = {
        "sacrebleu": lib_ter.translation_edit_rate,
        "fast_ter": fast_ter.translation_edit_rate,
    }
    print(
        f"pairs: {', '.join(f'{len(p):,} {kind}' for kind, p in kinds.items())}; "
        f"{os.cpu_count()} cores; load average {os.getloadavg()}"
    )
    seconds: dict[tuple[str, str], list[float]] = {
        (kind, name): [] for kind in kinds for name in functions
    }
    for repeat in range(args.repeats):
        order = list(functions) if repeat % 2 == 0 else list(functions)[::-1]
        for kind, pairs in kinds.items():
            results = {}
            for name in order:
                cpu, results[name] = run(functions[name], pairs)
                seconds[kind, name].append(cpu)
            mismatches = [
                (pair, slow, fast)
                for pair, slow, fast in zip(
                    pairs, results["sacrebleu"], results["fast_ter"], strict=True
                )
                if slow != fast
            ]
            if mismatches:
                pair, slow, fast = mismatches[0]
                raise SystemExit(
                    f"{len(mismatches)} {kind} results differ; first: sacrebleu {slow}, "
                    f"fast_ter {fast} on {pair}"
                )
        print(
            f"  run {repeat + 1} ({' then '.join(order)}): "
            + "  ".join(
                f"{kind} {name} {seconds[kind, name][-1] / len(kinds[kind]) * 1000:.3f}"
                for kind in kinds
                for name in functions
            )
            + " ms/pair; all results equal"
        )
    print("median CPU ms per pair   sacrebleu   fast_ter   sacrebleu/fast_ter")
    for kind, pairs in kinds.items():
        slow = statistics.median(seconds[kind, "sacrebleu"]) / len(pairs) * 1000
        fast = statistics.median(seconds[kind, "fast_ter"]) / len(pairs) * 1000
        print(f"  {kind:20s} {slow:9.3f} {fast:10.3f}   {slow / fast:6.2f}x")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
