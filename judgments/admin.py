"""Workers, assignments, bonuses and judgments in the admin. Judgments are append-only:
read-only here.

The requester reviews assignments here (METHODS section 7, issue 5): approve, reject with
feedback, pay a bonus, block or e-mail the workers, each through an intermediate page that
shows every selected worker's reliability (direct assessment) or trust (ranking) and the
system's recommendation, and warns before rejecting a worker the system does not recommend
rejecting (001: only clear random clicking; the requester decides). The work itself is
``campaigns.platforms.review``'s (MTurk first, our rows only for what MTurk confirmed), shared
with the ``mturk_review`` command. An assignment's status and platform fields change only
through those actions and the MTurk sync, never by typing in the change form.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Exists, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from analytics.access import changeable_by_grant, shared_campaigns
from analytics.models import RankingWorkerStat, Recommendation, WorkerStat
from campaigns.admin.access import CampaignRowsAdminMixin
from campaigns.platforms import review
from campaigns.platforms.mturk.assignments import MAX_FEEDBACK
from campaigns.platforms.mturk.workers import MAX_MESSAGE, MAX_SUBJECT
from judgments import actions
from judgments.models import (
    Assignment,
    Bonus,
    BonusStatus,
    CampaignWorker,
    Judgment,
    Worker,
)

REVIEW_TEMPLATE = "admin/judgments/review_action.html"
# Items listed by name in one message; the rest are counted.
LISTED_IN_MESSAGE = 10

NOT_RECOMMENDED_FOR_REJECTION = (
    "{count} of the {total} selected assignment(s) are by workers the system does not "
    "recommend rejecting: {items}. Following 001, reject only clear random clicking: a "
    "rejected worker loses the reward and approval rate they need for other work, while an "
    "unreliable worker's judgments already stay out of the scores. You decide."
)


# --- Forms of the intermediate pages ---------------------------------------------------------


class ApproveForm(forms.Form):
    feedback = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        required=False,
        max_length=MAX_FEEDBACK,
        label="Feedback to the workers (optional)",
        help_text=f"MTurk shows it to the worker with the payment; at most {MAX_FEEDBACK} "
        "characters.",
    )


class RejectForm(forms.Form):
    feedback = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        max_length=MAX_FEEDBACK,
        label="Why the work is rejected (shown to the workers)",
        help_text=f"Required. Say what was wrong, e.g. which checks failed; at most "
        f"{MAX_FEEDBACK} characters.",
    )


class BonusForm(forms.Form):
    amount = forms.DecimalField(
        min_value=Decimal("0.01"),
        max_digits=7,
        decimal_places=2,
        label="Bonus per assignment (US dollars)",
        help_text="MTurk adds its fee on top (20%, 40% for HITs with 10 or more assignments).",
    )
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        label="Reason (shown to the workers)",
    )
    force = forms.BooleanField(
        required=False,
        label="Pay again",
        help_text="Pay even where a bonus of this amount and reason was already paid, or where "
        "an unconfirmed payment is more than a day old (check on requester.mturk.com first).",
    )


class BlockForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        label="Reason (kept by MTurk; the worker does not see it)",
    )


class NotifyForm(forms.Form):
    subject = forms.CharField(max_length=MAX_SUBJECT)
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "cols": 80}), max_length=MAX_MESSAGE
    )


# --- Shared by the review actions ------------------------------------------------------------

_DONE_VERBS = {
    "approve": "Approved",
    "reject": "Rejected",
    "bonus": "Paid a bonus for",
    "block": "Blocked on MTurk",
    "notify": "E-mailed through MTurk",
}


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:LISTED_IN_MESSAGE])
    more = len(items) - LISTED_IN_MESSAGE
    return f"{shown} and {more} more" if more > 0 else shown


def report_result(model_admin: admin.ModelAdmin, request: HttpRequest, result) -> None:
    """The outcome as admin messages: what was done, each MTurk error with what to do, and
    what was skipped, grouped by reason."""
    if result.done:
        verb = _DONE_VERBS.get(result.operation, result.operation)
        model_admin.message_user(
            request, f"{verb} {len(result.done)}: {_listed(result.done)}.", messages.SUCCESS
        )
    for failure in result.failed:
        model_admin.message_user(request, f"Not done for {failure}", messages.ERROR)
    by_reason: dict[str, list[str]] = defaultdict(list)
    for item, reason in result.skipped:
        by_reason[reason].append(item)
    for reason, items in by_reason.items():
        model_admin.message_user(
            request, f"Skipped {len(items)} ({_listed(items)}): {reason}", messages.WARNING
        )
    if not (result.done or result.failed or result.skipped):
        model_admin.message_user(request, "Nothing was selected.", messages.WARNING)


def review_page(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    *,
    action: str,
    title: str,
    form_class: type[forms.Form],
    run: Callable[[dict[str, Any]], Any],
    rows: Callable[[], list[dict[str, Any]]],
    explanation: str,
    submit_label: str,
    warnings: Callable[[list[dict[str, Any]]], list[str]] = lambda rows: [],
) -> TemplateResponse | None:
    """An action's intermediate page; once its form is posted valid, ``run`` does the work
    and the changelist shows the outcome (None). A ValueError from ``run`` (bad input the
    form could not see) is shown on the page and nothing is done. ``rows`` (the table of the
    selected assignments or workers) and ``warnings`` (from that table) are only built when
    the page is shown."""
    if request.POST.get("apply"):
        form = form_class(request.POST)
        if form.is_valid():
            try:
                result = run(form.cleaned_data)
            except ValueError as problem:
                form.add_error(None, str(problem))
            else:
                report_result(model_admin, request, result)
                return None
    else:
        form = form_class()
    table = rows()
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "opts": model_admin.model._meta,
        "action": action,
        "selected": [str(pk) for pk in queryset.values_list("pk", flat=True)],
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "form": form,
        "rows": table,
        "explanation": explanation,
        "submit_label": submit_label,
        "warnings": warnings(table),
        "media": model_admin.media + form.media,
    }
    return TemplateResponse(request, REVIEW_TEMPLATE, context)


def reward_text(assignment: Assignment) -> str:
    """The reward the assignment was taken at (what approving it pays), "-" for imported
    judgments, paid elsewhere."""
    return "-" if assignment.reward is None else f"${assignment.reward:.2f}"


def assignment_rows(assignments: Iterable[Assignment]) -> list[dict[str, Any]]:
    """One table row per assignment of an annotated queryset (no further query)."""
    return [
        {
            "item": f"assignment {a.pk}",
            "campaign": a.campaign.name,
            "worker": f"{a.worker.external_id} ({a.worker.get_platform_display()})",
            "status": a.get_status_display(),
            "reward": reward_text(a),
            "platform_status": a.platform_status,
            "synced": a.platform_synced_at,
            "quality": review.quality_text(a),
            "recommendation": a.recommendation or "",
            "recommendation_label": review.recommendation_label(a),
        }
        for a in assignments
    ]


def worker_rows(workers: Iterable[Worker]) -> list[dict[str, Any]]:
    """One row per worker with their standing in every campaign they worked in: two queries
    (direct-assessment and ranking statistics), whatever the number of workers."""
    workers = list(workers)
    ids = [w.pk for w in workers]
    standing: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for stat in WorkerStat.objects.filter(worker_id__in=ids).select_related("campaign"):
        standing[stat.worker_id].append(
            (
                stat.campaign.name,
                review.reliability_text(stat.reliable, stat.p_value),
                review.recommendation_text(
                    stat.recommendation, ranking=False, reason=stat.recommendation_reason
                ),
            )
        )
    for stat in RankingWorkerStat.objects.filter(worker_id__in=ids).select_related("campaign"):
        standing[stat.worker_id].append(
            (
                stat.campaign.name,
                review.trust_text(stat.status, stat.accuracy),
                review.recommendation_text(
                    review.ranking_recommendation(stat.status), ranking=True
                ),
            )
        )
    return [
        {
            "item": f"worker {w.pk}",
            "campaign": "; ".join(name for name, _, _ in standing[w.pk]) or "-",
            "worker": f"{w.external_id} ({w.get_platform_display()})",
            "status": f"blocked {timezone.localtime(w.blocked_at):%Y-%m-%d}"
            if w.blocked_at
            else "",
            "platform_status": "",
            "synced": None,
            "quality": "; ".join(f"{name}: {quality}" for name, quality, _ in standing[w.pk])
            or "no statistics yet",
            "recommendation": "",
            "recommendation_label": "; ".join(
                f"{name}: {label}" for name, _, label in standing[w.pk]
            )
            or "No recommendation yet",
        }
        for w in workers
    ]


def _created_by(request: HttpRequest) -> str:
    return f"{request.user.get_username()} (admin)"


def _recommended_for_rejection(rows: list[dict[str, Any]]) -> list[str]:
    flagged = [r["item"] for r in rows if r["recommendation"] == Recommendation.REJECT]
    if not flagged:
        return []
    return [
        f"{len(flagged)} selected assignment(s) are by workers the system recommends "
        f"considering for rejection (clearly not working): {_listed(flagged)}."
    ]


def _not_recommended_for_rejection(rows: list[dict[str, Any]]) -> list[str]:
    spared = [r["item"] for r in rows if r["recommendation"] != Recommendation.REJECT]
    if not spared:
        return []
    return [
        NOT_RECOMMENDED_FOR_REJECTION.format(
            count=len(spared), total=len(rows), items=_listed(spared)
        )
    ]


# --- Workers ---------------------------------------------------------------------------------


class BlockedFilter(admin.SimpleListFilter):
    title = "blocked on MTurk"
    parameter_name = "blocked"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin):
        return (("yes", "Blocked"), ("no", "Not blocked"))

    def queryset(self, request: HttpRequest, queryset: QuerySet[Worker]):
        if self.value() in ("yes", "no"):
            return queryset.filter(blocked_at__isnull=self.value() == "no")
        return queryset


class MTurkReviewPermissionMixin:
    """The review actions pay, refuse pay, block and e-mail in the requester's name, so they
    need what publishing to MTurk and syncing need (``campaigns.change_campaign``) on top of
    changing the rows they act on: a user who may only edit assignments or workers does not
    see them."""

    def has_mturk_review_permission(self, request: HttpRequest) -> bool:
        return self.has_change_permission(request) and request.user.has_perm(
            "campaigns.change_campaign"
        )


class WorkerRowsAdminMixin(CampaignRowsAdminMixin):
    """Workers belong to no one campaign: a user sees those who worked (or are members) in a
    campaign shared with them, and changes (blocks, messages...) those who worked in one they
    may change (campaigns.admin.access)."""

    campaign_path = "unused: workers are matched by their assignments and memberships"

    @staticmethod
    def _in(queryset: QuerySet[Worker], campaigns: QuerySet) -> QuerySet[Worker]:
        ids = campaigns.values("pk")
        return queryset.filter(
            Exists(Assignment.objects.filter(worker=OuterRef("pk"), campaign__in=ids))
            | Exists(CampaignWorker.objects.filter(worker=OuterRef("pk"), campaign__in=ids))
        )

    def restrict_rows(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        return self._in(queryset, shared_campaigns(request.user))

    def changeable_rows(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        return self._in(queryset, changeable_by_grant(request.user))

    def is_shared_row(self, request: HttpRequest, obj: Worker) -> bool:
        return self.restrict_rows(Worker.objects.filter(pk=obj.pk), request).exists()

    def is_changeable_row(self, request: HttpRequest, obj: Worker) -> bool:
        return self.changeable_rows(Worker.objects.filter(pk=obj.pk), request).exists()


@admin.register(Worker)
class WorkerAdmin(WorkerRowsAdminMixin, MTurkReviewPermissionMixin, admin.ModelAdmin):
    list_display = (
        "external_id",
        "platform",
        "label",
        "native_language",
        "country",
        "blocked_at",
        "created_at",
    )
    list_filter = ("platform", BlockedFilter)
    search_fields = ("external_id", "label")
    readonly_fields = ("created_at", "country_source", "blocked_at", "blocked_reason")
    actions = ("block_selected", "notify_selected")
    show_full_result_count = False

    @admin.action(description="Block the selected workers on MTurk", permissions=["mturk_review"])
    def block_selected(self, request: HttpRequest, queryset: QuerySet[Worker]):
        return review_page(
            self,
            request,
            queryset,
            action="block_selected",
            title="Block workers on MTurk",
            form_class=BlockForm,
            run=lambda data: review.block_workers(queryset, data["reason"]),
            rows=lambda: worker_rows(queryset),
            explanation="MTurk stops these workers from accepting any of your HITs (in every "
            "MTurk environment they worked in for you). Their submitted work and judgments stay "
            "as they are; approve or reject it separately.",
            submit_label="Block on MTurk",
        )

    @admin.action(
        description="E-mail the selected workers through MTurk", permissions=["mturk_review"]
    )
    def notify_selected(self, request: HttpRequest, queryset: QuerySet[Worker]):
        return review_page(
            self,
            request,
            queryset,
            action="notify_selected",
            title="E-mail workers through MTurk",
            form_class=NotifyForm,
            run=lambda data: review.notify_workers(queryset, data["subject"], data["message"]),
            rows=lambda: worker_rows(queryset),
            explanation="MTurk e-mails each worker (only workers whose work you approved or "
            "rejected; those it cannot reach are listed afterwards).",
            submit_label="Send",
        )


# --- Assignments -----------------------------------------------------------------------------


def _bonus_paid() -> Coalesce:
    paid = (
        Bonus.objects.filter(assignment=OuterRef("pk"), status=BonusStatus.SENT)
        .order_by()
        .values("assignment")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(paid), Decimal("0.00"))


@admin.register(Assignment)
class AssignmentAdmin(CampaignRowsAdminMixin, MTurkReviewPermissionMixin, admin.ModelAdmin):
    """Review from the changelist: tick assignments, choose approve, reject, bonus, block or
    e-mail. The worker's reliability or trust and the recommendation are columns (annotated:
    one query for the page), as are MTurk's status and the last sync."""

    list_display = (
        "id",
        "campaign",
        "hit_shown",
        "worker",
        "status",
        "reward_shown",
        "platform_status",
        "platform_synced_at",
        "worker_quality",
        "recommendation_shown",
        "bonus_paid_shown",
        "submitted_at",
        "reviewed_at",
    )
    list_filter = ("status", "platform_status", "worker__platform", "campaign")
    search_fields = ("worker__external_id", "platform_assignment_id", "platform_hit_id")
    list_select_related = ("campaign", "hit__campaign", "worker")
    actions = (
        "approve_selected",
        "reject_selected",
        "bonus_selected",
        "block_selected_workers",
        "notify_selected_workers",
    )
    show_full_result_count = False

    @admin.display(description="HIT", ordering="hit__number")
    def hit_shown(self, obj: Assignment) -> str:
        # The campaign has its own column: "HIT 3", not the HIT's full name ("<campaign> HIT 3"),
        # which made every row of the review list two to four lines taller.
        return f"HIT {obj.hit.number}"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Assignment]:
        queryset = review.annotate_worker_quality(super().get_queryset(request))
        return queryset.annotate(bonus_paid=_bonus_paid())

    def get_readonly_fields(self, request: HttpRequest, obj: Assignment | None = None):
        # Status and platform fields change through the review actions and the sync only, so
        # nothing says "approved" that MTurk did not approve.
        return [field.name for field in Assignment._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # assignments are handed out to workers, never typed in

    def has_delete_permission(self, request: HttpRequest, obj: Assignment | None = None) -> bool:
        return False  # deleting one would delete its judgments, which are evidence

    @admin.display(description="Reliability / trust")
    def worker_quality(self, assignment: Assignment) -> str:
        return review.quality_text(assignment)

    @admin.display(description="Recommendation", ordering="recommendation")
    def recommendation_shown(self, assignment: Assignment) -> str:
        return review.recommendation_label(assignment)

    @admin.display(description="Reward", ordering="reward")
    def reward_shown(self, assignment: Assignment) -> str:
        return reward_text(assignment)

    @admin.display(description="Bonuses paid", ordering="bonus_paid")
    def bonus_paid_shown(self, assignment: Assignment) -> str:
        return f"${assignment.bonus_paid:.2f}" if assignment.bonus_paid else "-"

    def _rows(self, queryset: QuerySet[Assignment]) -> list[dict[str, Any]]:
        return assignment_rows(queryset.select_related("campaign", "worker").order_by("pk"))

    @admin.action(description="Approve the selected assignments", permissions=["mturk_review"])
    def approve_selected(self, request: HttpRequest, queryset: QuerySet[Assignment]):
        return review_page(
            self,
            request,
            queryset,
            action="approve_selected",
            title="Approve assignments",
            form_class=ApproveForm,
            run=lambda data: review.approve_assignments(queryset, data["feedback"]),
            rows=lambda: self._rows(queryset),
            explanation="MTurk pays each worker the assignment's reward (the Reward column: "
            "the one it was taken at, whatever the campaign's is now) and charges its fee, and "
            "the assignment is marked approved here; Prolific and direct-link assignments are "
            "marked approved here only. A rejection is overridden (MTurk allows it for 30 days).",
            submit_label="Approve",
            warnings=_recommended_for_rejection,
        )

    @admin.action(description="Reject the selected assignments", permissions=["mturk_review"])
    def reject_selected(self, request: HttpRequest, queryset: QuerySet[Assignment]):
        return review_page(
            self,
            request,
            queryset,
            action="reject_selected",
            title="Reject assignments",
            form_class=RejectForm,
            run=lambda data: review.reject_assignments(queryset, data["feedback"]),
            rows=lambda: self._rows(queryset),
            explanation="MTurk does not pay the reward and the worker reads your feedback; the "
            "assignment is marked rejected here and its judgments stay stored but leave the "
            "scores. An assignment MTurk already approved (and paid) cannot be rejected.",
            submit_label="Reject",
            warnings=_not_recommended_for_rejection,
        )

    @admin.action(description="Pay the selected assignments a bonus", permissions=["mturk_review"])
    def bonus_selected(self, request: HttpRequest, queryset: QuerySet[Assignment]):
        return review_page(
            self,
            request,
            queryset,
            action="bonus_selected",
            title="Pay a bonus",
            form_class=BonusForm,
            run=lambda data: review.send_bonuses(
                queryset,
                data["amount"],
                data["reason"],
                _created_by(request),
                force=data["force"],
            ),
            rows=lambda: self._rows(queryset),
            explanation="MTurk pays each assignment's worker the amount below, once: a repeated "
            "or retried payment is recognised and not paid twice. MTurk workers only.",
            submit_label="Pay",
        )

    @admin.action(
        description="Block the selected assignments' workers on MTurk", permissions=["mturk_review"]
    )
    def block_selected_workers(self, request: HttpRequest, queryset: QuerySet[Assignment]):
        workers = Worker.objects.filter(assignments__in=queryset.values("pk")).distinct()
        return review_page(
            self,
            request,
            queryset,
            action="block_selected_workers",
            title="Block workers on MTurk",
            form_class=BlockForm,
            run=lambda data: review.block_workers(workers, data["reason"]),
            rows=lambda: self._rows(queryset),
            explanation="MTurk stops the workers of these assignments from accepting any of "
            "your HITs. Their assignments keep their status: approve or reject them separately.",
            submit_label="Block on MTurk",
        )

    @admin.action(
        description="E-mail the selected assignments' workers through MTurk",
        permissions=["mturk_review"],
    )
    def notify_selected_workers(self, request: HttpRequest, queryset: QuerySet[Assignment]):
        workers = Worker.objects.filter(assignments__in=queryset.values("pk")).distinct()
        return review_page(
            self,
            request,
            queryset,
            action="notify_selected_workers",
            title="E-mail workers through MTurk",
            form_class=NotifyForm,
            run=lambda data: review.notify_workers(workers, data["subject"], data["message"]),
            rows=lambda: self._rows(queryset),
            explanation="MTurk e-mails each worker of these assignments once (only workers whose "
            "work you approved or rejected; those it cannot reach are listed afterwards).",
            submit_label="Send",
        )


@admin.register(Bonus)
class BonusAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Read-only: bonuses are paid from the Assignments page (or ``mturk_review bonus``); a
    pending one with an error was not confirmed by MTurk and can be paid again from there."""

    list_display = (
        "id",
        "worker",
        "assignment",
        "amount",
        "reason",
        "status",
        "created_by",
        "created_at",
        "sent_at",
        "last_error",
    )
    campaign_path = "assignment__campaign"
    list_filter = ("status",)
    search_fields = ("worker__external_id", "assignment__platform_assignment_id", "reason")
    list_select_related = ("worker", "assignment__worker", "assignment__hit__campaign")
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Bonus | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Bonus | None = None) -> bool:
        return False


@admin.register(Judgment)
class JudgmentAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Read-only: a judgment, once stored, is evidence; nobody edits or deletes it here."""

    list_display = (
        "id",
        "campaign",
        "worker",
        "assignment",
        "slot_position",
        "score",
        "rank",
        "short_text",
        "yes_no",
        "client_duration_ms",
        "submitted_at",
    )
    list_filter = ("campaign", "slot__role")
    search_fields = ("worker__external_id",)
    # The assignment's own worker too: its name shows the worker (one query a row otherwise).
    list_select_related = (
        "campaign",
        "worker",
        "assignment__worker",
        "assignment__hit__campaign",
        "slot",
    )
    show_full_result_count = False
    # Newest first, by the primary key: a page is the end of the (campaign, id) index. The
    # model's order (assignment, then slot position) sorted every judgment of the campaign
    # joined with its slot before showing 100: 4.8 s at a million judgments.
    ordering = ("-id",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.display(description="Slot", ordering="slot__position")
    def slot_position(self, judgment: Judgment) -> int:
        return judgment.slot.position

    @admin.display(description="Text")
    def short_text(self, judgment: Judgment) -> str:
        return judgment.text if len(judgment.text) <= 60 else judgment.text[:57] + "…"


@admin.register(CampaignWorker)
class CampaignWorkerAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Who worked in which campaign; tick ``excluded`` (or use the actions) to stop a worker
    from getting further assignments there. The reason is for requesters, never shown.

    The qualification result is written when the worker submits the test; a requester may
    override it (passed / failed / blank to let them take it). ``untrusted`` is normally set by
    analytics from gold units (002's trust cut-off); the actions mark or clear it by hand."""

    list_display = (
        "worker",
        "campaign",
        "excluded",
        "untrusted",
        "qualification_passed",
        "qualification_score",
        "created_at",
    )
    list_filter = ("excluded", "untrusted", "qualification_passed", "campaign")
    search_fields = ("worker__external_id",)
    list_select_related = ("worker", "campaign")
    raw_id_fields = ("campaign", "worker")
    readonly_fields = (
        "excluded_at",
        "qualification_score",
        "qualified_at",
        "untrusted_at",
        "created_at",
    )
    fieldsets = (
        (None, {"fields": ("campaign", "worker", "created_at")}),
        ("Exclusion", {"fields": ("excluded", "excluded_reason", "excluded_at")}),
        (
            "Qualification test",
            {"fields": ("qualification_passed", "qualification_score", "qualified_at")},
        ),
        ("Trust (gold units)", {"fields": ("untrusted", "untrusted_reason", "untrusted_at")}),
    )
    actions = ("exclude_selected", "readmit_selected", "untrust_selected", "trust_selected")
    show_full_result_count = False

    def save_model(self, request: HttpRequest, obj: CampaignWorker, form, change: bool) -> None:
        # Ticking or unticking a flag stamps or clears its time, as the actions do, and a
        # changed exclusion or trust is announced so that the campaign's scores recompute.
        now = timezone.now()
        if "excluded" in form.changed_data:
            obj.excluded_at = now if obj.excluded else None
        if "untrusted" in form.changed_data:
            obj.untrusted_at = now if obj.untrusted else None
            if not obj.untrusted:
                obj.untrusted_reason = ""
        if "qualification_passed" in form.changed_data:
            obj.qualified_at = None if obj.qualification_passed is None else now
            if obj.qualification_passed is None:
                obj.qualification_score = None
        super().save_model(request, obj, form, change)
        if {"excluded", "untrusted"} & set(form.changed_data):
            actions.announce_exclusions([obj.campaign_id])

    @admin.action(description="Exclude the selected workers from their campaign")
    def exclude_selected(self, request: HttpRequest, queryset) -> None:
        count = actions.set_excluded(
            queryset, True, f"Excluded by {request.user.get_username()} in the admin."
        )
        self.message_user(request, f"Excluded {count} worker(s); they get no new assignments.")

    @admin.action(description="Re-admit the selected workers to their campaign")
    def readmit_selected(self, request: HttpRequest, queryset) -> None:
        count = actions.set_excluded(queryset, False)
        self.message_user(request, f"Re-admitted {count} worker(s).")

    @admin.action(description="Mark the selected workers untrusted in their campaign")
    def untrust_selected(self, request: HttpRequest, queryset) -> None:
        count = actions.set_untrusted_memberships(
            queryset, True, f"Marked untrusted by {request.user.get_username()} in the admin."
        )
        self.message_user(
            request, f"Marked {count} worker(s) untrusted; they get no new assignments."
        )

    @admin.action(description="Trust the selected workers again in their campaign")
    def trust_selected(self, request: HttpRequest, queryset) -> None:
        count = actions.set_untrusted_memberships(queryset, False)
        self.message_user(request, f"Trusted {count} worker(s) again.")
