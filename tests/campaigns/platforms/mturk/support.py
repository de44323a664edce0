"""What the MTurk service-layer tests share: MTurk ids and times, and ``request_error``, which
stubs MTurk's ``RequestError`` answer (with its ``TurkErrorCode``). Used by the test modules
here, tests/campaigns/platforms/test_review_*.py, tests/judgments/test_admin_review.py and
tests/campaigns/test_mturk_review_command.py."""

from __future__ import annotations

from datetime import UTC, datetime

HIT_TYPE_ID = "3HITTYPE0000000000000000000001"
HIT_1 = "3HIT00000000000000000000000001"
HIT_2 = "3HIT00000000000000000000000002"
HIT_3 = "3HIT00000000000000000000000003"
GROUP_ID = "3GROUP000000000000000000000001"
WORKER = "A1WORKER0000001"
ASSIGNMENT = "3ASSIGNMENT00000000000000000001"
QUAL_ID = "3QUAL0000000000000000000000001"
CREATED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def request_error(stub, method, message, turk_code=None, expected_params=None):
    fields = {"Message": message}
    if turk_code:
        fields["TurkErrorCode"] = turk_code
    stub.add_client_error(
        method,
        service_error_code="RequestError",
        service_message=message,
        modeled_fields=fields,
        expected_params=expected_params,
    )
