"""Stored results of the statistics, one module per kind (and access.py): what the dashboards
read, never computed on a page view.

A direct-assessment campaign's results are one :class:`CampaignResult` (when, over how many
judgments, the settings used, and the pairwise significance and agreement as JSON), one
:class:`WorkerStat` per worker who judged in it and one :class:`SystemScore` per system and
variant (reliable workers only, the default, or every worker).

A ranking campaign's are one :class:`RankingResult` (counts, the gold settings used, the
auto-takedown verdict and memory, agreement and Spearman's rho as JSON), one
:class:`RankingWorkerStat` per worker (the trust table) and one :class:`RankingScore` per
system, scoring method and variant (trusted workers, the default, or every worker). They are
separate tables rather than a ``method`` column on :class:`SystemScore`: a ranking score has
an interval, a sigma and pairwise counts where a direct-assessment one has a mean raw score
and a mean z, so each table keeps NOT NULL columns that mean one thing. The requester's
:class:`RankingReference` (a reference ranking and an oracle, typed as text) is the only row
here that a person edits.

A post-editing campaign's are the TER numbers of every edit and output, computed once per
TER signature (:class:`PostEditScore`, :class:`PostEditOutputScore`), and from them one
:class:`PostEditingResult`, one :class:`PostEditingSystemScore` per system and variant and one
:class:`PostEditingWorkerStat` per worker (``analytics.kinds.post_editing``).

A reading-comprehension campaign's are one :class:`ReadingComprehensionResult`, the share
correct per system and variant (the human translation included, as the control:
:class:`ReadingComprehensionSystemScore`), per article and per question
(:class:`ReadingComprehensionBreakdown`), each question's difficulty
(:class:`ReadingComprehensionQuestionStat`) and one :class:`ReadingComprehensionWorkerStat`
per worker (``analytics.kinds.reading_comprehension``).

A translation campaign's are one :class:`TranslationResult`, one :class:`TranslationStat` per
translation, one :class:`TranslationWorkerStat` per worker, one :class:`TranslationKeptSegment`
per sentence with a kept translation and one :class:`TranslationSystemScore` per system and
test set (``analytics.kinds.translation``).

``analytics.actions`` replaces a campaign's results in one transaction, so a reader sees the
old result or the new one, never half of each.
"""

from analytics.models.access import (
    AccessLevel,
    CampaignAccess,
)
from analytics.models.direct_assessment import (
    CampaignResult,
    Recommendation,
    SystemScore,
    WorkerStat,
    variant_key,
)
from analytics.models.post_editing import (
    PostEditingResult,
    PostEditingSystemScore,
    PostEditingWorkerStat,
    PostEditOutputScore,
    PostEditScore,
    flag_variant_key,
)
from analytics.models.ranking import (
    RankingReference,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
    ReferenceTextError,
    TrustStatus,
    parse_oracle,
    parse_reference_ranking,
    trust_variant_key,
)
from analytics.models.reading_comprehension import (
    REFERENCE_LABEL,
    ReadingComprehensionBreakdown,
    ReadingComprehensionQuestionStat,
    ReadingComprehensionResult,
    ReadingComprehensionSystemScore,
    ReadingComprehensionWorkerStat,
    suspect_variant_key,
)
from analytics.models.translation import (
    TranslationKeptSegment,
    TranslationResult,
    TranslationStat,
    TranslationSystemScore,
    TranslationTestSet,
    TranslationWorkerStat,
)

# How a ranking campaign's systems are scored: defined with the ranking settings that choose
# one of them, re-exported here for everything that reads the stored results.
from campaigns.kinds.ranking.models import RankingMethod

__all__ = [
    "RankingMethod",
    "AccessLevel",
    "CampaignAccess",
    "CampaignResult",
    "PostEditOutputScore",
    "PostEditScore",
    "PostEditingResult",
    "PostEditingSystemScore",
    "PostEditingWorkerStat",
    "REFERENCE_LABEL",
    "RankingReference",
    "RankingResult",
    "RankingScore",
    "RankingWorkerStat",
    "ReadingComprehensionBreakdown",
    "ReadingComprehensionQuestionStat",
    "ReadingComprehensionResult",
    "ReadingComprehensionSystemScore",
    "ReadingComprehensionWorkerStat",
    "Recommendation",
    "ReferenceTextError",
    "SystemScore",
    "TranslationKeptSegment",
    "TranslationResult",
    "TranslationStat",
    "TranslationSystemScore",
    "TranslationTestSet",
    "TranslationWorkerStat",
    "TrustStatus",
    "WorkerStat",
    "flag_variant_key",
    "parse_oracle",
    "parse_reference_ranking",
    "suspect_variant_key",
    "trust_variant_key",
    "variant_key",
]
