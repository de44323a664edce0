"""sacrebleu's BLEU and chrF for crowd translation: sentence similarity, corpus scores against
several references, and 004's percentage of a baseline system.

Every score is on sacrebleu's 0-100 scale with its signature (which names the number of
references: ``nrefs:var`` when segments have different numbers of them). Sentence BLEU uses
sacrebleu's ``sentence_bleu`` settings (exponential smoothing, effective order); corpus BLEU
its defaults (13a tokenisation, exponential smoothing, mixed case); chrF is chrF2 (character
6-grams, beta 2) at both levels.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from analytics.stats._lazy import lazy_module

if TYPE_CHECKING:
    from sacrebleu.metrics import BLEU, CHRF

# Imported on first use: a web worker loads this module but never scores text (issue 16).
_metrics = lazy_module("sacrebleu.metrics")

__all__ = [
    "CorpusScore",
    "Metric",
    "Similarity",
    "best_system",
    "corpus_score",
    "mt_similarity",
    "percent_of_baseline",
    "sentence_scores",
    "sentence_similarity",
    "similarity_signature",
]

Metric = Literal["chrf", "bleu"]


@lru_cache(maxsize=2)
def _sentence_metric(metric: Metric) -> BLEU | CHRF:
    if metric == "bleu":
        return _metrics.BLEU(effective_order=True)
    if metric == "chrf":
        return _metrics.CHRF()
    raise ValueError(f"unknown similarity metric {metric!r} (chrf or bleu)")


def sentence_similarity(hypothesis: str, reference: str, metric: Metric = "chrf") -> float:
    """Sentence chrF or BLEU (0-100) of ``hypothesis`` against one ``reference``."""
    return float(_sentence_metric(metric).sentence_score(hypothesis, [reference]).score)


def similarity_signature(metric: Metric = "chrf") -> str:
    """sacrebleu's signature of the sentence metric (one reference)."""
    scorer = _sentence_metric(metric)
    # The signature names the number of references only once a score was computed.
    scorer.sentence_score("a", ["a"])
    return str(scorer.get_signature())


@dataclass(frozen=True)
class Similarity:
    """A translation's highest similarity to its sentence's MT outputs, and whose output."""

    score: float
    system: Hashable


def mt_similarity(
    text: str, outputs: Mapping[Hashable, str], metric: Metric = "chrf"
) -> Similarity | None:
    """The highest sentence similarity of ``text`` (hypothesis) to each MT output (reference),
    with the system; ties go to the first system in ``outputs``' order. None without
    outputs."""
    best: Similarity | None = None
    for system, output in outputs.items():
        score = sentence_similarity(text, output, metric)
        if best is None or score > best.score:
            best = Similarity(score=score, system=system)
    return best


@dataclass(frozen=True)
class CorpusScore:
    """Corpus BLEU and chrF of one set of hypotheses, over ``n_segments``."""

    bleu: float
    chrf: float
    n_segments: int
    bleu_signature: str
    chrf_signature: str


def corpus_score(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]]
) -> CorpusScore | None:
    """Corpus BLEU and chrF of ``hypotheses`` against each one's references (every reference
    of a segment counts, as BLEU's multiple references; segments may have different numbers of
    them). Segments without a reference are left out; None when none is left."""
    kept = [(hyp, list(refs)) for hyp, refs in zip(hypotheses, references, strict=True) if refs]
    if not kept:
        return None
    width = max(len(refs) for _, refs in kept)
    streams: list[list[str | None]] = [
        [refs[k] if k < len(refs) else None for _, refs in kept] for k in range(width)
    ]
    hyps = [hyp for hyp, _ in kept]
    bleu, chrf = _metrics.BLEU(), _metrics.CHRF()
    bleu_score = bleu.corpus_score(hyps, streams)  # type: ignore[arg-type]
    chrf_score = chrf.corpus_score(hyps, streams)  # type: ignore[arg-type]
    return CorpusScore(
        bleu=float(bleu_score.score),
        chrf=float(chrf_score.score),
        n_segments=len(hyps),
        bleu_signature=str(bleu.get_signature()),
        chrf_signature=str(chrf.get_signature()),
    )


def best_system(scores: Mapping[Hashable, float | None]) -> Hashable | None:
    """The system with the highest score (004's baseline: the top system on the professional
    test set); ties go to the first in ``scores``' order; None without a score."""
    best, best_score = None, None
    for system, score in scores.items():
        if score is not None and (best_score is None or score > best_score):
            best, best_score = system, score
    return best


def percent_of_baseline(
    scores: Mapping[Hashable, float | None], baseline: Hashable
) -> dict[Hashable, float | None]:
    """004's percentage of baseline performance on one test set: 100 * score / the baseline's
    score (004 Table 1: 32.77 / 33.10 = 99.00%). None where a score is missing or the baseline
    has none or scores 0."""
    base = scores.get(baseline)
    return {
        system: None if score is None or not base else 100.0 * score / base
        for system, score in scores.items()
    }


def sentence_scores(hypothesis: str, references: Sequence[str]) -> tuple[float, float] | None:
    """Sentence BLEU (exponential smoothing, effective order) and chrF of one translation
    against all its references; None without a reference."""
    refs = [ref for ref in references if ref]
    if not refs:
        return None
    bleu = _sentence_metric("bleu").sentence_score(hypothesis, refs).score
    chrf = _sentence_metric("chrf").sentence_score(hypothesis, refs).score
    return float(bleu), float(chrf)
