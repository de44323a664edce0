"""Publishing a campaign to MTurk: the Django glue around :mod:`campaigns.platforms.mturk`.

The service layer knows nothing of our models; this package turns a :class:`Campaign` into
:class:`~campaigns.platforms.mturk.HitSettings` and task URLs, says what a publication would
do and cost (:func:`plan`, :func:`check_funds`), publishes (:func:`publish`) and ends or
prolongs HITs (:func:`expire`, :func:`extend`). The admin, ``manage.py mturk_hits`` and the
Celery tasks all call these functions, so the rules are written once.

Safety rules kept here:

* A HIT is published at most once. ``MTurkHit`` rows are written one by one as MTurk returns
  each HIT id (each in its own short transaction), so a publication that fails part-way keeps
  what MTurk created and the next attempt skips it; the ``UniqueRequestToken`` (stable per
  campaign, environment and HIT) covers a crash between MTurk's answer and our write.
* Nothing local is marked done before MTurk confirmed it: expiry and extension dates change
  only after MTurk accepted the change for that HIT.
* Nothing goes out that the requester did not review: the confirmation page carries the plan's
  signed fingerprint (:func:`sign_plan`), and Confirm publishes only if the plan at that
  moment is the same (:func:`plan_changes`: environment, HITs, cost, settings); so can
  :func:`publish` itself, given ``expected``.
* Every MTurk error becomes a :class:`~campaigns.platforms.models.PlatformEvent` with MTurk's
  message and what the requester can do, shown on the campaign page.

Modules: :mod:`.planning` (settings, URLs, the plan and its fingerprint, the balance, HIT numbers),
:mod:`.publication` (publishing), :mod:`.lifetime` (expire and extend). Every MTurk client
comes from :func:`campaigns.platforms.clients.mturk_client`, which tests replace.
"""

from .lifetime import MAX_EXTEND_DAYS, BatchResult, days_from_now, expire, extend
from .planning import (
    EDIT_CAMPAIGN,
    PLAN_CHANGED,
    QUALIFICATION_DESCRIPTION_NOTE,
    QUALIFICATION_TITLE_PREFIX,
    Funds,
    NotHttpsError,
    Plan,
    Problem,
    check_funds,
    environment_label,
    hit_ids_for_numbers,
    hit_settings_for,
    numbers_in_words,
    parse_hit_numbers,
    plan,
    plan_changed_message,
    plan_changes,
    public_base_url,
    qualification_type_description,
    qualification_type_name,
    request_token_prefix,
    requirements_in_words,
    reviewed_plan,
    sign_plan,
    task_url,
)
from .publication import PublishResult, publish

__all__ = [
    "EDIT_CAMPAIGN",
    "MAX_EXTEND_DAYS",
    "PLAN_CHANGED",
    "QUALIFICATION_DESCRIPTION_NOTE",
    "QUALIFICATION_TITLE_PREFIX",
    "BatchResult",
    "Funds",
    "NotHttpsError",
    "Plan",
    "Problem",
    "PublishResult",
    "check_funds",
    "days_from_now",
    "environment_label",
    "expire",
    "extend",
    "hit_ids_for_numbers",
    "hit_settings_for",
    "numbers_in_words",
    "parse_hit_numbers",
    "plan",
    "plan_changed_message",
    "plan_changes",
    "public_base_url",
    "publish",
    "qualification_type_description",
    "qualification_type_name",
    "request_token_prefix",
    "requirements_in_words",
    "reviewed_plan",
    "sign_plan",
    "task_url",
]
