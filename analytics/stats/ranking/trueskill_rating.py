"""TrueSkill ratings of systems from pairwise outcomes (WMT14).

Sakaguchi, Post & Van Durme (2014), "Efficient Elicitation of Annotations for Human Evaluation
of Machine Translation" (WMT14), adapted TrueSkill (Herbrich, Minka & Graepel 2007) to the WMT
rankings, and WMT14's findings (Bojar et al. 2014) ranked systems by it.  Each system has a
Gaussian skill N(mu, sigma^2); every pairwise outcome (a win, a loss or a draw) updates the two
systems' Gaussians online, so the order in which outcomes are fed matters a little: we feed
every pairwise outcome between two systems once, in a random order drawn from ``seed``.

Settings (:class:`TrueSkillSettings`):

- ``"wmt14"``: the parameters of the authors' code for the paper (keisks/wmt-trueskill,
  src/infer_TS.py; the same values in mjpost/wmt-trueskill): mu = 0, sigma = 0.5, tau = 0,
  draw probability 0.25 and beta = sigma * n / 40 with n the number of matches played (their
  script plays n = number of pairwise judgments + 1, sampled; we play each judgment once, so
  n = the number of outcomes fed).  A beta that grows with n keeps each single comparison's
  update small, so that the final ratings do not depend much on the last few matches.
- ``"default"``: the trueskill library's defaults (mu = 25, sigma = 25/3, beta = 25/6, tau =
  25/300, draw probability 0.10), for comparison.

Engine: for two players (one per team) TrueSkill's factor graph is a tree and its message
passing reduces to the closed-form update of Herbrich et al. (2007), eq. for the two-player
case: with s2 = sigma^2 + tau^2 for each side, c^2 = 2 beta^2 + s2_a + s2_b, t = (mu_a -
mu_b) / c and eps = draw_margin / c::

    mu_a += s2_a / c * v(t, eps)          mu_b -= s2_b / c * v(t, eps)
    sigma_a^2 = s2_a (1 - s2_a / c^2 w)   sigma_b^2 = s2_b (1 - s2_b / c^2 w)

(a the winner; v, w the truncated-Gaussian corrections, their draw versions for a draw).  The
default ``engine="closed_form"`` runs exactly this with the library's own v/w formulas, cdf,
pdf and draw margin (trueskill.TrueSkill.v_win etc., trueskill.calc_draw_margin), compiled
(:mod:`analytics.stats.ranking.trueskill_kernel`, numba: the matches are sequential, so no
array operation can run them; about 30 times faster than the same loop in Python,
``engine="python"``, which is about 50 times faster than building a factor graph per match,
``engine="library"``, trueskill.rate_1vs1); all three agree to rounding (tested).
Below ``COMPILED_FROM_MATCHES`` matches the default runs the Python loop instead: importing
numba and loading the compiled code costs a process about a second and ~60 MiB, more than the
loop itself until some 100,000 matches, and a small campaign's first recompute runs inside a
worker's request when Celery is eager (the demo, the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import trueskill
from trueskill import backends as _backends

from analytics.stats.ranking.judgments import TIE, WORSE, Pairs, RankingJudgments
from analytics.stats.ranking.scores import competition_ranks, system_positions

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["TrueSkillResult", "TrueSkillSettings", "trueskill_ratings"]

Engine = Literal["closed_form", "python", "library"]

# The compiled loop from this many matches on (module docstring): 20,000 matches take the
# Python loop about 0.2 s.
COMPILED_FROM_MATCHES = 20_000


@dataclass(frozen=True)
class TrueSkillSettings:
    mu: float
    sigma: float
    beta: float
    tau: float
    draw_probability: float

    @classmethod
    def wmt14(cls, n_matches: int) -> TrueSkillSettings:
        """Sakaguchi et al. (2014) / WMT14 (module docstring); beta grows with n_matches."""
        sigma = 0.5
        return cls(
            mu=0.0,
            sigma=sigma,
            beta=sigma * max(n_matches, 1) / 40.0,
            tau=0.0,
            draw_probability=0.25,
        )

    @classmethod
    def library_default(cls) -> TrueSkillSettings:
        """The trueskill package's defaults (Herbrich et al. 2007's recommended ratios)."""
        return cls(
            mu=trueskill.MU,
            sigma=trueskill.SIGMA,
            beta=trueskill.BETA,
            tau=trueskill.TAU,
            draw_probability=trueskill.DRAW_PROBABILITY,
        )

    def environment(self) -> trueskill.TrueSkill:
        return trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
        )


@dataclass(frozen=True, eq=False)
class TrueSkillResult:
    """mu and sigma per system, aligned to ``systems`` (sorted ids); rank by mu (WMT14)."""

    systems: NDArray[np.int64]
    mu: NDArray[np.float64]
    sigma: NDArray[np.float64]
    n_matches: int
    settings: TrueSkillSettings
    seed: int

    @property
    def rank(self) -> NDArray[np.int64]:
        return competition_ranks(self.mu)

    @property
    def ranked_systems(self) -> NDArray[np.int64]:
        return self.systems[np.argsort(-self.mu, kind="stable")]


def trueskill_ratings(
    data: RankingJudgments | Pairs,
    *,
    settings: TrueSkillSettings | Literal["wmt14", "default"] = "wmt14",
    seed: int = 0,
    engine: Engine = "closed_form",
    systems: ArrayLike | None = None,
) -> TrueSkillResult:
    """Rate systems with TrueSkill, feeding every pairwise outcome once in a seeded order.

    Ties are draws (WMT14 used draw probability 0.25).  Pairs with a non-system output or a
    system outside ``systems`` are skipped.
    """
    pairs = data.pairs if isinstance(data, RankingJudgments) else data
    sys_ids = (
        pairs.judgments.systems
        if systems is None
        else np.unique(np.asarray(systems, dtype=np.int64))
    )
    m = sys_ids.shape[0]
    ia = system_positions(sys_ids, pairs.system_a)
    ib = system_positions(sys_ids, pairs.system_b)
    keep = (ia >= 0) & (ib >= 0)
    ia, ib, outcome = ia[keep], ib[keep], pairs.outcome[keep]
    # Winner first (a draw keeps the canonical order).
    lost = outcome == WORSE
    winner = np.where(lost, ib, ia)
    loser = np.where(lost, ia, ib)
    drawn = outcome == TIE
    perm = np.random.default_rng(seed).permutation(winner.shape[0])
    winner, loser, drawn = winner[perm], loser[perm], drawn[perm]
    n = int(winner.shape[0])

    if isinstance(settings, str):
        if settings == "wmt14":
            cfg = TrueSkillSettings.wmt14(n)
        elif settings == "default":
            cfg = TrueSkillSettings.library_default()
        else:
            raise ValueError(f"settings must be 'wmt14', 'default' or settings: {settings!r}")
    else:
        cfg = settings
    env = cfg.environment()

    if (
        engine == "closed_form"
        and n >= COMPILED_FROM_MATCHES
        and env.cdf is _backends.cdf
        and env.pdf is _backends.pdf
    ):
        # The library's default backend, written out in the compiled loop (issue 16).
        from analytics.stats.ranking.trueskill_kernel import run_matches

        mu = np.full(m, float(cfg.mu))
        var = np.full(m, float(cfg.sigma) ** 2)
        margin = trueskill.calc_draw_margin(cfg.draw_probability, 2, env)
        run_matches(margin, cfg.beta, cfg.tau, mu, var, winner, loser, drawn)
        sigma = np.sqrt(var)
    elif engine in ("closed_form", "python"):
        mu, var = _closed_form(env, cfg, m, winner, loser, drawn)
        sigma = np.sqrt(var)
    elif engine == "library":
        ratings = [env.create_rating() for _ in range(m)]
        for w, lo, d in zip(winner.tolist(), loser.tolist(), drawn.tolist(), strict=True):
            ratings[w], ratings[lo] = trueskill.rate_1vs1(ratings[w], ratings[lo], drawn=d, env=env)
        mu = np.array([r.mu for r in ratings], dtype=np.float64)
        sigma = np.array([r.sigma for r in ratings], dtype=np.float64)
    else:
        raise ValueError(f"engine must be 'closed_form', 'python' or 'library', got {engine!r}")
    return TrueSkillResult(
        systems=sys_ids, mu=mu, sigma=sigma, n_matches=n, settings=cfg, seed=seed
    )


def _closed_form(
    env: trueskill.TrueSkill,
    cfg: TrueSkillSettings,
    m: int,
    winner: NDArray[np.int64],
    loser: NDArray[np.int64],
    drawn: NDArray[np.bool_],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    # Online updates are sequential (each depends on the previous one), so this is a Python
    # loop over matches on plain floats.  v and w are trueskill.TrueSkill.v_win / w_win /
    # v_draw / w_draw written out with one call of the library's cdf and pdf per point
    # (the library's w_* call v_* again, evaluating everything twice); the arithmetic is the
    # library's, operation for operation, so the results are identical.
    margin = trueskill.calc_draw_margin(cfg.draw_probability, 2, env)
    two_beta2 = 2.0 * cfg.beta * cfg.beta
    tau2 = cfg.tau * cfg.tau
    cdf, pdf = env.cdf, env.pdf
    sqrt = math.sqrt
    mu = [float(cfg.mu)] * m
    var = [float(cfg.sigma) ** 2] * m
    for a, b, d in zip(winner.tolist(), loser.tolist(), drawn.tolist(), strict=True):
        va = var[a] + tau2
        vb = var[b] + tau2
        c2 = two_beta2 + va + vb
        c = sqrt(c2)
        t = (mu[a] - mu[b]) / c
        eps = margin / c
        if d:
            abs_t = abs(t)
            lo, hi = eps - abs_t, -eps - abs_t
            pdf_lo, pdf_hi = pdf(lo), pdf(hi)
            denom = cdf(lo) - cdf(hi)
            if not denom:
                raise FloatingPointError("TrueSkill draw update underflowed")
            v_abs = (pdf_hi - pdf_lo) / denom
            v = -v_abs if t < 0 else v_abs
            w = (v_abs**2) + (lo * pdf_lo - hi * pdf_hi) / denom
        else:
            x = t - eps
            denom = cdf(x)
            v = (pdf(x) / denom) if denom else -x
            w = v * (v + x)
            if not 0 < w < 1:
                raise FloatingPointError("TrueSkill win update underflowed")
        mu[a] += va / c * v
        mu[b] -= vb / c * v
        var[a] = va * (1.0 - va / c2 * w)
        var[b] = vb * (1.0 - vb / c2 * w)
    return np.array(mu, dtype=np.float64), np.array(var, dtype=np.float64)
