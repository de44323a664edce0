"""The translation kept per sentence among its redundant translations, and the correction kept
per kept translation (issue 15 item 4; 004's second pass).

- ``consensus``: the translation with the highest mean sentence chrF against the sentence's
  other eligible translations (each as the one reference; the candidate is the hypothesis):
  the one most like the others, as a ranking of the translations by the crowd would tend to
  choose without its cost. A lone eligible translation is kept as it is.
- ``detect_mt``: the fewest "machine made" votes as a share of its Detect-MT votes (no vote
  counts as 0), then consensus.
- ``best_ranked``: the best ranked in the ranking campaign over the translations (000's system
  score applied to one sentence's translations: the share of its pairwise comparisons, within
  each ranking set a worker ranked, in which it was ranked better than or equal to the other
  translation, :func:`ranking_scores`); ties, then consensus. Translations not ranked yet
  compete only when none of the sentence's is ranked (consensus among them).
- ``requester``: nothing is kept automatically.

Ties go to the earliest translation (lowest id). Corrections: with one, it; with several, the
one with the highest mean chrF to the other corrections, ties the earliest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.translation.scores import sentence_similarity

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "METHODS",
    "Candidate",
    "RankingScore",
    "choose_correction",
    "consensus",
    "ranking_scores",
    "select_translation",
]

METHODS = ("consensus", "detect_mt", "best_ranked", "requester")


@dataclass(frozen=True)
class Candidate:
    """An eligible translation: its id (the judgment), text, "machine made" vote share (None
    without a vote) and ranking score (None: not ranked)."""

    id: int
    text: str
    machine_share: float | None = None
    ranking: float | None = None


@dataclass(frozen=True)
class RankingScore:
    """How one item fared in the rankings: ``better_or_equal`` of its ``comparisons`` (pairs
    with another item of the same ballot); ``score`` is their ratio."""

    better_or_equal: int
    comparisons: int

    @property
    def score(self) -> float:
        return self.better_or_equal / self.comparisons


def ranking_scores(ballot: ArrayLike, item: ArrayLike, rank: ArrayLike) -> dict[int, RankingScore]:
    """Per item, how often it was ranked better than or equal to another item of the same
    ballot (000's score, (wins + ties) / comparisons). One row per ranked item: ``ballot``
    (one worker's ranking of one set), ``item`` (any integer id, unique within a ballot) and
    ``rank`` (1 = best, ties share a rank). An item alone in its ballots gets no entry."""
    ballot = np.asarray(ballot, dtype=np.int64)
    item = np.asarray(item, dtype=np.int64)
    rank = np.asarray(rank, dtype=np.int64)
    if ballot.size == 0:
        return {}
    order = np.argsort(ballot, kind="stable")
    ballot, item, rank = ballot[order], item[order], rank[order]
    starts = np.r_[0, np.flatnonzero(ballot[1:] != ballot[:-1]) + 1]
    sizes = np.diff(np.r_[starts, ballot.size])
    row_start = np.repeat(starts, sizes)
    row_size = np.repeat(sizes, sizes)
    # Every ordered pair (left, right) of two rows of one ballot.
    left = np.repeat(np.arange(ballot.size), row_size)
    offset = np.arange(left.size) - np.repeat(np.cumsum(row_size) - row_size, row_size)
    right = np.repeat(row_start, row_size) + offset
    pair = left != right
    left, right = left[pair], right[pair]
    items, code = np.unique(item[left], return_inverse=True)
    wins = np.bincount(code, weights=rank[left] <= rank[right], minlength=items.size)
    comparisons = np.bincount(code, minlength=items.size)
    return {
        int(i): RankingScore(int(w), int(n))
        for i, w, n in zip(items, wins, comparisons, strict=True)
    }


def consensus(texts: Sequence[str]) -> list[float | None]:
    """Per text, the mean sentence chrF of it (hypothesis) against each other text (one
    reference each); None for a lone text."""
    n = len(texts)
    if n < 2:
        return [None] * n
    return [
        sum(sentence_similarity(texts[i], texts[j], "chrf") for j in range(n) if j != i) / (n - 1)
        for i in range(n)
    ]


def _by_consensus(candidates: Sequence[Candidate]) -> tuple[int, list[float | None]]:
    """The index of the candidate with the highest consensus (ties: lowest id), and every
    candidate's consensus."""
    scores = consensus([c.text for c in candidates])
    best = min(
        range(len(candidates)),
        key=lambda i: (-(scores[i] if scores[i] is not None else 0.0), candidates[i].id),
    )
    return best, scores


def select_translation(
    candidates: Sequence[Candidate], method: str = "consensus"
) -> tuple[int | None, list[float | None]]:
    """The id of the kept translation among ``candidates`` (the eligible translations of one
    sentence) by ``method`` (module docstring), None when none is kept; and each candidate's
    consensus (None for a lone one or with ``requester``)."""
    if method not in METHODS:
        raise ValueError(f"unknown selection method {method!r}")
    if not candidates or method == "requester":
        return None, [None] * len(candidates)
    if method == "best_ranked":
        ranked = [c for c in candidates if c.ranking is not None]
        if ranked:
            best_score = max(c.ranking for c in ranked)  # type: ignore[type-var]
            tied = [c for c in ranked if c.ranking == best_score]
            best, _ = _by_consensus(tied)
            return tied[best].id, consensus([c.text for c in candidates])
    if method == "detect_mt":
        shares = [c.machine_share or 0.0 for c in candidates]
        fewest = min(shares)
        tied = [c for c, share in zip(candidates, shares, strict=True) if share == fewest]
        best, _ = _by_consensus(tied)
        return tied[best].id, consensus([c.text for c in candidates])
    best, scores = _by_consensus(candidates)
    return candidates[best].id, scores


def choose_correction(corrections: Sequence[tuple[int, str]]) -> int | None:
    """The id of the correction kept among ``(id, text)`` (module docstring); None without
    one."""
    if not corrections:
        return None
    candidates = [Candidate(id=pk, text=text) for pk, text in corrections]
    best, _ = _by_consensus(candidates)
    return candidates[best].id
