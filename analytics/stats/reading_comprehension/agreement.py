"""Grader agreement: Fleiss' kappa on the correct / incorrect marks of the grading stage.

000 reports no agreement for grading; issue 14 item 4 asks for Fleiss' kappa (Fleiss 1971,
"Measuring nominal scale agreement among many raters", Psychological Bulletin 76(5)).  Each
graded answer is a subject, its graders the raters, {incorrect, correct} the categories.

Fleiss' kappa assumes every subject has the same number n of ratings: P_i = (sum_j n_ij^2 -
n) / (n (n - 1)), P-bar = mean P_i, p_j = share of all ratings in category j, P-bar_e =
sum_j p_j^2, kappa = (P-bar - P-bar_e) / (1 - P-bar_e).  Graders per answer can differ here:
an abandoned grading HIT leaves its question's answers with one grader fewer, and a requester
may add graders to a question.  Reported, both:

- ``fleiss``: Fleiss' kappa exactly as defined, over the answers graded by the *modal* number
  of graders (the most common number >= 2; among equally common numbers, the largest, whose
  P_i are the more precise).  In this design the graders of one question grade all its
  answers in one HIT, so the modal number is the planned panel and the others are the
  incomplete ones; restricting keeps Fleiss' chance model intact and drops only those.  The
  computation is :func:`analytics.stats.ranking.agreement.fleiss_kappa` (which is Fleiss'
  formula exactly when the numbers are equal), not a second copy of it.
- ``generalised``: Fleiss' kappa generalised to unequal numbers of raters as Gwet (2014,
  *Handbook of Inter-Rater Reliability*, 4th ed., Fleiss' generalised kappa with missing
  ratings; his irrCAC ``fleiss.kappa.raw``): P-bar = mean of P_i (with each subject's own
  n_i) over the subjects with n_i >= 2, pi_j = mean over all subjects with a rating of n_ij /
  n_i, P-bar_e = sum_j pi_j^2.  Nothing is dropped; with equal n_i it equals Fleiss' kappa.

Both are :class:`~analytics.stats.ranking.agreement.FleissResult` (``n_items``: subjects in
P-bar; ``n_ratings``: the ratings behind the category shares).  With two categories and most
answers correct, kappa is low even at high raw agreement (the prevalence effect of Feinstein
& Cicchetti 1990), which is why ``pr_a`` (raw pairwise agreement) is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.ranking.agreement import FleissResult, fleiss_kappa, kappa_coefficient
from analytics.stats.reading_comprehension.grades import GradeVerdicts

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "FleissResult",
    "GraderAgreement",
    "fleiss_kappa",
    "gwet_fleiss_kappa",
    "grader_agreement",
]


def gwet_fleiss_kappa(counts: ArrayLike) -> FleissResult:
    """Fleiss' kappa generalised to unequal numbers of ratings per subject (Gwet 2014), from a
    subjects x categories matrix of rating counts (module docstring).  Subjects without a
    rating are ignored; NaN kappa when no subject has two ratings."""
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 2:
        raise ValueError("counts must be a 2-D subjects x categories matrix")
    if (c < 0).any():
        raise ValueError("counts must be non-negative")
    n_i = c.sum(axis=1)
    c, n_i = c[n_i > 0], n_i[n_i > 0]
    k = c.shape[1]
    pairs = n_i >= 2
    if not pairs.any():
        return FleissResult(0, int(n_i.sum()), float("nan"), float("nan"), float("nan"),
                            (float("nan"),) * k)  # fmt: skip
    cp, np_i = c[pairs], n_i[pairs]
    p_i = (np.sum(cp * cp, axis=1) - np_i) / (np_i * (np_i - 1))
    pr_a = float(p_i.mean())
    pi = (c / n_i[:, None]).mean(axis=0)
    pr_e = float(np.sum(pi * pi))
    return FleissResult(
        n_items=int(pairs.sum()),
        n_ratings=int(n_i.sum()),
        pr_a=pr_a,
        pr_e=pr_e,
        kappa=kappa_coefficient(pr_a, pr_e),
        category_shares=tuple(float(x) for x in pi),
    )


@dataclass(frozen=True)
class GraderAgreement:
    """``graders_per_answer``: (number of graders, number of answers) for every number seen;
    ``modal_graders``: the n of ``fleiss`` (0 when no answer has two graders)."""

    graders_per_answer: tuple[tuple[int, int], ...]
    modal_graders: int
    fleiss: FleissResult
    generalised: FleissResult


def grader_agreement(verdicts: GradeVerdicts) -> GraderAgreement:
    """Fleiss' kappa at the modal number of graders and Gwet's generalisation over every
    graded answer (module docstring), from :func:`~.grades.aggregate_grades`' counts."""
    counts = verdicts.counts
    n = verdicts.n_graders
    sizes, freq = np.unique(n, return_counts=True)
    multi = sizes >= 2
    if multi.any():
        # Most common number of graders >= 2; ties to the largest (unique sorts ascending).
        cand_sizes, cand_freq = sizes[multi], freq[multi]
        modal = int(cand_sizes[np.flatnonzero(cand_freq == cand_freq.max())[-1]])
    else:
        modal = 0
    fleiss = fleiss_kappa(counts[n == modal] if modal else np.zeros((0, 2)))
    return GraderAgreement(
        graders_per_answer=tuple((int(s), int(f)) for s, f in zip(sizes, freq, strict=True)),
        modal_graders=modal,
        fleiss=fleiss,
        generalised=gwet_fleiss_kappa(counts),
    )
