"""Flags against pasted machine translation, each translator's flag rate, and exclusion
(000 section 5.1: "workers flagged 30% of the time or more are excluded").

A translation is flagged when

- a strict majority of its Detect-MT voters said "looks machine made" (a tie is not flagged:
  half the voters found it human, and 000 gives no rule; excluding a translator on a coin
  toss would be harsher than the paper), or
- its similarity (sentence chrF or BLEU) to an imported MT output of its sentence is at least
  the campaign's threshold.

**The flag rate's denominator** (our decision; 000 says only "flagged 30% of the time"): the
translator's *decided* translations, i.e. those whose flag can no longer change:

- flagged by similarity (flagged whatever the votes say), or
- with a decided Detect-MT outcome: a strict majority of the HIT's places already voted
  "machine made" (flagged), or half of them or more voted "human" (never flagged: at best a
  tie), or every place voted; or
- not checked by Detect-MT at all (no Detect-MT HIT: voters 0, or an imported campaign) but
  compared with MT outputs (the similarity decides alone).

A translation still waiting for votes is left out of both counts, so a live campaign does not
exclude a translator for their one early flag among nine translations nobody has judged yet;
a translation nothing can ever decide (no Detect-MT, no MT output) counts nowhere. The
exclusion waits for at least ``min_decided`` decided translations (3 by default, ours): one
false "machine made" majority on a first translation is a flag rate of 100%.

At exactly the threshold the translator is excluded ("30% of the time or more"); the
comparison is done in exact fractions (3 of 10 against 0.3).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

__all__ = [
    "MIN_DECIDED",
    "DetectOutcome",
    "FlagRate",
    "TranslationFlag",
    "detect_outcome",
    "flag_rates",
    "flag_translation",
    "workers_to_exclude",
]

MIN_DECIDED = 3


@dataclass(frozen=True)
class DetectOutcome:
    """The counted Detect-MT votes of one translation: ``machine`` said it looks machine made,
    ``human`` said it looks human, out of ``places`` (the Detect-MT HIT's workers; 0 when the
    translation has no Detect-MT HIT)."""

    machine: int = 0
    human: int = 0
    places: int = 0

    @property
    def votes(self) -> int:
        return self.machine + self.human

    @property
    def decided(self) -> bool:
        """No vote still to come can change the outcome (module docstring)."""
        if self.places <= 0:
            return False
        return (
            2 * self.machine > self.places
            or 2 * self.human >= self.places
            or self.votes >= self.places
        )

    @property
    def flagged(self) -> bool:
        """Decided, and a strict majority of the votes say machine made (a tie is not)."""
        return self.decided and self.machine > self.human

    @property
    def machine_share(self) -> float | None:
        """The share of "machine made" votes; None without a vote."""
        return self.machine / self.votes if self.votes else None


def detect_outcome(machine: int, human: int, places: int) -> DetectOutcome:
    return DetectOutcome(machine=machine, human=human, places=places)


@dataclass(frozen=True)
class TranslationFlag:
    """One translation's flags: ``similar`` (its MT similarity reached the threshold),
    ``detected`` (flagged by the Detect-MT majority), ``flagged`` (either), ``decided`` (in the
    flag rate's denominator) and ``settled`` (no flag still to come: decided, or nothing
    checks it)."""

    similar: bool
    detected: bool
    flagged: bool
    decided: bool
    settled: bool


def flag_translation(
    similarity: float | None, threshold: float | Decimal, detect: DetectOutcome
) -> TranslationFlag:
    """The flags of one translation (module docstring); ``similarity`` None when its sentence
    has no imported MT output."""
    similar = similarity is not None and Fraction(str(similarity)) >= Fraction(str(threshold))
    unchecked_by_votes = detect.places <= 0
    decided = similar or detect.decided or (unchecked_by_votes and similarity is not None)
    return TranslationFlag(
        similar=similar,
        detected=detect.flagged,
        flagged=similar or detect.flagged,
        decided=decided,
        settled=decided or unchecked_by_votes,
    )


@dataclass(frozen=True)
class FlagRate:
    """A translator's counts: translations, decided ones, flagged ones; ``rate`` = flagged /
    decided (None while nothing is decided)."""

    n_translations: int
    n_decided: int
    n_flagged: int

    @property
    def rate(self) -> float | None:
        return self.n_flagged / self.n_decided if self.n_decided else None

    @property
    def fraction(self) -> Fraction | None:
        return Fraction(self.n_flagged, self.n_decided) if self.n_decided else None


def flag_rates(
    workers: Iterable[Hashable], flags: Iterable[TranslationFlag]
) -> dict[Hashable, FlagRate]:
    """Each translator's flag rate over their translations (``workers`` and ``flags`` aligned,
    one per translation)."""
    counts: dict[Hashable, list[int]] = {}
    for worker, flag in zip(workers, flags, strict=True):
        row = counts.setdefault(worker, [0, 0, 0])
        row[0] += 1
        row[1] += flag.decided
        row[2] += flag.flagged and flag.decided
    return {worker: FlagRate(*row) for worker, row in counts.items()}


def workers_to_exclude(
    rates: Mapping[Hashable, FlagRate],
    threshold: float | Decimal,
    min_decided: int = MIN_DECIDED,
) -> list[Hashable]:
    """Translators whose flag rate is at least ``threshold`` over at least ``min_decided``
    decided translations, in ``rates``' order (exact comparison: 3 of 10 reaches 0.3)."""
    limit = Fraction(str(threshold))
    return [
        worker
        for worker, rate in rates.items()
        if rate.fraction is not None and rate.n_decided >= min_decided and rate.fraction >= limit
    ]
