"""What a campaign will cost on MTurk, and what the requester account holds.

MTurk's fee (mturk.com/pricing, in force since 21 July 2015; the requester announcement quoted
on mturk4academics.wordpress.com, 2015-06-23, gives the same three rules):

* 20% of the reward and of any bonus paid to workers, at least $0.01 per assignment or bonus;
* HITs with 10 or more assignments: an additional 20% of the reward (40% in all);
* the Masters qualification: an additional 5% of the reward.

The fee is computed per assignment and rounded half up to the cent ("$0.104 is rounded to
$0.10, $0.105 is rounded to $0.11", pricing page FAQ), which is why :func:`estimate_cost`
works per assignment: at a $0.30 reward with Masters the fee is $0.075, charged $0.08. Premium
qualifications (demographics) cost extra per assignment; evalsite does not use them. MTurk
holds the reward and fee when a HIT is published and charges them when an assignment is
approved; a rejected assignment costs nothing, so the estimate is the most a campaign can cost
(bonuses aside). MTurk's documentation says the service closes on 30 September 2026.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .errors import MTurkError, call
from .settings import dollars

CENT = Decimal("0.01")
BASE_FEE_RATE = Decimal("0.20")
MANY_ASSIGNMENTS_FEE_RATE = Decimal("0.20")
MANY_ASSIGNMENTS = 10
MASTERS_FEE_RATE = Decimal("0.05")
MIN_FEE = CENT


def fee_rate(assignments_per_hit: int, *, masters: bool) -> Decimal:
    """The share of the reward MTurk charges for one assignment of such a HIT."""
    rate = BASE_FEE_RATE
    if assignments_per_hit >= MANY_ASSIGNMENTS:
        rate += MANY_ASSIGNMENTS_FEE_RATE
    if masters:
        rate += MASTERS_FEE_RATE
    return rate


def fee_for(amount: Decimal, rate: Decimal) -> Decimal:
    """MTurk's fee on one payment: ``amount * rate`` rounded half up to the cent, min $0.01."""
    return max(MIN_FEE, (amount * rate).quantize(CENT, rounding=ROUND_HALF_UP))


@dataclass(frozen=True)
class CostEstimate:
    """The most a batch of HITs can cost: every assignment approved, no bonus."""

    assignments: int  # assignments in all (per HIT times HITs)
    fee_rate: Decimal
    fee_per_assignment: Decimal
    reward_total: Decimal
    fees: Decimal
    total: Decimal


def estimate_cost(reward: Any, assignments: int, hits: int, *, masters: bool) -> CostEstimate:
    """The cost of ``hits`` HITs with ``assignments`` assignments each at ``reward`` dollars."""
    amount = dollars(reward, "The reward")
    for value, what in ((assignments, "assignments per HIT"), (hits, "the number of HITs")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{what} must be a whole number, 0 or more; got {value!r}.")
    rate = fee_rate(assignments, masters=masters)
    fee = fee_for(amount, rate)
    count = assignments * hits
    reward_total = amount * count
    fees = fee * count
    return CostEstimate(
        assignments=count,
        fee_rate=rate,
        fee_per_assignment=fee,
        reward_total=reward_total,
        fees=fees,
        total=reward_total + fees,
    )


def account_balance(client: Any) -> Decimal:
    """The requester account's available balance in US dollars.

    The sandbox always reports $10,000.00 (MTurk blog, "Managing MTurk HITs with the AWS
    Command Line Interface"), so a sandbox balance says nothing about production funds.
    """
    response = call(client, "get_account_balance")
    balance = response.get("AvailableBalance")
    if balance is None:
        raise MTurkError(
            "get_account_balance",
            "NoBalance",
            "MTurk's answer carried no AvailableBalance.",
            "Check the balance on the requester website and retry later.",
            retryable=True,
        )
    return Decimal(balance)
