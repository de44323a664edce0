"""Prolific's study URL and completion redirect."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from judgments.models import Assignment


def prolific_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    raise NotImplementedError


def prolific_done_response(request: HttpRequest, assignment: Assignment) -> HttpResponse | None:
    return None
