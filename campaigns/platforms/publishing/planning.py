"""What a publication would do: HIT settings and task URLs from a campaign, the plan (HITs not
on MTurk yet, their cost, the problems that stop it), the plan's signed fingerprint (what the
requester reviewed, compared again when they confirm), the account balance, and HIT numbers
typed by a requester. Reads the database; the only MTurk call is the balance."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core import signing
from django.urls import reverse

from campaigns.models import Campaign, CampaignStatus, Hit, MTurkHit
from campaigns.platforms import clients, mturk
from campaigns.platforms.mturk import CostEstimate, HitSettings, MTurkError

QUALIFICATION_TITLE_PREFIX = "Qualification test: "
QUALIFICATION_DESCRIPTION_NOTE = (
    "This is the qualification test of these tasks: take it once; if you pass, you are "
    "granted the qualification that the other tasks of this campaign require."
)
EDIT_CAMPAIGN = (
    "Edit the campaign (sections 'Payment and publishing' and 'Amazon Mechanical Turk'), save "
    "it, and open this page again."
)


class NotHttpsError(ValueError):
    """PUBLIC_BASE_URL is not an https:// address, so MTurk cannot show our task pages."""

    def __init__(self, base: str) -> None:
        self.problem = (
            f"PUBLIC_BASE_URL is {base or 'not set'}, but MTurk only shows task pages served "
            "over HTTPS."
        )
        self.what_to_do = (
            "Set PUBLIC_BASE_URL to this site's public HTTPS address (for example "
            "https://eval.example.org) and restart evalsite."
        )
        super().__init__(f"{self.problem} {self.what_to_do}")


@dataclass(frozen=True)
class Problem:
    """Something that stops a publication, with what the requester does about it."""

    message: str
    what_to_do: str

    def __str__(self) -> str:
        return f"{self.message} {self.what_to_do}"


# --- Settings and URLs ---------------------------------------------------------------------


def _qualification_title(title: str) -> str:
    stripped = (title or "").strip()
    # An empty title stays empty so that HitSettings reports it instead of publishing a HIT
    # called only "Qualification test: ".
    return (QUALIFICATION_TITLE_PREFIX + stripped)[: mturk.settings.MAX_TITLE] if stripped else ""


def _qualification_description(description: str) -> str:
    stripped = (description or "").strip()
    if not stripped:
        return ""
    room = mturk.settings.MAX_DESCRIPTION - len(QUALIFICATION_DESCRIPTION_NOTE) - 2
    return f"{stripped[:room]}\n\n{QUALIFICATION_DESCRIPTION_NOTE}"


def _settings_for(
    campaign: Campaign, *, qualification_test: bool, custom_qualification_type_id: str | None
) -> HitSettings:
    title, description = campaign.title, campaign.description
    if qualification_test:
        title, description = _qualification_title(title), _qualification_description(description)
    return HitSettings(
        title=title,
        description=description,
        keywords=campaign.keywords,
        reward=campaign.reward,
        max_assignments=(
            campaign.mturk_qualification_test_places if qualification_test else campaign.redundancy
        ),
        assignment_duration_seconds=campaign.assignment_duration_seconds,
        lifetime_seconds=campaign.hit_lifetime_seconds,
        auto_approval_delay_seconds=campaign.auto_approval_delay_seconds,
        locales=tuple(campaign.mturk_locales or ()),
        min_approval_rate=campaign.mturk_min_approval_rate,
        min_approved_hits=campaign.mturk_min_approved_hits,
        masters=campaign.mturk_masters,
        custom_qualification_type_id=custom_qualification_type_id,
        sandbox=campaign.mturk_sandbox,
    )


def _requires_our_qualification(campaign: Campaign, *, qualification_test: bool) -> bool:
    """Regular HITs of a campaign that requires the test require our MTurk qualification; the
    test HIT never does (it is how workers earn it)."""
    return campaign.qualification_required and not qualification_test


def hit_settings_for(
    campaign: Campaign, *, qualification_test: bool = False, type_pending: bool = False
) -> HitSettings:
    """The MTurk settings of the campaign's regular HITs, or of its qualification-test HIT.

    The test HIT offers ``mturk_qualification_test_places`` assignments and never requires our
    own qualification; regular HITs offer ``redundancy`` assignments and require it when the
    campaign requires the test. ValueError (with MTurk's limit in words) for a campaign MTurk
    would refuse, and for a campaign that requires the test but has no MTurk qualification
    type yet (:func:`publish` creates it first) unless ``type_pending``: :func:`plan` prices
    and checks the HITs before that type exists, and the type changes neither.
    """
    qualification_type_id = None
    if _requires_our_qualification(campaign, qualification_test=qualification_test):
        qualification_type_id = campaign.mturk_qualification_type_id or None
        if qualification_type_id is None and not type_pending:
            raise ValueError(
                "The campaign requires the qualification test but has no MTurk qualification "
                "type yet; publishing creates it before the first HIT."
            )
    return _settings_for(
        campaign,
        qualification_test=qualification_test,
        custom_qualification_type_id=qualification_type_id,
    )


def public_base_url() -> str:
    """settings.PUBLIC_BASE_URL without a trailing slash; NotHttpsError unless https://."""
    base = (settings.PUBLIC_BASE_URL or "").rstrip("/")
    if not base.startswith("https://"):
        raise NotHttpsError(base)
    return base


def task_url(hit: Hit | int) -> str:
    """The ExternalURL of one of our HITs: our MTurk entry page for it, on the public host."""
    hit_id = hit if isinstance(hit, int) else hit.pk
    return public_base_url() + reverse("judgments:mturk-task", args=[hit_id])


def request_token_prefix(campaign: Campaign) -> str:
    """Stable per campaign and environment, so a retry sends the same token for the same HIT
    (``es`` + ``s``andbox or ``p``roduction + the campaign id; the token adds ``-<hit id>``)."""
    return f"es{'s' if campaign.mturk_sandbox else 'p'}{campaign.pk}"


def qualification_type_name(campaign: Campaign) -> str:
    """Our qualification type's name on MTurk: unique per account, so it names the site and
    the campaign id (which never change), not the title (which may)."""
    host = urlsplit(settings.PUBLIC_BASE_URL or "").hostname or "evalsite"
    return f"evalsite {host} campaign {campaign.pk}: passed the qualification test"


def qualification_type_description(campaign: Campaign) -> str:
    title = (campaign.title or campaign.name).strip()
    return (
        f'Granted to workers who passed the qualification test of "{title}". The other tasks '
        "of that campaign require it."
    )


def environment_label(sandbox: bool) -> str:
    return "sandbox" if sandbox else "production"


def requirements_in_words(campaign: Campaign, *, qualification_test: bool = False) -> list[str]:
    """What a worker needs to accept the HITs, as the confirmation page and the command say it.

    Workers who do not qualify can still find and preview the HIT (MTurk's ``Accept`` guard).
    """
    words: list[str] = []
    if campaign.mturk_locales:
        words.append("Located in " + ", ".join(campaign.mturk_locales))
    if campaign.mturk_min_approval_rate is not None:
        words.append(f"At least {campaign.mturk_min_approval_rate}% of earlier work approved")
    if campaign.mturk_min_approved_hits is not None:
        words.append(f"At least {campaign.mturk_min_approved_hits:,} approved HITs")
    if campaign.mturk_masters:
        words.append("MTurk Masters only (MTurk charges 5% more)")
    if _requires_our_qualification(campaign, qualification_test=qualification_test):
        type_id = campaign.mturk_qualification_type_id
        words.append(
            "Passed this campaign's qualification test (MTurk qualification "
            + (type_id if type_id else "created when you publish")
            + ")"
        )
    return words


# --- Plan ----------------------------------------------------------------------------------


@dataclass
class Plan:
    """What :func:`publish` would do now: the HITs without an MTurk HIT (qualification test
    and regular ones), their settings and cost, and the problems that stop it."""

    campaign: Campaign
    sandbox: bool
    qualification_hits: list[Hit] = field(default_factory=list)
    regular_hits: list[Hit] = field(default_factory=list)
    qualification_settings: HitSettings | None = None
    regular_settings: HitSettings | None = None
    qualification_cost: CostEstimate | None = None
    regular_cost: CostEstimate | None = None
    campaign_hits: int = 0  # HITs of the campaign that belong on MTurk
    published_hits: int = 0  # of those, already on MTurk
    first_url: str = ""
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    creates_qualification_type: bool = False

    @property
    def environment(self) -> str:
        return environment_label(self.sandbox)

    @property
    def hits(self) -> list[Hit]:
        return [*self.qualification_hits, *self.regular_hits]

    @property
    def hit_count(self) -> int:
        return len(self.qualification_hits) + len(self.regular_hits)

    @property
    def total_cost(self) -> Decimal:
        return sum(
            (cost.total for cost in (self.qualification_cost, self.regular_cost) if cost),
            Decimal("0.00"),
        )

    @property
    def can_publish(self) -> bool:
        """No problem and something to publish (the balance is checked separately)."""
        return not self.problems and self.hit_count > 0

    def fingerprint(self) -> dict[str, Any]:
        """What the requester reviewed: the environment, the HITs (numbers, and a digest of
        their ids), the most it can cost, and a digest of every other setting the HITs go out
        with (title, description, reward, assignments, durations, worker requirements).
        Confirming compares it with the plan at that moment (:func:`plan_changes`), so nothing
        goes out that the requester never saw."""
        batches = [
            {key: value for key, value in asdict(hit_settings).items() if key != "sandbox"}
            for hit_settings in (self.qualification_settings, self.regular_settings)
            if hit_settings is not None
        ]
        return {
            "campaign": self.campaign.pk,
            "environment": self.environment,
            "hits": numbers_in_words(hit.number for hit in self.hits),
            "hit_ids": _digest([hit.pk for hit in self.hits]),
            "cost": f"{self.total_cost:.2f}",
            "settings": _digest(batches),
        }

    def summary_lines(self) -> list[str]:
        """The plan in plain lines: what the command prints and the tests read."""
        campaign = self.campaign
        lines = [
            f"Campaign: {campaign.name} (id {campaign.pk})",
            f"Environment: {self.environment.upper()}"
            + (" (no money is paid)" if self.sandbox else " (real money)"),
            f"On MTurk already: {self.published_hits} of {self.campaign_hits} HIT(s)",
            f"To publish: {self.hit_count} HIT(s)",
        ]
        batches = (
            ("Qualification test", self.qualification_hits, self.qualification_settings),
            ("Regular HITs", self.regular_hits, self.regular_settings),
        )
        costs = (self.qualification_cost, self.regular_cost)
        for (label, hits, hit_settings), cost in zip(batches, costs, strict=True):
            if not hits or hit_settings is None or cost is None:
                continue
            lines.append(
                f"  {label}: {len(hits)} HIT(s) x {hit_settings.max_assignments} assignment(s) "
                f"x ${hit_settings.reward_param} reward + MTurk fee "
                f"{cost.fee_rate * 100:.0f}% (${cost.fee_per_assignment} per assignment) "
                f"= ${cost.total:.2f}"
            )
        lines.append(f"Most it can cost: ${self.total_cost:.2f} (every assignment approved)")
        requirements = requirements_in_words(campaign)
        lines.append(
            "Worker requirements: " + ("; ".join(requirements) if requirements else "none")
        )
        if self.qualification_hits:
            test_requirements = requirements_in_words(campaign, qualification_test=True)
            lines.append(
                "Qualification test requirements: "
                + ("; ".join(test_requirements) if test_requirements else "none")
            )
        if self.first_url:
            lines.append(f"ExternalURL of the first HIT: {self.first_url}")
        lines.extend(f"Note: {note}" for note in self.notes)
        lines.extend(f"Problem: {problem}" for problem in self.problems)
        return lines


def _selected_hits(campaign: Campaign, hit_ids: Sequence[int] | None) -> tuple[list[Hit], list]:
    hits = Hit.objects.filter(campaign=campaign).select_related("mturk").order_by("number")
    if hit_ids is None:
        return list(hits), []
    wanted = set(hit_ids)
    chosen = list(hits.filter(pk__in=wanted))
    return chosen, sorted(wanted - {hit.pk for hit in chosen})


def plan(campaign: Campaign, hit_ids: Sequence[int] | None = None) -> Plan:
    """What publishing the campaign (or the HITs ``hit_ids`` of it) would do, and what stops it.

    Reads the database only (no MTurk call): the confirmation page, the command's ``plan`` and
    :func:`publish` itself all start here.
    """
    result = Plan(campaign=campaign, sandbox=campaign.mturk_sandbox)
    problems = result.problems
    if campaign.status != CampaignStatus.ACTIVE:
        problems.append(
            Problem(
                f"The campaign is {campaign.get_status_display().lower()}, so workers arriving "
                "from MTurk would be turned away.",
                "Activate it first (campaign action 'Activate: hand out HITs').",
            )
        )
    all_hits, unknown = _selected_hits(campaign, hit_ids)
    if unknown:
        problems.append(
            Problem(
                f"HIT id(s) {', '.join(map(str, unknown))} are not HITs of this campaign.",
                "Choose HITs of this campaign (their numbers are in the HIT list).",
            )
        )
    campaign_hits = Hit.objects.filter(campaign=campaign)
    if not campaign.qualification_required:
        campaign_hits = campaign_hits.filter(is_qualification=False)
    result.campaign_hits = campaign_hits.count()
    result.published_hits = MTurkHit.objects.filter(hit__in=campaign_hits).count()
    if not Hit.objects.filter(campaign=campaign).exists():
        problems.append(
            Problem(
                "The campaign has no HITs yet.",
                "Import its segments, then run the campaign action 'Build HITs'.",
            )
        )

    other_environment = MTurkHit.objects.filter(
        hit__campaign=campaign, sandbox=not campaign.mturk_sandbox
    ).count()
    if other_environment:
        problems.append(
            Problem(
                f"{other_environment} HIT(s) of this campaign are already on MTurk's "
                f"{environment_label(not campaign.mturk_sandbox)}; one campaign lives in one "
                "environment, since its assignments and judgments would otherwise mix.",
                "To publish to the other environment, create a new campaign with the same "
                "settings and segments; or set 'Publish to MTurk's sandbox' back to how it was.",
            )
        )

    skipped_tests = skipped_own_places = 0
    for hit in all_hits:
        if hasattr(hit, "mturk"):
            continue
        if (hit.places is not None and hit.places != campaign.redundancy) or (
            hit.reward is not None and hit.reward != campaign.reward
        ):
            # One batch of regular HITs goes out with one MaxAssignments (the redundancy) and
            # one reward; a HIT with its own number of workers or pay (a post-editing
            # verification HIT, a reading-comprehension stage) is handed out by direct link
            # and Prolific instead.
            skipped_own_places += 1
            continue
        if hit.is_qualification:
            if campaign.qualification_required:
                result.qualification_hits.append(hit)
            else:
                skipped_tests += 1
        else:
            result.regular_hits.append(hit)
    if skipped_tests:
        result.notes.append(
            "The campaign has a qualification-test HIT but does not require the test, so that "
            "HIT is not published."
        )
    if skipped_own_places:
        result.notes.append(
            f"{skipped_own_places} HIT(s) take their own number of workers or pay (verification "
            "of post-edits, reading-comprehension stages) and are not published to MTurk: "
            "workers reach them by direct link or "
            "Prolific (campaign action 'Create direct worker links')."
        )
    if hit_ids is not None and all_hits and not result.hit_count and not unknown:
        result.notes.append("Every chosen HIT is already on MTurk.")

    if campaign.qualification_required and result.regular_hits:
        tests = list(
            Hit.objects.filter(campaign=campaign, is_qualification=True)
            .select_related("mturk")
            .order_by("number")
        )
        if not tests:
            problems.append(
                Problem(
                    "The campaign requires the qualification test but has no qualification "
                    "HIT, so no MTurk worker could ever qualify for its HITs.",
                    "Build the HITs again (a ranking campaign that requires the test builds "
                    "one), or untick 'Qualification required'.",
                )
            )
        elif not any(hasattr(test, "mturk") for test in tests) and not result.qualification_hits:
            problems.append(
                Problem(
                    "The qualification test HIT is not on MTurk and not among the chosen HITs, "
                    "so no worker could qualify for them.",
                    f"Publish HIT {tests[0].number} (the qualification test) with them, or "
                    "publish the whole campaign.",
                )
            )

    for hits, qualification_test in (
        (result.qualification_hits, True),
        (result.regular_hits, False),
    ):
        if not hits:
            continue
        try:
            hit_settings = hit_settings_for(
                campaign, qualification_test=qualification_test, type_pending=True
            )
        except ValueError as error:
            problem = Problem(str(error), EDIT_CAMPAIGN)
            if problem not in problems:
                problems.append(problem)
            continue
        cost = mturk.estimate_cost(
            hit_settings.reward,
            hit_settings.max_assignments,
            len(hits),
            masters=hit_settings.masters,
        )
        if qualification_test:
            result.qualification_settings, result.qualification_cost = hit_settings, cost
        else:
            result.regular_settings, result.regular_cost = hit_settings, cost

    # publish() finds or creates the type whenever the test is required (see there).
    result.creates_qualification_type = bool(
        campaign.qualification_required and result.hits and not campaign.mturk_qualification_type_id
    )
    if result.hits:
        try:
            result.first_url = task_url(result.hits[0])
        except NotHttpsError as error:
            problems.append(Problem(error.problem, error.what_to_do))
    return result


# --- What the requester reviewed --------------------------------------------------------------

PLAN_SALT = "campaigns.platforms.publishing.plan"
PLAN_CHANGED = "The plan changed since you reviewed it ({changes}); review it again."


def _digest(value: Any) -> str:
    """A short stable digest of plain values (lists, dicts, Decimals, strings) for a
    fingerprint: the signed page carries it instead of the values themselves."""
    return hashlib.sha256(repr(value).encode()).hexdigest()[:32]


def sign_plan(current: Plan) -> str:
    """The plan's fingerprint, signed (``django.core.signing``), for the confirmation page to
    post back with Confirm."""
    return signing.dumps(current.fingerprint(), salt=PLAN_SALT, compress=True)


def reviewed_plan(signed: str) -> dict[str, Any] | None:
    """The fingerprint a confirmation posted back; None when missing or not signed by us."""
    try:
        reviewed = signing.loads(signed or "", salt=PLAN_SALT)
    except signing.BadSignature:
        return None
    return reviewed if isinstance(reviewed, dict) else None


def plan_changes(current: Plan, reviewed: dict[str, Any] | None) -> list[str]:
    """How ``current`` differs from the plan the requester reviewed, in words; empty when it
    is the same plan. A missing or foreign fingerprint is a difference too."""
    if reviewed is None:
        return ["the confirmation did not carry the plan you reviewed"]
    now = current.fingerprint()
    if reviewed.get("campaign") != now["campaign"]:
        return ["the confirmation carried another campaign's plan"]
    changes: list[str] = []
    if reviewed.get("environment") != now["environment"]:
        changes.append(
            f"environment {str(reviewed.get('environment')).upper()} -> "
            f"{now['environment'].upper()}"
        )
    if reviewed.get("hits") != now["hits"]:
        changes.append(f"HITs {reviewed.get('hits') or 'none'} -> {now['hits'] or 'none'}")
    elif reviewed.get("hit_ids") != now["hit_ids"]:
        changes.append(f"HITs {now['hits']} were built again")
    if reviewed.get("cost") != now["cost"]:
        changes.append(f"most it can cost ${reviewed.get('cost')} -> ${now['cost']}")
    if reviewed.get("settings") != now["settings"]:
        changes.append(
            "the HITs' settings (title, description, reward, assignments, durations or worker "
            "requirements)"
        )
    return changes


def plan_changed_message(changes: Sequence[str]) -> str:
    return PLAN_CHANGED.format(changes="; ".join(changes))


def numbers_in_words(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``: the HIT numbers of a plan, short enough for a page."""
    ordered = sorted(set(numbers))
    runs: list[str] = []
    start = previous = None
    for number in [*ordered, None]:
        if number is not None and previous is not None and number == previous + 1:
            previous = number
            continue
        if start is not None:
            runs.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = number
    return ", ".join(runs)


# --- Balance -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Funds:
    """The requester account's balance, or why it could not be read."""

    sandbox: bool
    balance: Decimal | None = None
    error: MTurkError | None = None

    def covers(self, cost: Decimal) -> bool:
        return self.balance is not None and self.balance >= cost

    def summary(self, cost: Decimal) -> str:
        if self.balance is None:
            if self.error is None:
                return "Account balance unknown."
            return (
                f"Account balance unknown: {self.error.message} ({self.error.code}). "
                f"{self.error.what_to_do}"
            )
        text = f"Account balance: ${self.balance:,.2f}"
        if self.sandbox:
            text += " (the sandbox's pretend balance; nothing is paid)"
        if not self.covers(cost):
            text += (
                f". Not enough for ${cost:,.2f}: add funds to the requester account "
                "(requester.mturk.com, My Account), then try again"
            )
        return text


def check_funds(campaign: Campaign, client: Any = None) -> Funds:
    """The account balance in the campaign's environment (never raises for MTurk errors)."""
    try:
        client = client or clients.mturk_client(campaign.mturk_sandbox)
        return Funds(campaign.mturk_sandbox, balance=mturk.account_balance(client))
    except MTurkError as error:
        return Funds(campaign.mturk_sandbox, error=error)


# --- Choosing HITs by number ---------------------------------------------------------------

_RANGE_RE = re.compile(r"^(\d+)\s*-\s*(\d+)$")


def parse_hit_numbers(text: str) -> list[int]:
    """``"1-3, 7"`` -> ``[1, 2, 3, 7]``; ValueError naming the part that is not a number."""
    numbers: list[int] = []
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        match = _RANGE_RE.match(part)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            if low > high or high - low > 100_000:
                raise ValueError(f"{part!r} is not a range of HIT numbers such as 1-10.")
            numbers.extend(range(low, high + 1))
        elif part.isdigit():
            numbers.append(int(part))
        else:
            raise ValueError(
                f"{part!r} is not a HIT number: write numbers and ranges such as 1-10, 15."
            )
    return list(dict.fromkeys(numbers))


def hit_ids_for_numbers(campaign: Campaign, numbers: Sequence[int]) -> list[int]:
    """Our HIT ids for the campaign's HIT numbers; ValueError listing unknown numbers."""
    found = dict(
        Hit.objects.filter(campaign=campaign, number__in=numbers).values_list("number", "pk")
    )
    missing = [number for number in numbers if number not in found]
    if missing:
        shown = ", ".join(map(str, missing[:20])) + (" ..." if len(missing) > 20 else "")
        raise ValueError(f"The campaign has no HIT number {shown}.")
    return [found[number] for number in numbers]
