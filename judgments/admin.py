"""Workers, assignments and judgments in the admin. Judgments are append-only: read-only here."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from judgments.models import Assignment, Judgment, Worker


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
