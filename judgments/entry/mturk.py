"""MTurk's ExternalQuestion entry point."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from judgments.models import Assignment


def mturk_task(request: HttpRequest, hit_id: int) -> HttpResponse:
    raise NotImplementedError


def mturk_done_context(assignment: Assignment) -> dict | None:
    return None
