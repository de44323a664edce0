"""The second variant of a DA report, reusing the first's shared parts, equals it computed alone."""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

import numpy as np
import pytest

from analytics.stats.direct_assessment import DAConfig, analyse_campaign
from tests.analytics.stats.test_da_simulation import simulate_campaign


def assert_same(a, b, path="report") -> None:
    if is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        for f in fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{k}]")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), path
    else:
        assert a == b, path


@pytest.mark.parametrize("include_first", [False, True])
def test_reused_variant_equals_the_one_computed_alone(include_first):
    rng = np.random.default_rng(16)
    judgments, _ = simulate_campaign(
        rng, n_careful=20, n_random=6, hits_per_worker=2, workers_per_hit=4
    )
    first_cfg = DAConfig(include_unreliable=include_first)
    second_cfg = replace(first_cfg, include_unreliable=not include_first)
    first = analyse_campaign(judgments, first_cfg)
    reused = analyse_campaign(judgments, second_cfg, reuse=first)
    alone = analyse_campaign(judgments, second_cfg)
    assert_same(reused, alone)


def test_reuse_refuses_other_settings():
    rng = np.random.default_rng(17)
    judgments, _ = simulate_campaign(
        rng, n_careful=6, n_random=2, hits_per_worker=1, workers_per_hit=4
    )
    first = analyse_campaign(judgments, DAConfig())
    with pytest.raises(ValueError):
        analyse_campaign(judgments, DAConfig(alpha=0.01), reuse=first)


@pytest.mark.parametrize("include_first", [False, True])
def test_both_variants_at_once_equal_each_computed_alone(include_first):
    """analyse_variants (the agreements in a thread beside both variants' system scores)
    gives what analyse_campaign gives each variant alone: key False the configured one, key
    True the one counting every worker (the same settings when the config counts everyone)."""
    from analytics.stats.direct_assessment import analyse_variants

    rng = np.random.default_rng(18)
    judgments, _ = simulate_campaign(
        rng, n_careful=20, n_random=6, hits_per_worker=2, workers_per_hit=4
    )
    config = DAConfig(include_unreliable=include_first)
    got = analyse_variants(judgments, config)
    assert got.keys() == {False, True}
    assert_same(got[False], analyse_campaign(judgments, config))
    assert_same(got[True], analyse_campaign(judgments, replace(config, include_unreliable=True)))
    assert got[True].config.include_unreliable
    # The filtered variant counted fewer workers (the simulation has random clickers).
    assert include_first or got[False].included_workers.sum() < got[True].included_workers.sum()
