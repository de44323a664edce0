"""Workers, assignments and judgments in the admin. Judgments are append-only: read-only here."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils import timezone

from judgments import actions
from judgments.models import Assignment, CampaignWorker, Judgment, Worker


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    list_display = ("external_id", "platform", "created_at")
    list_filter = ("platform",)
    search_fields = ("external_id",)
    readonly_fields = ("created_at",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "campaign",
        "hit",
        "worker",
        "status",
        "started_at",
        "submitted_at",
        "expires_at",
    )
    list_filter = ("status", "campaign")
    search_fields = ("worker__external_id", "platform_assignment_id", "platform_hit_id")
    list_select_related = ("campaign", "hit__campaign", "worker")
    raw_id_fields = ("campaign", "hit", "worker")
    readonly_fields = ("started_at", "last_activity_at")
    show_full_result_count = False


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
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
    list_select_related = ("campaign", "worker", "assignment__hit__campaign", "slot")
    show_full_result_count = False

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
class CampaignWorkerAdmin(admin.ModelAdmin):
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
