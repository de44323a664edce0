"""The requester's review workflow on the Django side: sync with MTurk, approve, reject, bonus,
block and notify, for the admin, the ``mturk_review`` command and the Celery tasks alike.

The MTurk calls are :mod:`campaigns.platforms.mturk`'s; this module loads our rows (one query
per table), calls MTurk first and changes a local row only for what MTurk confirmed. One
failing item never undoes the confirmed ones: every function returns a :class:`ReviewResult`
(or :class:`SyncReport`) listing what was done, what failed (with what to do) and what was
skipped (with why), and stores each MTurk error as a ``PlatformEvent`` for the admin.

Prolific and direct-link assignments follow the same approve/reject workflow, with the local
status as the whole truth (evalsite pays nobody on those platforms). Bonuses, blocks and
e-mails exist on MTurk only; other workers are reported as skipped, with the reason.

A status change announces the campaign (``judgments.actions.announce_exclusions``) so that its
scores recompute: analytics leaves the judgments of rejected assignments out, and keeps them
stored.

A package (it passed 800 lines as one module): :mod:`.sync` (``sync_campaign``,
``campaigns_to_sync``), :mod:`.assignments` (approve, reject, bonuses), :mod:`.workers` (block,
notify), :mod:`.quality` (reliability or trust and the recommendation, annotated), and
:mod:`.common` (result objects, loading, labels); the MTurk client per environment is
:class:`campaigns.platforms.clients.MTurkClients`.
"""

from campaigns.platforms.review.assignments import (
    BONUS_TOKEN_WINDOW,
    approve_assignments,
    clean_feedback,
    reject_assignments,
    send_bonuses,
)
from campaigns.platforms.review.common import Failure, ReviewResult
from campaigns.platforms.review.quality import (
    annotate_worker_quality,
    quality_text,
    ranking_recommendation,
    recommendation_label,
    recommendation_text,
    reliability_text,
    trust_text,
)
from campaigns.platforms.review.sync import (
    FINISHED_SYNC_WINDOW,
    NOT_ON_MTURK_GRACE,
    SyncNote,
    SyncReport,
    campaigns_to_sync,
    settled_hit_ids,
    sync_campaign,
)
from campaigns.platforms.review.workers import block_workers, notify_workers

__all__ = [
    "BONUS_TOKEN_WINDOW",
    "FINISHED_SYNC_WINDOW",
    "NOT_ON_MTURK_GRACE",
    "Failure",
    "ReviewResult",
    "SyncNote",
    "SyncReport",
    "annotate_worker_quality",
    "approve_assignments",
    "block_workers",
    "campaigns_to_sync",
    "clean_feedback",
    "notify_workers",
    "quality_text",
    "ranking_recommendation",
    "recommendation_label",
    "recommendation_text",
    "reject_assignments",
    "send_bonuses",
    "reliability_text",
    "settled_hit_ids",
    "sync_campaign",
    "trust_text",
]
