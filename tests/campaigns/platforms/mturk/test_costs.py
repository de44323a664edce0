"""campaigns.platforms.mturk.costs: MTurk's fee worked out by hand (the 20%, the 10+ assignments
and Masters surcharges, the minimum fee) and the account balance against botocore's Stubber,
with the error answer MTurk gives for bad credentials. No network, no database."""

from __future__ import annotations

from decimal import Decimal

import pytest

from campaigns.platforms import mturk


@pytest.mark.parametrize(
    ("reward", "assignments", "hits", "masters", "rate", "fee", "rewards", "fees", "total"),
    [
        # 20%: 0.30 * 0.20 = 0.06 per assignment, 300 assignments.
        ("0.30", 3, 100, False, "0.20", "0.06", "90.00", "18.00", "108.00"),
        # 9 assignments per HIT: still 20%.
        ("0.30", 9, 10, False, "0.20", "0.06", "27.00", "5.40", "32.40"),
        # 10 assignments per HIT: 20% + 20% = 40%, 0.12 per assignment, 1000 assignments.
        ("0.30", 10, 100, False, "0.40", "0.12", "300.00", "120.00", "420.00"),
        # Masters: 25%, 0.075 rounded half up to 0.08 per assignment.
        ("0.30", 3, 100, True, "0.25", "0.08", "90.00", "24.00", "114.00"),
        # Masters and 10+ assignments: 45% of 1.00.
        ("1.00", 10, 1, True, "0.45", "0.45", "10.00", "4.50", "14.50"),
        # 0.02 * 20% = 0.004: the minimum fee of 0.01 applies.
        ("0.02", 1, 50, False, "0.20", "0.01", "1.00", "0.50", "1.50"),
        # 0.12 * 20% = 0.024: rounds down to 0.02.
        ("0.12", 2, 10, False, "0.20", "0.02", "2.40", "0.40", "2.80"),
        ("0.30", 3, 0, False, "0.20", "0.06", "0.00", "0.00", "0.00"),
    ],
)
def test_estimate_cost_hand_worked(
    reward, assignments, hits, masters, rate, fee, rewards, fees, total
):
    estimate = mturk.estimate_cost(Decimal(reward), assignments, hits, masters=masters)
    assert estimate.assignments == assignments * hits
    assert estimate.fee_rate == Decimal(rate)
    assert estimate.fee_per_assignment == Decimal(fee)
    assert estimate.reward_total == Decimal(rewards)
    assert estimate.fees == Decimal(fees)
    assert estimate.total == Decimal(total)
    assert estimate.total == estimate.reward_total + estimate.fees


def test_estimate_cost_refuses_bad_input():
    with pytest.raises(ValueError, match="more than"):
        mturk.estimate_cost(Decimal("0"), 3, 10, masters=False)
    with pytest.raises(ValueError, match="assignments per HIT"):
        mturk.estimate_cost(Decimal("0.30"), -1, 10, masters=False)


def test_account_balance(client, stub):
    stub.add_response(
        "get_account_balance", {"AvailableBalance": "10000.00", "OnHoldBalance": "0.00"}, {}
    )
    assert mturk.account_balance(client) == Decimal("10000.00")


def test_account_balance_with_bad_credentials(client, stub):
    stub.add_client_error(
        "get_account_balance",
        service_error_code="UnrecognizedClientException",
        service_message="The security token included in the request is invalid.",
        http_status_code=400,
    )
    with pytest.raises(mturk.MTurkError) as caught:
        mturk.account_balance(client)
    error = caught.value
    assert error.operation == "get_account_balance"
    assert error.code == "UnrecognizedClientException"
    assert error.message == "The security token included in the request is invalid."
    assert "AWS_ACCESS_KEY_ID" in error.what_to_do
    assert "requester.mturk.com/developer" in error.what_to_do
    assert error.retryable is False


def test_account_balance_missing_is_an_error(client, stub):
    stub.add_response("get_account_balance", {}, {})
    with pytest.raises(mturk.MTurkError, match="NoBalance"):
        mturk.account_balance(client)
