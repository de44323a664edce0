"""What workers do: Worker, Assignment (one worker on one HIT) and Judgment (one answer).

Judgments are append-only: nothing in the application updates or deletes one. A rejected
worker's judgments stay stored and are excluded from scores by the statistics, not removed.
"""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from campaigns.models import Campaign, Hit, HitSlot


class Platform(models.TextChoices):
    MTURK = "mturk", "Amazon Mechanical Turk"
    PROLIFIC = "prolific", "Prolific"
    DIRECT = "direct", "Direct link"
    IMPORTED = "imported", "Imported judgments"


class CountrySource(models.TextChoices):
    FORM = "form", "The worker's background form"
    MTURK_LOCALE = "mturk_locale", "MTurk's locale qualification (one country required)"


class Worker(models.Model):
    """A crowd worker, identified by the platform that sent them and that platform's id.

    Workers are not Django users: they arrive by a signed link or the platform's parameters.
    """

    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_id = models.CharField(
        max_length=200, help_text="MTurk WorkerId, Prolific PID or a pseudonymous id."
    )
    label = models.CharField(
        max_length=200,
        blank=True,
        help_text="Direct links: the requester's own note on whom the link was for.",
    )
    # Background (000 section 5.1), asked once before a worker's first HIT in a campaign that
    # wants it; the years speaking the campaign's languages are on CampaignWorker, since they
    # depend on the campaign's language pair.
    native_language = models.CharField(max_length=100, blank=True)
    country = models.CharField(
        max_length=2, blank=True, help_text="ISO 3166 country code (from the form or MTurk)."
    )
    country_source = models.CharField(
        max_length=16,
        choices=CountrySource.choices,
        blank=True,
        help_text="Where the country came from.",
    )
    blocked_at = models.DateTimeField(
        null=True, blank=True, help_text="When the requester blocked the worker on MTurk."
    )
    blocked_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["platform", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "external_id"], name="worker_unique_platform_id"
            ),
            models.CheckConstraint(
                condition=Q(platform__in=Platform.values), name="worker_platform_valid"
            ),
            models.CheckConstraint(condition=~Q(external_id=""), name="worker_id_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.get_platform_display()})"


class AssignmentStatus(models.TextChoices):
    STARTED = "started", "Started"
    SUBMITTED = "submitted", "Submitted"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"
    EXPIRED = "expired", "Expired (abandoned)"
    RETURNED = "returned", "Returned by the worker"


# Assignments that occupy one of a HIT's redundancy places.
LIVE_ASSIGNMENT_STATUSES = (
    AssignmentStatus.STARTED,
    AssignmentStatus.SUBMITTED,
    AssignmentStatus.APPROVED,
)


# --- Assignments whose judgments are kept out of the scores (issue 11, item 1) ---------------
# Anyone can open our MTurk entry page with made-up ``assignmentId`` and ``workerId`` (MTurk's
# parameters come from the browser), so an assignment opened there is only as good as MTurk's
# word for it. MTurk vouches for an assignment once it reports it: the sync's
# ListAssignmentsForHIT (submitted, approved or rejected assignments; MTurk's API lists no
# accepted-but-unsubmitted one, and GetAssignment returns none either, so nothing can be
# confirmed at accept time), an approval or rejection MTurk accepted, or MTurk's own batch
# file. Each of these stores MTurk's status in ``platform_status``; ``_start_again`` clears it
# when the worker comes back under a new MTurk assignment id. Until then the judgments are
# stored, flagged (the admin's "MTurk status" is empty) and left out of the scores, like those
# of a rejected assignment. Assignments that never came through the MTurk entry page (direct
# links, Prolific, imported files: no ``turk_submit_to``) are not concerned.


def unconfirmed_on_mturk(prefix: str = "") -> Q:
    """Assignments opened through our MTurk entry page that MTurk has not reported yet.
    ``prefix`` reaches them through a relation (``"assignment__"`` from Judgment)."""
    return ~Q(**{f"{prefix}turk_submit_to": ""}) & Q(**{f"{prefix}platform_status": ""})


def held_back_from_scores(prefix: str = "") -> Q:
    """Assignments whose judgments stay stored but count in no score: rejected ones, and
    MTurk ones MTurk has not confirmed (:func:`unconfirmed_on_mturk`). The statistics'
    loaders and their stale-result sweep both use it, so a confirmation changes the count the
    sweep compares and the results are recomputed."""
    return Q(**{f"{prefix}status": AssignmentStatus.REJECTED}) | unconfirmed_on_mturk(prefix)


class Assignment(models.Model):
    """One worker's attempt at one HIT. A worker gets at most one assignment per HIT."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="assignments")
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.STARTED
    )
    started_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(help_text="Abandoned after this moment unless submitted.")
    # What the worker was offered when they took the assignment (campaigns.pay),
    # so that a later change of the campaign's or the HIT's reward does not re-price work
    # already taken: the report, the API's cost and the review pages read this, never the
    # campaign's reward of today. Null only for imported judgments, paid elsewhere.
    reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Pay for this assignment in US dollars, fixed when the worker took it (the "
        "HIT's reward then, else the campaign's; on MTurk the reward the HIT was published "
        "with). Empty: imported judgments, paid elsewhere.",
    )
    platform_assignment_id = models.CharField(
        max_length=200, blank=True, help_text="MTurk AssignmentId or Prolific SESSION_ID."
    )
    platform_hit_id = models.CharField(
        max_length=200, blank=True, help_text="MTurk HITId or Prolific STUDY_ID."
    )
    turk_submit_to = models.CharField(
        max_length=200,
        blank=True,
        help_text="MTurk: where the finished task posts (one of MTurk's two hosts).",
    )
    platform_status = models.CharField(
        max_length=32, blank=True, help_text="The assignment's status as MTurk last reported it."
    )
    platform_synced_at = models.DateTimeField(null=True, blank=True)
    review_feedback = models.TextField(
        blank=True, help_text="The feedback sent to the worker with an approval or rejection."
    )
    current_served_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the server first sent the worker the next unanswered item; the next "
        "judgment's served_at. Reset when that item is answered (or the assignment is handed "
        "out again); a reload does not move it, so server time counts from the first showing.",
    )

    class Meta:
        ordering = ["campaign", "hit", "started_at"]
        constraints = [
            models.UniqueConstraint(fields=["worker", "hit"], name="assignment_one_per_worker_hit"),
            models.UniqueConstraint(
                fields=["platform_assignment_id"],
                condition=~Q(platform_assignment_id=""),
                name="assignment_unique_platform_id",
            ),
            models.CheckConstraint(
                condition=Q(status__in=AssignmentStatus.values), name="assignment_status_valid"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "status"]),
            models.Index(fields=["hit", "status"]),
            models.Index(fields=["status", "expires_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.worker} on {self.hit}"

    def clean(self) -> None:
        if self.hit_id and self.campaign_id and self.hit.campaign_id != self.campaign_id:
            raise ValidationError({"hit": "The HIT belongs to another campaign."})


class CampaignWorker(models.Model):
    """A worker's standing in one campaign: created at their first hand-out, and the row a
    requester ticks to exclude them. An excluded worker gets no further assignment in the
    campaign (the hand-out checks ``excluded``); what they already did stays stored.

    It also holds the worker's qualification-test result (002 section 4.1: written when the
    worker's qualification assignment is submitted; ``None`` until then) and the gold-trust
    cut-off (002 section 4: analytics marks workers ``untrusted`` after their gold units, and
    the hand-out then gives them nothing more). Neither is ever shown to the worker; a later
    crowd-platform feature grants an MTurk qualification from ``qualification_passed``.
    """

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="campaign_workers"
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="campaigns_joined")
    excluded = models.BooleanField(default=False)
    excluded_reason = models.TextField(
        blank=True, help_text="Why the worker was excluded; never shown to the worker."
    )
    excluded_at = models.DateTimeField(null=True, blank=True)
    qualification_passed = models.BooleanField(
        null=True,
        blank=True,
        help_text="Qualification test result: passed, failed, or blank if not taken yet.",
    )
    qualification_score = models.FloatField(
        null=True,
        blank=True,
        help_text="Share of the test's checked outputs ranked as expected (0 to 1).",
    )
    qualified_at = models.DateTimeField(
        null=True, blank=True, help_text="When the qualification result was decided."
    )
    untrusted = models.BooleanField(
        default=False,
        help_text="Failed the on-the-fly checks: gets no further assignment in the campaign.",
    )
    untrusted_reason = models.TextField(
        blank=True, help_text="Why the worker is untrusted; never shown to the worker."
    )
    untrusted_at = models.DateTimeField(null=True, blank=True)
    years_source_language = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(120)]
    )
    years_target_language = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MaxValueValidator(120)]
    )
    background_at = models.DateTimeField(
        null=True, blank=True, help_text="When the worker answered the background form."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "worker"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "worker"], name="campaign_worker_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.worker} in {self.campaign}"


class Judgment(models.Model):
    """One answer: one row per (assignment, slot), with typed columns for every task kind.

    ``campaign`` and ``worker`` repeat the assignment's so that statistics and exports read one
    table with one indexed filter; they are set by the single code path that records
    judgments and never change afterwards.

    Which columns a task fills:
      direct assessment: score (0-100);
      ranking: rank (1 = best; ties share a rank);
      post-editing, translation, RC authoring/answering: text;
      post-edit verification: yes_no (same meaning as the reference?) and
        yes_no_second (acceptable target language?);
      RC selection: yes_no (good question?) and details {"redundant_with": [positions]};
      RC grading: yes_no (answer correct?); Detect-MT: yes_no (machine made?).
    """

    # No index of their own for campaign and assignment: (campaign, worker), (campaign,
    # submitted_at) and the unique (assignment, slot) lead with them, and every index is paid
    # for on each submission's INSERT (issue 16: eleven indexes became eight).
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="judgments", db_index=False
    )
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="judgments")
    assignment = models.ForeignKey(
        Assignment, on_delete=models.CASCADE, related_name="judgments", db_index=False
    )
    slot = models.ForeignKey(HitSlot, on_delete=models.CASCADE, related_name="judgments")

    score = models.FloatField(null=True, blank=True)
    given_z = models.FloatField(
        null=True,
        blank=True,
        help_text="Imported judgments only: a standardised score as published (the worker's "
        "z-score), for files that carry no raw 0-100 score. The statistics use it as the "
        "judgment's z instead of standardising a raw score.",
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.TextField(blank=True)
    yes_no = models.BooleanField(null=True, blank=True)
    yes_no_second = models.BooleanField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)

    # Timing: the browser's own measurement and the server's view of the same interval.
    client_started_at = models.DateTimeField(null=True, blank=True)
    client_duration_ms = models.PositiveIntegerField(null=True, blank=True)
    served_at = models.DateTimeField(
        null=True, blank=True, help_text="When the server sent the item to the worker."
    )
    submitted_at = models.DateTimeField(auto_now_add=True, db_index=True)
    server_duration_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="submitted_at - served_at, in milliseconds."
    )

    class Meta:
        ordering = ["assignment", "slot__position"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "slot"], name="judgment_one_per_assignment_slot"
            ),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__gte=0, score__lte=100),
                name="judgment_score_0_100",
            ),
            models.CheckConstraint(
                condition=Q(rank__isnull=True) | Q(rank__gte=1), name="judgment_rank_gte_1"
            ),
        ]
        indexes = [
            models.Index(fields=["campaign", "worker"]),
            models.Index(fields=["campaign", "submitted_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.assignment} slot {self.slot_id}"

    def clean(self) -> None:
        if self.assignment_id and self.slot_id and self.slot.hit_id != self.assignment.hit_id:
            raise ValidationError({"slot": "The slot is not part of this assignment's HIT."})


class BonusStatus(models.TextChoices):
    PENDING = "pending", "Not confirmed by MTurk yet"
    SENT = "sent", "Paid"


class Bonus(models.Model):
    """A bonus for one assignment. The row is written before MTurk is called, and its id makes
    the ``UniqueRequestToken``: a retried payment (a second click, a Celery retry) reuses the
    token, so MTurk pays once; the row is marked sent only when MTurk confirms."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="bonuses")
    worker = models.ForeignKey(Worker, on_delete=models.PROTECT, related_name="bonuses")
    amount = models.DecimalField(
        max_digits=7, decimal_places=2, validators=[MinValueValidator(Decimal("0.01"))]
    )
    reason = models.TextField(help_text="Shown to the worker with the payment.")
    status = models.CharField(
        max_length=16, choices=BonusStatus.choices, default=BonusStatus.PENDING
    )
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "bonuses"
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="bonus_amount_positive"),
            models.CheckConstraint(
                condition=Q(status__in=BonusStatus.values), name="bonus_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"${self.amount} to {self.worker}"

    @property
    def request_token(self) -> str:
        return f"evalsite-bonus-{self.pk}"


# --- Where the hand-out starts looking (judgments.actions.frontier) ---------------------------


class HandOutFrontier(models.Model):
    """The lowest HIT number of a campaign that may have a place free: every regular HIT
    numbered below it (not a qualification HIT, not published on MTurk) is full. The hand-out
    looks for a HIT from here on, so that a campaign's full HITs are not counted again on
    every visit of a worker's link (issue 16: at 16,667 HITs a hand-out that found no room
    took 83 ms under the campaign's lock). Written by the hand-out only, under that lock;
    lowered from :class:`HitReopened`."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    number = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.campaign_id} from HIT {self.number}"


class HitReopened(models.Model):
    """A HIT that may have a place free again, below a campaign's :class:`HandOutFrontier`:
    written by database triggers (migration judgments 0008) when a live assignment becomes
    expired, returned or rejected, or is deleted; when a HIT is added or its places,
    qualification flag or number change; when a HIT is taken off MTurk; and (as number 0) when
    a campaign's redundancy grows. Triggers, not Python, so that no path that frees a place is
    missed (admin edits, raw updates, MTurk sync). Insert-only: a trigger locks no shared row,
    so it can neither wait on nor deadlock with a hand-out. The hand-out reads and deletes a
    campaign's rows under the campaign's lock. No foreign key constraint: a row written while
    its campaign is being deleted is left behind, harmless."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, db_constraint=False, db_index=False, related_name="+"
    )
    number = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["campaign", "id"], name="hit_reopened_campaign")]

    def __str__(self) -> str:
        return f"{self.campaign_id}: HIT {self.number} reopened"
