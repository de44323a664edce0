"""Workers' campaign memberships and housekeeping: expiry of abandoned assignments,
exclusion by the requester, the trust cut-off, pseudonymous workers."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import connections, router, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone

from campaigns.models import Campaign, Hit
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    Platform,
    Worker,
)
from judgments.signals import exclusions_changed

logger = logging.getLogger(__name__)


def _send_logged(name: str, signal: Signal, sender: type, **kwargs: Any) -> None:
    """Send a signal after a commit; a failing receiver is logged, never raised into the
    request (the rows are committed; analytics' periodic sweep repairs what it missed)."""
    for receiver, response in signal.send_robust(sender=sender, **kwargs):
        if isinstance(response, Exception):
            logger.error("%s receiver %r failed", name, receiver, exc_info=response)


def expire_abandoned_assignments(
    now: datetime | None = None, *, campaign: Campaign | None = None
) -> int:
    """Mark started assignments past their deadline as expired; return how many.

    An expired assignment no longer counts against its HIT's redundancy, so the HIT returns
    to the pool. Its judgments stay stored (judgments are never deleted). Also expired: a
    started assignment with no answer past the unanswered hold (:func:`unanswered_past_hold`).
    The update is one conditional UPDATE, so running it twice, or concurrently, is harmless.
    ``campaign`` limits the sweep to one campaign (the hand-out runs it before choosing).

    One hand-written statement for both rules (issue 16): the hand-out runs it under the
    campaign's lock on every visit of a worker's link, where Django building two UPDATEs (and
    the savepoint around them) was a quarter of the hand-out's Python time. It means exactly
    ``stale | unanswered_past_hold(now)`` (tests/judgments/test_expiry_sweep.py compares both).
    """
    now = now or timezone.now()
    connection = connections[router.db_for_write(Assignment)]
    sql, params = _sweep_sql(connection, now, campaign.pk if campaign is not None else None)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        expired = max(cursor.rowcount, 0)
    if expired:
        logger.info("Expired %d abandoned assignment(s)", expired)
    return expired


def _sweep_sql(connection, now: datetime, campaign_id: int | None) -> tuple[str, list[Any]]:
    """The sweep's UPDATE: identifiers from the models' metadata, every value a parameter."""
    quote = connection.ops.quote_name
    table = quote(Assignment._meta.db_table)
    field = Assignment._meta.get_field

    def column(name: str) -> str:
        return f"{table}.{quote(field(name).column)}"

    def moment(name: str, value: datetime) -> Any:
        return field(name).get_db_prep_value(value, connection)

    long_tasks = long_first_answer_tasks()
    # Tasks whose first answer is long work keep their working time without an answer.
    long_first = (
        f"AND NOT EXISTS (SELECT 1 FROM {quote(Hit._meta.db_table)} h "  # noqa: S608
        f"WHERE h.id = {column('hit')} AND h.{quote('task')} IN "
        f"({', '.join(['%s'] * len(long_tasks))})) "
        if long_tasks
        else ""
    )
    in_campaign = f"AND {column('campaign')} = %s " if campaign_id is not None else ""
    sql = (
        f"UPDATE {table} SET {quote(field('status').column)} = %s "  # noqa: S608
        f"WHERE {column('status')} = %s {in_campaign}"
        f"AND ({column('expires_at')} <= %s "
        # Unanswered past the hold; MTurk's own assignments are left to MTurk's duration.
        f"OR ({column('last_activity_at')} <= %s AND {column('turk_submit_to')} = '' "
        f"AND NOT EXISTS (SELECT 1 FROM {quote(Judgment._meta.db_table)} j "
        f"WHERE j.{quote(Judgment._meta.get_field('assignment').column)} = {column('id')}) "
        f"{long_first}))"
    )
    params: list[Any] = [AssignmentStatus.EXPIRED.value, AssignmentStatus.STARTED.value]
    if campaign_id is not None:
        params.append(campaign_id)
    params += [moment("expires_at", now), moment("last_activity_at", now - unanswered_hold())]
    params += list(long_tasks)
    return sql, params


def long_first_answer_tasks() -> tuple[str, ...]:
    """HIT tasks whose first answer is long work (TaskPage.long_first_answer: reading
    comprehension's authoring, a whole article's questions at once): they keep the campaign's
    working time without an answer (issue 17)."""
    from judgments.kinds import registry  # the kinds' pages import the actions

    return tuple(page.task for kind in registry for page in kind.pages if page.long_first_answer)


def unanswered_hold() -> timedelta:
    return timedelta(seconds=settings.ASSIGNMENT_UNANSWERED_HOLD_SECONDS)


def unanswered_past_hold(now: datetime) -> QuerySet[Assignment]:
    """Started assignments with no judgment whose last activity (the hand-out, or a restart)
    is older than ``ASSIGNMENT_UNANSWERED_HOLD_SECONDS`` (issue 17: one abandoned start held
    a HIT for the 2-hour working time). Their places return to the pool like an expired
    deadline's; the worker's own task is started again if they come back while it has room.
    MTurk's assignments are left to MTurk's own assignment duration (the worker accepted the
    HIT there; MTurk does not know of our hold)."""
    return Assignment.objects.filter(
        ~Exists(Judgment.objects.filter(assignment=OuterRef("pk"))),
        status=AssignmentStatus.STARTED,
        last_activity_at__lte=now - unanswered_hold(),
    ).exclude(Q(hit__task__in=long_first_answer_tasks()) | ~Q(turk_submit_to=""))


def announce_exclusions(campaign_ids: list[int]) -> None:
    """Send ``exclusions_changed`` after the commit: the campaigns whose excluded or untrusted
    workers changed (their scores recompute)."""
    transaction.on_commit(
        partial(
            _send_logged,
            "exclusions_changed",
            exclusions_changed,
            CampaignWorker,
            campaign_ids=campaign_ids,
        )
    )


def set_excluded(
    memberships: QuerySet[CampaignWorker],
    excluded: bool,
    reason: str = "",
    now: datetime | None = None,
) -> int:
    """Exclude (or re-admit) workers from their campaigns; return how many rows changed.

    Exclusion takes effect at the worker's next hand-out: an assignment already started may
    still be finished, and the requester approves or rejects it as usual. Re-admitting clears
    the reason and the time.
    """
    if excluded:
        changing = memberships.filter(excluded=False)
        values = {"excluded": True, "excluded_reason": reason, "excluded_at": now or timezone.now()}
    else:
        changing = memberships.filter(excluded=True)
        values = {"excluded": False, "excluded_reason": "", "excluded_at": None}
    with transaction.atomic():
        campaign_ids = sorted(set(changing.values_list("campaign_id", flat=True)))
        changed = changing.update(**values)
        if changed:
            announce_exclusions(campaign_ids)
    return changed


def exclude_worker(campaign: Campaign, worker: Worker, reason: str) -> CampaignWorker:
    """Exclude one worker from one campaign (creating their membership row if needed)."""
    membership, _ = CampaignWorker.objects.get_or_create(campaign=campaign, worker=worker)
    set_excluded(CampaignWorker.objects.filter(pk=membership.pk), True, reason)
    membership.refresh_from_db()
    return membership


def set_untrusted_memberships(
    memberships: QuerySet[CampaignWorker],
    untrusted: bool,
    reason: str = "",
    now: datetime | None = None,
) -> int:
    """Mark workers untrusted in their campaigns (or trust them again); return how many rows
    changed. The queryset twin of :func:`set_untrusted`, for the admin's actions."""
    if untrusted:
        changing = memberships.filter(untrusted=False)
        values = {
            "untrusted": True,
            "untrusted_reason": reason,
            "untrusted_at": now or timezone.now(),
        }
    else:
        changing = memberships.filter(untrusted=True)
        values = {"untrusted": False, "untrusted_reason": "", "untrusted_at": None}
    with transaction.atomic():
        campaign_ids = sorted(set(changing.values_list("campaign_id", flat=True)))
        changed = changing.update(**values)
        if changed:
            announce_exclusions(campaign_ids)
    return changed


def set_untrusted(
    campaign: Campaign,
    worker_ids: Iterable[int],
    reason: str = "",
    untrusted: bool = True,
    *,
    now: datetime | None = None,
) -> int:
    """The gold-trust cut-off (002 section 4: "untrusted workers are automatically blocked").

    Mark the workers ``worker_ids`` untrusted in ``campaign`` (``untrusted=False``: trust them
    again, clearing the reason and the time); return how many workers changed. Analytics calls
    it after computing gold trust. Idempotent: a worker already in the wanted state keeps their
    reason and time and counts as unchanged, and when nothing changed nothing is announced (so
    the recompute this triggers, calling it again with the same answer, ends there). When
    something changed, ``exclusions_changed`` is sent after the commit, so scores recompute.

    An untrusted worker gets no further assignment in the campaign, not even to resume a
    started one (the hand-out answers with a polite page that names neither gold nor trust);
    their judgments stay stored. Unknown worker ids are ignored; a worker without a membership
    row in the campaign gets one.
    """
    ids = sorted({int(pk) for pk in worker_ids})
    with transaction.atomic():
        known = list(Worker.objects.filter(pk__in=ids).values_list("pk", flat=True))
        CampaignWorker.objects.bulk_create(
            [CampaignWorker(campaign=campaign, worker_id=pk) for pk in known],
            ignore_conflicts=True,
        )
        memberships = CampaignWorker.objects.filter(campaign=campaign, worker_id__in=known)
        return set_untrusted_memberships(memberships, untrusted, reason, now)


PSEUDONYM_PREFIX = "anon-"


def pseudonymous_external_id() -> str:
    """A random pseudonym for a worker who came by a direct link (64 random bits)."""
    return PSEUDONYM_PREFIX + secrets.token_hex(8)


def create_pseudonymous_worker() -> Worker:
    """A worker who came by a direct link: no platform id, so a random pseudonym."""
    return Worker.objects.create(platform=Platform.DIRECT, external_id=pseudonymous_external_id())
