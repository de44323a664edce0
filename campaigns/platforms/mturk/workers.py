"""Workers on MTurk: blocking, e-mailing, and our qualification for those who passed the test.

``NotifyWorkers``: "You can specify up to 100 Worker IDs", subject "up to 200 characters",
message "up to 4,096 characters", and MTurk e-mails a worker "only if you have previously
approved or rejected work from the Worker"; per-worker failures come back in
``NotifyWorkersFailureStatuses`` (``SoftFailure`` or ``HardFailure``), which
:func:`notify_workers` returns instead of hiding. ``CreateWorkerBlock`` needs a reason, which
the worker does not see. A qualification type name "must be unique across all of your
Qualification types", so :func:`ensure_qualification_type` looks the name up before creating
it; ``AssociateQualificationWithWorker`` notifies the worker by default ("this is true by
default"), :func:`grant_qualification` does not unless asked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from .errors import MTurkError, MTurkPartialError, call, translate
from .settings import PASSED_QUALIFICATION_VALUE

NOTIFY_BATCH = 100
MAX_SUBJECT = 200
MAX_MESSAGE = 4096


def block_worker(client: Any, worker_id: str, reason: str) -> None:
    """Stop a worker from working on any of this account's HITs."""
    text = (reason or "").strip()
    if not text:
        raise ValueError("Blocking a worker needs a reason (kept by MTurk for your records).")
    call(client, "create_worker_block", WorkerId=worker_id, Reason=text)


@dataclass(frozen=True)
class NotifyFailure:
    worker_id: str
    code: str  # SoftFailure (may work later) or HardFailure
    message: str


def notify_workers(
    client: Any, worker_ids: Iterable[str], subject: str, message: str
) -> list[NotifyFailure]:
    """E-mail workers in batches of 100; the workers MTurk could not reach, with its reason.

    An empty list means every worker was notified. A failed call after some batches raises
    :class:`MTurkPartialError` whose ``completed`` lists the workers already e-mailed.
    """
    subject_text = (subject or "").strip()
    message_text = (message or "").strip()
    if not subject_text or len(subject_text) > MAX_SUBJECT:
        raise ValueError(f"The subject must be 1 to {MAX_SUBJECT} characters.")
    if not message_text or len(message_text) > MAX_MESSAGE:
        raise ValueError(f"The message must be 1 to {MAX_MESSAGE} characters.")
    ids = list(dict.fromkeys(worker_ids))
    failures: list[NotifyFailure] = []
    sent: list[str] = []
    for start in range(0, len(ids), NOTIFY_BATCH):
        batch = ids[start : start + NOTIFY_BATCH]
        try:
            response = call(
                client,
                "notify_workers",
                Subject=subject_text,
                MessageText=message_text,
                WorkerIds=batch,
            )
        except MTurkError as exc:
            if not sent:
                raise
            raise MTurkPartialError(exc, sent) from exc
        sent.extend(batch)
        for item in response.get("NotifyWorkersFailureStatuses", []):
            failures.append(
                NotifyFailure(
                    worker_id=item.get("WorkerId", ""),
                    code=item.get("NotifyWorkersFailureCode", ""),
                    message=item.get("NotifyWorkersFailureMessage", ""),
                )
            )
    return failures


def ensure_qualification_type(client: Any, name: str, description: str) -> str:
    """The id of this account's qualification type called ``name``, created if missing.

    An existing type that was deactivated is made active again, since a HIT requiring an
    inactive type would admit nobody. Names are matched exactly (MTurk's ``Query`` also
    matches descriptions and keywords).
    """
    name_text = (name or "").strip()
    if not name_text or not (description or "").strip():
        raise ValueError("A qualification type needs a name and a description workers can read.")
    try:
        pages = client.get_paginator("list_qualification_types").paginate(
            Query=name_text,
            MustBeRequestable=False,
            MustBeOwnedByCaller=True,
            PaginationConfig={"PageSize": 100},
        )
        existing = [
            item
            for page in pages
            for item in page.get("QualificationTypes", [])
            if item.get("Name") == name_text
        ]
    except (ClientError, BotoCoreError) as exc:
        raise translate("list_qualification_types", exc) from exc
    if existing:
        found = existing[0]
        if found.get("QualificationTypeStatus") == "Inactive":
            call(
                client,
                "update_qualification_type",
                QualificationTypeId=found["QualificationTypeId"],
                QualificationTypeStatus="Active",
            )
        return found["QualificationTypeId"]
    response = call(
        client,
        "create_qualification_type",
        Name=name_text,
        Description=description.strip(),
        QualificationTypeStatus="Active",
    )
    return response["QualificationType"]["QualificationTypeId"]


def grant_qualification(
    client: Any,
    qualification_type_id: str,
    worker_id: str,
    value: int = PASSED_QUALIFICATION_VALUE,
    send_notification: bool = False,
) -> None:
    """Give a worker our qualification (value 1: passed the qualification test)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("A qualification value is a whole number.")
    call(
        client,
        "associate_qualification_with_worker",
        QualificationTypeId=qualification_type_id,
        WorkerId=worker_id,
        IntegerValue=value,
        SendNotification=send_notification,
    )
