"""What a requester sets up: campaigns, systems, documents, segments, outputs and HITs.

One data model serves every task kind (ranking, direct assessment, post-editing and its
verification, the four reading-comprehension stages, translation): a Campaign has a ``kind``;
a Hit is an ordered list of HitSlots; what differs between kinds is which slot roles a HIT
builder creates and which Judgment columns a task page fills. See ../shared/METHODS.md.

The crowd platforms' own rows (``MTurkHit``, ``PlatformEvent``) live in
``campaigns.platforms.models`` and are re-exported here.
"""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import (
    MaxValueValidator,
    MinValueValidator,
    RegexValidator,
)
from django.db import models
from django.db.models import Q

# Issue 11 item 6: big imports run as jobs (campaigns.import_jobs).
from campaigns.import_jobs.models import ImportJob, ImportJobKind, ImportJobStatus
from campaigns.platforms.models import MTurkHit, PlatformEvent, PlatformEventKind
from campaigns.platforms.mturk.settings import checked_locales

# BCP-47-ish: a 2-3 letter language, optional script and region ("en", "zh-Hans", "pt-BR").
language_code_validator = RegexValidator(
    r"^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$",
    "Use a language code such as 'en', 'de', 'zh-Hans' or 'pt-BR'.",
)
# Prolific completion codes are short capitals and digits (e.g. "C1A2B3C4"); it also goes into
# a URL, so nothing else is accepted.
completion_code_validator = RegexValidator(
    r"^[A-Za-z0-9_-]{1,64}$", "Use the completion code Prolific shows (letters and digits)."
)


# The entry page's consent line unless the requester writes their own (issue 17): what is
# stored, what it is for, and that taking part is voluntary, in plain words.
DEFAULT_CONSENT_TEXT = (
    "Your answers are stored with a pseudonymous worker number, never your name, together "
    "with the time each answer took (and, if asked, your native language and country). They "
    "are used to evaluate machine translation and may be published in anonymised form. Taking "
    "part is voluntary and you may stop at any time. By pressing Start you agree to this."
)


class TaskKind(models.TextChoices):
    """What a campaign evaluates. Reading comprehension and post-editing run several HIT
    stages inside one campaign (see HitTask)."""

    RANKING = "ranking", "Ranking"
    DIRECT_ASSESSMENT = "direct_assessment", "Direct assessment (slider)"
    POST_EDITING = "post_editing", "Post-editing (HTER)"
    READING_COMPREHENSION = "reading_comprehension", "Reading comprehension"
    TRANSLATION = "translation", "Translation creation"


class HitTask(models.TextChoices):
    """What one HIT asks a worker to do. A campaign's kind decides which tasks it may hold."""

    RANK = "rank", "Rank outputs"
    ASSESS = "assess", "Direct assessment"
    POST_EDIT = "post_edit", "Post-edit"
    VERIFY_EDIT = "verify_edit", "Verify post-edits"
    RC_AUTHOR = "rc_author", "Reading comprehension: write questions"
    RC_SELECT = "rc_select", "Reading comprehension: select questions"
    RC_ANSWER = "rc_answer", "Reading comprehension: answer questions"
    RC_GRADE = "rc_grade", "Reading comprehension: grade answers"
    TRANSLATE = "translate", "Translate"
    DETECT_MT = "detect_mt", "Detect machine translation"


class CampaignStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    FINISHED = "finished", "Finished"


def owner_deleted(collector, field, sub_objs, using) -> None:
    """``on_delete`` of ``Campaign.owner``: SET_NULL, unless a campaign would then share its
    name with another campaign without owner (names are unique per owner, and among the
    campaigns without one: issue 11 item 8). Then the user cannot be deleted (ProtectedError,
    which the admin shows as the campaigns to rename or give another owner first) rather than
    failing on the unique constraint."""
    names: set[str] = set()
    clashing: set[str] = set()
    for campaign in sub_objs:
        (clashing if campaign.name in names else names).add(campaign.name)
    clashing |= set(
        Campaign.objects.using(using)
        .filter(owner__isnull=True, name__in=names)
        .values_list("name", flat=True)
    )
    if clashing:
        blocking = [campaign for campaign in sub_objs if campaign.name in clashing]
        raise models.ProtectedError(
            "Cannot delete the owner: without an owner, these campaigns would share their "
            "name with another campaign without owner; rename them or give them another "
            "owner first.",
            blocking,
        )
    models.SET_NULL(collector, field, sub_objs, using)


class Campaign(models.Model):
    """One evaluation: a language pair, a task kind, systems, HIT rules, payment and QC.

    Every option is a typed column with validators (never a ``;``-separated string); ``clean``
    checks the rules that depend on the kind.

    A name is unique among its owner's campaigns, and among the campaigns without owner
    (created by commands or the demo), not site-wide (issue 11 item 8: a site-wide name told
    anyone creating a campaign that a campaign they cannot see had it). Two requesters may
    each have a "WMT21".
    """

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=32, choices=TaskKind.choices)
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.DRAFT
    )
    status_reason = models.TextField(
        blank=True,
        help_text="Why the campaign has its status, e.g. the cause of an automatic pause.",
    )
    imported_from = models.CharField(
        max_length=32,
        blank=True,
        help_text="For a campaign of imported judgments: the format of the file(s) it came "
        "from. Blank for campaigns run here.",
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=owner_deleted,
        related_name="owned_campaigns",
        help_text="The requester who owns the campaign.",
    )
    source_language = models.CharField(max_length=16, validators=[language_code_validator])
    target_language = models.CharField(max_length=16, validators=[language_code_validator])
    instructions = models.TextField(
        blank=True, help_text="Shown to workers above every task page; plain text."
    )
    instructions_language = models.CharField(
        max_length=16,
        blank=True,
        validators=[language_code_validator],
        help_text="Language of the instructions and the task page labels. Blank: English.",
    )

    # --- HIT layout -------------------------------------------------------------------------
    redundancy = models.PositiveSmallIntegerField(
        default=5,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text="How many different workers do each HIT.",
    )
    hit_seed = models.PositiveIntegerField(
        default=0, help_text="Random seed for building HITs; the same seed rebuilds the same HITs."
    )

    # --- Quality control ------------------------------------------------------------------
    qualification_required = models.BooleanField(
        default=False, help_text="Workers must pass the qualification test before any HIT."
    )
    qualification_pass_mark = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.800"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text="Share of qualification-test answers a worker must get right.",
    )

    # --- Payment and publishing -----------------------------------------------------------
    reward = models.DecimalField(
        max_digits=7,
        decimal_places=2,
        default=Decimal("0.00"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Payment per assignment, in US dollars.",
    )
    title = models.CharField(max_length=128, blank=True, help_text="Title workers see.")
    description = models.CharField(max_length=2000, blank=True)
    keywords = models.CharField(max_length=500, blank=True, help_text="Comma-separated.")
    assignment_duration_seconds = models.PositiveIntegerField(
        default=2 * 60 * 60,
        validators=[MinValueValidator(60)],
        help_text="Time a worker has to finish an accepted HIT before it returns to the pool.",
    )
    hit_lifetime_seconds = models.PositiveIntegerField(
        default=7 * 24 * 60 * 60,
        validators=[MinValueValidator(30), MaxValueValidator(365 * 24 * 60 * 60)],
        help_text="MTurk: how long a published HIT can be found and accepted (7 days = 604800).",
    )
    auto_approval_delay_seconds = models.PositiveIntegerField(
        default=3 * 24 * 60 * 60,
        validators=[MaxValueValidator(30 * 24 * 60 * 60)],
        help_text="MTurk: a submitted assignment you have not reviewed is approved and paid "
        "after this long (3 days = 259200).",
    )
    ask_background = models.BooleanField(
        default=False,
        help_text="Ask each worker for their native language, country and years speaking "
        "the source and target languages before their first HIT (000 section 5.1).",
    )
    consent_text = models.TextField(
        blank=True,
        default=DEFAULT_CONSENT_TEXT,
        help_text="What workers agree to by pressing Start, shown on the campaign's entry "
        "page (plain text). Empty: no consent line.",
    )

    # --- Amazon Mechanical Turk -----------------------------------------------------------
    mturk_sandbox = models.BooleanField(
        default=True,
        help_text="Publish to MTurk's sandbox (no money is paid). Untick to publish to the "
        "production marketplace.",
    )
    mturk_locales = models.JSONField(
        default=list,
        blank=True,
        help_text="Countries workers must be in (ISO 3166 codes such as US, GB, IN, "
        "optionally with a subdivision such as US-CA). Empty: any country.",
    )
    mturk_min_approval_rate = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MaxValueValidator(100)],
        help_text="Minimum percentage of a worker's earlier assignments approved (e.g. 95, "
        "as in Graham et al.). Empty: no requirement.",
    )
    mturk_min_approved_hits = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Minimum number of HITs a worker has had approved (MTurk shows 100% approval "
        "for workers with fewer than 100 assignments, so pair this with the rate).",
    )
    mturk_masters = models.BooleanField(
        default=False, help_text="Only MTurk Masters (MTurk charges a further 5% fee)."
    )
    mturk_qualification_type_id = models.CharField(
        max_length=64,
        blank=True,
        help_text="MTurk qualification granted to workers who passed this campaign's "
        "qualification test; created on the first publication when the test is required.",
    )
    mturk_qualification_test_places = models.PositiveIntegerField(
        default=100,
        validators=[MinValueValidator(1)],
        help_text="MTurk: how many workers may take the qualification test (its HIT's "
        "assignments).",
    )

    # --- Prolific -------------------------------------------------------------------------
    prolific_study_id = models.CharField(
        max_length=64,
        blank=True,
        validators=[
            RegexValidator(
                r"^[A-Za-z0-9]{1,64}$",
                "Use the study id Prolific shows in the study's address (letters and digits).",
            )
        ],
        help_text="Prolific: the id of the study that links here (in the study's address on "
        "Prolific, e.g. 60a1b2c3d4e5f6a7b8c9d0e1). Set, a visit from any other study, or with "
        "no session id, is refused before a task is handed out. Empty: any study id is taken.",
    )
    prolific_completion_code = models.CharField(
        max_length=64,
        blank=True,
        validators=[completion_code_validator],
        help_text="Prolific completion code for workers who finish their task.",
    )
    prolific_failed_code = models.CharField(
        max_length=64,
        blank=True,
        validators=[completion_code_validator],
        help_text="Prolific completion code for workers who fail quality control (the "
        "qualification test, gold units or the reliability test). Empty: they get no code and "
        "are asked to return the study.",
    )

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=TaskKind.values), name="campaign_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=CampaignStatus.values), name="campaign_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(redundancy__gte=1), name="campaign_redundancy_gte_1"
            ),
            # Names are unique per owner; campaigns without owner share one name space.
            models.UniqueConstraint(
                fields=["owner", "name"],
                name="campaign_unique_owner_name",
                violation_error_message="The owner already has a campaign of this name; "
                "choose another name.",
            ),
            models.UniqueConstraint(
                fields=["name"],
                condition=Q(owner__isnull=True),
                name="campaign_unique_name_without_owner",
                violation_error_message="A campaign without owner already has this name; "
                "choose another name.",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def hits_frozen_by(self) -> str:
        """What keeps the campaign's HITs from being rebuilt: "workers" (an assignment: its
        judgments point at the HITs' slots and are never deleted), "mturk" (HITs published
        there, which workers may be doing), or "" while they can be. One or two queries."""
        if self.assignments.exists():
            return "workers"
        if MTurkHit.objects.filter(hit__campaign=self).exists():
            return "mturk"
        return ""

    def clean(self) -> None:
        errors: dict[str, str] = {}
        if self.pk and self.kind:
            stored = Campaign.objects.filter(pk=self.pk).values_list("kind", flat=True).first()
            if stored is not None and stored != self.kind and self.hits.exists():
                errors["kind"] = (
                    "The campaign already has HITs, so its kind cannot change (its judgments "
                    "and results belong to the kind they were made for). Create a new campaign "
                    "for another kind."
                )
        if self.mturk_locales:
            try:
                self.mturk_locales = list(checked_locales(self.mturk_locales))
            except ValueError as error:
                errors["mturk_locales"] = str(error)
        if errors:
            raise ValidationError(errors)

    @property
    def hit_tasks(self) -> tuple[str, ...]:
        from campaigns.kinds import registry

        implementation = registry.get(self.kind)
        return implementation.hit_tasks if implementation is not None else ()

    @property
    def accepts_work(self) -> bool:
        return self.status == CampaignStatus.ACTIVE


class System(models.Model):
    """An MT system (or the human reference evaluated as a pseudo-system)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    is_reference = models.BooleanField(
        default=False, help_text="A human translation evaluated as if it were a system."
    )

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="system_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        # A system added once HITs are built is in none of them, and an import cannot give
        # it outputs for their segments (campaigns.importers.checks): it could only be a
        # system nobody evaluates. The admin's forms (the campaign page's Systems, the
        # system's own page) say so and what to do instead.
        if not self._state.adding or not self.campaign_id:
            return
        if not Hit.objects.filter(campaign_id=self.campaign_id).exists():
            return
        campaign = Campaign.objects.get(pk=self.campaign_id)
        if campaign.hits_frozen_by():
            what = (
                "Workers have started them (or they are on MTurk), so they cannot be rebuilt: "
                "evaluate the system in a new campaign."
            )
        else:
            what = (
                "Nobody has started them: delete them first (the checklist's Delete HITs), then "
                "add the system, import its outputs for every segment and build the HITs again."
            )
        raise ValidationError(
            f'Campaign "{campaign.name}" has HITs: a system added now would be in none of them, '
            f"and no outputs can be imported for the segments they show. {what}"
        )


class Document(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=200, help_text="The document id of the import.")
    position = models.PositiveIntegerField(help_text="Order of the document in the campaign.")

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="document_unique_external_id"
            ),
            models.UniqueConstraint(
                fields=["campaign", "position"], name="document_unique_position"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id


class Segment(models.Model):
    """One source sentence with its reference translations, at a position in its document.

    ``campaign`` repeats the document's campaign so that statistics and HIT builders load a
    campaign's segments from one table with one indexed filter.
    """

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="segments")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="segments")
    external_id = models.CharField(max_length=200, help_text="The segment id of the import.")
    position = models.PositiveIntegerField(help_text="1-based position in its document.")
    source = models.TextField()
    references = models.JSONField(
        default=list,
        blank=True,
        help_text="Reference translations, main reference first.",
    )

    class Meta:
        ordering = ["document__position", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "external_id"], name="segment_unique_external_id"
            ),
            models.UniqueConstraint(
                fields=["document", "position"], name="segment_unique_position"
            ),
            models.CheckConstraint(condition=Q(position__gte=1), name="segment_position_gte_1"),
        ]
        indexes = [models.Index(fields=["campaign", "document", "position"])]

    def __str__(self) -> str:
        return f"{self.document_id}:{self.external_id}"

    @property
    def reference(self) -> str:
        """The main reference, or '' when the segment has none (e.g. translation tasks)."""
        return self.references[0] if self.references else ""

    def clean(self) -> None:
        if not isinstance(self.references, list) or not all(
            isinstance(ref, str) and ref.strip() for ref in self.references
        ):
            raise ValidationError({"references": "References must be a list of non-empty texts."})
        if self.document_id and self.campaign_id and self.document.campaign_id != self.campaign_id:
            raise ValidationError({"document": "The document belongs to another campaign."})


class GoldAnswer(models.Model):
    """A requester's known answer for one segment's ranking gold unit (002 section 4).

    Either the output that must be ranked best, or a gold translation of the requester's own
    (shown in place of one output), and optionally the output known to be worst (best+worst
    scheme). Never shown to a worker as such.
    """

    segment = models.OneToOneField(Segment, on_delete=models.CASCADE, related_name="gold_answer")
    best_output = models.ForeignKey(
        "Output", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    gold_text = models.TextField(blank=True, help_text="A gold translation of your own.")
    worst_output = models.ForeignKey(
        "Output", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        ordering = ["segment"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(best_output__isnull=False, gold_text="")
                    | (Q(best_output__isnull=True) & ~Q(gold_text=""))
                ),
                name="gold_answer_best_output_or_text",
            ),
        ]

    def __str__(self) -> str:
        return f"Gold answer for {self.segment}"

    def clean(self) -> None:
        errors = {}
        for field in ("best_output", "worst_output"):
            output = getattr(self, field)
            if output is not None and output.segment_id != self.segment_id:
                errors[field] = "Choose an output of this segment."
        if (self.best_output_id is None) == (not self.gold_text.strip()):
            errors["gold_text"] = "Give either the best output or a gold translation, not both."
        if self.worst_output_id and self.worst_output_id == self.best_output_id:
            errors["worst_output"] = "The worst output cannot also be the best."
        if errors:
            raise ValidationError(errors)


class Output(models.Model):
    """One system's translation of one segment."""

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="outputs")
    segment = models.ForeignKey(Segment, on_delete=models.CASCADE, related_name="outputs")
    text = models.TextField()

    class Meta:
        ordering = ["segment", "system"]
        constraints = [
            models.UniqueConstraint(fields=["system", "segment"], name="output_unique_per_segment"),
        ]
        indexes = [models.Index(fields=["segment"])]

    def __str__(self) -> str:
        return f"{self.system} / {self.segment}"

    def clean(self) -> None:
        if (
            self.system_id
            and self.segment_id
            and self.system.campaign_id != self.segment.campaign_id
        ):
            raise ValidationError("The system and the segment belong to different campaigns.")


class Hit(models.Model):
    """The unit of work a worker accepts: an ordered list of HitSlots."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="hits")
    task = models.CharField(max_length=16, choices=HitTask.choices)
    number = models.PositiveIntegerField(help_text="1-based number of the HIT in its campaign.")
    places = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="How many distinct workers this HIT takes; empty: the campaign's redundancy. "
        "A post-editing campaign's verification HITs take its verifiers per edit.",
    )
    reward = models.DecimalField(
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text="Payment per assignment of this HIT, in US dollars; empty: the campaign's "
        "reward. Reading comprehension's stages each pay their own.",
    )
    # What a HIT shows as a whole, for kinds whose HIT is one document rather than a list of
    # outputs (reading comprehension: the article, and the system whose translation of it the
    # HIT shows; no system: the human translation). Server-side only, like slot roles.
    document = models.ForeignKey(
        "Document", null=True, blank=True, on_delete=models.CASCADE, related_name="hits"
    )
    system = models.ForeignKey(
        "System", null=True, blank=True, on_delete=models.CASCADE, related_name="hits"
    )
    is_qualification = models.BooleanField(
        default=False,
        help_text="A qualification test: taken once by every worker who must qualify before "
        "any HIT; outside the redundancy and the scores.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # As the field writes it (the admin said "Hits" and "hit slot").
        verbose_name = "HIT"
        verbose_name_plural = "HITs"
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="hit_unique_number"),
            models.CheckConstraint(condition=Q(task__in=HitTask.values), name="hit_task_valid"),
        ]
        indexes = [models.Index(fields=["campaign", "task", "number"])]

    def __str__(self) -> str:
        return f"{self.campaign} HIT {self.number}"

    def clean(self) -> None:
        if self.campaign_id and self.task not in self.campaign.hit_tasks:
            raise ValidationError(
                {"task": f"A {self.campaign.get_kind_display()} campaign has no {self.task} HITs."}
            )


class SlotRole(models.TextChoices):
    """What a slot is for. Server-side only: a worker's page never carries it."""

    SYSTEM = "system", "System output"
    BAD_REFERENCE = "bad_reference", "Bad reference (degraded output)"
    REPEAT = "repeat", "Exact repeat"
    REFERENCE = "reference", "Reference shown as an output"
    GOLD = "gold", "Gold unit with a known answer"
    TRAINING = "training", "Qualification-test item"
    QUESTION = "question", "Reading-comprehension question or other worker-written item"
    SOURCE = "source", "Source sentence to translate"


class HitSlot(models.Model):
    """One position in a HIT: what is shown there, and (secretly) why.

    ``group`` gathers slots shown together (a ranking set, a DA set of 10, one document's
    questions); ``controls`` links a quality-control slot to the slot it checks (a bad
    reference to its source output, a repeat to the first showing); ``about_judgment`` links
    a slot that shows a worker's earlier answer (a post-edit to verify, an RC question or
    answer) to that judgment.
    """

    hit = models.ForeignKey(Hit, on_delete=models.CASCADE, related_name="slots")
    position = models.PositiveSmallIntegerField(help_text="1-based order of the slot in its HIT.")
    group = models.PositiveSmallIntegerField(
        default=0, help_text="Slots shown together (ranking set, DA set of 10)."
    )
    role = models.CharField(max_length=16, choices=SlotRole.choices, default=SlotRole.SYSTEM)
    segment = models.ForeignKey(
        Segment, null=True, blank=True, on_delete=models.CASCADE, related_name="slots"
    )
    output = models.ForeignKey(
        Output,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="slots",
        help_text="The output judged; for a bad reference or a repeat, the output behind it.",
    )
    shown_text = models.TextField(help_text="Exactly the text the worker sees in this slot.")
    controls = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="controlled_by",
        help_text="The slot this quality-control slot checks.",
    )
    about_judgment = models.ForeignKey(
        "judgments.Judgment",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="follow_up_slots",
    )
    # Gold and qualification-test slots: the ranks that count as right, from best (1). The
    # best-only scheme asks for exactly 1 (min = max = 1); best+worst accepts a small range
    # (002 section 4: "rank 1 or 2" for the gold output, "3 or 4" of 4 for the known worst).
    expected_rank_min = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Gold units: the best rank that counts as right."
    )
    expected_rank_max = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Gold units: the worst rank that counts as right."
    )

    class Meta:
        verbose_name = "HIT slot"
        verbose_name_plural = "HIT slots"
        ordering = ["hit", "position"]
        constraints = [
            models.UniqueConstraint(fields=["hit", "position"], name="slot_unique_position"),
            models.CheckConstraint(condition=Q(role__in=SlotRole.values), name="slot_role_valid"),
            models.CheckConstraint(condition=Q(position__gte=1), name="slot_position_gte_1"),
            models.CheckConstraint(
                condition=~Q(controls=models.F("id")), name="slot_does_not_control_itself"
            ),
            models.CheckConstraint(
                condition=(
                    Q(expected_rank_min__isnull=True, expected_rank_max__isnull=True)
                    | Q(
                        expected_rank_min__gte=1,
                        expected_rank_max__gte=models.F("expected_rank_min"),
                    )
                ),
                name="slot_expected_rank_range_valid",
            ),
        ]
        indexes = [models.Index(fields=["output"]), models.Index(fields=["hit", "role"])]

    def __str__(self) -> str:
        return f"{self.hit} slot {self.position}"

    def clean(self) -> None:
        if self.controls_id and self.controls.hit_id != self.hit_id:
            raise ValidationError({"controls": "A slot can only control a slot of its own HIT."})


def _import_kind_settings_models() -> None:
    """Each kind's settings model lives with the kind (campaigns/kinds/<kind>/models.py);
    importing them here is what makes Django find them."""
    import importlib
    import importlib.util

    from evalsite.kinds import TASK_KINDS

    for name in TASK_KINDS:
        module = f"campaigns.kinds.{name}.models"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


_import_kind_settings_models()

# The two first kinds' choices, re-exported for the code that builds and reads campaigns.
from campaigns.kinds.direct_assessment.models import (  # noqa: E402
    AssessmentMode,
    Degradation,
    DirectAssessmentSettings,
    ReliabilityTest,
)
from campaigns.kinds.ranking.models import (  # noqa: E402
    GoldScheme,
    RankingCombination,
    RankingSettings,
)

__all__ = [
    "AssessmentMode",
    "Campaign",
    "CampaignStatus",
    "Degradation",
    "DirectAssessmentSettings",
    "Document",
    "GoldAnswer",
    "GoldScheme",
    "Hit",
    "HitSlot",
    "HitTask",
    "ImportJob",
    "ImportJobKind",
    "ImportJobStatus",
    "MTurkHit",
    "Output",
    "PlatformEvent",
    "PlatformEventKind",
    "RankingCombination",
    "RankingSettings",
    "ReliabilityTest",
    "Segment",
    "SlotRole",
    "System",
    "TaskKind",
]
