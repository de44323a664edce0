#!/usr/bin/env python
"""Do two versions of the code give the very same ranking analysis of a campaign?

    DATABASE_URL=postgres://evalsite:evalsite@127.0.0.1:5432/evalsite_b_bench \\
        .venv/bin/python bench/ranking_identical.py --campaign 2,3,1 --baseline 5896221

For each campaign, a fresh process of the current tree and one of the baseline commit's tree
(``git archive`` into a temporary directory) each load the campaign
(``load_ranking_judgments``, with the stored trust table's memory and the references) and
run ``analyse_loaded_ranking`` with the campaign's settings, then write every value of the
loaded campaign and of the analysis (gold trust, every variant's scores by every method with
their bootstrap samples, intervals, rank ranges, p-values and clusters, TrueSkill, agreement,
Spearman) to a pickle. Nothing is stored. The values are compared as bench/da_identical.py
compares them (arrays element by element, NaN equal to NaN; everything else by ``repr``, so a
change in the last bit of a float counts). Prints the differences and exits 1 when there is
one. Speed-ups must leave this silent (METHODS.md: WMT's official tables).
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from da_identical import run  # noqa: E402  (bench/ is not a package)


def dump(campaign_id: int, out: str) -> None:
    """Child process, run inside the tree to measure: the analysis's values to ``out``."""
    import dataclasses

    sys.path.insert(0, os.getcwd())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
    import django

    django.setup()
    import numpy as np

    from analytics.kinds.ranking import actions
    from campaigns.models import Campaign

    campaign = Campaign.objects.get(pk=campaign_id)
    loaded = actions.load_ranking_judgments(campaign_id)
    analysis = actions.analyse_loaded_ranking(
        loaded,
        actions.ranking_config_for(campaign),
        actions.load_prior_trust(campaign_id),
        actions.load_references(campaign),
    )
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

    walk(loaded, "loaded")
    walk(analysis, "analysis")
    with open(out, "wb") as sink:
        pickle.dump(values, sink)


def main() -> None:
    run("ranking", __doc__.split("\n\n")[0], str(Path(__file__).resolve()), dump)


if __name__ == "__main__":
    main()
