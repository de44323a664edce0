"""TrueSkill ratings (Sakaguchi et al. 2014 / WMT14) against the trueskill library and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trueskill

from analytics.stats.ranking import (
    RankingJudgments,
    TrueSkillSettings,
    trueskill_rating,
    trueskill_ratings,
)

# Every warning of the statistics is an error here; a socket some earlier test left to the
# garbage collector is not this module's business.
pytestmark = pytest.mark.filterwarnings(
    "error", "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


def one_match(rank_a: int, rank_b: int) -> RankingJudgments:
    return RankingJudgments.from_ballots(
        [{"worker": 1, "ranking_set": 1, "ranks": {0: rank_a, 1: rank_b}}]
    )


def test_wmt14_settings() -> None:
    # keisks/wmt-trueskill src/infer_TS.py: mu 0, sigma 0.5, tau 0, draw rate 0.25,
    # beta = sigma * n / 40.
    s = TrueSkillSettings.wmt14(400)
    assert (s.mu, s.sigma, s.tau, s.draw_probability) == (0.0, 0.5, 0.0, 0.25)
    assert s.beta == pytest.approx(0.5 * 400 / 40)
    d = TrueSkillSettings.library_default()
    assert (d.mu, d.sigma, d.beta, d.tau, d.draw_probability) == pytest.approx(
        (25.0, 25.0 / 3, 25.0 / 6, 25.0 / 300, 0.10), rel=1e-15
    )


def test_one_win_with_library_defaults_by_hand() -> None:
    # Both start at mu 25, sigma 25/3; tau adds (25/300)^2 to each variance first.
    #   s2 = (25/3)^2 + (25/300)^2 = 69.4514;  c^2 = 2 beta^2 + 2 s2 = 34.7222 + 138.9028
    #   c = 13.1767;  draw margin = Phi^-1((0.1 + 1) / 2) * sqrt(2) * beta = 0.74046
    #   t = 0, eps = 0.74046 / c = 0.056195
    #   v = phi(t - eps) / Phi(t - eps) = 0.39831 / 0.47759 = 0.83400
    #   mu_winner = 25 + s2 / c * v = 25 + 4.3958 = 29.396 (the library's documented result)
    r = trueskill_ratings(one_match(1, 2), settings="default")
    s2 = (25 / 3) ** 2 + (25 / 300) ** 2
    c = math.sqrt(2 * (25 / 6) ** 2 + 2 * s2)
    margin = trueskill.calc_draw_margin(0.10, 2, trueskill.TrueSkill())
    x = -margin / c
    pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    cdf = 0.5 * math.erfc(-x / math.sqrt(2))
    v = pdf / cdf
    w = v * (v + x)
    # The library's own normal cdf uses a rational erfc approximation (fractional error below
    # 1.2e-7, Numerical Recipes' erfcc), so the exact erfc here agrees to about 1e-7.
    assert r.mu[0] == pytest.approx(25 + s2 / c * v, rel=1e-7)
    assert r.mu[0] == pytest.approx(29.396, abs=5e-4)
    assert r.mu[1] == pytest.approx(25 - s2 / c * v, rel=1e-7)
    assert r.sigma[0] == pytest.approx(math.sqrt(s2 * (1 - s2 / c**2 * w)), rel=1e-6)
    assert r.sigma[0] == pytest.approx(7.171, abs=5e-4)
    assert r.ranked_systems.tolist() == [0, 1]


def test_one_draw_with_library_defaults() -> None:
    # A draw between equals leaves mu at 25 and shrinks sigma to 6.458 (library docs).
    r = trueskill_ratings(one_match(1, 1), settings="default")
    assert r.mu == pytest.approx([25.0, 25.0], abs=1e-9)
    assert r.sigma == pytest.approx([6.458, 6.458], abs=5e-4)


def _campaign(seed: int) -> RankingJudgments:
    rng = np.random.default_rng(seed)
    specs = []
    for s in range(150):
        systems = rng.choice(6, 4, replace=False)
        score = systems * 0.5 + rng.normal(0, 1, 4)
        ranks = 1 + (np.round(score)[None, :] > np.round(score)[:, None]).sum(axis=1)
        specs.append(
            {
                "worker": s % 7,
                "ranking_set": s,
                "ranks": dict(zip(systems.tolist(), ranks.tolist(), strict=True)),
            }
        )
    return RankingJudgments.from_ballots(specs)


@pytest.mark.parametrize("settings", ["wmt14", "default"])
def test_closed_form_equals_the_library_factor_graph(settings: str) -> None:
    j = _campaign(0)
    fast = trueskill_ratings(j, settings=settings, seed=5)  # type: ignore[arg-type]
    slow = trueskill_ratings(j, settings=settings, seed=5, engine="library")  # type: ignore[arg-type]
    assert fast.n_matches == slow.n_matches == len(j.pairs)
    assert fast.mu == pytest.approx(slow.mu, abs=1e-9)
    assert fast.sigma == pytest.approx(slow.sigma, abs=1e-9)


def test_seeded_order_and_recovered_ranking() -> None:
    j = _campaign(1)
    a = trueskill_ratings(j, seed=1)
    b = trueskill_ratings(j, seed=1)
    c = trueskill_ratings(j, seed=2)
    assert np.array_equal(a.mu, b.mu) and not np.array_equal(a.mu, c.mu)
    assert a.settings.beta == pytest.approx(0.5 * len(j.pairs) / 40)
    # Quality grows with the system id: the best systems come out on top.
    assert set(a.ranked_systems[:2].tolist()) == {4, 5}
    assert set(a.ranked_systems[-2:].tolist()) == {0, 1}
    with pytest.raises(ValueError):
        trueskill_ratings(j, engine="fast")  # type: ignore[arg-type]


@pytest.mark.parametrize("settings", ["wmt14", "default"])
def test_compiled_loop_equals_the_python_loop(settings: str, monkeypatch) -> None:
    # The compiled loop (numba) is the Python loop's arithmetic operation for operation with
    # the library's cdf and pdf written out: the same ratings to the last bits.
    monkeypatch.setattr(trueskill_rating, "COMPILED_FROM_MATCHES", 1)
    j = _campaign(2)
    compiled = trueskill_ratings(j, settings=settings, seed=3)  # type: ignore[arg-type]
    python = trueskill_ratings(j, settings=settings, seed=3, engine="python")  # type: ignore[arg-type]
    assert compiled.n_matches == python.n_matches == len(j.pairs)
    np.testing.assert_allclose(compiled.mu, python.mu, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(compiled.sigma, python.sigma, rtol=1e-13)


def test_few_matches_run_the_python_loop_and_many_the_compiled_one(monkeypatch) -> None:
    # Below the threshold the default is the Python loop itself (no numba import in a small
    # campaign's request); from it on, the compiled loop.
    j = _campaign(2)
    n = len(j.pairs)
    calls = []
    from analytics.stats.ranking import trueskill_kernel

    real = trueskill_kernel.run_matches
    monkeypatch.setattr(
        trueskill_kernel, "run_matches", lambda *args: (calls.append(len(args[5])), real(*args))
    )
    monkeypatch.setattr(trueskill_rating, "COMPILED_FROM_MATCHES", n + 1)
    small = trueskill_ratings(j, seed=3)
    python = trueskill_ratings(j, seed=3, engine="python")
    assert calls == []
    assert np.array_equal(small.mu, python.mu) and np.array_equal(small.sigma, python.sigma)
    monkeypatch.setattr(trueskill_rating, "COMPILED_FROM_MATCHES", n)
    trueskill_ratings(j, seed=3)
    assert calls == [n]


def test_compiled_loop_reports_an_underflow_as_the_python_loop_does() -> None:
    # Library defaults with a huge gap: a win by the far weaker player underflows the cdf.
    from analytics.stats.ranking.trueskill_kernel import run_matches

    mu = np.array([0.0, 1e6])
    var = np.array([1.0, 1.0])
    with pytest.raises(FloatingPointError, match="win update underflowed"):
        run_matches(0.1, 1.0, 0.0, mu, var, np.array([0]), np.array([1]), np.array([False]))
