"""The translation kept per sentence among its redundant translations, and the correction kept
per kept translation (issue 15 item 4; 004's second pass).

- ``consensus``: the translation with the highest mean sentence chrF against the sentence's
  other eligible translations (each as the one reference; the candidate is the hypothesis):
  the one most like the others, as a ranking of the translations by the crowd would tend to
  choose without its cost. A lone eligible translation is kept as it is.
- ``detect_mt``: the fewest "machine made" votes as a share of its Detect-MT votes (no vote
  counts as 0), then consensus.
- ``requester``: nothing is kept automatically.

Ties go to the earliest translation (lowest id). Corrections: with one, it; with several, the
one with the highest mean chrF to the other corrections, ties the earliest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analytics.stats.translation.scores import sentence_similarity

__all__ = ["METHODS", "Candidate", "choose_correction", "consensus", "select_translation"]

METHODS = ("consensus", "detect_mt", "requester")


@dataclass(frozen=True)
class Candidate:
    """An eligible translation: its id (the judgment), text and "machine made" vote share
    (None without a vote)."""

    id: int
    text: str
    machine_share: float | None = None


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
