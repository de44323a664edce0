"""The worker background form (000 section 5.1)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from judgments.models import Assignment


def background_needed(assignment: Assignment) -> bool:
    return False


def background_form(request: HttpRequest, token: str) -> HttpResponse:
    raise NotImplementedError
