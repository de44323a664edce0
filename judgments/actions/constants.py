"""Shared constants of the actions."""

from __future__ import annotations

from judgments.models import AssignmentStatus

# Largest value a PositiveIntegerField holds on every supported database.
MAX_STORED_INT = 2_147_483_647

FINISHED_ASSIGNMENT_STATUSES = (
    AssignmentStatus.SUBMITTED,
    AssignmentStatus.APPROVED,
    AssignmentStatus.REJECTED,
)
