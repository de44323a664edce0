"""Signed links that identify a worker without an account, a password or a cookie.

Two kinds, each with its own salt so that one can never be passed off as the other:

- the per-worker link ``/work/w/<token>/`` carries (worker id, campaign id): whoever holds it
  may ask for that worker's next assignment in that campaign;
- the per-assignment link ``/work/a/<token>/`` carries (assignment id, worker id): it alone
  authorises the task page, its item endpoint and its submissions (no session, no CSRF cookie,
  so that the page works inside MTurk's iframe, where cookies are not sent).

Tokens are ``django.core.signing`` signatures (HMAC with SECRET_KEY) over a compact JSON list.
They are signed, not encrypted: the ids inside are readable, which is harmless (they are not
slot, output, system or segment ids and say nothing about quality control). They carry no
timestamp, so a link stays the same and stays valid; an assignment's own deadline
(``expires_at``) limits how long its link can be used for work.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core import signing

WORKER_LINK_SALT = "evalsite.judgments.worker-link"
ASSIGNMENT_LINK_SALT = "evalsite.judgments.assignment-link"


class BadToken(Exception):
    """The token was not signed by this site with the expected salt, or is malformed."""


@dataclass(frozen=True)
class WorkerLink:
    worker_id: int
    campaign_id: int


@dataclass(frozen=True)
class AssignmentLink:
    assignment_id: int
    worker_id: int


def _sign(salt: str, *ids: int) -> str:
    return signing.Signer(salt=salt).sign_object(list(ids))


def _unsign(salt: str, token: str, count: int) -> tuple[int, ...]:
    return _checked(settings.SECRET_KEY, tuple(settings.SECRET_KEY_FALLBACKS), salt, token, count)


# A task's link comes back with each of its submissions (100 for a DA HIT): the links last
# checked are kept per process, each checked once (issue 16: 20-35 us a request). Only good
# links are kept (a bad one raises, which lru_cache does not keep), under the keys they were
# checked with; a link has no expiry.
@lru_cache(maxsize=4096)
def _checked(
    secret: str, fallbacks: tuple[str, ...], salt: str, token: str, count: int
) -> tuple[int, ...]:
    try:
        ids = signing.Signer(key=secret, fallback_keys=fallbacks, salt=salt).unsign_object(token)
    except (signing.BadSignature, ValueError, TypeError, UnicodeError) as error:
        raise BadToken(str(error)) from error
    if (
        not isinstance(ids, list)
        or len(ids) != count
        or not all(type(value) is int and value > 0 for value in ids)
    ):
        raise BadToken("The signed payload is not a list of ids.")
    return tuple(ids)


def worker_token(worker_id: int, campaign_id: int) -> str:
    return _sign(WORKER_LINK_SALT, worker_id, campaign_id)


def read_worker_token(token: str) -> WorkerLink:
    """The worker and campaign a per-worker link stands for; BadToken if it is not ours."""
    worker_id, campaign_id = _unsign(WORKER_LINK_SALT, token, 2)
    return WorkerLink(worker_id=worker_id, campaign_id=campaign_id)


def assignment_token(assignment_id: int, worker_id: int) -> str:
    return _sign(ASSIGNMENT_LINK_SALT, assignment_id, worker_id)


def read_assignment_token(token: str) -> AssignmentLink:
    """The assignment and worker a task link stands for; BadToken if it is not ours."""
    assignment_id, worker_id = _unsign(ASSIGNMENT_LINK_SALT, token, 2)
    return AssignmentLink(assignment_id=assignment_id, worker_id=worker_id)
