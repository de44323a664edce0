"""Agreement on pairwise labels (000 section 4, 002 section 5.3) and rank correlation.

Every ranking judgment is read as pairwise labels A > B, A = B, A < B (000: "Agreement is
measured by examining each pair of translated sentence and counting when two annotators both
indicated that A > B, A < B, or A = B.  Chance agreement is 1/3").  Two labels are comparable
when they are about the same two outputs: the pair key (segment, system_a, system_b) of
:class:`~analytics.stats.ranking.judgments.Pairs`.

kappa = (Pr(a) - Pr(e)) / (1 - Pr(e)) with Pr(e) by ``chance``:

- ``"uniform"``: 1/3, three equally likely labels (000; the default);
- ``"cohen"`` (two raters of different kinds: crowd vs expert, crowd vs oracle): Cohen's
  (1960) sum over labels of p_rater1(label) * p_rater2(label);
- ``"pooled"``: sum over labels of p(label)^2 with p from both raters' labels pooled (Scott's
  pi; for many raters Fleiss' kappa, whose Pr(e) is exactly this).  Later WMT findings papers
  compute Pr(e) for ranking agreement this way, from the observed label distribution.

Measures:

- :func:`label_agreement` / :func:`cohen_kappa`: two aligned label sequences.
- :func:`fleiss_kappa`: Fleiss (1971), items x categories counts (002 reports agreement as
  Fleiss' kappa).  Items may have different numbers of ratings: P_i = (sum_j n_ij^2 - n_i) /
  (n_i (n_i - 1)), P-bar = mean of P_i over items with n_i >= 2, p_j = share of all
  ratings in category j, P-bar_e = sum_j p_j^2 (equal n_i gives Fleiss' formula exactly).
- :func:`intra_annotator_agreement`: the same worker labelling the same pair in two different
  ballots (a repeated set), over all such pairs of labels.
- :func:`inter_annotator_agreement`: distinct workers on the same pair: every unordered pair
  of workers' labels (one label per worker and pair key, the worker's earliest), plus Fleiss'
  kappa over the pair keys with at least two workers.
- :func:`reference_agreement`: crowd labels against reference labels (imported expert
  rankings) on the same pair keys: every (crowd label, reference label) combination counts.
- :func:`oracle_agreement`: crowd labels against a declared order of systems (002's oracle:
  a system trained on a superset of the data is known to be better); only pairs of systems the
  declaration orders are compared, and the oracle never says "=".
- :func:`spearman`: Spearman's rho between our system scores and a reference ranking (000
  Figure 3: non-expert vs expert system ranking, about 0.78 for experts against experts).

Counting is in closed form per key from label counts (agreeing pairs = sum_k C(c_k, 2)), so
nothing is quadratic in the number of judgments of one pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from analytics.stats._lazy import lazy_module
from analytics.stats.ranking.judgments import Pairs, RankingJudgments, _dense_codes, tuple_codes

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

# Imported on first use: a web worker loads this module but never computes (issue 16).
stats = lazy_module("scipy.stats")

__all__ = [
    "AgreementResult",
    "Chance",
    "FleissResult",
    "InterAnnotatorAgreement",
    "SpearmanResult",
    "cohen_kappa",
    "fleiss_kappa",
    "inter_annotator_agreement",
    "intra_annotator_agreement",
    "kappa_coefficient",
    "label_agreement",
    "oracle_agreement",
    "oracle_pairs",
    "reference_agreement",
    "spearman",
]

Chance = Literal["uniform", "cohen", "pooled"]
N_LABELS = 3  # A < B, A = B, A > B as categories 0, 1, 2


@dataclass(frozen=True)
class AgreementResult:
    """Agreement over ``n`` compared label pairs, ``n_agree`` of them equal."""

    n: int
    n_agree: int
    pr_a: float
    pr_e: float
    kappa: float
    chance: Chance


@dataclass(frozen=True)
class FleissResult:
    n_items: int
    n_ratings: int
    pr_a: float  # P-bar
    pr_e: float  # P-bar_e
    kappa: float
    category_shares: tuple[float, ...]


@dataclass(frozen=True)
class InterAnnotatorAgreement:
    pairwise: AgreementResult
    fleiss: FleissResult


@dataclass(frozen=True)
class SpearmanResult:
    rho: float
    p_value: float
    n_systems: int
    systems: tuple[int, ...]  # the systems both rankings have, in id order


def kappa_coefficient(pr_a: float, pr_e: float) -> float:
    """(Pr(a) - Pr(e)) / (1 - Pr(e)); NaN when undefined (no data, or Pr(e) = 1)."""
    if np.isnan(pr_a) or np.isnan(pr_e) or pr_e >= 1:
        return float("nan")
    return float((pr_a - pr_e) / (1 - pr_e))


def _categories(labels: ArrayLike) -> NDArray[np.int64]:
    """Labels -1/0/+1 (outcome) to categories 0/1/2."""
    arr = np.asarray(labels, dtype=np.int64).reshape(-1)
    if arr.size and (arr.min() < -1 or arr.max() > 1):
        raise ValueError("labels must be -1 (A < B), 0 (A = B) or +1 (A > B)")
    return arr + 1


def _chance(chance: Chance, p1: NDArray[np.float64], p2: NDArray[np.float64]) -> float:
    if chance == "uniform":
        return 1.0 / N_LABELS
    if chance == "cohen":
        return float(np.sum(p1 * p2))
    if chance == "pooled":
        p = (p1 + p2) / 2.0
        return float(np.sum(p * p))
    raise ValueError(f"chance must be 'uniform', 'cohen' or 'pooled', got {chance!r}")


def _result(n: float, agree: float, p1: NDArray, p2: NDArray, chance: Chance) -> AgreementResult:
    pr_a = agree / n if n > 0 else float("nan")
    pr_e = _chance(chance, p1, p2) if n > 0 or chance == "uniform" else float("nan")
    return AgreementResult(int(n), int(agree), pr_a, pr_e, kappa_coefficient(pr_a, pr_e), chance)


def _shares(cats: NDArray[np.int64], weights: NDArray[np.float64] | None = None) -> NDArray:
    counts = np.bincount(cats, weights=weights, minlength=N_LABELS).astype(np.float64)
    total = counts.sum()
    return counts / total if total > 0 else np.full(N_LABELS, np.nan)


def label_agreement(a: ArrayLike, b: ArrayLike, *, chance: Chance = "uniform") -> AgreementResult:
    """Agreement of two aligned label sequences (-1 A<B, 0 A=B, +1 A>B)."""
    ca, cb = _categories(a), _categories(b)
    if ca.shape != cb.shape:
        raise ValueError("label sequences must have the same length")
    return _result(ca.size, int(np.sum(ca == cb)), _shares(ca), _shares(cb), chance)


def cohen_kappa(a: ArrayLike, b: ArrayLike) -> float:
    """Cohen's kappa of two judges' aligned labels (Pr(e) from each judge's own marginals)."""
    return label_agreement(a, b, chance="cohen").kappa


def fleiss_kappa(counts: ArrayLike) -> FleissResult:
    """Fleiss' kappa from an items x categories matrix of rating counts (module docstring)."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError("counts must be a 2-D items x categories matrix")
    n_i = c.sum(axis=1)
    rated = n_i >= 2
    c, n_i = c[rated], n_i[rated]
    total = float(n_i.sum())
    if c.shape[0] == 0 or total == 0:
        k = c.shape[1]
        return FleissResult(0, 0, float("nan"), float("nan"), float("nan"), (float("nan"),) * k)
    p_i = (np.sum(c * c, axis=1) - n_i) / (n_i * (n_i - 1))
    pr_a = float(p_i.mean())
    p_j = c.sum(axis=0) / total
    pr_e = float(np.sum(p_j * p_j))
    return FleissResult(
        n_items=int(c.shape[0]),
        n_ratings=int(total),
        pr_a=pr_a,
        pr_e=pr_e,
        kappa=kappa_coefficient(pr_a, pr_e),
        category_shares=tuple(float(x) for x in p_j),
    )


def _as_pairs(data: RankingJudgments | Pairs) -> Pairs:
    return data.pairs if isinstance(data, RankingJudgments) else data


def _worker_filter(pairs: Pairs, include_workers: NDArray[np.bool_] | None) -> Pairs:
    if include_workers is None:
        return pairs
    mask = np.asarray(include_workers, dtype=bool)
    if mask.shape != (pairs.judgments.n_workers,):
        raise ValueError("include_workers must be aligned to judgments.workers")
    return pairs.subset(mask[pairs.worker])


def _group_agreement(
    codes: tuple[int, NDArray[np.int64]], cats: NDArray[np.int64], chance: Chance
) -> AgreementResult:
    """Agreement over all unordered pairs of members within each group; ``codes``: the
    number of groups and each member's group (dense codes, :func:`_dense_codes`)."""
    n_groups, g = codes
    if g.size == 0:
        return _result(0, 0, np.full(N_LABELS, np.nan), np.full(N_LABELS, np.nan), chance)
    size = np.bincount(g, minlength=n_groups)
    per_label = np.bincount(g * N_LABELS + cats, minlength=n_groups * N_LABELS)
    # Each c (c - 1) is even, so the sum of the halves is half the sum: one pass each,
    # no integer division per group (the same integers).
    agree = int(np.dot(per_label, per_label - 1)) // 2
    n = int(np.dot(size, size - 1)) // 2
    # Pooled label distribution, each label weighted by the number of pairs it is in.
    p = _shares(cats, (size - 1)[g].astype(np.float64))
    return _result(n, agree, p, p, "pooled" if chance == "cohen" else chance)


def _worker_key_codes(pairs: Pairs) -> tuple[int, NDArray[np.int64]]:
    """Dense codes of (key, worker), in that sorted order: one worker's labels of the same
    two outputs. Kept on ``pairs``: intra- and inter-annotator agreement both group by it."""
    cached = pairs.__dict__.get("_worker_key_codes")
    if cached is None:
        wk = pairs.key.astype(np.int64) * max(pairs.judgments.n_workers, 1) + pairs.worker
        cached = _dense_codes(wk)
        pairs.__dict__["_worker_key_codes"] = cached
    return cached


def intra_annotator_agreement(
    data: RankingJudgments | Pairs,
    *,
    chance: Chance = "uniform",
    include_workers: NDArray[np.bool_] | None = None,
) -> AgreementResult:
    """Same worker, same pair of outputs, different ballots (repeated sets).

    Every unordered pair of such labels counts.  ``chance="cohen"`` is treated as "pooled"
    (one judge against itself has one marginal).
    """
    pairs = _worker_filter(_as_pairs(data), include_workers)
    return _group_agreement(_worker_key_codes(pairs), pairs.labels(), chance)


def _first_per_worker_key(pairs: Pairs) -> NDArray[np.int64]:
    """Indices of one pair per (worker, key): the one from the worker's earliest ballot (the
    first such pair on ties), ascending.

    Without a three-key sort (issue 16): when no worker labelled the same two outputs twice,
    every pair; otherwise the smallest (ballot's rank in time, index) per (worker, key)."""
    n = len(pairs)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    n_groups, codes = _worker_key_codes(pairs)
    if n_groups == n:
        return np.arange(n, dtype=np.int64)
    # Ballots ranked by when they were made (equal times share a rank, NaN last: the order
    # a sort gives them).
    _, ballot_rank = np.unique(pairs.judgments.ballot_order, return_inverse=True)
    earliest = ballot_rank.reshape(-1).astype(np.int64)[pairs.ballot] * n + np.arange(n)
    first = np.full(n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, codes, earliest)
    # Distinct indices below n, ascending: a mask over the pairs, no sort.
    chosen = np.zeros(n, dtype=bool)
    chosen[first % n] = True
    return np.flatnonzero(chosen)


def inter_annotator_agreement(
    data: RankingJudgments | Pairs,
    *,
    chance: Chance = "uniform",
    include_workers: NDArray[np.bool_] | None = None,
) -> InterAnnotatorAgreement:
    """Distinct workers on the same pair of outputs: pairwise agreement and Fleiss' kappa."""
    pairs = _worker_filter(_as_pairs(data), include_workers)
    idx = _first_per_worker_key(pairs)
    key = pairs.key[idx]
    cats = pairs.labels()[idx]
    codes = _dense_codes(key)  # in sorted key order, as the Fleiss table's rows
    pairwise = _group_agreement(codes, cats, chance)
    if key.size:
        n_keys, g = codes
        table = np.bincount(g * N_LABELS + cats, minlength=n_keys * N_LABELS).reshape(-1, N_LABELS)
    else:
        table = np.zeros((0, N_LABELS))
    return InterAnnotatorAgreement(pairwise=pairwise, fleiss=fleiss_kappa(table))


def _joint_keys(a: Pairs, b: Pairs) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Codes for (segment, system_a, system_b) shared across two pair sets."""
    code, k = tuple_codes(
        np.concatenate([a.segment, b.segment]),
        np.concatenate([a.system_a, b.system_a]),
        np.concatenate([a.system_b, b.system_b]),
    )
    return code[: len(a)], code[len(a) :], k


def reference_counts(
    crowd: Pairs, reference: Pairs
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per crowd pair: (reference labels equal to it, reference labels on its key)."""
    ka, kb, n_keys = _joint_keys(crowd, reference)
    cell = kb * N_LABELS + reference.labels()
    ref_label = np.bincount(cell, minlength=n_keys * N_LABELS).astype(np.float64)
    ref_total = np.bincount(kb, minlength=n_keys).astype(np.float64)
    return ref_label[ka * N_LABELS + crowd.labels()], ref_total[ka]


def reference_agreement(
    data: RankingJudgments | Pairs,
    reference: RankingJudgments | Pairs,
    *,
    chance: Chance = "uniform",
    include_workers: NDArray[np.bool_] | None = None,
) -> AgreementResult:
    """Crowd labels against reference (expert) labels on the same pairs of outputs.

    Every (crowd label, reference label) combination on a shared key is one comparison.
    """
    crowd = _worker_filter(_as_pairs(data), include_workers)
    ref = _as_pairs(reference)
    agree, total = reference_counts(crowd, ref)
    ka, kb, n_keys = _joint_keys(crowd, ref)
    crowd_total = np.bincount(ka, minlength=n_keys).astype(np.float64)
    # Marginals weighted by how many comparisons each label takes part in.
    p_crowd = _shares(crowd.labels(), total)
    p_ref = _shares(ref.labels(), crowd_total[kb])
    return _result(float(total.sum()), float(agree.sum()), p_crowd, p_ref, chance)


def oracle_pairs(orderings: Sequence[Sequence[int]]) -> dict[tuple[int, int], int]:
    """Declared orderings (each best first) as {(a, b): +1 if a better else -1} with a < b.

    ``[[x, y, z]]`` declares x > y > z, i.e. x > y, x > z and y > z.  Contradictory
    declarations raise ValueError.
    """
    known: dict[tuple[int, int], int] = {}
    for ordering in orderings:
        seq = [int(s) for s in ordering]
        if len(set(seq)) != len(seq):
            raise ValueError(f"a system appears twice in the ordering {seq}")
        for i, better in enumerate(seq):
            for worse in seq[i + 1 :]:
                a, b = min(better, worse), max(better, worse)
                label = 1 if better == a else -1
                if known.get((a, b), label) != label:
                    raise ValueError(f"contradictory oracle orderings for systems {a} and {b}")
                known[(a, b)] = label
    return known


def oracle_agreement(
    data: RankingJudgments | Pairs,
    orderings: Sequence[Sequence[int]],
    *,
    chance: Chance = "uniform",
    include_workers: NDArray[np.bool_] | None = None,
) -> AgreementResult:
    """Crowd labels against a declared order of systems (002's oracle), per judged pair."""
    pairs = _worker_filter(_as_pairs(data), include_workers)
    known = oracle_pairs(orderings)
    if not known or len(pairs) == 0:
        return _result(0, 0, np.full(N_LABELS, np.nan), np.full(N_LABELS, np.nan), chance)
    decl = np.array([(a, b, lab) for (a, b), lab in known.items()], dtype=np.int64)
    # Look each judged pair up among the declared (a, b) by a joint sort key.
    big = int(max(decl[:, :2].max(), pairs.system_b.max(), 0)) + 1
    dkey = decl[:, 0] * big + decl[:, 1]
    sort = np.argsort(dkey)
    dkey, dlab = dkey[sort], decl[sort, 2]
    pkey = pairs.system_a * big + pairs.system_b
    pos = np.minimum(np.searchsorted(dkey, pkey), dkey.size - 1)
    hit = (dkey[pos] == pkey) & (pairs.system_a >= 0)
    crowd = pairs.labels()[hit]
    oracle = dlab[pos[hit]] + 1
    return _result(
        crowd.size, int(np.sum(crowd == oracle)), _shares(crowd), _shares(oracle), chance
    )


def spearman(
    systems: ArrayLike,
    scores: ArrayLike,
    reference_systems: ArrayLike,
    reference: ArrayLike,
    *,
    reference_is_rank: bool = True,
) -> SpearmanResult:
    """Spearman's rho (scipy.stats.spearmanr) between our scores and a reference ranking.

    ``scores``: higher = better (any of our system scores).  ``reference``: the requester's
    ranking as ranks (1 = best; ties share a rank) or, with ``reference_is_rank=False``,
    scores where higher is better.  Only systems present in both count.  Ties get average
    ranks (spearmanr's handling), and the p-value is scipy's two-sided test (t distribution
    with n - 2 degrees of freedom).  NaN when fewer than 3 systems are shared or either side
    is constant (rho undefined).
    """
    ours = dict(
        zip(
            np.asarray(systems, dtype=np.int64).tolist(),
            np.asarray(scores, dtype=np.float64).tolist(),
            strict=True,
        )
    )
    theirs = dict(
        zip(
            np.asarray(reference_systems, dtype=np.int64).tolist(),
            np.asarray(reference, dtype=np.float64).tolist(),
            strict=True,
        )
    )
    common = sorted(s for s in ours if s in theirs and not np.isnan(ours[s]))
    x = np.array([ours[s] for s in common], dtype=np.float64)
    y = np.array([theirs[s] for s in common], dtype=np.float64)
    if reference_is_rank:
        y = -y  # rank 1 = best; flip so that higher = better on both sides
    if len(common) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return SpearmanResult(float("nan"), float("nan"), len(common), tuple(common))
    res = stats.spearmanr(x, y)
    return SpearmanResult(float(res.statistic), float(res.pvalue), len(common), tuple(common))
