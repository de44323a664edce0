"""Publishing HITs, and ending or prolonging them.

:func:`publish_hits` makes one ``CreateHITType`` call (or reuses a HIT type id it is given),
then one ``CreateHITWithHITType`` per HIT, each with ``UniqueRequestToken`` =
``f"{request_token_prefix}-{our_hit_id}"`` and the same string as ``RequesterAnnotation``.

Why both: MTurk refuses a second creation with a token it has seen in the last 24 hours
("subsequent calls will return a AWS.MechanicalTurk.HitAlreadyExists error with a message
containing the HITId", ``AWSMturkAPI/ApiReference_CreateHITOperation``), so a retried task
(a Celery retry, a second click, a crash after MTurk created the HIT but before we stored its
id) never creates a HIT twice. On that error we find the existing HIT and return it, marked
``reused``: by the HIT id in the message when there is one (checked with ``GetHIT``), otherwise
by listing our HITs and matching the annotation. If neither finds it, :class:`MTurkError` with
code ``DuplicateRequestToken`` says so; we never publish again under another token.

The token "expires after 24 hours. Subsequent calls using the same UniqueRequestToken made
after the 24 hour limit could create duplicate HITs." The caller must therefore store each HIT
id as soon as it exists: pass ``on_published``, called after every HIT, and skip the HITs that
already have an MTurk id when publishing again. If a call fails part-way,
:class:`MTurkPartialError` carries the HITs created so far.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from .errors import (
    MTurkError,
    MTurkPartialError,
    call,
    error_message,
    is_duplicate_request,
    translate,
)
from .settings import HitSettings, external_question_xml

MAX_TOKEN = 64  # UniqueRequestToken: "must not be longer than 64 characters"
_HIT_ID_RE = re.compile(r"\b[A-Z0-9]{30}\b")  # HIT ids are 30 capitals and digits

# UpdateExpirationForHIT: "To expire a HIT immediately, provide the value 0 or set ExpireAt to
# a time in the past" (AWSMturkAPI/ApiReference_UpdateExpirationForHITOperation). A fixed date
# keeps the request identical on every retry; boto3's own examples use 2015-01-01.
EXPIRE_NOW = datetime(2015, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PublishedHit:
    """One of our HITs as it exists on MTurk. ``reused``: created by an earlier attempt."""

    our_hit_id: Any
    hit_id: str
    hit_type_id: str
    hit_group_id: str = ""
    reused: bool = False


def request_token(prefix: str, our_hit_id: Any) -> str:
    token = f"{prefix}-{our_hit_id}"
    if not prefix or len(token) > MAX_TOKEN:
        raise ValueError(
            f"The request token {token!r} must be 1 to {MAX_TOKEN} characters; use a shorter "
            "prefix (for example 'es-c12-p1')."
        )
    return token


def create_hit_type(client: Any, settings: HitSettings) -> str:
    """``CreateHITType`` for the settings; MTurk returns the existing id for identical values."""
    response = call(client, "create_hit_type", **settings.hit_type_params())
    return response["HITTypeId"]


def publish_hits(
    client: Any,
    settings: HitSettings,
    hits: Iterable[tuple[Any, str]],
    *,
    request_token_prefix: str,
    hit_type_id: str | None = None,
    frame_height: int = 0,
    on_published: Callable[[PublishedHit], None] | None = None,
) -> list[PublishedHit]:
    """Create one MTurk HIT per ``(our_hit_id, external_url)``; see the module docstring.

    Everything that can be checked locally (URLs, token lengths, duplicate ids) is checked
    before the first call, so a bad batch fails without creating anything.
    """
    prepared: list[tuple[Any, str, str]] = []
    seen: set[str] = set()
    for our_hit_id, url in hits:
        token = request_token(request_token_prefix, our_hit_id)
        if token in seen:
            raise ValueError(f"HIT {our_hit_id!r} is listed twice.")
        seen.add(token)
        prepared.append((our_hit_id, token, external_question_xml(url, frame_height)))
    if not prepared:
        return []

    type_id = hit_type_id or create_hit_type(client, settings)
    published: list[PublishedHit] = []
    for our_hit_id, token, question in prepared:
        try:
            hit = _create_or_recover(client, settings, type_id, our_hit_id, token, question)
        except MTurkError as exc:
            if not published:
                raise
            raise MTurkPartialError(exc, published) from exc
        published.append(hit)
        if on_published is not None:
            on_published(hit)
    return published


def _create_or_recover(
    client: Any,
    settings: HitSettings,
    hit_type_id: str,
    our_hit_id: Any,
    token: str,
    question: str,
) -> PublishedHit:
    operation = "create_hit_with_hit_type"
    try:
        response = client.create_hit_with_hit_type(
            HITTypeId=hit_type_id,
            MaxAssignments=settings.max_assignments,
            LifetimeInSeconds=settings.lifetime_seconds,
            Question=question,
            RequesterAnnotation=token,
            UniqueRequestToken=token,
        )
    except ClientError as exc:
        if not is_duplicate_request(exc):
            raise translate(operation, exc) from exc
        existing = _find_existing(client, token, error_message(exc))
        if existing is None:
            raise MTurkError(
                operation,
                "DuplicateRequestToken",
                error_message(exc),
                f"MTurk says HIT {our_hit_id!r} was already created with token {token!r} in the "
                "last 24 hours, but no HIT of this account carries that annotation. Find it on "
                "the requester website and record its HIT id; do not publish it under another "
                "token, or workers will see it twice.",
            ) from exc
        return PublishedHit(
            our_hit_id=our_hit_id,
            hit_id=existing["HITId"],
            hit_type_id=existing.get("HITTypeId", hit_type_id),
            hit_group_id=existing.get("HITGroupId", ""),
            reused=True,
        )
    except BotoCoreError as exc:
        raise translate(operation, exc) from exc
    hit = response["HIT"]
    return PublishedHit(
        our_hit_id=our_hit_id,
        hit_id=hit["HITId"],
        hit_type_id=hit.get("HITTypeId", hit_type_id),
        hit_group_id=hit.get("HITGroupId", ""),
    )


def _find_existing(client: Any, token: str, message: str) -> dict | None:
    """The HIT created earlier with ``token``: by the id in ``message``, else by annotation."""
    for candidate in _HIT_ID_RE.findall(message):
        try:
            hit = call(client, "get_hit", HITId=candidate).get("HIT", {})
        except MTurkError:
            continue  # not a HIT id after all: fall back to the annotation
        if hit.get("RequesterAnnotation") in (token, None):
            return hit
    try:
        for page in client.get_paginator("list_hits").paginate(PaginationConfig={"PageSize": 100}):
            for hit in page.get("HITs", []):
                if hit.get("RequesterAnnotation") == token:
                    return hit
    except (ClientError, BotoCoreError) as exc:
        raise translate("list_hits", exc) from exc
    return None


def expire_hit(client: Any, hit_id: str) -> None:
    """Stop a HIT now: no new worker can accept it; accepted assignments may still be submitted."""
    call(client, "update_expiration_for_hit", HITId=hit_id, ExpireAt=EXPIRE_NOW)


def extend_hit(client: Any, hit_id: str, until: datetime, *, now: datetime | None = None) -> None:
    """Keep a HIT open until ``until`` (aware datetime, in the future).

    MTurk cannot shorten a HIT's expiration ("You cannot shorten the expiration time so that
    you're not affecting Workers who have accepted your HIT"); to stop a HIT use
    :func:`expire_hit`. Extending adds time, not assignments.
    """
    if until.tzinfo is None:
        raise ValueError("until must be an aware datetime (with a time zone).")
    current = now or datetime.now(UTC)
    if until <= current:
        raise ValueError(
            f"{until.isoformat()} is not in the future: to end the HIT now use expire_hit."
        )
    call(client, "update_expiration_for_hit", HITId=hit_id, ExpireAt=until)
