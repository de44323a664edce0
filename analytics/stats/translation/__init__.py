"""Crowd translation's statistics (METHODS.md section 6; 000 section 5.1, 004): pure, no
Django.

- :mod:`.scores`: sacrebleu's sentence chrF and BLEU (a translation's similarity to the
  imported MT outputs, the consensus of a sentence's translations), corpus BLEU and chrF
  against several references, 004's percentage of a baseline system;
- :mod:`.flags`: the Detect-MT outcome of a translation (strict majority), the flags, each
  translator's flag rate and who is excluded (000: 30% or more);
- :mod:`.selection`: the translation kept per sentence (by consensus, Detect-MT votes or a ranking
  campaign's rankings), and the correction kept per kept translation.
"""

from analytics.stats.translation.flags import (
    DetectOutcome,
    FlagRate,
    TranslationFlag,
    detect_outcome,
    flag_rates,
    flag_translation,
    workers_to_exclude,
)
from analytics.stats.translation.scores import (
    CorpusScore,
    Similarity,
    best_system,
    corpus_score,
    mt_similarity,
    percent_of_baseline,
    sentence_scores,
    sentence_similarity,
    similarity_signature,
)
from analytics.stats.translation.selection import (
    Candidate,
    RankingScore,
    choose_correction,
    consensus,
    ranking_scores,
    select_translation,
)

__all__ = [
    "Candidate",
    "CorpusScore",
    "DetectOutcome",
    "FlagRate",
    "RankingScore",
    "Similarity",
    "TranslationFlag",
    "best_system",
    "choose_correction",
    "consensus",
    "corpus_score",
    "detect_outcome",
    "flag_rates",
    "flag_translation",
    "mt_similarity",
    "percent_of_baseline",
    "ranking_scores",
    "select_translation",
    "sentence_scores",
    "sentence_similarity",
    "similarity_signature",
    "workers_to_exclude",
]
