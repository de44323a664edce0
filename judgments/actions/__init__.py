"""Actions on workers' assignments, shared by views, admin, API and Celery tasks.

- ``next_assignment_for``: the hand-out (resume, reactivate, the qualification test, or the
  next HIT with room);
- ``current_task_state``: what a worker sees now (the next unanswered unit(s) and progress);
- ``record_judgment``: one validated, atomic, idempotent answer to one unit;
- ``accept_mturk_assignment``: the assignment behind an MTurk worker's accepted HIT (created,
  resumed or re-used under a new MTurk assignment id);
- ``score_qualification``: the qualification test's score (pure);
- ``expire_abandoned_assignments``, ``set_excluded``, ``exclude_worker``, ``set_untrusted``:
  housekeeping.

Every task kind shares these. A kind describes its answers with a :class:`TaskSpec` (its page's
``spec`` in ``judgments.kinds``, found by ``judgments.kinds.task_spec``): what one submission
answers (its *unit*: one slot for direct assessment, one ranking set, i.e. the slots of one
``HitSlot.group``, for ranking), how many units a page shows, the answer fields and how an
answer becomes Judgment column values.
"""

from __future__ import annotations

from judgments.actions.constants import (
    FINISHED_ASSIGNMENT_STATUSES,
    MAX_STORED_INT,
)
from judgments.actions.handout import (
    CLOSED_CAMPAIGN_REASONS,
    HandOut,
    HandOutKind,
    NoWorkReason,
    next_assignment_for,
)
from judgments.actions.membership import (
    announce_exclusions,
    create_pseudonymous_worker,
    exclude_worker,
    expire_abandoned_assignments,
    set_excluded,
    set_untrusted,
    set_untrusted_memberships,
)
from judgments.actions.platform import (
    MTurkAcceptRefused,
    accept_mturk_assignment,
    single_locale_country,
)
from judgments.actions.qualification import (
    QualificationScore,
    score_qualification,
)
from judgments.actions.specs import (
    TIMING_FIELDS,
    ShownUnit,
    SubmissionError,
    TaskSpec,
    Unit,
)
from judgments.actions.state import (
    TaskState,
    check_open,
    current_task_state,
    get_assignment,
)
from judgments.actions.submission import (
    Submission,
    SubmissionResult,
    parse_submission,
    record_judgment,
)

__all__ = [
    "CLOSED_CAMPAIGN_REASONS",
    "FINISHED_ASSIGNMENT_STATUSES",
    "HandOut",
    "HandOutKind",
    "MAX_STORED_INT",
    "MTurkAcceptRefused",
    "NoWorkReason",
    "QualificationScore",
    "ShownUnit",
    "Submission",
    "SubmissionError",
    "SubmissionResult",
    "TIMING_FIELDS",
    "TaskSpec",
    "TaskState",
    "Unit",
    "accept_mturk_assignment",
    "announce_exclusions",
    "check_open",
    "create_pseudonymous_worker",
    "current_task_state",
    "exclude_worker",
    "expire_abandoned_assignments",
    "get_assignment",
    "next_assignment_for",
    "parse_submission",
    "record_judgment",
    "score_qualification",
    "set_excluded",
    "set_untrusted",
    "set_untrusted_memberships",
    "single_locale_country",
]
