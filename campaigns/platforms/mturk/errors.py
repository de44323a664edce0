"""MTurk failures as one exception type that says what happened and what a requester can do.

Every call to the boto3 client goes through :func:`call`, which turns botocore's
``ClientError`` (an error answer from MTurk) and ``BotoCoreError`` (no credentials, no network,
a malformed request) into :class:`MTurkError`. Nothing here swallows an error: a function of
this package either returns a result the caller has to read or raises.

How MTurk reports errors (API version 2017-01-17, botocore's service model): every operation
declares two errors, ``RequestError`` ("Your request is invalid") and ``ServiceFault``
("temporarily unable to process your request. Try your call again"), each with the members
``Message`` and ``TurkErrorCode``. botocore puts ``Error.Code`` (``RequestError``) and
``Error.Message`` in ``ClientError.response`` and adds the modelled members, so the precise
reason is ``response["TurkErrorCode"]`` (``AWS.MechanicalTurk.HitAlreadyExists``,
``AWS.MechanicalTurk.InsufficientFunds``...). Errors raised before MTurk sees the request use
AWS's generic codes (``UnrecognizedClientException`` for an unknown access key,
``ThrottlingException`` "Rate exceeded"), and some answers carry only a message (insufficient
funds: "This Requester has insufficient funds in their account to complete this transaction"),
so :func:`translate` looks at the code first and the message second.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionError,
    EndpointConnectionError,
    NoCredentialsError,
    ParamValidationError,
    PartialCredentialsError,
)

# TurkErrorCode values named in MTurk's documentation.
HIT_ALREADY_EXISTS = "AWS.MechanicalTurk.HitAlreadyExists"
INSUFFICIENT_FUNDS = "AWS.MechanicalTurk.InsufficientFunds"
QUALIFICATION_TYPE_DOES_NOT_EXIST = "AWS.MechanicalTurk.QualificationTypeDoesNotExist"
HIT_DOES_NOT_EXIST = "AWS.MechanicalTurk.HITDoesNotExist"
ASSIGNMENT_DOES_NOT_EXIST = "AWS.MechanicalTurk.AssignmentDoesNotExist"
INVALID_ASSIGNMENT_STATE = "AWS.MechanicalTurk.InvalidAssignmentState"

CREDENTIAL_CODES = frozenset(
    {
        "UnrecognizedClientException",
        "InvalidSignatureException",
        "IncompleteSignature",
        "InvalidClientTokenId",
        "MissingAuthenticationToken",
        "AccessDeniedException",
        "ExpiredTokenException",
        "NoCredentials",
    }
)
THROTTLING_CODES = frozenset(
    {"ThrottlingException", "Throttling", "TooManyRequestsException", "RequestLimitExceeded"}
)

CREDENTIALS_HELP = (
    "Check the AWS credentials evalsite runs with (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
    "or an AWS profile): the key must be active, belong to an IAM identity allowed to call "
    "MTurk (policy AmazonMechanicalTurkFullAccess), and its AWS account must be linked to the "
    "MTurk requester account (requester.mturk.com/developer; sandbox: "
    "requestersandbox.mturk.com/developer)."
)


class MTurkError(Exception):
    """An MTurk call that failed, with a sentence a requester can act on.

    ``operation`` is the boto3 method (``create_hit_with_hit_type``); ``code`` the most precise
    code MTurk gave (``TurkErrorCode`` when present, else the AWS error code, else a name of
    ours such as ``NoCredentials``); ``message`` MTurk's own words; ``what_to_do`` ours.
    ``retryable`` is true when the same call may succeed later unchanged (throttling, a
    service fault, a lost connection).
    """

    def __init__(
        self,
        operation: str,
        code: str,
        message: str,
        what_to_do: str,
        *,
        retryable: bool = False,
    ) -> None:
        self.operation = operation
        self.code = code
        self.message = message
        self.what_to_do = what_to_do
        self.retryable = retryable
        super().__init__(f"MTurk {operation} failed ({code}): {message} {what_to_do}".strip())


class MTurkPartialError(MTurkError):
    """A batch stopped part-way: ``completed`` were done on MTurk before ``error`` struck.

    Raised by the functions that make many calls (publishing HITs, notifying workers), so that
    what MTurk already did is never lost with the exception: the caller records ``completed``
    and may retry the rest.
    """

    def __init__(self, error: MTurkError, completed: Sequence[Any]) -> None:
        super().__init__(
            error.operation,
            error.code,
            error.message,
            f"{error.what_to_do} {len(completed)} item(s) were done before the failure.",
            retryable=error.retryable,
        )
        self.error = error
        self.completed = list(completed)


def error_code(exc: ClientError) -> str:
    """The most precise code of a ``ClientError``: ``TurkErrorCode``, else ``Error.Code``."""
    response = exc.response or {}
    return str(response.get("TurkErrorCode") or response.get("Error", {}).get("Code") or "")


def error_message(exc: ClientError) -> str:
    response = exc.response or {}
    return str(response.get("Error", {}).get("Message") or response.get("Message") or "")


def is_duplicate_request(exc: ClientError) -> bool:
    """True when MTurk refused a ``UniqueRequestToken`` it has already processed.

    ``CreateHITWithHITType``: "subsequent calls will return a AWS.MechanicalTurk.HitAlreadyExists
    error with a message containing the HITId"; ``SendBonus``: "an error with a message
    containing the request ID"; seen in the wild: 'The idempotency token "..." has already been
    processed.' Only meaningful for calls that sent a token.
    """
    if error_code(exc) == HIT_ALREADY_EXISTS:
        return True
    message = error_message(exc).lower()
    return ("idempotency token" in message and "already" in message) or (
        "unique request token" in message and "already" in message
    )


def _what_to_do_for_client_error(
    operation: str, aws_code: str, code: str, message: str
) -> tuple[str, bool]:
    """(what_to_do, retryable) for an error answer from MTurk."""
    lowered = message.lower()
    if code == INSUFFICIENT_FUNDS or "insufficient funds" in lowered:
        return (
            "Add funds to the requester account (production: requester.mturk.com, Prepaid HITs "
            "or AWS billing; sandbox: no funds are needed, so check that the call went to the "
            "sandbox endpoint), then retry. The cost estimate shows how much is needed.",
            False,
        )
    if code == QUALIFICATION_TYPE_DOES_NOT_EXIST or (
        "qualificationtype" in lowered.replace(" ", "") and "does not exist" in lowered
    ):
        return (
            "The qualification type id is unknown to this MTurk environment (sandbox and "
            "production have different ids, and the Masters id differs too): create it again "
            "with ensure_qualification_type against this environment and store the new id.",
            False,
        )
    if aws_code in CREDENTIAL_CODES or code in CREDENTIAL_CODES:
        return CREDENTIALS_HELP, False
    if "must be linked" in lowered or ("aws account" in lowered and "link" in lowered):
        return (
            "Link the AWS account to the MTurk requester account at "
            "requester.mturk.com/developer (sandbox: requestersandbox.mturk.com/developer), "
            "wait a few minutes, then retry.",
            False,
        )
    if aws_code in THROTTLING_CODES or code in THROTTLING_CODES or "rate exceeded" in lowered:
        return (
            "MTurk is throttling this account: wait a minute and retry. Retrying is safe: HIT "
            "creation and bonuses carry a unique request token, so nothing is done twice.",
            True,
        )
    if code == HIT_DOES_NOT_EXIST or (
        re.search(r"\bhit\b", lowered) and "does not exist" in lowered
    ):
        return (
            "MTurk does not know this HIT id in this environment: check that the campaign "
            "uses the environment (sandbox or production) the HIT was published in.",
            False,
        )
    if code == ASSIGNMENT_DOES_NOT_EXIST or (
        "assignment" in lowered and "does not exist" in lowered
    ):
        return (
            "MTurk does not know this assignment id in this environment: check sandbox versus "
            "production, or whether the worker submitted through MTurk at all.",
            False,
        )
    if code == INVALID_ASSIGNMENT_STATE or "can be called with a status of" in lowered:
        return (
            "The assignment or HIT is not in the state this action needs on MTurk (for an "
            "assignment: already approved or rejected, or not yet submitted): synchronise the "
            "campaign with MTurk and look at its current status.",
            False,
        )
    if aws_code == "ServiceFault":
        return "MTurk is temporarily unable to process the request: retry later.", True
    return (
        f"MTurk refused the {operation} request; the message above says why. Nothing was "
        "changed by this call.",
        False,
    )


def translate(operation: str, exc: Exception) -> MTurkError:
    """The :class:`MTurkError` for an exception raised by a boto3 MTurk call."""
    if isinstance(exc, ClientError):
        aws_code = str((exc.response or {}).get("Error", {}).get("Code") or "")
        code = error_code(exc) or "Unknown"
        message = error_message(exc)
        what_to_do, retryable = _what_to_do_for_client_error(operation, aws_code, code, message)
        return MTurkError(operation, code, message, what_to_do, retryable=retryable)
    if isinstance(exc, NoCredentialsError | PartialCredentialsError):
        return MTurkError(operation, "NoCredentials", str(exc), CREDENTIALS_HELP)
    if isinstance(exc, EndpointConnectionError | ConnectionError):
        return MTurkError(
            operation,
            "ConnectionError",
            str(exc),
            "MTurk could not be reached (network or DNS problem): retry later.",
            retryable=True,
        )
    if isinstance(exc, ParamValidationError):
        return MTurkError(
            operation,
            "ParamValidation",
            str(exc),
            "evalsite built a request MTurk's API cannot accept: this is a bug, please report "
            "it with this message.",
        )
    if isinstance(exc, BotoCoreError):
        return MTurkError(operation, type(exc).__name__, str(exc), "Retry later.", retryable=True)
    raise TypeError(f"not a botocore exception: {exc!r}")


def call(client: Any, operation: str, **params: Any) -> dict:
    """``client.<operation>(**params)``, with botocore's exceptions turned into MTurkError."""
    try:
        return getattr(client, operation)(**params)
    except (ClientError, BotoCoreError) as exc:
        raise translate(operation, exc) from exc
