"""Amazon Mechanical Turk: the service layer (``METHODS.md`` section 7).

Plain functions over an injected boto3 client (:func:`client_for` builds one for the sandbox
or production); no Django models, so the admin, the management commands and the Celery tasks
share them and the tests drive them through botocore's ``Stubber``. Every function either
returns a result the caller must read or raises :class:`MTurkError` (with ``what_to_do``);
none swallows an error.

* :mod:`.settings`: :class:`HitSettings` (validated against MTurk's limits),
  :func:`qualification_requirements`, :func:`external_question_xml`, the system ids.
* :mod:`.costs`: :func:`estimate_cost` (MTurk's fee), :func:`account_balance`.
* :mod:`.hits`: :func:`publish_hits` (idempotent through ``UniqueRequestToken``),
  :func:`expire_hit`, :func:`extend_hit`.
* :mod:`.assignments`: :func:`list_assignments`, :func:`reconcile`, :func:`approve`,
  :func:`reject`, :func:`send_bonus`.
* :mod:`.workers`: :func:`block_worker`, :func:`notify_workers`,
  :func:`ensure_qualification_type`, :func:`grant_qualification`.
* :mod:`.errors`: :class:`MTurkError`, :class:`MTurkPartialError`.
"""

from .assignments import (
    Action,
    AssignmentChange,
    BonusResult,
    RemoteAssignment,
    approve,
    list_assignments,
    reconcile,
    reject,
    send_bonus,
)
from .client import PRODUCTION_ENDPOINT, SANDBOX_ENDPOINT, client_for, endpoint_url, preview_url
from .costs import CostEstimate, account_balance, estimate_cost, fee_for, fee_rate
from .errors import MTurkError, MTurkPartialError
from .hits import PublishedHit, create_hit_type, expire_hit, extend_hit, publish_hits
from .settings import (
    LOCALE,
    MASTERS_PRODUCTION,
    MASTERS_SANDBOX,
    NUMBER_HITS_APPROVED,
    PASSED_QUALIFICATION_VALUE,
    PERCENT_ASSIGNMENTS_APPROVED,
    HitSettings,
    external_question_xml,
    qualification_requirements,
)
from .workers import (
    NotifyFailure,
    block_worker,
    ensure_qualification_type,
    grant_qualification,
    notify_workers,
)

__all__ = [
    "LOCALE",
    "MASTERS_PRODUCTION",
    "MASTERS_SANDBOX",
    "NUMBER_HITS_APPROVED",
    "PASSED_QUALIFICATION_VALUE",
    "PERCENT_ASSIGNMENTS_APPROVED",
    "PRODUCTION_ENDPOINT",
    "SANDBOX_ENDPOINT",
    "Action",
    "AssignmentChange",
    "BonusResult",
    "CostEstimate",
    "HitSettings",
    "MTurkError",
    "MTurkPartialError",
    "NotifyFailure",
    "PublishedHit",
    "RemoteAssignment",
    "account_balance",
    "approve",
    "block_worker",
    "client_for",
    "create_hit_type",
    "endpoint_url",
    "ensure_qualification_type",
    "estimate_cost",
    "expire_hit",
    "extend_hit",
    "external_question_xml",
    "fee_for",
    "fee_rate",
    "grant_qualification",
    "list_assignments",
    "notify_workers",
    "preview_url",
    "publish_hits",
    "qualification_requirements",
    "reconcile",
    "reject",
    "send_bonus",
]
