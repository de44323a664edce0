"""django-filter filter sets of the API's lists (query parameters, documented in the schema).

A filter never widens what a user sees: every view filters an already restricted queryset
(``analytics.api.permissions``). The judgments' ``?campaign=`` is also checked by the view
itself, so that a campaign the user cannot see answers 404 rather than an empty page.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django.db.models import QuerySet
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from analytics.api.queries.rows import judged_system_filter
from campaigns.models import Campaign, CampaignStatus, Hit, HitTask, SlotRole, TaskKind
from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker


class LabelledFilterExtension(DjangoFilterExtension):
    """drf-spectacular's django-filter support, keeping the label of a filter whose schema is
    declared with ``extend_schema_field`` (:class:`IdFilter`, :class:`TextFilter`): the stock
    extension drops it, and the schema would document those parameters without a word."""

    priority = 1  # chosen over the stock extension, which targets the same backend

    def resolve_filter_field(
        self, auto_schema: Any, model: Any, filterset_class: Any, field_name: str, filter_field: Any
    ) -> list[dict[str, Any]]:
        parameters = super().resolve_filter_field(
            auto_schema, model, filterset_class, field_name, filter_field
        )
        label = filter_field.extra.get("help_text") or filter_field.label
        if label:
            for parameter in parameters:
                parameter.setdefault("description", str(label))
        return parameters


@extend_schema_field(OpenApiTypes.INT)
class IdFilter(django_filters.NumberFilter):
    """A whole number (an id or a HIT number): '1.5' is a 400, not a filter on 1.5. A number
    no database id can be (beyond 64 bits) matches nothing: Django guards lookups on integer
    columns against such values but not lookups through a foreign key, which would fail."""

    field_class = forms.IntegerField

    def filter(self, qs: QuerySet, value: int | None) -> QuerySet:
        if value is not None and not -(2**63) <= value < 2**63:
            return qs.none()
        return super().filter(qs, value)


# A query value may not contain NUL: Django's form fields refuse it with a 400 ("Null
# characters are not allowed."), and PostgreSQL cannot store it in text, so no row could match
# anyway. The schema says so, so that clients and schemathesis know the 400 is the contract.
NO_NUL_STRING = {"type": "string", "pattern": "^[^\\x00]*$"}


@extend_schema_field(NO_NUL_STRING)
class TextFilter(django_filters.CharFilter):
    """An exact match on a text column, documented as a string without NUL characters."""


class JudgedSystemFilter(IdFilter):
    """A system id: the judgments of its outputs and of the reading-comprehension HITs that
    show its translation (:func:`analytics.api.queries.rows.judged_system_filter`)."""

    def filter(self, qs: QuerySet, value: int | None) -> QuerySet:
        if value is not None and not -(2**63) <= value < 2**63:
            return qs.none()
        return judged_system_filter(qs, "id", value)


class JudgedSystemNameFilter(TextFilter):
    """A system name, matched as :class:`JudgedSystemFilter` matches an id."""

    def filter(self, qs: QuerySet, value: str | None) -> QuerySet:
        return judged_system_filter(qs, "name", value)


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    """An ISO 8601 time, compared in UTC. Python accepts UTC offsets up to 23:59 but
    PostgreSQL only up to 15:59, so the value is converted before it reaches the database; a
    time that has no UTC equivalent (before year 1 or after 9999 once converted) is earlier
    or later than every judgment."""

    def filter(self, qs: QuerySet, value: datetime | None) -> QuerySet:
        if value is None:
            return qs
        try:
            value = value.astimezone(UTC)
        except OverflowError:
            before_everything = value.year == 1
            if self.lookup_expr in ("gt", "gte"):
                return qs if before_everything else qs.none()
            return qs.none() if before_everything else qs
        return super().filter(qs, value)


class CampaignFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=TaskKind.choices)
    status = django_filters.ChoiceFilter(choices=CampaignStatus.choices)
    imported = django_filters.BooleanFilter(
        method="filter_imported",
        label="Campaigns of imported judgments (true) or run here (false).",
    )
    imported_from = TextFilter(label="The format the judgments came from.")

    class Meta:
        model = Campaign
        fields = ["kind", "status", "imported", "imported_from"]

    @extend_schema_field(OpenApiTypes.BOOL)  # the type hint below is not one the schema reads
    def filter_imported(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        if value is None:
            return queryset
        return queryset.exclude(imported_from="") if value else queryset.filter(imported_from="")


class WorkerFilter(django_filters.FilterSet):
    platform = django_filters.ChoiceFilter(choices=Platform.choices)
    external_id = TextFilter(label="The worker's platform id (e.g. MTurk WorkerId).")

    class Meta:
        model = Worker
        fields = ["platform", "external_id"]


class HitFilter(django_filters.FilterSet):
    task = django_filters.ChoiceFilter(choices=HitTask.choices)
    is_qualification = django_filters.BooleanFilter(
        label="Qualification-test HITs only (true) or regular ones only (false)."
    )
    number = IdFilter(label="The HIT's number.")

    class Meta:
        model = Hit
        fields = ["task", "is_qualification", "number"]


class AssignmentFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=AssignmentStatus.choices)
    hit = IdFilter(field_name="hit__number", label="The HIT's number.")
    worker = IdFilter(field_name="worker_id", label="A worker id.")
    worker_external_id = TextFilter(
        field_name="worker__external_id", label="A worker's platform id (e.g. MTurk WorkerId)."
    )

    class Meta:
        model = Assignment
        fields = ["status", "hit", "worker", "worker_external_id"]


class JudgmentFilter(django_filters.FilterSet):
    """Judgments of one campaign (/api/campaigns/{campaign_pk}/judgments/)."""

    system = JudgedSystemFilter(
        label="A system id: judgments of its outputs (repeats and bad references included), "
        "and reading-comprehension answers to its translations.",
    )
    system_name = JudgedSystemNameFilter(label="A system name.")
    worker = IdFilter(field_name="worker_id", label="A worker id.")
    worker_external_id = TextFilter(
        field_name="worker__external_id", label="A worker's platform id (e.g. MTurk WorkerId)."
    )
    role = django_filters.ChoiceFilter(field_name="slot__role", choices=SlotRole.choices)
    assignment_status = django_filters.ChoiceFilter(
        field_name="assignment__status", choices=AssignmentStatus.choices
    )
    hit = IdFilter(field_name="slot__hit__number", label="The HIT's number.")
    submitted_after = UtcDateTimeFilter(
        field_name="submitted_at",
        lookup_expr="gte",
        label="Submitted at or after this ISO 8601 time (e.g. 2025-01-31T12:00:00Z).",
    )
    submitted_before = UtcDateTimeFilter(
        field_name="submitted_at", lookup_expr="lt", label="Submitted before this ISO 8601 time."
    )

    class Meta:
        model = Judgment
        fields = [
            "system",
            "system_name",
            "worker",
            "worker_external_id",
            "role",
            "assignment_status",
            "hit",
            "submitted_after",
            "submitted_before",
        ]


class AllJudgmentFilter(JudgmentFilter):
    """Judgments of every campaign the user may read (/api/judgments/)."""

    campaign = IdFilter(
        field_name="campaign_id", label="A campaign id (404 if you may not read the campaign)."
    )

    class Meta(JudgmentFilter.Meta):
        fields = ["campaign", *JudgmentFilter.Meta.fields]
