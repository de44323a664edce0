"""Blocking and e-mailing MTurk workers, in every MTurk environment they worked in for us."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from campaigns.platforms import mturk
from campaigns.platforms.clients import MTurkClients
from campaigns.platforms.events import record_event
from campaigns.platforms.models import PlatformEventKind
from campaigns.platforms.mturk import MTurkError, MTurkPartialError
from campaigns.platforms.mturk.workers import MAX_MESSAGE, MAX_SUBJECT
from campaigns.platforms.review.common import (
    Failure,
    ReviewResult,
    ids_of,
    record_failure,
)
from judgments.models import Assignment, Platform, Worker

NOT_MTURK_BLOCK = (
    "Blocking is an MTurk feature: to give this worker no further work, exclude them from the "
    "campaign (Campaign workers)."
)
NOT_MTURK_NOTIFY = "E-mails go through MTurk only: write to this worker on their platform."
NOTIFY_HELP = {
    "SoftFailure": "A temporary failure: send the message again later.",
    "HardFailure": (
        "MTurk e-mails a worker only after you approved or rejected their work, and never one "
        "who opted out: reach them another way."
    ),
}


def _load_workers(workers: Iterable[Worker] | QuerySet) -> list[Worker]:
    return list(Worker.objects.filter(pk__in=ids_of(workers)).order_by("pk"))


def _environments(worker_ids: list[int]) -> dict[int, dict[bool, int]]:
    """Per worker: the MTurk environments (sandbox?) they worked in for us, each with the
    campaign of their latest assignment there (where an error is stored). One query."""
    rows = (
        Assignment.objects.filter(worker_id__in=worker_ids)
        .annotate(sandbox=Coalesce("hit__mturk__sandbox", "campaign__mturk_sandbox"))
        .order_by("started_at", "pk")
        .values_list("worker_id", "sandbox", "campaign_id")
    )
    found: dict[int, dict[bool, int]] = defaultdict(dict)
    for worker_id, sandbox, campaign_id in rows:
        found[worker_id][bool(sandbox)] = campaign_id  # the latest assignment wins
    return found


def _worker_label(worker: Worker, sandbox: bool | None = None) -> str:
    where = "" if sandbox is None else (" (sandbox)" if sandbox else " (production)")
    return f"worker {worker.external_id}{where}"


def block_workers(
    workers: Iterable[Worker] | QuerySet, reason: str, client: Any = None
) -> ReviewResult:
    """Block MTurk workers from all of this account's HITs, in every environment they worked
    in for us; ``blocked_at`` is set once MTurk confirmed each block. The reason stays with
    MTurk (the worker does not see it)."""
    text = (reason or "").strip()
    if not text:
        raise ValueError("Blocking a worker needs a reason (kept by MTurk for your records).")
    result = ReviewResult("block")
    rows = _load_workers(workers)
    environments = _environments([w.pk for w in rows if w.platform == Platform.MTURK])
    mturk_clients = MTurkClients(client)
    confirmed: list[int] = []
    try:
        for worker in rows:
            label = _worker_label(worker)
            if worker.platform != Platform.MTURK:
                result.skipped.append((label, NOT_MTURK_BLOCK))
                continue
            if worker.blocked_at is not None:
                when = timezone.localtime(worker.blocked_at)
                result.skipped.append((label, f"Already blocked on {when:%Y-%m-%d %H:%M}."))
                continue
            if not environments.get(worker.pk):
                result.skipped.append(
                    (
                        label,
                        "No assignment on our MTurk HITs, so evalsite does not know whether to "
                        "block them in the sandbox or in production.",
                    )
                )
                continue
            blocked_everywhere = True
            for sandbox, campaign_id in sorted(environments[worker.pk].items()):
                try:
                    mturk.block_worker(mturk_clients.get(sandbox), worker.external_id, text)
                except MTurkError as error:
                    record_failure(
                        result,
                        campaign_id,
                        "block",
                        _worker_label(worker, sandbox),
                        error,
                    )
                    blocked_everywhere = False
            if blocked_everywhere:
                confirmed.append(worker.pk)
                result.done.append(label)
    finally:
        Worker.objects.filter(pk__in=confirmed).update(
            blocked_at=timezone.now(), blocked_reason=text
        )
    return result


def notify_workers(
    workers: Iterable[Worker] | QuerySet, subject: str, message: str, client: Any = None
) -> ReviewResult:
    """E-mail MTurk workers (MTurk sends it, in batches of 100, per environment); the workers
    MTurk could not reach are reported with its reason."""
    subject_text, message_text = (subject or "").strip(), (message or "").strip()
    if not subject_text or len(subject_text) > MAX_SUBJECT:
        raise ValueError(f"The subject must be 1 to {MAX_SUBJECT} characters.")
    if not message_text or len(message_text) > MAX_MESSAGE:
        raise ValueError(f"The message must be 1 to {MAX_MESSAGE} characters.")
    result = ReviewResult("notify")
    rows = _load_workers(workers)
    environments = _environments([w.pk for w in rows if w.platform == Platform.MTURK])
    groups: dict[bool, list[Worker]] = defaultdict(list)
    campaign_of: dict[bool, int] = {}
    for worker in rows:
        if worker.platform != Platform.MTURK:
            result.skipped.append((_worker_label(worker), NOT_MTURK_NOTIFY))
        elif not environments.get(worker.pk):
            result.skipped.append(
                (
                    _worker_label(worker),
                    "No assignment on our MTurk HITs: MTurk would refuse.",
                )
            )
        for sandbox, campaign_id in environments.get(worker.pk, {}).items():
            groups[sandbox].append(worker)
            campaign_of[sandbox] = campaign_id
    mturk_clients = MTurkClients(client)
    for sandbox, group in sorted(groups.items()):
        by_id = {w.external_id: w for w in group}
        try:
            failures = mturk.notify_workers(
                mturk_clients.get(sandbox), list(by_id), subject_text, message_text
            )
        except MTurkError as error:
            completed = set(error.completed if isinstance(error, MTurkPartialError) else ())
            for worker in group:
                label = _worker_label(worker, sandbox)
                if worker.external_id in completed:
                    result.done.append(label)
                else:
                    result.failed.append(
                        Failure(label, error.message, error.what_to_do, error.code)
                    )
            _store_notify_error(campaign_of[sandbox], len(group) - len(completed), error)
            continue
        unreachable = {failure.worker_id: failure for failure in failures}
        for worker in group:
            label = _worker_label(worker, sandbox)
            failure = unreachable.get(worker.external_id)
            if failure is None:
                result.done.append(label)
            else:
                help_text = NOTIFY_HELP.get(failure.code, NOTIFY_HELP["SoftFailure"])
                result.failed.append(Failure(label, failure.message, help_text, failure.code))
        if unreachable:
            record_event(
                campaign_of[sandbox],
                PlatformEventKind.ERROR,
                "notify",
                "MTurk could not e-mail: "
                + "; ".join(f"{f.worker_id} ({f.code}: {f.message})" for f in failures),
                code=failures[0].code,
                what_to_do=" ".join(dict.fromkeys(NOTIFY_HELP.get(f.code, "") for f in failures)),
            )
    return result


def _store_notify_error(campaign_id: int, not_sent: int, error: MTurkError) -> None:
    record_event(
        campaign_id,
        PlatformEventKind.ERROR,
        "notify",
        f"{not_sent} worker(s) not e-mailed: {error.message}",
        code=error.code,
        what_to_do=error.what_to_do,
    )
