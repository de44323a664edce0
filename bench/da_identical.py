#!/usr/bin/env python
"""Do two versions of the code give the very same direct-assessment analysis of a campaign?

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_perf_f \\
        .venv/bin/python bench/da_identical.py --campaign 2,1 --baseline 574f4c9

For each campaign, a fresh process of the current tree and one of the baseline commit's tree
(``git archive`` into a temporary directory) each load the campaign
(``load_da_judgments``) and run ``analyse_loaded`` with the campaign's settings, then write
every value of the analysis (every per-worker and per-system array, every agreement figure,
p-value, cluster and recommendation) to a pickle. The values are compared exactly: arrays
element by element (NaN equal to NaN), floats and everything else by ``repr``, so a change in
the last bit of a float counts. Prints the differences and exits 1 when there is one.
Speed-ups of the statistics must leave this silent (METHODS.md: WMT's official tables).
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.trees import commit_tree  # noqa: E402 (the path above first)


def dump(campaign_id: int, out: str) -> None:
    """Child process, run inside the tree to measure: the analysis's values to ``out``."""
    import dataclasses

    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    import numpy as np

    from analytics.kinds.direct_assessment import actions
    from campaigns.models import Campaign

    campaign = Campaign.objects.get(pk=campaign_id)
    loaded = actions.load_da_judgments(campaign_id)
    analysis = actions.analyse_loaded(loaded, actions.da_config_for(campaign))
    values: dict[str, object] = {}

    def walk(obj: object, name: str) -> None:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            for field in dataclasses.fields(obj):
                walk(getattr(obj, field.name), f"{name}.{field.name}")
        elif isinstance(obj, dict):
            for key, value in obj.items():
                walk(value, f"{name}[{key}]")
        elif isinstance(obj, list | tuple) and obj and dataclasses.is_dataclass(obj[0]):
            for k, value in enumerate(obj):
                walk(value, f"{name}[{k}]")
        elif isinstance(obj, np.ndarray):
            values[name] = np.asarray(obj)
        else:
            values[name] = obj

    walk(analysis, "analysis")
    with open(out, "wb") as sink:
        pickle.dump(values, sink)


def differences(old: dict, new: dict) -> list[str]:
    import numpy as np

    found = []
    for name in sorted(set(old) | set(new)):
        if name not in old or name not in new:
            found.append(f"{name}: only in {'new' if name in new else 'old'}")
            continue
        a, b = old[name], new[name]
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            if a.dtype == object or b.dtype == object:
                same = a.shape == b.shape and [repr(x) for x in a.tolist()] == [
                    repr(x) for x in b.tolist()
                ]
            else:
                nan_equal = a.dtype.kind in "fc" and b.dtype.kind in "fc"
                same = a.shape == b.shape and np.array_equal(a, b, equal_nan=nan_equal)
        else:
            same = repr(a) == repr(b)
        if not same:
            found.append(f"{name}: old {str(a)[:120]} / new {str(b)[:120]}")
    return found


def run(kind: str, description: str, script: str, dump_one) -> None:
    """The command line of a ``*_identical.py`` bench: ``--campaign`` ids and ``--baseline``
    commit; each campaign is dumped by ``script --dump`` (``dump_one``) in the baseline's tree
    and in this one, and every value compared (:func:`differences`). Exit status 1 on a
    difference."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--campaign", required=True, help=f"kept {kind} campaigns' ids, a,b")
    parser.add_argument("--baseline", required=True, help="commit to compare with")
    parser.add_argument("--dump", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump_one(int(args.dump), args.out)
        return
    work = Path(tempfile.mkdtemp(prefix=f"{kind.lower()}-identical-"))
    try:
        tree = commit_tree(args.baseline, f"{kind.lower()}-identical-baseline-")
        failed = False
        for campaign_id in (int(pk) for pk in args.campaign.split(",")):
            dumps = {}
            for code, cwd in (("old", tree), ("new", ROOT)):
                out = work / f"{code}-{campaign_id}.pickle"
                subprocess.run(
                    [sys.executable, script, "--campaign", str(campaign_id)]
                    + ["--baseline", args.baseline, "--dump", str(campaign_id), "--out", str(out)],
                    check=True,
                    cwd=cwd,
                    capture_output=True,
                )
                with open(out, "rb") as source:
                    dumps[code] = pickle.load(source)
            found = differences(dumps["old"], dumps["new"])
            print(
                f"campaign {campaign_id}: {len(dumps['new'])} values compared with "
                f"{args.baseline}, {len(found)} different"
            )
            for line in found:
                print("  " + line)
            failed = failed or bool(found)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


def main() -> None:
    run("DA", __doc__.split("\n\n")[0], str(Path(__file__).resolve()), dump)


if __name__ == "__main__":
    main()
