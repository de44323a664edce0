"""What a published HIT looks like: :class:`HitSettings`, its qualification requirements and the
ExternalQuestion XML that points MTurk at our task page.

Limits, from MTurk's API reference (``AWSMturkAPI-legacy/ApiReference_CreateHITOperation``,
still the only page that states them; the 2017-01-17 API kept the parameters): title at most
128 characters, description at most 2,000, keywords at most 1,000 including commas and spaces,
``AssignmentDurationInSeconds`` and ``LifetimeInSeconds`` between 30 and 31,536,000 (365 days),
``AutoApprovalDelayInSeconds`` between 0 and 2,592,000 (30 days), ``MaxAssignments`` between 1
and 1,000,000,000, at most 10 qualification requirements, a question of at most 65,535 bytes.
The reward is a US dollar string matching ``^[0-9]+(\\.)?[0-9]{0,2}$`` (botocore's model);
MTurk pays at least $0.01, so a reward must be positive.

Qualification type ids (``AWSMturkAPI/ApiReference_QualificationRequirementDataStructureArticle``,
table "Qualification Type IDs"): Masters ``2F1QJWKUDD8XADTFD2Q0G6UTO95ALH`` in production and
``2ARFPLSP75KLA8M8DH1HTEQVJT3SY6`` in the sandbox (comparator ``Exists``);
``Worker_NumberHITsApproved`` ``00000000000000000040``; ``Worker_Locale``
``00000000000000000071`` (``In`` takes up to 30 ``LocaleValues``, each an ISO 3166 country code
with an optional ISO 3166-2 subdivision); ``Worker_PercentAssignmentsApproved``
``000000000000000000L0`` (0 to 100). The same page warns that a worker with fewer than 100
submitted assignments shows an approval rate of 100%, so an approval-rate requirement means
little without a ``Worker_NumberHITsApproved`` one; :class:`HitSettings` accepts either alone
but the admin should offer both together.

``ActionsGuarded``: MTurk's default, ``Accept``, lets a worker who does not qualify find and
preview the HIT but not accept it. We keep it as our default: a worker can judge the task from
the preview before taking our qualification test, and the preview page never shows a role, a
system name or a gold answer (``DESIGN.md``), so nothing leaks. ``PreviewAndAccept`` and
``DiscoverPreviewAndAccept`` are available per campaign (``HitSettings.actions_guarded``) for
requesters who prefer to hide the HIT from workers outside the locale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any
from xml.sax.saxutils import escape

MASTERS_PRODUCTION = "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH"
MASTERS_SANDBOX = "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6"
NUMBER_HITS_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"
PERCENT_ASSIGNMENTS_APPROVED = "000000000000000000L0"

# Value our own qualification type has for a worker who passed the qualification test; a
# worker given any other value (we could record a failure as 0) does not qualify.
PASSED_QUALIFICATION_VALUE = 1

EXTERNAL_QUESTION_SCHEMA = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/"
    "ExternalQuestion.xsd"
)

MAX_TITLE = 128
MAX_DESCRIPTION = 2000
MAX_KEYWORDS = 1000
MIN_DURATION = 30
MAX_DURATION = 365 * 24 * 60 * 60  # 31,536,000 s, for both the assignment and the HIT lifetime
MAX_AUTO_APPROVAL_DELAY = 30 * 24 * 60 * 60  # 2,592,000 s
MAX_ASSIGNMENTS = 1_000_000_000
MAX_LOCALES = 30
MAX_QUESTION_BYTES = 65535
ACTIONS_GUARDED = ("Accept", "PreviewAndAccept", "DiscoverPreviewAndAccept")

_LOCALE_RE = re.compile(r"^([A-Z]{2})(?:-([A-Z0-9]{2}))?$")
_ENTITY_ID_RE = re.compile(r"^[A-Z0-9]{1,64}$")


def dollars(value: Any, what: str) -> Decimal:
    """A positive US dollar amount with at most two decimals, as a Decimal.

    Floats are refused (``0.1 + 0.2`` is not a price); strings, ints and Decimals are fine.
    """
    if isinstance(value, float | bool):
        raise ValueError(f"{what} must be a Decimal or a string such as '0.30', not {value!r}.")
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{what} must be an amount in US dollars such as '0.30'.") from None
    if not amount.is_finite():
        raise ValueError(f"{what} must be an amount in US dollars such as '0.30'; got {value!r}.")
    if amount <= 0:
        raise ValueError(f"{what} must be more than $0.00 on MTurk (the minimum is $0.01).")
    try:
        cents = amount.quantize(Decimal("0.01"))
    except InvalidOperation:
        raise ValueError(f"{what} is too large: {value!r}.") from None
    if amount != cents:
        raise ValueError(
            f"{what} must be whole cents (at most two decimals), such as '0.30'; got {value!r}."
        )
    return cents


def dollars_param(amount: Decimal) -> str:
    """MTurk's ``CurrencyAmount`` string: always two decimals (``Decimal('0.3')`` -> ``0.30``)."""
    return format(amount.quantize(Decimal("0.01")), "f")


def external_question_xml(url: str, frame_height: int = 0) -> str:
    """The ExternalQuestion XML for a task page at ``url``.

    MTurk shows the page in an iframe and appends ``assignmentId``, ``hitId``, ``turkSubmitTo``
    and ``workerId`` to the URL. The URL "must use the HTTPS protocol"; ``frame_height`` is the
    iframe height in pixels, 0 meaning "automatically resize to fit within the Worker's browser
    window" (``AWSMturkAPI/ApiReference_ExternalQuestionArticle``). The URL is XML-escaped
    (``&`` becomes ``&amp;``), which is how a query string survives inside the element.
    """
    if not isinstance(url, str) or not url.startswith("https://"):
        raise ValueError(
            f"MTurk only frames HTTPS pages; the task URL must start with https://: {url!r}."
        )
    if any(ch.isspace() for ch in url):
        raise ValueError(f"The task URL must not contain spaces or line breaks: {url!r}.")
    if isinstance(frame_height, bool) or not isinstance(frame_height, int) or frame_height < 0:
        raise ValueError("frame_height must be a whole number of pixels, 0 for automatic.")
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<ExternalQuestion xmlns="{EXTERNAL_QUESTION_SCHEMA}">'
        f"<ExternalURL>{escape(url)}</ExternalURL>"
        f"<FrameHeight>{frame_height}</FrameHeight>"
        "</ExternalQuestion>"
    )
    if len(xml.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise ValueError(f"The question XML exceeds MTurk's {MAX_QUESTION_BYTES} bytes.")
    return xml


def checked_locales(values: Any) -> tuple[str, ...]:
    """Locale codes normalised (``"us-ca"`` -> ``"US-CA"``), deduplicated, in their order;
    ValueError naming the first code MTurk would not understand."""
    if isinstance(values, str):
        raise ValueError("locales is a list of codes such as ['US', 'GB'], not one string.")
    locales: list[str] = []
    for raw in values:
        code = str(raw).strip().upper().replace("_", "-")
        if not _LOCALE_RE.match(code):
            raise ValueError(
                f"{raw!r} is not a locale MTurk understands: use an ISO 3166 country code "
                "('US', 'DE'), optionally with a subdivision ('US-CA')."
            )
        if code not in locales:
            locales.append(code)
    if len(locales) > MAX_LOCALES:
        raise ValueError(f"MTurk accepts at most {MAX_LOCALES} locales; got {len(locales)}.")
    return tuple(locales)


def _normalise_keywords(keywords: Any) -> str:
    if isinstance(keywords, str):
        parts = keywords.split(",")
    else:
        parts = list(keywords)
    cleaned = [str(part).strip() for part in parts if str(part).strip()]
    return ", ".join(cleaned)


def _check_seconds(value: Any, what: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number of seconds; got {value!r}.")
    if not low <= value <= high:
        raise ValueError(
            f"{what} must be between {low} and {high} seconds on MTurk "
            f"({_human(low)} to {_human(high)}); got {value}."
        )


def _human(seconds: int) -> str:
    if seconds % 86400 == 0 and seconds:
        return f"{seconds // 86400} days"
    if seconds % 3600 == 0 and seconds:
        return f"{seconds // 3600} hours"
    return f"{seconds} s"


@dataclass(frozen=True)
class HitSettings:
    """Everything MTurk needs to know about a campaign's HITs, validated on construction.

    ``reward`` is per assignment in US dollars; ``max_assignments`` is the campaign's
    redundancy; ``keywords`` is a comma-separated string (or a list) and is stored normalised
    (``"mt, translation"``). ``locales`` are ISO 3166 country codes, optionally with an ISO
    3166-2 subdivision (``"US-CA"``). ``custom_qualification_type_id`` is our own qualification
    type, granted to workers who passed the qualification test. ``sandbox`` defaults to True:
    money is spent only when production is asked for explicitly.
    """

    title: str
    description: str
    keywords: str
    reward: Decimal
    max_assignments: int
    assignment_duration_seconds: int
    lifetime_seconds: int = 7 * 24 * 60 * 60
    auto_approval_delay_seconds: int = 3 * 24 * 60 * 60
    locales: tuple[str, ...] = field(default=())
    min_approval_rate: int | None = None
    min_approved_hits: int | None = None
    masters: bool = False
    custom_qualification_type_id: str | None = None
    sandbox: bool = True
    actions_guarded: str = "Accept"

    def __post_init__(self) -> None:
        title = (self.title or "").strip()
        if not title:
            raise ValueError("The HIT title is empty: workers see it in their search results.")
        if len(title) > MAX_TITLE:
            raise ValueError(
                f"The HIT title has {len(title)} characters; MTurk allows {MAX_TITLE}."
            )
        description = (self.description or "").strip()
        if not description:
            raise ValueError("The HIT description is empty: workers read it before accepting.")
        if len(description) > MAX_DESCRIPTION:
            raise ValueError(
                f"The HIT description has {len(description)} characters; MTurk allows "
                f"{MAX_DESCRIPTION}."
            )
        keywords = _normalise_keywords(self.keywords or "")
        if len(keywords) > MAX_KEYWORDS:
            raise ValueError(
                f"The keywords take {len(keywords)} characters with commas and spaces; MTurk "
                f"allows {MAX_KEYWORDS}."
            )
        reward = dollars(self.reward, "The reward")
        if isinstance(self.max_assignments, bool) or not isinstance(self.max_assignments, int):
            raise ValueError("max_assignments (the redundancy) must be a whole number.")
        if not 1 <= self.max_assignments <= MAX_ASSIGNMENTS:
            raise ValueError(
                f"max_assignments (the redundancy) must be between 1 and {MAX_ASSIGNMENTS:,}; "
                f"got {self.max_assignments}."
            )
        _check_seconds(
            self.assignment_duration_seconds, "The assignment duration", MIN_DURATION, MAX_DURATION
        )
        _check_seconds(self.lifetime_seconds, "The HIT lifetime", MIN_DURATION, MAX_DURATION)
        _check_seconds(
            self.auto_approval_delay_seconds,
            "The auto-approval delay",
            0,
            MAX_AUTO_APPROVAL_DELAY,
        )
        locales = self._checked_locales()
        if self.min_approval_rate is not None and (
            isinstance(self.min_approval_rate, bool)
            or not isinstance(self.min_approval_rate, int)
            or not 0 <= self.min_approval_rate <= 100
        ):
            raise ValueError("The minimum approval rate is a whole percentage from 0 to 100.")
        if self.min_approved_hits is not None and (
            isinstance(self.min_approved_hits, bool)
            or not isinstance(self.min_approved_hits, int)
            or self.min_approved_hits < 0
        ):
            raise ValueError("The minimum number of approved HITs is a whole number, 0 or more.")
        qualification = self.custom_qualification_type_id
        if qualification is not None and not _ENTITY_ID_RE.match(str(qualification)):
            raise ValueError(
                "The qualification type id must be MTurk's id (capital letters and digits, as "
                f"returned by ensure_qualification_type); got {qualification!r}."
            )
        if self.actions_guarded not in ACTIONS_GUARDED:
            raise ValueError(f"actions_guarded must be one of {', '.join(ACTIONS_GUARDED)}.")
        object.__setattr__(self, "title", title)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "keywords", keywords)
        object.__setattr__(self, "reward", reward)
        object.__setattr__(self, "locales", locales)

    def _checked_locales(self) -> tuple[str, ...]:
        return checked_locales(self.locales)

    @property
    def reward_param(self) -> str:
        """The reward as MTurk's ``CurrencyAmount`` string, e.g. ``"0.30"``."""
        return dollars_param(self.reward)

    @property
    def masters_qualification_type_id(self) -> str:
        return MASTERS_SANDBOX if self.sandbox else MASTERS_PRODUCTION

    def hit_type_params(self) -> dict[str, Any]:
        """The keyword arguments of ``create_hit_type`` for these settings."""
        params: dict[str, Any] = {
            "AutoApprovalDelayInSeconds": self.auto_approval_delay_seconds,
            "AssignmentDurationInSeconds": self.assignment_duration_seconds,
            "Reward": self.reward_param,
            "Title": self.title,
            "Description": self.description,
        }
        if self.keywords:
            params["Keywords"] = self.keywords
        requirements = qualification_requirements(self)
        if requirements:
            params["QualificationRequirements"] = requirements
        return params


def qualification_requirements(settings: HitSettings) -> list[dict[str, Any]]:
    """MTurk ``QualificationRequirements`` for the settings, in a fixed order.

    Locale (``In`` the listed locales), approval rate (``GreaterThanOrEqualTo``), number of
    approved HITs (``GreaterThanOrEqualTo``), Masters (``Exists``, the sandbox or production
    id), our qualification (``EqualTo`` :data:`PASSED_QUALIFICATION_VALUE`). Each guards
    ``settings.actions_guarded`` (default ``Accept``: see the module docstring).
    """
    guarded = settings.actions_guarded
    requirements: list[dict[str, Any]] = []
    if settings.locales:
        values = []
        for code in settings.locales:
            country, _, subdivision = code.partition("-")
            value = {"Country": country}
            if subdivision:
                value["Subdivision"] = subdivision
            values.append(value)
        requirements.append(
            {
                "QualificationTypeId": LOCALE,
                "Comparator": "In",
                "LocaleValues": values,
                "ActionsGuarded": guarded,
            }
        )
    if settings.min_approval_rate is not None:
        requirements.append(
            {
                "QualificationTypeId": PERCENT_ASSIGNMENTS_APPROVED,
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [settings.min_approval_rate],
                "ActionsGuarded": guarded,
            }
        )
    if settings.min_approved_hits is not None:
        requirements.append(
            {
                "QualificationTypeId": NUMBER_HITS_APPROVED,
                "Comparator": "GreaterThanOrEqualTo",
                "IntegerValues": [settings.min_approved_hits],
                "ActionsGuarded": guarded,
            }
        )
    if settings.masters:
        requirements.append(
            {
                "QualificationTypeId": settings.masters_qualification_type_id,
                "Comparator": "Exists",
                "ActionsGuarded": guarded,
            }
        )
    if settings.custom_qualification_type_id:
        requirements.append(
            {
                "QualificationTypeId": settings.custom_qualification_type_id,
                "Comparator": "EqualTo",
                "IntegerValues": [PASSED_QUALIFICATION_VALUE],
                "ActionsGuarded": guarded,
            }
        )
    return requirements
