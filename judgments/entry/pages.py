"""What the worker-facing views of every platform share: the polite message page, the
worker's and the task's signed URLs, and the campaign's title as workers see it."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from campaigns.models import Campaign
from judgments import tokens
from judgments.models import Assignment

INVALID_LINK = (
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one."
)


def message_page(
    request: HttpRequest,
    message: str,
    *,
    title: str = "evalsite",
    status: int = 200,
    link: tuple[str, str] | None = None,
) -> HttpResponse:
    """A polite page: a title, one message and at most one link onwards."""
    context = {"title": title, "message": message, "link": link}
    return render(request, "judgments/message.html", context, status=status)


def see_other(url: str) -> HttpResponse:
    """303: after a POST, the browser fetches the target with GET."""
    return HttpResponse(status=303, headers={"Location": url})


def campaign_title(campaign: Campaign) -> str:
    return campaign.title or campaign.get_kind_display()


def worker_url(worker_id: int, campaign_id: int) -> str:
    return reverse("judgments:worker-link", args=[tokens.worker_token(worker_id, campaign_id)])


def task_url(assignment: Assignment) -> str:
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse("judgments:task", args=[token])
