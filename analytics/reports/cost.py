"""What a campaign has cost and will cost: rewards plus the platforms' fees (002 section 5.1
and footnote 8: "the requester's payment includes a fee to MTurk ... of the amount paid to the
workers"). Pure arithmetic on plain rows, no Django.

Fees, per assignment (and per bonus), as the platforms charge them:

* Amazon Mechanical Turk: ``campaigns.platforms.mturk.costs`` (20% of the reward, 20% more
  for HITs of 10 or more assignments, 5% more for Masters, at least $0.01, rounded half up to
  the cent per assignment; bonuses pay the base 20%). Work on MTurk's sandbox costs nothing,
  neither reward nor fee.
* Prolific: a service fee of 33.33% of every reward and bonus paid to participants
  (researcher-help.prolific.com, "Bonus payments" and "How to resolve an underpaying study":
  "~33.33% service charge ... + VAT where applicable"), rounded half up to the cent per
  submission. VAT depends on the requester's country and is not included.
  ``campaigns.platforms`` has no Prolific service layer (Prolific sends workers with URL
  parameters), so the rate lives here.
* Direct links: no platform, no fee. Imported judgments were paid elsewhere: not counted.

Which assignments count (kept apart, never added up silently):

* **approved**: paid (MTurk charges reward and fee on approval);
* **submitted**: awaiting review; MTurk approves and pays them automatically after the
  campaign's auto-approval delay unless they are rejected, so they are money committed but
  not yet spent (the campaign list's cost counts them as paid; here they are their own line);
* **in progress**: started, not submitted: paid when submitted and approved;
* **not started**: a regular HIT's places that no live assignment holds yet (each HIT's own
  number of places, else the campaign's redundancy), at the reward its next assignment will
  be offered (MTurk: the reward the HIT was published with) and the fee of the platform the
  HIT is offered on (MTurk when it was published there, else Prolific when the campaign
  names a Prolific study, else direct links);
* **still to come**: places of HITs not built yet that the campaign's kind builds as work
  arrives (post-editing: each edit still to come gets a verification HIT of its verifiers
  per edit), at the reward and fee they will be offered at (``analytics.reports.kinds``);
* rejected, expired and returned assignments cost nothing.

Each assignment is priced at the reward it was taken at (``Assignment.reward``), never at the
campaign's reward of today: a change of reward re-prices only the places still to fill.

Bonuses: sent (MTurk confirmed: paid) and pending (not confirmed yet). The projection to
completion is approved + submitted + in progress + not started + still to come + every bonus;
qualification tests count as they were taken (how many more workers will take one is not
known).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from campaigns.platforms.mturk.costs import fee_for, fee_rate

__all__ = [
    "PROLIFIC_FEE_RATE",
    "AssignmentCostRow",
    "BonusCostRow",
    "CostLine",
    "CostReport",
    "HitPlacesRow",
    "PlacesToComeRow",
    "assignment_fee",
    "bonus_fee",
    "cost_report",
    "offered_on",
    "work_platform",
]

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
PROLIFIC_FEE_RATE = Decimal("0.3333")

MTURK, PROLIFIC, DIRECT, IMPORTED = "mturk", "prolific", "direct", "imported"

# The report's lines, in order, with the words the page and the files use.
LINES = (
    ("approved", "Approved (paid)"),
    ("submitted", "Submitted, awaiting review (paid automatically unless rejected)"),
    ("in_progress", "In progress (started, not submitted)"),
    ("not_started", "Not started yet (places no worker holds)"),
    ("to_come", "Still to come (places of HITs built as work arrives)"),
    ("bonuses_sent", "Bonuses sent"),
    ("bonuses_pending", "Bonuses not confirmed yet"),
)


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def assignment_fee(
    platform: str,
    reward: Decimal,
    *,
    sandbox: bool = False,
    max_assignments: int | None = None,
    masters: bool = False,
) -> Decimal:
    """The platform's fee on one assignment paid ``reward`` (module docstring). A free
    assignment has no fee; MTurk's rate depends on the HIT's number of assignments
    (``max_assignments``, as published)."""
    if reward <= 0 or (platform == MTURK and sandbox):
        return ZERO
    if platform == MTURK:
        return fee_for(reward, fee_rate(max_assignments or 1, masters=masters))
    if platform == PROLIFIC:
        return _cents(reward * PROLIFIC_FEE_RATE)
    return ZERO


def bonus_fee(platform: str, amount: Decimal, *, sandbox: bool = False) -> Decimal:
    """The platform's fee on one bonus: MTurk's base rate (no 10+-assignment or Masters
    surcharge on bonuses), Prolific's service fee, nothing otherwise."""
    if amount <= 0 or (platform == MTURK and sandbox):
        return ZERO
    if platform == MTURK:
        return fee_for(amount, fee_rate(1, masters=False))
    if platform == PROLIFIC:
        return _cents(amount * PROLIFIC_FEE_RATE)
    return ZERO


@dataclass(frozen=True)
class AssignmentCostRow:
    """One assignment: its status, the platform of its worker, the reward it was taken at,
    and the HIT's MTurk publication (None if not published there)."""

    status: str
    platform: str
    reward: Decimal
    mturk_sandbox: bool | None = None
    mturk_max_assignments: int | None = None
    n: int = 1  # this many alike (the API's grouped rows)


@dataclass(frozen=True)
class HitPlacesRow:
    """A regular HIT: its places, its live assignments (started, submitted, approved), its
    reward and the platform it is offered on (``offered_on``, see the module docstring)."""

    places: int
    live: int
    reward: Decimal
    offered_on: str
    mturk_sandbox: bool | None = None
    mturk_max_assignments: int | None = None


@dataclass(frozen=True)
class PlacesToComeRow:
    """Places of HITs the kind will build as work arrives, at the reward they will be
    offered at on ``offered_on``; ``label`` says what they are, for the report's line."""

    places: int
    reward: Decimal
    offered_on: str
    label: str


@dataclass(frozen=True)
class BonusCostRow:
    amount: Decimal
    sent: bool
    platform: str
    mturk_sandbox: bool | None = None
    n: int = 1  # this many alike (the API's grouped rows)


@dataclass
class CostLine:
    """One line of the report: how many assignments (or bonuses), their rewards (or
    amounts), the platforms' fees and the sum."""

    key: str
    label: str
    count: int = 0
    rewards: Decimal = ZERO
    fees: Decimal = ZERO

    @property
    def total(self) -> Decimal:
        return self.rewards + self.fees

    def add(self, count: int, amount: Decimal, fee: Decimal) -> None:
        self.count += count
        self.rewards += amount * count
        self.fees += fee * count


@dataclass(frozen=True)
class CostReport:
    """The lines (:data:`LINES`) and their sums, in US dollars. ``fees_by_platform``: the
    fees of every line by platform, for the page's note on where the money goes."""

    lines: dict[str, CostLine]
    fees_by_platform: dict[str, Decimal] = field(default_factory=dict)
    currency: str = "USD"

    @property
    def line_list(self) -> list[CostLine]:
        return list(self.lines.values())

    def _sum(self, *keys: str) -> Decimal:
        return sum((self.lines[k].total for k in keys), ZERO)

    @property
    def paid(self) -> Decimal:
        """Spent: approved assignments and sent bonuses."""
        return self._sum("approved", "bonuses_sent")

    @property
    def committed(self) -> Decimal:
        """Spent or due: paid, plus submitted assignments (approved automatically unless
        rejected)."""
        return self.paid + self._sum("submitted")

    @property
    def projected(self) -> Decimal:
        """At completion: committed, plus work in progress, places not started yet, places
        of HITs still to be built and bonuses not confirmed yet."""
        return self.committed + self._sum(
            "in_progress", "not_started", "to_come", "bonuses_pending"
        )


# Statuses: what the platform pays for, and what is still to come.
_PAID_LINE = {"approved": "approved", "submitted": "submitted", "started": "in_progress"}


def cost_report(
    assignments: Iterable[AssignmentCostRow],
    hits: Iterable[HitPlacesRow],
    bonuses: Iterable[BonusCostRow] = (),
    *,
    masters: bool = False,
    to_come: Sequence[PlacesToComeRow] = (),
) -> CostReport:
    """The campaign's cost lines (module docstring). Imported work counts nowhere."""
    lines = {key: CostLine(key, label) for key, label in LINES}
    said = dict.fromkeys(row.label for row in to_come if row.places > 0)
    if said:
        # The kind's words: what these places are and where they come from.
        lines["to_come"].label = "; ".join(said)
    by_platform: dict[str, Decimal] = {}

    def count(key: str, platform: str, n: int, amount: Decimal, fee: Decimal) -> None:
        lines[key].add(n, amount, fee)
        if fee * n:
            by_platform[platform] = by_platform.get(platform, ZERO) + fee * n

    for row in assignments:
        key = _PAID_LINE.get(row.status)
        if key is None or row.platform == IMPORTED:
            continue
        if row.platform == MTURK and row.mturk_sandbox:
            # The sandbox pays nothing: the assignment is counted, at no cost.
            count(key, row.platform, row.n, ZERO, ZERO)
            continue
        fee = assignment_fee(
            row.platform,
            row.reward,
            sandbox=bool(row.mturk_sandbox),
            max_assignments=row.mturk_max_assignments,
            masters=masters,
        )
        count(key, row.platform, row.n, row.reward, fee)
    for hit in hits:
        free = max(0, hit.places - hit.live)
        if not free:
            continue
        sandbox = hit.offered_on == MTURK and bool(hit.mturk_sandbox)
        reward = ZERO if sandbox else hit.reward
        fee = assignment_fee(
            hit.offered_on,
            reward,
            sandbox=sandbox,
            max_assignments=hit.mturk_max_assignments,
            masters=masters,
        )
        count("not_started", hit.offered_on, free, reward, fee)
    for row in to_come:
        if row.places > 0:
            # A HIT not built yet is on no MTurk batch: the kind prices it on direct links
            # or Prolific (``offered_on``), with no HIT size or Masters surcharge to apply.
            fee = assignment_fee(row.offered_on, row.reward)
            count("to_come", row.offered_on, row.places, row.reward, fee)
    for bonus in bonuses:
        if bonus.platform == IMPORTED:
            continue
        sandbox = bonus.platform == MTURK and bool(bonus.mturk_sandbox)
        amount = ZERO if sandbox else bonus.amount
        fee = bonus_fee(bonus.platform, amount, sandbox=sandbox)
        key = "bonuses_sent" if bonus.sent else "bonuses_pending"
        count(key, bonus.platform, bonus.n, amount, fee)
    return CostReport(lines=lines, fees_by_platform=by_platform)


def work_platform(worker_platform: str, mturk_sandbox: bool | None) -> str:
    """The platform that pays for an assignment (or a bonus on it): MTurk for a HIT published
    there (``mturk_sandbox`` is None otherwise), else the worker's. A HIT published on MTurk
    is handed out there only (README, "Crowd platforms"): its work is MTurk's, whatever
    platform the worker row was first seen on."""
    return MTURK if mturk_sandbox is not None else worker_platform


def offered_on(published_on_mturk: bool, prolific_study: bool) -> str:
    """The platform a HIT's free places are offered on (module docstring)."""
    if published_on_mturk:
        return MTURK
    return PROLIFIC if prolific_study else DIRECT


def per_assignment_cost(
    reward: Decimal,
    platform: str,
    *,
    sandbox: bool = False,
    max_assignments: int | None = None,
    masters: bool = False,
) -> Decimal:
    """Reward plus fee of one more assignment on ``platform`` (what "judgments still needed"
    prices its extra assignments at)."""
    if platform == MTURK and sandbox:
        return ZERO
    return reward + assignment_fee(
        platform, reward, sandbox=sandbox, max_assignments=max_assignments, masters=masters
    )


def platforms_seen(rows: Sequence[AssignmentCostRow]) -> list[str]:
    """The platforms of the rows, each once, in the order they first appear."""
    return list(dict.fromkeys(row.platform for row in rows))
