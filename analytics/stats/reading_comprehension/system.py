"""Per system: share of questions answered correctly, bootstrap intervals, significance, clusters.

000 section 5.3 and Table 3 (reference 0.94, google.fr-en 0.85, ... jhu-tromble 0.50): "the
percentage of questions that were answered correctly for each system" (METHODS.md section 4;
issue 14 item 4).  Two readings of it, both reported:

- ``share`` (the headline, 000's figure): over *answers*.  Every graded answer under the
  system counts once, so a question answered by five workers under one system counts five
  times: correct / answers, with ties scored by the tie policy
  (:mod:`~analytics.stats.reading_comprehension.grades`).
- ``question_mean``: first the share per (question, system), then the mean over the
  questions the system was asked, so every question weighs the same whatever the number of
  workers the random assignment gave it.  The two differ when a system's answers are spread
  unevenly over articles (one article read by four workers, another by one); a large gap
  between them says the share leans on a few articles.

Dependence.  Answers are not independent: one worker answers all the questions of one
article under one system (a *reading*), so a careless worker or a garbled paragraph moves
several answers together; the questions of one article share its translation and its
difficulty; and the same questions are asked of every system.  000 reports no interval.

Intervals: percentile bootstrap over *articles* (``unit="article"``, the default; seeded by
``numpy.random.default_rng(seed)``).  The article is the smallest unit that holds each of
those dependent groups whole: every reading, every question and every translation lies inside
one article, so drawing articles with replacement keeps them intact, which resampling answers
(or questions: the questions of one reading would be split apart) does not.  Every system is
rescored on the same draw (a paired bootstrap, as all systems are asked the same articles); a
system none of whose articles was drawn scores NaN in that replicate, left out of its
interval.  ``unit="question"`` resamples questions instead, for campaigns with very few
articles (000 had 10): with few articles the article bootstrap has few distinct replicates and
its intervals come out too narrow, while the question bootstrap ignores that questions of one
reading move together and so is also too narrow; the article bootstrap is the honest default
and neither is right with a handful of articles.  Workers who read several articles are
crossed with articles and no one-level bootstrap can keep them whole (a crossed random-effects
model would; see below).

Pairwise significance: a *stratified permutation test over readings* (a randomisation test,
Fisher 1935; for each ordered pair, one-sided).  It follows the design: the answering stage
assigns the system at random to each (worker, article) reading, with balance within the
article.  Under the sharp null that showing system i or system j makes no difference to any
reading, the readings of article a that got i or j could have got either label, with the
numbers per article fixed.  The statistic is the difference of ``share`` (i minus j) over the
readings of the two systems; every relabelling of the readings within each article is equally
likely; ``p_better[i, j]`` = P(statistic >= observed), ``p_better[j, i]`` = P(statistic <=
observed).  Whole readings move, so within-reading correlation is respected; stratifying by
article removes article difficulty (the systems are compared on the same articles); question
difficulty cancels because every reading of an article answers the same questions (ungraded
answers aside).  When the labellings number at most ``max_exact`` (default ``n_permutations``)
all of them are enumerated and p is exact (count / number of labellings, the observed one
included); otherwise ``n_permutations`` random relabellings are drawn and
p = (1 + count) / (1 + n_permutations) (Phipson & Smyth 2010: never 0, valid for a finite
sample).  The draws for a pair are seeded by (seed, system i, system j), so a pair's p-value
does not depend on the other systems in the campaign.  The test needs no distributional
model, so the bounded, lumpy shares (multiples of 1/2 over a few answers) are no problem.

Rejected alternatives: a chi-squared or Fisher test on the 2 x 2 table of correct / incorrect
answers treats answers as independent and so overstates significance by the clustering of
answers within readings; a paired test over questions (e.g. Wilcoxon on per-question shares)
treats the questions of one article as independent although the same readers answered them;
a binomial mixed model with crossed random effects for worker, question and article is the
model-based route but needs statsmodels or lme4, and its asymptotic p-values are doubtful
with the 10 articles of a 000-sized campaign.

Clusters and rank ranges: :func:`analytics.stats.significance.wmt_clusters` and
:func:`~analytics.stats.significance.system_rank_ranges` (higher is better), ordered by
``share`` with ``p_better``.  The reference translation is a system like the others here
(000 Table 3 lists it first) and is flagged by ``is_reference``; drop it with
:meth:`~.answers.ScoredAnswers.subset` to cluster the MT systems alone.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.reading_comprehension.answers import ScoredAnswers
from analytics.stats.significance import ClusterMethod, system_rank_ranges, wmt_clusters

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
_special = lazy_module("scipy.special")

__all__ = [
    "UNITS",
    "PairwisePermutation",
    "SystemScores",
    "Unit",
    "pairwise_permutation",
    "system_scores",
]

Unit = Literal["article", "question"]
UNITS: tuple[Unit, ...] = ("article", "question")

# Replicates per chunk so that the (chunk x units) count matrix stays near 32 MB.
_CHUNK_CELLS = 4_000_000
# Shares are ratios of multiples of 1/2; equal statistics reached by different float paths
# differ by far less than this, distinct ones by far more.
_EPS = 1e-9
_U64 = 2**64
# Articles whose (readings, label-i readings) have at most this many subsets are sampled from a
# table of every subset's sums (C(10, 5) = 252 for 5 + 5 readers); larger ones are shuffled.
_TABLE_LIMIT = 4096


@dataclass(frozen=True, eq=False)
class _Readings:
    """Per reading (worker, article, system): scored answers and their summed score."""

    article: NDArray[np.int64]
    system: NDArray[np.int64]
    correct: NDArray[np.float64]
    n: NDArray[np.float64]


def _readings(s: ScoredAnswers) -> _Readings:
    keep = s.scored
    keys = np.stack([s.worker[keep], s.article[keep], s.system[keep]], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    k = uniq.shape[0]
    return _Readings(
        article=uniq[:, 1],
        system=uniq[:, 2],
        correct=np.bincount(inv, weights=s.score[keep], minlength=k),
        n=np.bincount(inv, minlength=k).astype(np.float64),
    )


@dataclass(frozen=True, eq=False)
class PairwisePermutation:
    """``p_better[i, j]``: one-sided p of "system i has a higher share than system j"
    (module docstring), aligned to ``systems``; NaN diagonal.  ``exact[i, j]``: all
    labellings were enumerated; ``n_labellings[i, j]``: how many there are (a float: it can
    be astronomically large; inf beyond about 1e304)."""

    systems: NDArray[np.int64]
    p_better: NDArray[np.float64]
    exact: NDArray[np.bool_]
    n_labellings: NDArray[np.float64]
    n_permutations: int
    max_exact: int
    seed: int


@functools.lru_cache(maxsize=64)
def _block_combinations(size: int, first: int) -> NDArray[np.float64]:
    """(C(size, first) x size) 0/1 rows: every way to give label i to ``first`` of ``size``
    readings of one article."""
    combos = np.array(list(itertools.combinations(range(size), first)), dtype=np.int64)
    out = np.zeros((combos.shape[0], size))
    np.put_along_axis(out, combos.reshape(combos.shape[0], -1), 1.0, axis=1)
    out.setflags(write=False)
    return out


def _sample_group(
    rng: np.random.Generator, cg: NDArray, ng: NDArray, first: int, n_draws: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Label-i sums of scores and answers over ``n_draws`` random relabellings of a group of
    articles with the same (readings, label-i readings): ``cg``, ``ng`` are (articles x
    readings)."""
    n_art, size = cg.shape
    s_i = np.zeros(n_draws)
    n_i = np.zeros(n_draws)
    if math.comb(size, first) <= _TABLE_LIMIT:
        # Every subset's sums once per article; a relabelling is then one integer per article
        # (a uniform draw of a subset), so the cost is draws x articles, not x readings.
        sub = _block_combinations(size, first)
        tc, tn = sub @ cg.T, sub @ ng.T  # (subsets x articles)
        cols = np.arange(n_art)
        chunk = max(1, _CHUNK_CELLS // n_art)
        for lo in range(0, n_draws, chunk):
            b = min(chunk, n_draws - lo)
            ids = rng.integers(0, sub.shape[0], size=(b, n_art))
            s_i[lo : lo + b] = tc[ids, cols].sum(axis=1)
            n_i[lo : lo + b] = tn[ids, cols].sum(axis=1)
        return s_i, n_i
    base = np.zeros(size)
    base[:first] = 1.0
    chunk = max(1, _CHUNK_CELLS // (n_art * size))
    for lo in range(0, n_draws, chunk):
        b = min(chunk, n_draws - lo)
        lab = rng.permuted(np.broadcast_to(base, (b, n_art, size)), axis=2)
        s_i[lo : lo + b] = np.einsum("pas,as->p", lab, cg)
        n_i[lo : lo + b] = np.einsum("pas,as->p", lab, ng)
    return s_i, n_i


def _pair_p(
    r: _Readings, si: int, sj: int, n_permutations: int, max_exact: int, seed: int
) -> tuple[float, float, bool, float]:
    """(p of i > j, p of j > i, exact?, number of labellings) for systems ``si``, ``sj``."""
    sel = (r.system == si) | (r.system == sj)
    is_i = r.system[sel] == si
    art, c, n = r.article[sel], r.correct[sel], r.n[sel]
    c_tot, n_tot = float(c.sum()), float(n.sum())
    n_i = float(n[is_i].sum())
    if n_i == 0 or n_i == n_tot:
        return float("nan"), float("nan"), False, float("nan")
    c_i = float(c[is_i].sum())
    t_obs = c_i / n_i - (c_tot - c_i) / (n_tot - n_i)
    order = np.argsort(art, kind="stable")
    art, c, n, is_i = art[order], c[order], n[order], is_i[order]
    _, block, sizes = np.unique(art, return_inverse=True, return_counts=True)
    block = block.reshape(-1)
    firsts = np.bincount(block, weights=is_i, minlength=sizes.shape[0]).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    mixed = (firsts > 0) & (firsts < sizes)
    # Readings of articles that only one of the two systems has keep their label in every
    # relabelling: constants of the statistic.
    fixed = ~mixed[block]
    s_const = float(c[fixed & is_i].sum())
    n_const = float(n[fixed & is_i].sum())
    blocks = np.flatnonzero(mixed)
    # log C(size, first) per article: the number of labellings without overflow.
    log_total = float(
        np.sum(_special.gammaln(sizes[blocks] + 1) - _special.gammaln(firsts[blocks] + 1))
        - np.sum(_special.gammaln(sizes[blocks] - firsts[blocks] + 1))
    )
    n_labellings = float(np.exp(log_total)) if log_total < 700 else float("inf")
    exact = n_labellings <= max_exact * (1 + 1e-9)
    if exact:
        # Every labelling: the Cartesian product of each article's subsets.
        s_i = np.full(1, s_const)
        n_perm_i = np.full(1, n_const)
        for b in blocks:  # one step per article, not per answer
            lo, hi = starts[b], starts[b] + sizes[b]
            sub = _block_combinations(int(sizes[b]), int(firsts[b]))
            s_i = (s_i[:, None] + (sub @ c[lo:hi])[None, :]).reshape(-1)
            n_perm_i = (n_perm_i[:, None] + (sub @ n[lo:hi])[None, :]).reshape(-1)
    else:
        rng = np.random.default_rng([seed, int(si) % _U64, int(sj) % _U64])
        s_i = np.full(n_permutations, s_const)
        n_perm_i = np.full(n_permutations, n_const)
        configs = np.unique(np.stack([sizes[blocks], firsts[blocks]], axis=1), axis=0)
        for size, first in configs:  # one step per distinct (readings, label-i readings)
            group = blocks[(sizes[blocks] == size) & (firsts[blocks] == first)]
            idx = starts[group][:, None] + np.arange(size)
            ds, dn = _sample_group(rng, c[idx], n[idx], int(first), n_permutations)
            s_i += ds
            n_perm_i += dn
    t = s_i / n_perm_i - (c_tot - s_i) / (n_tot - n_perm_i)
    ge = int(np.sum(t >= t_obs - _EPS))
    le = int(np.sum(t <= t_obs + _EPS))
    if exact:
        return ge / t.shape[0], le / t.shape[0], True, float(t.shape[0])
    return (1 + ge) / (1 + n_permutations), (1 + le) / (1 + n_permutations), False, n_labellings


def pairwise_permutation(
    scored: ScoredAnswers,
    *,
    n_permutations: int = 10_000,
    seed: int = 0,
    max_exact: int | None = None,
) -> PairwisePermutation:
    """The stratified permutation test of the module docstring for every pair of systems
    (the systems with scored answers, sorted ids).  ``max_exact``: enumerate every labelling
    when there are at most this many (default ``n_permutations``; 0 always samples)."""
    if n_permutations < 1:
        raise ValueError("n_permutations must be >= 1")
    if seed < 0:
        raise ValueError("seed must be >= 0")
    limit = n_permutations if max_exact is None else int(max_exact)
    r = _readings(scored)
    systems = np.unique(r.system)
    m = systems.shape[0]
    p = np.full((m, m), np.nan)
    exact = np.zeros((m, m), dtype=bool)
    n_lab = np.full((m, m), np.nan)
    for i in range(m):  # one test per pair of systems, not per answer
        for j in range(i + 1, m):
            pij, pji, ex, nl = _pair_p(r, systems[i], systems[j], n_permutations, limit, seed)
            p[i, j], p[j, i] = pij, pji
            exact[i, j] = exact[j, i] = ex
            n_lab[i, j] = n_lab[j, i] = nl
    return PairwisePermutation(
        systems=systems,
        p_better=p,
        exact=exact,
        n_labellings=n_lab,
        n_permutations=n_permutations,
        max_exact=limit,
        seed=seed,
    )


@dataclass(frozen=True, eq=False)
class SystemScores:
    """Per system, aligned to ``systems`` (sorted ids of the systems with scored answers).
    Higher is better; cluster 1 and rank 1 are the best.  ``correct`` sums the answers'
    scores (a tie scored 0.5 adds 0.5)."""

    systems: NDArray[np.int64]
    is_reference: NDArray[np.bool_]
    n_answers: NDArray[np.int64]
    n_ties: NDArray[np.int64]
    n_questions: NDArray[np.int64]
    n_articles: NDArray[np.int64]
    n_readings: NDArray[np.int64]
    n_workers: NDArray[np.int64]
    correct: NDArray[np.float64]
    share: NDArray[np.float64]
    share_ci_low: NDArray[np.float64]
    share_ci_high: NDArray[np.float64]
    question_mean: NDArray[np.float64]
    question_mean_ci_low: NDArray[np.float64]
    question_mean_ci_high: NDArray[np.float64]
    p_better: NDArray[np.float64]
    p_exact: NDArray[np.bool_]
    clusters: NDArray[np.int64]
    rank_best: NDArray[np.int64]
    rank_worst: NDArray[np.int64]
    unit: Unit
    method: ClusterMethod
    tie_policy: str | None  # how the scores counted ties (ScoredAnswers.tie_policy)
    n_samples: int
    n_permutations: int
    seed: int
    level: float
    alpha: float


def _interval(samples: NDArray[np.float64], level: float) -> tuple[NDArray, NDArray]:
    """Percentile interval per column, NaN replicates left out (all NaN: NaN)."""
    if samples.shape[1] == 0:
        return np.zeros(0), np.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns give NaN
        lo, hi = np.nanquantile(samples, [(1 - level) / 2, (1 + level) / 2], axis=0)
    return lo, hi


def _unit_tables(
    s: ScoredAnswers, systems: NDArray[np.int64], unit: Unit
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """(units x systems) answer score sums, answer counts, sums of per-question shares and
    counts of questions asked, for the scored rows of ``s``."""
    keep = s.scored
    m = systems.shape[0]
    sys_i = np.searchsorted(systems, s.system[keep])
    questions, q_i = np.unique(s.question[keep], return_inverse=True)
    q_i = q_i.reshape(-1)
    nq = questions.shape[0]
    # Each question's article (a question lies in one article, checked by Answers).
    q_article = np.zeros(nq, dtype=np.int64)
    q_article[q_i] = s.article[keep]
    if unit == "article":
        _, unit_of_q = np.unique(q_article, return_inverse=True)
        unit_of_q = unit_of_q.reshape(-1)
    else:
        unit_of_q = np.arange(nq)
    n_units = int(unit_of_q.max()) + 1 if nq else 0
    score = s.score[keep]
    u_i = unit_of_q[q_i]
    cell = u_i * m + sys_i
    sums = np.bincount(cell, weights=score, minlength=n_units * m).reshape(n_units, m)
    counts = np.bincount(cell, minlength=n_units * m).reshape(n_units, m).astype(np.float64)
    qcell = q_i * m + sys_i
    q_sum = np.bincount(qcell, weights=score, minlength=nq * m)
    q_n = np.bincount(qcell, minlength=nq * m)
    asked = q_n > 0
    q_share = np.divide(q_sum, q_n, out=np.zeros(nq * m), where=asked)
    ucell = np.repeat(unit_of_q, m) * m + np.tile(np.arange(m), nq)
    qm_sum = np.bincount(ucell, weights=q_share, minlength=n_units * m).reshape(n_units, m)
    qm_n = np.bincount(ucell, weights=asked, minlength=n_units * m).reshape(n_units, m)
    return sums, counts, qm_sum, qm_n


def _bootstrap(
    tables: tuple[NDArray, NDArray, NDArray, NDArray], n_samples: int, seed: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(replicates x systems) share and question mean over bootstrap draws of units."""
    sums, counts, qm_sum, qm_n = tables
    n_units, m = sums.shape
    share = np.full((n_samples, m), np.nan)
    qmean = np.full((n_samples, m), np.nan)
    if n_units == 0:
        return share, qmean
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // n_units)
    for start in range(0, n_samples, chunk):
        b = min(chunk, n_samples - start)
        draws = rng.integers(0, n_units, size=(b, n_units))
        flat = (np.arange(b)[:, None] * n_units + draws).reshape(-1)
        mult = np.bincount(flat, minlength=b * n_units).reshape(b, n_units).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            share[start : start + b] = (mult @ sums) / (mult @ counts)
            qmean[start : start + b] = (mult @ qm_sum) / (mult @ qm_n)
    return share, qmean


def _distinct_per_system(
    system_index: NDArray[np.int64], values: NDArray[np.int64], m: int
) -> NDArray[np.int64]:
    pairs = np.unique(np.stack([system_index, values], axis=1), axis=0)
    return np.bincount(pairs[:, 0], minlength=m).astype(np.int64)


def system_scores(
    scored: ScoredAnswers,
    *,
    reference: int | None = None,
    unit: Unit = "article",
    n_samples: int = 1000,
    n_permutations: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
    alpha: float = 0.05,
    method: ClusterMethod = "wmt",
) -> SystemScores:
    """Share correct and question mean per system with percentile bootstrap intervals over
    ``unit`` at ``level``, the pairwise permutation test (``n_permutations``) and WMT-style
    clusters and rank ranges at ``alpha`` (module docstring).  ``reference``: the id of the
    reference translation's system (flagged, scored like the others).  Unscored answers (NaN
    score) are left out everywhere."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    if n_samples < 1:
        raise ValueError("n_samples must be >= 1")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    keep = scored.scored
    systems = np.unique(scored.system[keep])
    m = systems.shape[0]
    sys_i = np.searchsorted(systems, scored.system[keep])
    tables = _unit_tables(scored, systems, unit)
    sums, counts, qm_sum, qm_n = tables
    n_answers = counts.sum(axis=0).astype(np.int64)
    correct = sums.sum(axis=0)
    share = correct / np.maximum(n_answers, 1)
    question_mean = qm_sum.sum(axis=0) / np.maximum(qm_n.sum(axis=0), 1)
    boot_share, boot_qmean = _bootstrap(tables, n_samples, seed)
    share_lo, share_hi = _interval(boot_share, level)
    qmean_lo, qmean_hi = _interval(boot_qmean, level)
    perm = pairwise_permutation(scored, n_permutations=n_permutations, seed=seed)
    clusters = wmt_clusters(share, perm.p_better, alpha=alpha, method=method)
    best, worst = system_rank_ranges(share, perm.p_better, clusters, alpha=alpha, method=method)
    r = _readings(scored)
    return SystemScores(
        systems=systems,
        is_reference=(systems == reference if reference is not None else np.zeros(m, dtype=bool)),
        n_answers=n_answers,
        n_ties=np.bincount(sys_i, weights=scored.tie[keep], minlength=m).astype(np.int64),
        n_questions=qm_n.sum(axis=0).astype(np.int64),
        n_articles=_distinct_per_system(sys_i, scored.article[keep], m),
        n_readings=np.bincount(np.searchsorted(systems, r.system), minlength=m).astype(np.int64),
        n_workers=_distinct_per_system(sys_i, scored.worker[keep], m),
        correct=correct,
        share=share,
        share_ci_low=share_lo,
        share_ci_high=share_hi,
        question_mean=question_mean,
        question_mean_ci_low=qmean_lo,
        question_mean_ci_high=qmean_hi,
        p_better=perm.p_better,
        p_exact=perm.exact,
        clusters=clusters,
        rank_best=best,
        rank_worst=worst,
        unit=unit,
        method=method,
        tie_policy=scored.tie_policy,
        n_samples=n_samples,
        n_permutations=n_permutations,
        seed=seed,
        level=level,
        alpha=alpha,
    )
